#include "numerics/format.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace trn::numerics {

namespace {

// SPEC section 4. Derived figures (max, min normal, ...) come from these columns only.
constexpr std::array<FormatInfo, kFormatCount> kFormats{{
    // id              name      ml_dtypes          bits E  M  bias specials          signed subn  adj
    {Format::fp32, "fp32", "float32", 32, 8, 23, 127, Specials::ieee, true, true, false},
    {Format::tf32, "tf32", "", 19, 8, 10, 127, Specials::ieee, true, true, false},
    {Format::bf16, "bf16", "bfloat16", 16, 8, 7, 127, Specials::ieee, true, true, false},
    {Format::fp16, "fp16", "float16", 16, 5, 10, 15, Specials::ieee, true, true, false},
    {Format::e5m2, "e5m2", "float8_e5m2", 8, 5, 2, 15, Specials::ieee, true, true, true},
    {Format::e4m3, "e4m3", "float8_e4m3", 8, 4, 3, 7, Specials::ieee, true, true, true},
    {Format::e4m3fn, "e4m3fn", "float8_e4m3fn", 8, 4, 3, 7, Specials::nan_only, true, true, true},
    {Format::e3m4, "e3m4", "float8_e3m4", 8, 3, 4, 3, Specials::ieee, true, true, true},
    {Format::e2m1, "e2m1", "float4_e2m1fn", 4, 2, 1, 1, Specials::none, true, true, false},
    {Format::e8m0, "e8m0", "float8_e8m0fnu", 8, 8, 0, 127, Specials::nan_only, false, false, false},
}};

struct Alias {
  std::string_view name;
  Format f;
};
constexpr Alias kAliases[] = {
    {"float32", Format::fp32},      {"f32", Format::fp32},      {"bfloat16", Format::bf16}, {"float16", Format::fp16},
    {"half", Format::fp16},         {"fp8_e5m2", Format::e5m2}, {"fp8_e4m3", Format::e4m3}, {"cfp8", Format::e4m3},
    {"fp8_e4m3fn", Format::e4m3fn}, {"fp8_e3m4", Format::e3m4}, {"fp4", Format::e2m1},      {"mxfp4", Format::e2m1},
    {"fp4_e2m1", Format::e2m1},     {"scale", Format::e8m0},
};

std::uint32_t all_ones_magnitude(const FormatInfo& d) { return (std::uint32_t{1} << (d.exp_bits + d.man_bits)) - 1; }

// The value to return when a finite result is too large, or the input is Inf.
std::uint32_t overflow_code(const FormatInfo& d, std::uint32_t sign_bit, bool saturate) {
  if (d.specials == Specials::ieee && !saturate) return sign_bit | inf_magnitude(d);
  return sign_bit | max_magnitude(d);
}

}  // namespace

const FormatInfo& format_info(Format f) { return kFormats.at(static_cast<unsigned>(f)); }
std::span<const FormatInfo> all_formats() { return kFormats; }

std::optional<Format> parse_format(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& d : kFormats)
    if (d.name == lower || (!d.ml_dtypes.empty() && d.ml_dtypes == lower)) return d.id;
  for (const auto& a : kAliases)
    if (a.name == lower) return a.f;
  return std::nullopt;
}

std::uint32_t max_magnitude(const FormatInfo& d) {
  switch (d.specials) {
    case Specials::ieee:  // largest exponent below all-ones, mantissa all ones
      return all_ones_magnitude(d) - (std::uint32_t{1} << d.man_bits);
    case Specials::nan_only:  // the code below the NaN
      return all_ones_magnitude(d) - 1;
    case Specials::none:
      return all_ones_magnitude(d);
  }
  return 0;
}

std::uint32_t inf_magnitude(const FormatInfo& d) {
  return d.specials == Specials::ieee ? all_ones_magnitude(d) - ((std::uint32_t{1} << d.man_bits) - 1) : 0;
}

std::uint32_t nan_code(const FormatInfo& d) {
  switch (d.specials) {
    case Specials::ieee:  // quiet: all-ones exponent, top mantissa bit
      return inf_magnitude(d) | (std::uint32_t{1} << (d.man_bits - 1));
    case Specials::nan_only:
      return all_ones_magnitude(d);
    case Specials::none:
      return 0;
  }
  return 0;
}

std::uint32_t code_mask(const FormatInfo& d) { return d.bits >= 32 ? 0xFFFFFFFFu : (std::uint32_t{1} << d.bits) - 1; }

int effective_bias(const FormatInfo& d, int bias_reg) {
  if (!d.adjustable_bias || bias_reg < 0) return d.bias;
  if (bias_reg > kMaxBias) throw std::invalid_argument("bias register out of range (0..63)");
  return bias_reg;
}

