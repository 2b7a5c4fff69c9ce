// Helpers for the throughput tests that `make bench` runs (scripts/bench reads the line printed).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "harness/env.hpp"

namespace trn::tb {

/// BENCH_CYCLES from the environment, or `dflt`.
inline std::uint64_t bench_cycles(std::uint64_t dflt) {
  const char* e = std::getenv("BENCH_CYCLES");
  if (!e || !*e) return dflt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(e, &end, 10);
  if (*end || v == 0) throw HarnessError(fmt::format("BENCH_CYCLES={} is not a positive integer", e));
  return v;
}

/// Prints "bench: cycles=<n> seconds=<s> cycles_per_s=<r>" for scripts/bench.
class BenchTimer {
 public:
  BenchTimer() : t0_(std::chrono::steady_clock::now()) {}
  void report(std::uint64_t cycles) const {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    fmt::print("bench: cycles={} seconds={:.6f} cycles_per_s={:.0f} lockstep={} waves={}\n", cycles, s,
               s > 0 ? cycles / s : 0.0, options().lockstep ? 1 : 0, options().waves ? 1 : 0);
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace trn::tb
