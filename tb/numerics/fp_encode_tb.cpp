// Bench for rtl/numerics/fp_encode.sv in lockstep with trn::numerics::FpEncode.
//   boundary_*       every boundary value of every format (FP8 at several biases) under RNE,
//                    RNE + saturate, stochastic, stochastic + saturate
//   random_values    NUMERICS_VALUES (default 20000) random FP32 values per format and mode
//   sr_*             stochastic rounding: every result is one of the two neighbours of the input,
//                    the mean of many roundings converges to the input, a seed reload repeats
//                    the sequence
// Besides the lockstep, each result is checked against its neighbours: the code's value must be
// the input itself or one of the two codes that bracket it (RNE: the nearer, ties to even).
#include <cmath>
#include <vector>

#include "fp_encode_ports.hpp"
#include "numerics/fp_convert_units.hpp"
#include "numerics/unit_env.hpp"
#include "numerics/vectors.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::numerics;

namespace {

const Format kFormats[] = {Format::bf16,   Format::fp16, Format::e5m2, Format::e4m3,
                           Format::e4m3fn, Format::e3m4, Format::e2m1, Format::e8m0};

struct Mode {
  bool sr, sat;
};
const Mode kModes[] = {{false, false}, {false, true}, {true, false}, {true, true}};

struct EncodeBench : UnitEnv<FpEncode> {
  Signal &fmt, &bias, &sr, &sat, &lane_en, &seed_load, &seed, &data, &code;
  unsigned lanes;
  explicit EncodeBench(Env& e)
      : UnitEnv(e, {e.cfg().arch.partitions}, 1),
        fmt(e.sig("fmt_i")),
        bias(e.sig("bias_i")),
        sr(e.sig("sr_i")),
        sat(e.sig("sat_i")),
        lane_en(e.sig("lane_en_i")),
        seed_load(e.sig("seed_load_i")),
        seed(e.sig("seed_i")),
        data(e.sig("data_i")),
        code(e.sig("code_o")),
        lanes(e.cfg().arch.partitions) {}

  Task<> begin() {
    co_await start();
    Bits en(lanes);
    for (unsigned l = 0; l < lanes; ++l) en.set_bit(l, true);
    lane_en.set(en);
    seed_load.set(0);
  }

  /// Configure format, bias and mode for the next conversions.
  void setup(Format f, int b, Mode m) {
    const FormatInfo& d = format_info(f);
    fmt.set(static_cast<unsigned>(f));
    bias.set(static_cast<std::uint64_t>(effective_bias(d, b) & 63));
    sr.set(m.sr);
    sat.set(m.sat);
  }

