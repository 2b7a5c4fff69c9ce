// trn::system::System — a chip, an instance, an UltraServer or an UltraCluster composed from a
// preset (SPEC 5.7, docs/system.md): chips built of cores (tensor, vector and scalar engines, SBUF,
// PSUM, DMA engines), HBM stacks and NeuronLink ports, wired by the preset's topology into a
// network of chips and switches. Every total is a walk over that composition (nothing is typed in),
// routes come from one next-hop function per topology (for tori the router's own route()), and the
// network can be handed to the cycle-exact network model as a trn::link::Net. The topology families
// are in family.hpp (one class each), the graph analysis (routes, deadlock freedom, bisection) in
// analysis.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chip/chip.hpp"
#include "link/net.hpp"
#include "system/preset.hpp"

namespace trn::system {

// ---------------------------------------------------------------- the chip
struct HbmStack {
  double gib = 0, gbps = 0, latency_ns = 0;
};
/// A NeuronLink port of a chip: class (index into ChipGen::links) and its rates.
struct LinkPort {
  unsigned cls = 0;
  double gbps = 0, latency_ns = 0;
  bool scale_out = false;
};
/// One chip design: every chip of a system is built from the same design. Its structure is the
/// cycle-level chip model's own parameters (`unit`: what trn::chip::Chip instantiates, the cores'
/// tensor engines, SBUF, PSUM and DMA engines included); the preset adds what a cycle model does
/// not hold: clocks, per-type tensor rates, DMA and HBM bandwidths, HBM stacks and link rates.
struct ChipDesign {
  const ChipGen* gen = nullptr;
  const CoreGen* core_gen = nullptr;
  chip::Chip::Params unit;
  std::vector<HbmStack> hbm;
  std::vector<LinkPort> ports;  ///< router port q = 1 + index (port 0 is the chip's own)
  /// The design of chip g in a system of `chips` chips (a torus of `dims`, or empty); a preset the
  /// chip model cannot build (tensor rows, columns and partitions unequal) is a PresetError.
  ChipDesign(const Presets& p, const ChipGen& g, unsigned chips = 1, const std::vector<unsigned>& dims = {});

