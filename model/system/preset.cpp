#include "system/preset.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace trn::system {

const char* dtype_name(DType t) {
  static constexpr const char* kNames[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "mxfp8", "mxfp4", "int8", "sparse"};
  return kNames[static_cast<unsigned>(t)];
}

const char* topo_name(TopoKind k) {
  switch (k) {
    case TopoKind::torus:
      return "torus";
    case TopoKind::neuronswitch:
      return "neuronswitch";
    default:
      return "planes";
  }
}

bool known_metric(std::string_view m) {
  for (DType t : kDTypes)
    if (m == fmt::format("{}_tflops", dtype_name(t))) return true;
  for (const char* k : {"hbm_gib", "hbm_gbps", "sbuf_mib", "dma_gbps", "link_gbps", "collective_cores"})
    if (m == k) return true;
  return false;
}

const LinkClass* ChipGen::link_class(std::string_view name) const {
  for (const LinkClass& c : links)
    if (c.name == name) return &c;
  return nullptr;
}

namespace {

template <class T>
const T& find_key(const std::vector<T>& v, std::string_view key, const char* what) {
  for (const T& x : v)
    if (x.key == key) return x;
  throw PresetError(fmt::format("no {} '{}'", what, key));
}

/// Reads one file's tables with positions for messages. `origin_` names the --set behind a value
/// that the file did not write.
class Reader {
 public:
  Reader(std::string source, std::map<const toml::node*, std::string> origin)
      : source_(std::move(source)), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const toml::node& n, const std::string& path, const std::string& msg) const {
    throw PresetError(path.empty() ? fmt::format("{}: {}", where(n), msg)
                                   : fmt::format("{}: {}: {}", where(n), path, msg));
  }
  std::string where(const toml::node& n) const {
    if (auto it = origin_.find(&n); it != origin_.end()) return it->second;
    const auto& s = n.source();
    if (s.begin.line == 0) return source_;
    return fmt::format("{}:{}:{}", source_, s.begin.line, s.begin.column);
  }

