// trn::scalar activations (SPEC 5.3): f(x) for the scalar engine, bit-exact FP32 built from the
// piecewise-polynomial kernels of rtl/scalar/act_coeffs.mem (scripts/gen_activations.py) and IEEE
// FP32 multiply and add, so that the RTL can reproduce every bit. docs/activations.md gives each
// function's reduction, valid range, behaviour outside it and measured error against libm.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trn::scalar {

enum class Act : std::uint8_t {
  identity = 0,
  relu = 1,
  exp = 2,
  log = 3,
  tanh = 4,
  sigmoid = 5,
  gelu = 6,  ///< tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  silu = 7,
  reciprocal = 8,
  rsqrt = 9,
  sqrt = 10,
  square = 11,
};
inline constexpr unsigned kActCount = 12;

std::string_view act_name(Act f);
std::optional<Act> parse_act(std::string_view name);

/// f(x), FP32 bits in and out; every NaN result is 0x7FC00000.
std::uint32_t activate(Act f, std::uint32_t x);

/// The tabulated kernels (rtl/scalar/act_coeffs.mem): p(v) by segment lookup and Horner's rule.
enum class Kernel : std::uint8_t { recip = 0, rsqrt = 1, sqrt = 2, log1p = 3, exp = 4, tanh = 5 };
std::uint32_t eval_kernel(Kernel k, std::uint32_t v);

/// p * 2^k with one rounding, k in [-190, 190] (p normal): the exponent step of the kernels.
std::uint32_t scale_pow2(std::uint32_t p, int k);

}  // namespace trn::scalar