  /// The result must be the input's value or one of its two bracketing codes (RNE: the nearest).
  static void check_neighbours(Format f, int b, Mode m, std::uint32_t x, std::uint32_t c) {
    const FormatInfo& d = format_info(f);
    const float xv = f32_from(x);
    if (std::isnan(xv)) {
      check(c == nan_code(d), "{}: NaN input gave {:#x}", d.name, c);
      return;
    }
    const float cv = f32_from(decode(f, c, b));
    const float maxv = f32_from(decode(f, max_magnitude(d), b));
    if (std::isnan(cv)) {
      check(!d.is_signed && (xv <= 0 || std::isinf(xv)) && c == nan_code(d), "{}: {} gave NaN code {:#x}", d.name, xv,
            c);
      return;
    }
    if (std::isinf(cv)) {
      check(!m.sat && (std::isinf(xv) || std::fabs(xv) > maxv) && std::signbit(cv) == std::signbit(xv),
            "{}: {} gave {} (saturate {})", d.name, xv, cv, m.sat);
      return;
    }
    if (std::fabs(xv) > maxv) {
      check(std::fabs(cv) == maxv, "{}: {} beyond max {} gave {}", d.name, xv, maxv, cv);
      return;
    }
    // Bracketing codes: the largest code value <= |x| (binary search: magnitude codes are
    // monotonic in value) and the next one.
    const double ax = std::fabs(static_cast<double>(xv));
    std::uint32_t lo = 0, hi = max_magnitude(d);
    if (ax < f32_from(decode(f, 0, b))) {  // below the smallest value of a format without zero (E8M0)
      check(c == 0, "{}: {} below the minimum gave {:#x}", d.name, xv, c);
      return;
    }
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi + 1) / 2;
      if (f32_from(decode(f, mid, b)) <= ax)
        lo = mid;
      else
        hi = mid - 1;
    }
    const std::uint32_t lo_code = lo;
    const double lov = f32_from(decode(f, lo_code, b));
    const std::uint32_t mag = c & ((1u << (d.exp_bits + d.man_bits)) - 1);
    if (lov == ax) {
      check(mag == lo_code, "{}: exact value {} gave {}", d.name, xv, cv);
      return;
    }
    const double hiv = lo_code < max_magnitude(d) ? f32_from(decode(f, lo_code + 1, b)) : INFINITY;
    check(mag == lo_code || mag == lo_code + 1, "{}: {} gave {}, not a neighbour ({} or {})", d.name, xv, cv, lov, hiv);
    if (!m.sr) {
      const double dl = ax - lov, dh = hiv - ax;
      // Ties go to the even significand: the even code, or with no mantissa bits (E8M0) the
      // next power of two (significand 1 is odd, 2 = 10b is even).
      const bool tie_up = d.man_bits == 0 || lo_code % 2;
      const std::uint32_t want = dl < dh ? lo_code : dh < dl ? lo_code + 1 : (tie_up ? lo_code + 1 : lo_code);
      check(mag == want, "{}: RNE of {} gave {}, nearest-even is code {:#x}", d.name, xv, cv, want);
    }
  }

  /// Convert `xs`, `lanes` per cycle, checking every result's neighbours.
  Task<> convert(Format f, int b, Mode m, const std::vector<std::uint32_t>& xs) {
    setup(f, b, m);
    for (std::size_t base = 0; base < xs.size(); base += lanes) {
      Bits in(32 * lanes);
      std::vector<std::uint32_t> v(lanes);
      for (unsigned l = 0; l < lanes; ++l) {
        v[l] = xs[(base + l) % xs.size()];
        in.set_slice(32 * l, 32, v[l]);
      }
      data.set(in);
      push([this, f, b, m, v] {
        const Bits out = code.bits();
        for (unsigned l = 0; l < lanes; ++l)
          check_neighbours(f, b, m, v[l], static_cast<std::uint32_t>(out.slice(16 * l, 16)));
      });
      co_await next();
    }
  }
};

std::vector<int> biases_of(Format f) {
  if (format_info(f).adjustable_bias) return {-1, 0, 11, 40};
  return {-1};
}

}  // namespace

TRN_TEST(boundary_all_formats_modes, .timeout_ns = 1e9) {
  EncodeBench b(env);
  co_await b.begin();
  for (Format f : kFormats)
    for (int bias : biases_of(f)) {
      const auto xs = boundary_values(f, bias);
      for (Mode m : kModes) co_await b.convert(f, bias, m, xs);
    }
  co_await b.drain();
  info("{} boundary conversions checked", b.checked() * b.lanes);
}

TRN_TEST(random_values, .timeout_ns = 1e12) {
  // NUMERICS_VALUES random FP32 values per format (FP8: per bias) in each mode.
  EncodeBench b(env);
  co_await b.begin();
  const std::uint64_t n = scaled(env_count("NUMERICS_VALUES", 20000));
  auto r = env.rng("values");
  for (Format f : kFormats)
    for (int bias : biases_of(f))
      for (Mode m : kModes) {
        std::vector<std::uint32_t> xs(n / 4 + 1);
        for (auto& x : xs) x = random_value(r, f, bias);
        co_await b.convert(f, bias, m, xs);
      }
  co_await b.drain();
}

