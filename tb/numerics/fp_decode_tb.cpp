// Bench for rtl/numerics/fp_decode.sv: every code of every format (FP8 at several biases) decoded
// by the RTL in lockstep with trn::numerics::FpDecode; each result re-encoded by the model must
// give back its code (round trip; NaN codes -> the canonical NaN), and must equal the value
// computed independently in double from the code's fields.
#include <cmath>

#include "fp_decode_ports.hpp"
#include "numerics/fp_convert_units.hpp"
#include "numerics/unit_env.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::numerics;

namespace {

struct DecodeBench : UnitEnv<FpDecode> {
  Signal &fmt, &bias, &code, &data;
  unsigned lanes;
  explicit DecodeBench(Env& e)
      : UnitEnv(e, {e.cfg().arch.partitions}, 1),
        fmt(e.sig("fmt_i")),
        bias(e.sig("bias_i")),
        code(e.sig("code_i")),
        data(e.sig("data_o")),
        lanes(e.cfg().arch.partitions) {}

  /// The value of `c` from its fields, in double (independent of numerics::decode).
  static double reference(const FormatInfo& d, std::uint32_t c, int b) {
    const bool neg = d.is_signed && ((c >> (d.bits - 1)) & 1);
    const std::uint32_t mag = c & ((1u << (d.exp_bits + d.man_bits)) - 1);
    const int field = static_cast<int>(mag >> d.man_bits);
    const double man = mag & ((1u << d.man_bits) - 1);
    const double v = (field == 0 && d.subnormals)
                         ? std::ldexp(man, 1 - b - static_cast<int>(d.man_bits))
                         : std::ldexp(std::ldexp(1.0, d.man_bits) + man, field - b - static_cast<int>(d.man_bits));
    return neg ? -v : v;
  }

  /// Decode codes [0, count) of f with bias register b, `lanes` per cycle.
  Task<> sweep(Format f, int b) {
    const FormatInfo& d = format_info(f);
    const std::uint32_t count = 1u << d.bits;
    const int eb = effective_bias(d, b);
    fmt.set(static_cast<unsigned>(f));
    bias.set(static_cast<std::uint64_t>(d.adjustable_bias ? eb : 0));  // the register the RTL always reads
    for (std::uint32_t base = 0; base < count; base += lanes) {
      Bits in(16 * lanes);
      for (unsigned l = 0; l < lanes; ++l) in.set_slice(16 * l, 16, (base + l) % count);
      code.set(in);
      push([this, &d, f, b, eb, base, count] {
        const Bits out = data.bits();
        for (unsigned l = 0; l < lanes; ++l) {
          const std::uint32_t c = (base + l) % count, x = static_cast<std::uint32_t>(out.slice(32 * l, 32));
          if (is_nan_code(d, c)) {
            check(x == kCanonicalNaN, "{} code {:#x}: NaN decoded as {:#010x}", d.name, c, x);
            continue;
          }
          if (is_inf_code(d, c)) {
            check(std::isinf(f32_from(x)) && std::signbit(f32_from(x)) == ((c >> (d.bits - 1)) & 1),
                  "{} code {:#x}: Inf decoded as {:#010x}", d.name, c, x);
          } else {
            const double want = reference(d, c, eb);
            check(static_cast<double>(f32_from(x)) == want && std::signbit(f32_from(x)) == std::signbit(want),
                  "{} bias {} code {:#x}: decoded {} ({:#010x}), fields give {}", d.name, eb, c, f32_from(x), x, want);
          }
          Convert cv;
          cv.bias = b;
          const std::uint32_t back = encode(f, x, cv);
          check(back == c, "{} bias {} code {:#x}: round trip through {:#010x} gives {:#x}", d.name, eb, c, x, back);
        }
      });
      co_await next();
    }
    co_await drain();
  }
};

const int kBiases[] = {-1, 0, 1, 10, 31, 63};  // -1: the standard bias

}  // namespace

TRN_TEST(exhaustive_bf16, .timeout_ns = 1e8) {
  DecodeBench b(env);
  co_await b.start();
  co_await b.sweep(Format::bf16, -1);
}

TRN_TEST(exhaustive_fp16, .timeout_ns = 1e8) {
  DecodeBench b(env);
  co_await b.start();
  co_await b.sweep(Format::fp16, -1);
}

TRN_TEST(exhaustive_fp8_biases, .timeout_ns = 1e8) {
  DecodeBench b(env);
  co_await b.start();
  for (Format f : {Format::e5m2, Format::e4m3, Format::e4m3fn, Format::e3m4})
    for (int bias : kBiases) co_await b.sweep(f, bias);
}

TRN_TEST(exhaustive_fp4_e8m0, .timeout_ns = 1e8) {
  DecodeBench b(env);
  co_await b.start();
  co_await b.sweep(Format::e2m1, -1);
  co_await b.sweep(Format::e8m0, -1);
}

TRN_TEST(unsupported_format_gives_zero, .timeout_ns = 1e7) {
  // FP32, TF32 and the unused codes 10..15 are not converter formats: every lane reads 0.
  DecodeBench b(env);
  co_await b.start();
  auto r = env.rng("codes");
  for (unsigned f : {0u, 1u, 10u, 11u, 15u}) {
    b.fmt.set(f);
    b.code.set(r.bits(16 * b.lanes));
    b.push([&b, f] { check(!b.data.bits().any(), "fmt {} decoded to nonzero data", f); });
    co_await b.next();
  }
  co_await b.drain();
}

TRN_TEST(throughput) {
  // make bench: random codes of random formats every cycle, BENCH_CYCLES cycles.
  DecodeBench b(env);
  co_await b.start();
  auto r = env.rng("codes");
  const std::uint64_t n = bench_cycles(20000);
  BenchTimer t;
  for (std::uint64_t k = 0; k < n; ++k) {
    b.fmt.set(r.range(2, 9));
    b.bias.set(r.below(64));
    b.code.set(r.bits(16 * b.lanes));
    b.push([] {});
    co_await b.next();
  }
  co_await b.drain();
  t.report(n);
  fmt::print("bench: unit=fp_decode lanes={} latency={} results_per_cycle={}\n", b.lanes, b.latency(), b.lanes);
}

TRN_BENCH_MAIN(Vfp_decode, "fp_decode")
