// trn::numerics arithmetic of SPEC section 4: FP32 add and multiply (IEEE binary32, RNE, subnormals
// kept, every NaN result canonical), TF32 rounding, and the exact product of two narrow values.
//
// The model uses the host's IEEE float arithmetic (the project compiles without fast-math and with
// contraction off), so it is an independent check of the RTL's own adders and multipliers.
#pragma once

#include <cstdint>

#include "numerics/format.hpp"

namespace trn::numerics {

std::uint32_t fp32_add(std::uint32_t a, std::uint32_t b);
std::uint32_t fp32_mul(std::uint32_t a, std::uint32_t b);
/// FP32 with the low 13 mantissa bits rounded away (RNE), as FP32 bits.
std::uint32_t tf32_round(std::uint32_t a);

/// One operand of a narrow product: a code of a format with its bias register.
struct Operand {
  Format fmt;
  std::uint32_t code;
  int bias = -1;
};
/// a * b as FP32: exact wherever FP32 can hold it (one IEEE rounding otherwise: BF16 extremes).
std::uint32_t mul_narrow(const Operand& a, const Operand& b);

}  // namespace trn::numerics
