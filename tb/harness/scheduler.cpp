#include "harness/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace trn::tb {

Scheduler& Scheduler::get() {
  static Scheduler s;
  return s;
}

// ---- hooks used by task.hpp
void on_root_done(CoreBase* core) { Scheduler::get().root_done(core); }
void join_task(const std::shared_ptr<CoreBase>& t, std::coroutine_handle<> h) { Scheduler::get().join(t, h); }
void start_root(const std::shared_ptr<CoreBase>& t) { Scheduler::get().start_root(t); }
void kill_root(const std::shared_ptr<CoreBase>& t) { Scheduler::get().kill_root(t); }

WaiterPtr Scheduler::make_waiter(std::coroutine_handle<> h) {
  auto w = std::make_shared<Waiter>();
  w->h = h;
  w->root = current_;
  return w;
}

void Scheduler::fire(const WaiterPtr& w) {
  if (w->fired) return;
  w->fired = true;
  if (auto p = w->parent) {
    if (p->kind == Waiter::Kind::First) {
      if (!p->fired) {
        p->which = w->index;
        fire(p);
      }
    } else if (--p->remaining == 0) {
      fire(p);
    }
    return;
  }
  ready_.push_back(w);
}

void Scheduler::add_timer(std::uint64_t at, WaiterPtr w) {
  if (at < now_) throw HarnessError("timer in the past");
  timers_.push(TimerEntry{at, seq_++, std::move(w), {}});
}

void Scheduler::add_callback(std::uint64_t at, std::function<void()> fn) {
  if (at < now_) throw HarnessError("callback in the past");
  timers_.push(TimerEntry{at, seq_++, nullptr, std::move(fn)});
}

void Scheduler::add_readwrite(WaiterPtr w) {
  if (in_readonly()) throw HarnessError("ReadWrite awaited in the ReadOnly phase");
  rw_.push_back(std::move(w));
}

void Scheduler::add_edge(const Signal& s, EdgeKind k, WaiterPtr w, unsigned count) {
  if (count == 0) throw HarnessError("ClockCycles of 0 cycles");
  auto it = std::find_if(watches_.begin(), watches_.end(), [&](const Watch& x) { return x.sig == &s; });
  if (it == watches_.end()) {
    Watch x{&s, s.get(), {}, {}};
    if (s.wide()) x.last_wide = s.bits();
    watches_.push_back(std::move(x));
    it = watches_.end() - 1;
  }
  it->waits.push_back(EdgeWait{std::move(w), k, count});
}

void Scheduler::start_root(const std::shared_ptr<CoreBase>& t) {
  t->started = true;
  t->is_root = true;
  roots_.push_back(t);
  auto w = std::make_shared<Waiter>();
  w->h = t->handle;
  w->root = t;
  ready_.push_back(std::move(w));
}

void Scheduler::kill_root(const std::shared_ptr<CoreBase>& t) {
  if (!t->is_root) throw HarnessError("kill() of a task that was not started with start_soon");
  if (t->done) return;
  if (t == current_) throw HarnessError("a task cannot kill itself");
  t->killed = true;
  t->done = true;
  for (auto& j : t->joiners) fire(j);
  t->joiners.clear();
  roots_.erase(std::remove(roots_.begin(), roots_.end(), t), roots_.end());
  t->destroy_frame();
}

void Scheduler::join(const std::shared_ptr<CoreBase>& t, std::coroutine_handle<> h) {
  auto w = make_waiter(h);
  if (t->done)
    fire(w);
  else
    t->joiners.push_back(std::move(w));
}

void Scheduler::root_done(CoreBase* core) {
  auto it = std::find_if(roots_.begin(), roots_.end(), [&](const auto& r) { return r.get() == core; });
  if (it != roots_.end()) {
    finished_.push_back(*it);
    roots_.erase(it);
  }
  for (auto& j : core->joiners) fire(j);
  core->joiners.clear();
  // As in cocotb, an exception escaping a task started with start_soon fails the test.
  if (core->exc && core != main_.get()) fail(core->exc);
  // The test is over: no task it started may run again (their frames are freed by clear()).
  if (core == main_.get())
    for (auto& r : roots_) r->killed = true;
}

void Scheduler::fail(std::exception_ptr e) {
  if (failure_) return;
  failure_ = std::move(e);
  if (!marker_set_) failure_marker_ = now_;
}

void Scheduler::set_failure_marker(std::uint64_t ps) {
  if (failure_) return;
  failure_marker_ = ps;
  marker_set_ = true;
}

void Scheduler::resume(const WaiterPtr& w) {
  if (w->root && w->root->killed) return;
  current_ = w->root;
  w->h.resume();
  current_ = nullptr;
}

void Scheduler::reap() {
  // The main test's frame outlives the tasks it started (they may use its objects): it is
  // freed by clear().
  std::erase_if(finished_, [&](const std::shared_ptr<CoreBase>& c) {
    if (c == main_) return false;
    c->destroy_frame();
    return true;
  });
}

