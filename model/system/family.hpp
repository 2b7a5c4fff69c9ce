// trn::system::Family — one class per topology family (docs/system.md, "Topologies"): how the
// family wires a system's chips and switches, how a packet goes at each node, and the halvings its
// bisection is taken over. System holds one (make_family) and asks it; nothing else switches on the
// family. topo_torus.cpp, topo_neuronswitch.cpp, topo_planes.cpp.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "link/net.hpp"
#include "system/system.hpp"

namespace trn::system {

/// What a family builds a system with: the System under construction, its building steps only.
class Builder {
 public:
  explicit Builder(System& s) : s_(s) {}
  const Topology& topo() const { return s_.preset_.topo; }
  const ChipDesign& design() const { return *s_.design_; }
  unsigned nodes() const { return static_cast<unsigned>(s_.nodes_.size()); }
  void set_chips(unsigned n) { s_.chips_ = n; }
  /// Route keys that give every route choice of the family equally often (System::route_keys).
  void set_route_keys(unsigned k) { s_.route_keys_ = k; }
  unsigned add_node(NodeKind kind, unsigned ports, std::array<unsigned, 3> at, std::string label);
  void add_link(unsigned a, unsigned ap, unsigned b, unsigned bp, unsigned cls);
  /// The index of the chip's link class `name`.
  unsigned class_index(const std::string& name) const;
  /// A link class of the network that is not a chip's (a scale-out spine): its index.
  unsigned add_class(LinkClassInfo c);
  /// Router port of a chip's `index`-th port of link class `name`.
  unsigned chip_port(const std::string& name, unsigned index) const;
  /// A chip's router ports of link class `cls`, in order.
  std::vector<unsigned> class_ports(unsigned cls) const;

 private:
  System& s_;
};

class Family {
 public:
  virtual ~Family() = default;
  /// Wire the system: its chips (node ids 0 .. chips - 1), switches and links, and its route keys.
  virtual void build(Builder& b) = 0;
  /// System::next_hop for this family.
  virtual link::Route next_hop(const System& s, unsigned n, unsigned dst, unsigned in_port, unsigned in_class,
                               unsigned key) const = 0;
  /// Each channel a spread group of its own (a torus, whose route keys choose a direction, not a
  /// link of a group); false: a chip's links of a class, and a leaf's spine links, are groups.
  virtual bool channel_groups() const { return false; }
  /// The cycle-level network's own shape for this family, where it has one (a torus: Net's torus
  /// with its dimension-order routing); false: the switched systems' table-routed graph.
  virtual bool net_shape(link::Net::Params&) const { return false; }
  /// The natural halvings of the chips (by Node::at) the bisection is the smallest max flow over.
  struct Halving {
    std::string name;
    std::function<bool(const std::array<unsigned, 3>&)> in_a;
  };
  virtual std::vector<Halving> halvings() const = 0;
};

std::unique_ptr<Family> make_torus_family(const Topology& t);
std::unique_ptr<Family> make_neuronswitch_family(const Topology& t);
std::unique_ptr<Family> make_planes_family(const Topology& t);

}  // namespace trn::system
