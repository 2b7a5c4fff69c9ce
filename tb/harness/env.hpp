// The run's options (environment variables and plusargs, as cocotb reads them) and Env, what a
// test receives: the DUT's ports, the configuration, the seed and seeded random streams.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "harness/errors.hpp"
#include "harness/rng.hpp"
#include "harness/scheduler.hpp"
#include "harness/signal.hpp"
#include "trn_config.hpp"

namespace trn::tb {

struct RunOptions {
  std::string exe;         ///< absolute path of this bench binary
  std::string top;         ///< the DUT top (TOPLEVEL)
  std::string config;      ///< configuration name the bench was built for
  std::uint32_t seed = 0;  ///< RANDOM_SEED
  bool waves = false;      ///< WAVES=1
  std::string wave_file;   ///< the FST written when waves is set
  /// WAVES_FROM_NS / WAVES_TO_NS: dump only this window (a long system run's few cycles around its
  /// failure); WAVES_SCOPE: only these DUT scopes (comma list, e.g. chip_torus.g_chip[2]), the
  /// model's and the lockstep's values of their ports, and the top's own ports.
  std::uint64_t wave_from_ps = 0, wave_to_ps = ~std::uint64_t{0};
  std::vector<std::string> wave_scopes;
  std::string results_file = "results.xml";  ///< COCOTB_RESULTS_FILE
  std::string fcov_file;                     ///< FCOV_FILE: functional coverage JSON ("" none)
  std::vector<std::string> testcases;        ///< TESTCASE (empty: all)
  bool lockstep = true;                      ///< LOCKSTEP=0 runs without the model
  std::uint64_t watchdog_cycles = 10000;     ///< WATCHDOG_CYCLES
  std::uint64_t length = 1;                  ///< TRN_LENGTH: random tests run this many times longer
  // LOCKSTEP_INJECT=<signal>@<cycle>[:<bit>]: flip that bit of the model's output at that cycle
  // (a deliberately wrong model, to show the checker catching it).
  bool inject = false;
  std::string inject_signal;
  std::uint64_t inject_cycle = 0;
  unsigned inject_bit = 0;
  bool replay = false;                ///< BENCH_REPLAY=1: record the lockstep's cycles, replay them alone (replay.hpp)
  std::vector<std::string> plusargs;  ///< every +arg given, passed on to Verilator
};

/// Whether the waves of this run hold the FST variable `name` ("TOP.a.b"): every one unless
/// WAVES_SCOPE narrows them (then the top's own ports, and anything under a scope, also under the
/// harness's model. and sampled. copies).
bool wave_traced(const RunOptions& o, const std::string& name);

/// What the lockstep checkers saw of LOCKSTEP_INJECT in the running test, which the runner checks
/// after it (a misspelt signal or a cycle the test never reaches is a usage error, not a pass):
/// every name an injection can take (a model's outputs, a probe's ports: the names mismatches
/// report), whether the flip happened, and the last cycle compared.
struct InjectRecord {
  std::set<std::string> names;
  bool flipped = false;
  std::uint64_t cycle = 0;
};
InjectRecord& inject_record();

/// The options of this run (set once by the bench's main()).
const RunOptions& options();
RunOptions& mutable_options();
/// A random test's length (transactions, packets, cycles, programs) scaled by TRN_LENGTH, so a
/// deep regression runs the same tests longer: `const unsigned n = scaled(2000);`.
inline std::uint64_t scaled(std::uint64_t n) { return n * options().length; }
/// The name of the test that is running.
const std::string& current_test_name();
/// The command that reruns `test` with the same seed and settings (absolute paths).
std::string reproduce_command(const std::string& test);

class PortTable {
 public:
  void add(std::string name, Dir dir, unsigned width, void* storage) {
    ports_.emplace_back(std::move(name), dir, width, storage);
  }
  Signal* find(std::string_view name) {
    if (indexed_ != ports_.size()) {  // ports were added: index them again
      index_.clear();
      for (std::size_t i = 0; i < ports_.size(); ++i) index_.emplace(ports_[i].name(), i);
      indexed_ = ports_.size();
    }
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &ports_[it->second];
  }
  Signal& at(std::string_view name) {
    if (auto* s = find(name)) return *s;
    std::string names;
    for (auto& s : ports_) names += (names.empty() ? "" : ", ") + s.name();
    throw HarnessError(fmt::format("no port '{}' on the DUT (ports: {})", name, names));
  }
  std::vector<Signal>& all() { return ports_; }

 private:
  std::vector<Signal> ports_;
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> index_;  ///< name -> position in ports_
  std::size_t indexed_ = 0;
};

class Env {
 public:
  Env(PortTable& ports, const cfg::Config& cfg, std::string test) : ports_(ports), cfg_(cfg), test_(std::move(test)) {}
  Signal& sig(std::string_view name) { return ports_.at(name); }
  /// The port called `name`, or nullptr when the DUT has none.
  Signal* find(std::string_view name) { return ports_.find(name); }
  PortTable& ports() { return ports_; }
  const cfg::Config& cfg() const { return cfg_; }
  const std::string& test() const { return test_; }
  std::uint32_t seed() const { return options().seed; }
  /// A random stream named `stream`, private to this test and seed.
  Rng rng(std::string_view stream) const { return Rng(seed(), test_ + "/" + std::string(stream)); }

 private:
  PortTable& ports_;
  const cfg::Config& cfg_;
  std::string test_;
};

/// Fail the test (TestFailure) with a formatted message unless `cond` holds.
template <class... Args>
void check(bool cond, fmt::format_string<Args...> f, Args&&... args) {
  if (!cond) throw TestFailure(fmt::format(f, std::forward<Args>(args)...));
}

/// Log a line from a test in cocotb's format: "<sim time>ns INFO     trn.test     message".
template <class... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  fmt::print("{:>11.2f}ns INFO     trn.test           {}\n", static_cast<double>(Scheduler::get().now()) / 1000.0,
             fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace trn::tb
