// trnsim asm / disasm / run: the NeuronCore assembler and disassembler (docs/isa.md), and a
// program on the NeuronCore model alone.
//
//   trnsim asm kernels/gemm.s -o gemm.bin [--config small] [-D NAME=VALUE]...
//   trnsim disasm gemm.bin [-o gemm.s]
//   trnsim run gemm.bin --config small [--hbm data.bin@0x0] [--dump 0x8000:4096@out.bin] [--trace t.json]
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>
#include <vector>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/program_runner.hpp"
#include "core/timeline.hpp"
#include "isa/isa.hpp"

namespace trn::tools {

namespace {

constexpr const char* kAsmUsage = R"(usage: trnsim asm FILE.s -o FILE.bin [--config tiny|small|full] [-D NAME=VALUE]...
       trnsim disasm FILE.bin [-o FILE.s]

asm      assemble a NeuronCore program (docs/isa.md): four instruction streams (.stream tensor,
         vector, scalar, sync), labels, named semaphores (.sem), constants (.const, .set), loops
         (.for VAR = FIRST, LIMIT [, STEP] ... .endfor) and conditions (.if ... .else ... .endif).
         --config NAME  predefine the configuration's constants (PARTS, COLS, SBUF_BYTES, SBUF_BANKS,
                        PSUM_BANKS, PSUM_BANK_BYTES, MAX_N, QUEUES, HBM_BYTES, SEMS); default tiny
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
  --dump ADDR:LEN[@FILE]  after the run, HBM bytes [ADDR, ADDR+LEN) to FILE, or in hex to stdout
  --trace FILE.json    the engine timeline (Chrome/Perfetto trace-event JSON); also TRACE=FILE.json
  --limit N            stop after N cycles (default 50000000)
  --waw                write-after-write DMA ordering (default strong-order-write)
Prints the cycles and per-stream figures. Exit status: 0 done, 1 stopped on an error or the
limit, 2 bad input.
)";

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw isa::Error(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// -D NAME=VALUE
void add_define(std::map<std::string, std::int64_t>& defines, const std::string& d) {
  const auto eq = d.find('=');
  if (eq == std::string::npos || eq == 0) throw Usage(fmt::format("-D {}: expected NAME=VALUE", d));
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(d.c_str() + eq + 1, &end, 0);
  if (*end || errno || eq + 1 == d.size()) throw Usage(fmt::format("-D {}: '{}' is not an integer", d, d.substr(eq + 1)));
  defines[d.substr(0, eq)] = v;
}

}  // namespace

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
      const isa::Program p = isa::assemble(read_text(in), in, all);
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
    std::string in, config = "tiny", trace;
    if (const char* t = std::getenv("TRACE")) trace = t;
    std::map<std::string, std::int64_t> defines;
    std::vector<std::pair<std::string, std::uint32_t>> loads;
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::string>> dumps;
    std::uint64_t seed = 1, limit = 50'000'000;
    bool strong = true;
    auto integer = [](const std::string& opt, const std::string& v) -> std::uint64_t {
      char* end = nullptr;
      errno = 0;
      const unsigned long long x = std::strtoull(v.c_str(), &end, 0);
      if (v.empty() || *end || errno || v[0] == '-') throw Usage(fmt::format("{}: '{}' is not a non-negative integer", opt, v));
      return x;
    };
    for (int i = 2; i < argc; ++i) {
      const std::string s = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Usage(fmt::format("{} needs a value", s));
        return argv[++i];
      };
      if (s == "-h" || s == "--help") {
        fmt::print("{}", kRunUsage);
        return 0;
      } else if (s == "--config") {
        config = value();
      } else if (s == "--seed") {
        seed = integer(s, value());
      } else if (s == "--limit") {
        limit = integer(s, value());
      } else if (s == "--trace") {
        trace = value();
      } else if (s == "--waw") {
        strong = false;
      } else if (s == "--hbm") {
        const std::string v = value();
        const auto at = v.rfind('@');
        if (at == std::string::npos || at == 0) throw Usage(fmt::format("--hbm {}: expected FILE@ADDR", v));
        loads.emplace_back(v.substr(0, at), static_cast<std::uint32_t>(integer("--hbm", v.substr(at + 1))));
      } else if (s == "--dump") {
        const std::string v = value();
        const auto colon = v.find(':');
        const auto at = v.find('@');
        if (colon == std::string::npos) throw Usage(fmt::format("--dump {}: expected ADDR:LEN[@FILE]", v));
        const std::string len = v.substr(colon + 1, at == std::string::npos ? std::string::npos : at - colon - 1);
        dumps.emplace_back(static_cast<std::uint32_t>(integer("--dump", v.substr(0, colon))),
                           static_cast<std::uint32_t>(integer("--dump", len)), at == std::string::npos ? "" : v.substr(at + 1));
      } else if (s.rfind("-D", 0) == 0) {
        add_define(defines, s.size() > 2 ? s.substr(2) : value());
      } else if (!s.empty() && s[0] == '-') {
        throw Usage(fmt::format("run: unknown option '{}' (see trnsim run --help)", s));
      } else if (in.empty()) {
        in = s;
      } else {
        throw Usage(fmt::format("run: more than one program ('{}', '{}')", in, s));
      }
    }
    if (in.empty()) throw Usage("run: no program (see trnsim run --help)");
    const cfg::Config* c = cfg::find(config);
    if (!c) throw Usage(fmt::format("--config: unknown configuration '{}' (tiny, small, full)", config));
    isa::Program p;
    if (in.size() > 2 && in.substr(in.size() - 2) == ".s") {
      auto all = isa::config_defines(c->arch);
      for (const auto& [k, v] : defines) all[k] = v;
      p = isa::assemble(read_text(in), in, all);
    } else {
      p = isa::from_binary(isa::read_file(in), in);
    }
    const core::NeuronCore::Params prm = core::NeuronCore::Params::of(c->arch);
    core::ProgramRunner run(prm, dma::MemSystem::Params{}, seed, strong);
    auto& hbm = run.hbm().image().hbm;
    for (const auto& [file, addr] : loads) {
      const auto bytes = isa::read_file(file);
      if (addr + bytes.size() > hbm.size())
        throw Usage(fmt::format("--hbm {}@{:#x}: {} bytes do not fit in HBM ({} bytes)", file, addr, bytes.size(), hbm.size()));
      std::copy(bytes.begin(), bytes.end(), hbm.begin() + addr);
    }
    for (const auto& [addr, len, file] : dumps)
      if (static_cast<std::uint64_t>(addr) + len > hbm.size())
        throw Usage(fmt::format("--dump {:#x}:{}: outside HBM ({} bytes)", addr, len, hbm.size()));
    run.load(p);
    core::Timeline tl(p, prm.core.queues);
    const auto t0 = std::chrono::steady_clock::now();
    auto last = t0;
    run.on_cycle = [&](const core::NeuronCore& nc, const core::NeuronCore::Out& o, std::uint64_t cyc) {
      tl.observe(nc, o, cyc);
      if ((cyc & 0xFFFF) == 0) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last > std::chrono::seconds(2)) {
          last = now;
          fmt::print(stderr, "trnsim run: cycle {} ...\n", cyc);
        }
      }
    };
    const core::RunResult r = run.run(limit);
    tl.finish(run.cycle());
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("{}: {} in {} cycles ({:.2f} s, {:.0f} cycles/s), configuration {}\n", in, r.ok ? "done" : "stopped",
               r.cycles, sec, static_cast<double>(r.cycles) / std::max(sec, 1e-9), config);
    if (!r.ok) fmt::print("{}\n", r.what);
    fmt::print("{:<8} {:>8} {:>10} {:>10} {:>10}\n", "stream", "issued", "active", "sem wait", "unit busy");
    for (unsigned s = 0; s < core::Control::kStreams; ++s) {
      const auto& k = tl.counts()[s];
      fmt::print("{:<8} {:>8} {:>10} {:>10} {:>10}\n", isa::tbl::kStreamNames[s], k.issued, k.active, k.wait, k.busy);
    }
    if (!trace.empty()) {
      tl.write_json(trace, fmt::format("NeuronCore ({}) {}", config, in));
      fmt::print("timeline: {} ({} slices)\n", trace, tl.slices().size());
    }
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

}  // namespace trn::tools
