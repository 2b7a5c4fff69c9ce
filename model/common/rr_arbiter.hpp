// trn::common::RrArbiter — cycle-exact model of rtl/common/rr_arbiter.sv.
//
// State as in the RTL: prio_q (requester with the highest priority), lock_q / lock_idx_q (a
// grant held until its handshake). The grant is combinational in the requests and ready, so
// eval() needs this cycle's inputs.
#pragma once

#include <cstdint>

#include "common/bits.hpp"

namespace trn::common {

class RrArbiter {
 public:
  struct Params {
    unsigned n = 4;       ///< requesters (1..64)
    unsigned width = 16;  ///< payload bits per requester
  };
  struct In {
    bool rst_ni = false;
    std::uint64_t req_valid_i = 0;  ///< bit i: requester i
    Bits req_data_i;                ///< requester i at bits [i*width +: width]
    bool gnt_ready_i = false;

    bool operator==(const In&) const = default;  ///< (the core model's wiring settles on it)
  };
  struct Out {
    std::uint64_t req_ready_o = 0;
    bool gnt_valid_o = false;
    Bits gnt_data_o;
    std::uint64_t gnt_idx_o = 0;
  };

  explicit RrArbiter(Params p);

  const Params& params() const { return p_; }
  unsigned idx_width() const;
  In make_in() const { return In{false, 0, Bits(p_.n * p_.width), false}; }
  Out make_out() const { return Out{0, false, Bits(p_.width), 0}; }

  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  template <class V>
  void visit_in(In& in, V&& v) const {
    v("rst_ni", in.rst_ni, 1);
    v("req_valid_i", in.req_valid_i, p_.n);
    v("req_data_i", in.req_data_i, p_.n * p_.width);
    v("gnt_ready_i", in.gnt_ready_i, 1);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    v("req_ready_o", out.req_ready_o, p_.n);
    v("gnt_valid_o", out.gnt_valid_o, 1);
    v("gnt_data_o", out.gnt_data_o, p_.width);
    v("gnt_idx_o", out.gnt_idx_o, idx_width());
  }

 private:
  struct Pick {
    bool found = false;
    unsigned idx = 0;
  };
  Pick pick(const In& in, unsigned prio, bool lock, unsigned lock_idx) const;

  Params p_;
  unsigned prio_q_ = 0;
  bool lock_q_ = false;
  unsigned lock_idx_q_ = 0;
};

}  // namespace trn::common
