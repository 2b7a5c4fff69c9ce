// Bench for rtl/chip/chip_pair.sv, chips 0 and 1 of a 2 x 1 torus joined link port to link port
// (docs/chip.md), in lockstep with trn::chip::ChipPair.
//
// Remote writes, remote accumulates and remote semaphores in both directions, from collective cores
// and from NeuronCores, under random HBM latency on both chips and bit errors on every link.
// Checkers:
//   - the lockstep at the pair's ports and a probe on every part of both chips
//     (chip_pair.g_chip[c].u_chip...: tb/chip/chip_probes.hpp), every cycle;
//   - the remote ordering checker: each transfer (descriptors whose last one completes onto a
//     semaphore of the other chip) is registered with the bytes it must leave; when the fabric of
//     the receiving chip adds to that semaphore, every byte of the transfer must be in that chip's
//     HBM already, or the semaphore overtook its data (a failure naming chip, unit, semaphore, byte);
//   - the final HBM images of both chips against the bytes each transfer must leave;
//   - the links: every flit the routers sent was taken (link_ready_o), and the bit errors injected
//     were seen by the receivers and replayed.
// Environment: each chip's HBM port served by its own trn::dma::MemSystem (trn::tb::HbmPort); the
// links' channel corrupting one wire bit with a seeded probability per link and cycle.
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../core/hbm_port.hpp"
#include "chip/chip_pair.hpp"
#include "chip_env.hpp"
#include "chip_probes.hpp"
#include "common/clog2.hpp"
#include "dma/desc.hpp"
#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include TRN_PORTS_HEADER

using namespace trn;
using namespace trn::tb;
using PairModel = trn::chip::ChipPair;

namespace {

/// The bytes a transfer must leave in the receiving chip's HBM before its semaphore is added.
struct Transfer {
  std::vector<std::pair<std::uint32_t, std::vector<std::uint8_t>>> blocks;  ///< (address, bytes)
  std::string name;
};

/// The remote ordering checker (see the header).
class OrderChecker {
 public:
  /// Transfer t signals by adding to semaphore `sem` of unit `unit` of chip `chip`; such transfers
  /// signal in the order they are registered.
  void expect(unsigned chip, unsigned unit, unsigned sem, Transfer t) { q_[{chip, unit, sem}].push_back(std::move(t)); }
  /// A semaphore addition the fabric of chip `chip` makes this cycle; `hbm` is that chip's image.
  void on_sem(unsigned chip, unsigned unit, unsigned sem, const std::vector<std::uint8_t>& hbm, std::uint64_t cycle) {
    auto it = q_.find({chip, unit, sem});
    if (it == q_.end() || it->second.empty()) return;  // a semaphore no registered transfer signals by
    const Transfer t = std::move(it->second.front());
    it->second.pop_front();
    for (const auto& [addr, bytes] : t.blocks)
      for (std::size_t i = 0; i < bytes.size(); ++i)
        check(hbm[addr + i] == bytes[i],
              "cycle {}: chip {} unit {} semaphore {} added while {} is not all in HBM (byte {:#x} is {:#04x}, "
              "expected {:#04x}): the semaphore overtook its data",
              cycle, chip, unit, sem, t.name, addr + i, hbm[addr + i], bytes[i]);
    ++checked_;
  }
  unsigned checked() const { return checked_; }
  /// Transfers whose semaphore never came.
  unsigned waiting() const {
    unsigned n = 0;
    for (const auto& [k, v] : q_) n += static_cast<unsigned>(v.size());
    return n;
  }

 private:
  std::map<std::tuple<unsigned, unsigned, unsigned>, std::deque<Transfer>> q_;
  unsigned checked_ = 0;
};

struct PairBench {
  Env& env;
  Signal& rst;
  Clock clk;
  PairModel::Params prm;
  PairModel model;
  Lockstep<PairModel> lockstep;
  ChipProbes probes0, probes1;
  HbmPort hbm[2];
  ChipView view[2];
  OrderChecker order;
  Signal &flip, &flip_bit, &sem_valid, &sem_idx, &link_ready;
  Rng chan;
  double p_flip;
  unsigned flips = 0;
  Clock::HookId hook;

