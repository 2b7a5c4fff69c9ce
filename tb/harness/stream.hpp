// Valid/ready stream driver (StreamSource) and monitor (StreamSink) with seeded random stalls.
//
// Both sample the handshake in a pre-edge hook of the clock (the values the DUT samples) and
// drive after the rising edge. A source holds valid and data until the handshake (the
// valid/ready rule) and drives random data while idle; a sink drives ready at random. Neither
// counts a handshake while reset (active low) is asserted. With a Watchdog, each reports its
// stalls and progress.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "harness/clock.hpp"
#include "harness/rng.hpp"
#include "harness/task.hpp"
#include "harness/watchdog.hpp"

namespace trn::tb {

struct StreamPorts {
  Field valid, ready, data;
};

/// What a source and a sink share: the ports, the clock and reset, a random stream, the
/// watchdog, and a pre-edge hook.
class StreamEndpoint {
 public:
  StreamEndpoint(const StreamEndpoint&) = delete;
  StreamEndpoint& operator=(const StreamEndpoint&) = delete;
  const std::string& name() const { return name_; }

 protected:
  StreamEndpoint(std::string name, Clock& clk, Signal& rst_n, StreamPorts ports, Rng rng, Watchdog* wd)
      : name_(std::move(name)), clk_(clk), rst_n_(rst_n), ports_(ports), rng_(rng), wd_(wd) {}
  ~StreamEndpoint() { clk_.remove_hook(hook_); }
  bool out_of_reset() const { return rst_n_.get() & 1; }
  /// valid and ready both high, out of reset (sampled before an edge: a transfer).
  bool handshake() const { return out_of_reset() && ports_.valid.get() && ports_.ready.get(); }

  std::string name_;
  Clock& clk_;
  Signal& rst_n_;
  StreamPorts ports_;
  Rng rng_;
  Watchdog* wd_;
  Watchdog::Id wd_id_ = 0;
  Clock::HookId hook_ = 0;
};

class StreamSource : public StreamEndpoint {
 public:
  StreamSource(std::string name, Clock& clk, Signal& rst_n, StreamPorts ports, Rng rng, double p_valid = 1.0,
               Watchdog* wd = nullptr);

  void send(Bits item) { q_.push_back(std::move(item)); }
  void send(std::uint64_t v) { q_.emplace_back(ports_.data.width(), v); }
  std::size_t pending() const { return q_.size(); }
  std::uint64_t accepted() const { return accepted_count_; }
  void set_p_valid(double p) { p_valid_ = p; }
  /// Forget the queue and drop valid (e.g. when the DUT is reset).
  void flush();
  /// Called at each handshake with the item and the cycle.
  std::function<void(const Bits&, std::uint64_t)> on_accept;
  /// The driver; start it with start_soon(src.run()) or a TaskGroup.
  Task<> run();

 private:
  double p_valid_;
  std::deque<Bits> q_;
  bool driving_ = false, took_ = false;
  std::uint64_t accepted_count_ = 0;
};

class StreamSink : public StreamEndpoint {
 public:
  StreamSink(std::string name, Clock& clk, Signal& rst_n, StreamPorts ports, Rng rng, double p_ready = 1.0,
             Watchdog* wd = nullptr);

  void set_p_ready(double p) { p_ready_ = p; }
  std::uint64_t received() const { return count_; }
  /// Items the scoreboard still expects (for the watchdog's "pending").
  std::function<bool()> expecting;
  /// Called at each handshake with the item and the cycle.
  std::function<void(const Bits&, std::uint64_t)> on_item;
  Task<> run();

 private:
  double p_ready_;
  std::uint64_t count_ = 0;
};

}  // namespace trn::tb