TRN_TEST(sr_unbiased_mean, .timeout_ns = 1e10) {
  // One value between two codes, rounded stochastically many times in every lane: each result is
  // a neighbour (checked per result) and the mean converges to the value. With n roundings the
  // mean's standard deviation is at most (hi - lo) / (2 sqrt n); the bound is 6 of those.
  EncodeBench b(env);
  co_await b.begin();
  b.seed.set(env.seed());
  b.seed_load.set(1);
  co_await RisingEdge(b.clk.signal());
  b.seed_load.set(0);
  const unsigned cycles = 4096;
  for (Format f : {Format::bf16, Format::e4m3, Format::e2m1}) {
    const FormatInfo& d = format_info(f);
    const std::uint32_t c = static_cast<std::uint32_t>(d.bias) << d.man_bits;  // 1.0; x between it and the next code
    const double lo = f32_from(decode(f, c)), hi = f32_from(decode(f, c + 1));
    for (double frac : {0.1, 0.5, 0.77, 1.0 / 3}) {
      const float x = static_cast<float>(lo + (hi - lo) * frac);
      double sum = 0;
      std::uint64_t count = 0;
      b.setup(f, -1, {true, false});
      Bits in(32 * b.lanes);
      for (unsigned l = 0; l < b.lanes; ++l) in.set_slice(32 * l, 32, f32_bits(x));
      b.data.set(in);
      for (unsigned k = 0; k < cycles; ++k) {
        b.push([&b, &sum, &count, f, x] {
          const Bits out = b.code.bits();
          for (unsigned l = 0; l < b.lanes; ++l) {
            const auto code = static_cast<std::uint32_t>(out.slice(16 * l, 16));
            EncodeBench::check_neighbours(f, -1, {true, false}, f32_bits(x), code);
            sum += f32_from(decode(f, code));
            ++count;
          }
        });
        co_await b.next();
      }
      co_await b.drain();
      const double mean = sum / static_cast<double>(count);
      const double bound = 6 * (hi - lo) / (2 * std::sqrt(static_cast<double>(count)));
      check(std::fabs(mean - x) <= bound, "{}: mean of {} stochastic roundings of {} is {} (bound +-{})", d.name, count,
            x, mean, bound);
      info("{} x={} n={} mean={} |err|={:.3g} bound={:.3g}", d.name, x, count, mean, std::fabs(mean - x), bound);
    }
  }
}

TRN_TEST(sr_seed_reload_repeats, .timeout_ns = 1e9) {
  // The same seed gives the same bits: convert a sequence, reload the seed, convert it again.
  EncodeBench b(env);
  co_await b.begin();
  auto r = env.rng("values");
  std::vector<std::uint32_t> xs(64 * b.lanes);
  for (auto& x : xs) x = random_value(r, Format::e5m2, -1);
  std::vector<Bits> first, second, other;
  for (auto* run : {&first, &second, &other}) {
    b.seed.set((run == &other ? 0x5EEDu : 0xC0FFEEu) ^ env.seed());
    b.seed_load.set(1);
    co_await RisingEdge(b.clk.signal());
    b.seed_load.set(0);
    b.setup(Format::e5m2, -1, {true, false});
    for (std::size_t base = 0; base < xs.size(); base += b.lanes) {
      Bits in(32 * b.lanes);
      for (unsigned l = 0; l < b.lanes; ++l) in.set_slice(32 * l, 32, xs[base + l]);
      b.data.set(in);
      b.push([&b, run] { run->push_back(b.code.bits()); });
      co_await b.next();
    }
    co_await b.drain();
  }
  check(first == second, "a reloaded seed did not repeat the stochastic roundings");
  check(first != other, "another seed gave the same stochastic roundings of {} values", xs.size());
}

