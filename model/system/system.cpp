#include "system/system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <unordered_set>

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

System::System(const Presets& presets, const std::string& key) : preset_(presets.system(key)) {
  design_ =
      std::make_shared<ChipDesign>(presets, presets.chip(preset_.chip), 1,
                                   preset_.topo.kind == TopoKind::torus ? preset_.topo.dims : std::vector<unsigned>{});
  for (const LinkClass& c : design_->gen->links)
    classes_.push_back(LinkClassInfo{c.name, c.gbps, c.latency_ns, c.scale_out});
  class_ports_.resize(classes_.size());
  for (unsigned q = 0; q < design_->ports.size(); ++q) class_ports_[design_->ports[q].cls].push_back(1 + q);
  switch (preset_.topo.kind) {
    case TopoKind::torus:
      build_torus();
      break;
    case TopoKind::neuronswitch:
      build_neuronswitch();
      break;
    default:
      build_planes();
      break;
  }
  group_channels();
  // the chip ids a DMA address may name (its 8-bit chip field: at most 255, SPEC 5.7)
  design_->unit.chips = design_->unit.core.core.chips = std::clamp(chips_, 1u, 255u);
}

void System::group_channels() {
  const unsigned nch = static_cast<unsigned>(2 * links_.size());
  spread_group_.assign(nch, 0);
  std::map<std::array<unsigned, 3>, unsigned> ids;  // (anchor node, out 0 / in 1, class)
  for (unsigned ch = 0; ch < nch; ++ch) {
    if (preset_.topo.kind == TopoKind::torus) {
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
  spread_groups_ = preset_.topo.kind == TopoKind::torus ? nch : static_cast<unsigned>(ids.size());
}

unsigned System::class_index(const std::string& name) {
  for (unsigned k = 0; k < classes_.size(); ++k)
    if (classes_[k].name == name) return k;
  throw std::logic_error(fmt::format("system: no link class '{}'", name));
}

unsigned System::chip_port(const std::string& name, unsigned index) const {
  unsigned q = 1;
  for (const LinkPort& p : design_->ports) {
    if (classes_[p.cls].name == name) {
      if (index == 0) return q;
      --index;
    }
    ++q;
  }
  throw std::logic_error(fmt::format("system: chip has too few '{}' ports", name));
}

unsigned System::add_node(NodeKind kind, unsigned ports, std::array<unsigned, 3> at, std::string label) {
  nodes_.push_back(Node{kind, ports, at, std::move(label)});
  port_base_.push_back(static_cast<unsigned>(port_link_.size()));
  port_link_.resize(port_link_.size() + ports, -1);
  return static_cast<unsigned>(nodes_.size() - 1);
}

void System::add_link(unsigned a, unsigned ap, unsigned b, unsigned bp, unsigned cls) {
  for (auto [n, q] : {std::pair{a, ap}, std::pair{b, bp}})
    if (q >= nodes_[n].ports || port_link_[port_base_[n] + q] >= 0)
      throw std::logic_error(fmt::format("system: port {} of {} is missing or taken", q, nodes_[n].label));
  const int l = static_cast<int>(links_.size());
  links_.push_back(Link{a, b, ap, bp, cls});
  port_link_[port_base_[a] + ap] = l;
  port_link_[port_base_[b] + bp] = l;
}

unsigned System::channel_out(unsigned n, unsigned q) const {
  const int l = link_at(n, q);
  if (l < 0) throw std::logic_error(fmt::format("system: port {} of {} is not connected", q, nodes_[n].label));
  const Link& k = links_[static_cast<unsigned>(l)];
  return 2 * static_cast<unsigned>(l) + (k.a == n && k.a_port == q ? 0 : 1);
}

void System::build_torus() {
  const Topology& t = preset_.topo;
  const unsigned kx = t.dims[0], ky = t.dims[1], kz = t.dims.size() > 2 ? t.dims[2] : 1;
  chips_ = kx * ky * kz;
  const unsigned nd = static_cast<unsigned>(t.dims.size());
  // a ring of even length has a destination half way round, reached either way
  route_keys_ = std::any_of(t.dims.begin(), t.dims.end(), [](unsigned k) { return k % 2 == 0; }) ? 2 : 1;
  // Net port q = 1 + 2 d + (0: +, 1: -) takes the next two ports of dimension d's class
  torus_port_.assign(1 + 2 * nd, 0);
  torus_q_.assign(1 + design_->ports.size(), 0);
  for (unsigned d = 0; d < nd; ++d) {
    const auto before = static_cast<unsigned>(std::count(t.classes.begin(), t.classes.begin() + d, t.classes[d]));
    for (unsigned dir = 0; dir < 2; ++dir) {
      const unsigned q = 1 + 2 * d + dir, port = chip_port(t.classes[d], 2 * before + dir);
      torus_port_[q] = port;
      torus_q_[port] = q;
    }
  }
  const unsigned ports = 1 + static_cast<unsigned>(design_->ports.size());
  for (unsigned c = 0; c < chips_; ++c) {
    const unsigned x = c % kx, y = c / kx % ky, z = c / (kx * ky);
    add_node(NodeKind::chip, ports, {x, y, z},
             kz > 1 ? fmt::format("c{:02} (x{} y{} z{})", c, x, y, z) : fmt::format("c{:02} (x{} y{})", c, x, y));
  }
  link::Net::Params np;
  np.kx = kx;
  np.ky = ky;
  np.kz = kz;
  const link::Net shape(np);  // the network model's own neighbour function wires the system
  for (unsigned c = 0; c < chips_; ++c)
    for (unsigned d = 0; d < nd; ++d) {
      const unsigned plus = 1 + 2 * d, n = shape.neighbour(c, plus);
      add_link(c, torus_port_[plus], n, torus_port_[plus + 1], class_index(t.classes[d]));
    }
}

void System::build_neuronswitch() {
  const Topology& t = preset_.topo;
  const unsigned R = t.racks, S = t.servers_per_rack, C = t.chips_per_server;
  chips_ = R * S * C;
  const unsigned k = design_->gen->link_class(t.server_links)->count;
  const unsigned P = design_->gen->link_class(t.rack_links)->count;
  group_cls_[0] = class_index(t.server_links);
  group_cls_[1] = class_index(t.rack_links);
  if (R > 1) group_cls_[2] = class_index(t.cross_rack_links);
  route_keys_ = std::lcm(k + P, P);
  if (R > 1) {
    const unsigned x = design_->gen->link_class(t.cross_rack_links)->count;
    route_keys_ = std::lcm(route_keys_, x);
  }
  const unsigned ports = 1 + static_cast<unsigned>(design_->ports.size());
  for (unsigned r = 0; r < R; ++r)
    for (unsigned s = 0; s < S; ++s)
      for (unsigned c = 0; c < C; ++c)
        add_node(NodeKind::chip, ports, {r, s, c}, fmt::format("r{}.s{:02}.c{}", r, s, c));
  for (unsigned r = 0; r < R; ++r)
    for (unsigned s = 0; s < S; ++s) {
      const unsigned sw = add_node(NodeKind::server_switch, C * k, {r, s, 0}, fmt::format("r{}.s{:02} switch", r, s));
      for (unsigned c = 0; c < C; ++c)
        for (unsigned j = 0; j < k; ++j)
          add_link((r * S + s) * C + c, chip_port(t.server_links, j), sw, c * k + j, group_cls_[0]);
    }
  for (unsigned r = 0; r < R; ++r)
    for (unsigned p = 0; p < P; ++p) {
      const unsigned pl = add_node(NodeKind::rack_plane, S * C, {r, p, 0}, fmt::format("r{} plane {}", r, p));
      for (unsigned i = 0; i < S * C; ++i) add_link(r * S * C + i, chip_port(t.rack_links, p), pl, i, group_cls_[1]);
    }
  if (R > 1) {
    const unsigned x = design_->gen->link_class(t.cross_rack_links)->count;
    for (unsigned i = 0; i < S * C; ++i)
      for (unsigned j = 0; j < x; ++j)
        add_link(i, chip_port(t.cross_rack_links, j), S * C + i, chip_port(t.cross_rack_links, j), group_cls_[2]);
  }
}

void System::build_planes() {
  const Topology& t = preset_.topo;
  const unsigned U = t.ultraservers, M = t.chips_per_ultraserver;
  chips_ = U * M;
  const unsigned P = design_->gen->link_class(t.links)->count;
  group_cls_[0] = class_index(t.links);
  route_keys_ = U > 1 ? std::lcm(P, t.spines) : P;
  const unsigned ports = 1 + static_cast<unsigned>(design_->ports.size());
  for (unsigned u = 0; u < U; ++u)
    for (unsigned m = 0; m < M; ++m)
      add_node(NodeKind::chip, ports, {u, m, 0}, U > 1 ? fmt::format("u{:03}.c{:03}", u, m) : fmt::format("c{:03}", m));
  for (unsigned u = 0; u < U; ++u)
    for (unsigned p = 0; p < P; ++p) {
      const unsigned pl = add_node(NodeKind::us_plane, M, {u, p, 0},
                                   U > 1 ? fmt::format("u{:03} plane {}", u, p) : fmt::format("plane {}", p));
      for (unsigned m = 0; m < M; ++m) add_link(u * M + m, chip_port(t.links, p), pl, m, group_cls_[0]);
    }
  if (U > 1) {
    group_cls_[1] = class_index(t.scale_out_links);
    classes_.push_back(LinkClassInfo{"spine", t.spine_gbps, t.spine_latency_ns, true});
    const unsigned spine_cls = static_cast<unsigned>(classes_.size() - 1);
    const unsigned leaf0 = static_cast<unsigned>(nodes_.size());
    for (unsigned u = 0; u < U; ++u) {
      const unsigned leaf = add_node(NodeKind::leaf, M + t.spines, {u, 0, 0}, fmt::format("u{:03} leaf", u));
      for (unsigned m = 0; m < M; ++m) add_link(u * M + m, chip_port(t.scale_out_links, 0), leaf, m, group_cls_[1]);
    }
    for (unsigned s = 0; s < t.spines; ++s) {
      const unsigned sp = add_node(NodeKind::spine, U, {s, 0, 0}, fmt::format("spine {}", s));
      for (unsigned u = 0; u < U; ++u) add_link(leaf0 + u, M + s, sp, u, spine_cls);
    }
  }
}

// ---------------------------------------------------------------- routing

link::Route System::next_hop(unsigned n, unsigned dst, unsigned in_port, unsigned in_class, unsigned key) const {
  const Node& nd = nodes_[n];
  const Node& d = nodes_[dst];
  const Topology& t = preset_.topo;
  if (n == dst) return link::Route{0, 0};
  auto bad = [&]() -> link::Route {
    throw std::logic_error(fmt::format("system: {} has no route to {}", nd.label, d.label));
  };
  // a chip's router ports of link group g (group_cls_)
  auto group = [&](unsigned g) -> const std::vector<unsigned>& { return class_ports_[group_cls_[g]]; };
  switch (t.kind) {
    case TopoKind::torus: {
      // the router's own dimension-order routing with dateline classes (router.hpp); an odd key
      // goes the other way round to a destination half way round
      const unsigned nd_ = static_cast<unsigned>(t.dims.size());
      const link::Route r =
          link::route(link::Topo::TopoTorus, 1 + 2 * nd_, t.dims[0], t.dims[1], n, dst, in_port ? torus_q_[in_port] : 0,
                      in_class, nd_ > 2 ? t.dims[2] : 1, false, key % 2 == 1);
      return link::Route{torus_port_[r.port], r.cls};
    }
    case TopoKind::neuronswitch: {
      // a chip reaches a chip of its own server by one of its k server links (to the server's
      // switch, down the same-numbered link of the destination) or by one of the R rack planes:
      // choice (dst mod k + key) mod (k + R), so key 0 takes server link dst mod k
      const std::vector<unsigned>&server = group(0), &planes = group(1);
      const unsigned C = t.chips_per_server, k = static_cast<unsigned>(server.size());
      const unsigned R = static_cast<unsigned>(planes.size());
      const unsigned server_choice = (dst % k + key) % (k + R);
      switch (nd.kind) {
        case NodeKind::chip:
          if (nd.at[0] != d.at[0])  // to the same chip of the other rack first
            return link::Route{group(2)[(dst + key) % group(2).size()], 0};
          if (nd.at[1] == d.at[1])
            return link::Route{server_choice < k ? server[server_choice] : planes[server_choice - k], 0};
          return link::Route{planes[(dst + key) % R], 0};
        case NodeKind::server_switch:
          if (nd.at[0] != d.at[0] || nd.at[1] != d.at[1] || server_choice >= k) return bad();
          return link::Route{d.at[2] * k + server_choice, 0};
        case NodeKind::rack_plane:
          if (nd.at[0] != d.at[0]) return bad();
          return link::Route{d.at[1] * C + d.at[2], 0};
        default:
          return bad();
      }
    }
    default: {
      const unsigned M = t.chips_per_ultraserver;
      switch (nd.kind) {
        case NodeKind::chip:
          if (nd.at[0] == d.at[0]) return link::Route{group(0)[(dst + key) % group(0).size()], 0};
          return link::Route{group(1).front(), 0};
        case NodeKind::us_plane:
          if (nd.at[0] != d.at[0]) return bad();
          return link::Route{d.at[1], 0};
        case NodeKind::leaf:
          if (nd.at[0] == d.at[0]) return link::Route{d.at[1], 0};
          return link::Route{M + (dst + key) % t.spines, 0};
        case NodeKind::spine:
          return link::Route{d.at[0], 0};
        default:
          return bad();
      }
    }
  }
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
  if (preset_.topo.kind == TopoKind::torus) {
    p.topo = link::Topo::TopoTorus;
    p.kx = preset_.topo.dims[0];
    p.ky = preset_.topo.dims[1];
    p.kz = preset_.topo.dims.size() > 2 ? preset_.topo.dims[2] : 1;
    return p;
  }
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

// ---------------------------------------------------------------- routes and deadlock freedom

RouteStats route_stats(const System& s, unsigned max_all, unsigned sample, const RouteFn& fn) {
  RouteStats st;
  const unsigned n = s.chips();
  std::vector<unsigned> sources;
  if (n <= max_all) {
    for (unsigned c = 0; c < n; ++c) sources.push_back(c);
  } else {
    st.sampled = true;
    for (unsigned i = 0; i < sample; ++i) sources.push_back(static_cast<unsigned>(std::uint64_t{i} * n / sample));
  }
  st.sources = sources.size();
  // channel-dependency graph over (channel, VC class)
  const std::uint64_t nch = 2 * s.links().size();
  // adjacency of (channel, VC class) nodes, each list sorted: a node has at most the ports of the
  // node its channel enters as successors, found by binary search, inserted rarely
  std::vector<std::vector<std::uint32_t>> adj(2 * nch);
  std::uint64_t ndeps = 0;
  double links_sum = 0, sw_sum = 0, lat_sum = 0;
  st.keys = s.route_keys();
  for (unsigned a : sources)
    for (unsigned b = 0; b < n; ++b)
      for (unsigned key = 0; key < st.keys; ++key) {
        if (a == b) continue;
        const std::vector<Hop> r = fn ? fn(a, b, key) : s.route(a, b, key);
        ++st.pairs;
        st.diameter = std::max(st.diameter, static_cast<unsigned>(r.size()));
        links_sum += static_cast<double>(r.size());
        for (const Hop& h : r)
          if (!s.nodes()[s.channel_to(h.channel)].chip()) sw_sum += 1;
        lat_sum += s.route_latency_ns(r);
        for (std::size_t i = 1; i < r.size(); ++i) {
          const auto from = static_cast<std::uint32_t>(2 * r[i - 1].channel + r[i - 1].vc_class);
          const auto to = static_cast<std::uint32_t>(2 * r[i].channel + r[i].vc_class);
          auto& out = adj[from];
          const auto at = std::lower_bound(out.begin(), out.end(), to);
          if (at == out.end() || *at != to) {
            out.insert(at, to);
            ++ndeps;
          }
        }
      }
  if (st.pairs) {
    st.mean_links = links_sum / static_cast<double>(st.pairs);
    st.mean_switches = sw_sum / static_cast<double>(st.pairs);
    st.mean_latency_ns = lat_sum / static_cast<double>(st.pairs);
  }
  // cycle check: iterative depth-first search with colours
  std::vector<bool> used(2 * nch, false);
  for (std::uint32_t from = 0; from < 2 * nch; ++from)
    for (std::uint32_t to : adj[from]) used[from] = used[to] = true;
  st.dependencies = static_cast<unsigned>(ndeps);
  st.channels = static_cast<unsigned>(std::count(used.begin(), used.end(), true));
  std::vector<std::uint8_t> colour(2 * nch, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::uint32_t> parent(2 * nch, 0);
  st.deadlock_free = true;
  auto name = [&](std::uint32_t v) {
    const unsigned ch = v / 2;
    const Link& l = s.links()[ch / 2];
    const unsigned from = ch % 2 ? l.b : l.a, to = ch % 2 ? l.a : l.b;
    return fmt::format("{}->{} vc{}", s.nodes()[from].label, s.nodes()[to].label, v % 2);
  };
  for (std::uint32_t root = 0; root < 2 * nch && st.deadlock_free; ++root) {
    if (colour[root] || !used[root]) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{root, 0}};
    colour[root] = 1;
    while (!stack.empty() && st.deadlock_free) {
      auto& [v, i] = stack.back();
      if (i < adj[v].size()) {
        const std::uint32_t w = adj[v][i++];
        if (colour[w] == 1) {  // a cycle: w .. v -> w
          st.deadlock_free = false;
          std::vector<std::string> names{name(w)};
          for (std::uint32_t x = v; x != w; x = parent[x]) names.insert(names.begin() + 1, name(x));
          for (const auto& nm : names) st.cycle += (st.cycle.empty() ? "" : " => ") + nm;
        } else if (colour[w] == 0) {
          colour[w] = 1;
          parent[w] = v;
          stack.emplace_back(w, 0);
        }
      } else {
        colour[v] = 2;
        stack.pop_back();
      }
    }
  }
  return st;
}

// ---------------------------------------------------------------- bisection (max flow)

namespace {

/// Dinic's max flow over the system's channels, from a super source feeding the chips of one half
/// to a super sink fed by the other half.
double max_flow(const System& s, const std::vector<bool>& in_a) {
  struct Arc {
    std::uint32_t to;
    double cap;
  };
  const unsigned nn = static_cast<unsigned>(s.nodes().size()), src = nn, snk = nn + 1;
  std::vector<Arc> arcs;
  std::vector<std::vector<std::uint32_t>> out(nn + 2);
  auto add = [&](unsigned a, unsigned b, double cap) {
    out[a].push_back(static_cast<std::uint32_t>(arcs.size()));
    arcs.push_back(Arc{b, cap});
    out[b].push_back(static_cast<std::uint32_t>(arcs.size()));
    arcs.push_back(Arc{a, 0});
  };
  for (const Link& l : s.links()) {
    const double g = s.link_classes()[l.cls].gbps;
    add(l.a, l.b, g);
    add(l.b, l.a, g);
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (unsigned c = 0; c < s.chips(); ++c) {
    if (in_a[c])
      add(src, c, inf);
    else
      add(c, snk, inf);
  }
  double flow = 0;
  std::vector<int> level(nn + 2);
  std::vector<std::size_t> next(nn + 2);
  constexpr double eps = 1e-9;
  for (;;) {
    std::fill(level.begin(), level.end(), -1);
    std::queue<unsigned> q;
    level[src] = 0;
    q.push(src);
    while (!q.empty()) {
      const unsigned v = q.front();
      q.pop();
      for (std::uint32_t a : out[v])
        if (arcs[a].cap > eps && level[arcs[a].to] < 0) {
          level[arcs[a].to] = level[v] + 1;
          q.push(arcs[a].to);
        }
    }
    if (level[snk] < 0) break;
    std::fill(next.begin(), next.end(), 0);
    // augmenting paths by iterative depth-first search in the level graph
    for (;;) {
      std::vector<std::uint32_t> path;  // arcs
      unsigned v = src;
      while (v != snk) {
        bool moved = false;
        for (; next[v] < out[v].size(); ++next[v]) {
          const std::uint32_t a = out[v][next[v]];
          if (arcs[a].cap > eps && level[arcs[a].to] == level[v] + 1) {
            path.push_back(a);
            v = arcs[a].to;
            moved = true;
            break;
          }
        }
        if (moved) continue;
        if (path.empty()) break;
        level[v] = -1;  // dead end
        const std::uint32_t back = path.back();
        path.pop_back();
        v = arcs[back ^ 1].to;
        ++next[v];
      }
      if (v != snk) break;
      double push = inf;
      for (std::uint32_t a : path) push = std::min(push, arcs[a].cap);
      for (std::uint32_t a : path) {
        arcs[a].cap -= push;
        arcs[a ^ 1].cap += push;
      }
      flow += push;
    }
  }
  return flow;
}

}  // namespace

Bisection bisection(const System& s) {
  const Topology& t = s.preset().topo;
  std::vector<std::pair<std::string, std::vector<bool>>> cuts;
  auto cut = [&](std::string name, auto in_a) {
    std::vector<bool> a(s.chips());
    for (unsigned c = 0; c < s.chips(); ++c) a[c] = in_a(s.nodes()[c].at);
    cuts.emplace_back(std::move(name), std::move(a));
  };
  using At = std::array<unsigned, 3>;
  switch (t.kind) {
    case TopoKind::torus: {
      static constexpr const char* kDim[] = {"x", "y", "z"};
      for (unsigned d = 0; d < t.dims.size(); ++d)
        cut(fmt::format("{} < {} | {} >= {}", kDim[d], t.dims[d] / 2, kDim[d], t.dims[d] / 2),
            [&, d](const At& at) { return at[d] < t.dims[d] / 2; });
      break;
    }
    case TopoKind::neuronswitch:
      if (t.racks > 1) cut("rack 0 | rack 1", [](const At& at) { return at[0] == 0; });
      if (t.servers_per_rack > 1)
        cut(fmt::format("servers < {} | the rest, in every rack", t.servers_per_rack / 2),
            [&](const At& at) { return at[1] < t.servers_per_rack / 2; });
      if (t.chips_per_server > 1)
        cut(fmt::format("chips < {} | the rest, in every server", t.chips_per_server / 2),
            [&](const At& at) { return at[2] < t.chips_per_server / 2; });
      break;
    default:
      if (t.ultraservers > 1)
        cut(fmt::format("UltraServers < {} | the rest", t.ultraservers / 2),
            [&](const At& at) { return at[0] < t.ultraservers / 2; });
      cut(fmt::format("chips < {} | the rest, in every UltraServer", t.chips_per_ultraserver / 2),
          [&](const At& at) { return at[1] < t.chips_per_ultraserver / 2; });
      break;
  }
  Bisection best{std::numeric_limits<double>::infinity(), ""};
  for (const auto& [name, a] : cuts) {
    const double f = max_flow(s, a);
    if (f < best.gbps) best = Bisection{f, name};
  }
  return best;
}

}  // namespace trn::system
