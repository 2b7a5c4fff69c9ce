// Triggers, after cocotb.triggers: Timer, RisingEdge, FallingEdge, Edge, ReadOnly, ReadWrite,
// NextTimeStep, ClockCycles, Join, First, Combine, Event, Lock, with_timeout.
//
// Every trigger is awaitable (`co_await RisingEdge(clk)`) and can be a branch of First or
// Combine. First returns the index of the branch that fired first.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "harness/scheduler.hpp"

namespace trn::tb {

enum class Unit : std::uint64_t { ps = 1, ns = 1000, us = 1000000, ms = 1000000000 };
constexpr std::uint64_t to_ps(std::uint64_t v, Unit u) { return v * static_cast<std::uint64_t>(u); }

/// Turns a trigger type (with prime(Scheduler&, const WaiterPtr&) and result(const Waiter&))
/// into an awaitable.
template <class T>
struct TriggerAwaiter {
  T t;
  WaiterPtr w;
  bool await_ready() { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    auto& s = Scheduler::get();
    w = s.make_waiter(h);
    t.prime(s, w);
  }
  auto await_resume() { return t.result(*w); }
};

template <class D>
struct TriggerBase {
  void result(const Waiter&) const {}
  auto operator co_await() const& { return TriggerAwaiter<D>{static_cast<const D&>(*this), nullptr}; }
};

/// Fires after `amount` of simulated time (> 0).
struct Timer : TriggerBase<Timer> {
  std::uint64_t ps;
  explicit Timer(std::uint64_t amount, Unit u = Unit::ns) : ps(to_ps(amount, u)) {
    if (ps == 0) throw HarnessError("Timer of zero time");
  }
  void prime(Scheduler& s, const WaiterPtr& w) const { s.add_timer(s.now() + ps, w); }
};

struct RisingEdge : TriggerBase<RisingEdge> {
  const Signal* sig;
  explicit RisingEdge(const Signal& s) : sig(&s) {}
  void prime(Scheduler& s, const WaiterPtr& w) const { s.add_edge(*sig, Scheduler::EdgeKind::Rising, w); }
};

struct FallingEdge : TriggerBase<FallingEdge> {
  const Signal* sig;
  explicit FallingEdge(const Signal& s) : sig(&s) {}
  void prime(Scheduler& s, const WaiterPtr& w) const { s.add_edge(*sig, Scheduler::EdgeKind::Falling, w); }
};

/// Any change of the signal's value.
struct Edge : TriggerBase<Edge> {
  const Signal* sig;
  explicit Edge(const Signal& s) : sig(&s) {}
  void prime(Scheduler& s, const WaiterPtr& w) const { s.add_edge(*sig, Scheduler::EdgeKind::Any, w); }
};

/// Fires after `n` rising (or falling) edges of the signal.
struct ClockCycles : TriggerBase<ClockCycles> {
  const Signal* sig;
  unsigned n;
  bool rising;
  ClockCycles(const Signal& s, unsigned cycles, bool rising_edge = true) : sig(&s), n(cycles), rising(rising_edge) {}
  void prime(Scheduler& s, const WaiterPtr& w) const {
    s.add_edge(*sig, rising ? Scheduler::EdgeKind::Rising : Scheduler::EdgeKind::Falling, w, n);
  }
};

/// The values of this time step have settled; writing is an error until the next trigger.
struct ReadOnly : TriggerBase<ReadOnly> {
  void prime(Scheduler& s, const WaiterPtr& w) const { s.add_readonly(w); }
};

/// After the delta cycles of this time step, with writes still allowed.
struct ReadWrite : TriggerBase<ReadWrite> {
  void prime(Scheduler& s, const WaiterPtr& w) const { s.add_readwrite(w); }
};

/// The beginning of the next time step that has any activity.
struct NextTimeStep : TriggerBase<NextTimeStep> {
  void prime(Scheduler& s, const WaiterPtr& w) const { s.add_next_time_step(w); }
};

/// Completion of a started task (cocotb's Join; `co_await task` does the same).
struct Join : TriggerBase<Join> {
  std::shared_ptr<CoreBase> core;
  template <class T>
  explicit Join(const Task<T>& t) : core(t.core()) {
    if (!core || !core->is_root) throw HarnessError("Join of a task that was not started with start_soon");
  }
  void prime(Scheduler& s, const WaiterPtr& w) const {
    if (core->done)
      s.fire(w);
    else
      core->joiners.push_back(w);
  }
};

namespace detail {
template <class Tuple, std::size_t... I>
void prime_branches(Scheduler& s, const WaiterPtr& parent, const Tuple& t, std::index_sequence<I...>) {
  auto branch = [&](const auto& trig, int idx) {
    auto c = std::make_shared<Waiter>();
    c->root = parent->root;
    c->parent = parent;
    c->index = idx;
    trig.prime(s, c);
  };
  (branch(std::get<I>(t), static_cast<int>(I)), ...);
}
}  // namespace detail

/// Fires when the first of its triggers fires; co_await gives that trigger's index.
template <class... Ts>
struct First : TriggerBase<First<Ts...>> {
  std::tuple<Ts...> ts;
  explicit First(Ts... t) : ts(std::move(t)...) {}
  void prime(Scheduler& s, const WaiterPtr& w) const {
    w->kind = Waiter::Kind::First;
    detail::prime_branches(s, w, ts, std::index_sequence_for<Ts...>{});
  }
  int result(const Waiter& w) const { return w.which; }
};

/// Fires when all of its triggers have fired.
template <class... Ts>
struct Combine : TriggerBase<Combine<Ts...>> {
  std::tuple<Ts...> ts;
  explicit Combine(Ts... t) : ts(std::move(t)...) {}
  void prime(Scheduler& s, const WaiterPtr& w) const {
    w->kind = Waiter::Kind::All;
    w->remaining = static_cast<int>(sizeof...(Ts));
    detail::prime_branches(s, w, ts, std::index_sequence_for<Ts...>{});
  }
};

/// A flag that coroutines wait on (cocotb's Event).
class Event {
 public:
  explicit Event(std::string name = {}) : name_(std::move(name)) {}
  void set() {
    set_ = true;
    auto ws = std::move(waiters_);
    waiters_.clear();
    for (auto& w : ws) Scheduler::get().fire(w);
  }
  void clear() { set_ = false; }
  bool is_set() const { return set_; }
  const std::string& name() const { return name_; }

