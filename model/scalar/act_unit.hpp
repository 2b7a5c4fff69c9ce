// trn::scalar::ActUnit — cycle-exact model of rtl/scalar/act_unit.sv: Lanes activation units,
// y = activate(func_i, x) per lane, latency 1 (an output stage that holds while valid_i is low).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "common/bits.hpp"
#include "common/pipe_reg.hpp"
#include "common/ports.hpp"
#include "scalar/activation.hpp"
#include "sv/ports/act_unit.hpp"

namespace trn::scalar {

class ActUnit {
 public:
  struct Params {
    unsigned lanes = 4;
  };
  struct In {
    bool rst_ni = false;
    bool valid_i = false;
    std::uint64_t func_i = 0;
    Bits x_i;
  };
  struct Out {
    bool valid_o = false;
    Bits y_o;
  };

  explicit ActUnit(Params p) : p_(p), out_(32 * p.lanes) {
    if (p_.lanes < 1) throw std::invalid_argument("ActUnit: lanes must be >= 1");
  }
  const Params& params() const { return p_; }
  In make_in() const { return In{false, false, 0, Bits(32 * p_.lanes)}; }
  Out make_out() const { return Out{false, Bits(32 * p_.lanes)}; }

  void eval(const In& in, Out& out) const { out_.eval(in.rst_ni, out.valid_o, out.y_o); }
  void tick(const In& in) {
    out_.tick(in.rst_ni, in.valid_i, [&](Bits& y) {
      for (unsigned l = 0; l < p_.lanes; ++l)
        y.set_slice(32 * l, 32,
                    activate(static_cast<Act>(in.func_i), static_cast<std::uint32_t>(in.x_i.slice(32 * l, 32))));
    });
  }

  /// The ports of rtl/scalar/act_unit.sv, generated from its header; the module's parameters from this model's.
  sv::ports::act_unit::Params sv_params() const { return {.Lanes = p_.lanes}; }
  TRN_MODULE_PORTS(act_unit)

 private:
  Params p_;
  common::PipeReg out_;  ///< u_out
};

}  // namespace trn::scalar
