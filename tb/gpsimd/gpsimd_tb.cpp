// Bench for rtl/gpsimd/gpsimd.sv, the GpSimd engine: its processors on one SBUF word port, in
// lockstep with trn::gpsimd::Engine (which composes gpsimd::Proc, common::RrArbiter and
// common::StreamFifo). Each processor's program is also run on its own reference interpreter (the
// processors own disjoint partitions, so their SBUF effects commute): local memory, SBUF and the
// semaphores against the references, and an operator's outputs against its host build.
#include <cstring>
#include <random>

#include "gpsimd/encode.hpp"
#include "gpsimd/engine.hpp"
#include "gpsimd/host_port.hpp"
#include "gpsimd/operators.hpp"
#include "gpsimd/reference.hpp"
#include "gpsimd_ports.hpp"
#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "sbuf_port.hpp"

using namespace trn;
using namespace trn::tb;
using trn::gpsimd::Engine;
using trn::gpsimd::Reference;
namespace enc = trn::gpsimd::enc;

namespace {

constexpr unsigned kProcs = TRN_PARAM_Procs, kParts = TRN_PARAM_Parts, kPer = kParts / kProcs;
constexpr std::uint32_t kTcm = TRN_PARAM_TcmBytes;

struct EngineEnv {
  Env& env;
  Signal &rst, &start, &entry, &args, &busy, &done, &err, &err_proc, &code, &err_pc;
  Clock clk;
  Engine model;
  Lockstep<Engine> lockstep;
  SbufPort port;
  GpHostPort host;