  /// A table's keys must all be in `allowed`.
  void only(const toml::table& t, const std::string& path, std::initializer_list<std::string_view> allowed) const {
    for (auto&& [k, v] : t) {
      if (std::find(allowed.begin(), allowed.end(), k.str()) != allowed.end()) continue;
      std::string names;
      for (std::string_view a : allowed) names += fmt::format("{}{}", names.empty() ? "" : ", ", a);
      fail(v, join(path, k.str()), fmt::format("unknown key (expected one of: {})", names));
    }
  }
  const toml::node& need(const toml::table& t, const std::string& path, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (!n) fail(t, path, fmt::format("'{}' is missing", key));
    return *n;
  }
  const toml::table& table(const toml::table& t, const std::string& path, std::string_view key) const {
    const toml::node& n = need(t, path, key);
    if (!n.is_table()) fail(n, join(path, key), "must be a table");
    return *n.as_table();
  }
  std::string str(const toml::table& t, const std::string& path, std::string_view key) const {
    const toml::node& n = need(t, path, key);
    if (!n.is_string() || n.as_string()->get().empty()) fail(n, join(path, key), "must be a non-empty string");
    return n.as_string()->get();
  }
  std::string str_or(const toml::table& t, const std::string& path, std::string_view key, std::string dflt) const {
    return t.get(key) ? str(t, path, key) : dflt;
  }
  double num(const toml::node& n, const std::string& path, double lo, double hi, bool lo_open = false) const {
    if (!n.is_number()) fail(n, path, "must be a number");
    const double v = n.is_integer() ? static_cast<double>(n.as_integer()->get()) : n.as_floating_point()->get();
    if (!std::isfinite(v) || v < lo || v > hi || (lo_open && v == lo))
      fail(n, path, fmt::format("{} is out of range ({}{}..{})", v, lo_open ? "above " : "", lo, hi));
    return v;
  }
  double num(const toml::table& t, const std::string& path, std::string_view key, double lo, double hi,
             bool lo_open = false) const {
    return num(need(t, path, key), join(path, key), lo, hi, lo_open);
  }
  unsigned uint(const toml::node& n, const std::string& path, std::int64_t lo, std::int64_t hi) const {
    if (!n.is_integer()) fail(n, path, "must be an integer");
    const std::int64_t v = n.as_integer()->get();
    if (v < lo || v > hi) fail(n, path, fmt::format("{} is out of range ({}..{})", v, lo, hi));
    return static_cast<unsigned>(v);
  }
  unsigned uint(const toml::table& t, const std::string& path, std::string_view key, std::int64_t lo,
                std::int64_t hi) const {
    return uint(need(t, path, key), join(path, key), lo, hi);
  }
  Published published(const toml::table& t, const std::string& path) const {
    Published out;
    const toml::node* n = t.get("published");
    if (!n) return out;
    const std::string p = join(path, "published");
    if (!n->is_table()) fail(*n, p, "must be a table");
    for (const auto& [k, v] : ordered(*n->as_table())) {
      if (!known_metric(k))
        fail(
            *v, join(p, k),
            "unknown metric (fp32..mxfp4 _tflops, hbm_gib, hbm_gbps, sbuf_mib, dma_gbps, link_gbps, collective_cores)");
      out.emplace_back(k, num(*v, join(p, k), 0, 1e12, true));
    }
    return out;
  }
  /// A table's entries in file order (toml++ keeps keys sorted).
  static std::vector<std::pair<std::string, const toml::node*>> ordered(const toml::table& t) {
    std::vector<std::pair<std::string, const toml::node*>> v;
    for (auto&& [k, n] : t) v.emplace_back(std::string(k.str()), &n);
    // values set by --set have no position: they go last, in name order
    auto pos = [](const toml::node* n) {
      const auto& b = n->source().begin;
      return b.line == 0 ? std::pair{~0u, 0u}
                         : std::pair{static_cast<unsigned>(b.line), static_cast<unsigned>(b.column)};
    };
    std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) { return pos(a.second) < pos(b.second); });
    return v;
  }
  static std::string join(const std::string& a, std::string_view b) {
    return a.empty() ? std::string(b) : a + "." + std::string(b);
  }

 private:
  std::string source_;
  std::map<const toml::node*, std::string> origin_;
};

CoreGen read_core(const Reader& r, const std::string& key, const toml::table& t) {
  const std::string p = "core." + key;
  r.only(t, p,
         {"title", "tensor_rows", "tensor_cols", "tensor_ghz", "vector_ghz", "scalar_ghz", "sbuf_partitions",
          "sbuf_kib_per_partition", "psum_banks", "psum_bank_bytes", "dma_engines", "dma_queues", "dma_qos_classes",
          "dma_engine_gbps", "rate"});
  CoreGen c;
  c.key = key;
  c.title = r.str(t, p, "title");
  c.tensor_rows = r.uint(t, p, "tensor_rows", 1, 4096);
  c.tensor_cols = r.uint(t, p, "tensor_cols", 1, 4096);
  c.tensor_ghz = r.num(t, p, "tensor_ghz", 0, 100, true);
  c.vector_ghz = r.num(t, p, "vector_ghz", 0, 100, true);
  c.scalar_ghz = r.num(t, p, "scalar_ghz", 0, 100, true);
  c.sbuf_partitions = r.uint(t, p, "sbuf_partitions", 1, 4096);
  c.sbuf_kib_per_partition = r.uint(t, p, "sbuf_kib_per_partition", 1, 1 << 20);
  c.psum_banks = r.uint(t, p, "psum_banks", 1, 64);
  c.psum_bank_bytes = r.uint(t, p, "psum_bank_bytes", 4, 1 << 20);
  c.dma_engines = r.uint(t, p, "dma_engines", 1, 1024);
  c.dma_queues = r.uint(t, p, "dma_queues", 1, 1024);
  c.dma_qos_classes = r.uint(t, p, "dma_qos_classes", 1, 16);
  c.dma_engine_gbps = r.num(t, p, "dma_engine_gbps", 0, 1e6, true);
  const toml::table& rate = r.table(t, p, "rate");
  const std::string rp = p + ".rate";
  std::vector<std::string_view> names;
  for (DType d : kDTypes) names.push_back(dtype_name(d));
  for (auto&& [k, v] : rate)
    if (std::find(names.begin(), names.end(), k.str()) == names.end())
      r.fail(v, Reader::join(rp, k.str()), "unknown type (fp32 tf32 bf16 fp16 fp8 mxfp8 mxfp4)");
  for (DType d : kDTypes) c.rate[static_cast<unsigned>(d)] = r.num(rate, rp, dtype_name(d), 0, 64);
  if (c.rate[static_cast<unsigned>(DType::bf16)] != 1.0)
    r.fail(r.need(rate, rp, "bf16"), rp + ".bf16", "must be 1 (rates are relative to BF16)");
  return c;
}

