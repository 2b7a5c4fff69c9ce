// Bench for rtl/chip/chip.sv, one chip (docs/chip.md), in lockstep with trn::chip::Chip.
//
// The chip's NeuronCores and collective core run programs at once on the chip's one HBM port.
// Checkers:
//   - the lockstep at the chip's ports, every cycle;
//   - probes on every part: each NeuronCore (chip.g_core[c].u_nc) with its control and datapath,
//     the collective core (chip.g_cc[k].u_cc) with its control and DMA, the fabric (u_xbar), the
//     NIC (u_nic), the router (g_router.u_router) and each link's sender and receiver (g_link[k].u_tx/u_rx):
//     a mismatch names the part and its port;
//   - the end of each run against an independent expectation: a kernel's HBM outputs against its
//     plain C++ reference (trn::kernels), a hand-built transfer's bytes against the bytes it moved,
//     the units' semaphores against the additions the programs make.
// Environment: the HBM port served by trn::dma::MemSystem (trn::tb::HbmPort), the link ports idle
// (a chip alone: its router is a 1 x 1 torus, every packet for another chip is refused at the DMA).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../core/hbm_port.hpp"
#include "chip/chip.hpp"
#include "chip_env.hpp"
#include "chip_probes.hpp"
#include "common/clog2.hpp"
#include "core/program_runner.hpp"
#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "isa/isa.hpp"
#include "kernels/kernels.hpp"
#include TRN_PORTS_HEADER

using namespace trn;
using namespace trn::tb;
using ChipModel = trn::chip::Chip;

namespace {

struct ChipBench {
  Env& env;
  Signal& rst;
  Clock clk;
  ChipModel::Params prm;
  ChipModel model;
  Lockstep<ChipModel> lockstep;
  ChipProbes probes;
  HbmPort hbm;
  ChipView view;
  Signal &wr_valid, &wr_ready, &wr_info;  ///< the fabric's unit write ports (probed)
  CoverPoint& cov_writes;                 ///< writes each unit makes through the fabric, by kind
  Clock::HookId hook;

  static dma::Geometry geo(const ChipModel::Params& p) {
    const auto& c = p.core.core;
    return dma::Geometry::make(c.hbm_bytes, c.parts, c.sbuf_bytes, c.beat_bytes);
  }
  explicit ChipBench(Env& e, dma::MemSystem::Params mp = {4, 40, 2, 0.9, 0.9, 0})
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(ChipModel::Params::of(e.cfg().arch, 1, 1, 1)),
        model(prm),
        lockstep(e, clk, model),
        probes(e, clk, model, "chip."),
        hbm(geo(prm), mp, e.rng("hbm").next(), prm.core.core.beat_bytes, HbmWires::named(e),
            clog2(prm.core.core.slots)),
        view(e, prm, 0, 1),
        wr_valid(e.sig("chip.u_xbar.u_wr_valid_i")),
        wr_ready(e.sig("chip.u_xbar.u_wr_ready_o")),
        wr_info(e.sig("chip.u_xbar.u_wr_info_i")),
        cov_writes(cover_cross("chip.unit_writes", {unit_names(prm), {"hbm", "sem"}})) {
    lockstep.after_eval([this] { probes.compare(); });
    hook = clk.add_pre_edge_hook([this] {
      if (!(rst.get() & 1)) return;
      hbm.serve(clk.cycle());
      // a write the fabric takes from a unit: data to HBM, or a semaphore addition (a chip alone
      // sends nothing to other chips)
      const Bits v = wr_valid.bits(), r = wr_ready.bits(), info = wr_info.bits();
      for (unsigned u = 0; u < units(); ++u)
        if (v.bit(u) && r.bit(u)) cov_writes.hit_index(2 * u + (info.bit(u * sv::dma_pkg::wr_info_t::kWidth) ? 1 : 0));
    });
  }
  /// The units' names in cover points: core0 .. and cc0 ..
  static std::vector<std::string> unit_names(const ChipModel::Params& p) {
    std::vector<std::string> n = cover_names("core", p.cores);
    for (const auto& c : cover_names("cc", p.cc_cores)) n.push_back(c);
    return n;
  }
  ~ChipBench() { clk.remove_hook(hook); }

  unsigned units() const { return prm.units(); }

