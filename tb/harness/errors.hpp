// Exceptions that end a test. As in cocotb: a TestFailure is a failed check (what expect_fail
// expects); any other exception is an error (what expect_error expects).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace trn::tb {

/// A functional check failed (cocotb: AssertionError).
struct TestFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The DUT and the model disagree (first difference of a lockstep comparison).
struct LockstepMismatch : TestFailure {
  LockstepMismatch(const std::string& report, std::string sig, std::uint64_t cyc, std::uint64_t t_ps)
      : TestFailure(report), signal(std::move(sig)), cycle(cyc), time_ps(t_ps) {}
  std::string signal;
  std::uint64_t cycle;
  std::uint64_t time_ps;
};

/// A SystemVerilog assertion of the RTL failed (Verilated with --assert; vl_hooks.hpp).
struct AssertionFailure : TestFailure {
  AssertionFailure(const std::string& report, std::string name, std::string inst, std::uint64_t cyc)
      : TestFailure(report), assertion(std::move(name)), instance(std::move(inst)), cycle(cyc) {}
  std::string assertion;  ///< its label
  std::string instance;   ///< the instance it is in (TOP.core.u_dma)
  std::uint64_t cycle;
};

/// The watchdog saw no progress for too long.
struct Hang : TestFailure {
  Hang(const std::string& report, std::string iface, std::uint64_t cyc)
      : TestFailure(report), interface(std::move(iface)), cycle(cyc) {}
  std::string interface;  ///< the interface that stalled first
  std::uint64_t cycle;
};

/// A test or a with_timeout() ran out of simulated time (cocotb: SimTimeoutError, an error).
struct SimTimeoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The harness was used wrongly (a write in ReadOnly, an unknown signal, ...): an error.
struct HarnessError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace trn::tb
