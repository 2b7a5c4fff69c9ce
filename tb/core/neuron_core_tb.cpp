// Bench for rtl/core/neuron_core.sv, the NeuronCore with its control, in lockstep with
// trn::core::NeuronCore (docs/isa.md).
//
// A test assembles a program, loads it through the im_ port one word per cycle, pulses start_i and
// runs until done_o or err_o. Checkers:
//   - the lockstep at the NeuronCore's ports, every cycle;
//   - two probes: the control (u_ctl against trn::core::Control) and the datapath (u_core against
//     trn::core::Core), every input and output every cycle, so a mismatch names the half and port;
//   - the end of each run against an independent expectation: a kernel's HBM outputs and
//     semaphores against its plain C++ reference (trn::kernels), a control program's error code,
//     stream, pc, detail and semaphores against its `; expect:` lines (kernels/programs/);
//   - the GpSimd engine inside the core (docs/gpsimd.md "In the NeuronCore"): an operator of
//     kernels/gpsimd started by the gpsimd stream, each processor's local memory against its host
//     build; a program on SBUF data that the DMA brings in and takes out, beside the other streams,
//     against a plain C++ reference; a processor's error as the core's stop.
// Environment: the HBM port served by trn::dma::MemSystem (trn::tb::HbmPort); the GpSimd local
// memories loaded and read through the gp_host_* port.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/neuron_core.hpp"
#include "core/program_runner.hpp"
#include "gpsimd/encode.hpp"
#include "gpsimd/host_port.hpp"
#include "gpsimd/operators.hpp"
#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "hbm_port.hpp"
#include "isa/isa.hpp"
#include "kernels/kernels.hpp"
#include TRN_PORTS_HEADER

using namespace trn;
using namespace trn::tb;
using NcModel = trn::core::NeuronCore;

namespace {

struct NcBench {
  Env& env;
  Signal& rst;
  Clock clk;
  NcModel::Params prm;
  NcModel model;
  Lockstep<NcModel> lockstep;
  Probe<core::Control> p_ctl;
  Probe<core::Core> p_core;
  HbmPort hbm;
  Signal &start, &im_valid, &im_stream, &im_addr, &im_data, &done, &err;
  GpHostPort gp;
  Clock::HookId hook;

  static dma::Geometry geo(const NcModel::Params& p) {
    return dma::Geometry::make(p.core.hbm_bytes, p.core.parts, p.core.sbuf_bytes, p.core.beat_bytes);
  }

  explicit NcBench(Env& e, dma::MemSystem::Params mp = {4, 40, 2, 0.9, 0.9, 0})
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(NcModel::Params::of(e.cfg().arch)),
        model(prm),
        lockstep(e, clk, model),
        p_ctl(e, clk, model.control(), "neuron_core.u_ctl."),
        p_core(e, clk, model.core(), "neuron_core.u_core."),
        hbm(e, geo(prm), mp, e.rng("hbm").next(), prm.core.beat_bytes),
        start(e.sig("start_i")),
        im_valid(e.sig("im_valid_i")),
        im_stream(e.sig("im_stream_i")),
        im_addr(e.sig("im_addr_i")),
        im_data(e.sig("im_data_i")),
        done(e.sig("done_o")),
        err(e.sig("err_o")),
        gp(e, "gp_host_", prm.core.gp_tcm_bytes, [this] { return cycle(); }) {
    lockstep.after_eval([this] {
      p_ctl.compare(model.ctl_in(), model.ctl_out());
      p_core.compare(model.core_in(), model.core_out());
    });
    hook = clk.add_pre_edge_hook([this] {
      if (rst.get() & 1) hbm.serve(clk.cycle());
    });
  }
  ~NcBench() { clk.remove_hook(hook); }

  Task<> cycle() {
    co_await RisingEdge(clk.signal());
    hbm.drive(clk.cycle());
  }

  /// Start the clock and the lockstep and reset the DUT (the model starts in its reset state).
  Task<> begin() {
    for (Signal* s : {&start, &im_valid}) s->set(0);
    gp.idle();
    hbm.idle();
    env.sig("dma_cfg_strong_i").set(Bits::ones(prm.core.nq()));
    env.sig("dma_cfg_max_outst_i").set(prm.core.slots / prm.core.dma_engines);
    for (const char* s : {"sem_ext_en_i", "sem_add_valid_i", "sem_add_idx_i", "sem_add_val_i"}) env.sig(s).set(0);
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }

