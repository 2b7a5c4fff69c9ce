// numerics_bench — model speed of the number-format routines for `make bench` (figures only):
// conversions per second of encode (RNE and stochastic) and decode for every format, FP32
// add/multiply, narrow products and MX blocks. Usage: numerics_bench [--values N]
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "numerics/arith.hpp"
#include "numerics/mx.hpp"
#include "numerics/sr_rng.hpp"
#include "scalar/accuracy.hpp"
#include "vector/ops.hpp"

using namespace trn::numerics;

namespace {

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed) {
  Xorshift32 g(seed, 0);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = g.next();
  return v;
}

template <class F>
double rate(std::size_t n, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  std::uint32_t sink = f();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (sink == 0x12345678u) fmt::print(" ");  // keep the work observable
  return s > 0 ? static_cast<double>(n) / s : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 1'000'000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--values" && i + 1 < argc) {
      n = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "-h" || a == "--help") {
      fmt::print("usage: numerics_bench [--values N]   model conversions per second\n");
      return 0;
    } else {
      fmt::print(stderr, "numerics_bench: error: unknown argument '{}'\n", a);
      return 2;
    }
  }
  if (n == 0) {
    fmt::print(stderr, "numerics_bench: error: --values must be positive\n");
    return 2;
  }
  const auto x = random_words(n, 1), y = random_words(n, 2);
  fmt::print("| routine | format | M results/s |\n|---|---|---:|\n");
  for (const auto& d : all_formats()) {
    if (d.id == Format::fp32) continue;
    const Format f = d.id;
    const double rne = rate(n, [&] {
      std::uint32_t acc = 0;
      for (std::size_t i = 0; i < n; ++i) acc ^= encode(f, x[i]);
      return acc;
    });
    Xorshift32 g(7, 0);
    const double sr = rate(n, [&] {
      std::uint32_t acc = 0;
      Convert c;
      c.mode = Round::sr;
      for (std::size_t i = 0; i < n; ++i) {
        c.rnd = g.next();
        acc ^= encode(f, x[i], c);
      }
      return acc;
    });
    const std::uint32_t mask = code_mask(d);
    const double dec = rate(n, [&] {
      std::uint32_t acc = 0;
      for (std::size_t i = 0; i < n; ++i) acc ^= decode(f, x[i] & mask);
      return acc;
    });
    fmt::print("| encode RNE | {} | {:.1f} |\n| encode SR | {} | {:.1f} |\n| decode | {} | {:.1f} |\n", d.name,
               rne / 1e6, d.name, sr / 1e6, d.name, dec / 1e6);
  }
  const double add = rate(n, [&] {
    std::uint32_t acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc ^= fp32_add(x[i], y[i]);
    return acc;
  });
  const double mul = rate(n, [&] {
    std::uint32_t acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc ^= fp32_mul(x[i], y[i]);
    return acc;
  });
  const double nar = rate(n, [&] {
    std::uint32_t acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc ^= mul_narrow({Format::e4m3, x[i] & 0xFF}, {Format::bf16, y[i] & 0xFFFF});
    return acc;
  });
  const std::size_t blocks = n / kMxBlock;
  const double mx = rate(blocks * kMxBlock, [&] {
    std::uint32_t acc = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      const auto blk =
          mx_quantize(std::span<const std::uint32_t>(x.data() + b * kMxBlock, kMxBlock), Format::e4m3fn, false);
      acc ^= blk.scale ^ blk.codes[0];
    }
    return acc;
  });
  fmt::print(
      "| fp32_add | fp32 | {:.1f} |\n| fp32_mul | fp32 | {:.1f} |\n| mul_narrow | e4m3 x bf16 | {:.1f} |\n"
      "| mx_quantize (elements) | e4m3fn | {:.1f} |\n",
      add / 1e6, mul / 1e6, nar / 1e6, mx / 1e6);
  // Activation accuracy against libm (docs/activations.md states the bounds).
  fmt::print(
      "\n| activation | valid range | samples | max error FP32 (ulp) | max error BF16 (ulp) | worst FP32 input |\n"
      "|---|---|---:|---:|---:|---|\n");
  for (unsigned i = 0; i < trn::scalar::kActCount; ++i) {
    const auto f = static_cast<trn::scalar::Act>(i);
    const auto vr = trn::scalar::valid_range(f);
    const auto st = trn::scalar::measure(f, n / 4);
    fmt::print("| {} | [{:g}, {:g}] | {} | {:.2f} | {:.2f} | {} |\n", trn::scalar::act_name(f), vr.lo, vr.hi,
               st.samples, st.max_ulp_fp32, st.max_ulp_bf16, f32_from(st.worst_x));
  }
  {  // the vector engine's fast exponential (docs/vector.md)
    const auto vr = trn::scalar::valid_range(trn::scalar::Act::exp);
    const auto st = trn::scalar::measure_impl(trn::scalar::Act::exp, trn::vector::fast_exp, n / 4);
    fmt::print("| exp (vector engine, fast) | [{:g}, {:g}] | {} | {:.2f} | {:.2f} | {} |\n", vr.lo, vr.hi, st.samples,
               st.max_ulp_fp32, st.max_ulp_bf16, f32_from(st.worst_x));
  }
  return 0;
}
