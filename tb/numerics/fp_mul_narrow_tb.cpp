// Bench for rtl/numerics/fp_mul_narrow.sv in lockstep with trn::numerics::FpMulNarrow. Every
// product is also compared with the exact product computed in double from the two decoded
// operands (rounded once to FP32, NaN canonical); for FP8 and FP4 operands the product must be
// exact in FP32, and the bench checks that too.
#include <cmath>
#include <vector>

#include "fp_mul_narrow_ports.hpp"
#include "numerics/fp_mul_narrow.hpp"
#include "numerics/unit_env.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::numerics;

namespace {

const Format kFp8[] = {Format::e5m2, Format::e4m3, Format::e4m3fn, Format::e3m4};

struct NarrowBench : UnitEnv<FpMulNarrow> {
  Signal &fa, &ba, &fb, &bb, &a, &b, &y;
  unsigned lanes;
  explicit NarrowBench(Env& e)
      : UnitEnv(e, {e.cfg().arch.partitions}, 1),
        fa(e.sig("fmt_a_i")),
        ba(e.sig("bias_a_i")),
        fb(e.sig("fmt_b_i")),
        bb(e.sig("bias_b_i")),
        a(e.sig("a_i")),
        b(e.sig("b_i")),
        y(e.sig("y_o")),
        lanes(e.cfg().arch.partitions) {}

  struct Side {
    Format f;
    int bias;  // effective
  };

  static std::uint32_t reference(Side sa, std::uint32_t ca, Side sb, std::uint32_t cb, bool& exact) {
    const double p = static_cast<double>(f32_from(decode(sa.f, ca, sa.bias))) * f32_from(decode(sb.f, cb, sb.bias));
    if (std::isnan(p)) {
      exact = true;
      return kCanonicalNaN;
    }
    const float r = static_cast<float>(p);
    exact = std::isinf(p) || static_cast<double>(r) == p;
    return f32_bits(r);
  }

  /// Code pairs `lanes` per cycle.
  Task<> run(Side sa, Side sb, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs, bool must_be_exact) {
    fa.set(static_cast<unsigned>(sa.f));
    ba.set(static_cast<std::uint64_t>(sa.bias & 63));
    fb.set(static_cast<unsigned>(sb.f));
    bb.set(static_cast<std::uint64_t>(sb.bias & 63));
    for (std::size_t base = 0; base < pairs.size(); base += lanes) {
      Bits av(16 * lanes), bv(16 * lanes);
      std::vector<std::uint32_t> want(lanes);
      for (unsigned l = 0; l < lanes; ++l) {
        const auto& p = pairs[(base + l) % pairs.size()];
        av.set_slice(16 * l, 16, p.first);
        bv.set_slice(16 * l, 16, p.second);
        bool exact = true;
        want[l] = reference(sa, p.first, sb, p.second, exact);
        check(exact || !must_be_exact, "{} {:#x} x {} {:#x}: product not exact in FP32", format_info(sa.f).name,
              p.first, format_info(sb.f).name, p.second);
      }
      a.set(av);
      b.set(bv);
      push([this, av, bv, want, sa, sb] {
        const Bits out = y.bits();
        for (unsigned l = 0; l < lanes; ++l) {
          const auto got = static_cast<std::uint32_t>(out.slice(32 * l, 32));
          check(got == want[l], "{} {:#x} x {} {:#x}: DUT {:#010x} ({}), exact {:#010x} ({})", format_info(sa.f).name,
                av.slice(16 * l, 16), format_info(sb.f).name, bv.slice(16 * l, 16), got, f32_from(got), want[l],
                f32_from(want[l]));
        }
      });
      co_await next();
    }
    co_await drain();
  }
};

NarrowBench::Side std_side(Format f) { return {f, format_info(f).bias}; }

}  // namespace

