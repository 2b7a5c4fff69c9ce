// trn::numerics::Fp32Add and Fp32Mul — cycle-exact models of rtl/numerics/fp32_add.sv and
// rtl/numerics/fp32_mul.sv: Lanes independent FP32 lanes, one result per lane per cycle, latency
// 1 (y_o holds the result of the operands presented with valid_i on the previous cycle; it keeps its
// value while valid_i is low). The arithmetic is the host's IEEE float (numerics/arith.hpp).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "common/bits.hpp"
#include "common/pipe_reg.hpp"
#include "numerics/arith.hpp"
#include "sv/ports/fp32_add.hpp"
#include "sv/ports/fp32_mul.hpp"

namespace trn::numerics {

/// Op: the lane's operation; Ports: the RTL module's generated port list (sv::ports::fp32_add or
/// fp32_mul, the same ports).
template <std::uint32_t (*Op)(std::uint32_t, std::uint32_t), class Ports>
class Fp32Lanewise {
 public:
  struct Params {
    unsigned lanes = 4;
  };
  struct In {
    bool rst_ni = false;
    bool valid_i = false;
    Bits a_i, b_i;
  };
  struct Out {
    bool valid_o = false;
    Bits y_o;
  };

  explicit Fp32Lanewise(Params p) : p_(p), out_(32 * p.lanes) {
    if (p_.lanes < 1) throw std::invalid_argument("Fp32 unit: lanes must be >= 1");
  }
  const Params& params() const { return p_; }
  In make_in() const { return In{false, false, Bits(32 * p_.lanes), Bits(32 * p_.lanes)}; }
  Out make_out() const { return Out{false, Bits(32 * p_.lanes)}; }

  void eval(const In& in, Out& out) const { out_.eval(in.rst_ni, out.valid_o, out.y_o); }
  void tick(const In& in) {
    out_.tick(in.rst_ni, in.valid_i, [&](Bits& y) {
      for (unsigned l = 0; l < p_.lanes; ++l)
        y.set_slice(32 * l, 32,
                    Op(static_cast<std::uint32_t>(in.a_i.slice(32 * l, 32)),
                       static_cast<std::uint32_t>(in.b_i.slice(32 * l, 32))));
    });
  }

  /// The ports of rtl/numerics/fp32_add.sv or fp32_mul.sv, generated from its header.
  typename Ports::Params sv_params() const { return {.Lanes = p_.lanes}; }
  template <class V>
  void visit_in(In& in, V&& v) const {
    Ports::visit_in(sv_params(), in, v);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    Ports::visit_out(sv_params(), out, v);
  }

 private:
  Params p_;
  common::PipeReg out_;  ///< u_out
};

using Fp32Add = Fp32Lanewise<fp32_add, sv::ports::fp32_add>;
using Fp32Mul = Fp32Lanewise<fp32_mul, sv::ports::fp32_mul>;

}  // namespace trn::numerics
