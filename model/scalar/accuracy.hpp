// trn::scalar activation accuracy: the model's f(x) against the host's libm in double, as the
// maximum error in units in the last place of the output type (FP32, and BF16 after the engine's
// RNE cast), over a function's valid range. Used by the bound test and by `make bench`.
#pragma once

#include <cstdint>
#include <functional>

#include "scalar/activation.hpp"

namespace trn::scalar {

struct ValidRange {
  double lo, hi;
  bool log_spaced;  ///< sample magnitudes log-uniformly (wide ranges), both signs if lo < 0
};
/// The range over which docs/activations.md states f's error bound.
ValidRange valid_range(Act f);
/// f(x) in double from libm (the reference).
double reference(Act f, double x);

/// docs/activations.md, "Error bounds": the most f may differ from libm over its valid range, in
/// ulp of FP32 and of BF16 (after the RNE cast).
struct Bound {
  double fp32, bf16;
};
Bound documented_bound(Act f);

/// Units in the last place of an output type with `man` mantissa bits at the magnitude of r
/// (subnormal spacing below the smallest normal).
double ulp_of(double r, int man);

struct ErrorStats {
  double max_ulp_fp32 = 0, max_ulp_bf16 = 0;
  std::uint32_t worst_x = 0;  ///< the input of the largest FP32 error
  std::uint64_t samples = 0;
};
/// `n` inputs from the valid range (seeded), plus the range ends.
ErrorStats measure(Act f, std::uint64_t n, std::uint64_t seed = 1);
/// The same for another implementation `impl` of f (the vector engine's fast exponential).
ErrorStats measure_impl(Act f, const std::function<std::uint32_t(std::uint32_t)>& impl, std::uint64_t n,
                        std::uint64_t seed = 1);

}  // namespace trn::scalar
