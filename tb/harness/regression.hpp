// Test registration and the bench's main(): cocotb's regression manager in C++.
//
//   TRN_TEST(fifo_full, .timeout_ns = 10000) { ... co_await ...; }   // Task<> fn(Env& env)
//
// Tests run in definition order in one process, one seed per process. Environment (and the
// same names as +NAME=value plusargs): TESTCASE (comma list), RANDOM_SEED, WAVES=1,
// COCOTB_RESULTS_FILE (default results.xml), TOPLEVEL (must name this bench's top if given),
// LOCKSTEP=0, LOCKSTEP_INJECT=<signal>@<cycle>[:<bit>], WATCHDOG_CYCLES. Writes results.xml in
// cocotb's xUnit form, prints cocotb's summary table, and exits non-zero if a test failed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/env.hpp"
#include "harness/task.hpp"

namespace trn::tb {

struct TestOptions {
  double timeout_ns = 0;      ///< simulated time limit (0: none)
  bool expect_fail = false;   ///< passes only if the test fails a check (TestFailure)
  bool expect_error = false;  ///< passes only if the test raises an error (any other exception)
  bool skip = false;
};

using TestFn = Task<> (*)(Env&);

struct TestInfo {
  std::string name;
  std::string file;
  int line;
  TestFn fn;
  TestOptions opts;
};

std::vector<TestInfo>& test_registry();
bool register_test(const char* name, const char* file, int line, TestFn fn, TestOptions opts);

/// For an expect_fail test: check that the failure is the one intended (the right signal, the
/// right cycle); if `validate` throws, the test fails. Holds for the running test only.
void expect_failure(std::function<void(const TestFailure&)> validate);
/// expect_failure for a deliberately wrong model: the failure must be a lockstep mismatch on
/// `signal` at `cycle` (the port and cycle InjectGuard names).
void expect_mismatch(std::string signal, std::uint64_t cycle);

/// Sets LOCKSTEP_INJECT for the life of the object (a test's deliberately wrong model).
class InjectGuard {
 public:
  InjectGuard(std::string signal, std::uint64_t cycle, unsigned bit);
  ~InjectGuard();
  InjectGuard(const InjectGuard&) = delete;
  InjectGuard& operator=(const InjectGuard&) = delete;

 private:
  RunOptions saved_;
};

/// What a bench provides to the runner: its ports and waveform control.
class Bench : public SimModel {
 public:
  virtual PortTable& ports() = 0;
  virtual void open_waves(const std::string& path) = 0;
  virtual void close() = 0;
};

/// The bench's main(): parse options, build the DUT with `make`, run the selected tests.
int bench_main(
    int argc, char** argv, const std::string& top, const std::string& config,
    const std::function<std::unique_ptr<Bench>(const std::vector<std::string>& verilator_args, bool waves)>& make);

}  // namespace trn::tb

#define TRN_TEST(name, ...)                                                                           \
  static ::trn::tb::Task<> name(::trn::tb::Env& env);                                                 \
  [[maybe_unused]] static const bool name##_registered =                                              \
      ::trn::tb::register_test(#name, __FILE__, __LINE__, name, ::trn::tb::TestOptions{__VA_ARGS__}); \
  static ::trn::tb::Task<> name([[maybe_unused]] ::trn::tb::Env& env)
