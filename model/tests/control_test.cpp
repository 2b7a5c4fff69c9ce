// Boost.Test units of the NeuronCore control on the model alone (trn::core::ProgramRunner over
// trn::core::NeuronCore): every kernel of kernels/ against its references (trn::kernels); semaphore additions from
// several sources in one cycle; and each error: illegal instruction, a lane instruction and a descriptor refused at
// decode, a tensor engine refusal, deadlock, running past the instruction memory. Each error names its stream and pc,
// and nothing issues after it.
#include <fmt/format.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstring>
#include <random>

#include "core/program_runner.hpp"
#include "core/roofline.hpp"
#include "gpsimd/operators.hpp"
#include "kernels/kernels.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "scalar/activation.hpp"
#include "tensor/reference.hpp"
#include "vector/lane_engine.hpp"
#include "vector/reference.hpp"

using namespace trn;

namespace {

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

/// Load p into a control model's instruction memories through its port and start it.
void load_and_start(core::Control& c, core::Control::In& in, const isa::Program& p, unsigned imem_depth) {
  const auto words = core::imem_words(p, imem_depth);
  for (unsigned s = 0; s < core::Control::kStreams; ++s)
    for (std::size_t a = 0; a < words[s].size(); ++a) {
      in.im_valid_i = true, in.im_stream_i = s, in.im_addr_i = static_cast<std::uint32_t>(a),
      in.im_data_i = words[s][a];
      c.tick(in);
    }
  in.im_valid_i = false;
  in.start_i = true;
  c.tick(in);
  in.start_i = false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(control)

/// Every kernel of kernels/ in tiny and small (and the GEMM in FP8 and MXFP8, attention and the MLP
/// with several tiles): the HBM outputs bit
/// for bit against the reference that follows the kernel's order, within the stated bound of double
/// precision, every semaphore at its count, and no completion write in HBM.
BOOST_AUTO_TEST_CASE(every_kernel_matches_its_references) {
  std::vector<std::pair<const kernels::Kernel*, kernels::Defines>> runs;
  for (const auto& k : kernels::all()) runs.emplace_back(&k, kernels::Defines{});
  runs.emplace_back(kernels::find("gemm"), kernels::Defines{{"R", 2}});
  runs.emplace_back(kernels::find("gemm"), kernels::Defines{{"R", 4}, {"KT", 2}});
  // MX scales with the semaphore pairs (odd KT, three chunks); more output tiles than PSUM banks
  runs.emplace_back(kernels::find("gemm"), kernels::Defines{{"R", 4}, {"KT", 3}, {"XC", 3}});
  runs.emplace_back(kernels::find("gemm"), kernels::Defines{{"MT", 9}, {"NT", 2}, {"KT", 1}});
  runs.emplace_back(kernels::find("attention"), kernels::Defines{{"QT", 3}});
  // the steady state of the loads: X tiles loaded XA ahead, between the stores
  runs.emplace_back(kernels::find("mlp"), kernels::Defines{{"NT", 6}, {"XA", 2}});
  for (const char* cfg : {"tiny", "small"}) {
    const auto& arch = cfg::find(cfg)->arch;
    for (const auto& [kp, sizes] : runs) {
      const kernels::Kernel& k = *kp;
      std::string sz;
      for (const auto& [n, v] : sizes) sz += " " + n + "=" + std::to_string(v);
      BOOST_TEST_CONTEXT(k.name << " (" << cfg << sz << ")") {
        const kernels::Case c = k.make(arch, 9, sizes);
        core::ProgramRunner r(params(cfg), dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 3);
        auto& hbm = r.hbm().image().hbm;
        for (const auto& in : c.inputs) std::copy(in.bytes.begin(), in.bytes.end(), hbm.begin() + in.addr);
        r.load(kernels::assemble(k, c, arch));
        const core::RunResult res = r.run(2'000'000);
        BOOST_TEST_REQUIRE(res.ok, res.what);
        BOOST_TEST_MESSAGE(k.name << " (" << cfg << "): " << res.cycles << " cycles");
        const std::string diff = kernels::compare(c, hbm);
        BOOST_TEST(diff.empty(), diff);
        const kernels::Accuracy acc = kernels::accuracy(c, hbm);
        BOOST_TEST(acc.fail.empty(), acc.fail);
        BOOST_TEST(!c.bounds.empty(), "a kernel without a double-precision bound");
        for (const auto& [s, v] : c.sems) BOOST_TEST(r.out().sem_o[s] == v, "semaphore " << s);
        for (const auto& w : r.hbm().trace()) BOOST_TEST(!w.sem);
      }
    }
  }
}

/// The double-precision check catches an output off its bound, and a kernel's sizes are checked.
BOOST_AUTO_TEST_CASE(kernel_accuracy_catches_an_output_off_its_bound) {
  const auto& arch = cfg::find("tiny")->arch;
  const kernels::Case c = kernels::find("gemm")->make(arch, 9, {});
  std::vector<std::uint8_t> hbm(arch.hbm_bytes, 0);
  for (const auto& o : c.outputs) std::copy(o.bytes.begin(), o.bytes.end(), hbm.begin() + o.addr);
  BOOST_TEST_REQUIRE(kernels::accuracy(c, hbm).fail.empty());
  BOOST_TEST(kernels::accuracy(c, hbm).worst <= 1.0);
  hbm[c.outputs[0].addr + 2 * 5 + 1] ^= 0x01;  // element 5's exponent's low bit: a factor of 2
  const kernels::Accuracy a = kernels::accuracy(c, hbm);
  BOOST_TEST(a.fail.find("C element 5:") != std::string::npos, a.fail);
  BOOST_TEST(a.worst > 1.0);
  BOOST_CHECK_THROW(kernels::find("gemm")->make(arch, 9, {{"NT", 0}}), std::invalid_argument);
  BOOST_CHECK_THROW(kernels::find("gemm")->make(arch, 9, {{"NQ", 2}}), std::invalid_argument);
  BOOST_CHECK_THROW(kernels::find("gemm")->make(arch, 9, {{"R", 3}}), std::invalid_argument);
  const kernels::Case big = kernels::find("gemm")->make(arch, 9, {{"NT", 6}});
  BOOST_TEST(big.defines.at("NT") == 6);
  BOOST_TEST(kernels::assemble(*kernels::find("gemm"), big, arch).streams[3].size() >
             kernels::assemble(*kernels::find("gemm"), c, arch).streams[3].size());
}

/// The comparison of a kernel's outputs catches a wrong byte.
BOOST_AUTO_TEST_CASE(kernel_compare_catches_a_wrong_byte) {
  const kernels::Case c = kernels::find("matmul")->make(cfg::find("tiny")->arch, 9, {});
  std::vector<std::uint8_t> hbm(cfg::find("tiny")->arch.hbm_bytes, 0);
  for (const auto& o : c.outputs) std::copy(o.bytes.begin(), o.bytes.end(), hbm.begin() + o.addr);
  BOOST_TEST(kernels::compare(c, hbm).empty());
  hbm[c.outputs[0].addr + 3] ^= 0x10;
  BOOST_TEST(kernels::compare(c, hbm).find("C byte 3") != std::string::npos);
}

/// Every control program of kernels/programs/ ends as its expect lines say (the RTL bench runs the
/// same programs in lockstep).
BOOST_AUTO_TEST_CASE(every_control_program_ends_as_expected) {
  const auto& arch = cfg::find("tiny")->arch;
  const auto progs = kernels::programs(arch);
  BOOST_TEST(progs.size() >= 8u);
  for (const auto& pc : progs) {
    BOOST_TEST_CONTEXT(pc.name) {
      core::ProgramRunner r(params("tiny"), dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 5);
      const isa::Program p = isa::assemble(pc.text, pc.path, isa::config_defines(arch));
      r.load(p);
      const core::RunResult res = r.run(100000);
      kernels::Outcome o;
      o.done = res.ok;
      o.code = res.code, o.detail = res.detail, o.stream = res.stream, o.pc = res.pc;
      o.sems.assign(r.out().sem_o.begin(), r.out().sem_o.end());
      o.hbm_writes = r.hbm().trace().size();
      const std::string why = kernels::judge(pc.expect, p, o);
      BOOST_TEST(why.empty(), why << " (" << res.what << ")");
    }
  }
}

/// The judgement of a program's outcome catches a wrong error, pc, detail or semaphore.
BOOST_AUTO_TEST_CASE(program_judge_catches_a_wrong_outcome) {
  const isa::Program p = assemble(".sem s\n.stream vector\n end\n", "tiny");
  kernels::Expect e;
  e.done = false, e.code = 6, e.stream = 1, e.pc = 0, e.sems = {{"s", 2}};
  kernels::Outcome o;
  o.code = 6, o.stream = 1, o.pc = 0, o.sems.assign(32, 0);
  o.sems[0] = 2;
  BOOST_TEST(kernels::judge(e, p, o).empty());
  kernels::Outcome w = o;
  w.pc = 1;
  BOOST_TEST(!kernels::judge(e, p, w).empty());
  w = o;
  w.code = 1;
  BOOST_TEST(!kernels::judge(e, p, w).empty());
  w = o;
  w.sems[0] = 3;
  BOOST_TEST(kernels::judge(e, p, w).find("semaphore s is 3") != std::string::npos);
  w = o;
  w.done = true;
  BOOST_TEST(!kernels::judge(e, p, w).empty());
}

/// The reset is asynchronous, as in the RTL: while rst_ni is low the outputs are those of the reset
/// state at once, before any edge.
BOOST_AUTO_TEST_CASE(outputs_under_reset_are_the_reset_state) {
  const isa::Program p = assemble(".sem s\n.stream vector\n sem_add post=s+=3\n sem_wait wait=s>=9\n end\n", "tiny");
  core::Control::Params cp;
  cp.imem_depth = params("tiny").imem_depth;
  core::Control c(cp);
  core::Control::In in = c.make_in();
  core::Control::Out o = c.make_out();
  c.tick(in);  // in reset
  in.rst_ni = true;
  in.dma_q_idle_i = Bits::ones(cp.nq());
  load_and_start(c, in, p, cp.imem_depth);
  for (unsigned i = 0; i < 8; ++i) c.tick(in);
  c.eval(in, o);
  // the vector stream waits for s >= 9 with nothing else to run: stopped on a deadlock
  BOOST_TEST_REQUIRE(o.err_o);
  BOOST_TEST(o.err_code_o == 6u);
  BOOST_TEST(o.sem_o[0] == 3u);
  BOOST_TEST((o.st_o[1].state == core::Control::State::StHalt));
  in.rst_ni = false;
  c.eval(in, o);
  BOOST_TEST(!o.running_o);
  BOOST_TEST(!o.err_o);
  BOOST_TEST(o.err_code_o == 0u);
  BOOST_TEST(o.sem_o[0] == 0u);
  BOOST_TEST((o.st_o[1].state == core::Control::State::StIdle));
  BOOST_TEST(o.st_o[1].pc == 0u);
}

/// With sem_ext_en_i a stream waiting with nothing in flight is not a deadlock (another unit may
/// still add); an addition on sem_ext_* lets it go on, counted with the cycle's other additions.
BOOST_AUTO_TEST_CASE(an_external_semaphore_addition_ends_a_wait_that_is_no_deadlock) {
  const isa::Program p = assemble(".sem s\n.stream vector\n sem_add post=s+=3\n sem_wait wait=s>=9\n end\n", "tiny");
  core::Control::Params cp;
  cp.imem_depth = params("tiny").imem_depth;
  core::Control c(cp);
  core::Control::In in = c.make_in();
  core::Control::Out o = c.make_out();
  c.tick(in);  // in reset
  in.rst_ni = true;
  in.dma_q_idle_i = Bits::ones(cp.nq());
  in.sem_ext_en_i = true;
  load_and_start(c, in, p, cp.imem_depth);
  for (unsigned i = 0; i < 40; ++i) c.tick(in);
  c.eval(in, o);
  BOOST_TEST_REQUIRE(!o.err_o);
  BOOST_TEST(o.running_o);
  BOOST_TEST((o.st_o[1].state == core::Control::State::StWait));
  // 6 from outside: 3 + 6 = 9, the wait holds the next cycle and the stream ends
  in.sem_ext_valid_i = true, in.sem_ext_idx_i = 0, in.sem_ext_val_i = 6;
  c.tick(in);
  in.sem_ext_valid_i = false;
  bool done = false;
  for (unsigned i = 0; i < 10 && !done; ++i) {
    c.eval(in, o);
    done = o.done_o;
    c.tick(in);
  }
  BOOST_TEST(done);
  BOOST_TEST(!o.err_o);
  BOOST_TEST(o.sem_o[0] == 9u);
}

/// Control::tick answers false only for an edge that moves no register (the collective core then
/// keeps its control's outputs of the last eval): the outputs after such an edge are those before
/// it, on the same input; a waiting stream's edges say so, the issues' and an addition's do not.
BOOST_AUTO_TEST_CASE(an_edge_that_moves_nothing_says_so) {
  const isa::Program p =
      assemble(".sem s\n.stream vector\n sem_add post=s+=3\n sem_add post=s+=1\n sem_wait wait=s>=9\n end\n", "tiny");
  core::Control::Params cp;
  cp.imem_depth = params("tiny").imem_depth;
  core::Control c(cp);
  core::Control::In in = c.make_in();
  core::Control::Out before = c.make_out(), after = c.make_out();
  c.tick(in);  // in reset
  in.rst_ni = true;
  in.dma_q_idle_i = Bits::ones(cp.nq());
  in.sem_ext_en_i = true;
  load_and_start(c, in, p, cp.imem_depth);
  auto same = [](const core::Control::Out& a, const core::Control::Out& b) {
    bool eq = a.sem_o == b.sem_o && a.running_o == b.running_o && a.done_o == b.done_o && a.err_o == b.err_o;
    for (unsigned s = 0; s < core::Control::kStreams; ++s)
      eq = eq && a.st_o[s].state == b.st_o[s].state && a.st_o[s].pc == b.st_o[s].pc && a.issue[s] == b.issue[s];
    return eq;
  };
  unsigned moved = 0, still = 0;
  bool added = false, done = false;
  for (unsigned i = 0; i < 60 && !done; ++i) {
    if (i == 40) in.sem_ext_valid_i = true, in.sem_ext_idx_i = 0, in.sem_ext_val_i = 5;  // 4 + 5 = 9
    c.eval(in, before);
    const bool m = c.tick(in);
    c.eval(in, after);
    if (m) {
      ++moved;
    } else {
      ++still;
      BOOST_TEST(same(before, after), "cycle " << i << ": an edge said to move nothing changed the outputs");
    }
    if (i == 40) {
      BOOST_TEST(m, "the external addition's edge moves the semaphore");
      BOOST_TEST(after.sem_o[0] == 9u);
      added = true;
      in.sem_ext_valid_i = false;
    }
    done = after.done_o;
  }
  BOOST_TEST(added);
  BOOST_TEST(done);
  BOOST_TEST(moved >= 4u);   // the fetches and issues of the two additions, the wait and the end
  BOOST_TEST(still >= 30u);  // the wait's edges before the addition
}

BOOST_AUTO_TEST_CASE(illegal_instruction_stops_the_core_with_its_pc) {
  // word 2 of the vector stream uses a field copy does not have
  isa::Program p = assemble(
      ".sem s\n.stream vector\n copy pc=1 a=sbuf:0:fp32 o=sbuf:64:fp32\n sem_add post=s+=1\n"
      " copy pc=1 a=sbuf:0:fp32 o=sbuf:128:fp32\n end\n.stream sync\n sem_wait wait=s>=5\n end\n",
      "tiny");
  isa::set(p.streams[1][2], isa::tbl::kF_k, 3);
  core::ProgramRunner r(params("tiny"), dma::MemSystem::Params{}, 1);
  r.load(p);
  const auto res = r.run(10000);
  BOOST_TEST(!res.ok);
  BOOST_TEST(res.code == 1u);
  BOOST_TEST(res.stream == 1u);
  BOOST_TEST(res.pc == 2u);
  BOOST_TEST(res.what.find("copy does not use field k") != std::string::npos, res.what);
  BOOST_TEST((r.out().st_o[1].state == core::Control::State::StHalt));
  BOOST_TEST(r.out().sem_o[0] == 1u);  // the add before it issued
}

/// The GpSimd operators of kernels/gpsimd in the NeuronCore model (docs/gpsimd.md "In the
/// NeuronCore"): hardswish and scan at small, hardswish at full (the full model is slow per cycle;
/// trnsim gpsimd and the gpsimd suite run every operator at full on the engine and processor
/// models). Each processor's image (its own inputs) loaded through the gp_host port, the operator
/// started by the gpsimd stream's gpsimd_run, whose post the sync stream waits for; every
/// processor's outputs against the host build, bit for bit.
BOOST_AUTO_TEST_CASE(gpsimd_operators_in_the_neuron_core_equal_their_host_build) {
  const std::vector<std::pair<const char*, std::string>> runs{
      {"small", "hardswish"}, {"small", "scan"}, {"full", "hardswish"}};
  std::mt19937_64 rng(11);
  for (const auto& [cfg, name] : runs) {
    const core::NeuronCore::Params prm = params(cfg);
    const unsigned procs = prm.core.gp_procs;
    BOOST_TEST_REQUIRE(procs > 0u);
    {
      core::ProgramRunner r(prm, dma::MemSystem::Params{}, 1);
      std::vector<gpsimd::OperatorCase> cases;
      for (unsigned i = 0; i < procs; ++i) {
        cases.push_back(gpsimd::operator_case(name, prm.core.gp_tcm_bytes, rng, 128));
        // the image up to its last nonzero word: a fresh local memory holds zeros past it
        std::vector<std::uint8_t> im = cases.back().image;
        while (im.size() >= 4 && std::all_of(im.end() - 4, im.end(), [](std::uint8_t b) { return b == 0; }))
          im.resize(im.size() - 4);
        r.load_gpsimd(static_cast<int>(i), 0, im);
      }
      const isa::Program p = assemble(fmt::format(".sem op, seen\n.stream gpsimd\n gpsimd_run entry=0 args={} "
                                                  "post=op+=1\n end\n.stream sync\n sem_add wait=op>=1 "
                                                  "post=seen+=1\n end\n",
                                                  cases[0].args),
                                      cfg);
      r.load(p);
      const core::RunResult res = r.run(20'000'000);
      BOOST_TEST_REQUIRE(res.ok, cfg << " " << name << ": " << res.what);
      BOOST_TEST(r.out().sem_o[1] == 1u);
      for (unsigned i = 0; i < procs; ++i) {
        const auto mem = r.nc().core().gp().proc(i).memory();
        std::vector<std::uint8_t> m(4 * mem.size());
        std::memcpy(m.data(), mem.data(), m.size());
        for (const auto& o : cases[i].outputs)
          BOOST_TEST(std::equal(m.begin() + o.addr, m.begin() + o.addr + o.bytes, cases[i].expected.begin() + o.addr),
                     cfg << " " << name << ": processor " << i << "'s " << o.what << " differ from the host build's");
      }
    }
  }
}

/// The SBUF operators of kernels/gpsimd in the NeuronCore model at small and full (128 partitions,
/// 64 elements each): the DMA brings every partition's rows into SBUF, the gpsimd stream runs the
/// operator, the DMA takes the results out; HBM against the host build, bit for bit, and every
/// processor's semaphore addition.
BOOST_AUTO_TEST_CASE(gpsimd_sbuf_operators_in_the_neuron_core_equal_their_host_build) {
  for (const char* cfg : {"small", "full"}) {
    const auto& a = cfg::find(cfg)->arch;
    std::mt19937_64 rng(12);
    for (const std::string& name : gpsimd::sbuf_operator_names()) {
      const gpsimd::SbufCase c = gpsimd::sbuf_operator_case(name, a.gpsimd_tcm_bytes, a.partitions,
                                                            a.sbuf_bytes_per_partition, a.gpsimd_procs, rng, 64, 1);
      core::ProgramRunner r(params(cfg), dma::MemSystem::Params{}, 1);
      const std::uint32_t hx = 0, hy = c.bytes * c.parts;
      auto& hbm = r.hbm().image().hbm;
      for (unsigned p = 0; p < c.parts; ++p)
        std::copy_n(c.sbuf.begin() + p * c.part_bytes + c.in, c.bytes, hbm.begin() + hx + p * c.bytes);
      r.load_gpsimd(-1, 0, c.image);
      r.load(assemble(gpsimd::sbuf_program(c, hx, hy), cfg));
      const core::RunResult res = r.run(20'000'000);
      BOOST_TEST_REQUIRE(res.ok, cfg << " " << name << ": " << res.what);
      for (unsigned q = 0; q < c.parts; ++q)
        BOOST_TEST(std::equal(hbm.begin() + hy + q * c.bytes, hbm.begin() + hy + (q + 1) * c.bytes,
                              c.expected.begin() + q * c.part_bytes + c.out),
                   cfg << " " << name << ": partition " << q << "'s output differs from the host build's");
      BOOST_TEST(r.out().sem_o[c.sem] == c.procs);
      BOOST_TEST_MESSAGE(cfg << " " << name << ": " << c.elements << " elements on " << c.procs << " processors, "
                             << res.cycles << " cycles with the DMA in and out");
    }
  }
}

/// A GpSimd processor's error stops the core (docs/isa.md "Errors"): error gpsimd on the gpsimd
/// stream at the gpsimd_run, its detail the processor's code, described by name.
BOOST_AUTO_TEST_CASE(a_gpsimd_error_stops_the_core_and_is_described) {
  core::ProgramRunner r(params("tiny"), dma::MemSystem::Params{}, 1);
  r.load_gpsimd(-1, 0, std::vector<std::uint8_t>(8, 0));  // an illegal word at 4
  const isa::Program p = assemble(".stream gpsimd\n reg_set r1, 1\n gpsimd_run entry=4 args=0\n end\n", "tiny");
  r.load(p);
  const core::RunResult res = r.run(10000);
  BOOST_TEST(!res.ok);
  BOOST_TEST(res.code == 10u);
  BOOST_TEST(res.detail == 1u);
  BOOST_TEST(res.stream == static_cast<unsigned>(core::Control::gpsimd));
  BOOST_TEST(res.pc == 1u);
  BOOST_TEST(res.what.find("error gpsimd (illegal) on the gpsimd stream") != std::string::npos, res.what);
  BOOST_TEST(r.out().gp_err_pc_o == 4u);
  BOOST_CHECK_THROW(r.load_gpsimd(-1, 4092, std::vector<std::uint8_t>(8, 0)), std::invalid_argument);
  core::ProgramRunner none(core::NeuronCore::Params{}, dma::MemSystem::Params{}, 1);  // no GpSimd engine
  BOOST_CHECK_THROW(none.load_gpsimd(-1, 0, std::vector<std::uint8_t>(4, 0)), std::invalid_argument);
}

/// The dynamic-shape kernels (softmax_dyn.s, gemm_dyn.s): one binary, loaded once, run with
/// argument blocks of several shapes one after another on one core; each run's outputs against
/// its own reference, bit for bit and within the double-precision bound, and its semaphores. The
/// binary assembled for each shape is the same (the shape is not in it), and the run's time
/// follows its shape: the smallest takes under half the cycles of the largest.
BOOST_AUTO_TEST_CASE(one_binary_runs_every_shape_its_argument_block_names) {
  const auto& arch = cfg::find("tiny")->arch;
  const std::int64_t nmax = arch.max_moving_n;
  using D = kernels::Defines;
  const std::vector<std::pair<const char*, std::vector<D>>> runs = {
      {"softmax_dyn",
       {D{{"N", nmax}, {"RB", 3}}, D{{"N", 1}, {"RB", 1}}, D{{"N", 5}, {"RB", 2}}, D{{"N", nmax - 3}, {"RB", 3}}}},
      {"gemm_dyn",
       {D{{"KT", 4}, {"NT", 4}, {"N", nmax}}, D{{"KT", 1}, {"NT", 1}, {"N", 1}}, D{{"KT", 3}, {"NT", 2}, {"N", 5}},
        D{{"KT", 2}, {"NT", 3}, {"N", nmax - 3}}}}};
  for (const auto& [name, shapes] : runs) {
    const kernels::Kernel* k = kernels::find(name);
    BOOST_TEST_REQUIRE(k);
    core::ProgramRunner r(params("tiny"), dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 5);
    isa::Program first;
    std::vector<std::uint64_t> cycles;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      BOOST_TEST_CONTEXT(name << " shape " << i) {
        const kernels::Case c = k->make(arch, 40 + i, shapes[i]);
        const isa::Program p = kernels::assemble(*k, c, arch);
        if (i == 0) {
          first = p;
          r.load(p);
        }
        BOOST_TEST((p == first));
        auto& hbm = r.hbm().image().hbm;
        std::fill(hbm.begin(), hbm.end(), 0);
        for (const auto& b : c.inputs) std::copy(b.bytes.begin(), b.bytes.end(), hbm.begin() + b.addr);
        const core::RunResult res = r.run(200000);
        BOOST_TEST_REQUIRE(res.ok, res.what);
        BOOST_TEST(kernels::compare(c, hbm) == "");
        BOOST_TEST(kernels::accuracy(c, hbm).fail == "");
        for (const auto& [sem, v] : c.sems) BOOST_TEST(r.out().sem_o[sem] == v, "semaphore " << sem);
        cycles.push_back(res.cycles);
      }
    }
    BOOST_TEST_REQUIRE(cycles.size() == shapes.size());
    BOOST_TEST(2 * cycles[1] < cycles[0], name);
  }
}

/// A taken branch or loop costs one cycle more than a word that falls through: the target is
/// fetched the cycle after the branch issues and issues the cycle after that (a word in a line was
/// fetched while the one before it issued), and the word fetched behind the branch is dropped
/// meanwhile. N passes of a two-instruction loop body (N - 1 taken loops) against the same 2N + 2
/// instructions in a line.
BOOST_AUTO_TEST_CASE(a_taken_branch_costs_one_cycle) {
  constexpr unsigned kN = 9;
  std::string line = ".sem s\n.stream vector\n reg_set r1, 9\n";
  for (unsigned i = 0; i < kN; ++i) line += " sem_add post=s+=1\n reg_add r1, r1, -1\n";
  line += " end\n";
  const std::string loop = ".sem s\n.stream vector\n reg_set r1, 9\ntop:\n sem_add post=s+=1\n loop r1, top\n end\n";
  Run a(line), b(loop);
  BOOST_TEST_REQUIRE(a.res.ok);
  BOOST_TEST_REQUIRE(b.res.ok);
  BOOST_TEST(a.r.out().sem_o[0] == kN);
  BOOST_TEST(b.r.out().sem_o[0] == kN);
  BOOST_TEST(b.res.cycles - a.res.cycles == kN - 1);
}

/// Registers are per stream and cleared by start; a field plus a register reaches the unit as
/// their sum (the DMA's source and length here), read as the instruction issues.
BOOST_AUTO_TEST_CASE(registers_are_per_stream_and_reach_the_units) {
  // the sync stream copies 16 bytes from hbm:0x40 + r1 to SBUF partition 0 with r2 + 8 = 16
  // bytes; the vector stream's r1 is its own (a loop of 3 there leaves sync's r1 alone)
  const std::string text = R"(
.sem s, d
.stream vector
    reg_set r1, 3
v:  sem_add post=s+=1
    loop r1, v
    end
.stream sync
    reg_set r1, 0x40
    reg_set r2, 8
    dma_start src=hbm:r1 dst=sbuf:0 len=r2+8 stype=bytes dtype=bytes dsem=d+=1
    sem_wait wait=d>=1
    end
)";
  core::ProgramRunner r(params("tiny"), dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 5);
  for (unsigned i = 0; i < 64; ++i) r.hbm().image().hbm[0x40 + i] = static_cast<std::uint8_t>(i + 1);
  r.load(assemble(text, "tiny"));
  const core::RunResult res = r.run(100000);
  BOOST_TEST_REQUIRE(res.ok, res.what);
  BOOST_TEST(r.out().sem_o[0] == 3u);
  BOOST_TEST(r.out().sem_o[1] == 1u);
  const auto& sb = r.nc().core().sbuf();
  for (unsigned i = 0; i < 16; ++i) BOOST_TEST(sb.byte(0, i) == i + 1);
  BOOST_TEST(sb.byte(0, 16) == 0u);  // 16 bytes, not more
}

