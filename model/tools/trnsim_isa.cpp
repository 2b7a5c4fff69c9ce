// trnsim asm / disasm / run: the NeuronCore assembler and disassembler (docs/isa.md), and a
// program on the NeuronCore model alone.
//
//   trnsim asm kernels/gemm.s -o gemm.bin [--config small] [-D NAME=VALUE]...
//   trnsim disasm gemm.bin [-o gemm.s]
//   trnsim run gemm.bin --config small [--hbm data.bin@0x0] [--dump 0x8000:4096@out.bin] [--trace t.json]
//   trnsim kernel gemm --config full [-D NT=8] [--seed 3] [--trace t.json]
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/program_runner.hpp"
#include "core/roofline.hpp"
#include "core/timeline.hpp"
#include "isa/isa.hpp"
#include "kernels/kernels.hpp"

namespace trn::tools {

namespace {

constexpr const char* kAsmUsage = R"(usage: trnsim asm FILE.s -o FILE.bin [--config tiny|small|full] [-D NAME=VALUE]...
       trnsim disasm FILE.bin [-o FILE.s]

asm      assemble a NeuronCore program (docs/isa.md): four instruction streams (.stream tensor,
         vector, scalar, sync), labels, named semaphores (.sem), constants (.const, .set), loops
         (.for VAR = FIRST, LIMIT [, STEP] ... .endfor) and conditions (.if ... .else ... .endif)
         unrolled as it assembles, and run-time ones on each stream's registers r0-r15
         (reg_set, reg_add, reg_mul, branch, loop; fields such as a=sbuf:r2+64:bf16 add one).
         --config NAME  predefine the configuration's constants (PARTS, COLS, SBUF_BYTES, SBUF_BANKS,
                        PSUM_BANKS, PSUM_BANK_BYTES, MAX_N, QUEUES, HBM_BYTES, IMEM_DEPTH,
                        SEMS, DMA_ENGINES); default tiny
         -D NAME=VALUE  define a constant (repeatable)
         Errors: FILE:LINE:COLUMN: error: what was expected; exit status 2.
disasm   print a program as assembly that assembles back to the same binary (-o: to a file).
)";

constexpr const char* kRunUsage = R"(usage: trnsim run FILE.bin|FILE.s [options]

Run a NeuronCore program on the model alone (no RTL): load it, start, step until every stream has
ended and nothing is in flight, or the core stops on an error. A .s file is assembled first.
  --config NAME        tiny, small or full (default tiny); its constants for a .s file
  -D NAME=VALUE        a constant for a .s file (repeatable)
  --seed N             seed of the HBM model's latencies (default 1)
  --hbm FILE@ADDR      load FILE's bytes into HBM at ADDR before the run (repeatable)
  --gpsimd FILE@ADDR   load FILE's bytes (a GpSimd operator image, e.g. build/gpsimd/<config>/NAME.bin)
                       into every GpSimd processor's local memory at ADDR before the run (repeatable);
                       the gpsimd stream's gpsimd_run starts it (docs/gpsimd.md)
  --dump ADDR:LEN[@FILE]  after the run, HBM bytes [ADDR, ADDR+LEN) to FILE, or in hex to stdout
  --trace FILE.json    the engine timeline (Chrome/Perfetto trace-event JSON); also TRACE=FILE.json
  --limit N            stop after N cycles (default 50000000)
  --waw                write-after-write DMA ordering (default strong-order-write)
Prints the cycles, per-stream figures and the semaphores that are not 0. Exit status: 0 done, 1 stopped on an error or the
limit, 2 bad input.
)";

constexpr const char* kKernelUsage = R"(usage: trnsim kernel NAME [options]
       trnsim kernel --list
       trnsim kernel --roofline [--config NAME] [--seed N]

