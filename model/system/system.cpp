#include "system/system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <unordered_set>

#include "system/family.hpp"

namespace trn::system {

const char* node_kind_plural(NodeKind k) {
  switch (k) {
    case NodeKind::chip:
      return "chips";
    case NodeKind::server_switch:
      return "server switches";
    case NodeKind::rack_plane:
      return "inter-server switch planes";
    case NodeKind::us_plane:
      return "NeuronLink switch planes";
    case NodeKind::leaf:
      return "scale-out leaf switches";
    default:
      return "scale-out spine switches";
  }
}

ChipDesign::ChipDesign(const Presets& p, const ChipGen& g, unsigned chips, const std::vector<unsigned>& dims)
    : gen(&g), core_gen(&p.core(g.core)) {
  const CoreGen& cg = *core_gen;
  // the chip model's structure: the preset's sizes, and the full configuration's (rtl/configs.toml)
  // for what a preset does not give (SBUF banks, DMA beat and read slots, the link layer's)
  const cfg::Config* full = cfg::find("full");
  if (!full) throw std::logic_error("system: rtl/configs.toml has no full configuration");
  if (cg.tensor_rows != cg.tensor_cols || cg.tensor_rows != cg.sbuf_partitions)
    throw PresetError(
        fmt::format("{}: core.{}: the core model has one partition count (tensor rows = columns = SBUF "
                    "partitions), but tensor_rows {}, tensor_cols {}, sbuf_partitions {}",
                    p.source, cg.key, cg.tensor_rows, cg.tensor_cols, cg.sbuf_partitions));
  std::array<unsigned, 3> k{1, 1, 1};
  for (std::size_t i = 0; i < dims.size() && i < 3; ++i) k[i] = dims[i];
  unit = chip::Chip::Params::of(full->arch, std::clamp(chips, 1u, 255u), k[0], k[1], k[2]);
  core::Core::Params& c = unit.core.core;
  c.parts = cg.sbuf_partitions;
  c.sbuf_bytes = cg.sbuf_kib_per_partition * 1024u;
  c.psum_banks = cg.psum_banks;
  c.psum_bank_bytes = cg.psum_bank_bytes;
  c.queues = cg.dma_queues;
  c.dma_engines = cg.dma_engines;
  unit.cores = g.cores;
  unit.cc_cores = g.collective_cores;
  hbm.assign(g.hbm_stacks, HbmStack{g.hbm_stack_gib, g.hbm_stack_gbps, g.hbm_latency_ns});
  for (unsigned q = 0; q < g.links.size(); ++q)
    for (unsigned i = 0; i < g.links[q].count; ++i)
      ports.push_back(LinkPort{q, g.links[q].gbps, g.links[q].latency_ns, g.links[q].scale_out});
}

double ChipDesign::peak_tflops(DType t) const {
  const tensor::TensorEngine::Params te = tensor();
  return 2.0 * te.rows * te.cols * core_gen->tensor_ghz * core_gen->rate[static_cast<unsigned>(t)] / 1e3;
}

// ---------------------------------------------------------------- building the network

namespace {
std::unique_ptr<Family> make_family(const Topology& t) {
  switch (t.kind) {
    case TopoKind::torus:
      return make_torus_family(t);
    case TopoKind::neuronswitch:
      return make_neuronswitch_family(t);
    default:
      return make_planes_family(t);
  }
}
}  // namespace

System::System(const Presets& presets, const std::string& key) : preset_(presets.system(key)) {
  design_ =
      std::make_shared<ChipDesign>(presets, presets.chip(preset_.chip), 1,
                                   preset_.topo.kind == TopoKind::torus ? preset_.topo.dims : std::vector<unsigned>{});
  for (const LinkClass& c : design_->gen->links)
    classes_.push_back(LinkClassInfo{c.name, c.gbps, c.latency_ns, c.scale_out});
  std::unique_ptr<Family> f = make_family(preset_.topo);
  Builder b(*this);
  f->build(b);
  family_ = std::move(f);
  group_channels();
  // the chip ids a DMA address may name (its 8-bit chip field: at most 255, SPEC 5.7)
  design_->unit.chips = design_->unit.core.core.chips = std::clamp(chips_, 1u, 255u);
}

void System::group_channels() {
  const unsigned nch = static_cast<unsigned>(2 * links_.size());
  spread_group_.assign(nch, 0);
  std::map<std::array<unsigned, 3>, unsigned> ids;  // (anchor node, out 0 / in 1, class)
  for (unsigned ch = 0; ch < nch; ++ch) {
    if (family_->channel_groups()) {
      spread_group_[ch] = ch;
      continue;
    }
    const Link& l = links_[ch / 2];
    const unsigned x = ch % 2 ? l.b : l.a, y = channel_to(ch);
    // anchored at the chip (its sending side when both are chips), else at the leaf
    const bool out = nodes_[x].chip() || (!nodes_[y].chip() && nodes_[x].kind == NodeKind::leaf);
    const std::array<unsigned, 3> k{out ? x : y, out ? 0u : 1u, l.cls};
    spread_group_[ch] = ids.try_emplace(k, static_cast<unsigned>(ids.size())).first->second;
  }
  spread_groups_ = family_->channel_groups() ? nch : static_cast<unsigned>(ids.size());
}

// ---------------------------------------------------------------- what a family builds with

unsigned Builder::class_index(const std::string& name) const {
  for (unsigned k = 0; k < s_.classes_.size(); ++k)
    if (s_.classes_[k].name == name) return k;
  throw std::logic_error(fmt::format("system: no link class '{}'", name));
}

unsigned Builder::add_class(LinkClassInfo c) {
  s_.classes_.push_back(std::move(c));
  return static_cast<unsigned>(s_.classes_.size() - 1);
}

unsigned Builder::chip_port(const std::string& name, unsigned index) const {
  const std::vector<unsigned> q = class_ports(class_index(name));
  if (index >= q.size()) throw std::logic_error(fmt::format("system: chip has too few '{}' ports", name));
  return q[index];
}

std::vector<unsigned> Builder::class_ports(unsigned cls) const {
  std::vector<unsigned> q;
  for (unsigned i = 0; i < s_.design_->ports.size(); ++i)
    if (s_.design_->ports[i].cls == cls) q.push_back(1 + i);
  return q;
}

unsigned Builder::add_node(NodeKind kind, unsigned ports, std::array<unsigned, 3> at, std::string label) {
  s_.nodes_.push_back(Node{kind, ports, at, std::move(label)});
  s_.port_base_.push_back(static_cast<unsigned>(s_.port_link_.size()));
  s_.port_link_.resize(s_.port_link_.size() + ports, -1);
  return static_cast<unsigned>(s_.nodes_.size() - 1);
}

void Builder::add_link(unsigned a, unsigned ap, unsigned b, unsigned bp, unsigned cls) {
  for (auto [n, q] : {std::pair{a, ap}, std::pair{b, bp}})
    if (q >= s_.nodes_[n].ports || s_.port_link_[s_.port_base_[n] + q] >= 0)
      throw std::logic_error(fmt::format("system: port {} of {} is missing or taken", q, s_.nodes_[n].label));
  const int l = static_cast<int>(s_.links_.size());
  s_.links_.push_back(Link{a, b, ap, bp, cls});
  s_.port_link_[s_.port_base_[a] + ap] = l;
  s_.port_link_[s_.port_base_[b] + bp] = l;
}

unsigned System::channel_out(unsigned n, unsigned q) const {
  const int l = link_at(n, q);
  if (l < 0) throw std::logic_error(fmt::format("system: port {} of {} is not connected", q, nodes_[n].label));
  const Link& k = links_[static_cast<unsigned>(l)];
  return 2 * static_cast<unsigned>(l) + (k.a == n && k.a_port == q ? 0 : 1);
}

// ---------------------------------------------------------------- routing

link::Route System::next_hop(unsigned n, unsigned dst, unsigned in_port, unsigned in_class, unsigned key) const {
  if (n == dst) return link::Route{0, 0};
  return family_->next_hop(*this, n, dst, in_port, in_class, key);
}

std::vector<Hop> System::route(unsigned s, unsigned d, unsigned key) const {
  std::vector<Hop> hops;
  unsigned n = s, in_port = 0, in_class = 0;
  for (std::size_t step = 0; step <= nodes_.size(); ++step) {
    const link::Route r = next_hop(n, d, in_port, in_class, key);
    if (r.port == 0 && nodes_[n].chip()) {
      if (n != d)
        throw std::logic_error(fmt::format("system: a packet for {} ejected at {}", nodes_[d].label, nodes_[n].label));
      return hops;
    }
    const unsigned ch = channel_out(n, r.port);
    const unsigned cls = r.cls == 2 ? 0 : r.cls;
    hops.push_back(Hop{ch, cls});
    n = channel_to(ch);
    in_port = channel_to_port(ch);
    in_class = cls;
  }
  throw std::logic_error(fmt::format("system: the route from {} to {} loops", nodes_[s].label, nodes_[d].label));
}

double System::route_latency_ns(const std::vector<Hop>& r) const {
  double ns = 0;
  for (const Hop& h : r) {
    ns += classes_[links_[h.channel / 2].cls].latency_ns;
    if (!nodes_[channel_to(h.channel)].chip()) ns += preset_.topo.switch_latency_ns;
  }
  return ns;
}

bool System::flit_net_fits() const {
  if (chips_ > 255) return false;
  return std::all_of(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.ports <= 255; });
}