  explicit EngineEnv(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        start(e.sig("start_i")),
        entry(e.sig("entry_i")),
        args(e.sig("args_i")),
        busy(e.sig("busy_o")),
        done(e.sig("done_o")),
        err(e.sig("err_o")),
        err_proc(e.sig("err_proc_o")),
        code(e.sig("err_code_o")),
        err_pc(e.sig("err_pc_o")),
        clk(e.sig("clk_i"), 10),
        model({kProcs, kTcm, TRN_PARAM_Vlen, kParts, TRN_PARAM_SbufBytes, TRN_PARAM_ReadDepth}),
        lockstep(e, clk, model),
        port(e, clk, kParts, TRN_PARAM_SbufBytes, kProcs, [](unsigned p) { return p < kParts; }),
        host(e, "host_", kTcm, [this] { return edge(); }) {}

  Task<> begin() {
    for (Signal* s : {&start, &entry, &args}) s->set(0);
    host.idle();
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
    port.start();
  }
  Task<> edge() { co_await RisingEdge(clk.signal()); }
  /// Starts the operator at `entry_pc` with `a1` and waits until every processor is idle.
  Task<std::uint64_t> run(std::uint32_t entry_pc, std::uint32_t a1, std::uint64_t limit = 2000000) {
    start.set(1);
    entry.set(entry_pc);
    args.set(a1);
    co_await RisingEdge(clk.signal());
    start.set(0);
    std::uint64_t n = 0;
    for (;;) {
      co_await ReadOnly();
      if (!(busy.get() & 1)) break;
      check(++n < limit, "still busy after {} cycles", limit);
      co_await RisingEdge(clk.signal());
    }
    co_await RisingEdge(clk.signal());
    co_return n;
  }
};

/// Each processor's reference run from the same start (a0 = its index): its local memory image,
/// on the shared reference SBUF; returns the references, stopped.
std::vector<Reference> references(const std::vector<std::vector<std::uint8_t>>& images, std::uint32_t a1,
                                  std::vector<std::vector<std::uint8_t>>& sbuf) {
  std::vector<Reference> refs;
  for (unsigned i = 0; i < kProcs; ++i) {
    refs.emplace_back(kTcm, TRN_PARAM_Vlen);
    refs.back().load(0, images[i]);
    refs.back().set_sbuf(&sbuf, i * kPer, (i + 1) * kPer);
    refs.back().start(0, i, a1);
    for (unsigned k = 0; k < 10000000 && refs.back().step(); ++k) {
    }
  }
  return refs;
}

/// Every processor's program: for each partition it owns, 4 elements (e32) from offset 0 plus
/// a0 + 1 to offset 64 (sb.load, vadd.vx, sb.store), and semaphore a0 + 1 for each; then op.end.
/// The odd processors store 8 elements of v2-v3 first.
/// With `stray`, processor 1 reads partition 0 instead, which it does not own.
std::vector<std::uint32_t> sbuf_program(bool stray) {
  std::vector<std::uint32_t> w{
      enc::vsetivli(0, 4, enc::vtype(2, 0)),
      enc::addi(5, 0, static_cast<std::int32_t>(kPer)),  // t0 = partitions left
      enc::r_type(enc::kOp, 0, 1, 6, 10, 5),             // t1 = a0 * per: the first
      enc::addi(7, 0, 64),                               // t2 = 64
      enc::addi(28, 10, 1),                              // t3 = a0 + 1
      enc::addi(29, 0, 1),                               // t4 = 1
  };
  if (stray) {
    w.push_back(enc::b_type(1, 10, 29, 8));  // a0 != 1: skip
    w.push_back(enc::addi(6, 0, 0));         // processor 1: partition 0
  }
  // the odd processors first store 8 elements (v2-v3) at offset 128 of their first partition, so
  // that writes meet the even ones' reads: with slow answers the reads' FIFO fills, and the writes
  // must still go
  w.push_back(enc::i_type(enc::kOpImm, 7, 30, 10, 1));  // t5 = a0 & 1
  w.push_back(enc::b_type(0, 30, 0, 20));               // even: skip the next four
  w.push_back(enc::vsetivli(0, 8, enc::vtype(2, 1)));
  w.push_back(enc::addi(31, 0, 128));
  w.push_back(enc::sb_store(2, 6, 31));
  w.push_back(enc::vsetivli(0, 4, enc::vtype(2, 0)));
  const std::size_t top = w.size();
  w.push_back(enc::sb_load(1, 6, 0));
  w.push_back(enc::opv(0x00, true, 1, 28, 4, 1));  // vadd.vx v1, v1, t3
  w.push_back(enc::sb_store(1, 6, 7));
  w.push_back(enc::sem_add(28, 29));
  w.push_back(enc::addi(6, 6, 1));
  w.push_back(enc::addi(5, 5, -1));
  w.push_back(enc::bne(5, 0, -4 * static_cast<std::int32_t>(w.size() - top)));
  w.push_back(enc::op_end());
  return w;
}

/// Runs the SBUF program on every processor and checks SBUF, the semaphores and local memory
/// against the references; returns whether the engine stopped with an error.
Task<bool> sbuf_run(EngineEnv& e, bool stray) {
  auto r = e.env.rng("sbuf data");
  for (auto& part : e.port.sbuf)
    for (auto& b : part) b = static_cast<std::uint8_t>(r.next());
  std::vector<std::vector<std::uint8_t>> sbuf_ref = e.port.sbuf;
  std::vector<std::uint32_t> code(kTcm / 4, 0);
  const auto prog = sbuf_program(stray);
  std::copy(prog.begin(), prog.end(), code.begin());
  co_await e.host.write(-1, 0, code);
  const std::array<std::uint32_t, 32> sems0 = e.port.sems;
  co_await e.run(0, 0);
  std::vector<std::vector<std::uint8_t>> images(kProcs, std::vector<std::uint8_t>(kTcm));
  for (auto& im : images) std::memcpy(im.data(), code.data(), kTcm);
  auto refs = references(images, 0, sbuf_ref);
  std::array<std::uint32_t, 32> sems = sems0;
  for (unsigned i = 0; i < kProcs; ++i) {
    const auto m = co_await e.host.read(i);
    check(m == refs[i].memory(), "processor {}: local memory differs from its reference", i);
  }
  check(e.port.sbuf == sbuf_ref, "SBUF differs from the references'");
  co_await ReadOnly();
  if (!stray) {
    for (unsigned i = 0; i < kProcs; ++i) sems[i + 1] += kPer;
    check(e.port.sems == sems, "the semaphores: {} additions missing or wrong", kProcs);
    check(e.done.get() & 1, "not done");
  } else {
    check((e.err.get() & 1) && e.err_proc.get() == 1 && e.code.get() == 5 && e.err_pc.get() == refs[1].stop().pc &&
              refs[1].stop().code == gpsimd::Err::GpErrPartition,
          "processor 1's stray read: err {} processor {} code {} pc {:#x}", e.err.get(), e.err_proc.get(), e.code.get(),
          e.err_pc.get());
  }
  const bool stopped = (e.err.get() & 1) != 0;
  co_await RisingEdge(e.clk.signal());
  co_return stopped;
}

}  // namespace

TRN_TEST(sbuf_on_every_processor, .timeout_ns = 1e11) {
  EngineEnv e(env);
  co_await e.begin();
  // answers 1 .. 3 cycles after the request, then 1 .. 12: the reads' FIFO fills, and the writes
  // of the other processors still go
  for (unsigned k = 0; k < 4; ++k) {
    e.port.max_latency = k < 2 ? 3 : 12;
    check(!co_await sbuf_run(e, false), "run {} stopped", k);
  }
}

TRN_TEST(error_names_the_processor, .timeout_ns = 1e11) {
  EngineEnv e(env);
  co_await e.begin();
  co_await sbuf_run(e, true);
  co_await sbuf_run(e, false);  // the next start clears it
}

TRN_TEST(operators_on_every_processor, .timeout_ns = 1e12) {
  // every operator on every processor at once, each with its own inputs (the same layout, so one
  // argument address): each processor's local memory against its reference, its outputs against
  // the host build
  EngineEnv e(env);
  co_await e.begin();
  auto r = e.env.rng("operators");
  for (const std::string& name : gpsimd::operator_names()) {
    std::vector<gpsimd::OperatorCase> cases;
    for (unsigned i = 0; i < kProcs; ++i) {
      std::mt19937_64 g(r.next());
      cases.push_back(gpsimd::operator_case(name, kTcm, g, 128));
      co_await e.host.write(static_cast<int>(i), 0, words_of(cases.back().image));
    }
    const std::uint64_t cycles = co_await e.run(0, cases[0].args);
    co_await ReadOnly();
    check(e.done.get() & 1, "{}: not done (err {} processor {} code {})", name, e.err.get(), e.err_proc.get(),
          e.code.get());
    co_await RisingEdge(e.clk.signal());
    std::vector<std::vector<std::uint8_t>> images;
    for (const auto& c : cases) images.push_back(c.image);
    auto sbuf = e.port.sbuf;
    const auto refs = references(images, cases[0].args, sbuf);
    for (unsigned i = 0; i < kProcs; ++i) {
      const auto m = co_await e.host.read(i);
      check(m == refs[i].memory(), "{}: processor {}'s local memory differs from its reference", name, i);
      for (const auto& o : cases[i].outputs)
        check(std::equal(m.begin() + o.addr, m.begin() + o.addr + o.bytes, cases[i].expected.begin() + o.addr),
              "{}: processor {}'s {} differ from the host build's", name, i, o.what);
    }
    fmt::print("gpsimd: operator {} on {} processors: {} cycles, equal to the host build\n", name, kProcs, cycles);
  }
}

TRN_TEST(selftest_lockstep_catches_wrong_sbuf_request, .timeout_ns = 1e10, .expect_fail = true) {
  InjectGuard wrong_model("sb_off_o", 30, 2);
  expect_mismatch("sb_off_o", 30);
  EngineEnv e(env);
  co_await e.begin();
  co_await sbuf_run(e, false);
}

TRN_TEST(throughput) {
  // For make bench: the SBUF program on every processor, again and again, for about BENCH_CYCLES
  // cycles (the reads back and the references too: the cycles counted are the engine's)
  EngineEnv e(env);
  co_await e.begin();
  const std::uint64_t n = bench_cycles(20000);
  BenchTimer t;
  std::uint64_t cycles = 0;
  std::vector<std::uint32_t> code(kTcm / 4, 0);
  const auto prog = sbuf_program(false);
  std::copy(prog.begin(), prog.end(), code.begin());
  co_await e.host.write(-1, 0, code);
  cycles += kTcm / 4;
  while (cycles < n) cycles += co_await e.run(0, 0) + 1;
  t.report(cycles);
}

TRN_BENCH_MAIN(Vgpsimd, "gpsimd")
