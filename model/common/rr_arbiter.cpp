#include "common/rr_arbiter.hpp"

#include <bit>
#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::common {

RrArbiter::RrArbiter(Params p) : p_(p) {
  if (p_.n < 1 || p_.n > 64) throw std::invalid_argument("RrArbiter: n must be in 1..64");
  if (p_.width < 1) throw std::invalid_argument("RrArbiter: width must be at least 1");
}

unsigned RrArbiter::idx_width() const { return p_.n > 1 ? clog2(p_.n) : 1; }

RrArbiter::Pick RrArbiter::pick(const In& in, unsigned prio, bool lock, unsigned lock_idx) const {
  if (lock && ((in.req_valid_i >> lock_idx) & 1)) return {true, lock_idx};
  // the first requester at or after prio, wrapping: the lowest request bit >= prio, else the
  // lowest of all
  const std::uint64_t req = p_.n == 64 ? in.req_valid_i : in.req_valid_i & ((std::uint64_t{1} << p_.n) - 1);
  if (req == 0) return {};
  const std::uint64_t upper = prio >= 64 ? 0 : req & (~std::uint64_t{0} << prio);
  return {true, static_cast<unsigned>(std::countr_zero(upper != 0 ? upper : req))};
}

void RrArbiter::eval(const In& in, Out& out) const {
  // Asynchronous reset: the arbiter is combinational on top of the reset state.
  const Pick g = in.rst_ni ? pick(in, prio_q_, lock_q_, lock_idx_q_) : pick(in, 0, false, 0);
  out.gnt_valid_o = g.found;
  out.gnt_idx_o = g.idx;
  if (out.gnt_data_o.width() != p_.width) out.gnt_data_o = Bits(p_.width);
  if (g.found)
    out.gnt_data_o.copy(0, in.req_data_i, g.idx * p_.width, p_.width);
  else
    out.gnt_data_o.clear();
  out.req_ready_o = (g.found && in.gnt_ready_i) ? (std::uint64_t{1} << g.idx) : 0;
}

void RrArbiter::tick(const In& in) {
  if (!in.rst_ni) {
    prio_q_ = 0;
    lock_q_ = false;
    lock_idx_q_ = 0;
    return;
  }
  const Pick g = pick(in, prio_q_, lock_q_, lock_idx_q_);
  lock_q_ = false;
  if (g.found && in.gnt_ready_i) {
    prio_q_ = g.idx + 1 == p_.n ? 0 : g.idx + 1;
  } else if (g.found) {
    lock_q_ = true;
    lock_idx_q_ = g.idx;
  }
}

}  // namespace trn::common
