#include "system/report.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cmath>
#include <map>
#include <sstream>

namespace trn::system {

namespace {
constexpr double kMissTolerance = 0.02;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

const char* kind_label(TopoKind k) {
  switch (k) {
    case TopoKind::torus:
      return "torus";
    case TopoKind::neuronswitch:
      return "NeuronSwitch hierarchy";
    default:
      return "all-to-all switch planes";
  }
}

std::string shape(const SystemPreset& p) {
  const Topology& t = p.topo;
  switch (t.kind) {
    case TopoKind::torus: {
      std::string d;
      for (unsigned k : t.dims) d += (d.empty() ? "" : " x ") + std::to_string(k);
      return fmt::format("a {} torus; chip id = (z * ky + y) * kx + x", d);
    }
    case TopoKind::neuronswitch:
      return fmt::format("{} rack{} x {} servers x {} chips; chip id = (rack, server, chip)", t.racks,
                         t.racks > 1 ? "s" : "", t.servers_per_rack, t.chips_per_server);
    default:
      return t.ultraservers > 1 ? fmt::format("{} UltraServers x {} chips; chip id = (UltraServer, chip)",
                                              t.ultraservers, t.chips_per_ultraserver)
                                : fmt::format("{} chips, one switch domain", t.chips_per_ultraserver);
  }
}

/// Per link class of the chip: how many links of it the system has, and what its ports reach.
struct ClassUse {
  unsigned links = 0;
  std::string reaches;
};
std::vector<ClassUse> class_use(const System& s) {
  std::vector<ClassUse> use(s.link_classes().size());
  for (const Link& l : s.links()) ++use[l.cls].links;
  // what chip 0's first port of every class reaches
  const ChipDesign& d = s.design();
  for (unsigned q = 1; q <= d.ports.size(); ++q) {
    ClassUse& u = use[d.ports[q - 1].cls];
    if (!u.reaches.empty()) continue;
    const int l = s.link_at(0, q);
    if (l < 0) continue;
    const Link& k = s.links()[static_cast<unsigned>(l)];
    const Node& other = s.nodes()[k.a == 0 && k.a_port == q ? k.b : k.a];
    switch (other.kind) {
      case NodeKind::chip:
        u.reaches = "a neighbour chip";
        break;
      case NodeKind::server_switch:
        u.reaches = "its server's switch";
        break;
      case NodeKind::rack_plane:
        u.reaches = "its rack's inter-server switch planes";
        break;
      case NodeKind::us_plane:
        u.reaches = "the NeuronLink switch planes";
        break;
      default:
        u.reaches = "its UltraServer's scale-out leaf switch";
        break;
    }
  }
  return use;
}
}  // namespace

bool Comparison::miss() const { return std::abs(ratio() - 1.0) > kMissTolerance; }
bool ClaimCheck::miss() const { return std::abs(composed / claim.ratio - 1.0) > kMissTolerance; }

std::vector<const Comparison*> Summary::misses() const {
  std::vector<const Comparison*> m;
  for (const Comparison& c : published)
    if (c.miss()) m.push_back(&c);
  return m;
}

std::string num(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "nan";
  if (std::abs(v) < 1000) return fmt::format("{:.4g}", v);
  std::string digits = fmt::format("{:.0f}", std::abs(v)), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string metric_label(const std::string& m) {
  if (m.size() > 7 && m.ends_with("_tflops"))  // (integer types: operations, TOPS)
    return fmt::format("peak {} {}", upper(m.substr(0, m.size() - 7)), m.starts_with("int") ? "TOPS" : "TFLOPS");
  static const std::map<std::string, std::string> kLabels{{"hbm_gib", "HBM GiB"},
                                                          {"hbm_gbps", "HBM GB/s"},
                                                          {"sbuf_mib", "SBUF MiB"},
                                                          {"dma_gbps", "DMA GB/s"},
                                                          {"link_gbps", "NeuronLink GB/s (ports)"},
                                                          {"collective_cores", "collective cores"}};
  const auto it = kLabels.find(m);
  return it == kLabels.end() ? m : it->second;
}

Summary summarize(const System& s, const Presets& presets, unsigned max_all) {
  Summary out;
  out.system = &s;
  out.chip = chip_totals(s.design());
  out.total = totals(s);
  out.routes = route_stats(s, max_all);
  out.bisect = bisection(s);
  for (const auto& [m, v] : s.design().gen->published)
    out.published.push_back(Comparison{"chip", m, metric(out.chip, m), v});
  for (const auto& [m, v] : s.preset().published)
    out.published.push_back(Comparison{"system", m, metric(out.total, m), v});
  for (const Claim& c : s.preset().claims) {
    const System other(presets, c.against);
    const double theirs = metric(totals(other), c.against_metric);
    out.claims.push_back(ClaimCheck{c, metric(out.total, c.metric) / theirs});
  }
  return out;
}

std::string text_report(const Summary& sm) {
  const System& s = *sm.system;
  const SystemPreset& p = s.preset();
  const ChipDesign& d = s.design();
  const ChipGen& cg = *d.gen;
  const CoreGen& core = *d.core_gen;
  std::string o;
  auto line = [&](const std::string& text) { o += text.substr(0, text.find_last_not_of(' ') + 1) + "\n"; };
  line(fmt::format("{}: {}", p.key, p.title));
  line(fmt::format("  {} x {} ({}), {}: {}", s.chips(), cg.title, core.title, kind_label(p.topo.kind), shape(p)));
  line("");
  // ---- the composition as a tree
  line("composition");
  line(fmt::format("system {}", p.key));
  std::map<NodeKind, std::pair<unsigned, unsigned>> switches;  // kind -> (count, ports)
  for (const Node& n : s.nodes())
    if (!n.chip()) {
      auto& [count, ports] = switches[n.kind];
      ++count;
      ports = n.ports;
    }
  line(fmt::format("{}─ chips x{}: {} ({} .. {})", switches.empty() ? "└" : "├", s.chips(), cg.title,
                   s.nodes().front().label, s.nodes()[s.chips() - 1].label));
  const std::string bar = switches.empty() ? "   " : "│  ";
  line(fmt::format("{}├─ {} x{}", bar, core.title, d.cores()));
  std::string rates;
  for (DType t : kDTypes)
    rates += fmt::format("{}{} {}", rates.empty() ? "" : ", ", dtype_name(t), num(core.rate[static_cast<unsigned>(t)]));
  // the core's units as the core model builds them (ChipDesign::unit), with the preset's clocks
  const auto te = d.tensor();
  const auto sb = d.sbuf();
  const auto& cp = d.unit.core.core;
  line(fmt::format("{}│  ├─ tensor engine: {} x {} PEs at {} GHz; MACs/PE/cycle {}", bar, te.rows, te.cols,
                   num(core.tensor_ghz), rates));
  line(fmt::format("{}│  ├─ vector engine: {} lanes at {} GHz", bar, d.lanes(vector::Engine::vector).lanes,
                   num(core.vector_ghz)));
  line(fmt::format("{}│  ├─ scalar engine: {} lanes at {} GHz", bar, d.lanes(vector::Engine::scalar).lanes,
                   num(core.scalar_ghz)));
  line(fmt::format("{}│  ├─ SBUF: {} partitions x {} KiB", bar, sb.parts, sb.part_bytes / 1024));
  line(fmt::format("{}│  ├─ PSUM: {} partitions x {} banks x {} B", bar, cp.parts, cp.psum_banks, cp.psum_bank_bytes));
  line(fmt::format("{}│  └─ DMA engines x{}: {} queues, {} QoS class{}, {} GB/s each", bar, d.dma_engines(),
                   d.dma().queues, core.dma_qos_classes, core.dma_qos_classes > 1 ? "es" : "",
                   num(core.dma_engine_gbps)));
  line(fmt::format("{}├─ HBM stacks x{}: {} GiB, {} GB/s, {} ns", bar, d.hbm.size(), num(d.hbm.front().gib),
                   num(d.hbm.front().gbps), num(d.hbm.front().latency_ns)));
  line(fmt::format("{}├─ collective cores x{}", bar, d.collective_cores()));
  line(fmt::format("{}└─ link ports x{} ({})", bar, d.ports.size(), cg.neuronlink));
  const std::vector<ClassUse> use = class_use(s);
  for (unsigned k = 0; k < cg.links.size(); ++k) {
    const LinkClass& lc = cg.links[k];
    const std::string where = use[k].links
                                  ? fmt::format("to {} ({} links in the system)", use[k].reaches, num(use[k].links))
                                  : std::string("not wired in this system");
    line(fmt::format("{}   {}─ {} x{}: {} GB/s, {} ns, {}", bar, k + 1 == cg.links.size() ? "└" : "├", lc.name,
                     lc.count, num(lc.gbps), num(lc.latency_ns), where));
  }
  unsigned left = static_cast<unsigned>(switches.size());
  for (const auto& [kind, cp] : switches)
    line(fmt::format("{}─ {} x{}: {} ports", --left ? "├" : "└", node_kind_plural(kind), num(cp.first), cp.second));
  for (unsigned k = static_cast<unsigned>(cg.links.size()); k < s.link_classes().size(); ++k)
    line(fmt::format("   ({} links: {} x {} GB/s, {} ns)", s.link_classes()[k].name, num(use[k].links),
                     num(s.link_classes()[k].gbps), num(s.link_classes()[k].latency_ns)));
  line("");
  // ---- totals
  auto published = [&](const std::string& scope, const std::string& m) -> const Comparison* {
    for (const Comparison& c : sm.published)
      if (c.scope == scope && c.metric == m) return &c;
    return nullptr;
  };
  line(fmt::format("{:<34} {:>14} {:>12} {:>7} {:>16} {:>12} {:>7}", "totals (composed)", "per chip", "published",
                   "ratio", "system", "published", "ratio"));
  auto row = [&](const std::string& label, double chip, double system, const std::string& m) {
    std::string a = "", ar = "", b = "", br = "";
    if (const Comparison* c = m.empty() ? nullptr : published("chip", m)) {
      a = num(c->published);
      ar = fmt::format("{:.3f}{}", c->ratio(), c->miss() ? "!" : "");
    }
    if (const Comparison* c = m.empty() ? nullptr : published("system", m)) {
      b = num(c->published);
      br = fmt::format("{:.3f}{}", c->ratio(), c->miss() ? "!" : "");
    }
    line(fmt::format("  {:<32} {:>14} {:>12} {:>7} {:>16} {:>12} {:>7}", label, num(chip), a, ar, num(system), b, br));
  };
  row("chips", 1, s.chips(), "");
  row("NeuronCores", sm.chip.cores, sm.total.cores, "");
  for (DType t : kDTypes) {
    const auto i = static_cast<unsigned>(t);
    if (core.rate[i] == 0) continue;
    const std::string m = fmt::format("{}_tflops", dtype_name(t));
    row(metric_label(m), sm.chip.tflops[i], sm.total.tflops[i], m);
  }
  row("HBM stacks", sm.chip.hbm_stacks, sm.total.hbm_stacks, "");
  row("HBM GiB", sm.chip.hbm_gib, sm.total.hbm_gib, "hbm_gib");
  row("HBM GB/s", sm.chip.hbm_gbps, sm.total.hbm_gbps, "hbm_gbps");
  row("SBUF MiB", sm.chip.sbuf_mib, sm.total.sbuf_mib, "sbuf_mib");
  row("PSUM MiB", sm.chip.psum_mib, sm.total.psum_mib, "");
  row("DMA engines", sm.chip.dma_engines, sm.total.dma_engines, "");
  row("DMA queues", sm.chip.dma_queues, sm.total.dma_queues, "");
  row("DMA GB/s", sm.chip.dma_gbps, sm.total.dma_gbps, "dma_gbps");
  row("collective cores", sm.chip.collective_cores, sm.total.collective_cores, "collective_cores");
  row("NeuronLink GB/s, all ports", sm.chip.port_gbps_per_chip, sm.total.port_gbps_per_chip * s.chips(), "link_gbps");
  row("NeuronLink GB/s, wired ports", sm.total.connected_gbps_per_chip, sm.total.connected_gbps_per_chip * s.chips(),
      "");
  if (sm.chip.scale_out_gbps_per_chip > 0)
    row("scale-out GB/s", sm.chip.scale_out_gbps_per_chip, sm.total.scale_out_gbps_per_chip * s.chips(), "");
  line("");
  // ---- network
  const RouteStats& r = sm.routes;
  line("network (hops count links; chip to switch is one)");
  line(fmt::format("  {:<32} {} ({}; GB/s from one half to the other)", "bisection bandwidth GB/s", num(sm.bisect.gbps),
                   sm.bisect.cut));
  line(fmt::format("  {:<32} {}", "diameter (links)", r.diameter));
  line(fmt::format("  {:<32} {}", "mean links per route", num(r.mean_links)));
  line(fmt::format("  {:<32} {}", "mean switches per route", num(r.mean_switches)));
  line(fmt::format("  {:<32} {}", "mean zero-load latency ns", num(r.mean_latency_ns)));
  line(fmt::format("  {:<32} {} routes from {} source{}{}", "routes walked", num(static_cast<double>(r.pairs)),
                   num(static_cast<double>(r.sources)), r.sources == 1 ? "" : "s",
                   r.sampled ? fmt::format(" (a sample of the {} chips)", num(s.chips())) : " (every pair)"));
  line(fmt::format("  {:<32} {} ({} channels, {} dependencies{})", "deadlock-free (CDG acyclic)",
                   r.deadlock_free ? "yes" : "NO", num(r.channels), num(r.dependencies),
                   r.deadlock_free ? "" : "; cycle: " + r.cycle));
  // ---- claims and misses
  if (!sm.claims.empty()) {
    line("");
    line("claims");
    for (const ClaimCheck& c : sm.claims)
      line(fmt::format("  {} {} / {} {}: composed {}x, claimed {}x ({:+.1f} %){}", p.key, c.claim.metric,
                       c.claim.against, c.claim.against_metric, fmt::format("{:.2f}", c.composed), num(c.claim.ratio),
                       100 * (c.composed / c.claim.ratio - 1), c.miss() ? "  MISSES THE CLAIM BY MORE THAN 2 %" : ""));
  }
  const auto misses = sm.misses();
  if (!misses.empty()) {
    line("");
    line("published figures the composition misses by more than 2 % (marked ! above)");
    for (const Comparison* c : misses)
      line(fmt::format("  {} {}: composed {}, published {} ({:+.1f} %)", c->scope, metric_label(c->metric),
                       num(c->composed), num(c->published), 100 * (c->ratio() - 1)));
  }
  return o;
}

std::string json_report(const Summary& sm) {
  const System& s = *sm.system;
  const SystemPreset& p = s.preset();
  const ChipDesign& d = s.design();
  auto totals_table = [](const Totals& t) {
    toml::table x;
    toml::table tf;
    for (DType ty : kDTypes) tf.insert(dtype_name(ty), t.tflops[static_cast<unsigned>(ty)]);
    x.insert("peak_tflops", std::move(tf));
    x.insert("cores", t.cores);
    x.insert("hbm_stacks", t.hbm_stacks);
    x.insert("hbm_gib", t.hbm_gib);
    x.insert("hbm_gbps", t.hbm_gbps);
    x.insert("sbuf_mib", t.sbuf_mib);
    x.insert("psum_mib", t.psum_mib);
    x.insert("dma_engines", t.dma_engines);
    x.insert("dma_queues", t.dma_queues);
    x.insert("dma_gbps", t.dma_gbps);
    x.insert("collective_cores", t.collective_cores);
    return x;
  };
  toml::table root;
  root.insert("preset", p.key);
  root.insert("title", p.title);
  root.insert("chips", s.chips());
  toml::table topo;
  topo.insert("kind", topo_name(p.topo.kind));
  topo.insert("shape", shape(p));
  std::map<NodeKind, unsigned> sw;
  for (const Node& n : s.nodes())
    if (!n.chip()) ++sw[n.kind];
  toml::table switches;
  for (const auto& [k, n] : sw) switches.insert(node_kind_plural(k), n);
  topo.insert("switches", std::move(switches));
  toml::array classes;
  const auto use = class_use(s);
  for (unsigned k = 0; k < s.link_classes().size(); ++k) {
    const LinkClassInfo& c = s.link_classes()[k];
    toml::table t;
    t.insert("name", c.name);
    t.insert("gbps", c.gbps);
    t.insert("latency_ns", c.latency_ns);
    t.insert("ports_per_chip", k < d.gen->links.size() ? d.gen->links[k].count : 0u);
    t.insert("links", use[k].links);
    classes.push_back(std::move(t));
  }
  topo.insert("link_classes", std::move(classes));
  root.insert("topology", std::move(topo));
  toml::table chip;
  chip.insert("name", d.gen->title);
  chip.insert("core", d.core_gen->title);
  chip.insert("totals", totals_table(sm.chip));
  chip.insert("link_gbps", sm.chip.port_gbps_per_chip);
  chip.insert("wired_link_gbps", sm.total.connected_gbps_per_chip);
  root.insert("chip", std::move(chip));
  root.insert("totals", totals_table(sm.total));
  toml::table net;
  net.insert("bisection_gbps", sm.bisect.gbps);
  net.insert("bisection_cut", sm.bisect.cut);
  net.insert("diameter_links", sm.routes.diameter);
  net.insert("mean_links", sm.routes.mean_links);
  net.insert("mean_switches", sm.routes.mean_switches);
  net.insert("mean_latency_ns", sm.routes.mean_latency_ns);
  net.insert("routes", static_cast<std::int64_t>(sm.routes.pairs));
  net.insert("sampled", sm.routes.sampled);
  net.insert("deadlock_free", sm.routes.deadlock_free);
  net.insert("cdg_channels", sm.routes.channels);
  net.insert("cdg_dependencies", sm.routes.dependencies);
  root.insert("network", std::move(net));
  toml::array pub;
  for (const Comparison& c : sm.published) {
    toml::table t;
    t.insert("scope", c.scope);
    t.insert("metric", c.metric);
    t.insert("composed", c.composed);
    t.insert("published", c.published);
    t.insert("ratio", c.ratio());
    t.insert("miss", c.miss());
    pub.push_back(std::move(t));
  }
  root.insert("published", std::move(pub));
  toml::array claims;
  for (const ClaimCheck& c : sm.claims) {
    toml::table t;
    t.insert("against", c.claim.against);
    t.insert("metric", c.claim.metric);
    t.insert("against_metric", c.claim.against_metric);
    t.insert("claimed", c.claim.ratio);
    t.insert("composed", c.composed);
    t.insert("miss", c.miss());
    claims.push_back(std::move(t));
  }
  root.insert("claims", std::move(claims));
  std::ostringstream os;
  os << toml::json_formatter{root} << "\n";
  return os.str();
}

std::string compare_report(const Summary& a, const Summary& b) {
  const System& x = *a.system;
  const System& y = *b.system;
  std::string o;
  auto line = [&](const std::string& t) { o += t.substr(0, t.find_last_not_of(' ') + 1) + "\n"; };
  line(fmt::format("{:<32} {:>16} {:>16} {:>9}", "", x.preset().key, y.preset().key, "ratio"));
  auto row = [&](const std::string& label, double u, double v) {
    line(fmt::format("{:<32} {:>16} {:>16} {:>9}", label, num(u), num(v), v != 0 ? fmt::format("{:.3f}", u / v) : "-"));
  };
  line(fmt::format("{:<32} {:>16} {:>16}", "chip", x.design().gen->title, y.design().gen->title));
  row("chips", x.chips(), y.chips());
  row("NeuronCores", a.total.cores, b.total.cores);
  for (DType t : kDTypes) {
    const auto i = static_cast<unsigned>(t);
    if (a.total.tflops[i] == 0 && b.total.tflops[i] == 0) continue;
    row(metric_label(fmt::format("{}_tflops", dtype_name(t))), a.total.tflops[i], b.total.tflops[i]);
  }
  row("HBM GiB", a.total.hbm_gib, b.total.hbm_gib);
  row("HBM GB/s", a.total.hbm_gbps, b.total.hbm_gbps);
  row("SBUF MiB", a.total.sbuf_mib, b.total.sbuf_mib);
  row("DMA GB/s", a.total.dma_gbps, b.total.dma_gbps);
  row("NeuronLink GB/s per chip, wired", a.total.connected_gbps_per_chip, b.total.connected_gbps_per_chip);
  row("bisection GB/s", a.bisect.gbps, b.bisect.gbps);
  row("diameter (links)", a.routes.diameter, b.routes.diameter);
  row("mean links per route", a.routes.mean_links, b.routes.mean_links);
  row("mean zero-load latency ns", a.routes.mean_latency_ns, b.routes.mean_latency_ns);
  for (const ClaimCheck& c : a.claims)
    if (c.claim.against == y.preset().key)
      line(fmt::format("claim: {} {} / {} {} = {}x claimed, {:.2f}x composed ({:+.1f} %){}", x.preset().key,
                       c.claim.metric, y.preset().key, c.claim.against_metric, num(c.claim.ratio), c.composed,
                       100 * (c.composed / c.claim.ratio - 1), c.miss() ? "  MISSES BY MORE THAN 2 %" : ""));
  return o;
}

std::string list_report(const Presets& p) {
  std::string o;
  for (const SystemPreset& s : p.systems) {
    const ChipGen& c = p.chip(s.chip);
    unsigned chips = 0;
    switch (s.topo.kind) {
      case TopoKind::torus:
        chips = 1;
        for (unsigned k : s.topo.dims) chips *= k;
        break;
      case TopoKind::neuronswitch:
        chips = s.topo.racks * s.topo.servers_per_rack * s.topo.chips_per_server;
        break;
      default:
        chips = s.topo.ultraservers * s.topo.chips_per_ultraserver;
        break;
    }
    o += fmt::format("{:<12} {:<32} {:>6} x {:<22} {}\n", s.key, s.title, chips, c.title, topo_name(s.topo.kind));
  }
  return o;
}

}  // namespace trn::system