link::Net::Params System::flit_net(unsigned vcs, unsigned depth, unsigned width) const {
  if (!flit_net_fits())
    throw std::invalid_argument(
        fmt::format("system {}: the network model takes at most 255 chips and 255 ports a router", preset_.key));
  link::Net::Params p;
  p.v = vcs;
  p.d = depth;
  p.w = width;
  p.rdepth = 1;
  while (p.rdepth < vcs * depth) p.rdepth *= 2;
  if (family_->net_shape(p)) return p;
  // a router per node; a directed link per channel; chip c's endpoint on its router's port 0
  auto g = std::make_shared<link::Graph>();
  for (const Node& n : nodes_) g->ports.push_back(n.ports);
  for (const Link& l : links_) {
    g->links.push_back({link::Graph::Port{l.a, l.a_port}, link::Graph::Port{l.b, l.b_port}});
    g->links.push_back({link::Graph::Port{l.b, l.b_port}, link::Graph::Port{l.a, l.a_port}});
  }
  for (unsigned c = 0; c < chips_; ++c) g->home.push_back(link::Graph::Port{c, 0});
  // the tables from the routes themselves: every node a route to d passes sends it on the port the
  // route takes (routing here is destination-based: one port per node and destination); entries no
  // route uses stay 0
  g->table.assign(nodes_.size(), std::vector<std::uint8_t>(chips_, 0));
  std::vector<std::vector<bool>> set(nodes_.size(), std::vector<bool>(chips_, false));
  for (unsigned a = 0; a < chips_; ++a)
    for (unsigned d = 0; d < chips_; ++d) {
      if (a == d) continue;
      unsigned n = a;
      for (const Hop& h : route(a, d)) {
        const Link& l = links_[h.channel / 2];
        const unsigned q = h.channel % 2 ? l.b_port : l.a_port;
        if (set[n][d] && g->table[n][d] != q)
          throw std::logic_error(
              fmt::format("system: routes to {} leave {} by two ports", nodes_[d].label, nodes_[n].label));
        g->table[n][d] = static_cast<std::uint8_t>(q);
        set[n][d] = true;
        n = channel_to(h.channel);
      }
    }
  p.topo = link::Topo::TopoTable;
  p.graph = std::move(g);
  return p;
}

