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
/// With `vlen` (the vector registers' bits), about 45 % of the blocks are vector instructions of
/// the subset, legal at the vtype the program has set (docs/gpsimd.md "The vector unit").
RandomProgram random_program(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned blocks, unsigned vlen = 0);

/// One vector word at a random vtype and vl (now and then an unsupported vtype: vill), after the
/// scalar registers have been set (data-region addresses of every alignment, values past local
/// memory, small strides and offsets) and the vector registers loaded from the data region, then
/// op.end. The word: for k < 1536 OP-V with funct6 = k / 8 % 64 and funct3 = k % 8 (every encoding
/// of the OP-V space three times), other fields random; for k < 2048 a vector load or store with
/// random width, mop, nf, mew, lumop; then any of the three with every field random. Now and then
/// a source register is made the destination, or a field v0. Legal or not, in range or not: the
/// reference says what it does.
RandomProgram random_vector_word(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned vlen, unsigned k);

/// Every FP32 vector operation (vfadd, vfsub, vfmul, vfmin, vfmax, vfmacc, vmfeq, vmfle, vmflt) on
/// every ordered pair of 12 values of every class (zeros of both signs, subnormals, infinities, a
/// quiet and a signaling NaN, +-1, the largest finite, -pi), strip-mined at e32 m2, then op.end.
/// Each operation's results go to their own array when local memory holds them all (`separate`),
/// else all to one (the lockstep still sees every write).
RandomProgram fp_corners(std::uint32_t mem_bytes, bool separate);

/// SBUF transfers: about `count` sb.load and sb.store of random vtype and vl (BF16 ones at SEW 32),
/// to partitions mostly in [lo, hi) (now and then the one below or at hi), at offsets mostly
/// aligned and inside a partition of `sbuf_bytes` (now and then misaligned or running past its
/// end), with vector arithmetic between them; then op.end. A stop is as likely as not.
RandomProgram sbuf_program(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned vlen, std::uint32_t sbuf_bytes,
                           unsigned lo, unsigned hi, unsigned count);

/// Every M instruction (mul, mulh, mulhsu, mulhu, div, divu, rem, remu) on every ordered pair of
/// the operands 0, 1, -1, INT_MIN, INT_MAX and -7 (division by zero, the signed overflow, each sign
/// of quotient and remainder), ending with op.end: 301 words.
std::vector<std::uint32_t> mul_div_corners();

}  // namespace trn::gpsimd
