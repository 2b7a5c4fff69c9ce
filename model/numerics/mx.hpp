// trn::numerics MX blocks (OCP Microscaling v1.0, SPEC section 4): 32 elements share one E8M0
// scale. Elements are E4M3FN or E5M2 (MXFP8) or E2M1 (MXFP4).
//
// Quantize: shared exponent = floor(log2(amax)) - emax(element), +1 in Neuron's variant, clamped
// to [-127, 127]; an all-zero block gets -127 (scale 2^-127). Each element is RNE(v / 2^shared)
// computed exactly and saturated to +-max. Any Inf or NaN in the block makes the scale NaN (0xFF)
// and every element code 0.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "numerics/format.hpp"

namespace trn::numerics {

inline constexpr unsigned kMxBlock = 32;

struct MxBlock {
  std::uint8_t scale = 0;  ///< E8M0
  std::array<std::uint8_t, kMxBlock> codes{};
};

bool is_mx_element(Format f);
/// Exponent of the element type's largest normal value (E4M3FN 8, E5M2 15, E2M1 2).
int mx_emax(Format elem);
/// The shared exponent of a block (without the NaN case): SPEC's rule, both variants.
int mx_shared_exponent(std::span<const std::uint32_t> fp32, Format elem, bool neuron);
/// A block of 32 values (OCP), or fewer: the short blocks of configurations with fewer than 32
/// partitions (codes past the block's size stay 0).
MxBlock mx_quantize(std::span<const std::uint32_t> fp32, Format elem, bool neuron);
/// Element i of a block as FP32: decode(code) * 2^(scale - 127), one IEEE rounding; NaN scale -> NaN.
std::uint32_t mx_dequantize(const MxBlock& b, Format elem, unsigned i);

}  // namespace trn::numerics