TRN_TEST(sr_smallest_fraction, .timeout_ns = 1e9) {
  // Stochastic rounding at the end of its reach: 2^-33 in E2M1 lies 2^-32 of the smallest
  // subnormal (0.5) above 0, the least fraction the 32 random bits can lift: it rounds up only
  // when the word is all ones. 2^-34 lies below that and never rounds up. The seed makes lane 0's
  // first word 0xFFFFFFFF (xorshift32 of 0x5E6CFCE7); the other lanes get 2^-34 and other words.
  EncodeBench b(env);
  co_await b.begin();
  b.seed.set(0x5E6CFCE7u);
  b.seed_load.set(1);
  co_await RisingEdge(b.clk.signal());
  b.seed_load.set(0);
  b.setup(Format::e2m1, -1, {true, false});
  Bits in(32 * b.lanes);
  in.set_slice(0, 32, 0x2F000000u);                                              // 2^-33
  for (unsigned l = 1; l < b.lanes; ++l) in.set_slice(32 * l, 32, 0x2E800000u);  // 2^-34
  b.data.set(in);
  Bits got;
  b.push([&b, &got] { got = b.code.bits(); });
  co_await b.next();
  co_await b.drain();
  check(got.slice(0, 16) == 0x1, "2^-33 with the random word all ones: code {:#x}, expected 0x1 (0.5)",
        got.slice(0, 16));
  for (unsigned l = 1; l < b.lanes; ++l)
    check(got.slice(16 * l, 16) == 0x0, "lane {}: 2^-34 rounded to code {:#x}, expected 0", l, got.slice(16 * l, 16));
}

TRN_TEST(lane_enable_and_bad_format, .timeout_ns = 1e8) {
  // Disabled lanes give 0 and do not step their generator (the lockstep checks the words);
  // unsupported formats give 0 in every lane.
  EncodeBench b(env);
  co_await b.begin();
  auto r = env.rng("values");
  for (int k = 0; k < 200; ++k) {
    const Bits en = r.bits(b.lanes);
    b.lane_en.set(en);
    const bool bad = r.chance(0.2);
    b.fmt.set(bad ? (r.chance(0.5) ? r.below(2) : r.range(10, 15)) : r.range(2, 9));
    b.bias.set(r.below(64));
    b.sr.set(r.chance(0.5));
    b.sat.set(r.chance(0.5));
    b.data.set(r.bits(32 * b.lanes));
    b.push([&b, en, bad] {
      const Bits out = b.code.bits();
      for (unsigned l = 0; l < b.lanes; ++l)
        if (bad || !en.bit(l))
          check(out.slice(16 * l, 16) == 0, "lane {} (enabled {}, bad format {}) gave a code", l, en.bit(l), bad);
    });
    co_await b.next();
  }
  co_await b.drain();
}

TRN_TEST(selftest_neighbour_check_catches_wrong_code, .timeout_ns = 1e6, .expect_fail = true) {
  // The neighbour check must be able to fail: 1.3 in E4M3 lies between 1.25 and 1.375, and a
  // code two steps away must be reported.
  expect_failure([](const TestFailure& f) {
    check(std::string(f.what()).find("not a neighbour") != std::string::npos, "wrong failure: {}", f.what());
  });
  const std::uint32_t right = encode(Format::e4m3, f32_bits(1.3f));
  EncodeBench::check_neighbours(Format::e4m3, -1, {false, false}, f32_bits(1.3f), right);  // passes
  EncodeBench::check_neighbours(Format::e4m3, -1, {false, false}, f32_bits(1.3f), right + 2);
  co_return;
}

TRN_TEST(throughput) {
  EncodeBench b(env);
  co_await b.begin();
  auto r = env.rng("values");
  const std::uint64_t n = bench_cycles(20000);
  BenchTimer t;
  for (std::uint64_t k = 0; k < n; ++k) {
    b.fmt.set(r.range(2, 9));
    b.sr.set(k & 1);
    b.data.set(r.bits(32 * b.lanes));
    b.push([] {});
    co_await b.next();
  }
  co_await b.drain();
  t.report(n);
  fmt::print("bench: unit=fp_encode lanes={} latency={} results_per_cycle={}\n", b.lanes, b.latency(), b.lanes);
}

TRN_BENCH_MAIN(Vfp_encode, "fp_encode")
