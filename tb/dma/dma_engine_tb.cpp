// Bench for rtl/dma/dma_engine.sv in lockstep with trn::dma::DmaEngine.
// Environment (model/dma, shared with the model-only runner): MemSystem (HBM with seeded random,
// out-of-order read latency and SBUF, behind the read and write ports, with random stalls), the
// Feeder (the program's descriptors, queues in rotation), the visibility monitor (MemSystem's
// trace) and the OrderingChecker, which sees every visible write. After every program the final
// memory image is compared with the functional reference (trn::dma::reference_run).
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dma/checker.hpp"
#include "dma/dma_engine.hpp"
#include "dma/memsys.hpp"
#include "dma/program.hpp"
#include "dma/runner.hpp"
#include "dma_engine_ports.hpp"
#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::dma;

namespace {

DmaEngine::Params params_of(const Env& e) {
  const auto& a = e.cfg().arch;
  DmaEngine::Params p;
  p.queues = a.dma_queues;
  p.qdepth = 4;
  p.slots = a.dma_slots;
  p.geo = Geometry::make(a.hbm_bytes, a.partitions, a.sbuf_bytes_per_partition, a.dma_beat_bytes);
  return p;
}

struct DmaBench {
  Env& env;
  Signal& rst;
  Clock clk;
  DmaEngine::Params prm;
  DmaEngine model;
  Lockstep<DmaEngine> lockstep;
  MemSystem mem;
  std::unique_ptr<OrderingChecker> checker;
  std::unique_ptr<Feeder> feeder;
  const Program* prog = nullptr;
  Signal &desc_valid, &desc_ready, &ar_valid, &ar_ready, &r_valid, &r_id, &r_data, &wr_valid, &wr_ready, &q_idle,
      &q_err, &q_code, &rob, &inflight, &wr_info, &cfg_strong, &cfg_max_outst;
  bool accepted = false;
  unsigned max_rob = 0, max_inflight = 0;
  std::uint64_t bytes_written = 0;

  // ---- functional coverage (docs/dma.md), sampled in serve() from what the bench drives (the
  // descriptors it pushes, cfg_strong_i, cfg_max_outst_i, the read responses) and the DUT's ports
  // (ar_o.id, wr_o/wr_info_o, rob_o, inflight_o, q_err_o/q_code_o), never from the model.
  /// Per legal descriptor, when all its data (and its semaphore) is visible: its queue's mode; whether
  /// a read response overtook an earlier-issued read while it was in the engine (from its push to its
  /// last write: the read channel carries no queue, so this is engine-wide); barrier; copy/accumulate.
  CoverPoint& cov_order =
      cover_cross("dma_engine.mode_x_returns_x_barrier_x_op",
                  {{"waw", "strong"}, {"in_order", "reordered"}, {"no_barrier", "barrier"}, {"copy", "accumulate"}});
  CoverPoint& cov_completion = cover_point("dma_engine.desc.completion", {"plain", "sem", "last", "sem_last"});
  CoverPoint& cov_err =
      cover_point("dma_engine.error_code", {"range", "zero_len", "long_len", "transpose", "mx_cast", "format"});
  // every cycle: read slots in use (inflight_o + rob_o + the data slot in the write register) of
  // Slots; rob_o of Slots; inflight_o of cfg_max_outst_i
  CoverPoint& cov_slots = level_point("dma_engine.read_slots");
  CoverPoint& cov_rob = level_point("dma_engine.rob");
  CoverPoint& cov_inflight = level_point("dma_engine.inflight");
  // per legal descriptor pushed: each length, count and address field against its legal range
  CoverPoint& cov_len = range_point("dma_engine.desc.len");               // one source element .. MaxLen
  CoverPoint& cov_cols = range_point("dma_engine.desc.cols");             // column layouts: 1 .. Parts
  CoverPoint& cov_src_hbm = range_point("dma_engine.desc.src_hbm_addr");  // 0 .. HbmBytes - len
  CoverPoint& cov_src_part = range_point("dma_engine.desc.src_sbuf_partition");
  CoverPoint& cov_src_off = range_point("dma_engine.desc.src_sbuf_offset");  // 0 .. PartBytes - len
  CoverPoint& cov_dst_hbm = range_point("dma_engine.desc.dst_hbm_addr");
  CoverPoint& cov_dst_part = range_point("dma_engine.desc.dst_sbuf_partition");
  CoverPoint& cov_dst_off = range_point("dma_engine.desc.dst_sbuf_offset");
  CoverPoint& cov_col_part = range_point("dma_engine.desc.col_dst_partition");  // 0 .. Parts - cols
  CoverPoint& cov_col_off = range_point("dma_engine.desc.col_dst_offset");      // 0 .. PartBytes - rows x size
  CoverPoint& cov_sem_hbm = range_point("dma_engine.desc.sem_hbm_addr");        // 0 .. HbmBytes - 4
  CoverPoint& cov_sem_part = range_point("dma_engine.desc.sem_sbuf_partition");
  CoverPoint& cov_sem_off = range_point("dma_engine.desc.sem_sbuf_offset");
  /// A legal descriptor pushed and not yet complete (its writes name it by queue and number).
  struct DescCov {
    bool strong = false, barrier = false, acc = false, sem = false, last = false, sem_seen = false;
    std::uint64_t nelem = 0, seen = 0;
    std::uint64_t overtakes = 0;  ///< the engine's overtaking read returns when it was pushed
  };
  std::vector<std::map<std::uint16_t, DescCov>> desc_cov;  ///< per queue, by descriptor number
  std::vector<std::uint16_t> desc_num;                     ///< per queue: the number (wr_info_o.desc) of the next push
  std::vector<std::uint64_t> rd_seq;                       ///< per read slot: the issue number of its outstanding read
  std::set<std::uint64_t> rd_out;                          ///< the issue numbers of the outstanding reads
  std::uint64_t rd_next = 0, overtakes = 0, err_prev = 0;

  Clock::HookId hook;
  /// Called after every edge before the memory chooses the next cycle's inputs (a test steering
  /// the memory's parameters from what the DUT shows).
  std::function<void()> before_drive;