  /// Load the program's words (a stream that does not end in `end` gets zeros to the memory's
  /// end, as the model's memory starts), one per cycle.
  Task<> load(const isa::Program& p) {
    auto words = core::imem_words(p, prm.imem_depth);
    for (unsigned s = 0; s < core::Control::kStreams; ++s) {
      const bool ends = !words[s].empty() && isa::get(words[s].back(), isa::tbl::kF_op) == 0x01;
      if (!ends) words[s].resize(prm.imem_depth, Bits(isa::tbl::kInstBits));
      for (std::size_t a = 0; a < words[s].size(); ++a) {
        im_valid.set(1);
        im_stream.set(s);
        im_addr.set(a);
        im_data.set(words[s][a]);
        co_await cycle();
      }
    }
    im_valid.set(0);
  }

  /// Start and run until done or an error (or `limit` cycles: a failure); the cycles taken.
  Task<std::uint64_t> run(std::uint64_t limit = 200000) {
    start.set(1);
    co_await cycle();
    start.set(0);
    const std::uint64_t c0 = clk.cycle();
    for (;;) {
      co_await cycle();
      if ((done.get() & 1) || (err.get() & 1)) break;
      check(clk.cycle() - c0 < limit, "the program neither finished nor stopped in {} cycles", limit);
    }
    co_return clk.cycle() - c0;
  }