BOOST_AUTO_TEST_CASE(deadlock_is_detected_and_names_the_waits) {
  std::string text;
  for (const auto& pc : kernels::programs(cfg::find("tiny")->arch))
    if (pc.name == "deadlock") text = pc.text;
  BOOST_REQUIRE(!text.empty());
  Run t(text);
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
    if (o.st_o[1].state == core::Control::State::StWait && o.st_o[2].state == core::Control::State::StWait) {
      seen = o.st_o[1].wait_sem == 0 && o.st_o[2].wait_sem == 1 && o.st_o[1].wait_val == 1;
    }
  };
  r.run(1000);
  BOOST_TEST(seen);
}

/// The roofline's lane-engine work at peak: each instruction's busiest port, an access a cycle,
/// plus its fixed cycles (Roofline::overhead). One instruction run alone on a core waits for no
/// port, so its work must be its busy cycles + 1 (accepted in a cycle the engine is idle): a fixed
/// cost off by one either way fails. A tensor_tensor whose two reads meet in an SBUF bank is busy
/// longer than its work (a wait is not work).
BOOST_AUTO_TEST_CASE(roofline_lane_work_is_the_busiest_port_and_the_fixed_cycles) {
  struct One {
    const char* what;
    const char* stream;
    std::string ins;
    std::uint64_t work;
    bool waits;  ///< meets a bank conflict: busy longer than the work
  };
  const unsigned n = 24;
  const std::string sz = " pc=PARTS size=" + std::to_string(n), a = " a=sbuf:0:fp32 a.stride=1",
                    o = " o=sbuf:256:fp32 o.stride=1";
  const std::vector<One> cases{
      {"memset", "vector", "memset" + sz + o, n + 3, false},
      {"iota", "vector", "iota" + sz + " o=sbuf:256:int32 o.stride=1", n + 3, false},
      {"copy", "vector", "copy" + sz + a + o, n + 5, false},
      {"tensor_reduce", "vector", "tensor_reduce" + sz + a + " o=sbuf:256:fp32 alu0=max", n + 5, false},
      {"tensor_tensor", "vector", "tensor_tensor" + sz + a + " b=sbuf:128:fp32 b.stride=1" + o + " alu0=add", n + 5,
       true},
      {"tensor_scalar, immediates", "vector", "tensor_scalar" + sz + a + o + " alu0=mul imm0=f32(2) alu1=bypass", n + 5,
       false},
      {"tensor_scalar, a per-partition operand", "vector",
       "tensor_scalar" + sz + a + o + " alu0=sub alu1=bypass s0=384", n + 7, false},
      {"tensor_scalar, two per-partition operands", "vector",
       "tensor_scalar" + sz + a + o + " alu0=sub alu1=mul s0=384 s1=388", n + 8, false},
      {"activate", "scalar", "activate" + sz + a + o + " func=exp imm0=f32(1)", n + 5, false},
      {"activate, a per-partition scale", "scalar", "activate" + sz + a + o + " func=identity s0=384", n + 7, false},
      // (a G x G transpose of tiny's four lanes: its G reads, then its G writes, one after the other)
      {"transpose", "vector", "transpose pc=PARTS size=4" + a + o, 4 + 4 + 5, false},
      {"set_seed", "scalar", "set_seed imm0=7", 1, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      const core::NeuronCore::Params prm = params("tiny");
      core::ProgramRunner r(prm, dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 5);
      r.load(assemble(std::string(".stream ") + c.stream + "\n " + c.ins + "\n end\n", "tiny"));
      core::Roofline roof(prm);
      r.on_cycle = [&roof](const core::NeuronCore& nc, const core::NeuronCore::Out& out, std::uint64_t cyc) {
        roof.observe(nc, out, cyc);
      };
      const core::RunResult res = r.run(10000);
      BOOST_TEST_REQUIRE(res.ok, res.what);
      const auto e = std::string(c.stream) == "vector" ? core::Roofline::kVe : core::Roofline::kAct;
      const double work = roof.work(e), busy = static_cast<double>(roof.busy(e));
      BOOST_TEST(work == static_cast<double>(c.work));
      if (c.waits)
        BOOST_TEST(work < busy + 1);
      else
        BOOST_TEST(work == busy + 1);
      BOOST_TEST_MESSAGE(c.what << ": work " << work << ", busy " << busy);
    }
  }
}

