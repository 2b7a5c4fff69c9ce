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
//     stream, pc, detail and semaphores against its `; expect:` lines (kernels/programs/).
// Environment: the HBM port served by trn::dma::MemSystem (trn::tb::HbmPort).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/neuron_core.hpp"
#include "core/program_runner.hpp"
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
        err(e.sig("err_o")) {
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