  /// How the run ended, from the DUT's status outputs.
  kernels::Outcome outcome() {
    kernels::Outcome o;
    o.done = !(err.get() & 1);
    o.code = static_cast<unsigned>(env.sig("err_code_o").get());
    o.detail = static_cast<unsigned>(env.sig("err_detail_o").get());
    o.stream = static_cast<unsigned>(env.sig("err_stream_o").get());
    o.pc = static_cast<std::uint32_t>(env.sig("err_pc_o").get());
    const Bits sems = env.sig("sem_o").bits();
    for (unsigned i = 0; i < core::Control::kSems; ++i)
      o.sems.push_back(static_cast<std::uint32_t>(sems.slice(32 * i, 32)));
    o.hbm_writes = hbm.writes;
    return o;
  }
};

isa::Program assemble(Env& env, const std::string& text, const std::string& file) {
  try {
    return isa::assemble(text, file, isa::config_defines(env.cfg().arch));
  } catch (const isa::Error& e) {
    check(false, "{}", e.what());
  }
  return {};
}

/// Run kernel `name` on fresh data; `spoil` changes one expected byte (the self-test).
Task<> run_kernel(Env& env, const char* name, bool spoil = false, const kernels::Defines& sizes = {}) {
  const kernels::Kernel* k = kernels::find(name);
  check(k != nullptr, "no kernel {}", name);
  kernels::Case c = k->make(env.cfg().arch, env.rng("data").next(), sizes);
  if (spoil) c.outputs.at(0).bytes.at(1) ^= 0x01;
  NcBench t(env);
  for (const auto& in : c.inputs) std::copy(in.bytes.begin(), in.bytes.end(), t.hbm.mem.image().hbm.begin() + in.addr);
  isa::Program p;
  try {
    p = kernels::assemble(*k, c, env.cfg().arch);
  } catch (const isa::Error& e) {
    check(false, "{}", e.what());
  }
  co_await t.begin();
  co_await t.load(p);
  const std::uint64_t cycles = co_await t.run();
  kernels::Outcome o = t.outcome();
  check(o.done, "kernel {} stopped with error {} on stream {} at pc {}", name, o.code, o.stream, o.pc);
  const std::string diff = kernels::compare(c, t.hbm.mem.image().hbm);
  check(diff.empty(), "kernel {}: the HBM image differs from the reference:\n{}", name, diff);
  for (const auto& [s, v] : c.sems)
    check(o.sems.at(s) == v, "kernel {}: semaphore {} is {}, expected {}", name, s, o.sems.at(s), v);
  for (const auto& w : t.hbm.mem.trace()) check(!w.sem, "a semaphore write reached HBM at {:#x}", w.addr);
  const kernels::Accuracy acc = kernels::accuracy(c, t.hbm.mem.image().hbm);
  check(acc.fail.empty(), "kernel {}: outside the double-precision bound:\n{}", name, acc.fail);
  info("kernel {}: {} cycles from start, {} HBM writes, worst error {:.3f} of its bound", name, cycles, t.hbm.writes,
       acc.worst);
}

/// Run every control program of kernels/programs/, each on a fresh model after a reset;
/// `only`: just that one; `spoil`: expect pc + 1 (the self-test).
Task<> run_programs(Env& env, const std::string& only = "", bool spoil = false) {
  unsigned ran = 0;
  for (auto& pc : kernels::programs(env.cfg().arch)) {
    if (!only.empty() && pc.name != only) continue;
    if (spoil) ++pc.expect.pc;
    const isa::Program p = assemble(env, pc.text, pc.path);
    NcBench t(env);
    co_await t.begin();
    co_await t.load(p);
    const std::uint64_t cycles = co_await t.run();
    const std::string why = kernels::judge(pc.expect, p, t.outcome());
    check(why.empty(), "{}: {}", pc.name, why);
    info("{}: as expected, {} cycles", pc.name, cycles);
    ++ran;
  }
  check(ran > 0, "no control program ran");
}

/// Every control program that ends done, one after another on one NeuronCore with no reset between
/// them: each loaded while the core is idle, started, judged, then a few idle cycles (the lockstep
/// compares them: a core must report done once and stay idle until the next start).
Task<> run_back_to_back(Env& env) {
  NcBench t(env);
  co_await t.begin();
  unsigned ran = 0;
  for (auto& pc : kernels::programs(env.cfg().arch)) {
    if (!pc.expect.done) continue;
    const isa::Program p = assemble(env, pc.text, pc.path);
    co_await t.load(p);
    const std::uint64_t cycles = co_await t.run();
    const std::string why = kernels::judge(pc.expect, p, t.outcome());
    check(why.empty(), "{} (run {} without a reset): {}", pc.name, ran + 1, why);
    for (int i = 0; i < 8; ++i) co_await t.cycle();
    check(!(t.done.get() & 1) && !(t.err.get() & 1), "{}: done_o or err_o still high 8 cycles after the run", pc.name);
    info("{}: as expected, {} cycles (run {} without a reset)", pc.name, cycles, ran + 1);
    ++ran;
  }
  check(ran >= 2, "fewer than two control programs end done: {} ran", ran);
}

/// A dynamic-shape kernel: one binary, loaded once, run with several argument blocks (shapes) one
/// after another on one NeuronCore, each run's HBM outputs and semaphores against its own
/// reference (the lockstep compares every cycle of every run with the model).
Task<> run_shapes(Env& env, const char* name, const std::vector<kernels::Defines>& shapes) {
  const kernels::Kernel* k = kernels::find(name);
  check(k != nullptr, "no kernel {}", name);
  NcBench t(env);
  co_await t.begin();
  isa::Program first;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    kernels::Case c = k->make(env.cfg().arch, env.rng("data").next(), shapes[i]);
    isa::Program p;
    try {
      p = kernels::assemble(*k, c, env.cfg().arch);
    } catch (const isa::Error& e) {
      check(false, "{}", e.what());
    }
    if (i == 0) {
      first = p;
      co_await t.load(p);
    } else {
      for (int c = 0; c < 4; ++c) co_await t.cycle();  // idle between runs, as a host would be
    }
    check(p == first, "kernel {}: shape {} assembles to another binary", name, i);
    auto& hbm = t.hbm.mem.image().hbm;
    std::fill(hbm.begin(), hbm.end(), 0);
    for (const auto& in : c.inputs) std::copy(in.bytes.begin(), in.bytes.end(), hbm.begin() + in.addr);
    const std::uint64_t cycles = co_await t.run();
    kernels::Outcome o = t.outcome();
    check(o.done, "kernel {} shape {}: stopped with error {} on stream {} at pc {}", name, i, o.code, o.stream, o.pc);
    const std::string diff = kernels::compare(c, hbm);
    check(diff.empty(), "kernel {} shape {}: the HBM image differs from the reference:\n{}", name, i, diff);
    for (const auto& [s, v] : c.sems)
      check(o.sems.at(s) == v, "kernel {} shape {}: semaphore {} is {}, expected {}", name, i, s, o.sems.at(s), v);
    const kernels::Accuracy acc = kernels::accuracy(c, hbm);
    check(acc.fail.empty(), "kernel {} shape {}: outside the double-precision bound:\n{}", name, i, acc.fail);
    info("kernel {} shape {}: {} cycles", name, i, cycles);
  }
}

}  // namespace

