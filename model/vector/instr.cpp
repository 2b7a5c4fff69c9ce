#include "vector/instr.hpp"

#include "mem/elements.hpp"
#include "numerics/format.hpp"
#include "scalar/activation.hpp"

namespace trn::vector {

namespace {

bool is_bitwise(Alu a) { return a == Alu::bit_and || a == Alu::bit_or || a == Alu::bit_xor; }

/// Does a pattern of type `dtype` from byte address `addr` start aligned and end inside `bytes`?
bool fits(std::uint32_t addr, unsigned dtype, const std::array<std::uint32_t, kDims>& size,
          const std::array<std::uint32_t, kDims>& stride, std::uint32_t bytes) {
  std::uint64_t span = 1;  // the elements from the first to the last the pattern touches
  for (unsigned d = 0; d < kDims; ++d) span += static_cast<std::uint64_t>(size[d] - 1) * stride[d];
  return mem::elems_fit(addr, mem::dtype_esize(dtype), span, bytes);
}
constexpr std::array<std::uint32_t, kDims> kOne{1, 1, 1, 1}, kZero{};
constexpr unsigned kFp32 = 0, kE8m0 = 9;

bool op_legal(const Instr& in, Engine e) {
  const auto a0 = static_cast<unsigned>(in.alu0), a1 = static_cast<unsigned>(in.alu1);
  const auto ts_alu = [](unsigned a) { return a <= 7 || a == 9 || a == 10; };
  switch (in.op) {
    case Op::copy:
    case Op::exp:
    case Op::iota:
    case Op::memset:
    case Op::quantize_mx:
    case Op::transpose:
      return e == Engine::vector;
    case Op::tensor_tensor:
      return e == Engine::vector && (a0 <= 7 || a0 == 10);
    case Op::tensor_scalar:
      return e == Engine::vector && ts_alu(a0) && ts_alu(a1);
    case Op::tensor_reduce:
      return e == Engine::vector &&
             (in.alu0 == Alu::add || in.alu0 == Alu::max || in.alu0 == Alu::min || in.alu0 == Alu::absmax);
    case Op::activate:
      return e == Engine::scalar && in.func < scalar::kActCount;
    case Op::acc_store:
      return e == Engine::scalar;
    case Op::set_seed:
      return true;
  }
  return false;
}

}  // namespace

bool reads_a(const Instr& in) {
  switch (in.op) {
    case Op::copy:
    case Op::tensor_tensor:
    case Op::tensor_scalar:
    case Op::tensor_reduce:
    case Op::exp:
    case Op::quantize_mx:
    case Op::transpose:
    case Op::activate:
      return true;
    default:
      return false;
  }
}

bool reads_b(const Instr& in) { return in.op == Op::tensor_tensor; }

unsigned prologue_reads(const Instr& in) {
  if (in.op != Op::tensor_scalar && in.op != Op::activate) return 0;
  return (in.s0_vec ? 1u : 0u) + (in.s1_vec ? 1u : 0u);
}

bool int_domain(const Instr& in) {
  switch (in.op) {
    case Op::copy:
    case Op::tensor_scalar:
    case Op::tensor_reduce:
    case Op::transpose:
      return is_int_dtype(in.a_fmt) && is_int_dtype(in.o_fmt);
    case Op::tensor_tensor:
      return is_int_dtype(in.a_fmt) && is_int_dtype(in.b_fmt) && is_int_dtype(in.o_fmt);
    case Op::iota:
    case Op::memset:
      return is_int_dtype(in.o_fmt);
    default:
      return false;
  }
}

std::array<std::uint32_t, kDims> out_sizes(const Instr& in) {
  std::array<std::uint32_t, kDims> s = in.size;
  if (in.op == Op::tensor_reduce) s[0] = 1;
  if (in.op == Op::acc_store) s = {1, 1, 1, 1};
  return s;
}

std::uint64_t first_index(std::uint32_t addr, unsigned dtype) { return mem::base_index(addr, mem::dtype_esize(dtype)); }

std::vector<std::uint64_t> pattern_offsets(const std::array<std::uint32_t, kDims>& size,
                                           const std::array<std::uint32_t, kDims>& stride) {
  std::vector<std::uint64_t> v;
  for (std::uint32_t i3 = 0; i3 < size[3]; ++i3)
    for (std::uint32_t i2 = 0; i2 < size[2]; ++i2)
      for (std::uint32_t i1 = 0; i1 < size[1]; ++i1)
        for (std::uint32_t i0 = 0; i0 < size[0]; ++i0)
          v.push_back(std::uint64_t{i0} * stride[0] + std::uint64_t{i1} * stride[1] + std::uint64_t{i2} * stride[2] +
                      std::uint64_t{i3} * stride[3]);
  return v;
}

Err check(const Instr& in, const Shape& s) {
  if (static_cast<unsigned>(in.op) >= kOpCount || !op_legal(in, s.engine)) return Err::op;
  if (in.op == Op::set_seed) return Err::none;

  // types
  if (!is_valid_dtype(in.o_fmt)) return Err::type;
  if (reads_a(in) && !is_valid_dtype(in.a_fmt)) return Err::type;
  if (reads_b(in) && !is_valid_dtype(in.b_fmt)) return Err::type;
  if (int_domain(in)) {
    if ((in.op == Op::tensor_tensor || in.op == Op::tensor_scalar) && (in.alu0 == Alu::div || in.alu1 == Alu::div))
      return Err::type;  // division is FP32 only
  } else {
    if (in.op == Op::tensor_tensor && is_bitwise(in.alu0)) return Err::type;
    if (in.op == Op::tensor_scalar && (is_bitwise(in.alu0) || is_bitwise(in.alu1))) return Err::type;
  }
  // PSUM holds FP32, or INT32 (an integer matmul's sums)
  const auto psum_type = [](unsigned t) { return t == kFp32 || t == kInt32; };
  if ((reads_a(in) && in.a_space && !psum_type(in.a_fmt)) || (reads_b(in) && in.b_space && !psum_type(in.b_fmt)) ||
      (in.o_space && !psum_type(in.o_fmt)))
    return Err::type;
  if (in.op == Op::quantize_mx) {
    using numerics::Format;
    const auto a = static_cast<Format>(in.a_fmt), o = static_cast<Format>(in.o_fmt);
    if (!in.o_mx || in.o_sr || (a != Format::fp32 && a != Format::bf16) ||
        (o != Format::e4m3fn && o != Format::e5m2 && o != Format::e2m1))
      return Err::type;
  } else if (in.o_mx) {
    return Err::type;  // MX output from an op that does not quantize
  }

  // partitions
  if (in.pc == 0 || in.ps + in.pc > s.lanes) return Err::partitions;
  if ((in.op == Op::quantize_mx || in.op == Op::transpose) && (in.ps % s.group() != 0 || in.pc % s.group() != 0))
    return Err::partitions;

  // access patterns
  const auto room = [&](bool psum) { return psum ? s.psum_bytes : s.bytes; };
  if (in.op == Op::acc_store)
    return fits(in.o_addr, in.o_fmt, kOne, kZero, room(in.o_space)) ? Err::none : Err::pattern;
  std::uint64_t n = 1;
  for (unsigned d = 0; d < kDims; ++d) {
    if (in.size[d] == 0) return Err::pattern;
    n *= in.size[d];
  }
  if (in.op == Op::transpose && n != s.group()) return Err::pattern;
  if (reads_a(in) && !fits(in.a_addr, in.a_fmt, in.size, in.a_stride, room(in.a_space))) return Err::pattern;
  if (reads_b(in) && !fits(in.b_addr, in.b_fmt, in.size, in.b_stride, room(in.b_space))) return Err::pattern;
  if (!fits(in.o_addr, in.o_fmt, out_sizes(in), in.o_stride, room(in.o_space))) return Err::pattern;
  // quantize_mx: one E8M0 scale byte per output element, at the element's offset from sc_addr
  if (in.op == Op::quantize_mx && !fits(in.sc_addr, kE8m0, in.size, in.o_stride, s.bytes)) return Err::pattern;
  if (prologue_reads(in) > 0) {
    if (in.s0_vec && !fits(in.s0_addr, kFp32, kOne, kZero, s.bytes)) return Err::pattern;
    if (in.s1_vec && !fits(in.s1_addr, kFp32, kOne, kZero, s.bytes)) return Err::pattern;
  }
  return Err::none;
}

}  // namespace trn::vector