/// The roofline counts a tensor command when the engine has not refused it (cpl_o.err, the cycle
/// after it is taken): a multiply into a PSUM bank past the end, taken and refused, adds no
/// multiply-accumulates to the TE's work (the run stops on it).
BOOST_AUTO_TEST_CASE(roofline_counts_no_refused_multiply) {
  const core::NeuronCore::Params prm = params("tiny");
  const auto& arch = cfg::find("tiny")->arch;
  core::ProgramRunner r(prm, dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 5);
  r.load(
      assemble(".stream tensor\n load_stationary t=0:bf16 k=PARTS m=COLS\n"
               " multiply_moving t=64:bf16 n=MAX_N bank=0\n multiply_moving t=64:bf16 n=MAX_N bank=15\n end\n",
               "tiny"));
  core::Roofline roof(prm);
  r.on_cycle = [&roof](const core::NeuronCore& nc, const core::NeuronCore::Out& out, std::uint64_t cyc) {
    roof.observe(nc, out, cyc);
  };
  const core::RunResult res = r.run(10000);
  BOOST_TEST(!res.ok);  // stopped on the refused multiply
  BOOST_TEST(roof.macs() == std::uint64_t{arch.partitions} * arch.te_cols * arch.max_moving_n);
}

BOOST_AUTO_TEST_SUITE_END()
