// trn::vector::Instr — one instruction of the vector or scalar engine (the cmd_* ports of
// rtl/vector/lane_engine.sv; docs/vector.md): its fields, the rules that make it legal, and the
// properties both the cycle model and the functional reference derive from it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "vector/ops.hpp"

namespace trn::vector {

inline constexpr unsigned kDims = 4;       ///< free-axis access pattern dimensions
inline constexpr unsigned kAddrBits = 24;  ///< address fields of an instruction (bytes)
inline constexpr unsigned kDimBits = 16;   ///< size and stride fields

struct Instr {
  Op op = Op::copy;
  unsigned tag = 0;
  unsigned ps = 0, pc = 1;  ///< partitions ps .. ps+pc-1
  /// Byte addresses in the partition, each aligned to its element size (docs/core.md): A, B, the
  /// output, the per-partition operands (FP32) and quantize_mx's scale tensor (E8M0 bytes).
  std::uint32_t a_addr = 0, b_addr = 0, o_addr = 0, s0_addr = 0, s1_addr = 0, sc_addr = 0;
  /// Where A, B and the output are: SBUF (false) or PSUM (true; FP32 only, byte addresses over the
  /// partition's banks). The per-partition operands and the scale tensor are in SBUF.
  bool a_space = false, b_space = false, o_space = false;
  unsigned a_fmt = 0, a_bias = 0, b_fmt = 0, b_bias = 0, o_fmt = 0, o_bias = 0;
  bool o_sr = false, o_sat = false, o_mx = false, mx_neuron = false;
  std::array<std::uint32_t, kDims> size{1, 1, 1, 1}, a_stride{}, b_stride{}, o_stride{};
  Alu alu0 = Alu::add, alu1 = Alu::bypass;
  std::uint32_t imm0 = 0, imm1 = 0;
  bool s0_vec = false, s1_vec = false;
  unsigned func = 0;
  bool acc = false, acc_clr = false;
};

/// What an engine instance is: its kind, lanes (partitions) and SBUF bytes per partition.
struct Shape {
  Engine engine = Engine::vector;
  unsigned lanes = 4;
  std::uint32_t bytes = 1024;
  std::uint32_t psum_bytes = 512;  ///< PSUM bytes per partition (banks x bank bytes)
  /// Partitions of a transpose group and of an MX block: 32, or all lanes when fewer.
  unsigned group() const { return lanes < 32 ? lanes : 32; }
};

/// Reads tensor A (every element of the access pattern through read port 0).
bool reads_a(const Instr& in);
/// Reads tensor B (tensor_tensor, read port 1).
bool reads_b(const Instr& in);
/// Per-partition operands fetched before the stream (tensor_scalar, activate): 0, 1 or 2.
unsigned prologue_reads(const Instr& in);
/// Runs in the integer domain (int32 lanes): copy, tensor_tensor, tensor_scalar, tensor_reduce and
/// transpose with every operand an integer type; iota and memset with an integer output.
bool int_domain(const Instr& in);
/// The output access pattern's sizes: reduce drops dim 0, acc_store writes one element.
std::array<std::uint32_t, kDims> out_sizes(const Instr& in);
/// The element index of a pattern's first element: byte address `addr` of data type `dtype`.
std::uint64_t first_index(std::uint32_t addr, unsigned dtype);
/// The element offsets of an access pattern from its first element, in order (dim 0 fastest).
std::vector<std::uint64_t> pattern_offsets(const std::array<std::uint32_t, kDims>& size,
                                           const std::array<std::uint32_t, kDims>& stride);
/// The dispatch check (Err::none: legal). Order: op, type, partitions, pattern.
Err check(const Instr& in, const Shape& s);

}  // namespace trn::vector