TRN_TEST(kernel_matmul, .timeout_ns = 1e10) { co_await run_kernel(env, "matmul"); }
TRN_TEST(kernel_gemm, .timeout_ns = 1e11) { co_await run_kernel(env, "gemm"); }
// the GEMM in FP8 (E4M3, two rows a PE) and MXFP8 (four rows a PE, E8M0 scales beside them)
TRN_TEST(kernel_gemm_fp8, .timeout_ns = 1e11) {
  const kernels::Defines sizes{{"R", 2}};
  co_await run_kernel(env, "gemm", false, sizes);
}
TRN_TEST(kernel_gemm_mxfp8, .timeout_ns = 1e11) {
  const kernels::Defines sizes{{"R", 4}, {"KT", 3}, {"XC", 3}};  // odd KT: both semaphores of a pair
  co_await run_kernel(env, "gemm", false, sizes);
}
TRN_TEST(kernel_softmax, .timeout_ns = 1e11) { co_await run_kernel(env, "softmax"); }
// the shape read at run time: one binary, four argument blocks (row lengths and block counts)
TRN_TEST(kernel_softmax_dyn, .timeout_ns = 1e11) {
  const std::int64_t n = env.cfg().arch.max_moving_n;
  using D = kernels::Defines;
  const std::vector<D> shapes{D{{"N", n}, {"RB", 3}}, D{{"N", 1}, {"RB", 1}}, D{{"N", 5}, {"RB", 2}},
                              D{{"N", n - 3}, {"RB", 3}}};
  co_await run_shapes(env, "softmax_dyn", shapes);
}
// K, N and the moving size read at run time: one binary, four argument blocks
TRN_TEST(kernel_gemm_dyn, .timeout_ns = 1e11) {
  const std::int64_t n = env.cfg().arch.max_moving_n;
  using D = kernels::Defines;
  const std::vector<D> shapes{D{{"KT", 4}, {"NT", 4}, {"N", n}}, D{{"KT", 1}, {"NT", 1}, {"N", 1}},
                              D{{"KT", 3}, {"NT", 2}, {"N", 5}}, D{{"KT", 2}, {"NT", 3}, {"N", n - 3}}};
  co_await run_shapes(env, "gemm_dyn", shapes);
}
TRN_TEST(kernel_layernorm, .timeout_ns = 1e11) { co_await run_kernel(env, "layernorm"); }
TRN_TEST(kernel_attention, .timeout_ns = 1e11) { co_await run_kernel(env, "attention"); }
// three query tiles: the streams' two-deep overlap and the paired buffers
TRN_TEST(kernel_attention_tiles, .timeout_ns = 1e11) {
  const kernels::Defines sizes{{"QT", 3}};
  co_await run_kernel(env, "attention", false, sizes);
}
TRN_TEST(kernel_mlp, .timeout_ns = 1e11) { co_await run_kernel(env, "mlp"); }
// six token tiles: the streams' two-deep overlap, the paired buffers, loads two tiles ahead of stores
TRN_TEST(kernel_mlp_tiles, .timeout_ns = 1e11) {
  const kernels::Defines sizes{{"NT", 6}, {"XA", 2}};
  co_await run_kernel(env, "mlp", false, sizes);
}

TRN_TEST(control_programs, .timeout_ns = 1e11) { co_await run_programs(env); }

namespace {

/// The index of semaphore `name` in program p.
unsigned sem_index(const isa::Program& p, const std::string& name) {
  for (const auto& [i, n] : p.sem_names)
    if (n == name) return i;
  check(false, "no semaphore {} in the program", name);
  return 0;
}

/// Every operator of kernels/gpsimd on every processor, started by the gpsimd stream (each
/// processor with its own inputs, the same layout): each processor's outputs against the host
/// build. The gpsimd_run's post reaches the semaphore the sync stream waits for.
Task<> run_gpsimd_operators(Env& env, bool spoil = false) {
  NcBench t(env);
  const unsigned procs = t.prm.core.gp_procs;
  check(procs > 0, "this NeuronCore has no GpSimd engine");
  co_await t.begin();
  auto r = env.rng("operators");
  for (const std::string& name : gpsimd::operator_names()) {
    std::vector<gpsimd::OperatorCase> cases;
    for (unsigned i = 0; i < procs; ++i) {
      std::mt19937_64 g(r.next());
      cases.push_back(gpsimd::operator_case(name, t.prm.core.gp_tcm_bytes, g, 128));
      co_await t.gp.write(static_cast<int>(i), 0, words_of(cases.back().image));
    }
    if (spoil) cases[procs - 1].expected.at(cases[procs - 1].outputs.at(0).addr) ^= 0x01;
    const std::string text = fmt::format(R"(
.sem op, seen
.stream gpsimd
    gpsimd_run entry=0 args={} post=op+=1
    end
.stream sync
    sem_add wait=op>=1 post=seen+=1
    end
)",
                                         cases[0].args);
    const isa::Program p = assemble(env, text, name + ".s");
    co_await t.load(p);
    const std::uint64_t cycles = co_await t.run(4000000);
    const kernels::Outcome o = t.outcome();
    check(o.done, "operator {}: the core stopped with error {} on stream {} at pc {} (detail {})", name, o.code,
          o.stream, o.pc, o.detail);
    check(o.sems.at(sem_index(p, "seen")) == 1, "operator {}: the sync stream did not see the operator's post", name);
    for (unsigned i = 0; i < procs; ++i) {
      const auto m = co_await t.gp.read(i);
      for (const auto& out : cases[i].outputs)
        check(std::equal(m.begin() + out.addr, m.begin() + out.addr + out.bytes, cases[i].expected.begin() + out.addr),
              "operator {}: processor {}'s {} differ from the host build's", name, i, out.what);
    }
    info("operator {} on {} processors in the NeuronCore: {} cycles, equal to the host build", name, procs, cycles);
  }
}