  static dma::Geometry geo(const PairModel::Params& p) {
    const auto& c = p.chip.core.core;
    return dma::Geometry::make(c.hbm_bytes, c.parts, c.sbuf_bytes, c.beat_bytes);
  }

  PairBench(Env& e, dma::MemSystem::Params mp0, dma::MemSystem::Params mp1, double p_flip_ = 0.02)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(PairModel::Params::of(e.cfg().arch)),
        model(prm),
        lockstep(e, clk, model),
        probes0(e, clk, model.chip(0), "chip_pair.g_chip[0].u_chip."),
        probes1(e, clk, model.chip(1), "chip_pair.g_chip[1].u_chip."),
        hbm{HbmPort(geo(prm), mp0, e.rng("hbm0").next(), prm.chip.core.core.beat_bytes, HbmWires::element(e, 0, 2),
                    clog2(prm.chip.core.core.slots)),
            HbmPort(geo(prm), mp1, e.rng("hbm1").next(), prm.chip.core.core.beat_bytes, HbmWires::element(e, 1, 2),
                    clog2(prm.chip.core.core.slots))},
        view{ChipView(e, prm.chip, 0, 2), ChipView(e, prm.chip, 1, 2)},
        flip(e.sig("flip_i")),
        flip_bit(e.sig("flip_bit_i")),
        sem_valid(e.sig("sem_ext_valid_o")),
        sem_idx(e.sig("sem_ext_idx_o")),
        link_ready(e.sig("link_ready_o")),
        chan(e.rng("channel")),
        p_flip(p_flip_) {
    lockstep.after_eval([this] {
      probes0.compare();
      probes1.compare();
    });
    hook = clk.add_pre_edge_hook([this] {
      if (!(rst.get() & 1)) return;
      for (unsigned c = 0; c < 2; ++c) hbm[c].serve(clk.cycle());
      // the semaphore additions of this cycle, after this cycle's HBM writes
      const unsigned U = prm.chip.units();
      for (unsigned c = 0; c < 2; ++c)
        for (unsigned u = 0; u < U; ++u)
          if (sem_valid.get_slice(c * U + u, 1))
            order.on_sem(c, u, static_cast<unsigned>(sem_idx.get_slice(c * 5, 5)), hbm[c].mem.image().hbm, clk.cycle());
      // a flit the router sends must find room in its link's replay buffer
      const Bits ready = link_ready.bits();
      check(ready.all(), "cycle {}: a link sender's replay buffer refused a flit (link_ready_o {})", clk.cycle(),
            ready.hex());
    });
  }
  ~PairBench() { clk.remove_hook(hook); }

  unsigned units() const { return prm.chip.units(); }
  unsigned cc() const { return prm.chip.cores; }  ///< the (first) collective core's unit index

  Task<> cycle() {
    co_await RisingEdge(clk.signal());
    for (unsigned c = 0; c < 2; ++c) hbm[c].drive(clk.cycle());
    // the channel: each link's wire corrupted at one bit with probability p_flip this cycle
    const unsigned L = model.links(), fb = model.fb();
    Bits f(L), fbits(L * fb);
    for (unsigned l = 0; l < L; ++l)
      if (p_flip > 0 && chan.chance(p_flip)) {
        f.set_bit(l, true);
        fbits.set_slice(l * fb, fb, chan.below(model.wire_bits()));
        ++flips;
      }
    flip.set(f);
    flip_bit.set(fbits);
  }

  Task<> begin(std::uint64_t strong0 = ~0ull, std::uint64_t strong1 = ~0ull) {
    for (const char* s : {"im_valid_i", "im_chip_i", "start_i", "flip_i", "flip_bit_i"})
      env.sig(s).set(Bits(env.sig(s).width()));
    view[0].strong(strong0);
    view[1].strong(strong1);
    env.sig("sem_ext_en_i").set(1);
    for (auto& h : hbm) h.idle();
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }

  Task<> load(unsigned chip, unsigned u, const std::string& text, const std::string& name) {
    co_await load_program(*this, env, prm.chip, chip, u, assemble_for(env, text, name));
  }

  /// Start units (a mask per chip) and run until each is done (or `limit` cycles: a failure).
  Task<std::uint64_t> run(std::uint64_t m0, std::uint64_t m1, std::uint64_t limit = 400000) {
    view[0].start(m0);
    view[1].start(m1);
    co_await cycle();
    view[0].start(0);
    view[1].start(0);
    const std::uint64_t c0 = clk.cycle(), mask[2] = {m0, m1};
    std::uint64_t fin[2] = {0, 0};
    for (;;) {
      co_await cycle();
      for (unsigned c = 0; c < 2; ++c) {
        fin[c] |= view[c].done() & mask[c];
        for (unsigned u = 0; u < units(); ++u) check(view[c].error_of(u).empty(), "{}", view[c].error_of(u));
      }
      if (fin[0] == m0 && fin[1] == m1) break;
      check(clk.cycle() - c0 < limit, "not done in {} cycles: chip 0 units {:#x}, chip 1 units {:#x} still running",
            limit, m0 & ~fin[0], m1 & ~fin[1]);
    }
    co_return clk.cycle() - c0;
  }

  /// Seeded bytes at `addr` of chip c's HBM.
  std::vector<std::uint8_t> fill(unsigned c, Rng& r, std::uint32_t addr, std::uint32_t n) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = static_cast<std::uint8_t>(r.below(256));
    std::copy(v.begin(), v.end(), hbm[c].mem.image().hbm.begin() + addr);
    return v;
  }
  void expect_bytes(unsigned c, const std::string& what, std::uint32_t addr, const std::vector<std::uint8_t>& want) {
    const auto& h = hbm[c].mem.image().hbm;
    for (std::size_t i = 0; i < want.size(); ++i)
      check(h[addr + i] == want[i], "{}: chip {} HBM byte {:#x} is {:#04x}, expected {:#04x}", what, c, addr + i,
            h[addr + i], want[i]);
  }
  /// The links saw bit errors and recovered them (when the channel made any).
  void expect_link_recovery() {
    const Bits crc = env.sig("link_crc_err_o").bits(), rep = env.sig("link_replay_o").bits();
    std::uint64_t crc_errors = 0, replays = 0;
    for (unsigned l = 0; l < model.links(); ++l) {
      crc_errors += crc.slice(32 * l, 32);
      replays += rep.slice(32 * l, 32);
    }
    info("links: {} bits flipped, {} flits dropped for their CRC, {} replays", flips, crc_errors, replays);
    if (flips > 20)
      check(crc_errors > 0 && replays > 0, "{} bit errors on the links, but no CRC error or replay", flips);
  }
};

/// The HBM address of chip c's byte `a` as another chip names it (docs/chip.md).
std::uint32_t remote(unsigned c, std::uint32_t a) { return (c + 1) << dma::kChipLsb | a; }

