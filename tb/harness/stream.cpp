#include "harness/stream.hpp"

namespace trn::tb {

StreamSource::StreamSource(std::string name, Clock& clk, Signal& rst_n, StreamPorts ports, Rng rng,
                           double p_valid, Watchdog* wd)
    : name_(std::move(name)), clk_(clk), rst_n_(rst_n), ports_(ports), rng_(rng), p_valid_(p_valid), wd_(wd) {
  hook_ = clk_.add_pre_edge_hook([this] {
    took_ = driving_ && (rst_n_.get() & 1) && ports_.valid.get() && ports_.ready.get();
    if (took_) {
      ++accepted_count_;
      if (on_accept) on_accept(q_.front(), clk_.cycle());
      if (wd_) wd_->progress(wd_id_);
    }
  });
  if (wd_)
    wd_id_ = wd_->add_interface(
        name_, [this] { return driving_ && (rst_n_.get() & 1) && !ports_.ready.get(); },
        [this] { return !q_.empty(); });
}

StreamSource::~StreamSource() { clk_.remove_hook(hook_); }

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
    : name_(std::move(name)), clk_(clk), rst_n_(rst_n), ports_(ports), rng_(rng), p_ready_(p_ready), wd_(wd) {
  hook_ = clk_.add_pre_edge_hook([this] {
    if ((rst_n_.get() & 1) && ports_.valid.get() && ports_.ready.get()) {
      ++count_;
      if (on_item) on_item(ports_.data.bits(), clk_.cycle());
      if (wd_) wd_->progress(wd_id_);
    }
  });
  if (wd_)
    wd_id_ = wd_->add_interface(
        name_, [this] { return (rst_n_.get() & 1) && ports_.valid.get() && !ports_.ready.get(); },
        [this] { return expecting && expecting(); });
}

StreamSink::~StreamSink() { clk_.remove_hook(hook_); }

Task<> StreamSink::run() {
  for (;;) {
    ports_.ready.set(rng_.chance(p_ready_) ? 1 : 0);
    co_await RisingEdge(clk_.signal());
  }
}

}  // namespace trn::tb
