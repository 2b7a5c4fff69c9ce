// trn::tb::Rng — seeded random streams. Each stream is derived from the run's seed and a name
// (FNV-1a), so adding a stream to one component does not change the numbers of another, and
// the same seed gives the same run on every host.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/bits.hpp"

namespace trn::tb {

constexpr std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

class Rng {
 public:
  Rng(std::uint64_t seed, std::string_view stream) : s_(seed * 0x9E3779B97F4A7C15ull ^ fnv1a(stream)) {}
  /// splitmix64
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  /// Uniform in [lo, hi].
  std::uint64_t range(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  Bits bits(unsigned width) {
    Bits b(width);
    for (unsigned i = 0; i < b.words(); ++i) b.set_word(i, next());
    return b;
  }

 private:
  std::uint64_t s_;
};

}  // namespace trn::tb