TRN_TEST(exhaustive_fp8_pairs, .timeout_ns = 1e12) {
  // Every code pair of every FP8 variant pair at the standard biases (and E2M1 x E2M1).
  NarrowBench t(env);
  co_await t.start();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all;
  for (std::uint32_t x = 0; x < 256; ++x)
    for (std::uint32_t z = 0; z < 256; ++z) all.emplace_back(x, z);
  for (Format f : kFp8)
    for (Format g : kFp8) co_await t.run(std_side(f), std_side(g), all, true);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> fp4;
  for (std::uint32_t x = 0; x < 16; ++x)
    for (std::uint32_t z = 0; z < 16; ++z) fp4.emplace_back(x, z);
  co_await t.run(std_side(Format::e2m1), std_side(Format::e2m1), fp4, true);
}

TRN_TEST(fp8_biases, .timeout_ns = 1e11) {
  // Random FP8 code pairs under random bias registers (0..63) on each side.
  NarrowBench t(env);
  co_await t.start();
  auto r = env.rng("codes");
  for (int k = 0; k < 64; ++k) {
    const Format f = kFp8[r.below(4)], g = kFp8[r.below(4)];
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs(64);
    for (auto& p : pairs) p = {static_cast<std::uint32_t>(r.below(256)), static_cast<std::uint32_t>(r.below(256))};
    co_await t.run({f, static_cast<int>(r.below(64))}, {g, static_cast<int>(r.below(64))}, pairs, true);
  }
}

TRN_TEST(random_mixed_formats, .timeout_ns = 1e12) {
  // NUMERICS_VALUES (default 20000) random pairs of BF16, FP16, FP8 and E2M1 operands in every
  // combination of formats (BF16 products may round: subnormal and overflowing results).
  NarrowBench t(env);
  co_await t.start();
  auto r = env.rng("codes");
  const Format all[] = {Format::bf16,   Format::fp16, Format::e5m2, Format::e4m3,
                        Format::e4m3fn, Format::e3m4, Format::e2m1};
  const std::uint64_t n = scaled(env_count("NUMERICS_VALUES", 20000));
  const std::uint64_t per = std::max<std::uint64_t>(n / 49, 16);
  for (Format f : all)
    for (Format g : all) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs(per);
      const std::uint32_t ma = code_mask(format_info(f)), mb = code_mask(format_info(g));
      for (auto& p : pairs) p = {static_cast<std::uint32_t>(r.next()) & ma, static_cast<std::uint32_t>(r.next()) & mb};
      const bool fp8ish = f != Format::bf16 && g != Format::bf16;
      co_await t.run(std_side(f), std_side(g), pairs, fp8ish);
    }
}

TRN_TEST(unsupported_format_gives_zero, .timeout_ns = 1e8) {
  NarrowBench t(env);
  co_await t.start();
  auto r = env.rng("codes");
  for (unsigned f : {0u, 1u, 9u, 12u}) {
    t.fa.set(f);
    t.fb.set(r.range(2, 8));
    t.a.set(r.bits(16 * t.lanes));
    t.b.set(r.bits(16 * t.lanes));
    t.push([&t, f] { check(!t.y.bits().any(), "operand format {} gave a nonzero product", f); });
    co_await t.next();
  }
  co_await t.drain();
}

TRN_TEST(throughput) {
  NarrowBench t(env);
  co_await t.start();
  auto r = env.rng("codes");
  const std::uint64_t n = bench_cycles(20000);
  BenchTimer timer;
  for (std::uint64_t k = 0; k < n; ++k) {
    t.fa.set(r.range(2, 8));
    t.fb.set(r.range(2, 8));
    t.a.set(r.bits(16 * t.lanes));
    t.b.set(r.bits(16 * t.lanes));
    t.push([] {});
    co_await t.next();
  }
  co_await t.drain();
  timer.report(n);
  fmt::print("bench: unit=fp_mul_narrow lanes={} latency={} results_per_cycle={}\n", t.lanes, t.latency(), t.lanes);
}

TRN_BENCH_MAIN(Vfp_mul_narrow, "fp_mul_narrow")