  Task<> cycle() {
    co_await RisingEdge(clk.signal());
    hbm.drive(clk.cycle());
  }

  /// Start the clock and the lockstep, every input idle, and reset the DUT.
  Task<> begin(bool sem_ext = false, std::uint64_t strong = ~0ull) {
    for (const char* s :
         {"im_valid_i", "start_i", "lk_ack_valid_i", "lk_ack_seq_i", "lk_nack_valid_i", "lk_nack_seq_i",
          "lk_rx_valid_i", "lk_rx_seq_i", "lk_rx_data_i", "lk_rx_crc_i", "lk_credit_i", "lk_credit_vc_i", "id_i"})
      env.sig(s).set(Bits(env.sig(s).width()));
    view.strong(strong);
    env.sig("sem_ext_en_i").set(sem_ext);
    hbm.idle();
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }

  Task<> load(unsigned u, const isa::Program& p) { co_await load_program(*this, env, prm, 0, u, p); }

  /// Start the units in `mask` and run until each is done or one stops with an error (or `limit`
  /// cycles: a failure); the cycles taken.
  Task<std::uint64_t> run(std::uint64_t mask, std::uint64_t limit = 400000) {
    view.start(mask);
    co_await cycle();
    view.start(0);
    const std::uint64_t c0 = clk.cycle();
    std::uint64_t finished = 0;
    for (;;) {
      co_await cycle();
      finished |= view.done() & mask;
      if (finished == mask || (view.err() & mask)) break;
      check(clk.cycle() - c0 < limit, "units {:#x} of {:#x} not done in {} cycles", mask & ~finished, mask, limit);
    }
    co_return clk.cycle() - c0;
  }

  std::string error_of(unsigned u) const { return view.error_of(u); }
  std::uint32_t sem(unsigned u, unsigned s) const { return view.sem(u, s); }
};

isa::Program assemble(Env& env, const std::string& text, const std::string& file) {
  return assemble_for(env, text, file);
}

/// A kernel case and its program, moved to HBM address `base` (every input, output and
/// dma_start's HBM address).
struct Job {
  const kernels::Kernel* k;
  kernels::Case c;
  isa::Program p;
};
Job kernel_job(Env& env, const char* name, std::uint32_t base) {
  Job j{kernels::find(name), {}, {}};
  check(j.k != nullptr, "no kernel {}", name);
  j.c = j.k->make(env.cfg().arch, env.rng(name).next(), {});
  try {
    j.p = kernels::assemble(*j.k, j.c, env.cfg().arch);
  } catch (const isa::Error& e) {
    check(false, "{}", e.what());
  }
  kernels::relocate(j.c, j.p, base);
  return j;
}

/// Both cores run a kernel at once, each in its half of HBM; each against its reference.
Task<> run_two_kernels(Env& env, const char* k0, const char* k1) {
  ChipBench t(env);
  const std::uint32_t half = t.prm.core.core.hbm_bytes / 2;
  Job jobs[2] = {kernel_job(env, k0, 0), kernel_job(env, k1, half)};
  for (const Job& j : jobs) {
    for (const auto& b : j.c.inputs) {
      check(b.addr + b.bytes.size() <= (&j == &jobs[0] ? half : 2 * half), "kernel {} does not fit half of HBM",
            j.k->name);
      std::copy(b.bytes.begin(), b.bytes.end(), t.hbm.mem.image().hbm.begin() + b.addr);
    }
  }
  co_await t.begin();
  co_await t.load(0, jobs[0].p);
  co_await t.load(1, jobs[1].p);
  const std::uint64_t cycles = co_await t.run(0b11);
  for (unsigned u = 0; u < 2; ++u) {
    const Job& j = jobs[u];
    check(t.error_of(u).empty(), "kernel {}: {}", j.k->name, t.error_of(u));
    const std::string diff = kernels::compare(j.c, t.hbm.mem.image().hbm);
    check(diff.empty(), "kernel {} on core {}: the HBM image differs from the reference:\n{}", j.k->name, u, diff);
    for (const auto& [s, v] : j.c.sems)
      check(t.sem(u, s) == v, "kernel {} on core {}: semaphore {} is {}, expected {}", j.k->name, u, s, t.sem(u, s), v);
  }
  info("{} on core 0 and {} on core 1: {} cycles", k0, k1, cycles);
}

/// Fill `n` bytes of HBM at `addr` with seeded data; the bytes.
std::vector<std::uint8_t> fill(ChipBench& t, Rng& r, std::uint32_t addr, std::uint32_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(r.below(256));
  std::copy(v.begin(), v.end(), t.hbm.mem.image().hbm.begin() + addr);
  return v;
}
void expect_bytes(ChipBench& t, const char* what, std::uint32_t addr, const std::vector<std::uint8_t>& want) {
  const auto& h = t.hbm.mem.image().hbm;
  for (std::size_t i = 0; i < want.size(); ++i)
    check(h[addr + i] == want[i], "{}: HBM byte {:#x} is {:#04x}, expected {:#04x}", what, addr + i, h[addr + i],
          want[i]);
}

}  // namespace

