// Random RV32IM programs for the GpSimd processor (docs/gpsimd.md "Tests"): every instruction of
// RV32IM and op.end, operands from edge values (0, +-1, the extremes, sign bits) and random ones,
// loads and stores of every size and immediate into a data region, forward branches and jumps (jal,
// and jalr through auipc), far jumps and branches to pads at the top of the code and back, and
// counted loops with branches back. A program ends with op.end and stops
// within a bounded number of instructions; the same seed gives the same program.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace trn::gpsimd {

struct RandomProgram {
  std::vector<std::uint32_t> words;        ///< from address 0; the entry
  std::uint32_t data_lo = 0, data_hi = 0;  ///< the bytes its loads and stores reach: [lo, hi)
  std::vector<std::uint8_t> data;          ///< their initial contents, at data_lo
};

/// A program for a local memory of `mem_bytes` (code in the lower half, data in the upper), of
/// about `blocks` random blocks (an instruction, a branch or jump over a few, or a loop).
RandomProgram random_program(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned blocks);

/// Every M instruction (mul, mulh, mulhsu, mulhu, div, divu, rem, remu) on every ordered pair of
/// the operands 0, 1, -1, INT_MIN, INT_MAX and -7 (division by zero, the signed overflow, each sign
/// of quotient and remainder), ending with op.end: 301 words.
std::vector<std::uint32_t> mul_div_corners();

}  // namespace trn::gpsimd
