// Test vectors of the number-format benches: the boundary values of a format (SPEC section 4 and
// issue list: +-0, smallest and largest subnormal, smallest normal, max, max + half ulp, exact
// midpoints both ways and their FP32 neighbours, overflow threshold, Inf, NaN) and random FP32
// values spread over a format's range.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "harness/rng.hpp"
#include "numerics/format.hpp"

namespace trn::tb {

inline float next_up(float v) { return std::nextafter(v, INFINITY); }
inline float next_down(float v) { return std::nextafter(v, -INFINITY); }

/// FP32 bit patterns at every boundary of format f with bias register `bias` (< 0: standard).
/// Every midpoint of neighbouring codes for 8-bit and smaller formats; for 16-bit formats the
/// midpoints of the lowest and highest 256 codes and every 97th code between.
inline std::vector<std::uint32_t> boundary_values(numerics::Format f, int bias) {
  using namespace numerics;
  const FormatInfo& d = format_info(f);
  std::vector<float> v{0.0f, INFINITY, 1.0f, 1.5f};
  auto val = [&](std::uint32_t code) { return f32_from(decode(f, code, bias)); };
  const std::uint32_t maxm = max_magnitude(d);
  const std::uint32_t first = d.subnormals ? 1 : 0;
  for (std::uint32_t c = first; c < maxm; ++c) {
    const bool dense = maxm < 512 || c < first + 256 || c + 256 > maxm || c % 97 == 0;
    if (!dense) continue;
    const double lo = val(c), hi = val(c + 1), mid = (lo + hi) / 2;
    const float m = static_cast<float>(mid);  // exact: narrow midpoints fit FP32
    v.insert(v.end(), {static_cast<float>(lo), m, next_up(m), next_down(m)});
  }
  const double top = val(maxm), ulp = top - static_cast<double>(val(maxm - 1));
  const float over = static_cast<float>(top + ulp / 2);  // max + half ulp: the overflow threshold
  v.insert(v.end(), {static_cast<float>(top), next_up(static_cast<float>(top)), over, next_up(over), next_down(over),
                     static_cast<float>(top + ulp), static_cast<float>(top * 4)});
  if (d.subnormals) {
    const float smin = val(1), smax = val((1u << d.man_bits) - 1), nmin = val(1u << d.man_bits);
    v.insert(v.end(), {smin, smax, nmin, smin / 2, next_up(smin / 2), next_down(smin / 2), smin * 0.75f, smin / 4,
                       next_down(nmin), next_up(smax)});
  } else {
    const float lo = val(0);
    v.insert(v.end(), {lo, lo / 2, next_up(lo / 2), lo * 0.75f, next_up(lo), next_down(lo)});
  }
  std::vector<std::uint32_t> out;
  for (float x : v) {
    out.push_back(f32_bits(x));
    out.push_back(f32_bits(-x));
  }
  // FP32 specials and subnormals
  for (std::uint32_t b : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FBFFFFFu, 0x00000001u, 0x007FFFFFu, 0x00800000u,
                          0x7F7FFFFFu, 0x80000001u, 0xFF7FFFFFu})
    out.push_back(b);
  return out;
}

/// A random FP32 value: a quarter uniform bit patterns, the rest spread over [min/8, max*4] of f
/// with random signs and mantissas.
inline std::uint32_t random_value(Rng& r, numerics::Format f, int bias) {
  using namespace numerics;
  if (r.below(4) == 0) return static_cast<std::uint32_t>(r.next());
  const FormatInfo& d = format_info(f);
  const double lo = std::log2(f32_from(decode(f, d.subnormals ? 1 : 0, bias))) - 3;
  const double hi = std::log2(f32_from(decode(f, max_magnitude(d), bias))) + 2;
  const double e = lo + (hi - lo) * (static_cast<double>(r.next() >> 11) * 0x1.0p-53);
  float x = static_cast<float>(std::exp2(e));
  std::uint32_t b = f32_bits(x) ^ static_cast<std::uint32_t>(r.below(1u << 16));
  if (r.below(2)) b |= 0x80000000u;
  return b;
}

}  // namespace trn::tb
