// trn::numerics::FpMulNarrow — cycle-exact model of rtl/numerics/fp_mul_narrow.sv: Lanes products of
// two narrow operands (BF16, FP16, any FP8 with its bias register, E2M1; each side its own format)
// as FP32, exact wherever FP32 holds the product. Latency 1; y_o holds while valid_i is low. An
// operand format outside that list gives +0 in every lane.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "common/bits.hpp"
#include "common/pipe_reg.hpp"
#include "numerics/arith.hpp"

namespace trn::numerics {

bool is_narrow_operand(Format f);

class FpMulNarrow {
 public:
  struct Params {
    unsigned lanes = 4;
  };
  struct In {
    bool rst_ni = false;
    bool valid_i = false;
    std::uint64_t fmt_a_i = 0, bias_a_i = 0, fmt_b_i = 0, bias_b_i = 0;
    Bits a_i, b_i;
  };
  struct Out {
    bool valid_o = false;
    Bits y_o;
  };

  explicit FpMulNarrow(Params p) : p_(p), out_(32 * p.lanes) {
    if (p_.lanes < 1) throw std::invalid_argument("FpMulNarrow: lanes must be >= 1");
  }
  const Params& params() const { return p_; }
  In make_in() const { return In{false, false, 0, 0, 0, 0, Bits(16 * p_.lanes), Bits(16 * p_.lanes)}; }
  Out make_out() const { return Out{false, Bits(32 * p_.lanes)}; }

  void eval(const In& in, Out& out) const { out_.eval(in.rst_ni, out.valid_o, out.y_o); }
  void tick(const In& in);

  template <class V>
  void visit_in(In& in, V&& v) const {
    v("rst_ni", in.rst_ni, 1);
    v("valid_i", in.valid_i, 1);
    v("fmt_a_i", in.fmt_a_i, 4);
    v("bias_a_i", in.bias_a_i, 6);
    v("fmt_b_i", in.fmt_b_i, 4);
    v("bias_b_i", in.bias_b_i, 6);
    v("a_i", in.a_i, 16 * p_.lanes);
    v("b_i", in.b_i, 16 * p_.lanes);
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

}  // namespace trn::numerics
