// Bench for rtl/numerics/mx_quantize.sv in lockstep with trn::numerics::MxQuantize, one block per
// cycle. Each block is also checked against a brute-force reference written here from the OCP MX
// rule: the scale from ilogb(amax) in double, and each element the code whose value times the
// scale is nearest to the input (ties to the even code), saturated to +-max.
#include <algorithm>
#include <cmath>
#include <vector>

#include "mx_quantize_ports.hpp"
#include "numerics/mx_quantize.hpp"
#include "numerics/unit_env.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::numerics;

namespace {

const Format kElems[] = {Format::e4m3fn, Format::e5m2, Format::e2m1};

struct MxBench : UnitEnv<MxQuantize> {
  Signal &elem, &neuron, &data, &scale, &codes;
  explicit MxBench(Env& e)
      : UnitEnv(e, {}, 2),
        elem(e.sig("elem_i")),
        neuron(e.sig("neuron_i")),
        data(e.sig("data_i")),
        scale(e.sig("scale_o")),
        codes(e.sig("codes_o")) {}

  struct Expect {
    std::uint32_t scale;
    std::vector<std::uint32_t> codes;
  };

  static Expect reference(const std::vector<std::uint32_t>& v, Format f, bool neu) {
    const FormatInfo& d = format_info(f);
    Expect e{0, std::vector<std::uint32_t>(kMxBlock, 0)};
    double amax = 0;
    for (auto x : v) {
      const double a = std::fabs(static_cast<double>(f32_from(x)));
      if (!std::isfinite(a)) {
        e.scale = 0xFF;
        return e;
      }
      amax = std::max(amax, a);
    }
    const double maxv = f32_from(decode(f, max_magnitude(d)));
    const int emax = std::ilogb(maxv);
    const int se = amax == 0 ? -127 : std::clamp(std::ilogb(amax) - emax + (neu ? 1 : 0), -127, 127);
    e.scale = static_cast<std::uint32_t>(se + 127);
    const std::uint32_t sign = 1u << (d.bits - 1);
    for (unsigned i = 0; i < kMxBlock; ++i) {
      const double x = std::ldexp(static_cast<double>(f32_from(v[i])), -se);  // exact
      const bool neg = std::signbit(x);
      std::uint32_t best = 0;
      double bestd = INFINITY;
      for (std::uint32_t c = 0; c <= max_magnitude(d); ++c) {
        const double dist = std::fabs(std::fabs(x) - f32_from(decode(f, c)));
        if (dist < bestd || (dist == bestd && c % 2 == 0)) {
          best = c;
          bestd = dist;
        }
      }
      e.codes[i] = (neg ? sign : 0) | best;  // beyond max, the nearest is max: saturation
    }
    return e;
  }

  /// `corrupt`: expect a wrong code for element 5 (the reference's self-test).
  void send(const std::vector<std::uint32_t>& v, Format f, bool neu, bool corrupt = false) {
    Bits in(32 * kMxBlock);
    for (unsigned i = 0; i < kMxBlock; ++i) in.set_slice(32 * i, 32, v[i]);
    data.set(in);
    elem.set(static_cast<unsigned>(f));
    neuron.set(neu);
    Expect e = reference(v, f, neu);
    if (corrupt) e.codes[5] ^= 1;
    push([this, e, f] {
      check(scale.get() == e.scale, "{} block: scale {:#04x}, reference {:#04x}", format_info(f).name, scale.get(),
            e.scale);
      const Bits c = codes.bits();
      for (unsigned i = 0; i < kMxBlock; ++i)
        check(c.slice(8 * i, 8) == e.codes[i], "{} element {}: code {:#04x}, reference {:#04x} (scale {:#04x})",
              format_info(f).name, i, c.slice(8 * i, 8), e.codes[i], e.scale);
    });
  }
};

/// A block of one of several shapes: normal spread, one outlier, extreme magnitudes (FP32 max and
/// subnormal ends, clamping the scale), zeros, NaN or Inf.
std::vector<std::uint32_t> random_block(Rng& r) {
  std::vector<std::uint32_t> v(kMxBlock);
  const unsigned shape = static_cast<unsigned>(r.below(8));
  const int base = static_cast<int>(r.range(0, 60)) - 30;
  for (auto& x : v) {
    const float m = static_cast<float>(std::ldexp(static_cast<double>(r.next() >> 11) * 0x1.0p-53 * 2 - 1, base));
    x = f32_bits(m);
  }
  switch (shape) {
    case 0:  // huge: the amax exponent near FP32's top
      for (auto& x : v) x = (x & 0x807FFFFFu) | (static_cast<std::uint32_t>(r.range(200, 254)) << 23);
      break;
    case 1:  // tiny and subnormal: the scale clamps at 2^-127
      for (auto& x : v) x &= r.chance(0.5) ? 0x807FFFFFu : 0x81FFFFFFu;
      break;
    case 2:  // all zero (both signs)
      for (auto& x : v) x &= 0x80000000u;
      break;
    case 3:  // one NaN or Inf
      v[r.below(kMxBlock)] = r.chance(0.5) ? 0x7FC00000u : (r.chance(0.5) ? 0x7F800000u : 0xFF800000u);
      break;
    case 4:  // one outlier, the rest small
      v[r.below(kMxBlock)] ^= 0x0A000000u;
      break;
    case 5:  // uniform bit patterns, finite
      for (auto& x : v) x = static_cast<std::uint32_t>(r.next()) & 0xFF7FFFFFu;
      break;
    default:
      break;
  }
  return v;
}

}  // namespace