ChipGen read_chip(const Reader& r, const std::string& key, const toml::table& t, const std::vector<CoreGen>& cores) {
  const std::string p = "chip." + key;
  r.only(t, p,
         {"title", "core", "cores", "hbm_stacks", "hbm_stack_gib", "hbm_stack_gbps", "hbm_latency_ns",
          "collective_cores", "lnc", "collective", "neuronlink", "links", "published"});
  ChipGen c;
  c.key = key;
  c.title = r.str(t, p, "title");
  c.core = r.str(t, p, "core");
  if (std::none_of(cores.begin(), cores.end(), [&](const CoreGen& g) { return g.key == c.core; }))
    r.fail(r.need(t, p, "core"), p + ".core", fmt::format("no core generation '{}' ([core.*])", c.core));
  c.cores = r.uint(t, p, "cores", 1, 1024);
  c.hbm_stacks = r.uint(t, p, "hbm_stacks", 0, 64);
  c.hbm_stack_gib = r.num(t, p, "hbm_stack_gib", 0, 1e6);
  c.hbm_stack_gbps = r.num(t, p, "hbm_stack_gbps", 0, 1e7);
  c.hbm_latency_ns = r.num(t, p, "hbm_latency_ns", 0, 1e6);
  c.collective_cores = r.uint(t, p, "collective_cores", 0, 1024);
  c.lnc = r.uint(t, p, "lnc", 1, c.cores);
  if (c.cores % c.lnc) r.fail(r.need(t, p, "lnc"), p + ".lnc", fmt::format("must divide the chip's {} cores", c.cores));
  if (t.get("collective")) {
    const std::string cp = p + ".collective";
    const toml::table& ct = r.table(t, p, "collective");
    r.only(ct, cp, {"launch_us", "step_us", "dge_ns", "rank_dma_gbps"});
    c.cc.launch_us = r.num(ct, cp, "launch_us", 0, 1e6);
    c.cc.step_us = r.num(ct, cp, "step_us", 0, 1e6);
    c.cc.dge_ns = r.num(ct, cp, "dge_ns", 0, 1e6);
    c.cc.rank_dma_gbps = r.num(ct, cp, "rank_dma_gbps", 0, 1e7);
  }
  c.neuronlink = r.str(t, p, "neuronlink");
  const toml::table& links = r.table(t, p, "links");
  for (const auto& [name, n] : Reader::ordered(links)) {
    const std::string lp = p + ".links." + name;
    if (!n->is_table()) r.fail(*n, lp, "must be a table { count, gbps, latency_ns }");
    const toml::table& lt = *n->as_table();
    r.only(lt, lp, {"count", "gbps", "latency_ns", "scale_out"});
    bool scale_out = false;
    if (const toml::node* so = lt.get("scale_out")) {
      if (!so->is_boolean()) r.fail(*so, lp + ".scale_out", "must be true or false");
      scale_out = so->as_boolean()->get();
    }
    c.links.push_back(LinkClass{name, r.uint(lt, lp, "count", 0, 256), r.num(lt, lp, "gbps", 0, 1e6, true),
                                r.num(lt, lp, "latency_ns", 0, 1e7), scale_out});
  }
  c.published = r.published(t, p);
  return c;
}

