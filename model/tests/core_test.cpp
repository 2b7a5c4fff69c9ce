// Boost.Test units of model/core: the composed NeuronCore model alone (trn::core::Runner, no RTL)
// runs a matmul kernel — DMA loads (row and col-2B layouts), LoadStationary + MultiplyMoving into
// PSUM, the scalar engine's evacuation to BF16, DMA stores — in the tiny configuration and at the
// full one (128 partitions, N = 512), and the HBM result equals the units' functional references.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <random>

#include "core/runner.hpp"
#include "mem/elements.hpp"
#include "mem/sbuf.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "scalar/activation.hpp"
#include "tensor/reference.hpp"
#include "tensor/tensor_engine.hpp"
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
  const std::uint32_t aW = 0, aX = 2 * M, aY = aX + 2 * N;          // SBUF byte addresses
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
    run.dma(0, dma::DmaEngine::encode(
                   dma::copy_desc(dma::Space::hbm, hW + 2 * M * k, dma::Space::sbuf, g.sbuf_addr(k, aW), 2 * M)));
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
    run.dma(m % p.queues, dma::DmaEngine::encode(dma::copy_desc(dma::Space::sbuf, g.sbuf_addr(m, aY), dma::Space::hbm,
                                                                hY + 2 * N * m, 2 * N)));
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

/// What a stream of back-to-back MultiplyMoving, each with the next LoadStationary in the
/// background, costs the moving port when both read one SBUF (the tensor engine's st_ and mv_
/// ports on SBUF engine ports e0 and e1, as the core wires them).
struct StreamCost {
  unsigned mv_refused = 0;  ///< cycles the moving port asked and SBUF refused it
  unsigned max_gap = 0;     ///< most cycles between two accepted moving reads
  unsigned multiplies = 0;
  std::uint64_t span = 0;  ///< cycles from the first moving read to the last
};

/// The stream in configuration `name`: 4 x banks multiplies of N columns from bank 0; the load
/// after multiply i starts in bank i % banks, so some loads meet the moving stream on its bank.
StreamCost background_load_stream(const char* name, bool st_yield) {
  const cfg::Config* cfg = cfg::find(name);
  BOOST_REQUIRE(cfg != nullptr);
  const core::Core::Params cp = core::Core::Params::of(cfg->arch);
  tensor::TensorEngine::Params tp = core::Core::te_params(cp);
  tp.st_yield = st_yield;
  tensor::TensorEngine te(tp);
  mem::Sbuf sb(core::Core::sb_params(cp));
  auto ti = te.make_in();
  auto to = te.make_out();
  auto si = sb.make_in();
  auto so = sb.make_out();
  const unsigned R = cp.parts, N = cp.max_n, line = cp.beat_bytes, banks = cp.sbuf_banks;
  const std::uint32_t aX = 0;                                                             // moving: N BF16 from bank 0
  const std::uint32_t aW = ((2 * N + line * banks - 1) / (line * banks)) * line * banks;  // a bank-0 line after X
  std::vector<tensor::Command> cmds;
  tensor::Command ls{tensor::Op::load_stationary};
  ls.fmt = 2;
  ls.k = R;
  ls.m = R;
  tensor::Command mm{tensor::Op::multiply_moving};
  mm.fmt = 2;
  mm.n = N;
  mm.addr = aX;
  ls.addr = aW;
  cmds.push_back(ls);
  const unsigned mms = 4 * banks;
  for (unsigned i = 0; i < mms; ++i) {
    mm.bank = i % cp.psum_banks;
    mm.tag = i & 15;
    cmds.push_back(mm);
    ls.addr = aW + (i % banks) * line;
    cmds.push_back(ls);
  }
  StreamCost c;
  std::size_t next = 0;
  std::uint64_t first_read = 0, last_read = 0;
  bool reading = false;
  ti.rst_ni = false;
  te.eval(ti, to);
  te.tick(ti);
  ti.rst_ni = si.rst_ni = true;
  for (std::uint64_t cyc = 0; cyc < 100000 && (next < cmds.size() || c.multiplies < mms); ++cyc) {
    ti.cmd_valid_i = next < cmds.size();
    if (ti.cmd_valid_i) ti.cmd_i = tensor::to_cmd(cmds[next]);
    te.eval(ti, to);
    si.e_valid_i = (to.st_req_valid_o ? 1u : 0u) | (to.mv_req_valid_o ? 2u : 0u);
    si.e_i[0] = to.st_req_o;
    si.e_i[1] = to.mv_req_o;
    sb.eval(si, so);
    ti.st_req_ready_i = so.e_ready_o & 1;
    ti.mv_req_ready_i = (so.e_ready_o >> 1) & 1;
    te.eval(ti, to);
    BOOST_REQUIRE(!to.cpl_o.err);
    if (to.mv_req_valid_o && !ti.mv_req_ready_i) ++c.mv_refused;
    if (to.mv_req_valid_o && ti.mv_req_ready_i) {
      if (reading) c.max_gap = std::max(c.max_gap, static_cast<unsigned>(cyc - last_read));
      if (!reading) first_read = cyc;
      reading = true;
      last_read = cyc;
    }
    if (to.cpl_o.mm_done) ++c.multiplies;
    if (to.cmd_ready_o && ti.cmd_valid_i) ++next;
    te.tick(ti);
    sb.tick(si);
    // the responses of this edge's reads, for the next cycle
    sb.eval(si, so);
    ti.st_rsp_valid_i = so.e_rvalid_o & 1;
    ti.mv_rsp_valid_i = (so.e_rvalid_o >> 1) & 1;
    ti.st_rsp_data_i.copy(0, so.e_rdata_o, 0, 32 * R);
    ti.mv_rsp_data_i.copy(0, so.e_rdata_o, 32 * R, 32 * R);
  }
  BOOST_REQUIRE_EQUAL(c.multiplies, mms);
  c.span = last_read - first_read + 1;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core)

