#include "numerics/mx.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "numerics/arith.hpp"

namespace trn::numerics {

bool is_mx_element(Format f) { return f == Format::e4m3fn || f == Format::e5m2 || f == Format::e2m1; }

int mx_emax(Format elem) {
  const FormatInfo& d = format_info(elem);
  return static_cast<int>(max_magnitude(d) >> d.man_bits) - d.bias;
}

namespace {
// floor(log2 |x|) of a finite nonzero FP32 value.
int floor_log2(std::uint32_t x) {
  const std::uint32_t e = (x >> 23) & 0xFF, fr = x & 0x7FFFFF;
  if (e) return static_cast<int>(e) - 127;
  return -127 - (std::countl_zero(fr) - 9);  // fr's top bit (22) -> -127
}
}  // namespace

int mx_shared_exponent(std::span<const std::uint32_t> fp32, Format elem, bool neuron) {
  bool any = false;
  int amax_exp = 0;
  for (std::uint32_t x : fp32) {
    if ((x & 0x7FFFFFFF) == 0 || (x & 0x7F800000) == 0x7F800000) continue;  // zeros; Inf/NaN make the block NaN
    const int l = floor_log2(x);
    amax_exp = any ? std::max(amax_exp, l) : l;
    any = true;
  }
  if (!any) return -127;
  return std::clamp(amax_exp - mx_emax(elem) + (neuron ? 1 : 0), -127, 127);
}

MxBlock mx_quantize(std::span<const std::uint32_t> fp32, Format elem, bool neuron) {
  if (!is_mx_element(elem)) throw std::invalid_argument("mx_quantize: element type must be e4m3fn, e5m2 or e2m1");
  if (fp32.empty() || fp32.size() > kMxBlock) throw std::invalid_argument("mx_quantize: a block has 1 to 32 values");
  MxBlock b;
  for (std::uint32_t x : fp32)
    if ((x & 0x7F800000) == 0x7F800000) {
      b.scale = 0xFF;
      return b;
    }
  const int se = mx_shared_exponent(fp32, elem, neuron);
  b.scale = static_cast<std::uint8_t>(se + 127);
  Convert c;
  c.saturate = true;
  for (std::size_t i = 0; i < fp32.size(); ++i)
    b.codes[i] = static_cast<std::uint8_t>(encode_scaled(elem, fp32[i], se, c));
  return b;
}

std::uint32_t mx_dequantize(const MxBlock& b, Format elem, unsigned i) {
  if (b.scale == 0xFF) return kCanonicalNaN;
  return fp32_mul(decode(elem, b.codes.at(i)), decode(Format::e8m0, b.scale));
}

}  // namespace trn::numerics