Topology read_topology(const Reader& r, const std::string& sp, const toml::table& st, const ChipGen& chip) {
  const std::string p = sp + ".topology";
  const toml::table& t = r.table(st, sp, "topology");
  Topology o;
  const std::string kind = r.str(t, p, "kind");
  auto link_class = [&](std::string_view key, bool required) -> std::string {
    if (!required && !t.get(key)) return "";
    const std::string name = r.str(t, p, key);
    if (!chip.link_class(name))
      r.fail(r.need(t, p, key), Reader::join(p, key),
             fmt::format("chip '{}' has no link class '{}' ([chip.{}.links])", chip.key, name, chip.key));
    return name;
  };
  if (kind == "torus") {
    o.kind = TopoKind::torus;
    r.only(t, p, {"kind", "dims", "classes"});
    const toml::node& dn = r.need(t, p, "dims");
    const toml::array* dims = dn.as_array();
    if (!dims || dims->size() < 2 || dims->size() > 3) r.fail(dn, p + ".dims", "must be an array of 2 or 3 integers");
    for (std::size_t i = 0; i < dims->size(); ++i)
      o.dims.push_back(r.uint((*dims)[i], fmt::format("{}.dims[{}]", p, i), 2, 64));
    const toml::node& cn = r.need(t, p, "classes");
    const toml::array* cls = cn.as_array();
    if (!cls || cls->size() != dims->size())
      r.fail(cn, p + ".classes",
             fmt::format("must be an array of {} link class names, one per dimension", dims->size()));
    for (std::size_t i = 0; i < cls->size(); ++i) {
      const toml::node& c = (*cls)[i];
      if (!c.is_string() || !chip.link_class(c.as_string()->get()))
        r.fail(c, fmt::format("{}.classes[{}]", p, i), fmt::format("must name a link class of chip '{}'", chip.key));
      o.classes.push_back(c.as_string()->get());
    }
    // a ring takes 2 ports of its class on every chip
    for (const LinkClass& lc : chip.links) {
      const auto uses = 2 * static_cast<unsigned>(std::count(o.classes.begin(), o.classes.end(), lc.name));
      if (uses && uses != lc.count)
        r.fail(cn, p + ".classes",
               fmt::format("the torus takes {} ports of class '{}' per chip but chip '{}' has {}", uses, lc.name,
                           chip.key, lc.count));
    }
  } else if (kind == "neuronswitch") {
    o.kind = TopoKind::neuronswitch;
    r.only(t, p,
           {"kind", "racks", "servers_per_rack", "chips_per_server", "server_links", "rack_links", "cross_rack_links",
            "switch_latency_ns"});
    o.racks = r.uint(t, p, "racks", 1, 2);
    o.servers_per_rack = r.uint(t, p, "servers_per_rack", 1, 256);
    o.chips_per_server = r.uint(t, p, "chips_per_server", 1, 64);
    o.server_links = link_class("server_links", true);
    o.rack_links = link_class("rack_links", true);
    o.cross_rack_links = link_class("cross_rack_links", o.racks > 1);
    o.switch_latency_ns = r.num(t, p, "switch_latency_ns", 0, 1e6);
    if (!chip.link_class(o.server_links)->count || !chip.link_class(o.rack_links)->count)
      r.fail(t, p, "server_links and rack_links need at least one port each");
    if (o.racks > 1 && !chip.link_class(o.cross_rack_links)->count)
      r.fail(t, p, "two racks need at least one cross_rack_links port per chip");
  } else if (kind == "planes") {
    o.kind = TopoKind::planes;
    r.only(t, p,
           {"kind", "ultraservers", "chips_per_ultraserver", "links", "switch_latency_ns", "scale_out_links", "spines",
            "spine_gbps", "spine_latency_ns"});
    o.ultraservers = r.uint(t, p, "ultraservers", 1, 4096);
    o.chips_per_ultraserver = r.uint(t, p, "chips_per_ultraserver", 2, 4096);
    o.links = link_class("links", true);
    o.switch_latency_ns = r.num(t, p, "switch_latency_ns", 0, 1e6);
    if (!chip.link_class(o.links)->count) r.fail(t, p, "links needs at least one port per chip");
    if (o.ultraservers > 1) {
      o.scale_out_links = link_class("scale_out_links", true);
      const LinkClass* so = chip.link_class(o.scale_out_links);
      if (so->count != 1 || !so->scale_out)
        r.fail(r.need(t, p, "scale_out_links"), p + ".scale_out_links",
               "must name a class with scale_out = true and exactly one port per chip");
      o.spines = r.uint(t, p, "spines", 1, 1024);
      o.spine_gbps = r.num(t, p, "spine_gbps", 0, 1e8, true);
      o.spine_latency_ns = r.num(t, p, "spine_latency_ns", 0, 1e7);
    }
  } else {
    r.fail(r.need(t, p, "kind"), p + ".kind", fmt::format("unknown topology '{}' (torus, neuronswitch, planes)", kind));
  }
  return o;
}