bool is_nan_code(const FormatInfo& d, std::uint32_t code) {
  const std::uint32_t mag = code & all_ones_magnitude(d);
  switch (d.specials) {
    case Specials::ieee:
      return mag > inf_magnitude(d);
    case Specials::nan_only:
      return mag == all_ones_magnitude(d);
    case Specials::none:
      return false;
  }
  return false;
}

bool is_inf_code(const FormatInfo& d, std::uint32_t code) {
  return d.specials == Specials::ieee && (code & all_ones_magnitude(d)) == inf_magnitude(d);
}

std::uint32_t f32_bits(float v) { return std::bit_cast<std::uint32_t>(v); }
float f32_from(std::uint32_t b) { return std::bit_cast<float>(b); }

std::uint32_t encode(Format f, std::uint32_t x, const Convert& c) { return encode_scaled(f, x, 0, c); }

std::uint32_t encode_scaled(Format f, std::uint32_t x, int scale_exp, const Convert& c) {
  const FormatInfo& d = format_info(f);
  const int b = effective_bias(d, c.bias);
  const bool neg = x >> 31;
  const std::uint32_t e = (x >> 23) & 0xFF, fr = x & 0x7FFFFF;
  const std::uint32_t sign_bit = d.is_signed && neg ? std::uint32_t{1} << (d.bits - 1) : 0;
  const bool is_zero = e == 0 && fr == 0;

  if (e == 0xFF && fr) return nan_code(d);
  if (!d.is_signed && (neg || is_zero)) return nan_code(d);  // E8M0: no sign, no zero
  if (e == 0xFF) return overflow_code(d, sign_bit, c.saturate);
  if (is_zero) return sign_bit;

  // value = sig * 2^(ex - 23), sig in [2^23, 2^24)
  std::uint64_t sig;
  int ex;
  if (e == 0) {
    const int lz = std::countl_zero(fr) - 8;  // leading zeros within 24 bits
    sig = std::uint64_t{fr} << lz;
    ex = -126 - lz;
  } else {
    sig = fr | 0x800000u;
    ex = static_cast<int>(e) - 127;
  }
  ex -= scale_exp;

  // Kept LSB has weight 2^(te - M); p low bits of sig are discarded.
  const int M = static_cast<int>(d.man_bits);
  const int emin = d.subnormals ? 1 - b : -b;
  const int te = std::max(ex, emin);
  const int p = 23 - M + (te - ex);
  const std::uint64_t wide = sig << 32;  // sig followed by 32 zero bits
  std::uint64_t q;
  std::uint32_t frac32;  // the top 32 bits of the discarded field
  bool sticky;           // any discarded bit below those 32
  if (p >= 56) {
    q = 0;
    frac32 = 0;
    sticky = true;
  } else {
    q = p + 32 >= 64 ? 0 : wide >> (p + 32);
    frac32 = static_cast<std::uint32_t>(wide >> p);
    sticky = (wide & ((std::uint64_t{1} << p) - 1)) != 0;
  }
  bool up;
  if (c.mode == Round::sr)
    up = std::uint64_t{frac32} + c.rnd >= (std::uint64_t{1} << 32);
  else
    up = frac32 > 0x80000000u || (frac32 == 0x80000000u && (sticky || (q & 1)));

  const std::int64_t mag =
      static_cast<std::int64_t>(te + b - 1) * (std::int64_t{1} << M) + static_cast<std::int64_t>(q) + (up ? 1 : 0);
  if (mag > static_cast<std::int64_t>(max_magnitude(d))) return overflow_code(d, sign_bit, c.saturate);
  if (mag < 0) return 0;  // below the smallest value of a format without zero (E8M0): its minimum
  return sign_bit | static_cast<std::uint32_t>(mag);
}

std::uint32_t decode(Format f, std::uint32_t code, int bias) {
  const FormatInfo& d = format_info(f);
  const int b = effective_bias(d, bias);
  code &= code_mask(d);
  if (is_nan_code(d, code)) return kCanonicalNaN;
  const bool neg = d.is_signed && (code >> (d.bits - 1)) & 1;
  if (is_inf_code(d, code)) return neg ? 0xFF800000u : 0x7F800000u;
  const std::uint32_t mag = code & all_ones_magnitude(d);
  const std::uint32_t field = mag >> d.man_bits;
  const std::uint32_t man = mag & ((std::uint32_t{1} << d.man_bits) - 1);
  const int M = static_cast<int>(d.man_bits);
  double v;
  if (field == 0 && d.subnormals)
    v = std::ldexp(static_cast<double>(man), 1 - b - M);
  else
    v = std::ldexp(static_cast<double>((std::uint32_t{1} << M) + man), static_cast<int>(field) - b - M);
  const float r = static_cast<float>(neg ? -v : v);  // exact: every value of every format fits FP32
  return f32_bits(r);
}

}  // namespace trn::numerics
