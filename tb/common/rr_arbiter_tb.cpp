// Bench for rtl/common/rr_arbiter.sv: lockstep with trn::common::RrArbiter; a scoreboard that
// checks every item is delivered once, in order per requester, with the right gnt_idx_o, and
// that round-robin fairness holds (a waiting requester sees at most N-1 other grants).
#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "common/rr_arbiter.hpp"
#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/stream.hpp"
#include "harness/verilated_bench.hpp"
#include "rr_arbiter_ports.hpp"

using namespace trn;
using namespace trn::tb;
using trn::common::RrArbiter;

namespace {

struct ArbEnv {
  Env& env;
  Signal& rst;
  Clock clk;
  RrArbiter model;
  Lockstep<RrArbiter> lockstep;
  Watchdog wd;
  std::vector<std::unique_ptr<StreamSource>> srcs;
  StreamSink sink;
  std::vector<std::deque<Bits>> expected;  // per requester, in send order
  std::vector<unsigned> others_while_waiting;
  std::uint64_t checked = 0;
  unsigned n, w;
  TaskGroup tasks;  // last: its tasks stop before the objects above go

  ArbEnv(Env& e, double p_ready)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        model({TRN_PARAM_N, TRN_PARAM_Width}),  // the top's parameters (rr_arbiter_n3: N = 3)
        lockstep(e, clk, model),
        wd(clk),
        sink("gnt", clk, rst, {&e.sig("gnt_valid_o"), &e.sig("gnt_ready_i"), &e.sig("gnt_data_o")}, e.rng("gnt"),
             p_ready, &wd),
        expected(model.params().n),
        others_while_waiting(model.params().n, 0),
        n(model.params().n),
        w(model.params().width) {
    auto knobs = e.rng("knobs");
    for (unsigned i = 0; i < n; ++i) {
      StreamPorts p{{&e.sig("req_valid_i"), i, 1}, {&e.sig("req_ready_o"), i, 1}, {&e.sig("req_data_i"), i * w, w}};
      srcs.push_back(std::make_unique<StreamSource>(fmt::format("req{}", i), clk, rst, p,
                                                    e.rng(fmt::format("req{}", i)),
                                                    0.1 + 0.9 * (knobs.below(100) / 100.0), &wd));
    }
    sink.expecting = [this] {
      for (auto& q : expected)
        if (!q.empty()) return true;
      return false;
    };
    Signal& idx = e.sig("gnt_idx_o");
    Signal& valid = e.sig("req_valid_i");
    sink.on_item = [this, &idx, &valid](const Bits& b, std::uint64_t cyc) {
      const unsigned g = static_cast<unsigned>(idx.get());
      check(g < n, "gnt_idx_o {} out of range at cycle {}", g, cyc);
      check(!expected[g].empty(), "cycle {}: grant to requester {} that sent nothing", cyc, g);
      check(b == expected[g].front(), "cycle {}: requester {} delivered {}, expected {}", cyc, g, b,
            expected[g].front());
      expected[g].pop_front();
      ++checked;
      // Fairness: every other requester that was waiting saw one more grant go elsewhere.
      const std::uint64_t v = valid.get();
      for (unsigned i = 0; i < n; ++i) {
        if (i == g || !((v >> i) & 1)) {
          others_while_waiting[i] = 0;
          continue;
        }
        ++others_while_waiting[i];
        check(others_while_waiting[i] <= n - 1, "cycle {}: requester {} waited through {} grants to others (N={})", cyc,
              i, others_while_waiting[i], n);
      }
    };
  }

  /// Queue `count` items on requester i, tagged (i, sequence) so order and source are checked.
  void send(unsigned i, unsigned count, Rng& data) {
    for (unsigned k = 0; k < count; ++k) {
      Bits b = data.bits(w);
      srcs[i]->send(b);
      expected[i].push_back(b);
    }
  }
  Task<> start() {
    clk.start();
    lockstep.start();
    for (auto& s : srcs) (void)tasks.start(s->run());
    (void)tasks.start(sink.run());
    co_await reset_dut(clk, rst);
  }
  Task<> drain(std::uint64_t total) {
    while (checked < total) co_await RisingEdge(clk.signal());
  }
};

}  // namespace

TRN_TEST(random_traffic, .timeout_ns = 2e6) {
  ArbEnv a(env, 0.2 + 0.8 * (env.rng("ready").below(100) / 100.0));
  co_await a.start();
  auto data = env.rng("data");
  auto counts = env.rng("counts");
  std::uint64_t total = 0;
  for (unsigned i = 0; i < a.n; ++i) {
    const auto c = static_cast<unsigned>(scaled(50 + counts.below(150)));
    a.send(i, c, data);
    total += c;
  }
  co_await a.drain(total);
}