void Scheduler::run_ready() {
  while (!ready_.empty() && !failure_) {
    WaiterPtr w = std::move(ready_.front());
    ready_.pop_front();
    resume(w);
    reap();
  }
}

void Scheduler::eval_and_detect() {
  // Nothing written since the last evaluation: the DUT is settled (its logic has no time of
  // its own) and no watched signal can have changed. This skips the evaluation after the
  // falling edge's tasks have run and written nothing, which costs a design whose logic
  // reads its inputs a full pass of that logic.
  if (!Signal::written) return;
  Signal::written = false;
  if (dut_) dut_->eval();
  for (auto& x : watches_) {
    std::uint64_t v = x.sig->get();
    bool changed;
    if (x.sig->wide()) {
      Bits b = x.sig->bits();
      changed = !(b == x.last_wide);
      x.last_wide = std::move(b);
    } else {
      changed = v != x.last;
    }
    if (!changed) continue;
    const bool rose = !(x.last & 1) && (v & 1);
    const bool fell = (x.last & 1) && !(v & 1);
    x.last = v;
    std::vector<EdgeWait> keep;
    std::vector<WaiterPtr> fire_now;
    for (auto& e : x.waits) {
      if (e.w->stale()) continue;
      const bool hit =
          e.kind == EdgeKind::Any || (e.kind == EdgeKind::Rising && rose) || (e.kind == EdgeKind::Falling && fell);
      if (hit && --e.count == 0)
        fire_now.push_back(e.w);
      else
        keep.push_back(std::move(e));
    }
    x.waits = std::move(keep);
    for (auto& w : fire_now) fire(w);
  }
}

void Scheduler::settle() {
  constexpr int kMaxDeltas = 100000;
  int deltas = 0;
  eval_and_detect();
  for (;;) {
    run_ready();
    if (failure_) return;
    eval_and_detect();
    if (!ready_.empty()) {
      if (++deltas > kMaxDeltas)
        throw HarnessError(
            fmt::format("more than {} delta cycles at {} ps: a combinational loop "
                        "through the testbench?",
                        kMaxDeltas, now_));
      continue;
    }
    if (!rw_.empty()) {
      auto rw = std::move(rw_);
      rw_.clear();
      for (auto& w : rw) fire(w);
      continue;
    }
    break;
  }
  Signal::readonly_phase = true;
  auto ro = std::move(ro_);
  ro_.clear();
  for (auto& w : ro) fire(w);
  try {
    run_ready();
  } catch (...) {
    Signal::readonly_phase = false;
    throw;
  }
  Signal::readonly_phase = false;
  if (dut_) dut_->dump(now_);
}

std::exception_ptr Scheduler::run_test(Task<> main, std::uint64_t timeout_ps) {
  failure_ = nullptr;
  marker_set_ = false;
  main_ = main.core();
  const std::uint64_t deadline = timeout_ps ? now_ + timeout_ps : std::numeric_limits<std::uint64_t>::max();
  try {
    start_root(main_);
    settle();
    while (!main_->done && !failure_) {
      if (timers_.empty()) {
        fail(std::make_exception_ptr(
            HarnessError("the test waits for a trigger that can never fire (no timer or clock is running)")));
        break;
      }
      const std::uint64_t t = timers_.top().at;
      if (t > deadline) {
        prev_step_ = now_;
        now_ = deadline;
        fail(std::make_exception_ptr(
            SimTimeoutError(fmt::format("test timed out after {} ns of simulated time", timeout_ps / 1000.0))));
        break;
      }
      if (t != now_) {
        prev_step_ = now_;
        now_ = t;
      }
      if (dut_) dut_->set_time(t);
      auto nts = std::move(nts_);
      nts_.clear();
      for (auto& w : nts) fire(w);
      while (!timers_.empty() && timers_.top().at == t && !failure_) {
        TimerEntry e = timers_.top();
        timers_.pop();
        if (e.fn) {
          try {
            e.fn();
          } catch (...) {
            fail(std::current_exception());
          }
        } else {
          fire(e.w);
        }
      }
      if (failure_) break;
      settle();
    }
  } catch (...) {
    fail(std::current_exception());
  }
  std::exception_ptr result = failure_;
  if (!result && main_->done) result = main_->exc;
  clear();
  return result;
}

void Scheduler::clear() {
  current_ = nullptr;
  // Newest first, the main test last: a task may use objects of the one that started it.
  auto roots = roots_;
  roots_.clear();
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) {
    if (*it == main_) continue;
    (*it)->killed = (*it)->killed || !(*it)->done;
    (*it)->done = true;
    (*it)->destroy_frame();
  }
  for (auto& c : finished_)
    if (c != main_) c->destroy_frame();
  finished_.clear();
  if (main_) {
    main_->done = true;
    main_->destroy_frame();
  }
  main_.reset();
  timers_ = decltype(timers_)();
  ready_.clear();
  ro_.clear();
  rw_.clear();
  nts_.clear();
  watches_.clear();
  Signal::readonly_phase = false;
}

}  // namespace trn::tb
