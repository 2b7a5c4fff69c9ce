// Boost.Test units of the harness: scheduler phases and trigger order, First / Combine,
// with_timeout, kill, Event / Lock, clocks and edges, results.xml, and the lockstep and
// watchdog checkers failing on a known-bad DUT. Runs against a small C++ "DUT" (no Verilator).
#define BOOST_TEST_MODULE harness
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/clock.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/regression.hpp"
#include "harness/replay.hpp"
#include "harness/watchdog.hpp"
#include "harness/xunit.hpp"

using namespace trn;
using namespace trn::tb;

namespace {

/// A D flip-flop with an enable, as a stand-in DUT: q <= d on the rising edge of clk.
struct FakeDut : SimModel {
  std::uint8_t clk = 0, d = 0, q = 0;
  std::uint8_t prev = 0;
  std::uint64_t edges = 0, evals = 0;
  void eval() override {
    ++evals;
    if (clk && !prev) {
      q = d;
      ++edges;
    }
    prev = clk;
  }
  void set_time(std::uint64_t) override {}
};

/// The model of FakeDut for the lockstep: q is registered. `lag` makes it wrong on purpose.
struct FlopModel {
  struct In {
    std::uint64_t d = 0;
  };
  struct Out {
    std::uint64_t q = 0;
  };
  std::uint64_t q_q = 0, old_q = 0;
  bool wrong = false;  // a known-bad model: q lags by a second cycle
  In make_in() const { return {}; }
  Out make_out() const { return {}; }
  void eval(const In&, Out& o) const { o.q = wrong ? old_q : q_q; }
  void tick(const In& i) {
    old_q = q_q;
    q_q = i.d;
  }
  template <class V>
  void visit_in(In& i, V&& v) const {
    v("d", i.d, 8);
  }
  template <class V>
  void visit_out(Out& o, V&& v) const {
    v("q", o.q, 8);
  }
};

/// A model that describes q one bit wider than the DUT has it.
struct WideModel : FlopModel {
  template <class V>
  void visit_out(Out& o, V&& v) const {
    v("q", o.q, 9);
  }
};

/// A typed interface as scripts/gen_pkg.py generates one: 8 bits, hi (bits 7:4) then lo (3:0).
struct Nibbles {
  static constexpr unsigned kWidth = 8;
  std::uint8_t hi{}, lo{};
  template <class V>
  void visit(V&& v) {
    v("hi", hi, 4u, 4u);
    v("lo", lo, 4u, 0u);
  }
  trn::Bits pack() const { return trn::Bits(8, (hi << 4) | lo); }
  static Nibbles unpack(const trn::Bits& b) {
    return {static_cast<std::uint8_t>(b.slice(4, 4)), static_cast<std::uint8_t>(b.slice(0, 4))};
  }
};

/// A 4-bit typed interface with one field, for a packed array of two of them (`Nib [1:0] q`).
struct Nib {
  static constexpr unsigned kWidth = 4;
  std::uint8_t v{};
  template <class V>
  void visit(V&& f) {
    f("v", v, 4u, 0u);
  }
  void pack(trn::Bits& to, unsigned lsb = 0) const { to.set_slice(lsb, 4, v); }
  trn::Bits pack() const { return trn::Bits(4, v); }
  static Nib unpack(const trn::Bits& b, unsigned lsb = 0) { return {static_cast<std::uint8_t>(b.slice(lsb, 4))}; }
};

/// The flop described with typed ports of type T: d and q as Nibbles (bound field by field), or as
/// an array of two Nib (element by element: q[1].v is bits 7:4). `corrupt`, when set, changes the
/// output the model computes: a wrong model.
template <class T>
struct TypedFlopModel {
  explicit TypedFlopModel(T zero = T{}) : zero_(zero), q_q(zero) {}
  struct In {
    T d;
  };
  struct Out {
    T q;
  };
  T zero_, q_q;
  std::function<void(T&)> corrupt;
  In make_in() const { return {zero_}; }
  Out make_out() const { return {zero_}; }
  void eval(const In&, Out& o) const {
    o.q = q_q;
    if (corrupt) corrupt(o.q);
  }
  void tick(const In& i) { q_q = i.d; }
  template <class V>
  void visit_in(In& i, V&& v) const {
    v("d", i.d, 8);
  }
  template <class V>
  void visit_out(Out& o, V&& v) const {
    v("q", o.q, 8);
  }
};
using NibblesFlop = TypedFlopModel<Nibbles>;
/// The array form starts as two zero elements.
struct ArrayFlopModel : TypedFlopModel<std::vector<Nib>> {
  ArrayFlopModel() : TypedFlopModel(std::vector<Nib>(2)) {}
};

struct Fixture {
  FakeDut dut;
  PortTable ports;
  Fixture() {
    ports.add("clk", Dir::In, 1, &dut.clk);
    ports.add("d", Dir::In, 8, &dut.d);
    ports.add("q", Dir::Out, 8, &dut.q);
    Scheduler::get().attach(&dut);
  }
  ~Fixture() { Scheduler::get().attach(nullptr); }
  std::exception_ptr run(Task<> t, std::uint64_t timeout_ps = 0) {
    return Scheduler::get().run_test(std::move(t), timeout_ps);
  }
};

std::string what(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
  return "?";
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(scheduler, Fixture)

BOOST_AUTO_TEST_CASE(phases_within_a_time_step) {
  std::vector<std::string> log;
  auto& s = Scheduler::get();
  auto x = [&]() -> Task<> {
    co_await Timer(5);
    log.push_back("x-timer");
    co_await ReadWrite();
    log.push_back("x-readwrite");
    co_await ReadOnly();
    log.push_back("x-readonly");
    co_await NextTimeStep();
    log.push_back("x-next@" + std::to_string(s.now()));
  };
  auto y = [&]() -> Task<> {
    co_await Timer(5);
    log.push_back("y-timer");
    co_await ReadOnly();
    log.push_back("y-readonly");
  };
  auto main = [&]() -> Task<> {
    (void)start_soon(x());
    (void)start_soon(y());
    co_await Timer(20);
  };
  const std::uint64_t t0 = s.now();
  BOOST_TEST(!run(main()));
  std::vector<std::string> want{"x-timer",    "y-timer",    "x-readwrite",
                                "y-readonly", "x-readonly", "x-next@" + std::to_string(t0 + 20000)};
  BOOST_TEST(log == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(write_in_readonly_is_an_error) {
  auto main = [&]() -> Task<> {
    co_await ReadOnly();
    ports.at("d").set(1);
  };
  auto e = run(main());
  BOOST_REQUIRE(e);
  BOOST_TEST(what(e).find("ReadOnly") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(first_and_combine) {
  auto& s = Scheduler::get();
  int which = -1;
  std::uint64_t t_first = 0, t_all = 0, t0 = 0;
  auto main = [&]() -> Task<> {
    t0 = s.now();
    which = co_await First(Timer(5), Timer(3), Timer(9));
    t_first = s.now() - t0;
    co_await Combine(Timer(5), Timer(2));
    t_all = s.now() - t0;
  };
  BOOST_TEST(!run(main()));
  BOOST_TEST(which == 1);
  BOOST_TEST(t_first == 3000u);
  BOOST_TEST(t_all == 8000u);
}

BOOST_AUTO_TEST_CASE(first_does_not_fire_twice) {
  // The losing branch of a First must not resume the coroutine later.
  int resumed = 0;
  auto main = [&]() -> Task<> {
    co_await First(Timer(1), Timer(2));
    ++resumed;
    co_await Timer(10);
    ++resumed;
  };
  BOOST_TEST(!run(main()));
  BOOST_TEST(resumed == 2);
}

BOOST_AUTO_TEST_CASE(with_timeout_fires_and_passes) {
  bool timed_out = false, ok = false;
  auto slow = [&]() -> Task<int> {
    co_await Timer(50);
    co_return 7;
  };
  auto fast = [&]() -> Task<int> {
    co_await Timer(2);
    co_return 9;
  };
  auto main = [&]() -> Task<> {
    try {
      co_await with_timeout(Timer(10), 5);
    } catch (const SimTimeoutError&) {
      timed_out = true;
    }
    co_await with_timeout(Timer(3), 5);
    int v = co_await with_timeout(fast(), 5);
    ok = v == 9;
    bool slow_timed_out = false;
    try {
      (void)co_await with_timeout(slow(), 5);
    } catch (const SimTimeoutError&) {
      slow_timed_out = true;
    }
    check(slow_timed_out, "slow task did not time out");
  };
  auto e = run(main());
  BOOST_TEST(!e, (e ? what(e) : ""));
  BOOST_TEST(timed_out);
  BOOST_TEST(ok);
}

BOOST_AUTO_TEST_CASE(kill_stops_a_task) {
  int ticks = 0;
  bool done_after_kill = false;
  auto ticker = [&]() -> Task<> {
    for (;;) {
      co_await Timer(1);
      ++ticks;
    }
  };
  auto main = [&]() -> Task<> {
    Task<> t = start_soon(ticker());
    co_await Timer(5);
    co_await ReadOnly();
    t.kill();
    done_after_kill = t.done();
    int at_kill = ticks;
    co_await Timer(10);
    check(ticks == at_kill, "killed task still ran: {} -> {}", at_kill, ticks);
  };
  auto e = run(main());
  BOOST_TEST(!e, (e ? what(e) : ""));
  BOOST_TEST(ticks == 5);
  BOOST_TEST(done_after_kill);
}

BOOST_AUTO_TEST_CASE(join_and_result) {
  auto child = []() -> Task<int> {
    co_await Timer(4);
    co_return 42;
  };
  int got = 0;
  auto main = [&]() -> Task<> {
    Task<int> t = start_soon(child());
    check(!t.done(), "done too early");
    got = co_await t;
    check(t.done() && t.result() == 42, "result");
  };
  BOOST_TEST(!run(main()));
  BOOST_TEST(got == 42);
}

BOOST_AUTO_TEST_CASE(exception_in_started_task_fails_the_test) {
  auto bad = []() -> Task<> {
    co_await Timer(2);
    throw TestFailure("boom in a forked task");
  };
  auto main = [&]() -> Task<> {
    (void)start_soon(bad());
    co_await Timer(100);
  };
  auto e = run(main());
  BOOST_REQUIRE(e);
  BOOST_TEST(what(e) == "boom in a forked task");
}

BOOST_AUTO_TEST_CASE(event_wakes_all_waiters) {
  Event ev("go");
  std::vector<int> woke;
  auto waiter = [&](int id) -> Task<> {
    co_await ev.wait();
    woke.push_back(id);
  };
  auto main = [&]() -> Task<> {
    (void)start_soon(waiter(1));
    (void)start_soon(waiter(2));
    co_await Timer(3);
    check(woke.empty(), "woke before set");
    ev.set();
    co_await Timer(1);
    co_await ev.wait();  // already set: no wait
  };
  BOOST_TEST(!run(main()));
  BOOST_TEST(woke == (std::vector<int>{1, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(lock_is_exclusive_and_fifo) {
  Lock lock("bus");
  std::vector<std::string> log;
  auto user = [&](std::string id) -> Task<> {
    co_await lock.acquire();
    log.push_back(id + "+");
    co_await Timer(5);
    log.push_back(id + "-");
    lock.release();
  };
  auto main = [&]() -> Task<> {
    Task<> a = start_soon(user("a"));
    Task<> b = start_soon(user("b"));
    Task<> c = start_soon(user("c"));
    co_await Combine(Join(a), Join(b), Join(c));
  };
  BOOST_TEST(!run(main()));
  BOOST_TEST(log == (std::vector<std::string>{"a+", "a-", "b+", "b-", "c+", "c-"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(clock_edges_and_cycles) {
  auto& s = Scheduler::get();
  std::uint64_t rises = 0, falls = 0, span = 0;
  auto main = [&]() -> Task<> {
    Clock clk(ports.at("clk"), 10);
    clk.start();
    const std::uint64_t e0 = dut.edges;
    co_await RisingEdge(ports.at("clk"));
    ++rises;
    co_await FallingEdge(ports.at("clk"));
    ++falls;
    const std::uint64_t t0 = s.now();
    co_await ClockCycles(ports.at("clk"), 10);
    span = s.now() - t0;
    check(dut.edges - e0 == 11, "{} DUT edges", dut.edges - e0);
    // Inputs written after an edge are sampled at the next one.
    ports.at("d").set(0x5a);
    co_await RisingEdge(ports.at("clk"));
    co_await ReadOnly();
    check(dut.q == 0x5a, "q = {}", dut.q);
  };
  auto e = run(main());
  BOOST_TEST(!e, (e ? what(e) : ""));
  BOOST_TEST(rises == 1u);
  BOOST_TEST(falls == 1u);
  BOOST_TEST(span == 95000u);  // from a falling edge to the 10th rising edge after it
}

BOOST_AUTO_TEST_CASE(evaluates_the_dut_only_after_a_write) {
  // The scheduler evaluates the DUT when a port was written since its last evaluation, and only
  // then: a time step in which nothing is written costs no evaluation, and a write (data or
  // clock) is evaluated before anything reads the DUT again.
  std::uint64_t quiet = 0, after_write = 0;
  auto main = [&]() -> Task<> {
    co_await Timer(10);
    const std::uint64_t n0 = dut.evals;
    co_await Timer(1000);
    quiet = dut.evals - n0;
    ports.at("d").set(0x3c);
    co_await Timer(10);
    after_write = dut.evals - n0;
    ports.at("clk").set(1);
    co_await ReadOnly();
    check(dut.q == 0x3c, "the clock edge written was not evaluated: q = {}", dut.q);
  };
  auto e = run(main());
  BOOST_TEST(!e, (e ? what(e) : ""));
  BOOST_TEST(quiet == 0u);
  BOOST_TEST(after_write == 1u);
}

BOOST_AUTO_TEST_CASE(test_timeout) {
  auto main = [&]() -> Task<> { co_await Timer(1000); };
  auto e = run(main(), 50000);
  BOOST_REQUIRE(e);
  BOOST_TEST(what(e).find("timed out") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(waiting_on_nothing_is_reported) {
  Event never;
  auto main = [&]() -> Task<> { co_await never.wait(); };
  auto e = run(main());
  BOOST_REQUIRE(e);
  BOOST_TEST(what(e).find("can never fire") != std::string::npos);
}

// ---- checkers fed a known-bad DUT

namespace {
Task<> drive_random(Clock& clk, Signal& d, int cycles) {
  Rng r(1, "d");
  for (int i = 0; i < cycles; ++i) {
    co_await RisingEdge(clk.signal());
    d.set(r.below(256));
  }
}
/// Clock, lockstep of `m` against the flop, and `cycles` cycles of random d.
template <class M>
Task<> flop_lockstep(PortTable& ports, M& m, int cycles, std::uint64_t* compared = nullptr) {
  Env env(ports, *cfg::find("tiny"), "flop_lockstep");
  Clock clk(ports.at("clk"), 10);
  Lockstep<M> ls(env, clk, m);
  clk.start();
  ls.start();
  co_await drive_random(clk, ports.at("d"), cycles);
  if (compared) *compared = ls.cycles_compared();
}
}  // namespace

namespace {
/// The lockstep mismatch that `e` carries; anything else fails the test.
LockstepMismatch mismatch_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const LockstepMismatch& mm) {
    return mm;
  } catch (const std::exception& x) {
    BOOST_FAIL("expected a lockstep mismatch, got: " << x.what());
  }
  throw std::logic_error("unreachable");
}
/// Run `m` in lockstep with a DUT in the state a fresh model expects: the mismatch it must end in.
template <class M>
LockstepMismatch expect_mismatch(Fixture& f, M& m, int cycles) {
  f.dut.q = f.dut.d = 0;
  auto e = f.run(flop_lockstep(f.ports, m, cycles));
  BOOST_REQUIRE(e);
  return mismatch_of(e);
}
}  // namespace

BOOST_AUTO_TEST_CASE(lockstep_passes_a_correct_model) {
  FlopModel m;
  std::uint64_t compared = 0;
  auto e = run(flop_lockstep(ports, m, 200, &compared));
  BOOST_TEST(!e, (e ? what(e) : ""));
  BOOST_TEST(compared >= 199u);
}

BOOST_AUTO_TEST_CASE(lockstep_catches_a_wrong_model) {
  FlopModel m;
  m.wrong = true;
  auto e = run(flop_lockstep(ports, m, 200));
  BOOST_REQUIRE(e);
  try {
    std::rethrow_exception(e);
  } catch (const LockstepMismatch& mm) {
    BOOST_TEST(mm.signal == "q");
    BOOST_TEST(mm.cycle <= 3u);  // q differs as soon as d has changed twice
    BOOST_TEST(std::string(mm.what()).find("reproduce:") != std::string::npos);
    BOOST_TEST(std::string(mm.what()).find("expected (model)") != std::string::npos);
  }
}

namespace {
/// A fresh flop as a Bench, for replays; `mask` makes it a different DUT (q = d ^ mask).
struct FlopBench : Bench {
  FakeDut dut;
  PortTable p;
  std::uint8_t mask;
  explicit FlopBench(std::uint8_t m = 0) : mask(m) {
    p.add("clk", Dir::In, 1, &dut.clk);
    p.add("d", Dir::In, 8, &dut.d);
    p.add("q", Dir::Out, 8, &dut.q);
  }
  void eval() override {
    const bool edge = dut.clk && !dut.prev;
    dut.eval();
    if (edge) dut.q ^= mask;
  }
  void set_time(std::uint64_t) override {}
  PortTable& ports() override { return p; }
  void open_waves(const std::string&) override {}
  void close() override {}
};
/// A model whose copies share a tick count: correct while it is recorded (at most `limit` ticks in
/// all), wrong in a replay that ticks it again — a model a replay cannot reproduce.
struct SharedCountModel : FlopModel {
  static inline std::uint64_t ticks = 0;
  std::uint64_t limit = 0;
  void eval(const In&, Out& o) const { o.q = ticks > limit ? q_q ^ 1 : q_q; }
  void tick(const In& i) {
    ++ticks;
    FlopModel::tick(i);
  }
};
/// BENCH_REPLAY=1 for the life of the object.
struct ReplayOn {
  RunOptions saved = options();
  ReplayOn() {
    mutable_options().replay = true;
    replay_log().clear();
  }
  ~ReplayOn() {
    mutable_options() = saved;
    replay_log().clear();
  }
};
}  // namespace

BOOST_AUTO_TEST_CASE(replay_reproduces_the_recorded_run) {
  ReplayOn on;
  FlopModel m;
  std::uint64_t compared = 0;
  auto e = run(flop_lockstep(ports, m, 300, &compared));
  BOOST_REQUIRE(!e);
  FlopBench fresh;
  const auto r = run_replay(fresh);
  BOOST_REQUIRE(r.has_value());
  BOOST_TEST(r->cycles == compared);
  BOOST_TEST(r->rtl_same);
  BOOST_TEST(r->model_same);
  BOOST_TEST(fresh.dut.edges == compared);  // the fresh top took every recorded edge
}

BOOST_AUTO_TEST_CASE(replay_reports_a_top_that_does_not_reproduce) {
  ReplayOn on;
  FlopModel m;
  BOOST_REQUIRE(!run(flop_lockstep(ports, m, 300)));
  FlopBench other(0x10);  // not the DUT that was recorded
  const auto r = run_replay(other);
  BOOST_REQUIRE(r.has_value());
  BOOST_TEST(!r->rtl_same);
  BOOST_TEST(r->model_same);
}

BOOST_AUTO_TEST_CASE(replay_reports_a_model_that_does_not_reproduce) {
  ReplayOn on;
  SharedCountModel m;
  SharedCountModel::ticks = 0;
  m.limit = 400;                                      // about 300 ticks recorded; the replay goes past 400
  BOOST_REQUIRE(!run(flop_lockstep(ports, m, 300)));  // correct while recorded
  FlopBench fresh;
  const auto r = run_replay(fresh);
  BOOST_REQUIRE(r.has_value());
  BOOST_TEST(r->rtl_same);
  BOOST_TEST(!r->model_same);
}

BOOST_AUTO_TEST_CASE(replay_needs_a_recording) {
  replay_log().clear();
  FlopModel m;
  BOOST_REQUIRE(!run(flop_lockstep(ports, m, 50)));  // BENCH_REPLAY unset: nothing recorded
  FlopBench fresh;
  BOOST_TEST(!run_replay(fresh).has_value());
}

BOOST_AUTO_TEST_CASE(lockstep_injected_bit_flip_names_signal_and_cycle) {
  FlopModel m;
  InjectGuard g("q", 25, 3);
  auto e = run(flop_lockstep(ports, m, 100));
  BOOST_REQUIRE(e);
  try {
    std::rethrow_exception(e);
  } catch (const LockstepMismatch& mm) {
    BOOST_TEST(mm.signal == "q");
    BOOST_TEST(mm.cycle == 25u);
  }
}

BOOST_AUTO_TEST_CASE(lockstep_binds_typed_ports_field_by_field) {
  NibblesFlop good;
  std::uint64_t compared = 0;
  auto e = run(flop_lockstep(ports, good, 200, &compared));
  BOOST_TEST(!e, (e ? what(e) : ""));
  BOOST_TEST(compared >= 199u);
  // A model wrong in one field: the mismatch names the port and the field, and the history shows
  // the fields of the typed port.
  NibblesFlop bad;
  bad.corrupt = [](Nibbles& q) {
    if (q.lo == 5) q.lo = 6;
  };
  const LockstepMismatch mm = expect_mismatch(*this, bad, 400);
  BOOST_TEST(mm.signal == "q.lo");
  BOOST_TEST(std::string(mm.what()).find("q.hi=0x") != std::string::npos);
  // An injected flip in a field is caught there.
  InjectGuard g("q.hi", 40, 1);
  NibblesFlop fresh;
  const LockstepMismatch inj = expect_mismatch(*this, fresh, 100);
  BOOST_TEST(inj.signal == "q.hi");
  BOOST_TEST(inj.cycle == 40u);
}

BOOST_AUTO_TEST_CASE(lockstep_binds_arrays_of_typed_ports_element_by_element) {
  ArrayFlopModel good;
  auto e = run(flop_lockstep(ports, good, 200));
  BOOST_TEST(!e, (e ? what(e) : ""));
  // wrong in element 1 only: named q[1].v
  ArrayFlopModel bad;
  bad.corrupt = [](std::vector<Nib>& q) {
    if (q[1].v == 9) q[1].v = 3;
  };
  BOOST_TEST(expect_mismatch(*this, bad, 400).signal == "q[1].v");
  // an injected flip in element 0 is caught there
  InjectGuard g("q[0].v", 30, 2);
  ArrayFlopModel fresh;
  const LockstepMismatch inj = expect_mismatch(*this, fresh, 100);
  BOOST_TEST(inj.signal == "q[0].v");
  BOOST_TEST(inj.cycle == 30u);
}

BOOST_AUTO_TEST_CASE(lockstep_rejects_unbound_and_misfit_ports) {
  // A model whose port is wider than the DUT's: binding fails with a clear error.
  WideModel m;
  auto e = run(flop_lockstep(ports, m, 1));
  BOOST_REQUIRE(e);
  BOOST_TEST(what(e).find("9 bits in the model and 8 in the DUT") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(watchdog_reports_the_stalled_interface) {
  auto main = [&]() -> Task<> {
    Clock clk(ports.at("clk"), 10);
    Watchdog wd(clk, 30);
    wd.add_interface(
        "quiet", [] { return false; }, [] { return false; });
    wd.add_interface(
        "stuck", [] { return true; }, [] { return true; });
    clk.start();
    co_await ClockCycles(clk.signal(), 100);
  };
  auto e = run(main());
  BOOST_REQUIRE(e);
  try {
    std::rethrow_exception(e);
  } catch (const Hang& h) {
    BOOST_TEST(h.interface == "stuck");
    BOOST_TEST(h.cycle <= 31u);
  }
}

BOOST_AUTO_TEST_CASE(watchdog_quiet_when_idle_or_progressing) {
  auto main = [&]() -> Task<> {
    Clock clk(ports.at("clk"), 10);
    Watchdog wd(clk, 10);
    auto id = wd.add_interface(
        "busy", [] { return true; }, [] { return true; });
    wd.add_interface(
        "idle", [] { return false; }, [] { return false; });
    clk.start();
    for (int i = 0; i < 100; ++i) {
      co_await RisingEdge(clk.signal());
      if (i % 5 == 0) wd.progress(id);
    }
  };
  auto e = run(main());
  BOOST_TEST(!e, (e ? what(e) : ""));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(results_xml_has_cocotb_form) {
  std::vector<TestResult> r(3);
  r[0] = {"t_pass", "bench", "a.cpp", 10, TestResult::Status::Pass, 0.5, 100.0, ""};
  r[1] = {"t_fail", "bench", "a.cpp", 20, TestResult::Status::Fail, 0.25, 50.0, "lockstep mismatch <q> & more"};
  r[2] = {"t_skip", "bench", "a.cpp", 30, TestResult::Status::Skip, 0, 0, ""};
  const std::string path = "harness_test_results.xml";
  write_results_xml(path, 1234, r);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string x = ss.str();
  std::remove(path.c_str());
  BOOST_TEST(x.find("<testsuites name=\"results\">") != std::string::npos);
  BOOST_TEST(x.find("<testsuite name=\"all\" package=\"all\">") != std::string::npos);
  BOOST_TEST(x.find("<property name=\"random_seed\" value=\"1234\" />") != std::string::npos);
  BOOST_TEST(x.find("<testcase name=\"t_pass\" classname=\"bench\" file=\"a.cpp\" lineno=\"10\" time=\"0.500000\" "
                    "sim_time_ns=\"100.000\" ratio_time=\"200.000\" />") != std::string::npos);
  BOOST_TEST(x.find("<failure message=\"Test failed with RANDOM_SEED=1234\">lockstep mismatch &lt;q&gt; &amp; more"
                    "</failure>") != std::string::npos);
  BOOST_TEST(x.find("<skipped />") != std::string::npos);
  const std::string table = summary_table(r);
  BOOST_TEST(table.find("TESTS=3 PASS=1 FAIL=1 SKIP=1") != std::string::npos);
  BOOST_TEST(table.find("bench.t_fail") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(functional_coverage_counts_declared_bins_only) {
  auto& p = cover_point("test.mode", {"a", "b", "c"});
  p.hit("a");
  p.hit("a");
  p.hit_index(2);
  BOOST_TEST(p.counts() == std::vector<std::uint64_t>({2, 0, 1}), boost::test_tools::per_element());
  BOOST_CHECK_THROW(p.hit("d"), HarnessError);  // a typo cannot hide a hole
  BOOST_TEST(&cover_point("test.mode", {"a", "b", "c"}) == &p);
  BOOST_CHECK_THROW(cover_point("test.mode", {"a", "b"}), HarnessError);
  auto& x = cover_cross("test.cross", {{"waw", "sow"}, {"in", "out"}});
  BOOST_TEST(x.bins() == std::vector<std::string>({"waw*in", "waw*out", "sow*in", "sow*out"}),
             boost::test_tools::per_element());
  x.hit({"sow", "in"});
  BOOST_TEST(x.counts()[2] == 1u);
  cover_range("test.len", 1, 1, 64);
  cover_range("test.len", 64, 1, 64);
  cover_level("test.fill", 0, 4);
  cover_level("test.fill", 2, 4);
  BOOST_TEST(cover_point("test.len", {"min", "between", "max"}).counts() == std::vector<std::uint64_t>({1, 0, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(cover_point("test.fill", {"empty", "between", "full"}).counts() == std::vector<std::uint64_t>({1, 1, 0}),
             boost::test_tools::per_element());
  const std::string path = "harness_test_fcov.json";
  write_coverage(path);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::remove(path.c_str());
  BOOST_TEST(ss.str().find("\"test.mode\": {\"bins\": {\"a\": 2, \"b\": 0, \"c\": 1}}") != std::string::npos, ss.str());
  BOOST_TEST(ss.str().find("\"sow*in\": 1") != std::string::npos);
}