Run a kernel of kernels/ (docs/kernels.md) on the model alone with fresh data from its generator,
and check it: every output byte against the reference that follows the kernel's order of
operations, every output element within its stated bound of a double-precision reference, and
every semaphore at its final count.
  --config NAME        tiny, small or full (default tiny)
  -D NAME=VALUE        one of the kernel's sizes (its .default constants; repeatable)
  --seed N             seed of the data and of the HBM model's latencies (default 1)
  --trace FILE.json    the engine timeline (Chrome/Perfetto trace-event JSON); also TRACE=FILE.json
  --limit N            stop after N cycles (default 50000000)
  --roofline           also print the roofline: per resource (TE, VE, ACT, DMA, HBM) its busy
                       share and the cycles its work needs at its peak, the largest of which is the
                       bound, and the run against it (docs/kernels.md); with no NAME, every kernel
                       at its default sizes, one table row each
Prints the cycles, the tensor engine's utilization (multiply-accumulates over rows x columns x
cycles), and per stream the instructions issued and the cycles active, waiting on a semaphore,
waiting for its unit and refused by SBUF. Exit status: 0 pass, 1 a wrong result or a core error,
2 bad input.
)";

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The value of option `opt`, a non-negative integer (decimal or 0x...), or Usage.
std::uint64_t integer(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 0);
  if (v.empty() || *end || errno || v[0] == '-')
    throw Usage(fmt::format("{}: '{}' is not a non-negative integer", opt, v));
  return x;
}

/// A loaded program's run: its result and the wall time it took.
struct Observed {
  core::RunResult r;
  double sec = 0;
  /// "(S s, R cycles/s)"
  std::string speed() const {
    return fmt::format("({:.2f} s, {:.0f} cycles/s)", sec, static_cast<double>(r.cycles) / std::max(sec, 1e-9));
  }
};

/// Run the loaded program to its end or `limit` cycles; the timeline observes every cycle (and is
/// finished; so is the roofline's when given), and a progress line goes to stderr every two seconds
/// or so.
Observed run_observed(core::ProgramRunner& run, core::Timeline& tl, const char* who, std::uint64_t limit,
                      core::Roofline* roof = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  run.on_cycle = [&tl, roof, last, who](const core::NeuronCore& nc, const core::NeuronCore::Out& o,
                                        std::uint64_t cyc) mutable {
    tl.observe(nc, o, cyc);
    if (roof) roof->observe(nc, o, cyc);
    if ((cyc & 0xFFFF) == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::seconds(2)) {
        last = now;
        fmt::print(stderr, "{}: cycle {} ...\n", who, cyc);
      }
    }
  };
  Observed ob;
  ob.r = run.run(limit);
  tl.finish(run.cycle());
  ob.sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ob;
}

/// --trace FILE: the timeline as trace-event JSON (nothing when path is empty).
void write_trace(const core::Timeline& tl, const std::string& path, const std::string& title) {
  if (path.empty()) return;
  tl.write_json(path, title);
  fmt::print("timeline: {} ({} slices)\n", path, tl.slices().size());
}

/// Per stream: instructions issued, cycles active, waiting on a semaphore, for the unit, for SBUF.
void print_counts(const core::Timeline& tl) {
  fmt::print("{:<8} {:>8} {:>10} {:>10} {:>10} {:>10}\n", "stream", "issued", "active", "sem wait", "unit busy",
             "sbuf wait");
  for (unsigned s = 0; s < core::Control::kStreams; ++s) {
    const auto& n = tl.counts()[s];
    fmt::print("{:<8} {:>8} {:>10} {:>10} {:>10} {:>10}\n", isa::tbl::kStreamNames[s], n.issued, n.active, n.wait,
               n.busy, n.sbuf);
  }
}

/// -D NAME=VALUE
void add_define(std::map<std::string, std::int64_t>& defines, const std::string& d) {
  const auto eq = d.find('=');
  if (eq == std::string::npos || eq == 0) throw Usage(fmt::format("-D {}: expected NAME=VALUE", d));
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(d.c_str() + eq + 1, &end, 0);
  if (*end || errno || eq + 1 == d.size())
    throw Usage(fmt::format("-D {}: '{}' is not an integer", d, d.substr(eq + 1)));
  defines[d.substr(0, eq)] = v;
}

}  // namespace

