#include "common/stream_fifo.hpp"

#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::common {

StreamFifo::StreamFifo(Params p) : p_(p) {
  if (p_.depth < 1) throw std::invalid_argument("StreamFifo: depth must be >= 1");
  if (p_.width < 1) throw std::invalid_argument("StreamFifo: width must be >= 1");
  reset();
}

unsigned StreamFifo::usage_width() const { return clog2(p_.depth + 1); }

void StreamFifo::reset() {
  mem_q_.assign(p_.depth, Bits(p_.width));
  rptr_q_ = wptr_q_ = count_q_ = 0;
}

void StreamFifo::eval(const In& in, Out& out) const {
  if (!in.rst_ni) {  // asynchronous reset: outputs of the reset state
    out.push_ready_o = true;
    out.pop_valid_o = false;
    out.pop_data_o = Bits(p_.width);
    out.usage_o = 0;
    return;
  }
  out.push_ready_o = count_q_ != p_.depth;
  out.pop_valid_o = count_q_ != 0;
  out.pop_data_o = mem_q_[rptr_q_];
  out.usage_o = count_q_;
}

void StreamFifo::tick(const In& in) {
  if (!in.rst_ni) {
    reset();
    return;
  }
  const bool push = in.push_valid_i && count_q_ != p_.depth;
  const bool pop = count_q_ != 0 && in.pop_ready_i;
  if (push) {
    mem_q_[wptr_q_] = in.push_data_i;
    wptr_q_ = wptr_q_ + 1 == p_.depth ? 0 : wptr_q_ + 1;
  }
  if (pop) rptr_q_ = rptr_q_ + 1 == p_.depth ? 0 : rptr_q_ + 1;
  if (push && !pop) ++count_q_;
  if (pop && !push) --count_q_;
}

}  // namespace trn::common
