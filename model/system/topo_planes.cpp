// The planes family (Trn3 Gen2 and Trn4 UltraServers, UltraClusters, docs/system.md): in an
// UltraServer every chip on each of its NeuronLink switch planes by one link; UltraServers joined
// by a scale-out leaf each and spines.
#include <fmt/format.h>

#include <numeric>

#include "system/family.hpp"

namespace trn::system {
namespace {

class Planes : public Family {
 public:
  explicit Planes(const Topology& t) : t_(t) {}

  void build(Builder& b) override {
    const unsigned U = t_.ultraservers, M = t_.chips_per_ultraserver;
    b.set_chips(U * M);
    const unsigned cls = b.class_index(t_.links);
    planes_ = b.class_ports(cls);
    const unsigned P = static_cast<unsigned>(planes_.size());
    b.set_route_keys(U > 1 ? std::lcm(P, t_.spines) : P);
    const unsigned ports = 1 + static_cast<unsigned>(b.design().ports.size());
    for (unsigned u = 0; u < U; ++u)
      for (unsigned m = 0; m < M; ++m)
        b.add_node(NodeKind::chip, ports, {u, m, 0},
                   U > 1 ? fmt::format("u{:03}.c{:03}", u, m) : fmt::format("c{:03}", m));
    for (unsigned u = 0; u < U; ++u)
      for (unsigned p = 0; p < P; ++p) {
        const unsigned pl = b.add_node(NodeKind::us_plane, M, {u, p, 0},
                                       U > 1 ? fmt::format("u{:03} plane {}", u, p) : fmt::format("plane {}", p));
        for (unsigned m = 0; m < M; ++m) b.add_link(u * M + m, planes_[p], pl, m, cls);
      }
    if (U > 1) {
      const unsigned so_cls = b.class_index(t_.scale_out_links);
      scale_out_ = b.class_ports(so_cls).front();
      const unsigned spine_cls = b.add_class(LinkClassInfo{"spine", t_.spine_gbps, t_.spine_latency_ns, true});
      const unsigned leaf0 = b.nodes();
      for (unsigned u = 0; u < U; ++u) {
        const unsigned leaf = b.add_node(NodeKind::leaf, M + t_.spines, {u, 0, 0}, fmt::format("u{:03} leaf", u));
        for (unsigned m = 0; m < M; ++m) b.add_link(u * M + m, scale_out_, leaf, m, so_cls);
      }
      for (unsigned s = 0; s < t_.spines; ++s) {
        const unsigned sp = b.add_node(NodeKind::spine, U, {s, 0, 0}, fmt::format("spine {}", s));
        for (unsigned u = 0; u < U; ++u) b.add_link(leaf0 + u, M + s, sp, u, spine_cls);
      }
    }
  }

  // in an UltraServer by plane (dst + key) mod planes; else by the scale-out port to the leaf, a
  // spine (dst + key) mod spines, the destination's leaf
  link::Route next_hop(const System& s, unsigned n, unsigned dst, unsigned, unsigned, unsigned key) const override {
    const Node& nd = s.nodes()[n];
    const Node& d = s.nodes()[dst];
    const unsigned M = t_.chips_per_ultraserver;
    switch (nd.kind) {
      case NodeKind::chip:
        if (nd.at[0] == d.at[0]) return link::Route{planes_[(dst + key) % planes_.size()], 0};
        return link::Route{scale_out_, 0};
      case NodeKind::us_plane:
        if (nd.at[0] == d.at[0]) return link::Route{d.at[1], 0};
        break;
      case NodeKind::leaf:
        if (nd.at[0] == d.at[0]) return link::Route{d.at[1], 0};
        return link::Route{M + (dst + key) % t_.spines, 0};
      case NodeKind::spine:
        return link::Route{d.at[0], 0};
      default:
        break;
    }
    throw std::logic_error(fmt::format("system: {} has no route to {}", nd.label, d.label));
  }

  std::vector<Halving> halvings() const override {
    std::vector<Halving> h;
    if (const unsigned half = t_.ultraservers / 2; t_.ultraservers > 1)
      h.push_back({fmt::format("UltraServers < {} | the rest", half),
                   [half](const std::array<unsigned, 3>& at) { return at[0] < half; }});
    const unsigned half = t_.chips_per_ultraserver / 2;
    h.push_back({fmt::format("chips < {} | the rest, in every UltraServer", half),
                 [half](const std::array<unsigned, 3>& at) { return at[1] < half; }});
    return h;
  }

 private:
  Topology t_;
  std::vector<unsigned> planes_;  // a chip's router ports to its planes
  unsigned scale_out_ = 0;        // a chip's scale-out port
};

}  // namespace

std::unique_ptr<Family> make_planes_family(const Topology& t) { return std::make_unique<Planes>(t); }

}  // namespace trn::system