/// The options `trnsim run` and `trnsim kernel` share.
struct RunOptions {
  std::string config = "tiny", trace, target;  ///< target: the program file, or the kernel's name
  std::map<std::string, std::int64_t> defines;
  std::uint64_t seed = 1, limit = 50'000'000;
  const cfg::Config* cfg = nullptr;
};
enum class Took { no, yes, exit };
/// A command's own option: `opt`, with `value()` taking the next argument. Took::exit ends the
/// command with status 0 (--help, --list).
using ExtraOption = std::function<Took(const std::string& opt, const std::function<std::string()>& value)>;

/// The shared options (--config, --seed, --limit, --trace or TRACE=, -D) and one positional
/// argument; nullopt when an option ended the command. Throws Usage naming a bad option or value.
std::optional<RunOptions> parse_run_options(int argc, char** argv, const char* cmd, const char* usage, const char* what,
                                            const ExtraOption& extra) {
  RunOptions o;
  if (const char* t = std::getenv("TRACE")) o.trace = t;
  for (int i = 2; i < argc; ++i) {
    const std::string s = argv[i];
    const std::function<std::string()> value = [&]() -> std::string {
      if (i + 1 >= argc) throw Usage(fmt::format("{} needs a value", s));
      return argv[++i];
    };
    if (s == "-h" || s == "--help") {
      fmt::print("{}", usage);
      return std::nullopt;
    } else if (s == "--config") {
      o.config = value();
    } else if (s == "--seed") {
      o.seed = integer(s, value());
    } else if (s == "--limit") {
      o.limit = integer(s, value());
    } else if (s == "--trace") {
      o.trace = value();
    } else if (s.rfind("-D", 0) == 0) {
      add_define(o.defines, s.size() > 2 ? s.substr(2) : value());
    } else if (const Took t = extra(s, value); t == Took::exit) {
      return std::nullopt;
    } else if (t == Took::yes) {
      continue;
    } else if (!s.empty() && s[0] == '-') {
      throw Usage(fmt::format("{}: unknown option '{}' (see trnsim {} --help)", cmd, s, cmd));
    } else if (o.target.empty()) {
      o.target = s;
    } else {
      throw Usage(fmt::format("{}: more than one {} ('{}', '{}')", cmd, what, o.target, s));
    }
  }
  o.cfg = cfg::find(o.config);
  if (!o.cfg) throw Usage(fmt::format("--config: unknown configuration '{}' (tiny, small, full)", o.config));
  return o;
}

