// trn::common::CreditCounter — cycle-exact model of rtl/common/credit_counter.sv.
//
// count_q starts at max_credits; take spends one, give returns one, both leave it unchanged.
// A take with no credit or a give beyond max_credits leaves the count and sets the sticky error.
#pragma once

#include <cstdint>

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

  template <class V>
  void visit_in(In& in, V&& v) const {
    v("rst_ni", in.rst_ni, 1);
    v("take_i", in.take_i, 1);
    v("give_i", in.give_i, 1);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    v("count_o", out.count_o, count_width());
    v("avail_o", out.avail_o, 1);
    v("full_o", out.full_o, 1);
    v("error_o", out.error_o, 1);
  }

 private:
  Params p_;
  unsigned count_q_;
  bool error_q_ = false;
};

}  // namespace trn::common