/// A GpSimd program on SBUF beside the other streams: the sync stream brings X (NW int32 a
/// partition) from HBM into SBUF; the processors wait for the vector stream's semaphore, add
/// (their index + 1) * 0x01010101 to each of their partitions' words in place (sb.load, vadd,
/// sb.store) and
/// each adds 1 to semaphore c; the gpsimd stream's post lets the sync stream take the partitions
/// back to HBM. Meanwhile the vector engine fills a region of every partition and copies it to
/// another (its SBUF ports contend with the GpSimd port), which the sync stream takes out too.
/// Checked: HBM against X + (p / per + 1) * 0x01010101 and the copied constant, semaphore c against the
/// processors.
Task<> run_gpsimd_sbuf(Env& env) {
  NcBench t(env);
  const unsigned procs = t.prm.core.gp_procs, parts = t.prm.core.parts, per = parts / procs;
  const unsigned nw = t.prm.core.gp_vlen / 32;  // int32 words a vector register holds
  check(procs > 0, "this NeuronCore has no GpSimd engine");
  const std::uint32_t hx = 0, hy = 4 * nw * parts, hc = 2 * hy, sb_off = 64, nv = 8 * nw;
  const std::uint32_t hb = hc + 4 * nv * parts, hh = hb + hy;  // the byte and halfword copies
  const std::string text =
      fmt::format(R"(
.sem x_in, v, c, g, out, vd
.stream sync
.for p = 0, PARTS
    dma_start queue=0 src=hbm:{hx}+4*{nw}*p dst=sbuf:sb(p, {off}) len=4*{nw} stype=bytes dtype=bytes dsem=x_in+=1
.endfor
.for p = 0, PARTS
    dma_start queue=1%QUEUES src=sbuf:sb(p, {off}) dst=hbm:{hy}+4*{nw}*p len=4*{nw} stype=bytes dtype=bytes dsem=out+=1 wait=g>=1
.endfor
.for p = 0, PARTS
    dma_start queue=0 src=sbuf:sb(p, 512) dst=hbm:{hc}+4*{nv}*p len=4*{nv} stype=bytes dtype=bytes dsem=out+=1 wait=vd>=1
.endfor
.for p = 0, PARTS
    dma_start queue=1%QUEUES src=sbuf:sb(p, 129) dst=hbm:{hb}+4*{nw}*p len=4*{nw} stype=bytes dtype=bytes dsem=out+=1 wait=g>=1
    dma_start queue=1%QUEUES src=sbuf:sb(p, 194) dst=hbm:{hh}+4*{nw}*p len=4*{nw} stype=bytes dtype=bytes dsem=out+=1 wait=g>=1
.endfor
    sem_wait wait=out>=4*PARTS
    end
.stream vector
    sem_add post=v+=1
    memset pc=PARTS size={nv} o=sbuf:256:fp32 o.stride=1 imm0=0x3FC00000
    copy pc=PARTS size={nv} a=sbuf:256:fp32 a.stride=1 o=sbuf:512:fp32 o.stride=1 post=vd+=1
    end
.stream gpsimd
    reg_set r1, 8
    gpsimd_run entry=0 args=r1+0x100 wait=x_in>=PARTS post=g+=1
    end
)",
                  fmt::arg("hx", hx), fmt::arg("hy", hy), fmt::arg("hc", hc), fmt::arg("hb", hb), fmt::arg("hh", hh),
                  fmt::arg("nw", nw), fmt::arg("nv", nv), fmt::arg("off", sb_off));
  const isa::Program p = assemble(env, text, "gpsimd_sbuf.s");
  namespace enc = gpsimd::enc;
  const std::int32_t sv = static_cast<std::int32_t>(sem_index(p, "v")),
                     sc = static_cast<std::int32_t>(sem_index(p, "c"));
  std::vector<std::uint32_t> code{
      enc::vsetivli(0, nw, enc::vtype(2, 0)),           // e32, m1, vl = nw
      enc::addi(5, 0, static_cast<std::int32_t>(per)),  // t0 = partitions left
      enc::r_type(enc::kOp, 0, 1, 6, 10, 5),            // t1 = a0 * per: the first
      enc::addi(28, 10, 1),                             // t3 = a0 + 1
      enc::li(19, 0x01010101).hi,
      enc::li(19, 0x01010101).lo,
      enc::r_type(enc::kOp, 0, 1, 28, 28, 19),  // t3 = (a0 + 1) * 0x01010101: every byte changes
      enc::addi(29, 0, 1),                      // t4 = 1
      enc::addi(30, 0, sv),                     // t5 = v
      enc::addi(31, 0, static_cast<std::int32_t>(sb_off)),
      enc::sem_wait(30, 29),  // v >= 1
  };
  const std::size_t top = code.size();
  code.push_back(enc::sb_load(1, 6, 31));
  code.push_back(enc::opv(0x00, true, 1, 28, 4, 1));  // vadd.vx v1, v1, t3
  code.push_back(enc::sb_store(1, 6, 31));
  code.push_back(enc::addi(6, 6, 1));
  code.push_back(enc::addi(5, 5, -1));
  code.push_back(enc::bne(5, 0, -4 * static_cast<std::int32_t>(code.size() - top)));
  // then each partition's words again, as bytes to offset 129 and as halfwords to offset 194: the
  // 1- and 2-byte SBUF writes, at every byte and both halves of a word
  for (const std::uint32_t w : {enc::addi(5, 0, static_cast<std::int32_t>(per)), enc::r_type(enc::kOp, 0, 1, 6, 10, 5),
                                enc::addi(7, 0, static_cast<std::int32_t>(4 * nw)), enc::addi(8, 0, 129),
                                enc::addi(9, 0, 194), enc::addi(18, 0, static_cast<std::int32_t>(2 * nw))})
    code.push_back(w);
  const std::size_t top2 = code.size();
  code.push_back(enc::vsetvli(0, 7, enc::vtype(0, 0)));  // e8, vl = 4 nw
  code.push_back(enc::sb_load(2, 6, 31));
  code.push_back(enc::sb_store(2, 6, 8));
  code.push_back(enc::vsetvli(0, 18, enc::vtype(1, 0)));  // e16, vl = 2 nw
  code.push_back(enc::sb_load(3, 6, 31));
  code.push_back(enc::sb_store(3, 6, 9));
  code.push_back(enc::addi(6, 6, 1));
  code.push_back(enc::addi(5, 5, -1));
  code.push_back(enc::bne(5, 0, -4 * static_cast<std::int32_t>(code.size() - top2)));
  code.push_back(enc::addi(30, 0, sc));
  code.push_back(enc::sem_add(30, 29));  // c += 1
  code.push_back(enc::sw(11, 11, 0));    // a1 (r1 + 0x100 = 0x108) at address a1
  code.push_back(enc::op_end());
  code.resize(t.prm.core.gp_tcm_bytes / 4, 0);
  auto r = env.rng("sbuf data");
  std::vector<std::uint32_t> x(nw * parts);
  for (auto& w : x) w = static_cast<std::uint32_t>(r.next());
  auto& hbm = t.hbm.mem.image().hbm;
  std::memcpy(hbm.data() + hx, x.data(), 4 * x.size());
  co_await t.begin();
  co_await t.gp.write(-1, 0, code);
  co_await t.load(p);
  const std::uint64_t cycles = co_await t.run();
  const kernels::Outcome o = t.outcome();
  check(o.done, "the core stopped with error {} on stream {} at pc {} (detail {})", o.code, o.stream, o.pc, o.detail);
  for (unsigned q = 0; q < parts; ++q)
    for (unsigned i = 0; i < nw; ++i) {
      std::uint32_t y;
      std::memcpy(&y, hbm.data() + hy + 4 * (nw * q + i), 4);
      const std::uint32_t want = x[nw * q + i] + (q / per + 1) * 0x01010101u;
      check(y == want, "partition {} word {}: {:#x}, expected {:#x}", q, i, y, want);
      std::memcpy(&y, hbm.data() + hb + 4 * (nw * q + i), 4);
      check(y == want, "partition {} word {} stored by bytes at 129: {:#x}, expected {:#x}", q, i, y, want);
      std::memcpy(&y, hbm.data() + hh + 4 * (nw * q + i), 4);
      check(y == want, "partition {} word {} stored by halfwords at 194: {:#x}, expected {:#x}", q, i, y, want);
    }
  for (unsigned q = 0; q < parts; ++q)
    for (unsigned i = 0; i < nv; ++i) {
      std::uint32_t y;
      std::memcpy(&y, hbm.data() + hc + 4 * (nv * q + i), 4);
      check(y == 0x3FC00000u, "the vector engine's copy: partition {} word {}: {:#x}, expected 0x3fc00000", q, i, y);
    }
  check(o.sems.at(static_cast<unsigned>(sc)) == procs, "semaphore c is {}, expected {} (a sem.add a processor)",
        o.sems.at(static_cast<unsigned>(sc)), procs);
  for (unsigned i = 0; i < procs; ++i) {
    const auto m = co_await t.gp.read(i);
    std::uint32_t w;
    std::memcpy(&w, m.data() + 0x108, 4);
    check(w == 0x108, "processor {}: word 0x108 is {:#x}: a1 was not the argument address 0x108 (r1 + 0x100)", i, w);
  }
  info("GpSimd on SBUF beside the DMA and the vector stream: {} cycles", cycles);
}

