// trn::vector — the per-lane operations of the vector and scalar engines (SPEC 5.3,
// docs/vector.md): instruction and ALU codes, the data types (the number formats of SPEC 4 plus
// four integer types), the casts on the way in and out, the ALU and the vector engine's fast
// exponential. The cycle model (LaneEngine) and the functional reference (reference.hpp) both
// compute with these, and rtl/vector/le_pkg.sv implements the same functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trn::vector {

/// Instruction codes (cmd_op_i). The vector engine takes copy..transpose and set_seed; the scalar
/// engine takes activate, acc_store and set_seed.
enum class Op : std::uint8_t {
  copy = 0,
  tensor_tensor = 1,
  tensor_scalar = 2,
  tensor_reduce = 3,
  exp = 4,  ///< the fast exponential
  iota = 5,
  memset = 6,
  quantize_mx = 7,
  transpose = 8,
  activate = 9,
  acc_store = 10,
  set_seed = 11,
};
inline constexpr unsigned kOpCount = 12;

/// ALU codes (cmd_alu0_i, cmd_alu1_i).
enum class Alu : std::uint8_t {
  add = 0,
  sub = 1,
  mul = 2,
  max = 3,
  min = 4,
  bit_and = 5,
  bit_or = 6,
  bit_xor = 7,
  absmax = 8,  ///< tensor_reduce only: max(|a|, |b|)
  bypass = 9,  ///< tensor_scalar only: the operand is not used
  div = 10,    ///< FP32 only: IEEE division, RNE
};
inline constexpr unsigned kAluCount = 11;

enum class Engine : std::uint8_t { vector = 0, scalar = 1 };

/// Error codes (cpl_o.code).
enum class Err : std::uint8_t { none = 0, pattern = 1, partitions = 2, type = 3, op = 4 };

/// Data types: numerics::Format codes 0..9, then the integer types.
inline constexpr unsigned kInt32 = 10, kInt16 = 11, kInt8 = 12, kUint8 = 13, kDtypeCount = 14;
bool is_int_dtype(unsigned t);
bool is_valid_dtype(unsigned t);

std::string_view op_name(Op o);
std::optional<Op> parse_op(std::string_view s);
std::string_view alu_name(Alu a);
std::optional<Alu> parse_alu(std::string_view s);
std::string_view dtype_name(unsigned t);
std::optional<unsigned> parse_dtype(std::string_view s);

/// A stored element code (low bits of its 32-bit slot) -> lane value: FP32 bits, or an int32 in
/// the integer domain. Integer codes are sign- (uint8: zero-) extended and, outside the integer
/// domain, converted to FP32 with RNE.
std::uint32_t in_cast(unsigned t, unsigned bias, std::uint32_t code, bool int_dom);
/// Lane value -> element code of type t. Float types: numerics::encode (RNE or stochastic with
/// the lane's word, saturate flag, FP8 bias). Integer types: RNE to an integer (from FP32) and
/// saturation to the type's range; NaN gives 0.
std::uint32_t out_cast(unsigned t, unsigned bias, std::uint32_t v, bool int_dom, bool sr, bool sat, std::uint32_t rnd);

/// One ALU operation on two lane values (FP32, canonical NaN; or int32, wrapping).
/// FP32 max/min: NaN if either is NaN, -0 < +0. absmax: max(|a|, |b|).
std::uint32_t alu(Alu op, std::uint32_t a, std::uint32_t b, bool int_dom);

/// IEEE binary32 division, RNE, canonical NaN.
std::uint32_t fp32_div(std::uint32_t a, std::uint32_t b);
/// int32 -> FP32, RNE.
std::uint32_t int_to_fp32(std::int32_t v);
/// FP32 -> integer, RNE, saturated to [lo, hi]; NaN -> 0.
std::int64_t fp32_to_int(std::uint32_t x, std::int64_t lo, std::int64_t hi);

/// The vector engine's exponential: t = x log2(e) in one product, k = nearest integer, a degree-3
/// polynomial for 2^(t-k) on [-1/2, 1/2] (no table), scaled by 2^k. docs/vector.md gives its error.
std::uint32_t fast_exp(std::uint32_t x);
inline constexpr std::uint32_t kFastExpCoeffs[4] = {0x3F7FFB49u, 0x3F31798Fu, 0x3E786F0Au, 0x3D61FB30u};

}  // namespace trn::vector
