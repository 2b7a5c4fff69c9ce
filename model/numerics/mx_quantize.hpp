// trn::numerics::MxQuantize — cycle-exact model of rtl/numerics/mx_quantize.sv: one MX block (32
// FP32 values) in per cycle, its E8M0 scale and 32 element codes out two cycles later.
//   stage 1: amax exponent, Inf/NaN detection -> shared exponent (registered with the values)
//   stage 2: 32 scaled RNE conversions with saturation (registered outputs)
// elem_i: e4m3fn, e5m2 or e2m1 (codes 8 bits each, E2M1 in the low 4); neuron_i selects Neuron's
// variant (scale 2x). Any other elem_i gives a NaN scale and zero codes. Outputs hold while idle.
#pragma once

#include <cstdint>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "numerics/mx.hpp"
#include "sv/ports/mx_quantize.hpp"

namespace trn::numerics {

class MxQuantize {
 public:
  struct Params {};
  struct In {
    bool rst_ni = false;
    bool valid_i = false;
    std::uint64_t elem_i = 0;
    bool neuron_i = false;
    Bits data_i{32 * kMxBlock};
  };
  struct Out {
    bool valid_o = false;
    std::uint64_t scale_o = 0;
    Bits codes_o{8 * kMxBlock};
  };

  explicit MxQuantize(Params = {}) {}
  In make_in() const { return In{}; }
  Out make_out() const { return Out{}; }
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/numerics/mx_quantize.sv, generated from its header; the module's parameters from this model's.
  sv::ports::mx_quantize::Params sv_params() const { return {}; }
  TRN_MODULE_PORTS(mx_quantize)

 private:
  void reset();
  // stage 1
  bool s1_valid_q_ = false;
  Bits s1_data_q_{32 * kMxBlock};
  std::uint64_t s1_elem_q_ = 0;
  bool s1_nan_q_ = false;
  int s1_exp_q_ = 0;  ///< shared exponent
  // stage 2 (outputs)
  bool valid_q_ = false;
  std::uint64_t scale_q_ = 0;
  Bits codes_q_{8 * kMxBlock};
};

}  // namespace trn::numerics