/// Each SBUF operator of kernels/gpsimd (its rows brought into SBUF by the DMA and taken out
/// again): the rows in HBM against its host build, bit for bit, and the operator's semaphore.
Task<> run_gpsimd_sbuf_operators(Env& env) {
  NcBench t(env);
  const auto& a = env.cfg().arch;
  check(t.prm.core.gp_procs > 0, "this NeuronCore has no GpSimd engine");
  co_await t.begin();
  auto r = env.rng("sbuf operators");
  for (const std::string& name : gpsimd::sbuf_operator_names()) {
    std::mt19937_64 g(r.next());
    const gpsimd::SbufCase c = gpsimd::sbuf_operator_case(name, a.gpsimd_tcm_bytes, a.partitions,
                                                          a.sbuf_bytes_per_partition, a.gpsimd_procs, g, 128, 1);
    const std::uint32_t hx = 0, hy = c.bytes * c.parts;
    auto& hbm = t.hbm.mem.image().hbm;
    std::fill(hbm.begin(), hbm.end(), 0);
    for (unsigned p = 0; p < c.parts; ++p)
      std::copy_n(c.sbuf.begin() + p * c.part_bytes + c.in, c.bytes, hbm.begin() + hx + p * c.bytes);
    co_await t.gp.write(-1, 0, words_of(c.image));
    const isa::Program p = assemble(env, gpsimd::sbuf_program(c, hx, hy), name + ".s");
    check(sem_index(p, "ops") == c.sem, "the program's semaphore ops is not the operator's");
    co_await t.load(p);
    const std::uint64_t cycles = co_await t.run(4000000);
    const kernels::Outcome o = t.outcome();
    check(o.done, "operator {}: the core stopped with error {} on stream {} at pc {} (detail {})", name, o.code,
          o.stream, o.pc, o.detail);
    for (unsigned q = 0; q < c.parts; ++q)
      check(std::equal(hbm.begin() + hy + q * c.bytes, hbm.begin() + hy + (q + 1) * c.bytes,
                       c.expected.begin() + q * c.part_bytes + c.out),
            "operator {}: partition {}'s output differs from the host build's", name, q);
    check(o.sems.at(c.sem) == c.procs, "operator {}: semaphore ops is {}, expected {} (one a processor)", name,
          o.sems.at(c.sem), c.procs);
    info(
        "SBUF operator {} on {} processors, {} elements: {} cycles from start (DMA in and out included), equal to "
        "the host build",
        name, c.procs, c.elements, cycles);
  }
}

