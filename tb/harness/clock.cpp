#include "harness/clock.hpp"

#include <algorithm>

namespace trn::tb {

Clock::Clock(Signal& sig, std::uint64_t period, Unit u)
    : sig_(&sig),
      period_(to_ps(period, u)),
      st_(std::make_shared<State>()),
      live_gen_(std::make_shared<std::uint64_t>(0)) {
  if (period_ < 2 || period_ % 2) throw HarnessError("Clock period must be an even number of picoseconds >= 2");
}

namespace {
const Clock* g_reporting = nullptr;
}

const Clock* Clock::reporting() { return g_reporting; }

Clock::~Clock() {
  stop();
  if (g_reporting == this) g_reporting = nullptr;
}

void Clock::start() {
  if (!g_reporting) g_reporting = this;
  // (Re)start: callbacks of an earlier start() see a stale generation and stop.
  st_->running = true;
  *live_gen_ = ++gen_;
  sig_->set(0);
  std::weak_ptr<std::uint64_t> live = live_gen_;
  const std::uint64_t gen = gen_, half = period_ / 2;
  auto st = st_;
  Signal* sig = sig_;
  // Each callback reschedules the next one while this clock (and this start) is live.
  struct Tick {
    std::weak_ptr<std::uint64_t> live;
    std::shared_ptr<State> st;
    Signal* sig;
    std::uint64_t gen, half;
    bool rise;
    void operator()() const {
      auto g = live.lock();
      if (!g || *g != gen || !st->running) return;
      if (rise) {
        // Copy: a hook may remove itself (a checker that finishes).
        auto hooks = st->hooks;
        for (auto& [id, fn] : hooks) fn();
        ++st->cycle;
        sig->set(1);
      } else {
        sig->set(0);
      }
      auto& s = Scheduler::get();
      s.add_callback(s.now() + half, Tick{live, st, sig, gen, half, !rise});
    }
  };
  auto& s = Scheduler::get();
  s.add_callback(s.now() + half, Tick{live, st, sig, gen, half, true});
}

void Clock::stop() {
  st_->running = false;
  *live_gen_ = 0;
}

Clock::HookId Clock::add_pre_edge_hook(std::function<void()> fn) {
  HookId id = st_->next_id++;
  st_->hooks.emplace_back(id, std::move(fn));
  return id;
}

void Clock::remove_hook(HookId id) {
  std::erase_if(st_->hooks, [&](const auto& h) { return h.first == id; });
}

}  // namespace trn::tb
