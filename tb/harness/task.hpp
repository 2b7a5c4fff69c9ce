// trn::tb::Task<T> — a C++20 coroutine in the scheduler, after cocotb's coroutines and Tasks.
//
// A Task is lazy. `co_await task` runs it inline, as part of the awaiting coroutine (cocotb's
// `await coro()`); `start_soon(task)` makes it an independent root task that runs when the
// current coroutine yields, and returns a handle to kill it, ask whether it is done, read its
// result, or wait for it (`co_await task` on a started task joins it).
#pragma once

#include <coroutine>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/errors.hpp"

namespace trn::tb {

struct Waiter;
using WaiterPtr = std::shared_ptr<Waiter>;

/// Book-keeping of one coroutine frame. It owns the frame.
struct CoreBase {
  std::coroutine_handle<> handle;
  std::coroutine_handle<> continuation;  ///< the caller, when awaited inline
  bool started = false;
  bool is_root = false;
  bool done = false;
  bool killed = false;
  std::exception_ptr exc;
  std::vector<WaiterPtr> joiners;  ///< waiting for this root task to finish

  CoreBase() = default;
  CoreBase(const CoreBase&) = delete;
  CoreBase& operator=(const CoreBase&) = delete;
  virtual ~CoreBase() { destroy_frame(); }
  void destroy_frame() {
    if (handle) {
      auto h = handle;
      handle = {};
      h.destroy();
    }
  }
};

template <class T>
struct Core : CoreBase {
  std::optional<T> value;
};
template <>
struct Core<void> : CoreBase {};

// Implemented by the scheduler (scheduler.cpp).
void on_root_done(CoreBase* core);
void join_task(const std::shared_ptr<CoreBase>& task, std::coroutine_handle<> h);
void start_root(const std::shared_ptr<CoreBase>& task);
void kill_root(const std::shared_ptr<CoreBase>& task);

template <class T>
class Task;

namespace detail {

struct FinalAwaiter {
  CoreBase* core;
  bool await_ready() noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<>) noexcept {
    core->done = true;
    if (core->continuation) return core->continuation;
    on_root_done(core);
    return std::noop_coroutine();
  }
  void await_resume() noexcept {}
};

template <class T>
struct PromiseBase {
  Core<T>* core = nullptr;
  std::suspend_always initial_suspend() noexcept { return {}; }
  FinalAwaiter final_suspend() noexcept { return {core}; }
  void unhandled_exception() { core->exc = std::current_exception(); }
  Task<T> get_return_object();
};

template <class T>
struct Promise : PromiseBase<T> {
  template <class U>
  void return_value(U&& v) {
    this->core->value.emplace(std::forward<U>(v));
  }
};
template <>
struct Promise<void> : PromiseBase<void> {
  void return_void() {}
};

/// The task's outcome: rethrows what it threw, else its value.
template <class T>
T outcome(const Core<T>& c) {
  if (c.exc) std::rethrow_exception(c.exc);
  if constexpr (!std::is_void_v<T>) return *c.value;
}

}  // namespace detail

template <class T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;

  Task() = default;
  explicit Task(std::shared_ptr<Core<T>> c) : core_(std::move(c)) {}

  bool valid() const { return core_ != nullptr; }
  bool done() const { return core_ && core_->done; }
  bool killed() const { return core_ && core_->killed; }
  /// Ends a started task now: its frame and every frame it awaits inline are destroyed.
  void kill() {
    if (core_) kill_root(core_);
  }
  /// The value it returned; rethrows what it threw. Only once done.
  T result() const {
    if (!done()) throw HarnessError("Task::result() of a task that is not done");
    if (core_->killed) throw HarnessError("Task::result() of a task that was killed");
    return detail::outcome(*core_);
  }
  std::shared_ptr<CoreBase> core() const { return core_; }

  auto operator co_await() const noexcept { return Awaiter{core_}; }

 private:
  struct Awaiter {
    std::shared_ptr<Core<T>> c;
    bool await_ready() const noexcept { return c->done; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> h) {
      if (!c->started) {  // inline call: runs inside the caller's root task
        c->started = true;
        c->continuation = h;
        return c->handle;
      }
      join_task(c, h);
      return std::noop_coroutine();
    }
    T await_resume() {
      if (c->killed) throw HarnessError("awaited a task that was killed");
      return detail::outcome(*c);
    }
  };
  std::shared_ptr<Core<T>> core_;
};

template <class T>
Task<T> detail::PromiseBase<T>::get_return_object() {
  auto c = std::make_shared<Core<T>>();
  c->handle = std::coroutine_handle<Promise<T>>::from_promise(static_cast<Promise<T>&>(*this));
  core = c.get();
  return Task<T>(std::move(c));
}

/// Start `t` as an independent task; it runs when the current coroutine yields (cocotb's
/// start_soon). The scheduler keeps it alive; the returned handle may be dropped.
template <class T>
Task<T> start_soon(Task<T> t) {
  if (!t.valid()) throw HarnessError("start_soon of an empty task");
  if (t.core()->started) throw HarnessError("start_soon of a task that was already started");
  start_root(t.core());
  return t;
}

/// Tasks started on behalf of objects in a test's scope (drivers, monitors). Declare it after
/// the objects its tasks use: when the test's scope ends, it is destroyed first and kills its
/// tasks while those objects still exist. (When the test ends, the scheduler kills every task
/// that is left, as cocotb does, but by then the test's locals are gone.)
class TaskGroup {
 public:
  TaskGroup() = default;
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;
  ~TaskGroup() { kill_all(); }
  template <class T>
  Task<T> start(Task<T> t) {
    Task<T> s = start_soon(std::move(t));
    tasks_.push_back(s.core());
    return s;
  }
  void kill_all() {
    for (auto it = tasks_.rbegin(); it != tasks_.rend(); ++it)
      if (!(*it)->done) kill_root(*it);
    tasks_.clear();
  }

 private:
  std::vector<std::shared_ptr<CoreBase>> tasks_;
};

}  // namespace trn::tb