TRN_TEST(all_requesters, .timeout_ns = 1e6) {
  // Every requester always valid, output always ready: grants rotate 0, 1, ..., N-1, 0, ...
  ArbEnv a(env, 1.0);
  for (auto& s : a.srcs) s->set_p_valid(1.0);
  std::vector<unsigned> order;
  Signal& idx = env.sig("gnt_idx_o");
  auto prev = a.sink.on_item;
  a.sink.on_item = [&](const Bits& b, std::uint64_t c) {
    order.push_back(static_cast<unsigned>(idx.get()));
    prev(b, c);
  };
  auto data = env.rng("data");
  for (unsigned i = 0; i < a.n; ++i) a.send(i, 20, data);
  co_await a.start();
  co_await a.drain(20ull * a.n);
  check(order.size() == 20ull * a.n, "{} grants", order.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    check(order[k] == k % a.n, "grant {} went to {}, round robin expects {}", k, order[k], k % a.n);
}

TRN_TEST(grant_held_until_handshake, .timeout_ns = 1e5) {
  // Requester N-1 is granted while the output is not ready; requester 0 (higher priority after
  // reset) arrives meanwhile; the grant must stay with N-1 until its handshake.
  ArbEnv a(env, 0.0);
  auto data = env.rng("data");
  co_await a.start();
  Signal& idx = env.sig("gnt_idx_o");
  Signal& gv = env.sig("gnt_valid_o");
  a.srcs[a.n - 1]->set_p_valid(1.0);
  a.send(a.n - 1, 1, data);
  co_await ClockCycles(a.clk.signal(), 3);
  co_await ReadOnly();
  check(gv.get() == 1 && idx.get() == a.n - 1, "requester {} not granted", a.n - 1);
  co_await RisingEdge(a.clk.signal());
  a.srcs[0]->set_p_valid(1.0);
  a.send(0, 1, data);
  for (int c = 0; c < 5; ++c) {
    co_await RisingEdge(a.clk.signal());
    co_await ReadOnly();
    check(idx.get() == a.n - 1, "grant moved to {} before the handshake", idx.get());
  }
  co_await RisingEdge(a.clk.signal());
  a.sink.set_p_ready(1.0);
  co_await a.drain(2);
}

TRN_TEST(long_stalls, .timeout_ns = 1e7) {
  // The output held not ready for 400 cycles, then for 20..250, with every requester offering: the
  // grant stalls for hundreds of cycles (and must stay where it is, which the lockstep checks
  // every cycle), then drains at a random rate; the scoreboard sees every item in order per requester.
  ArbEnv a(env, 0.0);
  for (auto& s : a.srcs) s->set_p_valid(1.0);
  co_await a.start();
  auto data = env.rng("data");
  auto r = env.rng("holds");
  std::uint64_t total = 0;
  for (unsigned round = 0; round < 3; ++round) {
    for (unsigned i = 0; i < a.n; ++i) a.send(i, 10, data);
    total += 10ull * a.n;
    a.sink.set_p_ready(0.0);
    co_await ClockCycles(a.clk.signal(), round == 0 ? 400 : static_cast<unsigned>(r.range(20, 250)));
    check(env.sig("gnt_valid_o").get() == 1, "no grant offered while the output was held not ready");
    a.sink.set_p_ready(0.2 + 0.8 * static_cast<double>(r.below(100)) / 100.0);
    co_await a.drain(total);
  }
}

TRN_TEST(reset_mid_traffic, .timeout_ns = 2e6) {
  ArbEnv a(env, 0.7);
  co_await a.start();
  auto data = env.rng("data");
  for (unsigned i = 0; i < a.n; ++i) a.send(i, static_cast<unsigned>(scaled(60)), data);
  co_await ClockCycles(a.clk.signal(), static_cast<unsigned>(scaled(40 + env.rng("when").below(40))));
  for (unsigned i = 0; i < a.n; ++i) {
    a.srcs[i]->flush();
    a.expected[i].clear();
  }
  a.rst.set(0);
  std::fill(a.others_while_waiting.begin(), a.others_while_waiting.end(), 0u);  // fairness restarts
  co_await ClockCycles(a.clk.signal(), 2);
  a.rst.set(1);
  std::uint64_t before = a.checked;
  const auto after = static_cast<unsigned>(scaled(30));
  for (unsigned i = 0; i < a.n; ++i) a.send(i, after, data);
  co_await a.drain(before + std::uint64_t{after} * a.n);
}

TRN_TEST(throughput) {
  // For make bench: every requester busy for BENCH_CYCLES cycles (default 20000).
  ArbEnv a(env, 0.9);
  co_await a.start();
  const std::uint64_t n = bench_cycles(20000);
  auto data = env.rng("data");
  for (unsigned i = 0; i < a.n; ++i) a.send(i, static_cast<unsigned>(n / a.n + 1), data);
  BenchTimer t;
  co_await ClockCycles(a.clk.signal(), static_cast<unsigned>(n));
  t.report(n);
  check(a.checked > n / 2, "only {} grants in {} cycles", a.checked, n);
}

TRN_BENCH_MAIN(Vrr_arbiter, TRN_BENCH_NAME)