TRN_TEST(two_kernels_matmul_and_softmax, .timeout_ns = 1e11) { co_await run_two_kernels(env, "matmul", "softmax"); }
TRN_TEST(two_kernels_gemm_and_layernorm, .timeout_ns = 1e11) { co_await run_two_kernels(env, "gemm", "layernorm"); }

/// Core 0 copies a tile through its SBUF into a handoff buffer, its completion adding to core 1's
/// semaphore 0 (dsem.unit = 2); core 1 waits for it and copies the buffer on through its own SBUF.
TRN_TEST(core_hands_a_tile_to_the_other, .timeout_ns = 1e11) {
  ChipBench t(env);
  auto r = env.rng("data");
  const auto& c = t.prm.core.core;
  const std::uint32_t n = std::min<std::uint32_t>(c.sbuf_bytes, 512), A = 0x1000, B = 0x3000, C = 0x5000;
  const auto a = fill(t, r, A, n);
  // core 0 hands the tile to core 1 (core 1's semaphore 0), core 1 hands its copy back (core 0's
  // semaphore 1), which core 0 waits for
  const std::string p0 = fmt::format(
      ".sem loaded, back\n.stream sync\n"
      "    dma_start queue=0 src=hbm:{} dst=sbuf:sb(0, 0) len={} dsem=loaded+=1\n"
      "    dma_start engine={} queue=0 src=sbuf:sb(0, 0) dst=hbm:{} len={} dsem=0+=1 dsem.unit=2 wait=loaded>=1\n"
      "    sem_wait wait=back>=1\n    end\n",
      A, n, c.dma_engines - 1, B, n);
  const std::string p1 = fmt::format(
      ".sem handed, loaded\n.stream sync\n"
      "    dma_start queue=0 src=hbm:{} dst=sbuf:sb(1, 0) len={} dsem=loaded+=1 wait=handed>=1\n"
      "    dma_start queue=0 src=sbuf:sb(1, 0) dst=hbm:{} len={} dsem=1+=1 dsem.unit=1 wait=loaded>=1\n"
      "    end\n",
      B, n, C, n);
  co_await t.begin(true);
  co_await t.load(0, assemble(env, p0, "handoff0.s"));
  co_await t.load(1, assemble(env, p1, "handoff1.s"));
  const std::uint64_t cycles = co_await t.run(0b11);
  for (unsigned u = 0; u < 2; ++u) check(t.error_of(u).empty(), "{}", t.error_of(u));
  expect_bytes(t, "the handoff buffer", B, a);
  expect_bytes(t, "core 1's copy", C, a);
  check(t.sem(1, 0) == 1, "core 1's semaphore 0 is {}, expected 1 (core 0's completion)", t.sem(1, 0));
  check(t.sem(0, 0) == 1, "core 0's own semaphore 0 is {}, expected 1", t.sem(0, 0));
  check(t.sem(0, 1) == 1, "core 0's semaphore 1 is {}, expected 1 (core 1's completion)", t.sem(0, 1));
  info("handoff of {} bytes and back: {} cycles", n, cycles);
}

