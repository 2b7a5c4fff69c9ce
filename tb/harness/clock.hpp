// trn::tb::Clock — drives a clock signal natively in the scheduler (like cocotb's GPI clock).
//
// start() drives the signal low at once; rising edges follow at now + period/2, + period, ...
// Before each rising edge the clock runs its pre-edge hooks: the settled values of the cycle
// that ends, exactly what the DUT's flops are about to sample. Lockstep checkers, monitors and
// the watchdog sample there. Hooks must not write signals.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "harness/triggers.hpp"

namespace trn::tb {

class Clock {
 public:
  Clock(Signal& sig, std::uint64_t period, Unit u = Unit::ns);
  ~Clock();
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;

  void start();
  void stop();
  Signal& signal() const { return *sig_; }
  std::uint64_t period_ps() const { return period_; }
  /// Rising edges since start(): the cycle number used in reports.
  std::uint64_t cycle() const { return st_->cycle; }
  /// The first clock started that still exists: the cycle a report without its own clock gives
  /// (a failing RTL assertion), or null.
  static const Clock* reporting();

  using HookId = std::uint64_t;
  /// Run `fn` before every rising edge (in registration order). Returns an id for remove_hook.
  HookId add_pre_edge_hook(std::function<void()> fn);
  void remove_hook(HookId id);

 private:
  struct State {
    bool running = false;
    std::uint64_t cycle = 0;
    std::uint64_t next_id = 1;
    std::vector<std::pair<HookId, std::function<void()>>> hooks;
  };
  Signal* sig_;
  std::uint64_t period_;
  std::uint64_t gen_ = 0;
  std::shared_ptr<State> st_;
  std::shared_ptr<std::uint64_t> live_gen_;
};

}  // namespace trn::tb