// ---------------------------------------------------------------- totals

Totals chip_totals(const ChipDesign& d) {
  Totals t;
  const mem::Sbuf::Params sb = d.sbuf();
  const dma::DmaEngine::Params dm = d.dma();
  for (unsigned c = 0; c < d.cores(); ++c) {
    ++t.cores;
    for (DType ty : kDTypes) t.tflops[static_cast<unsigned>(ty)] += d.peak_tflops(ty);
    t.sbuf_mib += static_cast<double>(std::uint64_t{sb.parts} * sb.part_bytes) / (1024.0 * 1024.0);
    t.psum_mib += static_cast<double>(d.psum_bytes()) / (1024.0 * 1024.0);
    for (unsigned e = 0; e < d.dma_engines(); ++e) {
      ++t.dma_engines;
      t.dma_queues += dm.queues;
      t.dma_gbps += d.core_gen->dma_engine_gbps;
    }
  }
  for (const HbmStack& h : d.hbm) {
    ++t.hbm_stacks;
    t.hbm_gib += h.gib;
    t.hbm_gbps += h.gbps;
  }
  for (const LinkPort& p : d.ports) (p.scale_out ? t.scale_out_gbps_per_chip : t.port_gbps_per_chip) += p.gbps;
  t.collective_cores = d.collective_cores();
  return t;
}

Totals totals(const System& s) {
  Totals t;
  for (unsigned c = 0; c < s.chips(); ++c) {
    const Totals x = chip_totals(s.design());
    for (unsigned i = 0; i < kDTypes.size(); ++i) t.tflops[i] += x.tflops[i];
    t.hbm_gib += x.hbm_gib;
    t.hbm_gbps += x.hbm_gbps;
    t.sbuf_mib += x.sbuf_mib;
    t.psum_mib += x.psum_mib;
    t.dma_gbps += x.dma_gbps;
    t.cores += x.cores;
    t.dma_engines += x.dma_engines;
    t.dma_queues += x.dma_queues;
    t.collective_cores += x.collective_cores;
    t.hbm_stacks += x.hbm_stacks;
    t.port_gbps_per_chip += x.port_gbps_per_chip / s.chips();
    t.scale_out_gbps_per_chip += x.scale_out_gbps_per_chip / s.chips();
  }
  for (const Link& l : s.links()) {
    if (s.link_classes()[l.cls].scale_out) continue;
    const double g = s.link_classes()[l.cls].gbps;
    if (s.nodes()[l.a].chip()) t.connected_gbps_per_chip += g / s.chips();
    if (s.nodes()[l.b].chip()) t.connected_gbps_per_chip += g / s.chips();
  }
  return t;
}

double metric(const Totals& t, const std::string& name) {
  for (DType ty : kDTypes)
    if (name == fmt::format("{}_tflops", dtype_name(ty))) return t.tflops[static_cast<unsigned>(ty)];
  if (name == "hbm_gib") return t.hbm_gib;
  if (name == "hbm_gbps") return t.hbm_gbps;
  if (name == "sbuf_mib") return t.sbuf_mib;
  if (name == "dma_gbps") return t.dma_gbps;
  if (name == "link_gbps") return t.port_gbps_per_chip;
  if (name == "collective_cores") return t.collective_cores;
  throw std::invalid_argument(fmt::format("unknown metric '{}'", name));
}

}  // namespace trn::system
