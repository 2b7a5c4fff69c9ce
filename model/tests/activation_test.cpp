// Boost.Test units of model/scalar: every activation's error against libm within the bounds of
// docs/activations.md, and the defined behaviour outside the valid ranges.
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "numerics/format.hpp"
#include "scalar/accuracy.hpp"

using namespace trn::scalar;
using trn::numerics::f32_bits;
using trn::numerics::f32_from;

namespace {
float act(Act f, float x) { return f32_from(activate(f, f32_bits(x))); }
}  // namespace

BOOST_AUTO_TEST_SUITE(activations)

BOOST_AUTO_TEST_CASE(errors_within_documented_bounds) {
  for (unsigned i = 0; i < kActCount; ++i) {
    const Act f = static_cast<Act>(i);
    const Bound b = documented_bound(f);
    const ErrorStats st = measure(f, 200000, 20261121);
    BOOST_TEST_MESSAGE(act_name(f) << ": " << st.max_ulp_fp32 << " ulp FP32, " << st.max_ulp_bf16 << " ulp BF16");
    BOOST_TEST(st.max_ulp_fp32 <= b.fp32, act_name(f) << " FP32 error " << st.max_ulp_fp32 << " ulp at "
                                                      << f32_from(st.worst_x) << " exceeds " << b.fp32);
    BOOST_TEST(st.max_ulp_bf16 <= b.bf16, act_name(f) << " BF16 error " << st.max_ulp_bf16 << " exceeds " << b.bf16);
    BOOST_TEST(st.samples > 100000u);
  }
}

BOOST_AUTO_TEST_CASE(the_measurement_can_fail) {
  // A bound the measurement must break: exp cannot be within 0.1 ulp everywhere.
  BOOST_TEST(measure(Act::exp, 20000, 1).max_ulp_fp32 > 0.1);
}

BOOST_AUTO_TEST_CASE(outside_the_valid_ranges) {
  const float inf = INFINITY;
  BOOST_TEST(act(Act::exp, 100.0f) == inf);
  BOOST_TEST(act(Act::exp, -200.0f) == 0.0f);
  BOOST_TEST(act(Act::exp, -inf) == 0.0f);
  BOOST_TEST(std::isnan(act(Act::log, -1.0f)));
  BOOST_TEST(act(Act::log, 0.0f) == -inf);
  BOOST_TEST(act(Act::log, inf) == inf);
  BOOST_TEST(act(Act::tanh, 30.0f) == 1.0f);
  BOOST_TEST(act(Act::tanh, -inf) == -1.0f);
  BOOST_TEST(std::signbit(act(Act::tanh, -0.0f)));
  BOOST_TEST(act(Act::sigmoid, 200.0f) == 1.0f);
  BOOST_TEST(act(Act::sigmoid, -200.0f) == 0.0f);
  BOOST_TEST(act(Act::silu, inf) == inf);
  BOOST_TEST((act(Act::silu, -inf) == 0.0f && std::signbit(act(Act::silu, -inf))));
  BOOST_TEST((act(Act::gelu, -inf) == 0.0f && std::signbit(act(Act::gelu, -inf))));
  BOOST_TEST(act(Act::gelu, inf) == inf);
  BOOST_TEST(act(Act::reciprocal, 0.0f) == inf);
  BOOST_TEST(act(Act::reciprocal, -0.0f) == -inf);
  BOOST_TEST(act(Act::reciprocal, 1e-40f) == inf);  // beyond FP32 range
  BOOST_TEST(act(Act::rsqrt, 0.0f) == inf);
  BOOST_TEST(std::isnan(act(Act::rsqrt, -1.0f)));
  BOOST_TEST(act(Act::rsqrt, inf) == 0.0f);
  BOOST_TEST((act(Act::sqrt, -0.0f) == 0.0f && std::signbit(act(Act::sqrt, -0.0f))));
  BOOST_TEST(std::isnan(act(Act::sqrt, -4.0f)));
  BOOST_TEST(act(Act::relu, -0.0f) == 0.0f);
  BOOST_TEST(!std::signbit(act(Act::relu, -0.0f)));
  for (unsigned i = 0; i < kActCount; ++i)
    BOOST_TEST(activate(static_cast<Act>(i), 0x7FA00001u) == trn::numerics::kCanonicalNaN);
}

BOOST_AUTO_TEST_CASE(exact_points) {
  BOOST_TEST(act(Act::exp, 0.0f) == 1.0f);
  BOOST_TEST(act(Act::log, 1.0f) == 0.0f);
  BOOST_TEST(act(Act::sqrt, 4.0f) == 2.0f);
  BOOST_TEST(act(Act::square, 3.0f) == 9.0f);
  BOOST_TEST(act(Act::sigmoid, 0.0f) == 0.5f);
}

BOOST_AUTO_TEST_SUITE_END()