int cmd_asm(int argc, char** argv) {
  try {
    const std::string cmd = argv[1];
    std::string in, out, config = "tiny";
    std::map<std::string, std::int64_t> defines;
    for (int i = 2; i < argc; ++i) {
      const std::string s = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Usage(fmt::format("{} needs a value", s));
        return argv[++i];
      };
      if (s == "-h" || s == "--help") {
        fmt::print("{}", kAsmUsage);
        return 0;
      } else if (s == "-o") {
        out = value();
      } else if (s == "--config" && cmd == "asm") {
        config = value();
      } else if (s.rfind("-D", 0) == 0 && cmd == "asm") {
        add_define(defines, s.size() > 2 ? s.substr(2) : value());
      } else if (!s.empty() && s[0] == '-') {
        throw Usage(fmt::format("{}: unknown option '{}' (see trnsim {} --help)", cmd, s, cmd));
      } else if (in.empty()) {
        in = s;
      } else {
        throw Usage(fmt::format("{}: more than one input file ('{}', '{}')", cmd, in, s));
      }
    }
    if (in.empty()) throw Usage(fmt::format("{}: no input file (see trnsim {} --help)", cmd, cmd));
    if (cmd == "asm") {
      if (out.empty()) throw Usage("asm: no output file (-o FILE.bin)");
      const cfg::Config* c = cfg::find(config);
      if (!c) throw Usage(fmt::format("--config: unknown configuration '{}' (tiny, small, full)", config));
      auto all = isa::config_defines(c->arch);
      for (const auto& [k, v] : defines) all[k] = v;
      const isa::Program p = isa::assemble(isa::read_text(in), in, all);
      isa::write_file(out, isa::to_binary(p));
      std::size_t n = 0;
      for (const auto& s : p.streams) n += s.size();
      fmt::print(stderr, "trnsim asm: {}: {} instructions ({} bytes) -> {}\n", in, n, n * isa::tbl::kInstBytes, out);
      return 0;
    }
    const isa::Program p = isa::from_binary(isa::read_file(in), in);
    const std::string text = isa::disassemble(p);
    if (out.empty()) {
      fmt::print("{}", text);
    } else {
      std::ofstream f(out);
      if (!f) throw isa::Error(fmt::format("{}: cannot write", out));
      f << text;
    }
    return 0;
  } catch (const Usage& e) {
    fmt::print(stderr, "trnsim: error: {}\n", e.what());
    return 2;
  } catch (const isa::Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
}

