#include "vector/ops.hpp"

#include <array>
#include <cmath>

#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "scalar/activation.hpp"

namespace trn::vector {

using numerics::fp32_add;
using numerics::fp32_mul;
using numerics::kCanonicalNaN;

namespace {

constexpr std::array<std::string_view, kOpCount> kOpNames{
    "copy",   "tensor_tensor", "tensor_scalar", "tensor_reduce", "exp",       "iota",
    "memset", "quantize_mx",   "transpose",     "activate",      "acc_store", "set_seed"};
constexpr std::array<std::string_view, kAluCount> kAluNames{"add", "sub", "mul",    "max",    "min", "and",
                                                            "or",  "xor", "absmax", "bypass", "div"};
constexpr std::array<std::string_view, 4> kIntNames{"int32", "int16", "int8", "uint8"};

bool is_nan(std::uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }

/// A key whose unsigned order is the FP32 order with -0 < +0.
std::uint32_t order_key(std::uint32_t x) { return (x & 0x80000000u) ? ~x : (x | 0x80000000u); }

struct IntRange {
  std::int64_t lo, hi;
};
IntRange int_range(unsigned t) {
  switch (t) {
    case kInt16:
      return {-32768, 32767};
    case kInt8:
      return {-128, 127};
    case kUint8:
      return {0, 255};
    default:
      return {INT32_MIN, INT32_MAX};
  }
}

template <std::size_t N>
std::optional<unsigned> find_name(const std::array<std::string_view, N>& names, std::string_view s) {
  for (unsigned i = 0; i < N; ++i)
    if (names[i] == s) return i;
  return std::nullopt;
}

}  // namespace

bool is_int_dtype(unsigned t) { return t >= kInt32 && t <= kUint8; }
bool is_valid_dtype(unsigned t) { return t < kDtypeCount; }

std::string_view op_name(Op o) { return kOpNames.at(static_cast<unsigned>(o)); }
std::optional<Op> parse_op(std::string_view s) {
  if (auto i = find_name(kOpNames, s)) return static_cast<Op>(*i);
  return std::nullopt;
}
std::string_view alu_name(Alu a) { return kAluNames.at(static_cast<unsigned>(a)); }
std::optional<Alu> parse_alu(std::string_view s) {
  if (auto i = find_name(kAluNames, s)) return static_cast<Alu>(*i);
  return std::nullopt;
}
std::string_view dtype_name(unsigned t) {
  if (is_int_dtype(t)) return kIntNames[t - kInt32];
  return numerics::format_info(static_cast<numerics::Format>(t)).name;
}
std::optional<unsigned> parse_dtype(std::string_view s) {
  if (auto i = find_name(kIntNames, s)) return kInt32 + *i;
  if (auto f = numerics::parse_format(s)) return static_cast<unsigned>(*f);
  return std::nullopt;
}

std::uint32_t fp32_div(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t q = numerics::f32_bits(numerics::f32_from(a) / numerics::f32_from(b));
  return is_nan(q) ? kCanonicalNaN : q;
}

std::uint32_t int_to_fp32(std::int32_t v) { return numerics::f32_bits(static_cast<float>(v)); }

std::int64_t fp32_to_int(std::uint32_t x, std::int64_t lo, std::int64_t hi) {
  if (is_nan(x)) return 0;
  const double r = std::nearbyint(static_cast<double>(numerics::f32_from(x)));  // RNE (default mode)
  if (r < static_cast<double>(lo)) return lo;
  if (r > static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(r);
}

std::uint32_t in_cast(unsigned t, unsigned bias, std::uint32_t code, bool int_dom) {
  if (!is_int_dtype(t)) {
    const auto f = static_cast<numerics::Format>(t);
    return numerics::decode(f, code & numerics::code_mask(numerics::format_info(f)), static_cast<int>(bias));
  }
  std::int32_t v;
  switch (t) {
    case kInt16:
      v = static_cast<std::int16_t>(code & 0xFFFFu);
      break;
    case kInt8:
      v = static_cast<std::int8_t>(code & 0xFFu);
      break;
    case kUint8:
      v = static_cast<std::int32_t>(code & 0xFFu);
      break;
    default:
      v = static_cast<std::int32_t>(code);
      break;
  }
  return int_dom ? static_cast<std::uint32_t>(v) : int_to_fp32(v);
}

std::uint32_t out_cast(unsigned t, unsigned bias, std::uint32_t v, bool int_dom, bool sr, bool sat, std::uint32_t rnd) {
  if (is_int_dtype(t)) {
    const IntRange r = int_range(t);
    std::int64_t i;
    if (int_dom) {
      i = static_cast<std::int32_t>(v);
      i = i < r.lo ? r.lo : (i > r.hi ? r.hi : i);
    } else {
      i = fp32_to_int(v, r.lo, r.hi);
    }
    const unsigned bits = t == kInt32 ? 32 : (t == kInt16 ? 16 : 8);
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(i) & ((std::uint64_t{1} << bits) - 1));
  }
  numerics::Convert c;
  c.mode = sr ? numerics::Round::sr : numerics::Round::rne;
  c.saturate = sat;
  c.bias = static_cast<int>(bias);
  c.rnd = rnd;
  return numerics::encode(static_cast<numerics::Format>(t), v, c);
}

std::uint32_t alu(Alu op, std::uint32_t a, std::uint32_t b, bool int_dom) {
  if (int_dom) {
    const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
    switch (op) {
      case Alu::add:
        return a + b;
      case Alu::sub:
        return a - b;
      case Alu::mul:
        return a * b;
      case Alu::max:
        return sa > sb ? a : b;
      case Alu::min:
        return sa < sb ? a : b;
      case Alu::bit_and:
        return a & b;
      case Alu::bit_or:
        return a | b;
      case Alu::bit_xor:
        return a ^ b;
      case Alu::absmax: {
        // two's-complement magnitudes: |-2^31| stays -2^31
        const std::uint32_t ma = sa < 0 ? 0u - a : a, mb = sb < 0 ? 0u - b : b;
        return static_cast<std::int32_t>(ma) > static_cast<std::int32_t>(mb) ? ma : mb;
      }
      case Alu::bypass:
      case Alu::div:
        return a;  // div is FP32-only (rejected at dispatch)
    }
    return a;
  }
  switch (op) {
    case Alu::add:
      return fp32_add(a, b);
    case Alu::sub:
      return fp32_add(a, b ^ 0x80000000u);
    case Alu::mul:
      return fp32_mul(a, b);
    case Alu::max:
    case Alu::min:
    case Alu::absmax: {
      if (op == Alu::absmax) {
        a &= 0x7FFFFFFFu;
        b &= 0x7FFFFFFFu;
      }
      if (is_nan(a) || is_nan(b)) return kCanonicalNaN;
      const bool a_gt = order_key(a) > order_key(b);
      return (op == Alu::min) ? (a_gt ? b : a) : (a_gt ? a : b);
    }
    case Alu::bypass:
      return a;
    case Alu::div:
      return fp32_div(a, b);
    default:
      return kCanonicalNaN;  // bitwise ops are integer-domain only (rejected at dispatch)
  }
}

std::uint32_t fast_exp(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  if (!(x & 0x80000000u) && (x & 0x7FFFFFFFu) > 0x42B17218u) return 0x7F800000u;  // x > 88.7228
  if ((x & 0x80000000u) && (x & 0x7FFFFFFFu) > 0x42D00000u) return 0;             // x < -104
  constexpr std::uint32_t kLog2e = 0x3FB8AA3Bu, kShift = 0x4B400000u;
  const std::uint32_t t = fp32_mul(x, kLog2e);
  const std::uint32_t kf = fp32_add(fp32_add(t, kShift), kShift ^ 0x80000000u);
  const std::uint32_t f = fp32_add(t, kf ^ 0x80000000u);  // exact: the fraction of t
  std::uint32_t p = kFastExpCoeffs[3];
  for (int i = 2; i >= 0; --i) p = fp32_add(fp32_mul(p, f), kFastExpCoeffs[i]);
  return scalar::scale_pow2(p, static_cast<int>(numerics::f32_from(kf)));
}

}  // namespace trn::vector