/// The collective core moves data between the cores' regions of HBM on both its queues; each
/// transfer's completion adds to the consumer core's semaphore; core 0 then copies the result on.
TRN_TEST(collective_core_moves_data_between_the_cores, .timeout_ns = 1e11) {
  ChipBench t(env);
  auto r = env.rng("data");
  const auto& c = t.prm.core.core;
  const unsigned cc = t.prm.cores;  // the collective core's unit index
  const std::uint32_t n = 4 * c.beat_bytes + 12, X = 0x0800, Y = 0x4000, Z = 0x6000;
  const auto x0 = fill(t, r, X, n), x1 = fill(t, r, X + 0x400, n);
  const std::string pc = fmt::format(
      ".stream sync\n"
      "    dma_start queue=0 src=hbm:{} dst=hbm:{} len={} dsem=0+=1 dsem.unit=1\n"
      "    dma_start queue=1%QUEUES src=hbm:{} dst=hbm:{} len={} dsem=0+=1 dsem.unit=1\n"
      "    end\n",
      X, Y, n, X + 0x400, Y + 0x400, n);
  const std::string p0 = fmt::format(
      ".sem got, out\n.stream sync\n"
      "    dma_start queue=0 src=hbm:{} dst=hbm:{} len={} dsem=out+=1 wait=got>=2\n"
      "    dma_start queue=0 src=hbm:{} dst=hbm:{} len={} dsem=out+=1 wait=got>=2\n"
      "    sem_wait wait=out>=2\n    end\n",
      Y, Z, n, Y + 0x400, Z + 0x400, n);
  co_await t.begin(true);
  co_await t.load(cc, assemble(env, pc, "cc.s"));
  co_await t.load(0, assemble(env, p0, "consumer.s"));
  const std::uint64_t cycles = co_await t.run((1ull << cc) | 1);
  check(t.error_of(cc).empty() && t.error_of(0).empty(), "{}{}", t.error_of(cc), t.error_of(0));
  expect_bytes(t, "the collective core's first transfer", Y, x0);
  expect_bytes(t, "the collective core's second transfer", Y + 0x400, x1);
  expect_bytes(t, "core 0's copy of the first", Z, x0);
  expect_bytes(t, "core 0's copy of the second", Z + 0x400, x1);
  check(t.sem(0, 0) == 2, "core 0's semaphore 0 is {}, expected 2", t.sem(0, 0));
  info("two transfers of {} bytes and their copies: {} cycles", n, cycles);
}

/// The collective core's copy of fresh data from HBM 0x800 to `dst` (an address with its chip
/// field, landing at `lands`), its descriptor's semaphore fields `sem`: the run ends without an
/// error and the copy is checked. Returns the cycles; the bytes copied are copy_bytes(t).
unsigned copy_bytes(const ChipBench& t) { return 2 * t.prm.core.core.beat_bytes + 4; }
Task<std::uint64_t> cc_copy(Env& env, ChipBench& t, std::uint32_t dst, std::uint32_t lands, const std::string& sem,
                            const char* file) {
  auto r = env.rng("data");
  const unsigned cc = t.prm.cores;
  const std::uint32_t n = copy_bytes(t), X = 0x0800;
  const auto x = fill(t, r, X, n);
  const std::string pc =
      fmt::format(".stream sync\n    dma_start queue=0 src=hbm:{} dst=hbm:{:#x} len={} {}\n    end\n", X, dst, n, sem);
  co_await t.begin(true);
  co_await t.load(cc, assemble(env, pc, file));
  const std::uint64_t cycles = co_await t.run(1ull << cc, 20000);
  check(t.error_of(cc).empty(), "{}", t.error_of(cc));
  expect_bytes(t, "the copy", lands, x);
  co_return cycles;
}

/// A chip may name itself in an address by its own id + 1 as well as by 0 (docs/chip.md): the
/// collective core's copy and semaphore so addressed (the chip field 1 of chip 0, the last chip of
/// a system of one) stay on the chip, written through the fabric as local ones are.
TRN_TEST(a_unit_names_its_own_chip_by_its_id, .timeout_ns = 1e10) {
  ChipBench t(env);
  const std::uint32_t Y = 0x4000;
  const std::uint64_t cycles =
      co_await cc_copy(env, t, (1u << dma::kChipLsb) | Y, Y, "dsem=0+=1 dsem.unit=1 dsem.chip=1", "self.s");
  check(t.sem(0, 0) == 1, "core 0's semaphore 0 is {}, expected 1", t.sem(0, 0));
  info("a copy of {} bytes and its semaphore addressed by the chip's own id: {} cycles", copy_bytes(t), cycles);
}