  unsigned cores() const { return unit.cores; }
  unsigned collective_cores() const { return unit.cc_cores; }
  /// A core's units, as the core model builds them from `unit`.
  tensor::TensorEngine::Params tensor() const { return core::Core::te_params(unit.core.core); }
  mem::Sbuf::Params sbuf() const { return core::Core::sb_params(unit.core.core); }
  vector::LaneEngine::Params lanes(vector::Engine e) const { return core::Core::le_params(unit.core.core, e); }
  dma::DmaEngine::Params dma() const { return core::Core::dma_params(unit.core.core); }
  unsigned dma_engines() const { return unit.core.core.dma_engines; }  ///< per core
  std::uint64_t psum_bytes() const {                                   ///< per core
    const core::Core::Params& c = unit.core.core;
    return std::uint64_t{c.parts} * c.psum_banks * c.psum_bank_bytes;
  }
  /// One core's peak: rows x cols MACs a cycle at BF16 (one moving column a cycle, SPEC 5.1) times
  /// the type's rate, 2 FLOPs a MAC, at the tensor engine's clock.
  double peak_tflops(DType t) const;
};

// ---------------------------------------------------------------- the network
enum class NodeKind { chip, server_switch, rack_plane, us_plane, leaf, spine };
const char* node_kind_plural(NodeKind k);

struct Node {
  NodeKind kind = NodeKind::chip;
  bool chip() const { return kind == NodeKind::chip; }
  unsigned ports = 0;  ///< chips: 1 + link ports (port 0: the chip's own injection/ejection)
  /// chips: (x, y, z) / (rack, server, chip) / (ultraserver, chip, 0); server switch (rack, server);
  /// rack plane (rack, plane); UltraServer plane (ultraserver, plane); leaf (ultraserver); spine (index)
  std::array<unsigned, 3> at{};
  std::string label;
};
struct Link {
  unsigned a = 0, b = 0, a_port = 0, b_port = 0;  ///< nodes and their ports
  unsigned cls = 0;                               ///< index into System::link_classes()
};
struct LinkClassInfo {
  std::string name;
  double gbps = 0, latency_ns = 0;
  bool scale_out = false;  ///< not NeuronLink (a chip's scale-out port, the scale-out fabric)
};
/// One hop: a directed channel (2 l: link l from a to b, 2 l + 1: from b to a) and the VC class it
/// takes (a torus' dateline class 0/1; 0 elsewhere).
struct Hop {
  unsigned channel = 0, vc_class = 0;
};

class Family;
class Builder;

class System {
 public:
  System(const Presets& presets, const std::string& key);
  const SystemPreset& preset() const { return preset_; }
  const ChipDesign& design() const { return *design_; }
  /// The topology family that wired this system and routes it (family.hpp).
  const Family& family() const { return *family_; }
  unsigned chips() const { return chips_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const std::vector<LinkClassInfo>& link_classes() const { return classes_; }
  /// The link behind router port q of node n (-1: none) and the channel leaving n through it.
  int link_at(unsigned n, unsigned q) const { return port_link_[port_base_[n] + q]; }
  unsigned channel_out(unsigned n, unsigned q) const;
  /// The node and port a channel enters.
  unsigned channel_to(unsigned ch) const { return ch % 2 ? links_[ch / 2].a : links_[ch / 2].b; }
  unsigned channel_to_port(unsigned ch) const { return ch % 2 ? links_[ch / 2].a_port : links_[ch / 2].b_port; }
  double channel_gbps(unsigned ch) const { return classes_[links_[ch / 2].cls].gbps; }

  /// The next hop at node n for a packet to chip dst that came in on port in_port in VC class
  /// in_class: the output port (0 at dst: eject) and the VC class of that hop. `key` picks one of
  /// the routes a chip pair has (docs/system.md, "Routes that spread"): on the switched systems the
  /// link of a group (port, plane, rack link, spine) a flow takes, on a torus the direction of a
  /// destination half way round a ring; key 0 is the one route of the cycle-level tables.
  link::Route next_hop(unsigned n, unsigned dst, unsigned in_port, unsigned in_class, unsigned key = 0) const;
  /// The route from chip s to chip d with route key `key` (empty when s == d). Throws
  /// std::logic_error if the routing loops or leaves the network (a bug, caught by the tests).
  std::vector<Hop> route(unsigned s, unsigned d, unsigned key = 0) const;
  /// Route keys that give every route choice equally often: keys k and k + route_keys() route alike.
  unsigned route_keys() const { return route_keys_; }
  /// Channels that spread routes take alike (docs/system.md, "Routes that spread"): on a switched
  /// system a chip's links of one class to switches or to other chips (out), a chip's links of one
  /// class from switches (in), a leaf's spine links (up, and down); on a torus each channel alone.
  /// Over route keys 0 to route_keys() - 1, a chip pair's routes take every channel of a group they
  /// enter equally often. spread_group()[channel] is its group, 0 to spread_groups() - 1.
  const std::vector<unsigned>& spread_group() const { return spread_group_; }
  unsigned spread_groups() const { return spread_groups_; }
  /// One-way zero-load latency of a route: link latencies plus a switch traversal per switch.
  double route_latency_ns(const std::vector<Hop>& r) const;

  /// The cycle-exact network model of this system (trn::link::Net): tori as Net's torus, the
  /// switched systems as a table-routed graph of chip routers and switch routers. At most 255
  /// chips and 255 ports a router (the head flit's 8-bit chip ids).
  link::Net::Params flit_net(unsigned vcs = 2, unsigned depth = 4, unsigned width = 64) const;
  bool flit_net_fits() const;

 private:
  friend class Builder;
  void group_channels();

  SystemPreset preset_;
  std::shared_ptr<ChipDesign> design_;
  std::shared_ptr<const Family> family_;  ///< how the topology wires and routes (family.hpp)
  unsigned chips_ = 0;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<LinkClassInfo> classes_;
  std::vector<unsigned> port_base_;
  std::vector<int> port_link_;
  unsigned route_keys_ = 1;
  std::vector<unsigned> spread_group_;
  unsigned spread_groups_ = 0;
};

// ---------------------------------------------------------------- what is computed by walking it
struct Totals {
  std::array<double, kDTypes.size()> tflops{};
  double hbm_gib = 0, hbm_gbps = 0, sbuf_mib = 0, psum_mib = 0, dma_gbps = 0;
  unsigned cores = 0, dma_engines = 0, dma_queues = 0, collective_cores = 0, hbm_stacks = 0;
  double port_gbps_per_chip = 0;       ///< every NeuronLink port of a chip
  double connected_gbps_per_chip = 0;  ///< the NeuronLink ports this system wires (mean over chips)
  double scale_out_gbps_per_chip = 0;  ///< scale-out ports of a chip
};
/// Sum over every chip, core, engine and stack of the system.
Totals totals(const System& s);
/// The same for one chip of the design.
Totals chip_totals(const ChipDesign& d);
/// Named metrics (the names known_metric() accepts) of totals.
double metric(const Totals& t, const std::string& name);

struct RouteStats {
  std::uint64_t sources = 0, pairs = 0;  ///< sources walked (all chips, or a sample) and routes
  unsigned keys = 1;                     ///< route keys walked for each pair
  bool sampled = false;
  unsigned diameter = 0;  ///< longest route, in links
  double mean_links = 0, mean_switches = 0, mean_latency_ns = 0;
  unsigned channels = 0, dependencies = 0;  ///< channel-dependency graph: (channel, VC class) nodes, edges
  bool deadlock_free = false;               ///< the dependency graph is acyclic
  std::string cycle;                        ///< a cycle, when there is one
};
/// A routing function: the hops from chip s to chip d with route key `key`.
using RouteFn = std::function<std::vector<Hop>(unsigned s, unsigned d, unsigned key)>;
/// Routes between every ordered pair of distinct chips (or, above `max_all` chips, from `sample`
/// evenly spaced sources to every chip), with every route key of the system: lengths, latency and
/// the channel-dependency check over all of them (a packet of any key may wait on one of any other
/// key). The routes are the system's own unless `fn` gives others (the checker's self-test).
RouteStats route_stats(const System& s, unsigned max_all = 1024, unsigned sample = 64, const RouteFn& fn = {});

struct Bisection {
  double gbps = 0;  ///< per direction: max flow from one half to the other
  std::string cut;  ///< which halves
};
/// Bisection bandwidth: the smallest max flow over the topology's natural halvings (each torus
/// dimension; racks, servers; UltraServers, chips).
Bisection bisection(const System& s);

}  // namespace trn::system
