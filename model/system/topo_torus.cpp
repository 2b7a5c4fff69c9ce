// The torus family (Trn1 2D, Trn2 3D, docs/system.md): chips on a k-ary torus of a link class per
// dimension, routed by the router's own dimension-order routing with dateline VC classes.
#include <fmt/format.h>

#include <algorithm>

#include "link/router.hpp"
#include "system/family.hpp"

namespace trn::system {
namespace {

class Torus : public Family {
 public:
  explicit Torus(const Topology& t) : t_(t) {}

  void build(Builder& b) override {
    const unsigned kx = t_.dims[0], ky = t_.dims[1], kz = t_.dims.size() > 2 ? t_.dims[2] : 1;
    const unsigned chips = kx * ky * kz, nd = static_cast<unsigned>(t_.dims.size());
    b.set_chips(chips);
    // a ring of even length has a destination half way round, reached either way
    b.set_route_keys(std::any_of(t_.dims.begin(), t_.dims.end(), [](unsigned k) { return k % 2 == 0; }) ? 2 : 1);
    // Net port q = 1 + 2 d + (0: +, 1: -) takes the next two ports of dimension d's class
    port_.assign(1 + 2 * nd, 0);
    q_.assign(1 + b.design().ports.size(), 0);
    for (unsigned d = 0; d < nd; ++d) {
      const auto before = static_cast<unsigned>(std::count(t_.classes.begin(), t_.classes.begin() + d, t_.classes[d]));
      for (unsigned dir = 0; dir < 2; ++dir) {
        const unsigned q = 1 + 2 * d + dir, port = b.chip_port(t_.classes[d], 2 * before + dir);
        port_[q] = port;
        q_[port] = q;
      }
    }
    const unsigned ports = 1 + static_cast<unsigned>(b.design().ports.size());
    for (unsigned c = 0; c < chips; ++c) {
      const unsigned x = c % kx, y = c / kx % ky, z = c / (kx * ky);
      b.add_node(NodeKind::chip, ports, {x, y, z},
                 kz > 1 ? fmt::format("c{:02} (x{} y{} z{})", c, x, y, z) : fmt::format("c{:02} (x{} y{})", c, x, y));
    }
    link::Net::Params np;
    net_shape(np);
    const link::Net shape(np);  // the network model's own neighbour function wires the system
    for (unsigned c = 0; c < chips; ++c)
      for (unsigned d = 0; d < nd; ++d) {
        const unsigned plus = 1 + 2 * d, n = shape.neighbour(c, plus);
        b.add_link(c, port_[plus], n, port_[plus + 1], b.class_index(t_.classes[d]));
      }
  }

  // the router's own dimension-order routing with dateline classes (router.hpp); an odd key goes
  // the other way round to a destination half way round
  link::Route next_hop(const System&, unsigned n, unsigned dst, unsigned in_port, unsigned in_class,
                       unsigned key) const override {
    const unsigned nd = static_cast<unsigned>(t_.dims.size());
    const link::Route r =
        link::route(link::Topo::TopoTorus, 1 + 2 * nd, t_.dims[0], t_.dims[1], n, dst, in_port ? q_[in_port] : 0,
                    in_class, nd > 2 ? t_.dims[2] : 1, false, key % 2 == 1);
    return link::Route{port_[r.port], r.cls};
  }

  bool channel_groups() const override { return true; }

  bool net_shape(link::Net::Params& p) const override {
    p.topo = link::Topo::TopoTorus;
    p.kx = t_.dims[0];
    p.ky = t_.dims[1];
    p.kz = t_.dims.size() > 2 ? t_.dims[2] : 1;
    return true;
  }

  std::vector<Halving> halvings() const override {
    static constexpr const char* kDim[] = {"x", "y", "z"};
    std::vector<Halving> h;
    for (unsigned d = 0; d < t_.dims.size(); ++d) {
      const unsigned half = t_.dims[d] / 2;
      h.push_back({fmt::format("{} < {} | {} >= {}", kDim[d], half, kDim[d], half),
                   [d, half](const std::array<unsigned, 3>& at) { return at[d] < half; }});
    }
    return h;
  }

 private:
  Topology t_;
  std::vector<unsigned> port_;  // chip router port of Net port q (1 +x, 2 -x, ...)
  std::vector<unsigned> q_;     // the inverse (chip router port -> Net port)
};

}  // namespace

std::unique_ptr<Family> make_torus_family(const Topology& t) { return std::make_unique<Torus>(t); }

}  // namespace trn::system
