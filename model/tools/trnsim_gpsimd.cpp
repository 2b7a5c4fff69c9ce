// trnsim gpsimd: a GpSimd operator of kernels/gpsimd on the engine model alone (docs/gpsimd.md).
//   trnsim gpsimd scan --config small --seed 3
//   trnsim gpsimd --list
#include <fmt/format.h>

#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

#include "gpsimd/engine.hpp"
#include "gpsimd/operators.hpp"
#include "trn_config.hpp"

namespace trn::tools {

namespace {

constexpr const char* kGpsimdUsage = R"(usage: trnsim gpsimd NAME [options]
       trnsim gpsimd --list

Run a GpSimd operator of kernels/gpsimd (docs/gpsimd.md) on the engine model alone: every processor
of the configuration at once, each with its own fresh inputs in its local memory (as many elements
as it holds, at most --elements), each processor's outputs checked bit for bit against the same C
built for the host. Prints the cycles, and the cycles an element on one processor.

options:
  --config NAME    tiny, small or full (default small): processors, local memory, VLEN, SBUF
  --seed N         the inputs' seed (default 1)
  --elements N     at most N elements a processor (default 4096)
  --list           the operators
exit status: 0 outputs equal to the host build, 1 not, 2 bad usage
)";

std::uint64_t number(const std::string& flag, const char* v) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 0);
  if (!*v || *end || v[0] == '-') throw std::invalid_argument(fmt::format("{} {}: not a number", flag, v));
  return n;
}

}  // namespace

int cmd_gpsimd(int argc, char** argv) {
  std::string name, config = "small";
  std::uint64_t seed = 1, elements = 4096;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) throw std::invalid_argument(fmt::format("gpsimd: {} needs a value", a));
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      fmt::print("{}", kGpsimdUsage);
      return 0;
    } else if (a == "--list") {
      for (const std::string& n : gpsimd::operator_names()) fmt::print("{}\n", n);
      return 0;
    } else if (a == "--config") {
      config = value();
    } else if (a == "--seed") {
      seed = number(a, value());
    } else if (a == "--elements") {
      elements = number(a, value());
      if (elements == 0 || elements > (1u << 20))
        throw std::invalid_argument("gpsimd: --elements must be 1 .. 1048576");
    } else if (!a.empty() && a[0] == '-') {
      throw std::invalid_argument(fmt::format("gpsimd: unknown option '{}' (trnsim gpsimd --help)", a));
    } else if (name.empty()) {
      name = a;
    } else {
      throw std::invalid_argument(fmt::format("gpsimd: a second operator '{}' (one at a time)", a));
    }
  }
  if (name.empty()) throw std::invalid_argument("gpsimd: no operator named (trnsim gpsimd --list)");
  const cfg::Config* c = cfg::find(config);
  if (!c) throw std::invalid_argument(fmt::format("gpsimd: unknown configuration '{}' (tiny, small, full)", config));
  const auto& a = c->arch;
  gpsimd::Engine e({a.gpsimd_procs, a.gpsimd_tcm_bytes, a.gpsimd_vlen, a.partitions, a.sbuf_bytes_per_partition, 4});
  std::vector<gpsimd::OperatorCase> cases;
  std::mt19937_64 rng(seed);
  for (unsigned i = 0; i < a.gpsimd_procs; ++i) {
    cases.push_back(gpsimd::operator_case(name, a.gpsimd_tcm_bytes, rng, static_cast<std::uint32_t>(elements)));
    e.proc(i).load(0, cases.back().image);
  }
  gpsimd::Engine::In in;
  gpsimd::Engine::Out out = e.make_out();
  in.rst_ni = true, in.start_i = true, in.args_i = cases[0].args;
  e.tick(in);
  in.start_i = false;
  std::uint64_t cycles = 1;
  for (e.eval(in, out); out.busy_o; e.eval(in, out)) {
    if (++cycles > 2000000000ull) throw std::runtime_error("gpsimd: the operator ran for 2e9 cycles");
    e.tick(in);
  }
  if (out.err_o) {
    fmt::print(stderr, "trnsim: gpsimd {}: processor {} stopped with code {} at pc {:#x}\n", name, out.err_proc_o,
               static_cast<unsigned>(out.err_code_o), out.err_pc_o);
    return 1;
  }
  unsigned wrong = 0;
  for (unsigned i = 0; i < a.gpsimd_procs; ++i)
    for (const auto& o : cases[i].outputs)
      for (std::uint32_t b = 0; b < o.bytes; b += 4) {
        const auto* x = &cases[i].expected[o.addr + b];
        const std::uint32_t want = x[0] | x[1] << 8 | x[2] << 16 | std::uint32_t{x[3]} << 24;
        const std::uint32_t got = e.proc(i).word((o.addr + b) / 4);
        if (got != want && wrong++ < 5)
          fmt::print(stderr, "trnsim: gpsimd {}: processor {} {} word {}: {:#010x}, the host build {:#010x}\n", name, i,
                     o.what, b / 4, got, want);
      }
  fmt::print(
      "gpsimd {} [{}]: {} processors x {} elements in {} cycles ({:.1f} cycles an element on a processor); {}\n", name,
      config, a.gpsimd_procs, cases[0].elements, cycles, static_cast<double>(cycles) / cases[0].elements,
      wrong ? fmt::format("{} output words differ from the host build", wrong) : "outputs equal to the host build");
  return wrong ? 1 : 0;
}

}  // namespace trn::tools
