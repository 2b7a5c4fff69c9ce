// trn::numerics — the number formats of SPEC section 4: one table, and the conversions every
// engine and every RTL unit model uses (encode FP32 -> narrow, decode narrow -> FP32).
//
// The table (format_info) is the only description of the formats: bits, exponent and mantissa
// widths, standard bias, Inf/NaN policy. Every routine below reads it; none is written per format.
// Format's numeric values are also the RTL's fmt_e codes (rtl/numerics/numerics_pkg.sv).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace trn::numerics {

enum class Format : std::uint8_t {
  fp32 = 0,
  tf32 = 1,
  bf16 = 2,
  fp16 = 3,
  e5m2 = 4,
  e4m3 = 5,    ///< Neuron's classic cFP8 "E4": IEEE-like, bias 7, max 240
  e4m3fn = 6,  ///< OCP: no Inf, NaN = S.1111.111, max 448
  e3m4 = 7,
  e2m1 = 8,  ///< FP4 (MXFP4 elements): no Inf/NaN, max 6
  e8m0 = 9,  ///< MX scale: unsigned 2^(e-127), 0xFF = NaN
};
inline constexpr unsigned kFormatCount = 10;

/// How a format spends its all-ones exponent field.
enum class Specials : std::uint8_t {
  ieee,      ///< all-ones exponent: Inf (mantissa 0) and NaN (otherwise)
  nan_only,  ///< no Inf; the all-ones magnitude code is NaN (E4M3FN, E8M0)
  none,      ///< no Inf, no NaN (E2M1)
};

struct FormatInfo {
  Format id;
  std::string_view name;       ///< the name used by tools and tests (e.g. "e4m3fn")
  std::string_view ml_dtypes;  ///< the ml_dtypes / numpy type name, empty if none
  unsigned bits;               ///< code width
  unsigned exp_bits;
  unsigned man_bits;
  int bias;  ///< standard exponent bias
  Specials specials;
  bool is_signed;        ///< has a sign bit (all but E8M0)
  bool subnormals;       ///< exponent field 0 is subnormal (and code 0 is zero); E8M0: field 0 is 2^-127
  bool adjustable_bias;  ///< FP8: the bias register applies
};

/// The table of SPEC section 4, indexed by Format.
const FormatInfo& format_info(Format f);
std::span<const FormatInfo> all_formats();
/// By name or alias ("bf16", "bfloat16", "e4m3", "float8_e4m3fn", "fp4", ...); nullopt if unknown.
std::optional<Format> parse_format(std::string_view name);

/// The bias register of an FP8 operand: 6 bits.
inline constexpr int kMinBias = 0;
inline constexpr int kMaxBias = 63;

// Derived from the table.
std::uint32_t max_magnitude(const FormatInfo& d);  ///< magnitude code of the largest finite value
std::uint32_t inf_magnitude(const FormatInfo& d);  ///< magnitude code of Inf (Specials::ieee only)
std::uint32_t nan_code(const FormatInfo& d);       ///< the canonical NaN code (E2M1, which has none: +0)
std::uint32_t code_mask(const FormatInfo& d);
int effective_bias(const FormatInfo& d, int bias_reg);  ///< bias_reg < 0: the standard bias
bool is_nan_code(const FormatInfo& d, std::uint32_t code);
bool is_inf_code(const FormatInfo& d, std::uint32_t code);

enum class Round : std::uint8_t { rne = 0, sr = 1 };

/// How one narrowing conversion rounds.
struct Convert {
  Round mode = Round::rne;
  bool saturate = false;  ///< overflow and Inf give +-max even where the type has Inf
  int bias = -1;          ///< FP8 bias register (0..63); < 0: the standard bias
  std::uint32_t rnd = 0;  ///< the lane's random word (stochastic rounding)
};

inline constexpr std::uint32_t kCanonicalNaN = 0x7FC00000u;

/// FP32 bits -> code of `f` (SPEC section 4 rules; see docs/numerics.md).
std::uint32_t encode(Format f, std::uint32_t fp32, const Convert& c = {});
/// The same for the value fp32 * 2^-scale_exp, computed exactly before the one rounding (MX).
std::uint32_t encode_scaled(Format f, std::uint32_t fp32, int scale_exp, const Convert& c);
/// Code of `f` -> FP32 bits, exact; every NaN decodes to the canonical NaN.
std::uint32_t decode(Format f, std::uint32_t code, int bias = -1);

std::uint32_t f32_bits(float v);
float f32_from(std::uint32_t b);

}  // namespace trn::numerics