/// A semaphore addressed to a unit the chip does not have (a unit field past its units: the DMA's
/// check does not know the chip's units) is dropped by the fabric and counted on bad_sem_o; the data
/// before it lands, and no unit's semaphore moves.
TRN_TEST(a_semaphore_for_a_missing_unit_is_dropped_and_counted, .timeout_ns = 1e10) {
  ChipBench t(env);
  const std::uint32_t Y = 0x4000;
  const unsigned field = t.prm.units() + 1;
  const std::uint64_t cycles =
      co_await cc_copy(env, t, Y, Y, fmt::format("dsem=0+=1 dsem.unit={}", field), "no_unit.s");
  const std::uint64_t bad = env.sig("bad_sem_o").get();
  check(bad == 1, "bad_sem_o is {}, expected 1 (one semaphore for unit field {})", bad, field);
  for (unsigned u = 0; u < t.prm.units(); ++u)
    check(t.sem(u, 0) == 0, "unit {}'s semaphore 0 is {}, expected 0", u, t.sem(u, 0));
  info("a copy of {} bytes and a semaphore for unit field {}: dropped and counted, {} cycles", copy_bytes(t), field,
       cycles);
}

/// A descriptor naming a chip the system does not have is refused at decode (ErrChip), the unit
/// stops, and nothing is written.
TRN_TEST(a_descriptor_for_a_missing_chip_is_refused, .timeout_ns = 1e10) {
  ChipBench t(env);
  const unsigned cc = t.prm.cores;
  const std::string pc =
      ".stream sync\n    dma_start queue=0 src=hbm:0 dst=hbm:0x02000100 len=16\n    end\n";  // chip 1 of one
  co_await t.begin(true);
  co_await t.load(cc, assemble(env, pc, "bad_chip.s"));
  co_await t.run(1ull << cc, 2000);
  check(((t.view.err() >> cc) & 1) != 0, "the collective core did not stop");
  check(t.view.err_code(cc) == static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrDma) &&
            t.view.err_detail(cc) == static_cast<unsigned>(sv::dma_pkg::err_e::ErrChip),
        "{}, expected a DMA error (chip)", t.error_of(cc));
  check(t.hbm.writes == 0, "{} writes reached HBM", t.hbm.writes);
}

/// Throughput for `make bench`: two matmuls at once, BENCH_CYCLES long at least.
TRN_TEST(throughput, .timeout_ns = 1e12) {
  BenchTimer timer;
  std::uint64_t cycles = 0;
  const std::uint64_t want = bench_cycles(20000);
  while (cycles < want) {
    ChipBench t(env);
    Job jobs[2] = {kernel_job(env, "matmul", 0), kernel_job(env, "matmul", t.prm.core.core.hbm_bytes / 2)};
    for (const Job& j : jobs)
      for (const auto& b : j.c.inputs)
        std::copy(b.bytes.begin(), b.bytes.end(), t.hbm.mem.image().hbm.begin() + b.addr);
    co_await t.begin();
    co_await t.load(0, jobs[0].p);
    co_await t.load(1, jobs[1].p);
    co_await t.run(0b11);
    cycles += t.clk.cycle();
  }
  timer.report(cycles);
}

/// A model wrong in one bit of one part's port at one cycle: a probe must fail there, naming it.
Task<> inject_selftest(Env& env, const std::string& signal, std::uint64_t cycle, unsigned bit) {
  InjectGuard wrong_model(signal, cycle, bit);
  expect_mismatch(signal, cycle);
  co_await run_two_kernels(env, "matmul", "matmul");
}
TRN_TEST(selftest_probe_catches_wrong_core_port, .timeout_ns = 1e11, .expect_fail = true) {
  co_await inject_selftest(env, "chip.g_core[1].u_nc.u_core.dma_desc_ready_o", 300, 0);
}
TRN_TEST(selftest_probe_catches_wrong_fabric_grant, .timeout_ns = 1e11, .expect_fail = true) {
  co_await inject_selftest(env, "chip.u_xbar.hbm_ar_src_o", 310, 0);
}
TRN_TEST(selftest_lockstep_catches_wrong_hbm_write, .timeout_ns = 1e11, .expect_fail = true) {
  co_await inject_selftest(env, "hbm_wr_o.addr", 320, 2);
}

TRN_BENCH_MAIN(Vchip, "chip")