/// Chip `from`'s collective core sends `n` transfers to chip `to`: transfer t copies two pieces of
/// chip from's HBM at src + t * stride (a long one, then a short one whose completion adds 1 to
/// semaphore sem + t % 2 of the other chip's collective core) to dst + t * stride of chip to, on
/// queue t % 2. Each queue signals its own semaphore: the queues run independently, so only a
/// queue's transfers land in order. `barrier` on the short one. Registers each transfer with the
/// checker; the program's text.
std::string send_program(PairBench& t, Rng& r, unsigned from, unsigned to, std::uint32_t src, std::uint32_t dst,
                         unsigned n, std::uint32_t stride, unsigned sem, bool barrier) {
  const unsigned beat = t.prm.chip.core.core.beat_bytes;
  std::string p = ".stream sync\n";
  for (unsigned k = 0; k < n; ++k) {
    const std::uint32_t l1 = 4 * beat + 4 * static_cast<std::uint32_t>(r.below(beat / 4)), l2 = beat;
    const std::uint32_t s = src + k * stride, d = dst + k * stride;
    const auto a = t.fill(from, r, s, l1 + l2);
    p += fmt::format("    dma_start queue={} src=hbm:{:#x} dst=hbm:{:#x} len={}\n", k % 2, s, remote(to, d), l1);
    p += fmt::format(
        "    dma_start queue={} src=hbm:{:#x} dst=hbm:{:#x} len={} dsem={}+=1 dsem.unit={} dsem.chip={}{}\n", k % 2,
        s + l1, remote(to, d + l1), l2, sem + k % 2, t.cc() + 1, to + 1, barrier ? " barrier" : "");
    t.order.expect(to, t.cc(), sem + k % 2, Transfer{{{d, a}}, fmt::format("transfer {} from chip {}", k, from)});
  }
  return p + "    end\n";
}

/// Each chip's collective core sends transfers to the other (and chip 0's last NeuronCore sends its
/// own to chip 1's last NeuronCore, which waits for it), every one checked at its semaphore and in
/// the final images.
Task<> both_ways(Env& env, bool strong, bool barrier, double p_flip = 0.02) {
  dma::MemSystem::Params slow{2, 100, 2, 0.9, 0.9, 0};
  PairBench t(env, slow, slow, p_flip);
  auto r = env.rng("data");
  const unsigned n = 6;
  const std::string p0 = send_program(t, r, 0, 1, 0x1000, 0x4000, n, 0x100, 0, barrier);
  const std::string p1 = send_program(t, r, 1, 0, 0x1000, 0x6000, n, 0x100, 2, barrier);
  const unsigned k = t.prm.chip.cores - 1;  // the NeuronCore of each chip that takes part
  const std::uint32_t len = 3 * t.prm.chip.core.core.beat_bytes;
  const auto v = t.fill(0, r, 0x8000, len);
  t.order.expect(1, k, 4, Transfer{{{0xA000, v}}, fmt::format("core {}'s transfer", k)});
  const std::string c0 = fmt::format(
      ".stream sync\n    dma_start queue=0 src=hbm:0x8000 dst=hbm:{:#x} len={} dsem=4+=1 dsem.unit={} dsem.chip=2\n"
      "    end\n",
      remote(1, 0xA000), len, k + 1);
  const std::string c1 = ".stream sync\n    sem_wait wait=4>=1\n    end\n";
  const std::uint64_t all = strong ? ~0ull : 0;
  co_await t.begin(all, all);
  co_await t.load(0, t.cc(), p0, "send0.s");
  co_await t.load(1, t.cc(), p1, "send1.s");
  co_await t.load(0, k, c0, "core_send.s");
  co_await t.load(1, k, c1, "core_wait.s");
  const std::uint64_t cycles = co_await t.run(1ull << t.cc() | 1ull << k, 1ull << t.cc() | 1ull << k);
  // the senders end at their last descriptor's completion (their own side), so let the last
  // packets land
  for (unsigned i = 0; i < 400 && t.order.waiting() > 0; ++i) co_await t.cycle();
  check(t.order.waiting() == 0, "{} transfers' semaphores never came", t.order.waiting());
  const auto got = [&](unsigned c, unsigned s) { return t.view[c].sem(t.cc(), s) + t.view[c].sem(t.cc(), s + 1); };
  check(got(1, 0) == n && got(0, 2) == n && t.view[1].sem(k, 4) == 1,
        "semaphores: chip 1 cc {} (want {}), chip 0 cc {} (want {}), chip 1 core {} {} (want 1)", got(1, 0), n,
        got(0, 2), n, k, t.view[1].sem(k, 4));
  t.expect_link_recovery();
  info("{} transfers each way and a core's, {} checked at their semaphores: {} cycles", n, t.order.checked(), cycles);
}

}  // namespace

