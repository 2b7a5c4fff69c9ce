// Helpers for the throughput tests that `make bench` runs (scripts/bench reads the line printed).
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/env.hpp"

namespace trn::tb {

/// A positive count from environment variable `name` (e.g. NUMERICS_VALUES), or `dflt`.
inline std::uint64_t env_count(const char* name, std::uint64_t dflt) {
  const char* e = std::getenv(name);
  if (!e || !*e) return dflt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(e, &end, 10);
  if (*end || v == 0) throw HarnessError(fmt::format("{}={} is not a positive integer", name, e));
  return v;
}

/// BENCH_CYCLES from the environment, or `dflt`.
inline std::uint64_t bench_cycles(std::uint64_t dflt) { return env_count("BENCH_CYCLES", dflt); }

/// BENCH_FIGURES: 0 when scripts/bench runs a throughput test only for its speed (a throughput test
/// may then skip figures that are costly to measure); unset or 1 otherwise.
inline bool bench_figures() {
  const char* e = std::getenv("BENCH_FIGURES");
  if (!e || !*e || std::string_view(e) == "1") return true;
  if (std::string_view(e) == "0") return false;
  throw HarnessError(fmt::format("BENCH_FIGURES={} is neither 0 nor 1", e));
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
