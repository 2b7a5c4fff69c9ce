// trn::common::RrArbiter — cycle-exact model of rtl/common/rr_arbiter.sv.
//
// State as in the RTL: prio_q (requester with the highest priority), lock_q / lock_idx_q (a
// grant held until its handshake). The grant is combinational in the requests and ready, so
// eval() needs this cycle's inputs.
#pragma once

#include <cstdint>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "sv/ports/rr_arbiter.hpp"

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

  /// The ports of rtl/common/rr_arbiter.sv, generated from its header; the module's parameters from this model's.
  sv::ports::rr_arbiter::Params sv_params() const { return {.N = p_.n, .Width = p_.width}; }
  TRN_MODULE_PORTS(rr_arbiter)

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
