// Boost.Test units of model/core: the composed NeuronCore model alone (trn::core::Runner, no RTL)
// runs a matmul kernel — DMA loads (row and col-2B layouts), LoadStationary + MultiplyMoving into
// PSUM, the scalar engine's evacuation to BF16, DMA stores — in the tiny configuration and at the
// full one (128 partitions, N = 512), and the HBM result equals the units' functional references.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <random>

#include "core/runner.hpp"
#include "mem/elements.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "scalar/activation.hpp"
#include "tensor/reference.hpp"
#include "trn_config.hpp"
#include "vector/lane_engine.hpp"
#include "vector/reference.hpp"

using namespace trn;

namespace {

/// The kernel on the model alone in configuration `name`; returns the cycles it took.
std::uint64_t matmul_kernel(const char* name) {
  const cfg::Config* cfg = cfg::find(name);
  BOOST_REQUIRE(cfg != nullptr);
  const core::Core::Params p = core::Core::Params::of(cfg->arch);
  core::Runner run(p, dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 7);
  const dma::Geometry g = dma::Geometry::make(p.hbm_bytes, p.parts, p.sbuf_bytes, p.beat_bytes);
  const unsigned K = p.parts, M = p.parts, N = p.max_n, depth = p.psum_bank_bytes / 4;
  const std::uint32_t aW = 0, aX = 2 * M, aY = aX + 2 * N;  // SBUF byte addresses
  const std::uint32_t hW = 0, hX = 2 * K * M, hY = hX + 2 * N * K;  // HBM
  BOOST_REQUIRE(aY + 2 * N <= p.sbuf_bytes && hY + 2 * M * N <= p.hbm_bytes && N <= depth);
  std::mt19937_64 rng(11);
  auto& hbm = run.hbm().image().hbm;
  for (std::uint32_t a = 0; a < hY; a += 2) {
    const float v = static_cast<float>(rng() % 2001) / 1000.0f - 1.0f;
    const std::uint32_t c = numerics::encode(numerics::Format::bf16, numerics::f32_bits(v));
    hbm[a] = static_cast<std::uint8_t>(c);
    hbm[a + 1] = static_cast<std::uint8_t>(c >> 8);
  }
  // the reference SBUF: W row k in partition k; X^T element (n, k) in partition k at aX + 2n
  tensor::Sbuf sb(p.parts, std::vector<std::uint8_t>(p.sbuf_bytes, 0));
  for (unsigned k = 0; k < K; ++k) {
    for (unsigned b = 0; b < 2 * M; ++b) sb[k][aW + b] = hbm[hW + 2 * M * k + b];
    for (unsigned n = 0; n < N; ++n)
      for (unsigned b = 0; b < 2; ++b) sb[k][aX + 2 * n + b] = hbm[hX + 2 * (n * K + k) + b];
  }
  for (unsigned k = 0; k < K; ++k)
    run.dma(0, dma::DmaEngine::encode(dma::copy_desc(dma::Space::hbm, hW + 2 * M * k, dma::Space::sbuf, g.sbuf_addr(k, aW), 2 * M)));
  // X^T in col-2B descriptors of at most 64 KiB (the descriptor length limit)
  const unsigned rows = std::min(N, 65536u / (2 * K));
  for (unsigned n0 = 0; n0 < N; n0 += rows) {
    dma::Desc x = dma::copy_desc(dma::Space::hbm, hX + 2 * n0 * K, dma::Space::sbuf, g.sbuf_addr(0, aX + 2 * n0),
                                 2 * std::min(rows, N - n0) * K, 2);
    x.layout = static_cast<unsigned>(dma::Layout::col2);
    x.cols = K;
    run.dma(1 % p.queues, dma::DmaEngine::encode(x));
  }
  std::uint64_t cycles = run.drain();
  // matmul into PSUM bank 2, evacuation with scale 0.5 and gelu to BF16
  tensor::FunctionalReference tref(run.core().te().params());
  tensor::Command ls{tensor::Op::load_stationary};
  ls.fmt = 2;
  ls.k = K;
  ls.m = M;
  ls.addr = aW;
  tensor::Command mm{tensor::Op::multiply_moving};
  mm.fmt = 2;
  mm.n = N;
  mm.addr = aX;
  mm.bank = 2;
  tref.run(ls, sb);
  tref.run(mm, sb);
  run.te(tensor::to_cmd(ls));
  run.te(tensor::to_cmd(mm));
  cycles += run.drain();
  vector::Instr act;
  act.op = vector::Op::activate;
  act.pc = M;
  act.a_space = true;
  act.a_addr = 2 * p.psum_bank_bytes;
  act.a_fmt = 0;
  act.o_addr = aY;
  act.o_fmt = 2;
  act.size = {N, 1, 1, 1};
  act.a_stride = act.o_stride = {1, 0, 0, 0};
  act.imm0 = numerics::f32_bits(0.5f);
  act.alu1 = vector::Alu::bypass;
  act.func = static_cast<unsigned>(scalar::Act::gelu);
  vector::Memory ps = tref.psum_rows();
  vector::FunctionalReference sref(run.core().se().shape());
  BOOST_REQUIRE(sref.execute(act, sb, &ps) == vector::Err::none);
  run.se(vector::LaneEngine::encode(act));
  cycles += run.drain();
  for (unsigned m = 0; m < M; ++m)
    run.dma(m % p.queues, dma::DmaEngine::encode(dma::copy_desc(dma::Space::sbuf, g.sbuf_addr(m, aY), dma::Space::hbm, hY + 2 * N * m, 2 * N)));
  cycles += run.drain();
  unsigned bad = 0;
  for (unsigned m = 0; m < M; ++m)
    for (unsigned b = 0; b < 2 * N; ++b)
      if (hbm[hY + 2 * N * m + b] != sb[m][aY + b] && bad++ < 5)
        BOOST_ERROR("partition " << m << " byte " << b << ": " << int(hbm[hY + 2 * N * m + b]) << ", reference "
                                 << int(sb[m][aY + b]));
  BOOST_TEST(bad == 0u);
  return cycles;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core)

BOOST_AUTO_TEST_CASE(model_alone_matmul_kernel_tiny) { matmul_kernel("tiny"); }

BOOST_AUTO_TEST_CASE(model_alone_matmul_kernel_full) {
  // 128 x 128 x 512 BF16: the size the RTL cannot simulate at a usable rate
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t c = matmul_kernel("full");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST_MESSAGE("core model, full configuration: the kernel in " << c << " cycles, " << s << " s ("
                                                                      << static_cast<double>(c) / s << " cycles/s)");
}

BOOST_AUTO_TEST_SUITE_END()