TRN_TEST(remote_writes_both_ways_with_bit_errors, .timeout_ns = 1e11) { co_await both_ways(env, true, false); }

/// Write-after-write queues, no barrier: a transfer's last descriptor completes onto the other chip's
/// semaphore once its own writes are out, while the long piece before it may still be reading: the
/// semaphore overtakes its data and the ordering checker reports it (SPEC 5.5).
TRN_TEST(waw_without_barrier_lets_a_semaphore_overtake_its_data, .timeout_ns = 1e11, .expect_fail = true) {
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("the semaphore overtook its data") != std::string::npos,
          "failed for another reason: {}", e.what());
  });
  co_await both_ways(env, false, false, 0.0);
}
TRN_TEST(waw_with_a_barrier_keeps_the_semaphore_behind_its_data, .timeout_ns = 1e11) {
  co_await both_ways(env, false, true, 0.0);
}

/// Accumulates into the other chip's HBM, FP32 and BF16, both ways: the images against the sums.
TRN_TEST(remote_accumulate_fp32_and_bf16, .timeout_ns = 1e11) {
  PairBench t(env, {4, 40, 2, 0.9, 0.9, 0}, {4, 40, 2, 0.9, 0.9, 0});
  auto r = env.rng("data");
  const unsigned beat = t.prm.chip.core.core.beat_bytes;
  std::string prog[2];
  for (unsigned from = 0; from < 2; ++from) {
    const unsigned to = 1 - from;
    std::string p = ".stream sync\n";
    for (unsigned k = 0; k < 2; ++k) {
      const bool bf16 = k == 1;
      const unsigned es = bf16 ? 2 : 4, n = 3 * beat / es;
      const std::uint32_t s = 0x1000 + 0x400 * k, d = 0x3000 + 0x400 * k;
      // finite values of both signs and moderate exponents, so the sums are ordinary numbers
      std::vector<std::uint8_t> a(n * es), b(n * es), sum(n * es);
      for (unsigned i = 0; i < n; ++i) {
        const std::uint32_t x = static_cast<std::uint32_t>(r.below(1u << 23)) | (120u + r.below(16)) << 23 |
                                static_cast<std::uint32_t>(r.below(2)) << 31;
        const std::uint32_t y = static_cast<std::uint32_t>(r.below(1u << 23)) | (120u + r.below(16)) << 23 |
                                static_cast<std::uint32_t>(r.below(2)) << 31;
        const std::uint32_t xs = bf16 ? x >> 16 : x, ys = bf16 ? y >> 16 : y;
        const std::uint32_t z = dma::acc_add(bf16, ys, xs);
        for (unsigned j = 0; j < es; ++j) {
          a[i * es + j] = static_cast<std::uint8_t>(xs >> (8 * j));
          b[i * es + j] = static_cast<std::uint8_t>(ys >> (8 * j));
          sum[i * es + j] = static_cast<std::uint8_t>(z >> (8 * j));
        }
      }
      std::copy(a.begin(), a.end(), t.hbm[from].mem.image().hbm.begin() + s);
      std::copy(b.begin(), b.end(), t.hbm[to].mem.image().hbm.begin() + d);
      const char* ty = bf16 ? "bf16" : "fp32";
      p += fmt::format(
          "    dma_start queue=0 src=hbm:{:#x} dst=hbm:{:#x} len={} stype={} dtype={} dop=acc dsem={}+=1 dsem.unit={} "
          "dsem.chip={}\n",
          s, remote(to, d), n * es, ty, ty, 2 + from, t.cc() + 1, to + 1);
      t.order.expect(to, t.cc(), 2 + from, Transfer{{{d, sum}}, fmt::format("accumulate {} from chip {}", ty, from)});
    }
    prog[from] = p + "    end\n";
  }
  co_await t.begin();
  co_await t.load(0, t.cc(), prog[0], "acc0.s");
  co_await t.load(1, t.cc(), prog[1], "acc1.s");
  co_await t.run(1ull << t.cc(), 1ull << t.cc());
  for (unsigned k = 0; k < 400 && t.order.waiting() > 0; ++k) co_await t.cycle();
  check(t.order.waiting() == 0 && t.order.checked() == 4, "{} accumulates checked, {} never signalled",
        t.order.checked(), t.order.waiting());
  t.expect_link_recovery();
}