  explicit DmaBench(Env& e, MemSystem::Params mp = {})
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(params_of(e)),
        model(prm),
        lockstep(e, clk, model),
        mem(prm.geo, mp, e.rng("memory").next()),
        desc_valid(e.sig("desc_valid_i")),
        desc_ready(e.sig("desc_ready_o")),
        ar_valid(e.sig("ar_valid_o")),
        ar_ready(e.sig("ar_ready_i")),
        r_valid(e.sig("r_valid_i")),
        r_id(e.sig("r_id_i")),
        r_data(e.sig("r_data_i")),
        wr_valid(e.sig("wr_valid_o")),
        wr_ready(e.sig("wr_ready_i")),
        q_idle(e.sig("q_idle_o")),
        q_err(e.sig("q_err_o")),
        q_code(e.sig("q_code_o")),
        rob(e.sig("rob_o")),
        inflight(e.sig("inflight_o")),
        wr_info(e.sig("wr_info_o")),
        cfg_strong(e.sig("cfg_strong_i")),
        cfg_max_outst(e.sig("cfg_max_outst_i")),
        desc_cov(prm.queues),
        desc_num(prm.queues, 0),
        rd_seq(prm.slots, 0) {
    mem.params().pad_noise = true;  // the bytes no read asked for are noise: a reader must not use them
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~DmaBench() { clk.remove_hook(hook); }

  unsigned Q() const { return prm.queues; }
  std::uint64_t all() const { return Q() >= 64 ? ~0ull : (1ull << Q()) - 1; }

  /// Settled values just before the edge: the read and write handshakes, the descriptor push.
  void serve() {
    if (!(rst.get() & 1)) return;
    const std::uint64_t now = clk.cycle();
    std::optional<ReadReq> rd;
    if ((ar_valid.get() & 1) && (ar_ready.get() & 1)) {
      const auto ar = DmaEngine::rd_req_t::unpack(env.sig("ar_o").bits());
      rd = ReadReq{ar.space ? Space::sbuf : Space::hbm, ar.addr, ar.bytes, ar.id};
    }
    std::optional<Write> wr;
    if ((wr_valid.get() & 1) && (wr_ready.get() & 1)) wr = write_from_ports();
    mem.observe(now, rd, wr);
    accepted = (desc_valid.get() & 1) && (desc_ready.get() & 1);
    sample(rd, wr ? &mem.trace().back() : nullptr);
    if (wr) {
      const Write& w = mem.trace().back();
      bytes_written += w.col ? w.n * w.esize : w.n;
      if (checker) {
        try {
          checker->on_write(w);
        } catch (const OrderingViolation& v) {
          check(false, "ordering checker: {}", v.what());  // fails the test
        }
      }
    }
    max_rob = std::max(max_rob, static_cast<unsigned>(rob.get()));
    max_inflight = std::max(max_inflight, static_cast<unsigned>(inflight.get()));
  }
  /// Functional coverage of the cycle that ends (rd, w: the read request and the write accepted in it).
  void sample(const std::optional<ReadReq>& rd, const Write* w) {
    // Read returns: a response overtakes when a read issued before it is still outstanding.
    if (r_valid.get() & 1) {
      const std::uint64_t id = r_id.get();
      if (id < rd_seq.size() && rd_out.count(rd_seq[id])) {
        if (*rd_out.begin() != rd_seq[id]) ++overtakes;
        rd_out.erase(rd_seq[id]);
      }
    }
    if (rd && rd->id < rd_seq.size()) {
      rd_seq[rd->id] = rd_next;
      rd_out.insert(rd_next++);
    }
    // The descriptor pushed in this cycle is the feeder's offer (what desc_i carries).
    if (accepted && feeder) {
      if (const auto o = feeder->offer()) on_push(o->first, *o->second);
    }
    if (w && w->queue < desc_cov.size()) on_visible(*w);
    // Occupancy.
    const std::uint64_t in_flight = inflight.get(), held = rob.get();
    const bool wr_slot = (wr_valid.get() & 1) && !(wr_info.get() & 1);  // wr_info_o.sem is bit 0
    hit_level(cov_slots, in_flight + held + wr_slot, prm.slots);
    hit_level(cov_rob, held, prm.slots);
    hit_level(cov_inflight, in_flight, cfg_max_outst.get());
    // A queue stopping on a bad descriptor: its code.
    const std::uint64_t err_now = q_err.get(), rise = err_now & ~err_prev;
    err_prev = err_now;
    for (unsigned q = 0; q < Q(); ++q)
      if ((rise >> q) & 1) {
        const std::uint64_t code = q_code.get_slice(3 * q, 3);
        if (code >= 1 && code <= 6) cov_err.hit_index(code - 1);
      }
  }
  void on_push(unsigned q, const Desc& d) {
    if (q >= desc_num.size()) return;
    const std::uint16_t num = desc_num[q]++;  // bad descriptors are numbered too (dropped by q_clr_i)
    const Geometry& g = prm.geo;
    if (trn::dma::check(d, g) != Err::none) return;
    const unsigned ss = type_size(d.stype), ds = type_size(d.dtype);
    const std::uint64_t nelem = d.len / ss;
    hit_range(cov_len, d.len, ss, g.max_len);
    auto where = [&](Space s, std::uint32_t a, std::uint64_t bytes, CoverPoint& hbm, CoverPoint& part,
                     CoverPoint& off) {
      if (s == Space::hbm) {
        hit_range(hbm, a, 0, g.hbm_bytes - bytes);
      } else {
        hit_range(part, g.part_of(a), 0, g.parts - 1);
        hit_range(off, g.off_of(a), 0, g.part_bytes - bytes);
      }
    };
    where(d.src_space, d.src_addr, d.len, cov_src_hbm, cov_src_part, cov_src_off);
    if (d.layout == 0) {
      where(d.dst_space, d.dst_addr, nelem * ds, cov_dst_hbm, cov_dst_part, cov_dst_off);
    } else {
      const std::uint64_t rows = nelem / d.cols;
      hit_range(cov_cols, d.cols, 1, g.parts);
      hit_range(cov_col_part, g.part_of(d.dst_addr), 0, g.parts - d.cols);
      hit_range(cov_col_off, g.off_of(d.dst_addr), 0, g.part_bytes - rows * (d.layout == 1 ? 2 : 4));
    }
    if (d.sem) where(d.sem_space, d.sem_addr, 4, cov_sem_hbm, cov_sem_part, cov_sem_off);
    DescCov c;
    c.strong = (cfg_strong.get() >> q) & 1;
    c.barrier = d.barrier;
    c.acc = d.op == static_cast<unsigned>(Op::acc);
    c.sem = d.sem;
    c.last = d.last;
    c.nelem = nelem;
    c.overtakes = overtakes;
    desc_cov[q][num] = c;
  }
  void on_visible(const Write& w) {
    auto& m = desc_cov[w.queue];
    const auto it = m.find(static_cast<std::uint16_t>(w.desc));
    if (it == m.end()) return;
    DescCov& c = it->second;
    if (w.sem)
      c.sem_seen = true;
    else
      c.seen += w.elems();
    if (c.seen < c.nelem || (c.sem && !c.sem_seen)) return;
    // cover_cross's bins: the first axis outermost
    const std::size_t mode = c.strong ? 1 : 0, returns = overtakes > c.overtakes ? 1 : 0, barrier = c.barrier ? 1 : 0,
                      op = c.acc ? 1 : 0;
    cov_order.hit_index(((mode * 2 + returns) * 2 + barrier) * 2 + op);
    cov_completion.hit_index((c.sem ? 1 : 0) + (c.last ? 2 : 0));
    m.erase(it);
  }

  /// The DUT's write channel as a Write: its outputs read into the model's Out, then write_of
  /// (the conversion the model-only runner uses).
  Write write_from_ports() {
    DmaEngine::Out o = model.make_out();
    read_outputs(env, model, o, "wr_");
    return write_of(o, prm.geo.beat_bytes);
  }
  /// Drive the ports for the next cycle (after the edge).
  void drive() {
    if (before_drive) before_drive();
    mem.advance(clk.cycle());
    const auto& p = mem.ports();
    ar_ready.set(p.ar_ready);
    wr_ready.set(p.wr_ready);
    r_valid.set(p.r_valid);
    r_id.set(p.r_id);
    Bits d(8 * prm.geo.beat_bytes);
    // (the memory pads with noise: past a response's bytes, and while no response is valid)
    for (unsigned b = 0; b < prm.geo.beat_bytes; ++b) d.set_slice(8 * b, 8, p.r_data[b]);
    r_data.set(d);
    if (feeder) {
      feeder->advance(accepted);
      accepted = false;
      offer();
    } else {
      desc_valid.set(0);
    }
  }
  void offer() {
    const auto o = feeder->offer();
    desc_valid.set(o.has_value());
    if (!o) return;
    DmaEngine::In in = model.make_in();
    in.desc_i = DmaEngine::encode(*o->second);
    in.desc_queue_i = o->first;
    drive_inputs(env, model, in, "desc_", "desc_valid_i");
  }

  Task<> start(unsigned max_outst, std::uint64_t strong_mask = 0) {
    desc_valid.set(0);
    ar_ready.set(0);
    wr_ready.set(0);
    r_valid.set(0);
    env.sig("q_clr_i").set(0);
    env.sig("cfg_strong_i").set(strong_mask);
    env.sig("cfg_max_outst_i").set(max_outst);
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }
  Task<> cycle() {
    drive();
    co_await RisingEdge(clk.signal());
  }

  /// Run a program: feed its descriptors (queue modes from the program), check every visible write,
  /// wait until every queue is idle (or stopped when `allow_errors`), return the cycles taken.
  Task<std::uint64_t> run(const Program& p, double p_idle = 0.0, std::uint64_t limit = 400000,
                          bool allow_errors = false) {
    std::uint64_t strong = 0;
    for (unsigned q = 0; q < Q(); ++q)
      if (q < p.strong.size() && p.strong[q]) strong |= 1ull << q;
    env.sig("cfg_strong_i").set(strong);
    if (!checker) checker = std::make_unique<OrderingChecker>(prm.geo, Q());
    for (unsigned q = 0; q < p.queues.size(); ++q) checker->program(q, p.queues[q], p.strong[q]);
    feeder = std::make_unique<Feeder>(p, env.rng("feeder").next(), p_idle);
    const std::uint64_t c0 = clk.cycle();
    for (;;) {
      check(clk.cycle() - c0 < limit, "program not done after {} cycles (idle queues {:#x}, stopped {:#x})", limit,
            q_idle.get(), q_err.get());
      co_await cycle();
      const std::uint64_t settled = q_idle.get() | (allow_errors ? q_err.get() : 0);
      if (feeder->done() && !(desc_valid.get() & 1) && (settled & all()) == all() && !(wr_valid.get() & 1)) break;
    }
    feeder.reset();
    desc_valid.set(0);
    co_return clk.cycle() - c0;
  }

  /// Every legal descriptor's data and semaphore visible (the checker's completion check).
  void complete() const {
    try {
      checker->check_complete();
    } catch (const OrderingViolation& v) {
      check(false, "ordering checker: {}", v.what());
    }
  }
  void compare_image(const Image& ref) const {
    const Image& img = mem.image();
    for (std::size_t i = 0; i < img.hbm.size(); ++i)
      check(img.hbm[i] == ref.hbm[i], "HBM byte {:#x}: {:#04x}, reference {:#04x}", i, img.hbm[i], ref.hbm[i]);
    for (std::size_t i = 0; i < img.sbuf.size(); ++i)
      check(img.sbuf[i] == ref.sbuf[i], "SBUF partition {} byte {:#x}: {:#04x}, reference {:#04x}",
            i / prm.geo.part_bytes, i % prm.geo.part_bytes, img.sbuf[i], ref.sbuf[i]);
  }
};

std::mt19937_64 stream(Env& env, const char* name) { return std::mt19937_64(env.rng(name).next()); }

MemSystem::Params random_env(Env& env) {
  auto r = env.rng("environment");
  MemSystem::Params mp;
  mp.hbm_lat_min = static_cast<unsigned>(r.range(1, 10));
  mp.hbm_lat_max = mp.hbm_lat_min + static_cast<unsigned>(r.range(0, 50));
  mp.sbuf_lat = static_cast<unsigned>(r.range(1, 4));
  mp.p_ar_ready = r.chance(0.5) ? 1.0 : 0.6;
  mp.p_wr_ready = r.chance(0.5) ? 1.0 : 0.5;
  mp.bw_bytes = r.chance(0.3) ? 4.0 : 0.0;
  return mp;
}

/// d with a completion semaphore: value v written to (s, a) once all its data is visible.
Desc with_sem(Desc d, Space s, std::uint32_t a, std::uint32_t v) {
  d.sem = true;
  d.sem_space = s;
  d.sem_addr = a;
  d.sem_val = v;
  return d;
}

}  // namespace

TRN_TEST(random_programs, .timeout_ns = 1e10) {
  // Random legal programs over every queue: HBM->SBUF, SBUF->HBM, SBUF->SBUF, HBM->HBM; row and
  // column layouts; casts; accumulate in BF16 and FP32; barriers, semaphores, `last`; modes per
  // queue; random latency (out of order), stalls, back-pressure and bandwidth limit. Lockstep every
  // cycle, the checker on every write, the final image against the reference.
  const MemSystem::Params mp = random_env(env);
  DmaBench t(env, mp);
  auto r = stream(env, "program");
  const unsigned outst = 1 + static_cast<unsigned>(r() % t.prm.slots);
  co_await t.start(outst);
  fill_random(t.mem.image(), r);
  Image ref = t.mem.image();
  const std::uint64_t rounds = scaled(3);
  for (std::uint64_t round = 0; round < rounds; ++round) {
    const Program p = random_program(t.prm.geo, t.Q(), r);
    reference_run(ref, p);
    co_await t.run(p, 0.2);
  }
  t.complete();
  t.compare_image(ref);
  fmt::print(
      "dma random_programs: latency {}..{}, max outstanding {}, {} writes checked, {} out of order "
      "(write-after-write queues), peak reorder buffer {}\n",
      mp.hbm_lat_min, mp.hbm_lat_max, outst, t.checker->writes(), t.checker->out_of_order(), t.max_rob);
}

TRN_TEST(long_stalls, .timeout_ns = 1e10) {
  // Back-pressure in long bursts: for 300 cycles of every 1000 the memory takes no writes, and in
  // every other burst no read requests either, while the responses of reads already issued keep
  // arriving (latency 1..40), with every read slot allowed outstanding. The engine must hold its
  // requests and writes stalled that long, let its reorder buffer fill (reads go on while writes
  // wait), and lose nothing: lockstep every cycle, the checker on every write, the final image
  // against the reference.
  MemSystem::Params mp;
  mp.hbm_lat_min = 1;
  mp.hbm_lat_max = 40;
  mp.stall_every = 1000;
  mp.stall_len = 300;
  DmaBench t(env, mp);
  auto r = stream(env, "program");
  co_await t.start(t.prm.slots);
  fill_random(t.mem.image(), r);
  Image ref = t.mem.image();
  ProgramOptions o;
  o.descs_per_queue = 40;
  const std::uint64_t rounds = scaled(3);
  for (std::uint64_t round = 0; round < rounds; ++round) {
    const Program p = random_program(t.prm.geo, t.Q(), r, o);
    reference_run(ref, p);
    co_await t.run(p, 0.2);
  }
  t.complete();
  t.compare_image(ref);
  check(t.max_rob > 0, "the reorder buffer never held data under 300-cycle write stalls");
  fmt::print("dma long_stalls: {} writes checked, peak reorder buffer {} of {}, peak outstanding {}\n",
             t.checker->writes(), t.max_rob, t.prm.slots, t.max_inflight);
}

namespace {
/// One queue per mode run: long row copies HBM -> SBUF with read latency 5..60.
Task<std::uint64_t> mode_run(Env& env, bool strong) {
  MemSystem::Params mp;
  mp.hbm_lat_min = 5;
  mp.hbm_lat_max = 60;
  DmaBench t(env, mp);
  co_await t.start(16);
  auto r = stream(env, "program");
  ProgramOptions o;
  o.p_strong = strong ? 1.0 : 0.0;
  o.p_barrier = 0;
  o.descs_per_queue = 12;
  const Program p = random_program(t.prm.geo, t.Q(), r, o);
  fill_random(t.mem.image(), r);
  Image ref = t.mem.image();
  reference_run(ref, p);
  co_await t.run(p);
  t.complete();
  t.compare_image(ref);
  co_return t.checker->out_of_order();
}
}  // namespace

TRN_TEST(waw_reorders_writes, .timeout_ns = 1e10) {
  // Write-after-write mode with out-of-order read returns: a queue's writes become visible out of
  // descriptor/element order (the checker counts them), and the image is still right.
  const std::uint64_t n = co_await mode_run(env, false);
  fmt::print("dma write-after-write: {} writes visible before an earlier-issued write of their queue\n", n);
  check(n > 0, "write-after-write mode made no write visible out of order: the test shows nothing");
}

TRN_TEST(strong_order_keeps_order, .timeout_ns = 1e10) {
  // The same traffic in strong-order-write mode: the checker's strong-order promise (exact
  // descriptor and element order per queue) holds on every write; run over many seeds.
  // The assertion is the checker's: any reordered write fails the test inside mode_run
  // (selftest_checker_catches_reordering_dut shows it catching one).
  co_await mode_run(env, true);
}

TRN_TEST(semaphore_consumer_sees_data, .timeout_ns = 1e10) {
  // Write-after-write queues (the weak mode), every descriptor with a completion semaphore and its
  // own destination. A consumer watches the memory: the cycle a semaphore becomes visible it reads
  // the descriptor's whole destination, which must already hold the new data.
  MemSystem::Params mp;
  mp.hbm_lat_min = 2;
  mp.hbm_lat_max = 80;
  mp.p_wr_ready = 0.7;
  DmaBench t(env, mp);
  co_await t.start(32);
  auto r = stream(env, "program");
  fill_random(t.mem.image(), r);
  const Image init = t.mem.image();
  const Plan plan{t.prm.geo, t.Q()};
  Program p;
  p.queues.resize(t.Q());
  p.strong.assign(t.Q(), false);
  const unsigned per_q = 8;
  const std::uint32_t slice = (plan.hbm_band() / per_q) & ~3u;
  for (unsigned q = 0; q < t.Q(); ++q)
    for (unsigned i = 0; i < per_q; ++i) {
      Desc d;
      d.src_space = Space::hbm;
      d.dst_space = Space::hbm;
      d.stype = static_cast<unsigned>(r() % 8);
      d.dtype = r() % 2 ? d.stype : static_cast<unsigned>(r() % 8);
      const std::uint32_t n = 1 + static_cast<std::uint32_t>(r() % std::min<std::uint32_t>(slice / 4, 256));
      d.len = n * type_size(d.stype);
      d.src_addr = static_cast<std::uint32_t>(r() % (plan.hbm_ro() - d.len));
      d.dst_addr = plan.hbm_band_base(q) + i * slice;
      d.sem = true;
      d.sem_space = Space::hbm;
      d.sem_addr = plan.sem_base(q) + 4 * i;
      d.sem_val = 0xC0DE0000u | (q << 8) | i;
      p.queues[q].push_back(d);
    }
  unsigned consumed = 0;
  t.mem.on_write = [&](const Write& w) {
    if (!w.sem) return;
    const Desc& d = p.queues[w.queue][w.desc];
    check(t.mem.image().load(Space::hbm, d.sem_addr, 4) == d.sem_val, "semaphore word not written");
    Image want = init;
    reference_apply(want, d);
    const std::uint32_t bytes = d.len / type_size(d.stype) * type_size(d.dtype);
    for (std::uint32_t b = 0; b < bytes; ++b)
      check(t.mem.image().at(Space::hbm, d.dst_addr + b) == want.at(Space::hbm, d.dst_addr + b),
            "consumer of queue {} descriptor {} read byte {} of its data before it was written (cycle {})", w.queue,
            w.desc, b, w.cycle);
    ++consumed;
  };
  co_await t.run(p);
  t.mem.on_write = nullptr;
  check(consumed == t.Q() * per_q, "{} semaphores seen, {} expected", consumed, t.Q() * per_q);
  t.complete();
}

TRN_TEST(descriptor_limits, .timeout_ns = 1e10) {
  // Legal descriptors at the ends of their fields' ranges, which random programs (sources in the
  // read-only regions, destinations in the queues' bands, semaphores in HBM) never reach: sources at
  // the top of HBM, destinations at HBM address 0 and at the top of HBM, SBUF destinations at offset
  // 0 (row and column layouts), completion semaphores in SBUF (first, a middle and the last
  // partition; offset 0, the middle, the last word) and at both ends of HBM, and a copy of MaxLen
  // bytes. Every address and length comes from the geometry, so it runs in every configuration.
  // An end is used several ways (the top of HBM is a source, a destination and a semaphore word),
  // and within a program a read is not ordered against another descriptor's write (the hazard check
  // compares destinations only), nor a semaphore against another queue's data. So the test runs in
  // phases, each a program that writes none of its own sources and whose destinations and semaphore
  // words are disjoint (its image then does not depend on timing), and compares the image with the
  // reference after every phase, before a later phase overwrites an end.
  DmaBench t(env, random_env(env));
  co_await t.start(std::min(32u, t.prm.slots));
  auto r = stream(env, "program");
  fill_random(t.mem.image(), r);
  Image ref = t.mem.image();
  const Geometry& g = t.prm.geo;
  const std::uint32_t H = g.hbm_bytes, B = g.part_bytes, L = g.max_len;
  const unsigned P = g.parts;
  // partition 1 strictly inside, and apart from the column layout's last two partitions
  check(P >= 4, "descriptor_limits needs at least 4 SBUF partitions, the configuration has {}", P);
  // n: a short copy that crosses beats, a whole number of 4-byte words, at most an eighth of a
  // partition; mid: a word offset in the middle of a partition.
  const std::uint32_t n = std::min<std::uint32_t>(2 * g.beat_bytes + 12, B / 8) & ~3u;
  const std::uint32_t mid = (B / 2) & ~3u;
  auto tag = [](unsigned phase, unsigned k) { return 0x5E1D0000u | (phase << 8) | k; };
  // A phase's program: its descriptors dealt to the queues in turn, the modes alternating by queue.
  // Each must be legal: a bad one would stop its queue and the phase would only time out.
  auto program = [&](const std::vector<Desc>& descs, unsigned phase) {
    Program p;
    p.queues.resize(t.Q());
    for (unsigned q = 0; q < t.Q(); ++q) p.strong.push_back((q + phase) % 2 == 0);
    for (std::size_t k = 0; k < descs.size(); ++k) {
      const Err e = trn::dma::check(descs[k], g);
      check(e == Err::none, "phase {}: {} is not legal ({})", phase, descs[k].str(), err_name(e));
      p.queues[k % t.Q()].push_back(descs[k]);
    }
    return p;
  };
  std::vector<Program> phases;  // built first: the feeder keeps a reference to the running one
  {
    // Phase 1: reads at the top of HBM and in the middle and at the end of SBUF partition 1;
    // writes at the edges of SBUF and at HBM address 0; three semaphores in SBUF, one in the
    // middle of HBM.
    // HBM top -> partition 0 offset 0 (src_hbm_addr max; dst_sbuf_partition, dst_sbuf_offset min);
    // semaphore in partition 0's last word (sem_sbuf_partition min, sem_sbuf_offset max).
    const Desc a = with_sem(copy_desc(Space::hbm, H - n, Space::sbuf, g.sbuf_addr(0, 0), n), Space::sbuf,
                            g.sbuf_addr(0, B - 4), tag(1, 0));
    // HBM top -> column layout: n / 2 BF16 elements as rows of 2 into the last two partitions from
    // offset 0 (src_hbm_addr max; col_dst_offset min, col_dst_partition max); semaphore at partition
    // 1 offset 0 (sem_sbuf_partition between, sem_sbuf_offset min).
    Desc b = with_sem(copy_desc(Space::hbm, H - n, Space::sbuf, g.sbuf_addr(P - 2, 0), n, 2), Space::sbuf,
                      g.sbuf_addr(1, 0), tag(1, 1));
    b.layout = static_cast<unsigned>(Layout::col2);
    b.cols = 2;
    // SBUF -> SBUF into the end of the last partition (dst_sbuf_partition, dst_sbuf_offset max);
    // semaphore in the middle of the last partition (sem_sbuf_partition max, sem_sbuf_offset between).
    const Desc c = with_sem(copy_desc(Space::sbuf, g.sbuf_addr(1, mid), Space::sbuf, g.sbuf_addr(P - 1, B - n), n),
                            Space::sbuf, g.sbuf_addr(P - 1, mid), tag(1, 2));
    // SBUF -> HBM address 0 from the end of partition 1 (src_sbuf_offset max, dst_hbm_addr min);
    // semaphore in the middle of HBM.
    const Desc d =
        with_sem(copy_desc(Space::sbuf, g.sbuf_addr(1, B - n), Space::hbm, 0, n), Space::hbm, H / 2, tag(1, 3));
    phases.push_back(program({a, b, c, d}, 1));
  }
  // Phase 2: SBUF -> the top of HBM (dst_hbm_addr max), from what phase 1 wrote at partition 0
  // offset 0; its semaphore at HBM address 0 (sem_hbm_addr min), over phase 1's data there.
  phases.push_back(program(
      {with_sem(copy_desc(Space::sbuf, g.sbuf_addr(0, 0), Space::hbm, H - n, n), Space::hbm, 0, tag(2, 0))}, 2));
  // Phase 3: HBM address 0 -> the middle of HBM; its semaphore in HBM's last word (sem_hbm_addr max),
  // over phase 2's data there.
  phases.push_back(
      program({with_sem(copy_desc(Space::hbm, 0, Space::hbm, H / 2, n), Space::hbm, H - 4, tag(3, 0))}, 3));
  // Phase 4: one copy of MaxLen bytes from HBM address 0 to the top of HBM (len max, dst_hbm_addr
  // max), alone, its semaphore in the last word of the last partition. Only where HBM holds two of
  // them (small, full): in tiny HBM is exactly MaxLen bytes, so the source is all of HBM and no
  // disjoint destination can hold it (a copy onto its own source is not defined by the spec).
  const char* maxlen = "skipped (HBM holds fewer than two MaxLen copies)";
  if (2ull * L <= H) {
    phases.push_back(program(
        {with_sem(copy_desc(Space::hbm, 0, Space::hbm, H - L, L), Space::sbuf, g.sbuf_addr(P - 1, B - 4), tag(4, 0))},
        4));
    maxlen = "HBM -> HBM top";
  }
  for (std::size_t ph = 0; ph < phases.size(); ++ph) {
    const Program& p = phases[ph];
    reference_run(ref, p);
    co_await t.run(p);
    // Every semaphore word holds its value (SBUF ones included; the image comparison below has
    // them too, as reference_apply stores the semaphore in its space).
    for (const auto& q : p.queues)
      for (const Desc& d : q)
        if (d.sem) {
          const std::uint32_t v = t.mem.image().load(d.sem_space, d.sem_addr, 4);
          check(v == d.sem_val, "phase {}: the semaphore word of {} holds {:#x}", ph + 1, d.str(), v);
        }
    t.compare_image(ref);
  }
  t.complete();
  info("{} phases, MaxLen {} copy: {}, {} writes checked", phases.size(), L, maxlen, t.checker->writes());
}

TRN_TEST(rob_fills_behind_held_semaphore, .timeout_ns = 1e10) {
  // The reorder buffer completely full: every read slot holding returned data while the write
  // register holds something that is not a slot's data. Random traffic never gets there: a slot's
  // data leaves for the write register as soon as it is free, so with writes stalled the register
  // itself holds one slot (peak Slots - 1). Here the register holds a completion semaphore: queue 0
  // runs one short accumulate with a barrier and a semaphore, and the cycle its semaphore write
  // shows the memory stops taking writes; queue 1 goes on reading long copies into the other
  // partitions until every slot is issued and returned, then writes resume. Fixed HBM latency, so
  // reads return in issue order: queue 0's descriptor is write-after-write, in order, barrier and
  // accumulate at once, a combination random programs rarely draw. Lockstep every cycle, the
  // checker on every write, the image against the reference, and the DUT's rob_o must reach Slots.
  MemSystem::Params mp;
  mp.hbm_lat_min = mp.hbm_lat_max = 6;
  DmaBench t(env, mp);
  const Geometry& g = t.prm.geo;
  const unsigned S = t.prm.slots;
  check(t.Q() >= 2 && g.parts >= 2, "rob_fills_behind_held_semaphore needs 2 queues and 2 partitions");
  co_await t.start(S);
  auto r = stream(env, "program");
  fill_random(t.mem.image(), r);
  Image ref = t.mem.image();
  Program p;
  p.queues.resize(t.Q());
  p.strong.assign(t.Q(), false);
  const std::uint32_t H = g.hbm_bytes, B = g.part_bytes;
  // queue 0: FP32 accumulate of 16 elements into partition 0, barrier, semaphore in HBM's last word
  Desc a = with_sem(copy_desc(Space::hbm, 0, Space::sbuf, g.sbuf_addr(0, 0), 64, 0), Space::hbm, H - 4, 0x5E3A0001u);
  a.op = static_cast<unsigned>(Op::acc);
  a.barrier = true;
  p.queues[0].push_back(a);
  // queue 1: byte copies of whole partitions (up to MaxLen each) from HBM into partitions 1..,
  // until they need at least twice the read slots (one read per beat)
  const std::uint32_t len = std::min<std::uint32_t>(B, g.max_len);
  std::uint64_t reads = 0;
  for (unsigned part = 1; part < g.parts && reads < 2ull * S; ++part) {
    p.queues[1].push_back(copy_desc(Space::hbm, 64 + (part - 1) * len, Space::sbuf, g.sbuf_addr(part, 0), len));
    reads += (len + g.beat_bytes - 1) / g.beat_bytes;
  }
  check(reads > S + 8, "the configuration's SBUF holds {} reads of copies, fewer than {} slots", reads, S);
  check(64 + (g.parts - 1) * std::uint64_t{len} <= H - 4, "the copies' sources overlap the semaphore word");
  enum { armed, holding, released } st = armed;
  std::uint64_t held_at = 0, full_cycles = 0;
  t.before_drive = [&] {
    if (st == armed && (t.wr_valid.get() & 1) && (t.wr_info.get() & 1)) {
      st = holding;
      held_at = t.clk.cycle();
      t.mem.params().p_wr_ready = 0.0;
    } else if (st == holding) {
      if (t.rob.get() == S) ++full_cycles;
      if (full_cycles >= 20 || t.clk.cycle() - held_at > 8ull * S + 2000) {
        st = released;
        t.mem.params().p_wr_ready = 1.0;
      }
    }
  };
  reference_run(ref, p);
  co_await t.run(p);
  t.before_drive = nullptr;
  t.complete();
  t.compare_image(ref);
  check(st == released, "queue 0's semaphore write never showed on the write port");
  check(t.max_rob == S, "the reorder buffer peaked at {} of {} slots with writes held behind the semaphore", t.max_rob,
        S);
  info("reorder buffer full ({} slots) for {} cycles behind a held semaphore write; {} writes checked", S, full_cycles,
       t.checker->writes());
}

TRN_TEST(bad_descriptors, .timeout_ns = 1e10) {
  // Every kind of bad descriptor on queue 0, between good ones: the queue stops with the code and
  // writes nothing of it (the checker's bad-descriptor promise), the other queues keep running,
  // q_clr_i drops the bad one and the queue resumes. Final image against the reference.
  DmaBench t(env, MemSystem::Params{3, 20, 2, 1.0, 0.8, 0});
  co_await t.start(16);
  auto r = stream(env, "program");
  fill_random(t.mem.image(), r);
  Image ref = t.mem.image();
  const Geometry& g = t.prm.geo;
  const Plan plan{g, t.Q()};
  auto good = [&](unsigned q, unsigned i) {
    Desc d;
    d.src_space = Space::hbm;
    d.src_addr = 64 * i;
    d.dst_space = Space::sbuf;
    d.dst_addr = g.sbuf_addr(i % g.parts, plan.sbuf_band_base(q));
    d.len = 48;
    return d;
  };
  struct Bad {
    Err code;
    Desc d;
  };
  std::vector<Bad> bads;
  {
    Desc d = good(0, 0);
    d.src_addr = g.hbm_bytes - 8;
    bads.push_back({Err::range, d});
    d = good(0, 0);
    d.dst_addr = g.sbuf_addr(0, g.part_bytes - 16);
    bads.push_back({Err::range, d});
    d = good(0, 0);
    d.len = 0;
    bads.push_back({Err::zero_len, d});
    d = good(0, 0);
    d.len = g.max_len + 1;
    bads.push_back({Err::long_len, d});
    d = good(0, 0);
    d.stype = d.dtype = 2;
    d.layout = 1;
    d.cols = 5;  // 24 elements are not whole rows of 5
    bads.push_back({Err::transpose, d});
    d.cols = 4;
    d.dst_addr = g.sbuf_addr(0, plan.sbuf_band_base(0) + 1);  // odd offset for 2-byte columns
    bads.push_back({Err::transpose, d});
    d = good(0, 0);
    d.stype = 0;
    d.dtype = 8;
    bads.push_back({Err::mx_cast, d});
    d = good(0, 0);
    d.stype = 3;
    d.dtype = 3;
    d.op = 1;  // accumulate in FP16: not offered
    d.dst_space = Space::hbm;
    d.dst_addr = plan.hbm_band_base(0);
    bads.push_back({Err::format, d});
    d = good(0, 0);
    d.dst_space = Space::hbm;
    d.dst_addr = (g.chips + 1) << dma::kChipLsb | plan.hbm_band_base(0);  // a chip past the system's
    bads.push_back({Err::chip, d});
    d = good(0, 0);
    d.sem = true;
    d.sem_space = Space::hbm;
    d.sem_addr = g.hbm_bytes;
    bads.push_back({Err::range, d});
    // one fault each, at the check's exact bounds (where a condition's slip shows)
    d = good(0, 0);
    d.stype = 9;  // E8M0: a known type, refused as an MX one
    bads.push_back({Err::mx_cast, d});
    d = good(0, 0);
    d.stype = 10;  // unknown, the destination type a known one (FP32)
    d.dtype = 0;
    bads.push_back({Err::format, d});
    d = good(0, 0);
    d.stype = 0;
    d.dtype = 12;
    bads.push_back({Err::format, d});
    d = good(0, 0);
    d.op = 2;
    bads.push_back({Err::format, d});
    d = good(0, 0);
    d.layout = 3;
    bads.push_back({Err::format, d});
    d = good(0, 0);
    d.src_addr = 1u << dma::kChipLsb | 64;  // a source on another chip: remote reads are not built
    bads.push_back({Err::chip, d});
    d = good(0, 0);
    d.src_space = Space::sbuf;
    d.src_addr = g.sbuf_addr(g.parts, 0);  // the first partition past the last
    bads.push_back({Err::range, d});
    d = good(0, 0);
    d.stype = d.dtype = 2;
    d.layout = 1;
    d.cols = 4;
    d.dst_space = Space::hbm;  // columns go to SBUF only
    d.dst_addr = plan.hbm_band_base(0);
    bads.push_back({Err::transpose, d});
    d = good(0, 0);
    d.stype = d.dtype = 0;
    d.layout = 1;  // 2-byte columns of 4-byte elements
    d.cols = 4;
    bads.push_back({Err::transpose, d});
    d = good(0, 0);
    d.stype = d.dtype = 0;
    d.layout = 2;  // one 4-byte column, a row more than a partition holds
    d.cols = 1;
    d.len = 4 * (g.part_bytes / 4 + 1);
    d.dst_addr = g.sbuf_addr(0, 0);
    bads.push_back({Err::range, d});
    d = good(0, 0);
    d.stype = d.dtype = 0;
    d.layout = 2;  // a column more than the partitions from the first
    d.cols = g.parts + 1;
    d.len = 4 * (g.parts + 1);
    d.dst_addr = g.sbuf_addr(0, 0);
    bads.push_back({Err::range, d});
  }
  // and legal at its bound: the longest descriptor (the whole HBM onto itself: its values stay)
  Desc longest;
  longest.src_space = longest.dst_space = Space::hbm;
  longest.src_addr = longest.dst_addr = 0;
  longest.len = std::min(g.max_len, g.hbm_bytes);
  check(dma::check(longest, g) == Err::none, "the longest descriptor {} is refused by the model", longest.str());
  // Queue 0: good, bad, good, bad, ...; every other queue: a long run of good descriptors.
  Program p;
  p.queues.resize(t.Q());
  p.strong.assign(t.Q(), true);
  for (unsigned k = 0; k < bads.size(); ++k) {
    p.queues[0].push_back(good(0, 2 * k));
    p.queues[0].push_back(bads[k].d);
  }
  p.queues[0].push_back(good(0, 99));
  p.queues[0].push_back(longest);
  for (unsigned q = 1; q < t.Q(); ++q)
    for (unsigned i = 0; i < 3 * bads.size(); ++i) p.queues[q].push_back(good(q, i));
  reference_run(ref, p);
  t.checker = std::make_unique<OrderingChecker>(g, t.Q());
  for (unsigned q = 0; q < t.Q(); ++q) t.checker->program(q, p.queues[q], p.strong[q]);
  env.sig("cfg_strong_i").set(t.all());
  t.feeder = std::make_unique<Feeder>(p, 7, 0.0);
  // Feeding and clearing: wait for each stop, check its code, clear it.
  unsigned stops = 0;
  const std::uint64_t c0 = t.clk.cycle();
  for (;;) {
    check(t.clk.cycle() - c0 < 200000, "bad_descriptors: not done ({} of {} stops)", stops, bads.size());
    co_await t.cycle();
    env.sig("q_clr_i").set(0);
    if (t.q_err.get() & 1) {
      const auto code = static_cast<unsigned>(t.q_code.bits().slice(0, 3));
      check(stops < bads.size(), "queue 0 stopped {} times", stops + 1);
      check(code == static_cast<unsigned>(bads[stops].code), "bad descriptor {} ({}): code {}, expected {} ({})", stops,
            bads[stops].d.str(), code, static_cast<unsigned>(bads[stops].code), err_name(bads[stops].code));
      // while queue 0 is stopped, the others continue: hold the stop for a while
      for (unsigned k = 0; k < 20; ++k) co_await t.cycle();
      check(t.q_err.get() & 1, "queue 0's stop cleared itself");
      env.sig("q_clr_i").set(1);
      ++stops;
    }
    if (t.feeder->done() && !(t.desc_valid.get() & 1) && (t.q_idle.get() & t.all()) == t.all() &&
        !(t.wr_valid.get() & 1))
      break;
  }
  check(stops == bads.size(), "{} stops, {} bad descriptors", stops, bads.size());
  t.feeder.reset();
  t.complete();
  t.compare_image(ref);
}

TRN_TEST(selftest_checker_catches_reordering_dut, .timeout_ns = 1e10, .expect_fail = true) {
  // The ordering checker must catch a DUT that breaks strong order: the checker is told the queues
  // are strong while the DUT runs them write-after-write with out-of-order returns.
  expect_failure([](const TestFailure& f) {
    check(std::string(f.what()).find("ordering checker: strong order") != std::string::npos, "wrong failure: {}",
          f.what());
  });
  MemSystem::Params mp;
  mp.hbm_lat_min = 5;
  mp.hbm_lat_max = 60;
  DmaBench t(env, mp);
  co_await t.start(16);
  auto r = stream(env, "program");
  ProgramOptions o;
  o.p_strong = 0.0;
  o.p_barrier = 0;
  o.descs_per_queue = 12;
  const Program p = random_program(t.prm.geo, t.Q(), r, o);
  // The checker believes every queue is strong; the DUT runs them write-after-write.
  t.checker = std::make_unique<OrderingChecker>(t.prm.geo, t.Q());
  for (unsigned q = 0; q < t.Q(); ++q) t.checker->program(q, p.queues[q], true);
  env.sig("cfg_strong_i").set(0);
  t.feeder = std::make_unique<Feeder>(p, 3, 0.0);
  for (unsigned k = 0; k < 100000; ++k) co_await t.cycle();
}

TRN_TEST(selftest_image_compare_catches_wrong_byte, .timeout_ns = 1e10, .expect_fail = true) {
  // The final-image comparison must fail on a one-byte difference.
  expect_failure([](const TestFailure& f) {
    check(std::string(f.what()).find("SBUF partition") != std::string::npos, "wrong failure: {}", f.what());
  });
  DmaBench t(env);
  co_await t.start(8);
  auto r = stream(env, "program");
  fill_random(t.mem.image(), r);
  Image ref = t.mem.image();
  const Program p = random_program(t.prm.geo, t.Q(), r);
  reference_run(ref, p);
  co_await t.run(p);
  ref.sbuf.back() ^= 0x01;
  t.compare_image(ref);
}

TRN_TEST(throughput) {
  // make bench: bytes per cycle of large copies (2 x 4 KiB HBM -> HBM on queue 0) against the port
  // width, for read latencies 20, 100, 400 (each request uniform in [L/2, 3L/2]: out of order) and
  // outstanding-read limits 4, 16, 64, in both modes; the peak reorder-buffer occupancy each needed.
  const unsigned W = params_of(env).geo.beat_bytes;
  struct Row {
    unsigned lat, outst;
    double bpc[2];
    unsigned rob[2];
  };
  std::vector<Row> rows;
  for (unsigned lat : {20u, 100u, 400u})
    for (unsigned outst : {4u, 16u, 64u}) {
      Row row{lat, outst, {0, 0}, {0, 0}};
      for (unsigned strong = 0; strong < 2; ++strong) {
        MemSystem::Params mp;
        mp.hbm_lat_min = lat / 2;
        mp.hbm_lat_max = lat + lat / 2;
        DmaBench t(env, mp);
        if (outst > t.prm.slots) continue;
        co_await t.start(outst);
        Program p;
        p.queues.resize(t.Q());
        p.strong.assign(t.Q(), strong != 0);
        for (unsigned i = 0; i < 2; ++i) {
          Desc d;
          d.src_space = d.dst_space = Space::hbm;
          d.src_addr = 4096 * i;
          d.dst_addr = t.prm.geo.hbm_bytes / 2 + 4096 * i;
          d.len = 4096;
          d.last = i == 1;
          p.queues[0].push_back(d);
        }
        const std::uint64_t cyc = co_await t.run(p);
        row.bpc[strong] = static_cast<double>(t.bytes_written) / static_cast<double>(cyc);
        row.rob[strong] = t.max_rob;
      }
      rows.push_back(row);
    }
  fmt::print(
      "bench: figure dma copy 8 KiB HBM->HBM, port {} B/cycle: latency, outstanding reads, "
      "write-after-write B/cycle (%port, peak ROB), strong B/cycle (%port, peak ROB), strong/waw, Little's-law "
      "bound min(1, outstanding / mean latency)\n",
      W);
  for (const Row& r : rows)
    fmt::print(
        "bench: figure dma   L={:3} outst={:2}{}: waw {:5.2f} ({:5.1f}%, rob {:2})  strong {:5.2f} ({:5.1f}%, "
        "rob {:2})  ratio {:.3f}  bound {:5.1f}%\n",
        r.lat, r.outst, r.outst >= r.lat * 3 / 2 ? " (covers latency)" : "                 ", r.bpc[0],
        100 * r.bpc[0] / W, r.rob[0], r.bpc[1], 100 * r.bpc[1] / W, r.rob[1], r.bpc[0] > 0 ? r.bpc[1] / r.bpc[0] : 0,
        100 * std::min(1.0, static_cast<double>(r.outst) / r.lat));
  // simulation speed: back-to-back copies
  DmaBench t(env, MemSystem::Params{10, 30, 2, 1.0, 1.0, 0});
  co_await t.start(32);
  const std::uint64_t want = bench_cycles(20000);
  BenchTimer timer;
  const std::uint64_t c0 = t.clk.cycle();
  auto r = stream(env, "program");
  while (t.clk.cycle() - c0 < want) {
    ProgramOptions o;
    o.descs_per_queue = 4;
    const Program p = random_program(t.prm.geo, t.Q(), r, o);
    co_await t.run(p);
  }
  timer.report(t.clk.cycle() - c0);
}

TRN_BENCH_MAIN(Vdma_engine, "dma_engine")
