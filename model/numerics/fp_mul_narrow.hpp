// trn::numerics::FpMulNarrow — cycle-exact model of rtl/numerics/fp_mul_narrow.sv: Lanes products of
// two narrow operands (BF16, FP16, any FP8 with its bias register, E2M1; each side its own format)
// as FP32, exact wherever FP32 holds the product. Latency 1; y_o holds while valid_i is low. An
// operand format outside that list gives +0 in every lane.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "common/bits.hpp"
#include "common/pipe_reg.hpp"
#include "common/ports.hpp"
#include "numerics/arith.hpp"
#include "sv/ports/fp_mul_narrow.hpp"

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

  /// The ports of rtl/numerics/fp_mul_narrow.sv, generated from its header; the module's parameters from this model's.
  sv::ports::fp_mul_narrow::Params sv_params() const { return {.Lanes = p_.lanes}; }
  TRN_MODULE_PORTS(fp_mul_narrow)

 private:
  Params p_;
  common::PipeReg out_;  ///< u_out
};

}  // namespace trn::numerics