BOOST_AUTO_TEST_CASE(reference_psum_engine_writes_and_rows) {
  // The tensor reference's PSUM as the lane engines see it and back, and an engine write: the
  // masked partitions' words land at (bank, off), the others and an element outside PSUM do not.
  tensor::TensorEngine::Params tp;  // 4 partitions, 8 banks of 16
  tensor::FunctionalReference ref(tp);
  for (std::size_t i = 0; i < ref.psum.size(); ++i) ref.psum[i] = static_cast<std::uint32_t>(0x1000 + i);
  const std::vector<std::uint32_t> before = ref.psum;
  ref.set_psum_rows(ref.psum_rows());
  BOOST_TEST(ref.psum == before);
  Bits mask(4), data(128);
  mask.set_bit(1, true);
  mask.set_bit(3, true);
  for (unsigned c = 0; c < 4; ++c) data.set_slice(32 * c, 32, 0xA0 + c);
  ref.engine_write(2, 5, mask, data);
  ref.engine_write(8, 0, mask, data);   // bank outside PSUM
  ref.engine_write(0, 16, mask, data);  // element outside PSUM
  std::vector<std::uint32_t> want = before;
  want[(2 * 4 + 1) * 16 + 5] = 0xA1;  // [bank][partition][element]
  want[(2 * 4 + 3) * 16 + 5] = 0xA3;
  BOOST_TEST(ref.psum == want);
  const auto rows = ref.psum_rows();  // partition 3, element 2 * 16 + 5, FP32 little-endian
  BOOST_TEST(mem::load_elem(rows[3], 2 * 16 + 5, 3) == 0xA3u);
}

BOOST_AUTO_TEST_CASE(background_load_costs_the_multiply_no_cycle) {
  // SPEC 5.1: back-to-back MultiplyMoving with the next LoadStationary in the background keeps the
  // array busy. SBUF serves one read per bank per cycle; the stationary loader yields its bank to
  // the moving stream, so SBUF never refuses the moving port. The yield delays a load by at most
  // the rest of one SBUF line of moving reads (L elements), once: after it the load trails the
  // moving stream a bank behind. So a multiply's first read follows the previous one's last within
  // one dispatch cycle plus L, and, where a multiply covers a load (small: N = 64 against R + C + M
  // = 48 plus latency), the stream is shorter than without the yield. (In tiny, N = 16 does not
  // cover a load that yields: the next multiply waits for it, 4 cycles in 280 over 16 multiplies.)
  for (const char* name : {"tiny", "small"}) {
    const StreamCost c = background_load_stream(name, true);
    const StreamCost off = background_load_stream(name, false);
    const unsigned L = cfg::find(name)->arch.dma_beat_bytes / 2;  // BF16 moving elements per line
    BOOST_TEST_MESSAGE(name << ": moving refused " << c.mv_refused << " cycles, largest gap " << c.max_gap << ", "
                            << c.multiplies << " multiplies in " << c.span << " cycles (" << off.span
                            << " without the yield)");
    BOOST_TEST(c.mv_refused == 0u, name);
    BOOST_TEST(c.max_gap <= 2 + L, name);
    if (std::string_view(name) == "small") BOOST_TEST(c.span < off.span);
  }
}

BOOST_AUTO_TEST_CASE(background_load_check_catches_a_loader_that_does_not_yield) {
  // The same stream with the yield off: loads meet the moving stream on a bank and SBUF's
  // round-robin refuses the moving port, which the check above sees.
  for (const char* name : {"tiny", "small"}) {
    const StreamCost c = background_load_stream(name, false);
    BOOST_TEST_MESSAGE(name << " without the yield: moving refused " << c.mv_refused << " cycles");
    BOOST_TEST(c.mv_refused > 0u, name);
  }
}

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
