// Bench for rtl/common/stream_fifo.sv: lockstep with trn::common::StreamFifo under random
// traffic and back-pressure, an in-order scoreboard, directed corner cases, and the harness
// self-tests (the lockstep catching a wrong model, the watchdog catching a hang).
#include <deque>

#include "common/stream_fifo.hpp"
#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/stream.hpp"
#include "harness/verilated_bench.hpp"
#include "stream_fifo_ports.hpp"

using namespace trn;
using namespace trn::tb;
using trn::common::StreamFifo;

namespace {

/// DUT, model, lockstep, drivers and an in-order scoreboard.
struct FifoEnv {
  Env& env;
  Signal& rst;
  Clock clk;
  StreamFifo model;
  Lockstep<StreamFifo> lockstep;
  Watchdog wd;
  StreamSource src;
  StreamSink sink;
  std::deque<Bits> expected;
  std::uint64_t checked = 0;
  TaskGroup tasks;  // last: its tasks stop before the objects above go

  FifoEnv(Env& e, double p_valid, double p_ready, std::uint64_t watchdog = 0)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        model({e.cfg().common.fifo_width, e.cfg().common.fifo_depth}),
        lockstep(e, clk, model),
        wd(clk, watchdog),
        src("push", clk, rst, {&e.sig("push_valid_i"), &e.sig("push_ready_o"), &e.sig("push_data_i")}, e.rng("push"),
            p_valid, &wd),
        sink("pop", clk, rst, {&e.sig("pop_valid_o"), &e.sig("pop_ready_i"), &e.sig("pop_data_o")}, e.rng("pop"),
             p_ready, &wd) {
    src.on_accept = [this](const Bits& b, std::uint64_t) { expected.push_back(b); };
    sink.expecting = [this] { return !expected.empty(); };
    // Functional coverage: the FIFO's fill level every cycle (empty, between, full), and a push
    // offered while it is full.
    clk.add_pre_edge_hook([this] {
      const std::uint64_t usage = env.sig("usage_o").get();
      cover_level("stream_fifo.usage", usage, depth());
      cover_point("stream_fifo.push_when_full", {"no", "yes"})
          .hit_index(usage == depth() && env.sig("push_valid_i").get() ? 1 : 0);
    });
    sink.on_item = [this](const Bits& b, std::uint64_t cyc) {
      check(!expected.empty(), "scoreboard: pop of {} at cycle {} with nothing pushed", b, cyc);
      check(b == expected.front(), "scoreboard: pop at cycle {} gave {}, expected {}", cyc, b, expected.front());
      expected.pop_front();
      ++checked;
    };
  }
  unsigned depth() const { return model.params().depth; }

  Task<> start() {
    clk.start();
    lockstep.start();
    (void)tasks.start(src.run());
    (void)tasks.start(sink.run());
    co_await reset_dut(clk, rst);
  }
  /// Wait until every item sent has been popped and checked.
  Task<> drain(std::uint64_t total) {
    while (checked < total) co_await RisingEdge(clk.signal());
  }
};

}  // namespace

TRN_TEST(random_traffic, .timeout_ns = 1e6) {
  auto r = env.rng("knobs");
  FifoEnv f(env, 0.2 + 0.8 * (r.below(100) / 100.0), 0.2 + 0.8 * (r.below(100) / 100.0));
  co_await f.start();
  const auto n = static_cast<unsigned>(scaled(2000));
  auto data = env.rng("data");
  for (unsigned i = 0; i < n; ++i) f.src.send(data.bits(f.model.params().width));
  co_await f.drain(n);
  check(f.lockstep.cycles_compared() > n || !options().lockstep, "lockstep compared only {} cycles",
        f.lockstep.cycles_compared());
}

TRN_TEST(changing_rates, .timeout_ns = 1e6) {
  // Phases of slow producer / slow consumer / both fast, so the FIFO swings between empty and full.
  FifoEnv f(env, 1.0, 1.0);
  co_await f.start();
  auto data = env.rng("data");
  const double phases[][2] = {{1.0, 0.1}, {0.1, 1.0}, {1.0, 1.0}, {0.5, 0.5}, {1.0, 0.0}, {0.0, 1.0}};
  const auto per_phase = static_cast<unsigned>(scaled(100));
  const auto phase_cycles = static_cast<unsigned>(scaled(150));
  std::uint64_t total = 0;
  for (auto& ph : phases) {
    f.src.set_p_valid(ph[0]);
    f.sink.set_p_ready(ph[1]);
    for (unsigned i = 0; i < per_phase; ++i) f.src.send(data.bits(f.model.params().width));
    total += per_phase;
    co_await ClockCycles(f.clk.signal(), phase_cycles);
  }
  f.src.set_p_valid(1.0);
  f.sink.set_p_ready(1.0);
  co_await f.drain(total);
}

