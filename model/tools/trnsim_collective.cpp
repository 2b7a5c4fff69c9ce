// trnsim collective: collective benchmarks on a composed system, in the form collective-benchmark
// users know (one row per message size: size, count, type, time, algbw, busbw), beside the
// alpha-beta bound (docs/collectives.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collective/engine.hpp"
#include "collective/program.hpp"
#include "common/workers.hpp"
#include "core/control.hpp"
#include "isa/isa.hpp"
#include "system/chip_switch.hpp"
#include "system/chip_torus.hpp"
#include "system/preset.hpp"
#include "system/system.hpp"
#include "trn_config.hpp"

namespace trn::tools {

/// A bad command line: one line, exit 2.
struct CollectiveUsage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr const char* kCollectiveUsage = R"(usage: trnsim collective --preset NAME --op OP [options]

A collective benchmark on a system composed from a preset: one row per message size.

  --preset NAME        the system (trnsim system --list)
  --op OP              all-reduce reduce-scatter all-gather all-to-all permute
  -b, --minbytes SIZE  smallest message (default 8); SIZE takes K, M, G (powers of 1024)
  -e, --maxbytes SIZE  largest message (default the smallest)
  -f, --stepfactor F   multiply the size by F each row (default 2)
  --dtype T            fp32 (default) or bf16 (added in FP32 and rounded, as the DMA does)
  --algorithm A        auto (default: each algorithm that can run timed at the flow level, the
                       fastest taken; --json lists them) ring mesh rdh hier
                       rings (striped: several rings at once, both ways)
                       kangaring (the Neuron runtime's: a chip's ranks in pairs, the primaries
                       in a ring, 3-read/1-write and 1-read/2-write transfers; flow level)
                       hrings (tori and NeuronSwitch systems: hierarchies at once, each level
                       of chips (a torus dimension, the server, the rack) the outer one in some,
                       weighted by what their links carry)
  --fidelity F         flow (default); cycle (the schedule compiled into collective-core programs
                       and run on the system's cycle-exact chips, torus or switched, up to 255
                       chips; reports the flow level on the same chips beside it:
                       docs/collectives.md, "The cycle level"); flit is another name for cycle
  --config NAME        cycle: the RTL configuration of the chips (default full)
  --channels N         cycle: collective cores of every chip that run the schedule at once, each
                       its share of the instances (default: as many as keep the fastest link busy
                       against the HBM latency, at most the chip's collective cores)
  --last-hop-vc        cycle, torus: routers with the last-hop VC (a third VC a traffic class, taken
                       by the hops whose next router is the destination: docs/link.md)
  --threads N          cycle: threads evaluating the chips (default: the machine's hardware threads;
                       the same result with any count)
  --ranks N            the first N ranks of the placement (default every one): flow, logical
                       NeuronCores (a chip's cores / --lnc of them, filling a chip, then the next);
                       cycle, chips
  --lnc N              flow: NeuronCores of a logical NeuronCore, a rank (1 or 2; default the
                       chip's: 1 on Trainium, 2 on Trainium2 and later, as the Neuron runtime)
  --chip-ranks N       flow: ranks a chip holds instead (1: a rank a chip, as the cycle level)
  --chunk BYTES        bytes of each rank's share per pipelined instance (default 1M; 0: whole
                       segments); rings and hrings cut a share into stripes, chunk / stripes each
  --inflight N         instances in flight per rank (default 4)
  --queue-send S       flow: a DMA queue sends its transfers in turn (default: as a DMA engine
                       takes a queue's descriptors) or shared (all at once, sharing the links)
  --compare-published  run every published nccom-test table the presets record (of --preset, or of
                       all) with the model: each row's time beside the published one, the ratio
  --no-cost            flow: without the chip's collective cost (launch, a round's step, descriptor
                       generation, a rank's DMA: [chip.X.collective] in the presets)
  --no-fold            flow: run every rank of a hierarchy across UltraServers (by default, timing
                       only, two UltraServers run for all of them, which are alike: docs/collectives.md,
                       "Symmetry")
  --routes N           flow: route keys every transfer is striped over, evenly (default 0: every
                       port, plane, rack link, spine and torus direction the routing has; 1: the
                       one route a chip pair has, as in the cycle level's tables)
  --ordering O         strong (default: strong-order-write DMA queues) or waw (write-after-write);
                       the cycle level's checker reports a semaphore seen before its data
  --barrier            the barrier flag on every transfer's semaphore descriptor
  --desc BYTES         longest DMA descriptor (default 64K); a transfer is cut into descriptors
  --jitter F           cycle level: HBM read latency spread, L (1 +- F/2) (default 0.1)
  --check              move real data and check every rank's result against the reference
  --seed N             data and HBM latency seed (default 1)
  --json FILE          the rows as JSON; --csv FILE as CSV
  --set KEY=VALUE      override a preset value (as in trnsim system); --presets FILE another preset file

Programs for the RTL (docs/collectives.md, "Programs for the RTL"): with --emit DIR the schedule is
compiled into programs for the collective cores of a system top (rtl/system/chip_torus.sv,
rtl/system/chip_switch.sv) instead of being run; --preset is not needed:
  --emit DIR           write rank<r>.s and rank<r>.bin (the program of rank r's chip's collective
                       core), input_rank<r>.bin and expected_rank<r>.bin (seeded inputs, --seed, and
                       the reference's result) and manifest.txt (where everything is) into DIR
  --torus XxY          the top's chips: 4x1 (sys_ring4), 2x2 (sys_torus2x2), 4x2 (sys_torus4x2)
  --switch N           or N chips on one switch: 8 (sys_switch8); rank r on chip r
  --cores N            NeuronCores per chip of the top; the collective core is unit N (default: as
                       the system tops have them: 2x2 the configuration's system_cores_per_chip,
                       any other shape 0)
  --config NAME        the top's configuration (default tiny here)
  --base ADDR          HBM address of the data region on every chip (default 0x1000)
  -b SIZE, --dtype, --algorithm (not auto), --ranks, --chunk, --desc and --barrier as above.

Sizes are bytes of the message per rank as collective benchmarks count them (all-gather: the
gathered result). GB/s = 10^9 bytes/s. Exit status: 0 ok, 1 a check failed or a semaphore
overtook its data, 2 bad input.
)";

namespace {

std::uint64_t parse_size(const std::string& opt, const std::string& s) {
  if (s.empty()) throw CollectiveUsage(fmt::format("{}: empty size", opt));
  if (s[0] < '0' || s[0] > '9')  // (strtoull would take a sign or blanks: -5 is not a size)
    throw CollectiveUsage(fmt::format("{} '{}': not a size (a number of bytes, with K, M or G)", opt, s));
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  std::uint64_t mul = 1;
  const std::string suf = end;
  if (suf == "K" || suf == "k")
    mul = 1ull << 10;
  else if (suf == "M" || suf == "m")
    mul = 1ull << 20;
  else if (suf == "G" || suf == "g")
    mul = 1ull << 30;
  else if (!suf.empty())
    throw CollectiveUsage(fmt::format("{} '{}': not a size (a number with K, M or G)", opt, s));
  if (errno || end == s.c_str() || v > (1ull << 40) / mul)
    throw CollectiveUsage(fmt::format("{} '{}': not a size up to 1T", opt, s));
  return v * mul;
}

unsigned parse_uint(const std::string& opt, const std::string& s, unsigned lo, unsigned hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end || errno) throw CollectiveUsage(fmt::format("{} '{}' is not an integer", opt, s));
  if (v < lo || v > hi) throw CollectiveUsage(fmt::format("{} {} is out of range ({}..{})", opt, s, lo, hi));
  return static_cast<unsigned>(v);
}

struct Row {
  std::uint64_t bytes = 0, count = 0;
  collective::Result r;
  double time_us = 0, algbw = 0, busbw = 0, bound_us = 0;
  std::string check;
};

/// --emit: the schedule compiled into programs for a system top's collective cores, with seeded
/// inputs and the reference's results (docs/collectives.md, "Programs for the RTL").
int emit_programs(const collective::Config& c, bool chunk_given, std::uint64_t bytes, const std::string& dir,
                  const std::string& torus, const std::string& sw, int cores_given, const std::string& config,
                  std::uint64_t base) {
  using namespace trn::collective;
  unsigned kx = 0, ky = 0, n_sw = 0;
  char x = 0;
  if (torus.empty() == sw.empty())
    throw CollectiveUsage(
        "--emit: give the top's shape, --torus XxY (4x1, 2x2 or 4x2) or --switch N (8): the system tops");
  if (!torus.empty() && (std::sscanf(torus.c_str(), "%u%c%u", &kx, &x, &ky) != 3 || x != 'x' || kx < 1 || ky < 1 ||
                         kx * ky < 2 || kx * ky > 255))
    throw CollectiveUsage(fmt::format("--torus '{}': want XxY with 2 to 255 chips (4x1, 2x2, 4x2)", torus));
  if (!sw.empty()) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(sw.c_str(), &end, 10);
    if (end == sw.c_str() || *end != '\0' || v < 2 || v > 16)
      throw CollectiveUsage(fmt::format("--switch '{}': want N, 2 to 16 chips on one switch (8)", sw));
    n_sw = static_cast<unsigned>(v);
  }
  const cfg::Config* conf = cfg::find(config);
  if (!conf) throw CollectiveUsage(fmt::format("--config: unknown configuration '{}' (tiny, small, full)", config));
  if (c.algo == Algo::automatic)
    throw CollectiveUsage("--emit: name the algorithm (--algorithm ring, mesh, rdh, hier, rings or hrings)");
  if (base >= (1u << 24)) throw CollectiveUsage(fmt::format("--base {:#x}: beyond a chip's 16 MiB address", base));
  if (n_sw && c.algo == Algo::hier)
    throw Error(
        fmt::format("hier: a switch of {} chips has no second level to run a hierarchical schedule over", n_sw));
  if (n_sw && c.algo == Algo::hrings)
    throw Error(
        fmt::format("hrings: a switch of {} chips has one level of chips (its hierarchies take each level "
                    "in turn as the outer one)",
                    n_sw));
  // the system tops (tb/CMakeLists.txt): the 2 x 2 torus has NeuronCores, the others none
  const unsigned cores = cores_given >= 0     ? static_cast<unsigned>(cores_given)
                         : kx == 2 && ky == 2 ? conf->arch.system_cores_per_chip
                                              : 0;
  const unsigned chips = n_sw ? n_sw : kx * ky;
  const auto prm = n_sw ? system::ChipSwitch::Params::of(conf->arch, cores, n_sw).chip
                        : system::ChipTorus::Params::of(conf->arch, cores, kx, ky).chip;
  const std::string shape =
      n_sw ? fmt::format("a switch of {} chips", n_sw) : fmt::format("a {} torus of {} chips", torus, chips);
  EmitConfig ec;
  ec.op = c.op;
  ec.algo = c.algo;
  ec.elem = c.elem;
  ec.bytes = bytes;
  ec.place = n_sw ? place_torus({n_sw}, c.ranks, c.algo) : place_torus({kx, ky}, c.ranks, c.algo);
  ec.chunk = chunk_given ? c.chunk : 0;  // whole segments unless --chunk says otherwise
  ec.desc_bytes = c.desc_bytes;
  ec.barrier = c.barrier;
  ec.unit = prm.cores;
  ec.queues = prm.core.core.queues;
  ec.base = static_cast<std::uint32_t>(base);
  ec.hbm_bytes = prm.core.core.hbm_bytes;
  const Programs P = emit(ec);
  std::filesystem::create_directories(dir);
  const unsigned n = P.schedule.ranks;
  const auto in = seeded_inputs(P, c.elem, c.seed);
  const auto want =
      reference(c.op, c.algo, c.elem, ec.place.levels, static_cast<unsigned>(P.seg_bytes / elem_bytes(c.elem)), in,
                ec.place.rings, ec.place.stripes);
  std::string man = fmt::format(
      "# trnsim collective --emit: {} by {} of {} B ({}) over {} ranks on {} ({} configuration, "
      "{} NeuronCores a chip)\n# {}\n",
      op_name(c.op), algo_name(c.algo), bytes, elem_name(c.elem), n, shape, config, cores, P.schedule.describe);
  man += fmt::format("unit {}\nbase {:#x}\nsegment_bytes {}\nregion_bytes {}\nregions {}\ninstances {}\n", ec.unit,
                     ec.base, P.seg_bytes, P.region_bytes, P.regions, P.instances);
  man += fmt::format("semaphores {}\ntransfers {}\ndescriptors {}\nflag {:#x}\n", P.semaphores, P.transfers,
                     P.descriptors, P.flag_addr);
  man += "# rank chip program input(at base) output_addr output_bytes expected\n";
  const auto defs = isa::config_defines(conf->arch);
  for (unsigned r = 0; r < n; ++r) {
    const std::string s = fmt::format("{}/rank{}.s", dir, r);
    std::ofstream f(s);
    if (!f || !(f << P.text[r])) throw std::runtime_error(fmt::format("cannot write '{}'", s));
    const isa::Program prog = isa::assemble(P.text[r], s, defs);
    if (prog.streams[core::Control::sync].size() > conf->arch.imem_depth)
      throw Error(fmt::format("--emit: rank {}'s program has {} instructions, the {} instruction memory holds {}", r,
                              prog.streams[core::Control::sync].size(), config, conf->arch.imem_depth));
    isa::write_file(fmt::format("{}/rank{}.bin", dir, r), isa::to_binary(prog));
    isa::write_file(fmt::format("{}/input_rank{}.bin", dir, r), to_bytes(in[r], c.elem));
    isa::write_file(fmt::format("{}/expected_rank{}.bin", dir, r), to_bytes(want[r], c.elem));
    man += fmt::format("rank {} chip {} rank{}.bin input_rank{}.bin {:#x} {} expected_rank{}.bin\n", r,
                       ec.place.chip[r], r, r, P.output_addr(r, ec.base), P.output_bytes(), r);
  }
  const std::string m = dir + "/manifest.txt";
  std::ofstream f(m);
  if (!f || !(f << man)) throw std::runtime_error(fmt::format("cannot write '{}'", m));
  fmt::print(
      "trnsim collective: {} by {} over {} ranks: {} programs, {} semaphores, {} transfers in {} descriptors, in {}\n",
      op_name(c.op), algo_name(c.algo), n, n, P.semaphores, P.transfers, P.descriptors, dir);
  return 0;
}

/// auto's evaluation as a JSON member: per algorithm its time (us) or why it was not run.
std::string candidates_json(const collective::Result& r) {
  if (r.candidates.empty()) return "";
  std::string o = ", \"candidates\": {";
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const collective::Candidate& k = r.candidates[i];
    std::string why;
    for (char ch : k.skipped) why += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    o += fmt::format("{}\"{}\": {}", i ? ", " : "", collective::algo_name(k.algo),
                     k.time_ns > 0 ? fmt::format("{{\"time_us\": {:.4f}}}", k.time_ns / 1e3)
                                   : fmt::format("{{\"skipped\": \"{}\"}}", why));
  }
  return o + "}";
}

/// --compare-published: every published table the presets record ([[system.X.measured]]) run by
/// the model (flow level, timing only), row by row, with the ratio; then per system the largest
/// miss between 1 MiB and 1 GiB and the small-message floor's ratio.
int compare_published(const system::Presets& p, const std::string& only, const collective::Config& base) {
  using namespace trn::collective;
  const bool any = std::any_of(p.systems.begin(), p.systems.end(), [&](const system::SystemPreset& sp) {
    return (only.empty() || sp.key == only) && !sp.measured.empty();
  });
  if (!any)
    throw Error(only.empty() ? std::string("--compare-published: no preset records published measurements")
                             : fmt::format("--compare-published: {} records no published measurements", only));
  fmt::print("# trnsim collective --compare-published: the model (flow level) against published nccom-test tables\n");
  fmt::print(
      "# ratio = model / published time; busbw by the benchmark's factor; fit: the table the cost\n"
      "# parameters were fitted to ([chip.X.collective]), else held out; pub_algo: the algorithm the\n"
      "# published run reported (-: none), which the model runs where it has it (algo), else auto\n");
  fmt::print("{:<11} {:<11} {:>5} {:>11} {:>12} {:>12} {:>7} {:>10} {:>10} {:>9} {:>9}  {}\n", "system", "op", "ranks",
             "size(B)", "published_us", "model_us", "ratio", "pub_busbw", "mod_busbw", "algo", "pub_algo", "table");
  for (const system::SystemPreset& sp : p.systems) {
    if (!only.empty() && sp.key != only) continue;
    if (sp.measured.empty()) continue;
    const system::System sys(p, sp.key);
    double worst = 0;
    std::string floors;  // each table's smallest size against the published
    for (const system::Measured& m : sp.measured) {
      double floor_ratio = 0;
      std::uint64_t floor_size = ~std::uint64_t{0};
      const std::optional<Op> op = parse_op(m.op);
      const std::optional<Elem> el = parse_elem(m.dtype);
      if (!op || !el)
        throw Error(
            fmt::format("system.{}.measured: op '{}' or dtype '{}' the model does not run", sp.key, m.op, m.dtype));
      for (std::size_t k = 0; k < m.rows.size(); ++k) {
        const auto [bytes, us] = m.rows[k];
        const std::string& pub = m.algos[k];
        Config c = base;
        // the published run's algorithm, unless --algorithm names one
        if (const std::optional<Algo> a = parse_algo(pub); a && base.algo == Algo::automatic) c.algo = *a;
        c.op = *op;
        c.elem = *el;
        c.ranks = m.ranks;
        c.bytes = bytes;
        c.data = false;
        c.fidelity = Fidelity::flow;
        Run run(sys, c);
        const Result r = run.run();
        const double model_us = r.time_ns / 1e3, ratio = model_us / us;
        const double f = busbw_factor(*op, m.ranks);
        fmt::print("{:<11} {:<11} {:>5} {:>11} {:>12.2f} {:>12.2f} {:>7.3f} {:>10.2f} {:>10.2f} {:>9} {:>9}  {}\n",
                   sp.key, m.op, m.ranks, bytes, us, model_us, ratio, bytes / (us * 1e3) * f,
                   bytes / (model_us * 1e3) * f, algo_name(r.algo), pub.empty() ? "-" : pub,
                   m.fit ? "fit" : "held out");
        if (bytes >= (1u << 20) && bytes <= (1u << 30)) worst = std::max(worst, std::abs(ratio - 1));
        if (bytes < floor_size) {
          floor_size = bytes;
          floor_ratio = ratio;
        }
      }
      floors += fmt::format("{}{} {} ranks {} B {:.3f} x", floors.empty() ? "" : "; ", m.op, m.ranks, floor_size,
                            floor_ratio);
    }
    fmt::print(
        "# {}: 1 MiB to 1 GiB within {:.1f} % (target 15 %); each table's smallest size (target within "
        "2x): {}\n",
        sp.key, 100 * worst, floors);
  }
  return 0;
}

}  // namespace

int cmd_collective(int argc, char** argv) {
  using namespace trn::collective;
  std::vector<std::string> sets;
  std::string preset, file, json, csv;
  std::uint64_t minb = 8, maxb = 0;
  unsigned factor = 2;
  Config base;
  std::optional<Op> op;
  bool check = false;
  std::string emit_dir, torus, sw, config;
  int cores = -1;
  unsigned threads = 0;
  bool chunk_given = false, compare = false;
  std::uint64_t emit_base = 0x1000;
  for (int i = 2; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw CollectiveUsage(fmt::format("collective: {} needs a value", s));
      return argv[++i];
    };
    if (s == "--preset")
      preset = value();
    else if (s == "--op") {
      const std::string v = value();
      op = parse_op(v);
      if (!op)
        throw CollectiveUsage(
            fmt::format("--op: unknown operation '{}' (all-reduce reduce-scatter all-gather all-to-all permute)", v));
    } else if (s == "-b" || s == "--minbytes")
      minb = parse_size(s, value());
    else if (s == "-e" || s == "--maxbytes")
      maxb = parse_size(s, value());
    else if (s == "-f" || s == "--stepfactor")
      factor = parse_uint(s, value(), 2, 1024);
    else if (s == "--dtype") {
      const std::string v = value();
      const auto e = parse_elem(v);
      if (!e) throw CollectiveUsage(fmt::format("--dtype: unknown type '{}' (fp32 or bf16)", v));
      base.elem = *e;
    } else if (s == "--algorithm") {
      const std::string v = value();
      const auto a = parse_algo(v);
      if (!a)
        throw CollectiveUsage(
            fmt::format("--algorithm: unknown algorithm '{}' (auto ring mesh rdh hier rings kangaring hrings)", v));
      base.algo = *a;
    } else if (s == "--fidelity") {
      const std::string v = value();
      const auto f = parse_fidelity(v);
      if (!f) throw CollectiveUsage(fmt::format("--fidelity: unknown fidelity '{}' (flow or cycle)", v));
      base.fidelity = *f;
    } else if (s == "--ranks")
      base.ranks = parse_uint(s, value(), 2, 1u << 24);
    else if (s == "--lnc")
      base.lnc = parse_uint(s, value(), 1, 2);
    else if (s == "--chip-ranks")
      base.chip_ranks = parse_uint(s, value(), 1, 1024);
    else if (s == "--chunk") {
      base.chunk = parse_size(s, value());
      chunk_given = true;
    } else if (s == "--inflight")
      base.inflight = parse_uint(s, value(), 1, 64);
    else if (s == "--routes")
      base.routes = parse_uint(s, value(), 0, 1024);
    else if (s == "--queue-send") {
      const std::string v = value();
      if (v != "turn" && v != "shared")
        throw CollectiveUsage(fmt::format("--queue-send: '{}' is not turn or shared", v));
      base.queue_fifo = v == "turn";
    } else if (s == "--ordering") {
      const std::string v = value();
      if (v != "strong" && v != "waw") throw CollectiveUsage(fmt::format("--ordering: '{}' is not strong or waw", v));
      base.strong = v == "strong";
    } else if (s == "--desc") {
      const std::uint64_t d = parse_size(s, value());
      if (d < base.pkt_bytes || d % base.pkt_bytes || d > (1u << 30))
        throw CollectiveUsage(fmt::format("--desc {}: a multiple of the {} B packet up to 1G", d, base.pkt_bytes));
      base.desc_bytes = static_cast<std::uint32_t>(d);
    } else if (s == "--jitter") {
      const std::string v = value();
      char* end = nullptr;
      const double j = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(j >= 0 && j <= 1.9))
        throw CollectiveUsage(fmt::format("--jitter '{}': a number from 0 to 1.9", v));
      base.hbm_jitter = j;
    } else if (s == "--barrier")
      base.barrier = true;
    else if (s == "--check")
      check = true;
    else if (s == "--seed")
      base.seed = parse_uint(s, value(), 0, 0xFFFFFFFFu);
    else if (s == "--json")
      json = value();
    else if (s == "--csv")
      csv = value();
    else if (s == "--set")
      sets.push_back(value());
    else if (s == "--presets")
      file = value();
    else if (s == "--emit")
      emit_dir = value();
    else if (s == "--torus")
      torus = value();
    else if (s == "--switch")
      sw = value();
    else if (s == "--cores")
      cores = static_cast<int>(parse_uint(s, value(), 0, 30));
    else if (s == "--config")
      config = value();
    else if (s == "--channels")
      base.channels = parse_uint(s, value(), 1, 30);
    else if (s == "--threads")
      threads = parse_uint(s, value(), 1, 256);
    else if (s == "--last-hop-vc")
      base.last_hop_vc = true;
    else if (s == "--compare-published")
      compare = true;
    else if (s == "--no-fold")
      base.fold = false;
    else if (s == "--no-cost")
      base.cost = false;
    else if (s == "--base")
      emit_base = parse_size(s, value());
    else if (s == "-h" || s == "--help") {
      fmt::print("{}", kCollectiveUsage);
      return 0;
    } else
      throw CollectiveUsage(fmt::format("collective: unexpected argument '{}' (see --help)", s));
  }
  if (compare) {
    const system::Presets p =
        file.empty() ? system::default_presets(sets, preset) : system::load_presets(file, sets, preset);
    if (!preset.empty()) p.system(preset);  // an unknown preset: its error
    return compare_published(p, preset, base);
  }
  if (!op) throw CollectiveUsage("collective: --op OP is required");
  if (!emit_dir.empty()) {
    if (base.channels)
      throw CollectiveUsage("--channels: not with --emit (a system top runs the schedule on one collective core)");
    base.op = *op;
    return emit_programs(base, chunk_given, minb, emit_dir, torus, sw, cores, config.empty() ? "tiny" : config,
                         emit_base);
  }
  if (preset.empty()) throw CollectiveUsage("collective: --preset NAME is required (trnsim system --list)");
  if (maxb == 0) maxb = minb;
  if (minb == 0) throw CollectiveUsage("-b 0: the smallest message is at least one element");
  if (maxb < minb) throw CollectiveUsage(fmt::format("-e {} is smaller than -b {}", maxb, minb));
  const system::Presets p =
      file.empty() ? system::default_presets(sets, preset) : system::load_presets(file, sets, preset);
  const system::System sys(p, preset);
  base.op = *op;
  if (base.channels && base.fidelity != Fidelity::cycle)
    throw CollectiveUsage("--channels: only with --fidelity cycle");
  if (threads && base.fidelity != Fidelity::cycle) throw CollectiveUsage("--threads: only with --fidelity cycle");
  if (base.last_hop_vc && base.fidelity != Fidelity::cycle)
    throw CollectiveUsage("--last-hop-vc: only with --fidelity cycle");
  base.threads = threads ? threads : common::Workers::machine();
  if (!config.empty()) {
    if (base.fidelity != Fidelity::cycle) throw CollectiveUsage("--config: only with --emit or --fidelity cycle");
    if (!cfg::find(config)) throw CollectiveUsage(fmt::format("--config: unknown configuration '{}'", config));
    base.cycle_config = config;
  }
  base.data = check;
  base.stop_on_violation = false;
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = minb; b <= maxb; b *= factor) {
    sizes.push_back(b);
    if (b > maxb / factor) break;
  }
  // every size is checked (the algorithm it gets, the placement, the schedule, the limits) before
  // anything is printed or run
  const unsigned es = elem_bytes(base.elem);
  for (std::uint64_t b : sizes) {
    Config c = base;
    c.bytes = b;
    if (c.algo != Algo::automatic) {
      Run check_only(sys, c);
      continue;
    }
    // auto: some algorithm takes this size (the evaluation itself runs with the sweep)
    std::vector<std::string> why;  // each refusal once (a bad chunk refuses every algorithm alike)
    bool any = false;
    for (Algo a : kAlgos) {
      c.algo = a;
      try {
        Run check_only(sys, c);
        any = true;
        break;
      } catch (const Error& e) {
        if (std::find(why.begin(), why.end(), e.what()) == why.end()) why.emplace_back(e.what());
      }
    }
    if (!any && why.size() == 1) throw Error(why.front());
    if (!any) throw Error(fmt::format("{} B: no algorithm can run ({})", b, fmt::join(why, "; ")));
  }

  std::vector<Row> rows;
  // the result files are rewritten after every row, so an interrupted sweep keeps what it measured
  auto write_files = [&]() {
    auto open = [](const std::string& path) {
      std::ofstream f(path);
      if (!f) throw std::runtime_error(fmt::format("cannot write '{}'", path));
      return f;
    };
    if (!csv.empty()) {
      auto f = open(csv);
      f << "size,count,type,time_us,algbw_gbps,busbw_gbps,algorithm,bound_us,time_over_bound,ranks,preset,fidelity"
        << (check ? ",data" : "") << "\n";
      for (const Row& r : rows)
        f << fmt::format("{},{},{},{:.4f},{:.4f},{:.4f},{},{:.4f},{:.5f},{},{},{}{}\n", r.bytes, r.count,
                         elem_name(base.elem), r.time_us, r.algbw, r.busbw, algo_name(r.r.algo), r.bound_us,
                         r.r.time_ns / r.r.bound_ns(), r.r.ranks, preset, fidelity_name(base.fidelity),
                         check ? "," + r.check : "");
    }
    if (!json.empty()) {
      auto f = open(json);
      f << "{\"preset\": \"" << preset << "\", \"op\": \"" << op_name(*op) << "\", \"type\": \"" << elem_name(base.elem)
        << "\", \"fidelity\": \"" << fidelity_name(base.fidelity) << "\", \"payload_share\": "
        << fmt::format("{:.6f}", static_cast<double>(base.pkt_bytes) / wire_bytes(base.pkt_bytes, base.pkt_bytes))
        << ", \"rows\": [\n";
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        f << fmt::format(
            "  {{\"size\": {}, \"count\": {}, \"time_us\": {:.4f}, \"algbw_gbps\": {:.4f}, \"busbw_gbps\": {:.4f}, "
            "\"algorithm\": \"{}\", \"bound_us\": {:.4f}, \"time_over_bound\": {:.5f}, \"ranks\": {}, \"rounds\": {}, "
            "\"busiest\": \"{}\"{}{}}}{}\n",
            r.bytes, r.count, r.time_us, r.algbw, r.busbw, algo_name(r.r.algo), r.bound_us,
            r.r.time_ns / r.r.bound_ns(), r.r.ranks, r.r.rounds, r.r.busiest,
            (check ? ", \"data\": \"" + r.check + "\"" : "") + candidates_json(r.r),
            base.fidelity == Fidelity::cycle
                ? fmt::format(", \"cycles\": {}, \"flow_us\": {:.4f}, \"cycle_over_flow\": {:.5f}, \"wall_s\": {:.3f}",
                              r.r.cycles, r.r.flow_ns / 1e3, r.r.time_ns / r.r.flow_ns, r.r.wall_s)
                : "",
            i + 1 < rows.size() ? "," : "");
      }
      f << "]}\n";
    }
  };
  write_files();  // an unwritable path fails before anything runs
  const system::ChipGen& gen = *sys.design().gen;
  const unsigned lnc = base.lnc ? base.lnc : gen.lnc;
  const unsigned per_chip = chip_ranks(sys, base);
  const unsigned n =
      place(sys, base.ranks, base.algo == Algo::automatic ? Algo::ring : base.algo, per_chip).chip.size();
  fmt::print("# trnsim collective: {} on {} ({} ranks, {} a chip: {}; {} chips), {}, {} level, {} DMA queues{}\n",
             op_name(*op), preset, n, per_chip,
             base.fidelity == Fidelity::cycle ? "the cycle level's ranks are chips"
                                              : fmt::format("logical NeuronCores of {} cores", lnc),
             sys.chips(), elem_name(base.elem), fidelity_name(base.fidelity),
             base.strong ? "strong-order-write" : "write-after-write", base.barrier ? " with barriers" : "");
  fmt::print("# GB/s = 10^9 bytes/s; busbw = algbw x {}; bound = alpha-beta (docs/collectives.md)\n",
             *op == Op::all_reduce ? "2(n-1)/n"
             : *op == Op::permute  ? "1"
                                   : "(n-1)/n");
  const bool cyc = base.fidelity == Fidelity::cycle;
  fmt::print("{:>12} {:>12} {:>5} {:>12} {:>9} {:>9} {:>9} {:>12} {:>10}{}{}\n", "size(B)", "count", "type", "time(us)",
             "algbw", "busbw", "algo", "bound(us)", "time/bound",
             cyc ? fmt::format(" {:>12} {:>10} {:>8}", "flow(us)", "cycle/flow", "wall(s)") : "",
             check ? "  data" : "");
  int status = 0;
  const auto t_all = std::chrono::steady_clock::now();
  bool progressed = false;
  for (std::uint64_t b : sizes) {
    Config c = base;
    c.bytes = b;
    c.progress = [&](const std::string& m) {
      fmt::print(stderr, "\r  {} B: {}   ", b, m);
      std::fflush(stderr);
      progressed = true;
    };
    Run run(sys, c);
    std::vector<std::vector<std::uint32_t>> in;
    if (check) {
      run.fill(c.seed);
      for (unsigned r = 0; r < run.ranks(); ++r) in.push_back(run.input(r));
    }
    Row row;
    row.bytes = b;
    row.count = b / es;
    row.r = run.run();
    if (progressed) {
      fmt::print(stderr, "\r{:60}\r", "");
      progressed = false;
    }
    row.time_us = row.r.time_ns / 1e3;
    row.algbw = static_cast<double>(b) / row.r.time_ns;
    row.busbw = row.algbw * busbw_factor(*op, row.r.ranks);
    row.bound_us = row.r.bound_ns() / 1e3;
    if (check) {
      const auto want = reference(*op, row.r.algo, c.elem, run.placement().levels, run.seg_elems(), in,
                                  run.placement().rings, run.placement().stripes);
      bool ok = row.r.violations.empty();
      for (unsigned r = 0; r < run.ranks() && ok; ++r) ok = run.output(r) == want[r];
      row.check = ok ? "ok" : row.r.violations.empty() ? "WRONG" : "ORDER";
      if (!ok) status = 1;
    }
    fmt::print("{:>12} {:>12} {:>5} {:>12.2f} {:>9.2f} {:>9.2f} {:>9} {:>12.2f} {:>10.3f}{}{}\n", b, row.count,
               elem_name(c.elem), row.time_us, row.algbw, row.busbw, algo_name(row.r.algo), row.bound_us,
               row.r.time_ns / row.r.bound_ns(),
               cyc ? fmt::format(" {:>12.2f} {:>10.3f} {:>8.1f}", row.r.flow_ns / 1e3, row.r.time_ns / row.r.flow_ns,
                                 row.r.wall_s)
                   : "",
               check ? "  " + row.check : "");
    std::fflush(stdout);
    for (const Violation& v : row.r.violations) fmt::print(stderr, "trnsim: ordering violation: {}\n", v.str());
    if (!row.r.violations.empty()) status = 1;
    rows.push_back(std::move(row));
    write_files();
  }
  if (!rows.empty()) {
    const Result& r = rows.back().r;
    fmt::print(
        "# {} ranks; {}{}; {} rounds; last size: {} instances of {} B a segment, {} transfers in {} DMA "
        "descriptors, busiest {}\n",
        r.ranks, r.describe, r.level.empty() ? "" : fmt::format(" (groups: {})", r.level), r.rounds, r.instances,
        r.chunk_bytes, r.transfers, r.descriptors, r.busiest);
    if (cyc)
      fmt::print("# cycle level: {}; last size: {} cycles, {} bit errors, {} replays\n", r.cycle_system, r.cycles,
                 r.flips, r.replays);
    fmt::print("# wall time {:.2f} s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count());
  }
  return status;
}

}  // namespace trn::tools