  struct Wait : TriggerBase<Wait> {
    Event* e;
    void prime(Scheduler& s, const WaiterPtr& w) const {
      if (e->set_)
        s.fire(w);
      else
        e->waiters_.push_back(w);
    }
  };
  /// Fires when the event is set (at once if it already is).
  Wait wait() { return Wait{{}, this}; }

 private:
  std::string name_;
  bool set_ = false;
  std::vector<WaiterPtr> waiters_;
};

/// A mutual-exclusion lock (cocotb's Lock). `co_await lock.acquire()` then `lock.release()`.
class Lock {
 public:
  explicit Lock(std::string name = {}) : name_(std::move(name)) {}
  bool locked() const { return locked_; }
  void release() {
    if (!locked_) throw HarnessError("release of lock '" + name_ + "' that is not held");
    while (!queue_.empty()) {
      WaiterPtr w = std::move(queue_.front());
      queue_.pop_front();
      if (w->stale() || (w->root && w->root->killed)) continue;
      Scheduler::get().fire(w);  // the lock passes straight to the next waiter
      return;
    }
    locked_ = false;
  }

  struct Acquire : TriggerBase<Acquire> {
    Lock* l;
    void prime(Scheduler& s, const WaiterPtr& w) const {
      if (!l->locked_ && !w->stale()) {
        l->locked_ = true;
        s.fire(w);
      } else {
        l->queue_.push_back(w);
      }
    }
  };
  Acquire acquire() { return Acquire{{}, this}; }

 private:
  std::string name_;
  bool locked_ = false;
  std::deque<WaiterPtr> queue_;
};

/// Await a trigger, raising SimTimeoutError if `ps` of simulated time pass first.
template <class Trig>
Task<> with_timeout(Trig trig, std::uint64_t amount, Unit u = Unit::ns) {
  int which = co_await First(std::move(trig), Timer(amount, u));
  if (which != 0) throw SimTimeoutError("with_timeout: trigger did not fire within the timeout");
}

/// Run a task, raising SimTimeoutError (and killing it) if it is not done within the timeout.
template <class T>
Task<T> with_timeout(Task<T> task, std::uint64_t amount, Unit u = Unit::ns) {
  if (!task.core()->started) (void)start_soon(task);
  int which = co_await First(Join(task), Timer(amount, u));
  if (which != 0) {
    task.kill();
    throw SimTimeoutError("with_timeout: task did not finish within the timeout");
  }
  co_return task.result();
}
}  // namespace trn::tb
