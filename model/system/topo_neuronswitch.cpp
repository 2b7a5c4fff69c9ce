// The NeuronSwitch family (Trn3 Gen1 UltraServers, docs/system.md): racks of servers; in a server
// its chips on the server's switch by k links each; in a rack every chip on each of the rack's
// switch planes by one link; a chip and the same chip of the other rack by direct links.
#include <fmt/format.h>

#include <numeric>

#include "system/family.hpp"

namespace trn::system {
namespace {

class NeuronSwitch : public Family {
 public:
  explicit NeuronSwitch(const Topology& t) : t_(t) {}

  void build(Builder& b) override {
    const unsigned R = t_.racks, S = t_.servers_per_rack, C = t_.chips_per_server;
    b.set_chips(R * S * C);
    const unsigned server_cls = b.class_index(t_.server_links), rack_cls = b.class_index(t_.rack_links);
    server_ = b.class_ports(server_cls);
    planes_ = b.class_ports(rack_cls);
    const unsigned k = static_cast<unsigned>(server_.size()), P = static_cast<unsigned>(planes_.size());
    unsigned keys = std::lcm(k + P, P);
    if (R > 1) {
      cross_ = b.class_ports(b.class_index(t_.cross_rack_links));
      keys = std::lcm(keys, static_cast<unsigned>(cross_.size()));
    }
    b.set_route_keys(keys);
    const unsigned ports = 1 + static_cast<unsigned>(b.design().ports.size());
    for (unsigned r = 0; r < R; ++r)
      for (unsigned s = 0; s < S; ++s)
        for (unsigned c = 0; c < C; ++c)
          b.add_node(NodeKind::chip, ports, {r, s, c}, fmt::format("r{}.s{:02}.c{}", r, s, c));
    for (unsigned r = 0; r < R; ++r)
      for (unsigned s = 0; s < S; ++s) {
        const unsigned sw =
            b.add_node(NodeKind::server_switch, C * k, {r, s, 0}, fmt::format("r{}.s{:02} switch", r, s));
        for (unsigned c = 0; c < C; ++c)
          for (unsigned j = 0; j < k; ++j) b.add_link((r * S + s) * C + c, server_[j], sw, c * k + j, server_cls);
      }
    for (unsigned r = 0; r < R; ++r)
      for (unsigned p = 0; p < P; ++p) {
        const unsigned pl = b.add_node(NodeKind::rack_plane, S * C, {r, p, 0}, fmt::format("r{} plane {}", r, p));
        for (unsigned i = 0; i < S * C; ++i) b.add_link(r * S * C + i, planes_[p], pl, i, rack_cls);
      }
    if (R > 1) {
      const unsigned cross_cls = b.class_index(t_.cross_rack_links);
      for (unsigned i = 0; i < S * C; ++i)
        for (unsigned q : cross_) b.add_link(i, q, S * C + i, q, cross_cls);
    }
  }

  // a chip reaches a chip of its own server by one of its k server links (to the server's switch,
  // down the same-numbered link of the destination) or by one of the rack planes: choice
  // (dst mod k + key) mod (k + planes), so key 0 takes server link dst mod k; another server of the
  // rack by plane (dst + key) mod planes; the other rack first by cross-rack link (dst + key) mod x
  link::Route next_hop(const System& s, unsigned n, unsigned dst, unsigned, unsigned, unsigned key) const override {
    const Node& nd = s.nodes()[n];
    const Node& d = s.nodes()[dst];
    const unsigned C = t_.chips_per_server, k = static_cast<unsigned>(server_.size());
    const unsigned R = static_cast<unsigned>(planes_.size());
    const unsigned server_choice = (dst % k + key) % (k + R);
    const bool ok =
        nd.kind == NodeKind::chip ||
        (nd.kind == NodeKind::server_switch && nd.at[0] == d.at[0] && nd.at[1] == d.at[1] && server_choice < k) ||
        (nd.kind == NodeKind::rack_plane && nd.at[0] == d.at[0]);
    if (!ok) throw std::logic_error(fmt::format("system: {} has no route to {}", nd.label, d.label));
    switch (nd.kind) {
      case NodeKind::chip:
        if (nd.at[0] != d.at[0]) return link::Route{cross_[(dst + key) % cross_.size()], 0};
        if (nd.at[1] == d.at[1])
          return link::Route{server_choice < k ? server_[server_choice] : planes_[server_choice - k], 0};
        return link::Route{planes_[(dst + key) % R], 0};
      case NodeKind::server_switch:
        return link::Route{d.at[2] * k + server_choice, 0};
      default:  // a rack plane
        return link::Route{d.at[1] * C + d.at[2], 0};
    }
  }

  std::vector<Halving> halvings() const override {
    std::vector<Halving> h;
    if (t_.racks > 1) h.push_back({"rack 0 | rack 1", [](const std::array<unsigned, 3>& at) { return at[0] == 0; }});
    if (const unsigned half = t_.servers_per_rack / 2; half > 0)
      h.push_back({fmt::format("servers < {} | the rest, in every rack", half),
                   [half](const std::array<unsigned, 3>& at) { return at[1] < half; }});
    if (const unsigned half = t_.chips_per_server / 2; half > 0)
      h.push_back({fmt::format("chips < {} | the rest, in every server", half),
                   [half](const std::array<unsigned, 3>& at) { return at[2] < half; }});
    return h;
  }

 private:
  Topology t_;
  std::vector<unsigned> server_, planes_, cross_;  // a chip's router ports of each link group
};

}  // namespace

std::unique_ptr<Family> make_neuronswitch_family(const Topology& t) { return std::make_unique<NeuronSwitch>(t); }

}  // namespace trn::system