TRN_TEST(random_blocks, .timeout_ns = 1e12) {
  // NUMERICS_BLOCKS (default 3000) blocks, back to back, every element type, both variants.
  MxBench t(env);
  co_await t.start();
  auto r = env.rng("blocks");
  const std::uint64_t n = scaled(env_count("NUMERICS_BLOCKS", 3000));
  for (std::uint64_t k = 0; k < n; ++k) {
    t.send(random_block(r), kElems[r.below(3)], r.chance(0.5));
    co_await t.next();
    if (r.chance(0.05)) co_await t.idle(static_cast<unsigned>(r.range(1, 3)));
  }
  co_await t.drain();
}

TRN_TEST(directed_blocks, .timeout_ns = 1e9) {
  // amax exactly at the element max (OCP: no saturation; Neuron: one exponent of headroom), amax
  // just above (OCP saturates), FP32 max and min subnormal, +-0 only.
  MxBench t(env);
  co_await t.start();
  for (Format f : kElems) {
    const float maxv = f32_from(decode(f, max_magnitude(format_info(f))));
    std::vector<std::vector<std::uint32_t>> blocks;
    std::vector<std::uint32_t> v(kMxBlock, f32_bits(1.0f));
    v[3] = f32_bits(maxv);
    blocks.push_back(v);
    v[3] = f32_bits(std::nextafter(2 * std::ldexp(1.0f, std::ilogb(maxv)), 0.0f));  // 1.99..*2^emax
    blocks.push_back(v);
    v.assign(kMxBlock, 0x7F7FFFFFu);
    blocks.push_back(v);
    v.assign(kMxBlock, 0x00000001u);
    blocks.push_back(v);
    v.assign(kMxBlock, 0x80000000u);
    blocks.push_back(v);
    for (const auto& b : blocks)
      for (bool neu : {false, true}) {
        t.send(b, f, neu);
        co_await t.next();
      }
  }
  co_await t.drain();
}

TRN_TEST(bad_element_type, .timeout_ns = 1e8) {
  MxBench t(env);
  co_await t.start();
  for (unsigned f : {0u, 2u, 5u, 9u, 15u}) {
    t.elem.set(f);
    t.data.set(Bits(32 * kMxBlock, 0x3F800000u));
    t.push([&t, f] { check(t.scale.get() == 0xFF && !t.codes.bits().any(), "element type {} not rejected", f); });
    co_await t.next();
  }
  co_await t.drain();
}

TRN_TEST(selftest_reference_catches_wrong_code, .timeout_ns = 1e6, .expect_fail = true) {
  // The brute-force reference comparison must be able to fail: expect a wrong code for one
  // element (lockstep off, so only that comparison can report it).
  MxBench t(env);
  expect_failure([](const TestFailure& f) {
    check(std::string(f.what()).find("element 5: code") != std::string::npos, "wrong failure: {}", f.what());
  });
  co_await t.start();
  t.lockstep.stop();
  std::vector<std::uint32_t> v(kMxBlock, f32_bits(1.0f));
  t.send(v, Format::e4m3fn, false, true);
  co_await t.next();
  co_await t.drain();
}

TRN_TEST(throughput) {
  MxBench t(env);
  co_await t.start();
  auto r = env.rng("blocks");
  const std::uint64_t n = bench_cycles(5000);
  BenchTimer timer;
  for (std::uint64_t k = 0; k < n; ++k) {
    t.elem.set(static_cast<unsigned>(kElems[k % 3]));
    t.data.set(r.bits(32 * kMxBlock));
    t.push([] {});
    co_await t.next();
  }
  co_await t.drain();
  timer.report(n);
  fmt::print("bench: unit=mx_quantize lanes=32 latency={} results_per_cycle=32 (one block)\n", t.latency());
}

TRN_BENCH_MAIN(Vmx_quantize, "mx_quantize")
