#include "scalar/accuracy.hpp"

#include <algorithm>
#include <cmath>

#include "numerics/format.hpp"
#include "numerics/sr_rng.hpp"

namespace trn::scalar {

ValidRange valid_range(Act f) {
  switch (f) {
    case Act::identity:
    case Act::relu:
      return {-1e30, 1e30, true};
    case Act::exp:
      return {-87.0, 88.7, false};
    case Act::log:
      return {1.2e-38, 3.4e38, true};
    case Act::tanh:
      return {-20.0, 20.0, false};
    case Act::sigmoid:
    case Act::silu:
      return {-80.0, 80.0, false};
    case Act::gelu:
      return {-10.0, 10.0, false};
    case Act::reciprocal:
      return {-8.5e37, 8.5e37, true};
    case Act::rsqrt:
    case Act::sqrt:
      return {1e-45, 3.4e38, true};
    case Act::square:
      return {-1.8e19, 1.8e19, true};
  }
  return {0, 0, false};
}

double reference(Act f, double x) {
  switch (f) {
    case Act::identity:
      return x;
    case Act::relu:
      return x > 0 ? x : 0.0;
    case Act::exp:
      return std::exp(x);
    case Act::log:
      return std::log(x);
    case Act::tanh:
      return std::tanh(x);
    case Act::sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Act::silu:
      return x / (1.0 + std::exp(-x));
    case Act::gelu: {  // 0.5 x (1 + tanh z) written as x / (1 + e^-2z): no cancellation in double
      const double z = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
      return x / (1.0 + std::exp(-2.0 * z));
    }
    case Act::reciprocal:
      return 1.0 / x;
    case Act::rsqrt:
      return 1.0 / std::sqrt(x);
    case Act::sqrt:
      return std::sqrt(x);
    case Act::square:
      return x * x;
  }
  return 0;
}

Bound documented_bound(Act f) {
  switch (f) {
    case Act::identity:
    case Act::relu:
      return {0, 0.51};
    case Act::exp:
    case Act::log:
    case Act::tanh:
    case Act::rsqrt:
    case Act::sqrt:
      return {1.5, 0.51};
    case Act::sigmoid:
      return {4, 0.51};
    case Act::silu:
      return {4.5, 0.51};
    case Act::gelu:
      return {256, 0.51};
    case Act::reciprocal:
      return {2, 0.51};
    case Act::square:
      return {0.5, 0.51};
  }
  return {0, 0};
}

double ulp_of(double r, int man) {
  const int e = r == 0 ? -126 : std::max(std::ilogb(r), -126);
  return std::ldexp(1.0, e - man);
}

ErrorStats measure(Act f, std::uint64_t n, std::uint64_t seed) {
  return measure_impl(
      f, [f](std::uint32_t x) { return activate(f, x); }, n, seed);
}

ErrorStats measure_impl(Act f, const std::function<std::uint32_t(std::uint32_t)>& impl, std::uint64_t n,
                        std::uint64_t seed) {
  const ValidRange vr = valid_range(f);
  numerics::Xorshift32 g(static_cast<std::uint32_t>(seed), 7);
  auto uni = [&] { return (static_cast<double>(g.next()) + 0.5) / 4294967296.0; };
  ErrorStats st;
  for (std::uint64_t i = 0; i < n + 2; ++i) {
    double xd;
    if (i == n) {
      xd = vr.lo;
    } else if (i == n + 1) {
      xd = vr.hi;
    } else if (vr.log_spaced && (i & 1)) {
      const double lo = vr.lo < 0 ? std::min(1e-30, vr.hi) : vr.lo;
      const double mag = std::exp(std::log(lo) + (std::log(vr.hi) - std::log(lo)) * uni());
      xd = vr.lo < 0 && uni() < 0.5 ? -mag : mag;
    } else {
      xd = vr.lo + (vr.hi - vr.lo) * uni();
    }
    const float xf = static_cast<float>(xd);
    const std::uint32_t x = numerics::f32_bits(xf);
    const double ref = reference(f, static_cast<double>(xf));
    if (!std::isfinite(ref) || std::fabs(ref) > 3.4028234663852886e38) continue;
    const double y = numerics::f32_from(impl(x));
    const double e32 = std::fabs(y - ref) / ulp_of(ref, 23);
    const std::uint32_t yb = numerics::decode(
        numerics::Format::bf16, numerics::encode(numerics::Format::bf16, numerics::f32_bits(static_cast<float>(y))));
    const double e16 = std::fabs(static_cast<double>(numerics::f32_from(yb)) - ref) / ulp_of(ref, 7);
    if (!(e32 <= st.max_ulp_fp32)) {  // NaN counts as the worst
      st.max_ulp_fp32 = std::isnan(e32) ? INFINITY : e32;
      st.worst_x = x;
    }
    if (!(e16 <= st.max_ulp_bf16)) st.max_ulp_bf16 = std::isnan(e16) ? INFINITY : e16;
    ++st.samples;
  }
  return st;
}

}  // namespace trn::scalar