/// A descriptor naming chip 2 of a system of two is refused at decode (ErrChip): the unit stops
/// and neither chip's HBM is written.
TRN_TEST(a_descriptor_for_a_missing_chip_is_refused, .timeout_ns = 1e10) {
  PairBench t(env, {}, {});
  co_await t.begin();
  co_await t.load(0, t.cc(), ".stream sync\n    dma_start queue=0 src=hbm:0 dst=hbm:0x03000100 len=16\n    end\n",
                  "bad_chip.s");
  t.view[0].start(1ull << t.cc());
  co_await t.cycle();
  t.view[0].start(0);
  for (unsigned k = 0; k < 200 && !((t.view[0].err() >> t.cc()) & 1); ++k) co_await t.cycle();
  check(t.view[0].err_code(t.cc()) == static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrDma) &&
            t.view[0].err_detail(t.cc()) == static_cast<unsigned>(sv::dma_pkg::err_e::ErrChip),
        "{}, expected a DMA error (chip)", t.view[0].error_of(t.cc()));
  check(t.hbm[0].writes == 0 && t.hbm[1].writes == 0, "{} and {} writes reached HBM", t.hbm[0].writes, t.hbm[1].writes);
}

/// Throughput for `make bench`: transfers both ways, BENCH_CYCLES long at least.
TRN_TEST(throughput, .timeout_ns = 1e12) {
  BenchTimer timer;
  std::uint64_t cycles = 0;
  const std::uint64_t want = bench_cycles(20000);
  while (cycles < want) {
    PairBench t(env, {4, 40, 2, 0.9, 0.9, 0}, {4, 40, 2, 0.9, 0.9, 0}, 0.0);
    auto r = env.rng("data");
    const std::string p0 = send_program(t, r, 0, 1, 0x1000, 0x4000, 8, 0x100, 0, false);
    const std::string p1 = send_program(t, r, 1, 0, 0x1000, 0x6000, 8, 0x100, 1, false);
    co_await t.begin();
    co_await t.load(0, t.cc(), p0, "send0.s");
    co_await t.load(1, t.cc(), p1, "send1.s");
    co_await t.run(1ull << t.cc(), 1ull << t.cc());
    cycles += t.clk.cycle();
  }
  timer.report(cycles);
}

/// A model wrong in one bit of one part's port at one cycle: a probe must fail there, naming it.
Task<> inject_selftest(Env& env, const std::string& signal, std::uint64_t cycle, unsigned bit) {
  InjectGuard wrong_model(signal, cycle, bit);
  expect_mismatch(signal, cycle);
  co_await both_ways(env, true, false, 0.0);
}
TRN_TEST(selftest_probe_catches_wrong_nic_port, .timeout_ns = 1e11, .expect_fail = true) {
  co_await inject_selftest(env, "chip_pair.g_chip[1].u_chip.u_nic.rx_o.addr", 300, 3);
}
TRN_TEST(selftest_probe_catches_wrong_link_crc, .timeout_ns = 1e11, .expect_fail = true) {
  co_await inject_selftest(env, "chip_pair.g_chip[0].u_chip.g_link[0].u_tx.tx_crc_o", 300, 5);
}
TRN_TEST(selftest_probe_catches_wrong_core_port, .timeout_ns = 1e11, .expect_fail = true) {
  co_await inject_selftest(env, "chip_pair.g_chip[0].u_chip.g_core[0].u_nc.hbm_wr_o.addr", 300, 2);
}

TRN_BENCH_MAIN(Vchip_pair, "chip_pair")
