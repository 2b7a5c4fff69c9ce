// Bench for rtl/scalar/act_unit.sv in lockstep with trn::scalar::ActUnit. Besides the lockstep,
// every result is checked against the host's libm: within the documented bound of
// docs/activations.md inside the valid range (model/scalar/accuracy.hpp's reference).
#include <cmath>
#include <vector>

#include "act_unit_ports.hpp"
#include "numerics/format.hpp"
#include "numerics/unit_env.hpp"
#include "scalar/accuracy.hpp"
#include "scalar/act_unit.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::scalar;
using numerics::f32_bits;
using numerics::f32_from;

namespace {

struct ActBench : UnitEnv<ActUnit> {
  Signal &func, &x, &y;
  unsigned lanes;
  explicit ActBench(Env& e)
      : UnitEnv(e, {e.cfg().arch.partitions}, 1),
        func(e.sig("func_i")),
        x(e.sig("x_i")),
        y(e.sig("y_o")),
        lanes(e.cfg().arch.partitions) {}

  /// Inputs `lanes` per cycle; in-range results must be within the bound of libm.
  Task<> run(Act f, const std::vector<float>& xs) {
    func.set(static_cast<unsigned>(f));
    const ValidRange vr = valid_range(f);
    for (std::size_t base = 0; base < xs.size(); base += lanes) {
      Bits in(32 * lanes);
      std::vector<float> v(lanes);
      for (unsigned l = 0; l < lanes; ++l) {
        v[l] = xs[(base + l) % xs.size()];
        in.set_slice(32 * l, 32, f32_bits(v[l]));
      }
      x.set(in);
      push([this, f, v, vr] {
        const Bits out = y.bits();
        for (unsigned l = 0; l < lanes; ++l) {
          const double xv = v[l];
          if (!(xv >= vr.lo && xv <= vr.hi)) continue;  // outside: the lockstep checks the defined value
          const double ref = reference(f, xv);
          if (!std::isfinite(ref) || std::fabs(ref) > 3.4028234663852886e38) continue;
          const double got = f32_from(static_cast<std::uint32_t>(out.slice(32 * l, 32)));
          const double err = std::fabs(got - ref) / ulp_of(ref, 23);
          const double bound = documented_bound(f).fp32;
          check(err <= bound, "{}({}) = {}: {:.2f} ulp from libm's {}, bound {}", act_name(f), v[l], got, err, ref,
                bound);
        }
      });
      co_await next();
    }
    co_await drain();
  }
};

std::vector<float> inputs(Rng& r, Act f, std::size_t n) {
  const ValidRange vr = valid_range(f);
  std::vector<float> xs;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(r.next() >> 11) * 0x1.0p-53;
    if (vr.log_spaced && (i & 1)) {
      const double lo = vr.lo < 0 ? 1e-30 : vr.lo;
      const double mag = std::exp(std::log(lo) + (std::log(vr.hi) - std::log(lo)) * u);
      xs.push_back(static_cast<float>(vr.lo < 0 && r.chance(0.5) ? -mag : mag));
    } else {
      xs.push_back(static_cast<float>(vr.lo + (vr.hi - vr.lo) * u));
    }
  }
  return xs;
}

}  // namespace

TRN_TEST(every_function_random, .timeout_ns = 1e11) {
  // NUMERICS_VALUES (default 4000) inputs per function over its valid range.
  ActBench t(env);
  co_await t.start();
  auto r = env.rng("inputs");
  const std::size_t n = scaled(env_count("NUMERICS_VALUES", 4000));
  for (unsigned i = 0; i < kActCount; ++i) co_await t.run(static_cast<Act>(i), inputs(r, static_cast<Act>(i), n));
}

TRN_TEST(special_values, .timeout_ns = 1e9) {
  // NaN, +-0, +-Inf, subnormals, extremes, the range ends and the kernels' segment boundaries:
  // the lockstep checks the defined results outside the valid ranges.
  ActBench t(env);
  co_await t.start();
  std::vector<float> xs{NAN,
                        0.0f,
                        -0.0f,
                        INFINITY,
                        -INFINITY,
                        1e-45f,
                        -1e-45f,
                        1e-40f,
                        1.17549435e-38f,
                        3.4028235e38f,
                        -3.4028235e38f,
                        1.0f,
                        -1.0f,
                        2.0f,
                        4.0f,
                        0.5f,
                        88.72f,
                        88.73f,
                        -87.3f,
                        -103.9f,
                        -104.1f,
                        16.0f,
                        -16.0f,
                        15.99f,
                        1.4142135f,
                        0.70710677f,
                        2.4414062e-4f,
                        -2.4414062e-4f,
                        0.34657359f,
                        9.0f};
  for (unsigned i = 0; i < kActCount; ++i) co_await t.run(static_cast<Act>(i), xs);
  // an unknown function code gives the canonical NaN (lockstep and here)
  t.func.set(12);
  t.x.set(Bits(32 * t.lanes, f32_bits(1.0f)));
  t.push([&t] { check(t.y.bits().slice(0, 32) == numerics::kCanonicalNaN, "function code 12 did not give NaN"); });
  co_await t.next();
  co_await t.drain();
}

TRN_TEST(throughput) {
  ActBench t(env);
  co_await t.start();
  auto r = env.rng("inputs");
  const std::uint64_t n = bench_cycles(20000);
  BenchTimer timer;
  for (std::uint64_t k = 0; k < n; ++k) {
    t.func.set(r.below(kActCount));
    t.x.set(r.bits(32 * t.lanes));
    t.push([] {});
    co_await t.next();
  }
  co_await t.drain();
  timer.report(n);
  fmt::print("bench: unit=act_unit lanes={} latency={} results_per_cycle={}\n", t.lanes, t.latency(), t.lanes);
}

TRN_BENCH_MAIN(Vact_unit, "act_unit")
