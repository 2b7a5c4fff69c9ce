#include "common/credit_counter.hpp"

#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::common {

CreditCounter::CreditCounter(Params p) : p_(p), count_q_(p.max_credits) {
  if (p_.max_credits < 1) throw std::invalid_argument("CreditCounter: max_credits must be >= 1");
}

unsigned CreditCounter::count_width() const { return clog2(p_.max_credits + 1); }

void CreditCounter::eval(const In& in, Out& out) const {
  const unsigned count = in.rst_ni ? count_q_ : p_.max_credits;
  out.count_o = count;
  out.avail_o = count != 0;
  out.full_o = count == p_.max_credits;
  out.error_o = in.rst_ni && error_q_;
}

void CreditCounter::tick(const In& in) {
  if (!in.rst_ni) {
    count_q_ = p_.max_credits;
    error_q_ = false;
    return;
  }
  if (in.take_i && count_q_ == 0) {
    error_q_ = true;
  } else if (in.take_i && !in.give_i) {
    --count_q_;
  } else if (in.give_i && !in.take_i) {
    if (count_q_ == p_.max_credits)
      error_q_ = true;
    else
      ++count_q_;
  }
}

}  // namespace trn::common
