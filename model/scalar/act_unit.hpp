// trn::scalar::ActUnit — cycle-exact model of rtl/scalar/act_unit.sv: Lanes activation units,
// y = activate(func_i, x) per lane, latency 1 (an output stage that holds while valid_i is low).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "common/bits.hpp"
#include "common/pipe_reg.hpp"
#include "scalar/activation.hpp"

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

  template <class V>
  void visit_in(In& in, V&& v) const {
    v("rst_ni", in.rst_ni, 1);
    v("valid_i", in.valid_i, 1);
    v("func_i", in.func_i, 4);
    v("x_i", in.x_i, 32 * p_.lanes);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    v("valid_o", out.valid_o, 1);
    v("y_o", out.y_o, 32 * p_.lanes);
  }

 private:
  Params p_;
  common::PipeReg out_;  ///< u_out
};

}  // namespace trn::scalar
