// The GpSimd benches' side of the SBUF word port and the semaphores (docs/gpsimd.md "Custom
// instructions", "The engine"): an SBUF of `parts` partitions that grants requests at random,
// lands writes, and answers reads in order 1 to max_latency cycles later (3 unless set); the 32
// semaphores, driven on sem_i every cycle and added to by sem_add_o (one adder, or one a
// processor). The requests must stay inside `owned` (a check).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "harness/env.hpp"
#include "harness/regression.hpp"
#include "harness/rng.hpp"
#include "harness/task.hpp"
#include "harness/triggers.hpp"

namespace trn::tb {

class SbufPort {
 public:
  /// `adders`: how many sem_add_o bits (sem_idx_o / sem_val_o carry 5 and 32 bits each).
  SbufPort(Env& e, Clock& clk, unsigned parts, std::uint32_t bytes, unsigned adders,
           std::function<bool(unsigned part)> owned)
      : clk_(clk),
        rst_(e.sig("rst_ni")),
        req_(e.sig("sb_req_o")),
        we_(e.sig("sb_we_o")),
        part_(e.sig("sb_part_o")),
        off_(e.sig("sb_off_o")),
        mask_(e.sig("sb_mask_o")),
        wdata_(e.sig("sb_wdata_o")),
        gnt_(e.sig("sb_gnt_i")),
        rvalid_(e.sig("sb_rvalid_i")),
        rdata_(e.sig("sb_rdata_i")),
        sem_in_(e.sig("sem_i")),
        sem_add_(e.sig("sem_add_o")),
        sem_idx_(e.sig("sem_idx_o")),
        sem_val_(e.sig("sem_val_o")),
        rng_(e.rng("sbuf")),
        adders_(adders),
        owned_(std::move(owned)),
        sbuf(parts, std::vector<std::uint8_t>(bytes, 0)) {}
  ~SbufPort() {
    if (hooked_) clk_.remove_hook(hook_);
  }
  SbufPort(const SbufPort&) = delete;
  SbufPort& operator=(const SbufPort&) = delete;

  /// From the next edge on: the inputs driven after every edge, the requests taken before it.
  void start() {
    gnt_.set(0);
    rvalid_.set(0);
    rdata_.set(0);
    drive_sems();
    hook_ = clk_.add_pre_edge_hook([this] { edge(); });
    hooked_ = true;
    start_soon(driver());
  }

  std::vector<std::vector<std::uint8_t>> sbuf;  ///< what the DUT wrote (and reads)
  std::array<std::uint32_t, 32> sems{};         ///< the semaphores' values
  unsigned max_latency = 3;                     ///< a read's answer comes 1 .. this many cycles later

 private:
  void drive_sems() {
    Bits b(32 * 32);
    for (unsigned i = 0; i < 32; ++i) b.set_slice(32 * i, 32, sems[i]);
    sem_in_.set(b);
  }
  /// Before the edge (hooks write no signal): the request taken lands or is queued, the additions
  /// are made, the next cycle's grant and answer chosen.
  void edge() {
    if (!(rst_.get() & 1)) return;
    if ((req_.get() & 1) && gnt_now_) {
      const auto p = static_cast<unsigned>(part_.get());
      const auto off = static_cast<std::uint32_t>(off_.get());
      check(p < sbuf.size() && owned_(p) && off % 4 == 0 && off + 4 <= sbuf[p].size(),
            "cycle {}: an SBUF request to partition {} offset {:#x}, outside what the processors own", clk_.cycle(), p,
            off);
      auto& part = sbuf[p];
      if (we_.get() & 1) {
        for (unsigned k = 0; k < 4; ++k)
          if (mask_.get() >> k & 1) part[off + k] = static_cast<std::uint8_t>(wdata_.get() >> 8 * k);
      } else {
        const std::uint32_t w =
            part[off] | part[off + 1] << 8 | part[off + 2] << 16 | std::uint32_t{part[off + 3]} << 24;
        reads_.emplace_back(clk_.cycle() + 1 + rng_.below(max_latency), w);
      }
    }
    Bits idx, val;
    sem_idx_.get(idx);
    sem_val_.get(val);
    for (unsigned a = 0; a < adders_; ++a)
      if (sem_add_.get() >> a & 1) sems[idx.slice(5 * a, 5)] += static_cast<std::uint32_t>(val.slice(32 * a, 32));
    gnt_now_ = rng_.chance(0.7);
    next_rvalid_ = !reads_.empty() && reads_.front().first <= clk_.cycle() + 1;
    next_rdata_ = next_rvalid_ ? reads_.front().second : static_cast<std::uint32_t>(rng_.next());
    if (next_rvalid_) reads_.pop_front();
  }
  Task<> driver() {
    for (;;) {
      co_await RisingEdge(clk_.signal());
      gnt_.set(gnt_now_);
      rvalid_.set(next_rvalid_);
      rdata_.set(next_rdata_);
      drive_sems();
    }
  }

  Clock& clk_;
  Signal &rst_, &req_, &we_, &part_, &off_, &mask_, &wdata_, &gnt_, &rvalid_, &rdata_;
  Signal &sem_in_, &sem_add_, &sem_idx_, &sem_val_;
  Rng rng_;
  unsigned adders_;
  std::function<bool(unsigned)> owned_;
  std::deque<std::pair<std::uint64_t, std::uint32_t>> reads_;  // (the cycle it may come back, the word)
  bool gnt_now_ = false, next_rvalid_ = false;
  std::uint32_t next_rdata_ = 0;
  Clock::HookId hook_ = 0;
  bool hooked_ = false;
};

}  // namespace trn::tb
