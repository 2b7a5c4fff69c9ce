// Boost.Test units of the NeuronCore control on the model alone (trn::core::ProgramRunner over
// trn::core::NeuronCore): kernels/matmul.s — four streams meeting through semaphores — against
// the units' functional references; semaphore additions from several
// sources in one cycle; and each error: illegal instruction, a lane instruction and a descriptor
// refused at decode, a tensor engine refusal, deadlock, running past the instruction memory. Each
// error names its stream and pc, and nothing issues after it.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "core/program_runner.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "scalar/activation.hpp"
#include "tensor/reference.hpp"
#include "vector/lane_engine.hpp"
#include "vector/reference.hpp"

using namespace trn;

namespace {


/// A kernel of kernels/ as text.
std::string kernel(const char* name) {
  std::ifstream f(std::string(TRN_KERNELS_DIR) + "/" + name);
  BOOST_REQUIRE_MESSAGE(f, "cannot open kernels/" << name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

core::NeuronCore::Params params(const char* cfg) { return core::NeuronCore::Params::of(cfg::find(cfg)->arch); }

isa::Program assemble(const std::string& text, const char* cfg) {
  return isa::assemble(text, "test.s", isa::config_defines(cfg::find(cfg)->arch));
}

/// Run `text` on a fresh tiny core; the runner stays for inspection.
struct Run {
  core::ProgramRunner r;
  isa::Program p;
  core::RunResult res;
  Run(const std::string& text, const char* cfg = "tiny", std::uint64_t limit = 200000)
      : r(params(cfg), dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 5), p(assemble(text, cfg)) {
    r.load(p);
    res = r.run(limit);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(control)

BOOST_AUTO_TEST_CASE(matmul_program_tiny_matches_the_units_references) {
  const auto prm = params("tiny");
  const unsigned K = prm.core.parts, M = K, N = prm.core.max_n;
  const std::uint32_t AW = 0, AX = 2 * M, AY = AX + 2 * N, HX = 2 * K * M, HY = HX + 2 * N * K;
  core::ProgramRunner r(prm, dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 3);
  auto& hbm = r.hbm().image().hbm;
  std::mt19937_64 rng(9);
  for (std::uint32_t a = 0; a < HY; a += 2) {
    const float v = static_cast<float>(rng() % 2001) / 1000.0f - 1.0f;
    const std::uint32_t c = numerics::encode(numerics::Format::bf16, numerics::f32_bits(v));
    hbm[a] = static_cast<std::uint8_t>(c);
    hbm[a + 1] = static_cast<std::uint8_t>(c >> 8);
  }
  // the reference: SBUF as the loads leave it, the matmul, the evacuation
  tensor::Sbuf sb(prm.core.parts, std::vector<std::uint8_t>(prm.core.sbuf_bytes, 0));
  for (unsigned k = 0; k < K; ++k) {
    for (unsigned b = 0; b < 2 * M; ++b) sb[k][AW + b] = hbm[2 * M * k + b];
    for (unsigned n = 0; n < N; ++n)
      for (unsigned b = 0; b < 2; ++b) sb[k][AX + 2 * n + b] = hbm[HX + 2 * (n * K + k) + b];
  }
  tensor::FunctionalReference tref(r.nc().core().te().params());
  tensor::Command ls{tensor::Op::load_stationary};
  ls.fmt = 2, ls.k = K, ls.m = M, ls.addr = AW;
  tensor::Command mm{tensor::Op::multiply_moving};
  mm.fmt = 2, mm.n = N, mm.addr = AX, mm.bank = 2;
  tref.run(ls, sb);
  tref.run(mm, sb);
  vector::Instr act;
  act.op = vector::Op::activate;
  act.pc = M;
  act.a_space = true;
  act.a_addr = 2 * prm.core.psum_bank_bytes;
  act.o_addr = AY;
  act.o_fmt = 2;
  act.size = {N, 1, 1, 1};
  act.a_stride = act.o_stride = {1, 0, 0, 0};
  act.imm0 = numerics::f32_bits(0.5f);
  act.alu0 = act.alu1 = vector::Alu::add;  // unused by activate; the ISA leaves them 0
  act.func = static_cast<unsigned>(scalar::Act::gelu);
  vector::Memory ps = tref.psum_rows();
  vector::FunctionalReference sref(r.nc().core().se().shape());
  BOOST_REQUIRE(sref.execute(act, sb, &ps) == vector::Err::none);

  const isa::Program p = assemble(kernel("matmul.s"), "tiny");
  r.load(p);
  const core::RunResult res = r.run(100000);
  BOOST_TEST_REQUIRE(res.ok, res.what);
  BOOST_TEST_MESSAGE("matmul program, tiny: " << res.cycles << " cycles");
  unsigned bad = 0;
  for (unsigned m = 0; m < M; ++m)
    for (unsigned b = 0; b < 2 * N; ++b)
      if (hbm[HY + 2 * N * m + b] != sb[m][AY + b] && bad++ < 5)
        BOOST_ERROR("row " << m << " byte " << b << ": " << int(hbm[HY + 2 * N * m + b]) << ", reference " << int(sb[m][AY + b]));
  BOOST_TEST(bad == 0u);
  // every semaphore has its final count: K weight rows, one X, one matmul, one evacuation, M stores
  const auto& sem = r.out().sem_o;
  BOOST_TEST(sem[0] == K);
  BOOST_TEST(sem[1] == 1u);
  BOOST_TEST(sem[2] == 1u);
  BOOST_TEST(sem[3] == 1u);
  BOOST_TEST(sem[4] == M);
  // the completion writes never reached HBM: address 4 * sem is W's first bytes, unchanged
  for (const auto& w : r.hbm().trace()) BOOST_TEST(!w.sem);
}

BOOST_AUTO_TEST_CASE(semaphore_additions_of_one_cycle_all_count) {
  // every stream adds to s in its first cycle of issue; the sync stream's end waits for all
  Run t(R"(
.sem s
.stream tensor
    sem_add post=s+=1
    end
.stream vector
    sem_add post=s+=2
    end
.stream scalar
    sem_add post=s+=4
    end
.stream sync
    sem_add post=s+=8
    sem_wait wait=s>=15
    end
)");
  BOOST_TEST_REQUIRE(t.res.ok, t.res.what);
  BOOST_TEST(t.r.out().sem_o[0] == 15u);
}

BOOST_AUTO_TEST_CASE(illegal_instruction_stops_the_core_with_its_pc) {
  // word 2 of the vector stream uses a field copy does not have
  isa::Program p = assemble(".sem s\n.stream vector\n copy pc=1 a=sbuf:0:fp32 o=sbuf:64:fp32\n sem_add post=s+=1\n"
                            " copy pc=1 a=sbuf:0:fp32 o=sbuf:128:fp32\n end\n.stream sync\n sem_wait wait=s>=5\n end\n", "tiny");
  isa::set(p.streams[1][2], isa::tbl::kF_k, 3);
  core::ProgramRunner r(params("tiny"), dma::MemSystem::Params{}, 1);
  r.load(p);
  const auto res = r.run(10000);
  BOOST_TEST(!res.ok);
  BOOST_TEST(res.code == 1u);
  BOOST_TEST(res.stream == 1u);
  BOOST_TEST(res.pc == 2u);
  BOOST_TEST(res.what.find("copy does not use field k") != std::string::npos, res.what);
  BOOST_TEST((r.out().st_o[1].state == core::Control::State::halt));
  BOOST_TEST(r.out().sem_o[0] == 1u);  // the add before it issued
}

BOOST_AUTO_TEST_CASE(lane_and_dma_checks_refuse_at_decode) {
  // a copy past SBUF's end: the vector engine's check (pattern) at decode; nothing was written
  Run v(".stream vector\n copy pc=1 size=8 a=sbuf:SBUF_BYTES-16:fp32 a.stride=1 o=sbuf:0:fp32 o.stride=1\n end\n");
  BOOST_TEST(!v.res.ok);
  BOOST_TEST(v.res.code == 3u);
  BOOST_TEST(v.res.detail == 1u);  // pattern
  BOOST_TEST(v.res.pc == 0u);
  // a descriptor past HBM's end
  Run d(".stream sync\n dma_start src=hbm:HBM_BYTES-8 dst=sbuf:0 len=16 stype=bytes dtype=bytes\n end\n");
  BOOST_TEST(!d.res.ok);
  BOOST_TEST(d.res.code == 5u);
  BOOST_TEST(d.res.detail == 1u);  // range
  BOOST_TEST(d.r.hbm().trace().empty());
  // a queue the core does not have is illegal
  Run q(".stream sync\n dma_start queue=QUEUES src=hbm:0 dst=sbuf:0 len=16 stype=bytes dtype=bytes\n end\n");
  BOOST_TEST(q.res.code == 1u);
}

BOOST_AUTO_TEST_CASE(tensor_engine_refusal_names_the_instruction) {
  // MultiplyMoving without weights: the engine reports it with the command's tag
  Run t(".stream tensor\n multiply_moving t=0:bf16 n=4\n end\n");
  BOOST_TEST(!t.res.ok);
  BOOST_TEST(t.res.code == 2u);
  BOOST_TEST(t.res.detail == 4u);  // no weights
  BOOST_TEST(t.res.stream == 0u);
  BOOST_TEST(t.res.pc == 0u);
}

BOOST_AUTO_TEST_CASE(deadlock_is_detected_and_names_the_waits) {
  Run t(R"(
.sem a, b
.stream vector
    sem_wait wait=a>=1
    sem_add post=b+=1
    end
.stream scalar
    sem_wait wait=b>=1
    sem_add post=a+=1
    end
)");
  BOOST_TEST(!t.res.ok);
  BOOST_TEST(t.res.code == 6u);
  BOOST_TEST(t.res.stream == 1u);
  BOOST_TEST(t.res.pc == 0u);
  BOOST_TEST(t.res.what.find("error deadlock on the vector stream at pc 0") == 0u, t.res.what);
  BOOST_TEST(t.res.cycles < 50u);
  // the status before the halt said which stream waited on what: run again, stop before the edge
  core::ProgramRunner r(params("tiny"), dma::MemSystem::Params{}, 1);
  r.load(t.p);
  bool seen = false;
  r.on_cycle = [&](const core::NeuronCore&, const core::NeuronCore::Out& o, std::uint64_t) {
    if (o.st_o[1].state == core::Control::State::wait && o.st_o[2].state == core::Control::State::wait) {
      seen = o.st_o[1].wait_sem == 0 && o.st_o[2].wait_sem == 1 && o.st_o[1].wait_val == 1;
    }
  };
  r.run(1000);
  BOOST_TEST(seen);
}

BOOST_AUTO_TEST_CASE(a_stream_without_end_runs_past_its_memory) {
  const auto prm = params("tiny");
  std::string text = ".sem s\n.stream vector\n";
  for (unsigned i = 0; i < prm.imem_depth; ++i) text += " sem_add post=s+=1\n";
  Run t(text);
  BOOST_TEST(!t.res.ok);
  BOOST_TEST(t.res.code == 7u);
  BOOST_TEST(t.res.pc == prm.imem_depth);
  BOOST_TEST(t.r.out().sem_o[0] == prm.imem_depth);
}

BOOST_AUTO_TEST_SUITE_END()
