// UnitEnv — the common environment of the rtl/numerics benches: clock, reset, the model in
// lockstep, and an in-order scoreboard for pipelines without back-pressure.
//
// A test sets the unit's inputs, then calls push(check) and next(): valid_i is raised for one cycle and
// `check` (which reads the DUT's outputs and compares them with values the test computed
// independently) runs when the result appears on valid_o. drain() waits for every result and
// fails if one never came or an extra one did.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <utility>

#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"

namespace trn::tb {

template <class Model>
class UnitEnv {
 public:
  using Check = std::function<void()>;

  UnitEnv(Env& e, typename Model::Params p, unsigned latency)
      : env(e),
        clk(e.sig("clk_i"), 10),
        rst(e.sig("rst_ni")),
        valid_i(e.sig("valid_i")),
        valid_o(e.sig("valid_o")),
        model(p),
        lockstep(e, clk, model),
        latency_(latency) {
    hook_ = clk.add_pre_edge_hook([this] {
      if (!(rst.get() & 1) || !(valid_o.get() & 1)) return;
      check(!pending_.empty(), "valid_o at cycle {} with no result in flight", clk.cycle());
      check(clk.cycle() - pending_.front().first == latency_,
            "result at cycle {} for the input of cycle {}: latency {}, documented {}", clk.cycle(),
            pending_.front().first, clk.cycle() - pending_.front().first, latency_);
      auto fn = std::move(pending_.front().second);
      pending_.pop_front();
      fn();
      ++checked_;
    });
  }
  ~UnitEnv() { clk.remove_hook(hook_); }
  UnitEnv(const UnitEnv&) = delete;
  UnitEnv& operator=(const UnitEnv&) = delete;

  Task<> start() {
    valid_i.set(0);
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }
  /// One input cycle: the inputs are already set; `fn` checks the result `latency` cycles later.
  /// Call next() after it. (A plain function: GCC 12 destroys non-trivial temporaries inside
  /// co_await expressions twice, so checks are never passed to a coroutine.)
  void push(Check fn) {
    valid_i.set(1);
    pending_.emplace_back(clk.cycle(), std::move(fn));  // sampled by the next edge
  }
  /// The edge that takes the pushed inputs.
  Task<> next() {
    co_await RisingEdge(clk.signal());
    valid_i.set(0);
  }
  Task<> idle(unsigned cycles) {
    valid_i.set(0);
    co_await ClockCycles(clk.signal(), cycles);
  }
  /// Wait out the pipeline; every result must have come.
  Task<> drain() {
    valid_i.set(0);
    co_await ClockCycles(clk.signal(), latency_ + 2);
    check(pending_.empty(), "{} results never appeared on valid_o", pending_.size());
  }
  std::uint64_t checked() const { return checked_; }
  unsigned latency() const { return latency_; }

  Env& env;
  Clock clk;
  Signal& rst;
  Signal& valid_i;
  Signal& valid_o;
  Model model;
  Lockstep<Model> lockstep;

 private:
  unsigned latency_;
  std::deque<std::pair<std::uint64_t, Check>> pending_;
  std::uint64_t checked_ = 0;
  Clock::HookId hook_;
};

}  // namespace trn::tb