/// A processor's error stops the core: processor `bad` runs an illegal word (0) where the others
/// run op.end; the core's error is gpsimd on the gpsimd stream at the gpsimd_run's pc, its detail
/// the processor's code (illegal), gp_err_proc_o and gp_err_pc_o the processor and its pc.
Task<> run_gpsimd_error(Env& env) {
  NcBench t(env);
  const unsigned procs = t.prm.core.gp_procs;
  check(procs > 0, "this NeuronCore has no GpSimd engine");
  co_await t.begin();
  const unsigned bad = procs - 1;
  std::vector<std::uint32_t> good(t.prm.core.gp_tcm_bytes / 4, 0), wrong = good;
  good[4] = gpsimd::enc::op_end();  // entry 16
  wrong[4] = gpsimd::enc::addi(5, 0, 1);
  wrong[5] = 0;  // illegal, at 20
  for (unsigned i = 0; i < procs; ++i) co_await t.gp.write(static_cast<int>(i), 0, i == bad ? wrong : good);
  const isa::Program p = assemble(env, R"(
.sem g
.stream gpsimd
    sem_add post=g+=0
    gpsimd_run entry=16 args=0 post=g+=1
    end
)",
                                  "gpsimd_error.s");
  co_await t.load(p);
  co_await t.run();
  const kernels::Outcome o = t.outcome();
  check(!o.done, "the core finished: the processor's error was lost");
  check(o.code == 10 && o.stream == core::Control::gpsimd && o.pc == 1 && o.detail == 1,
        "error {} stream {} pc {} detail {}, expected gpsimd (10) on the gpsimd stream (4) at pc 1, illegal (1)",
        o.code, o.stream, o.pc, o.detail);
  co_await ReadOnly();
  const auto proc = env.sig("gp_err_proc_o").get(), pc = env.sig("gp_err_pc_o").get();
  check(proc == bad && pc == 20, "the GpSimd error names processor {} at pc {}, expected {} at 20", proc, pc, bad);
  check(o.sems.at(0) == 0, "the operator's post was added");
}

}  // namespace