SystemPreset read_system(const Reader& r, const std::string& key, const toml::table& t,
                         const std::vector<ChipGen>& chips) {
  const std::string p = "system." + key;
  r.only(t, p, {"title", "chip", "topology", "published", "claims", "measured"});
  SystemPreset s;
  s.key = key;
  s.title = r.str(t, p, "title");
  s.chip = r.str(t, p, "chip");
  const ChipGen* chip = nullptr;
  for (const ChipGen& c : chips)
    if (c.key == s.chip) chip = &c;
  if (!chip) r.fail(r.need(t, p, "chip"), p + ".chip", fmt::format("no chip '{}' ([chip.*])", s.chip));
  s.topo = read_topology(r, p, t, *chip);
  s.published = r.published(t, p);
  // an optional array of tables [[system.X.name]]: each table with its path
  auto each = [&](const char* name, const auto& fn) {
    const toml::node* an = t.get(name);
    if (!an) return;
    const toml::array* arr = an->as_array();
    if (!arr)
      r.fail(*an, fmt::format("{}.{}", p, name), fmt::format("must be an array of tables ([[system.X.{}]])", name));
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string ip = fmt::format("{}.{}[{}]", p, name, i);
      const toml::table* it = (*arr)[i].as_table();
      if (!it) r.fail((*arr)[i], ip, "must be a table");
      fn(*it, ip);
    }
  };
  each("claims", [&](const toml::table& ct, const std::string& cp) {
    r.only(ct, cp, {"against", "metric", "against_metric", "ratio"});
    Claim c;
    c.against = r.str(ct, cp, "against");
    c.metric = r.str(ct, cp, "metric");
    c.against_metric = r.str_or(ct, cp, "against_metric", c.metric);
    for (const std::string* m : {&c.metric, &c.against_metric})
      if (!known_metric(*m)) r.fail(ct, cp, fmt::format("unknown metric '{}'", *m));
    c.ratio = r.num(ct, cp, "ratio", 0, 1e9, true);
    s.claims.push_back(std::move(c));
  });
  each("measured", [&](const toml::table& mt, const std::string& mp) {
    r.only(mt, mp, {"op", "ranks", "dtype", "source", "note", "fit", "rows"});
    Measured m;
    m.op = r.str(mt, mp, "op");
    m.dtype = r.str(mt, mp, "dtype");
    m.source = r.str(mt, mp, "source");
    m.note = r.str_or(mt, mp, "note", "");
    m.ranks = r.uint(mt, mp, "ranks", 2, 1u << 24);
    if (const toml::node* f = mt.get("fit")) {
      if (!f->is_boolean()) r.fail(*f, mp + ".fit", "must be true or false");
      m.fit = f->as_boolean()->get();
    }
    const toml::node& rn = r.need(mt, mp, "rows");
    const toml::array* rows = rn.as_array();
    if (!rows || rows->empty())
      r.fail(rn, mp + ".rows",
             "must be a non-empty array of [bytes, microseconds] or [bytes, microseconds, algorithm]");
    for (std::size_t k = 0; k < rows->size(); ++k) {
      const std::string rp = fmt::format("{}.rows[{}]", mp, k);
      const toml::array* row = (*rows)[k].as_array();
      if (!row || row->size() < 2 || row->size() > 3)
        r.fail((*rows)[k], rp, "must be [bytes, microseconds] or [bytes, microseconds, algorithm]");
      m.rows.emplace_back(r.uint((*row)[0], rp + "[0]", 1, 4294967295), r.num((*row)[1], rp + "[1]", 0, 1e9, true));
      std::string algo;
      if (row->size() == 3) {
        const auto* a = (*row)[2].as_string();
        if (!a || a->get().empty())
          r.fail((*row)[2], rp + "[2]", "must be the algorithm the run reported (a non-empty string)");
        algo = a->get();
      }
      m.algos.push_back(std::move(algo));
    }
    s.measured.push_back(std::move(m));
  });
  return s;
}

