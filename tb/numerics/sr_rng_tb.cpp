// Bench for rtl/numerics/sr_rng.sv in lockstep with trn::numerics::SrRng. A scoreboard keeps one
// reference generator per lane (numerics::Xorshift32, seeded as SPEC section 4 says) and checks
// every lane's word every cycle.
#include <vector>

#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "numerics/sr_rng.hpp"
#include "sr_rng_ports.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::numerics;

namespace {

struct RngBench {
  Env& env;
  Signal &rst, &load, &seed, &advance, &rnd;
  Clock clk;
  SrRng model;
  Lockstep<SrRng> lockstep;
  unsigned lanes;
  std::vector<Xorshift32> ref;
  std::uint64_t words_checked = 0;

  explicit RngBench(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        load(e.sig("load_i")),
        seed(e.sig("seed_i")),
        advance(e.sig("advance_i")),
        rnd(e.sig("rnd_o")),
        clk(e.sig("clk_i"), 10),
        model({e.cfg().arch.partitions}),
        lockstep(e, clk, model),
        lanes(e.cfg().arch.partitions) {
    for (unsigned l = 0; l < lanes; ++l) ref.emplace_back(0, l);
  }

  Task<> start() {
    load.set(0);
    advance.set(Bits(lanes));
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }
  /// Compare every lane's word with the reference, then take one edge with these controls.
  Task<> cycle(bool do_load, std::uint32_t s, const Bits& adv) {
    co_await ReadOnly();
    const Bits w = rnd.bits();
    for (unsigned l = 0; l < lanes; ++l) {
      check(w.slice(32 * l, 32) == ref[l].peek(), "lane {}: word {:#010x}, reference {:#010x}", l, w.slice(32 * l, 32),
            ref[l].peek());
      ++words_checked;
    }
    co_await RisingEdge(clk.signal());
    load.set(do_load);
    seed.set(s);
    advance.set(adv);
    co_await RisingEdge(clk.signal());
    if (do_load)
      for (unsigned l = 0; l < lanes; ++l) ref[l] = Xorshift32(s, l);
    else
      for (unsigned l = 0; l < lanes; ++l)
        if (adv.bit(l)) ref[l].next();
    load.set(0);
    advance.set(Bits(lanes));
  }
};

}  // namespace

TRN_TEST(sequence_matches_reference, .timeout_ns = 1e9) {
  // Seeds 0, the run seed and values that make a lane's seed 0 (replaced by 1); random lanes
  // advance between loads.
  RngBench t(env);
  co_await t.start();
  auto r = env.rng("advance");
  std::vector<std::uint32_t> seeds{0u, env.seed(), 0x9E3779B9u, 0x9E3779B9u * 2u, 0xFFFFFFFFu};
  for (std::uint32_t s : seeds) {
    co_await t.cycle(true, s, Bits(t.lanes));
    for (int k = 0; k < 500; ++k) co_await t.cycle(false, 0, r.bits(t.lanes));
  }
  for (int k = 0; k < 200; ++k) co_await t.cycle(r.chance(0.05), static_cast<std::uint32_t>(r.next()), r.bits(t.lanes));
  info("{} words checked", t.words_checked);
}

TRN_TEST(load_has_priority, .timeout_ns = 1e8) {
  RngBench t(env);
  co_await t.start();
  Bits all(t.lanes);
  for (unsigned l = 0; l < t.lanes; ++l) all.set_bit(l, true);
  for (int k = 0; k < 10; ++k) co_await t.cycle(false, 0, all);
  co_await t.cycle(true, 1234, all);  // load and advance together: the load wins
  co_await t.cycle(false, 0, Bits(t.lanes));
}

TRN_TEST(throughput) {
  // make bench: every lane steps every cycle (the lockstep checks the words).
  RngBench t(env);
  co_await t.start();
  Bits all(t.lanes);
  for (unsigned l = 0; l < t.lanes; ++l) all.set_bit(l, true);
  t.advance.set(all);
  const std::uint64_t n = bench_cycles(20000);
  BenchTimer timer;
  co_await ClockCycles(t.clk.signal(), static_cast<unsigned>(n));
  timer.report(n);
  fmt::print("bench: unit=sr_rng lanes={} latency=0 results_per_cycle={}\n", t.lanes, t.lanes);
}

TRN_BENCH_MAIN(Vsr_rng, "sr_rng")
