// trn::tb::Watchdog — fails a test that stops making progress.
//
// Interfaces register with two questions: is it stalled (valid high, ready low) and does it
// have work pending (a driver with items queued, a scoreboard expecting items). Progress is a
// handshake on any of them. While something is stalled or pending and no handshake happens for
// `limit` cycles, the test fails with Hang, naming the interface that stalled first.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/clock.hpp"

namespace trn::tb {

class Watchdog {
 public:
  /// limit 0: the run's WATCHDOG_CYCLES.
  Watchdog(Clock& clk, std::uint64_t limit = 0);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  using Id = std::size_t;
  Id add_interface(std::string name, std::function<bool()> stalled, std::function<bool()> pending);
  /// A transaction completed on this interface.
  void progress(Id) { progressed_ = true; }
  std::uint64_t limit() const { return limit_; }

 private:
  void on_edge();
  struct Iface {
    std::string name;
    std::function<bool()> stalled, pending;
    std::uint64_t stalled_since = UINT64_MAX;  ///< cycle the current stall began
  };
  Clock& clk_;
  std::uint64_t limit_;
  std::uint64_t idle_ = 0;
  bool progressed_ = false;
  std::vector<Iface> ifaces_;
  Clock::HookId hook_;
};

}  // namespace trn::tb