/// Split "a.b.c" (no empty parts).
std::vector<std::string> split_path(const std::string& key) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : key) {
    if (ch == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  parts.push_back(cur);
  for (const auto& s : parts)
    if (s.empty()) throw PresetError(fmt::format("--set {}: the key has an empty part", key));
  return parts;
}

toml::node* lookup(toml::table& root, const std::vector<std::string>& path) {
  toml::node* n = &root;
  for (const std::string& part : path) {
    toml::table* t = n->as_table();
    if (!t) return nullptr;
    n = t->get(part);
    if (!n) return nullptr;
  }
  return n;
}

/// Apply one KEY=VALUE to the parsed document; record where the new value came from.
void apply_set(toml::table& root, const std::string& kv, const std::string& focus,
               std::map<const toml::node*, std::string>& origin) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) throw PresetError(fmt::format("--set '{}': expected KEY=VALUE", kv));
  const std::string key = kv.substr(0, eq), text = kv.substr(eq + 1);
  std::vector<std::string> path = split_path(key);
  // relative keys: under the focus system, then its chip, then that chip's core
  std::vector<std::vector<std::string>> tries{path};
  if (!focus.empty() && path[0] != "core" && path[0] != "chip" && path[0] != "system") {
    tries.clear();
    std::vector<std::string> base{"system", focus};
    tries.push_back(base);
    if (toml::node* sys = lookup(root, base); sys && sys->as_table()) {
      if (const toml::node* c = sys->as_table()->get("chip"); c && c->is_string()) {
        const std::string chip = c->as_string()->get();
        tries.push_back({"chip", chip});
        if (toml::node* ch = lookup(root, {"chip", chip}); ch && ch->as_table())
          if (const toml::node* k = ch->as_table()->get("core"); k && k->is_string())
            tries.push_back({"core", k->as_string()->get()});
      }
    }
    for (auto& t : tries) t.insert(t.end(), path.begin(), path.end());
  }
  toml::node* target = nullptr;
  std::vector<std::string> found;
  for (const auto& t : tries)
    if ((target = lookup(root, t))) {
      found = t;
      break;
    }
  if (!target) {
    std::string names;
    for (const auto& t : tries) {
      std::string s;
      for (const auto& part : t) s += (s.empty() ? "" : ".") + part;
      names += (names.empty() ? "" : ", ") + s;
    }
    throw PresetError(
        fmt::format("--set {}: no such key ({})", key, tries.size() > 1 ? "tried " + names : "not in the presets"));
  }
  if (target->is_table()) throw PresetError(fmt::format("--set {}: names a table; set one of its values", key));
  // the value as TOML, or a bare word as a string
  toml::table v;
  try {
    v = toml::parse("v = " + text);
  } catch (const toml::parse_error&) {
    v.insert_or_assign("v", text);
  }
  toml::node& nv = *v.get("v");
  const auto type_name = [](const toml::node& n) -> const char* {
    return n.is_integer()          ? "an integer"
           : n.is_floating_point() ? "a number"
           : n.is_string()         ? "a string"
           : n.is_boolean()        ? "true or false"
           : n.is_array()          ? "an array"
                                   : "a table";
  };
  const bool ok = (target->type() == nv.type()) || (target->is_floating_point() && nv.is_integer()) ||
                  (target->is_integer() && nv.is_floating_point());  // a range check follows
  if (!ok)
    throw PresetError(
        fmt::format("--set {}: '{}' is {}, the preset holds {}", key, text, type_name(nv), type_name(*target)));
  std::string parent_key;
  for (std::size_t i = 0; i + 1 < found.size(); ++i) parent_key += (i ? "." : "") + found[i];
  toml::table* parent = lookup(root, std::vector<std::string>(found.begin(), found.end() - 1))->as_table();
  if (target->is_floating_point() && nv.is_integer())
    parent->insert_or_assign(found.back(), static_cast<double>(nv.as_integer()->get()));
  else
    parent->insert_or_assign(found.back(), std::move(nv));
  toml::node* placed = parent->get(found.back());
  const std::string label = fmt::format("--set {}", kv);
  origin[placed] = label;
  if (toml::array* a = placed->as_array())
    for (toml::node& e : *a) origin[&e] = label;
}

}  // namespace

