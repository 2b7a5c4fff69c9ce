#include "harness/stream.hpp"

namespace trn::tb {

StreamSource::StreamSource(std::string name, Clock& clk, Signal& rst_n, StreamPorts ports, Rng rng, double p_valid,
                           Watchdog* wd)
    : StreamEndpoint(std::move(name), clk, rst_n, ports, rng, wd), p_valid_(p_valid) {
  hook_ = clk_.add_pre_edge_hook([this] {
    took_ = driving_ && handshake();
    if (took_) {
      ++accepted_count_;
      if (on_accept) on_accept(q_.front(), clk_.cycle());
      if (wd_) wd_->progress(wd_id_);
    }
  });
  if (wd_)
    wd_id_ = wd_->add_interface(
        name_, [this] { return driving_ && out_of_reset() && !ports_.ready.get(); }, [this] { return !q_.empty(); });
}

void StreamSource::flush() {
  q_.clear();
  driving_ = false;
  took_ = false;
  ports_.valid.set(0);
}

Task<> StreamSource::run() {
  ports_.valid.set(0);
  for (;;) {
    co_await RisingEdge(clk_.signal());
    if (took_ && !q_.empty()) {
      q_.pop_front();
      driving_ = false;
      took_ = false;
    }
    if (driving_) continue;
    if (!q_.empty() && rng_.chance(p_valid_)) {
      ports_.data.set(q_.front());
      ports_.valid.set(1);
      driving_ = true;
    } else {
      ports_.valid.set(0);
      ports_.data.set(rng_.bits(ports_.data.width()));  // idle data is garbage
    }
  }
}

StreamSink::StreamSink(std::string name, Clock& clk, Signal& rst_n, StreamPorts ports, Rng rng, double p_ready,
                       Watchdog* wd)
    : StreamEndpoint(std::move(name), clk, rst_n, ports, rng, wd), p_ready_(p_ready) {
  hook_ = clk_.add_pre_edge_hook([this] {
    if (handshake()) {
      ++count_;
      if (on_item) on_item(ports_.data.bits(), clk_.cycle());
      if (wd_) wd_->progress(wd_id_);
    }
  });
  if (wd_)
    wd_id_ = wd_->add_interface(
        name_, [this] { return out_of_reset() && ports_.valid.get() && !ports_.ready.get(); },
        [this] { return expecting && expecting(); });
}

Task<> StreamSink::run() {
  for (;;) {
    ports_.ready.set(rng_.chance(p_ready_) ? 1 : 0);
    co_await RisingEdge(clk_.signal());
  }
}

}  // namespace trn::tb