TRN_TEST(long_stalls, .timeout_ns = 1e7) {
  // The consumer held off for 400 cycles while the producer keeps offering: the FIFO fills and both
  // ends stall for hundreds of cycles (push full, pop not taken); then a burst at random rates and
  // the next hold, a few times. Scoreboard and lockstep as in every test; nothing lost or reordered.
  FifoEnv f(env, 1.0, 0.0);
  co_await f.start();
  auto data = env.rng("data");
  auto r = env.rng("holds");
  std::uint64_t total = 0;
  for (unsigned round = 0; round < 3; ++round) {
    const unsigned n = f.depth() + 20;
    for (unsigned i = 0; i < n; ++i) f.src.send(data.bits(f.model.params().width));
    total += n;
    f.sink.set_p_ready(0.0);
    co_await ClockCycles(f.clk.signal(), round == 0 ? 400 : static_cast<unsigned>(r.range(f.depth() + 20, 250)));
    check(env.sig("usage_o").get() == f.depth(), "the FIFO is not full after the consumer was held off");
    f.sink.set_p_ready(0.2 + 0.8 * static_cast<double>(r.below(100)) / 100.0);
    co_await f.drain(total);
  }
}

TRN_TEST(fill_then_drain, .timeout_ns = 1e5) {
  FifoEnv f(env, 1.0, 0.0);  // the sink never takes until told
  co_await f.start();
  Signal& push_ready = env.sig("push_ready_o");
  Signal& pop_valid = env.sig("pop_valid_o");
  Signal& usage = env.sig("usage_o");
  check(pop_valid.get() == 0 && usage.get() == 0, "not empty after reset");
  const unsigned d = f.depth();
  for (unsigned i = 0; i < d + 3; ++i) f.src.send(i);
  co_await ClockCycles(f.clk.signal(), d + 10);
  co_await ReadOnly();
  check(usage.get() == d, "usage {} after filling, expected {}", usage.get(), d);
  check(push_ready.get() == 0, "push_ready_o high while full");
  check(f.src.pending() == 3, "{} items accepted past full", 3 - f.src.pending());
  co_await RisingEdge(f.clk.signal());
  f.sink.set_p_ready(1.0);
  co_await f.drain(d + 3);
  co_await ClockCycles(f.clk.signal(), 2);
  co_await ReadOnly();
  check(usage.get() == 0 && pop_valid.get() == 0, "not empty after draining");
}

TRN_TEST(simultaneous_push_pop, .timeout_ns = 1e5) {
  // Both sides always ready: one item per cycle in steady state, through full and empty.
  FifoEnv f(env, 1.0, 1.0);
  co_await f.start();
  const unsigned n = 200;
  for (unsigned i = 0; i < n; ++i) f.src.send(i * 7 + 1);
  const std::uint64_t c0 = f.clk.cycle();
  co_await f.drain(n);
  const std::uint64_t took = f.clk.cycle() - c0;
  check(took <= n + 4, "{} items took {} cycles: not one per cycle", n, took);
}

TRN_TEST(reset_mid_traffic, .timeout_ns = 1e6) {
  FifoEnv f(env, 0.8, 0.6);
  co_await f.start();
  auto data = env.rng("data");
  const std::uint64_t burst = scaled(300);
  for (std::uint64_t i = 0; i < burst; ++i) f.src.send(data.bits(f.model.params().width));
  co_await ClockCycles(f.clk.signal(), static_cast<unsigned>(scaled(100 + env.rng("when").below(50))));
  // Reset with items in flight: the FIFO empties; the scoreboard forgets what it held.
  f.src.flush();
  f.rst.set(0);
  f.expected.clear();
  co_await ClockCycles(f.clk.signal(), 3);
  f.rst.set(1);
  const std::uint64_t before = f.checked;
  for (std::uint64_t i = 0; i < burst; ++i) f.src.send(data.bits(f.model.params().width));
  co_await f.drain(before + burst);
}

TRN_TEST(throughput) {
  // For make bench: steady random traffic for BENCH_CYCLES cycles (default 20000).
  FifoEnv f(env, 0.9, 0.9);
  co_await f.start();
  const std::uint64_t n = bench_cycles(20000);
  auto data = env.rng("data");
  for (std::uint64_t i = 0; i < n; ++i) f.src.send(data.bits(f.model.params().width));
  BenchTimer t;
  co_await ClockCycles(f.clk.signal(), static_cast<unsigned>(n));
  t.report(n);
  check(f.checked > n / 2, "only {} items in {} cycles", f.checked, n);
}

// ---- harness self-tests: the checkers must be able to fail

TRN_TEST(selftest_lockstep_catches_wrong_model, .timeout_ns = 1e5, .expect_fail = true) {
  // A model that is wrong in one bit of one output at one cycle: the lockstep must fail there,
  // naming that signal and that cycle (anything else fails this test).
  InjectGuard wrong_model("usage_o", 37, 0);
  expect_mismatch("usage_o", 37);
  FifoEnv f(env, 0.7, 0.5);
  co_await f.start();
  for (unsigned i = 0; i < 100; ++i) f.src.send(i);
  co_await f.drain(100);
}

TRN_TEST(selftest_watchdog_reports_hang, .timeout_ns = 1e5, .expect_fail = true) {
  // The consumer never takes: after the watchdog's limit the test fails with a hang naming the
  // interface that stalled first (pop: valid high, ready low).
  expect_failure([](const TestFailure& e) {
    auto* h = dynamic_cast<const Hang*>(&e);
    check(h != nullptr, "not a hang");
    check(h->interface == "pop", "the hang names '{}', expected 'pop'", h->interface);
  });
  FifoEnv f(env, 1.0, 0.0, 60);
  co_await f.start();
  for (unsigned i = 0; i < 20; ++i) f.src.send(i);
  co_await f.drain(20);
}

TRN_BENCH_MAIN(Vstream_fifo, "stream_fifo")
