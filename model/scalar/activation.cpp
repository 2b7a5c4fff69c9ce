#include "scalar/activation.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "act_coeffs.hpp"
#include "numerics/arith.hpp"

namespace trn::scalar {

using numerics::fp32_add;
using numerics::fp32_mul;
using numerics::kCanonicalNaN;

namespace {

constexpr std::array<std::string_view, kActCount> kNames{"identity", "relu", "exp",        "log",   "tanh", "sigmoid",
                                                         "gelu",     "silu", "reciprocal", "rsqrt", "sqrt", "square"};
constexpr unsigned kDegree = 4;

constexpr std::uint32_t kOne = 0x3F800000u, kNegZero = 0x80000000u, kPosInf = 0x7F800000u;
constexpr std::uint32_t kSign = 0x80000000u;

bool is_nan(std::uint32_t x) { return (x & 0x7FFFFFFFu) > kPosInf; }
bool is_inf(std::uint32_t x) { return (x & 0x7FFFFFFFu) == kPosInf; }
bool is_zero(std::uint32_t x) { return (x & 0x7FFFFFFFu) == 0; }
std::uint32_t neg(std::uint32_t x) { return x ^ kSign; }
std::uint32_t bits(float f) { return numerics::f32_bits(f); }

/// 2^k as FP32 bits, k in [-126, 127].
std::uint32_t pow2(int k) { return static_cast<std::uint32_t>(k + 127) << 23; }

/// p * 2^k with one rounding (p normal, |p| in [0.25, 4)): a first exact step by 2^+-64 when 2^k
/// itself is not a normal FP32 value.
std::uint32_t scale(std::uint32_t p, int k) {
  if (k > 127) {
    p = fp32_mul(p, pow2(64));
    k -= 64;
  } else if (k < -126) {
    p = fp32_mul(p, pow2(-64));
    k += 64;
  }
  return fp32_mul(p, pow2(k));
}

/// |x| = m * 2^e with m in [1, 2) as FP32 bits (x finite, nonzero).
void split(std::uint32_t x, std::uint32_t& m, int& e) {
  std::uint32_t ex = (x >> 23) & 0xFF, fr = x & 0x7FFFFF;
  if (ex == 0) {  // subnormal: normalize
    int lz = 0;
    while (!(fr & 0x800000)) {
      fr <<= 1;
      ++lz;
    }
    e = -126 - lz;
    fr &= 0x7FFFFF;
  } else {
    e = static_cast<int>(ex) - 127;
  }
  m = kOne | fr;
}

}  // namespace

std::string_view act_name(Act f) { return kNames.at(static_cast<unsigned>(f)); }

std::optional<Act> parse_act(std::string_view name) {
  std::string l(name);
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  for (unsigned i = 0; i < kActCount; ++i)
    if (kNames[i] == l) return static_cast<Act>(i);
  return std::nullopt;
}

std::uint32_t eval_kernel(Kernel kid, std::uint32_t v) {
  const auto& k = table::kKernels[static_cast<unsigned>(kid)];
  const bool negative = v >> 31;
  const std::uint32_t a = v & 0x7FFFFFFFu;
  const int e = static_cast<int>((a >> 23) & 0xFF) - 127;
  const unsigned kM = k.mbits;
  const unsigned per_sign = (k.small ? 1 : 0) + static_cast<unsigned>(k.emax - k.emin) * (1u << kM);
  unsigned idx;
  std::uint32_t start;
  if (a == 0 || e < k.emin) {  // the small segment [0, 2^emin) (kernels that have one)
    idx = 0;
    start = 0;
  } else {
    const unsigned j = (a >> (23 - kM)) & ((1u << kM) - 1);
    idx = (k.small ? 1 : 0) + static_cast<unsigned>(e - k.emin) * (1u << kM) + j;
    start = a & ~((1u << (23 - kM)) - 1);  // the segment's first value: exponent and top bits
  }
  if (k.is_signed && negative) idx += per_sign;
  const std::uint32_t u = fp32_add(a, neg(start));  // exact
  const std::uint32_t* c = &table::kCoeffs[k.base + idx * (kDegree + 1)];
  std::uint32_t p = c[kDegree];
  for (unsigned i = kDegree; i-- > 0;) p = fp32_add(fp32_mul(p, u), c[i]);
  return p;
}

std::uint32_t scale_pow2(std::uint32_t p, int k) { return scale(p, k); }

namespace {

std::uint32_t act_exp(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  const float xf = numerics::f32_from(x);
  if (xf > 88.72283935546875f) return kPosInf;  // e^x beyond FP32
  if (xf < -104.0f) return 0;                   // below half the smallest subnormal
  // k = nearest integer to x log2(e) (the 1.5 * 2^23 shifter), r = x - k ln2 in two parts
  constexpr std::uint32_t kLog2e = 0x3FB8AA3Bu, kShift = 0x4B400000u;
  constexpr std::uint32_t kLn2Hi = 0x3F317200u, kLn2Lo = 0x35BFBE8Eu;
  const std::uint32_t kf = fp32_add(fp32_add(fp32_mul(x, kLog2e), kShift), neg(kShift));
  const int k = static_cast<int>(numerics::f32_from(kf));
  const std::uint32_t r = fp32_add(fp32_add(x, neg(fp32_mul(kf, kLn2Hi))), neg(fp32_mul(kf, kLn2Lo)));
  return scale(eval_kernel(Kernel::exp, r), k);
}

std::uint32_t act_log(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  if (is_zero(x)) return kSign | kPosInf;  // -Inf
  if (x >> 31) return kCanonicalNaN;
  if (is_inf(x)) return kPosInf;
  std::uint32_t m;
  int e;
  split(x, m, e);
  if (m > 0x3FB504F3u) {  // m > sqrt(2): use m / 2 (exact) so that m - 1 stays near 0
    m -= 1u << 23;
    ++e;
  }
  const std::uint32_t t = fp32_add(m, neg(kOne));  // exact
  constexpr std::uint32_t kLn2Hi = 0x3F317200u, kLn2Lo = 0x35BFBE8Eu;
  const std::uint32_t ef = bits(static_cast<float>(e));
  return fp32_add(fp32_add(fp32_mul(ef, kLn2Lo), eval_kernel(Kernel::log1p, t)), fp32_mul(ef, kLn2Hi));
}

std::uint32_t act_tanh(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  const std::uint32_t a = x & 0x7FFFFFFFu, s = x & kSign;
  if (a >= 0x41800000u) return s | kOne;  // |x| >= 16: +-1
  return s ^ eval_kernel(Kernel::tanh, a);
}

std::uint32_t act_recip(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  const std::uint32_t s = x & kSign;
  if (is_zero(x)) return s | kPosInf;
  if (is_inf(x)) return s;
  std::uint32_t m;
  int e;
  split(x, m, e);
  return s | scale(eval_kernel(Kernel::recip, m), -e);
}

/// v = m2 in [1, 4) and the even exponent e2 with |x| = m2 * 2^e2.
void split_even(std::uint32_t x, std::uint32_t& v, int& e2) {
  std::uint32_t m;
  int e;
  split(x, m, e);
  if (e & 1) {
    v = m + (1u << 23);  // m * 2
    e2 = e - 1;
  } else {
    v = m;
    e2 = e;
  }
}

std::uint32_t act_rsqrt(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  if (is_zero(x)) return (x & kSign) | kPosInf;
  if (x >> 31) return kCanonicalNaN;
  if (is_inf(x)) return 0;
  std::uint32_t v;
  int e2;
  split_even(x, v, e2);
  return scale(eval_kernel(Kernel::rsqrt, v), -e2 / 2);
}

std::uint32_t act_sqrt(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  if (is_zero(x)) return x;
  if (x >> 31) return kCanonicalNaN;
  if (is_inf(x)) return kPosInf;
  std::uint32_t v;
  int e2;
  split_even(x, v, e2);
  return scale(eval_kernel(Kernel::sqrt, v), e2 / 2);
}

/// 1 / (1 + e^-x): exp and reciprocal kernels; no cancellation for either sign.
std::uint32_t act_sigmoid(std::uint32_t x) {
  if (is_nan(x)) return kCanonicalNaN;
  return act_recip(fp32_add(kOne, act_exp(neg(x))));
}

}  // namespace

std::uint32_t activate(Act f, std::uint32_t x) {
  switch (f) {
    case Act::identity:
      return is_nan(x) ? kCanonicalNaN : x;
    case Act::relu:
      if (is_nan(x)) return kCanonicalNaN;
      return (x >> 31) || is_zero(x) ? 0 : x;
    case Act::exp:
      return act_exp(x);
    case Act::log:
      return act_log(x);
    case Act::tanh:
      return act_tanh(x);
    case Act::sigmoid:
      return act_sigmoid(x);
    case Act::silu:  // x * sigmoid(x); -Inf gives -0 (the limit), not -Inf * 0
      if (x == (kSign | kPosInf)) return kNegZero;
      return fp32_mul(x, act_sigmoid(x));
    case Act::gelu: {  // 0.5 x (1 + tanh(z)) = x * sigmoid(2z): no cancellation for negative x
      if (is_nan(x)) return kCanonicalNaN;
      if (x == (kSign | kPosInf)) return kNegZero;
      constexpr std::uint32_t kC = 0x3D372713u /* 0.044715 */, k2S = 0x3FCC422Au /* 2 sqrt(2/pi) */;
      const std::uint32_t x3 = fp32_mul(fp32_mul(x, x), x);
      const std::uint32_t z2 = fp32_mul(k2S, fp32_add(x, fp32_mul(kC, x3)));
      return fp32_mul(x, act_sigmoid(z2));
    }
    case Act::reciprocal:
      return act_recip(x);
    case Act::rsqrt:
      return act_rsqrt(x);
    case Act::sqrt:
      return act_sqrt(x);
    case Act::square:
      return fp32_mul(x, x);
  }
  return kCanonicalNaN;
}

}  // namespace trn::scalar