const CoreGen& Presets::core(std::string_view key) const { return find_key(cores, key, "core generation"); }
const ChipGen& Presets::chip(std::string_view key) const { return find_key(chips, key, "chip"); }
bool Presets::has_system(std::string_view key) const {
  return std::any_of(systems.begin(), systems.end(), [&](const SystemPreset& s) { return s.key == key; });
}
const SystemPreset& Presets::system(std::string_view key) const {
  for (const SystemPreset& s : systems)
    if (s.key == key) return s;
  std::string names;
  for (const SystemPreset& s : systems) names += (names.empty() ? "" : ", ") + s.key;
  throw PresetError(fmt::format("unknown preset '{}' (presets: {})", key, names));
}

Presets parse_presets(std::string_view text, const std::string& source, const std::vector<std::string>& sets,
                      const std::string& focus) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw PresetError(
        fmt::format("{}:{}:{}: {}", source, e.source().begin.line, e.source().begin.column, e.description()));
  }
  if (!focus.empty()) {  // the preset the relative --set keys and the report are about
    const toml::table* systems = root["system"].as_table();
    if (!systems || !systems->get(focus)) {
      std::string names;
      if (systems)
        for (const auto& [k, n] : Reader::ordered(*systems)) names += (names.empty() ? "" : ", ") + k;
      throw PresetError(fmt::format("unknown preset '{}' (presets: {})", focus, names));
    }
  }
  std::map<const toml::node*, std::string> origin;
  for (const std::string& kv : sets) apply_set(root, kv, focus, origin);
  const Reader r(source, origin);
  r.only(root, "", {"core", "chip", "system"});
  Presets out;
  out.source = source;
  for (const char* section : {"core", "chip", "system"}) {
    const toml::table& sec = r.table(root, "", section);
    for (const auto& [key, n] : Reader::ordered(sec)) {
      const std::string p = std::string(section) + "." + key;
      if (!n->is_table()) r.fail(*n, p, "must be a table");
      const toml::table& t = *n->as_table();
      if (section[1] == 'o')
        out.cores.push_back(read_core(r, key, t));
      else if (section[1] == 'h')
        out.chips.push_back(read_chip(r, key, t, out.cores));
      else
        out.systems.push_back(read_system(r, key, t, out.chips));
    }
  }
  // claims name systems that exist
  for (const SystemPreset& s : out.systems)
    for (const Claim& c : s.claims)
      if (!out.has_system(c.against))
        throw PresetError(
            fmt::format("{}: system.{}.claims: no system '{}' to compare against", source, s.key, c.against));
  if (!focus.empty()) out.system(focus);
  return out;
}

Presets load_presets(const std::string& path, const std::vector<std::string>& sets, const std::string& focus) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw PresetError(fmt::format("{}: cannot read the preset file", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_presets(ss.str(), path, sets, focus);
}

Presets default_presets(const std::vector<std::string>& sets, const std::string& focus) {
  return parse_presets(default_presets_text(), default_presets_path(), sets, focus);
}

}  // namespace trn::system