int cmd_run(int argc, char** argv) {
  try {
    std::vector<std::pair<std::string, std::uint32_t>> loads, gp_loads;
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::string>> dumps;
    bool strong = true;
    const auto opts =
        parse_run_options(argc, argv, "run", kRunUsage, "program", [&](const std::string& s, const auto& value) {
          if (s == "--waw") {
            strong = false;
          } else if (s == "--hbm") {
            const std::string v = value();
            const auto at = v.rfind('@');
            if (at == std::string::npos || at == 0) throw Usage(fmt::format("--hbm {}: expected FILE@ADDR", v));
            loads.emplace_back(v.substr(0, at), static_cast<std::uint32_t>(integer("--hbm", v.substr(at + 1))));
          } else if (s == "--gpsimd") {
            const std::string v = value();
            const auto at = v.rfind('@');
            if (at == std::string::npos || at == 0) throw Usage(fmt::format("--gpsimd {}: expected FILE@ADDR", v));
            gp_loads.emplace_back(v.substr(0, at), static_cast<std::uint32_t>(integer("--gpsimd", v.substr(at + 1))));
          } else if (s == "--dump") {
            const std::string v = value();
            const auto colon = v.find(':');
            const auto at = v.find('@');
            if (colon == std::string::npos) throw Usage(fmt::format("--dump {}: expected ADDR:LEN[@FILE]", v));
            const std::string len = v.substr(colon + 1, at == std::string::npos ? std::string::npos : at - colon - 1);
            dumps.emplace_back(static_cast<std::uint32_t>(integer("--dump", v.substr(0, colon))),
                               static_cast<std::uint32_t>(integer("--dump", len)),
                               at == std::string::npos ? "" : v.substr(at + 1));
          } else {
            return Took::no;
          }
          return Took::yes;
        });
    if (!opts) return 0;
    const std::string& in = opts->target;
    const std::string& config = opts->config;
    const std::string& trace = opts->trace;
    const cfg::Config* c = opts->cfg;
    if (in.empty()) throw Usage("run: no program (see trnsim run --help)");
    isa::Program p;
    if (in.size() > 2 && in.substr(in.size() - 2) == ".s") {
      auto all = isa::config_defines(c->arch);
      for (const auto& [k, v] : opts->defines) all[k] = v;
      p = isa::assemble(isa::read_text(in), in, all);
    } else {
      p = isa::from_binary(isa::read_file(in), in);
    }
    const core::NeuronCore::Params prm = core::NeuronCore::Params::of(c->arch);
    core::ProgramRunner run(prm, dma::MemSystem::Params{}, opts->seed, strong);
    auto& hbm = run.hbm().image().hbm;
    for (const auto& [file, addr] : loads) {
      const auto bytes = isa::read_file(file);
      if (addr + bytes.size() > hbm.size())
        throw Usage(
            fmt::format("--hbm {}@{:#x}: {} bytes do not fit in HBM ({} bytes)", file, addr, bytes.size(), hbm.size()));
      std::copy(bytes.begin(), bytes.end(), hbm.begin() + addr);
    }
    for (const auto& [addr, len, file] : dumps)
      if (static_cast<std::uint64_t>(addr) + len > hbm.size())
        throw Usage(fmt::format("--dump {:#x}:{}: outside HBM ({} bytes)", addr, len, hbm.size()));
    for (const auto& [file, addr] : gp_loads) {
      try {
        run.load_gpsimd(-1, addr, isa::read_file(file));
      } catch (const std::invalid_argument& e) {
        throw Usage(fmt::format("--gpsimd {}@{:#x}: {}", file, addr, e.what()));
      }
    }
    run.load(p);
    core::Timeline tl(p, prm.core.queues, prm.core.dma_engines);
    const Observed ob = run_observed(run, tl, "trnsim run", opts->limit);
    const core::RunResult& r = ob.r;
    fmt::print("{}: {} in {} cycles {}, configuration {}\n", in, r.ok ? "done" : "stopped", r.cycles, ob.speed(),
               config);
    if (!r.ok) fmt::print("{}\n", r.what);
    print_counts(tl);
    // the semaphores that are not zero, by name
    std::string sems;
    for (unsigned i = 0; i < core::Control::kSems; ++i) {
      const std::uint32_t v = run.out().sem_o[i];
      if (!v) continue;
      const auto it = p.sem_names.find(i);
      sems += fmt::format(" {}={}", it != p.sem_names.end() ? it->second : fmt::format("{}", i), v);
    }
    fmt::print("semaphores:{}\n", sems.empty() ? " all 0" : sems);
    write_trace(tl, trace, fmt::format("NeuronCore ({}) {}", config, in));
    for (const auto& [addr, len, file] : dumps) {
      if (file.empty()) {
        for (std::uint32_t i = 0; i < len; ++i)
          fmt::print("{:02x}{}", hbm[addr + i], (i % 32 == 31 || i + 1 == len) ? "\n" : " ");
      } else {
        isa::write_file(file, std::vector<std::uint8_t>(hbm.begin() + addr, hbm.begin() + addr + len));
      }
    }
    return r.ok ? 0 : 1;
  } catch (const Usage& e) {
    fmt::print(stderr, "trnsim: error: {}\n", e.what());
    return 2;
  } catch (const isa::Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
}

namespace {

/// One kernel run on the model: the result's checks and figures printed (quiet: none), the exit
/// status (0 pass, 1 a wrong result or a core error) and the roofline's counts.
struct KernelRun {
  int rc = 0;
  std::uint64_t cycles = 0;
  core::Roofline roof;
};

KernelRun run_kernel(const kernels::Kernel& k, const cfg::Config& c, const std::string& config, std::uint64_t seed,
                     const std::map<std::string, std::int64_t>& defines, std::uint64_t limit, const std::string& trace,
                     bool quiet) {
  kernels::Case kc;
  try {
    kc = k.make(c.arch, seed, defines);
  } catch (const std::invalid_argument& e) {
    throw Usage(e.what());
  }
  const isa::Program p = kernels::assemble(k, kc, c.arch);
  const core::NeuronCore::Params prm = core::NeuronCore::Params::of(c.arch);
  core::ProgramRunner run(prm, dma::MemSystem::Params{}, seed, true);
  auto& hbm = run.hbm().image().hbm;
  for (const auto& in : kc.inputs) std::copy(in.bytes.begin(), in.bytes.end(), hbm.begin() + in.addr);
  run.load(p);
  core::Timeline tl(p, prm.core.queues, prm.core.dma_engines);
  KernelRun kr{0, 0, core::Roofline(prm)};
  const Observed ob = run_observed(run, tl, "trnsim kernel", limit, &kr.roof);
  const core::RunResult& r = ob.r;
  kr.cycles = r.cycles;
  std::string sz;
  for (const auto& [n, v] : kc.defines) sz += fmt::format(" {}={}", n, v);
  const auto say = [&](const std::string& line) {
    if (!quiet) fmt::print("{}", line);
  };
  say(fmt::format("kernel {} ({}{}): {} in {} cycles {}\n", k.name, config, sz, r.ok ? "done" : "stopped", r.cycles,
                  ob.speed()));
  if (!r.ok) {
    fmt::print("{}{}\n", quiet ? fmt::format("kernel {}: ", k.name) : "", r.what);
    kr.rc = 1;
  } else {
    const std::string diff = kernels::compare(kc, hbm);
    const kernels::Accuracy acc = kernels::accuracy(kc, hbm);
    std::string sems;
    for (const auto& [s, v] : kc.sems)
      if (run.out().sem_o[s] != v) sems += fmt::format(" semaphore {} is {}, expected {};", s, run.out().sem_o[s], v);
    say(fmt::format("reference (kernel's order): {}\n", diff.empty() ? "bit-exact" : "DIFFERS\n" + diff));
    if (!kc.bounds.empty())
      say(fmt::format("double precision: {} (worst error {:.3f} of its bound: {})\n",
                      acc.fail.empty() ? "within bound" : "OUTSIDE\n" + acc.fail, acc.worst, kc.bounds[0].rule));
    if (!sems.empty()) say(fmt::format("semaphores:{}\n", sems));
    kr.rc = diff.empty() && acc.fail.empty() && sems.empty() ? 0 : 1;
    if (quiet && kr.rc != 0) fmt::print("kernel {}: the result differs from its references\n", k.name);
  }
  if (quiet) return kr;
  if (kc.macs) {
    // at the kernel's type's rate: K-rows a PE a cycle (docs/tensor.md, Rates)
    const double peak = static_cast<double>(c.arch.partitions) * c.arch.te_cols * kc.te_rate;
    fmt::print("tensor engine utilization: {:.1f} % ({} multiply-accumulates, {:.0f} cycles at {} x {}{})\n",
               100.0 * static_cast<double>(kc.macs) / peak / static_cast<double>(std::max<std::uint64_t>(r.cycles, 1)),
               kc.macs, static_cast<double>(kc.macs) / peak, c.arch.partitions, c.arch.te_cols,
               kc.te_rate > 1 ? fmt::format(" x {} rows a PE", kc.te_rate) : std::string{});
  }
  // the matmul initiation interval: the median gap between consecutive MultiplyMoving issues of
  // one N (SPEC 2: max(N, 64) on a NeuronCore)
  {
    std::vector<std::uint64_t> starts;
    unsigned mm_n = 0;
    bool one_n = true;
    for (const auto& sl : tl.slices())
      if (sl.cat == "inst" && sl.stream == 0 && sl.name == "multiply_moving") {
        const auto n = static_cast<unsigned>(isa::get(p.streams[0][sl.pc], isa::tbl::kF_n));
        if (!isa::get(p.streams[0][sl.pc], isa::tbl::kF_tr)) {
          // (an N from a register is known only as it issues: no figure then)
          one_n = one_n && (starts.empty() || n == mm_n) && !isa::get(p.streams[0][sl.pc], isa::tbl::kF_n_r);
          mm_n = n;
          starts.push_back(sl.begin);
        }
      }
    if (starts.size() > 2 && one_n) {
      std::sort(starts.begin(), starts.end());
      std::vector<std::uint64_t> gaps;
      for (std::size_t i = 1; i < starts.size(); ++i) gaps.push_back(starts[i] - starts[i - 1]);
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
      fmt::print(
          "matmul initiation interval: median {} cycles over {} multiplies of N = {} (SPEC 2: max(N, 64) = {})\n",
          gaps[gaps.size() / 2], starts.size(), mm_n, std::max(mm_n, 64u));
    }
  }
  print_counts(tl);
  write_trace(tl, trace, fmt::format("NeuronCore ({}) kernel {}", config, k.name));
  return kr;
}

}  // namespace

int cmd_kernel(int argc, char** argv) {
  try {
    bool roofline = false;
    const auto opts =
        parse_run_options(argc, argv, "kernel", kKernelUsage, "kernel", [&](const std::string& s, const auto&) {
          if (s == "--roofline") {
            roofline = true;
            return Took::yes;
          }
          if (s != "--list") return Took::no;
          for (const auto& k : kernels::all()) fmt::print("{:<10} kernels/{:<12} {}\n", k.name, k.file, k.doc);
          return Took::exit;
        });
    if (!opts) return 0;
    const std::string& name = opts->target;
    const cfg::Config* c = opts->cfg;
    if (name.empty() && roofline) {  // every kernel at its default sizes: one row each
      if (!opts->defines.empty()) throw Usage("kernel --roofline: -D needs a kernel named (sizes are per kernel)");
      fmt::print(
          "roofline, configuration {}: per resource its busy share of the run; bound: the resource whose\n"
          "work at its peak takes longest, and those cycles; run / bound: the run's cycles over them\n",
          opts->config);
      fmt::print("{:<10} {:>10}  {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {:<5} {:>10}  {:>11}\n", "kernel", "cycles", "TE",
                 "VE", "ACT", "PSUM", "DMA", "HBM", "bound", "cycles", "run / bound");
      int rc = 0;
      for (const auto& k : kernels::all()) {
        fmt::print(stderr, "trnsim kernel --roofline: {} ...\n", k.name);
        const KernelRun kr = run_kernel(k, *c, opts->config, opts->seed, {}, opts->limit, "", true);
        rc = std::max(rc, kr.rc);
        const auto& f = kr.roof;
        const double run = static_cast<double>(std::max<std::uint64_t>(f.cycles(), 1));
        const auto share = [&](core::Roofline::Resource r) { return 100.0 * static_cast<double>(f.busy(r)) / run; };
        const auto b = f.bound();
        fmt::print(
            "{:<10} {:>10}  {:5.1f}% {:5.1f}% {:5.1f}% {:5.1f}% {:5.1f}% {:5.1f}%  {:<5} {:>10.0f}  {:>11.2f}{}\n",
            k.name, f.cycles(), share(core::Roofline::kTe), share(core::Roofline::kVe), share(core::Roofline::kAct),
            share(core::Roofline::kPsum), share(core::Roofline::kDma), share(core::Roofline::kHbm),
            core::Roofline::kNames[b], f.work(b), run / std::max(f.work(b), 1.0), kr.rc == 0 ? "" : "  FAIL");
      }
      fmt::print("{}\n", rc == 0 ? "PASS" : "FAIL");
      return rc;
    }
    if (name.empty()) throw Usage("kernel: no kernel named (trnsim kernel --list)");
    const kernels::Kernel* k = kernels::find(name);
    if (!k) throw Usage(fmt::format("kernel: unknown kernel '{}' (trnsim kernel --list)", name));
    const KernelRun kr = run_kernel(*k, *c, opts->config, opts->seed, opts->defines, opts->limit, opts->trace, false);
    if (roofline) fmt::print("{}", kr.roof.report());
    fmt::print("{}\n", kr.rc == 0 ? "PASS" : "FAIL");
    return kr.rc;
  } catch (const Usage& e) {
    fmt::print(stderr, "trnsim: error: {}\n", e.what());
    return 2;
  } catch (const isa::Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
}

}  // namespace trn::tools
