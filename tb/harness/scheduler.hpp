// trn::tb::Scheduler — the event loop that runs coroutines against a model of the DUT, with
// cocotb's phases inside each time step:
//
//   1. timers due now: Clock edges first (each rising edge first runs the clock's pre-edge
//      hooks — lockstep, monitors — on the settled values of the previous step), then the DUT is
//      evaluated, then the waiting coroutines (Timer, NextTimeStep) are resumed;
//   2. delta cycles: evaluate, fire RisingEdge / FallingEdge / Edge / ClockCycles waiters, run
//      them, until nothing changes; then ReadWrite waiters (writes allowed) and again;
//   3. ReadOnly: values are settled; waiters may read but not write;
//   4. the waveform is dumped for this time.
//
// Time is an integer in picoseconds. Tests run one at a time; at the end of a test every task
// it started is killed and every pending trigger dropped (the DUT keeps its state, as in cocotb).
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "harness/signal.hpp"
#include "harness/task.hpp"

namespace trn::tb {

/// What the scheduler needs of a DUT: evaluation, time and waveform dumping.
class SimModel {
 public:
  virtual ~SimModel() = default;
  virtual void eval() = 0;
  virtual void set_time(std::uint64_t ps) = 0;
  virtual void dump(std::uint64_t /*ps*/) {}
};

/// One suspended coroutine (or one branch of a First / Combine).
struct Waiter {
  enum class Kind { Leaf, First, All };
  std::coroutine_handle<> h;
  std::shared_ptr<CoreBase> root;  ///< the root task it belongs to (killed roots are skipped)
  Kind kind = Kind::Leaf;
  bool fired = false;
  int which = -1;     ///< First: the index of the trigger that fired
  int remaining = 0;  ///< All: branches still to fire
  std::shared_ptr<Waiter> parent;
  int index = 0;  ///< position in the parent
  /// True if this waiter, or a First / Combine it is a branch of, already fired.
  bool stale() const {
    for (const Waiter* w = this; w; w = w->parent.get())
      if (w->fired) return true;
    return false;
  }
};

class Scheduler {
 public:
  static Scheduler& get();

  void attach(SimModel* dut) {
    dut_ = dut;
    Signal::written = true;
  }
  SimModel* dut() const { return dut_; }
  std::uint64_t now() const { return now_; }
  /// The time of the previous time step (where the values compared at an edge were settled).
  std::uint64_t previous_step() const { return prev_step_; }
  bool in_readonly() const { return Signal::readonly_phase; }

  // ---- used by triggers and tasks
  WaiterPtr make_waiter(std::coroutine_handle<> h);
  void fire(const WaiterPtr& w);
  void add_timer(std::uint64_t at, WaiterPtr w);
  /// A native callback at time `at` (clocks), run before the waiters of that time.
  void add_callback(std::uint64_t at, std::function<void()> fn);
  void add_readonly(WaiterPtr w) { ro_.push_back(std::move(w)); }
  void add_readwrite(WaiterPtr w);
  void add_next_time_step(WaiterPtr w) { nts_.push_back(std::move(w)); }
  enum class EdgeKind { Rising, Falling, Any };
  void add_edge(const Signal& s, EdgeKind k, WaiterPtr w, unsigned count = 1);

  void start_root(const std::shared_ptr<CoreBase>& t);
  void kill_root(const std::shared_ptr<CoreBase>& t);
  void join(const std::shared_ptr<CoreBase>& t, std::coroutine_handle<> h);
  void root_done(CoreBase* core);

  /// End the running test with this exception (from hooks: lockstep, watchdog, monitors).
  /// The first one wins.
  void fail(std::exception_ptr e);
  bool failed() const { return failure_ != nullptr; }
  std::uint64_t failure_marker_time() const { return failure_marker_; }
  /// Where a failure about to be reported is best seen in a waveform (default: its time).
  void set_failure_marker(std::uint64_t ps);

  /// Run `main` to completion (or failure, or `timeout_ps` of simulated time if non-zero).
  /// Returns the exception that ended the test, or nullptr if it passed.
  std::exception_ptr run_test(Task<> main, std::uint64_t timeout_ps);

  /// Drop every task, trigger and timer (end of a test).
  void clear();

 private:
  struct TimerEntry {
    std::uint64_t at;
    std::uint64_t seq;
    WaiterPtr w;               // either a waiter ...
    std::function<void()> fn;  // ... or a native callback
    bool operator>(const TimerEntry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct EdgeWait {
    WaiterPtr w;
    EdgeKind kind;
    unsigned count;
  };
  struct Watch {
    const Signal* sig;
    std::uint64_t last;
    Bits last_wide;
    std::vector<EdgeWait> waits;
  };

  void settle();
  void eval_and_detect();
  void run_ready();
  void resume(const WaiterPtr& w);
  void reap();

  SimModel* dut_ = nullptr;
  std::uint64_t now_ = 0, prev_step_ = 0, seq_ = 0;
  std::priority_queue<TimerEntry, std::vector<TimerEntry>, std::greater<>> timers_;
  std::deque<WaiterPtr> ready_;
  std::vector<WaiterPtr> ro_, rw_, nts_;
  std::vector<Watch> watches_;
  std::vector<std::shared_ptr<CoreBase>> roots_;
  std::vector<std::shared_ptr<CoreBase>> finished_;  ///< roots whose frames are to be freed
  std::shared_ptr<CoreBase> current_;
  std::shared_ptr<CoreBase> main_;
  std::exception_ptr failure_;
  std::uint64_t failure_marker_ = 0;
  bool marker_set_ = false;
};

}  // namespace trn::tb