TRN_TEST(gpsimd_operators, .timeout_ns = 1e12) { co_await run_gpsimd_operators(env); }
TRN_TEST(gpsimd_sbuf, .timeout_ns = 1e11) { co_await run_gpsimd_sbuf(env); }
TRN_TEST(gpsimd_sbuf_operators, .timeout_ns = 1e12) { co_await run_gpsimd_sbuf_operators(env); }
TRN_TEST(gpsimd_error_stops_the_core, .timeout_ns = 1e11) { co_await run_gpsimd_error(env); }
TRN_TEST(selftest_gpsimd_operator_check_catches_wrong_output, .timeout_ns = 1e12, .expect_fail = true) {
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("differ from the host build") != std::string::npos,
          "failed for another reason: {}", e.what());
  });
  co_await run_gpsimd_operators(env, true);
}

TRN_TEST(runs_back_to_back, .timeout_ns = 1e11) { co_await run_back_to_back(env); }

TRN_TEST(selftest_kernel_check_catches_wrong_result, .timeout_ns = 1e10, .expect_fail = true) {
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("C byte 1") != std::string::npos, "failed for another reason: {}", e.what());
  });
  co_await run_kernel(env, "matmul", true);
}

TRN_TEST(selftest_program_check_catches_wrong_pc, .timeout_ns = 1e10, .expect_fail = true) {
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("deadlock: expected error deadlock on the vector stream at pc 1") !=
              std::string::npos,
          "failed for another reason: {}", e.what());
  });
  co_await run_programs(env, "deadlock", true);
}

/// A model wrong in one bit of one port at one cycle: the lockstep or a probe must fail there,
/// naming that port.
Task<> inject_selftest(Env& env, const std::string& signal, std::uint64_t cycle, unsigned bit) {
  InjectGuard wrong_model(signal, cycle, bit);
  expect_mismatch(signal, cycle);
  co_await run_kernel(env, "matmul");
}

TRN_TEST(selftest_lockstep_catches_wrong_semaphore, .timeout_ns = 1e10, .expect_fail = true) {
  co_await inject_selftest(env, "sem_o[2]", 120, 0);
}
TRN_TEST(selftest_probe_catches_wrong_command, .timeout_ns = 1e10, .expect_fail = true) {
  co_await inject_selftest(env, "neuron_core.u_ctl.te_cmd_o.k", 100, 1);
}
TRN_TEST(selftest_probe_catches_wrong_status, .timeout_ns = 1e10, .expect_fail = true) {
  co_await inject_selftest(env, "neuron_core.u_ctl.st_o[1].state", 110, 2);
}
TRN_TEST(selftest_probe_catches_wrong_datapath_port, .timeout_ns = 1e10, .expect_fail = true) {
  co_await inject_selftest(env, "neuron_core.u_core.dma_desc_ready_o", 105, 0);
}

TRN_BENCH_MAIN(Vneuron_core, "neuron_core")
