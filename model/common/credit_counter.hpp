// trn::common::CreditCounter — cycle-exact model of rtl/common/credit_counter.sv.
//
// count_q starts at max_credits; take spends one, give returns one, both leave it unchanged.
// A take with no credit or a give beyond max_credits leaves the count and sets the sticky error.
#pragma once

#include <cstdint>

#include "common/ports.hpp"
#include "sv/ports/credit_counter.hpp"

namespace trn::common {

class CreditCounter {
 public:
  struct Params {
    unsigned max_credits = 4;
  };
  struct In {
    bool rst_ni = false;
    bool take_i = false;
    bool give_i = false;
  };
  struct Out {
    std::uint64_t count_o = 0;
    bool avail_o = false;
    bool full_o = false;
    bool error_o = false;
  };

  explicit CreditCounter(Params p);

  const Params& params() const { return p_; }
  unsigned count_width() const;
  In make_in() const { return {}; }
  Out make_out() const { return {}; }

  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  unsigned count() const { return count_q_; }
  bool error() const { return error_q_; }

  /// The ports of rtl/common/credit_counter.sv, generated from its header; the module's parameters from this model's.
  sv::ports::credit_counter::Params sv_params() const { return {.MaxCredits = p_.max_credits}; }
  TRN_MODULE_PORTS(credit_counter)

 private:
  Params p_;
  unsigned count_q_;
  bool error_q_ = false;
};

}  // namespace trn::common
