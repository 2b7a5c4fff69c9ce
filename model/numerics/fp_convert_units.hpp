// trn::numerics::FpEncode and FpDecode — cycle-exact models of rtl/numerics/fp_encode.sv and
// rtl/numerics/fp_decode.sv, Lanes conversions per cycle, latency 1 (outputs hold while valid_i is
// low).
//
// FpEncode: FP32 -> fmt_i (bf16, fp16, the FP8 variants with bias_i, e2m1, e8m0), RNE or stochastic
// (sr_i) with saturate (sat_i); lane l converts when lane_en_i[l] (code 0 otherwise) and, in SR
// mode, takes the next word of its own generator (an embedded SrRng; seed_load_i loads seed_i,
// which has priority over the step). Codes are 16 bits per lane, zero-extended.
// FpDecode: code (16 bits per lane) of fmt_i -> FP32, exact; NaN -> 0x7FC00000.
// A fmt_i outside the supported list gives 0 in every lane.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "common/bits.hpp"
#include "common/pipe_reg.hpp"
#include "common/ports.hpp"
#include "numerics/format.hpp"
#include "numerics/sr_rng.hpp"
#include "sv/ports/fp_decode.hpp"
#include "sv/ports/fp_encode.hpp"

namespace trn::numerics {

/// Formats the converter units take (FP32 <-> these).
bool is_convert_format(std::uint64_t fmt);

class FpEncode {
 public:
  struct Params {
    unsigned lanes = 4;
  };
  struct In {
    bool rst_ni = false;
    bool valid_i = false;
    std::uint64_t fmt_i = 0, bias_i = 0;
    bool sr_i = false, sat_i = false;
    Bits lane_en_i;
    bool seed_load_i = false;
    std::uint64_t seed_i = 0;
    Bits data_i;
  };
  struct Out {
    bool valid_o = false;
    Bits code_o;
  };

  explicit FpEncode(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const { return Out{false, Bits(16 * p_.lanes)}; }
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/numerics/fp_encode.sv, generated from its header; the module's parameters from this model's.
  sv::ports::fp_encode::Params sv_params() const { return {.Lanes = p_.lanes}; }
  TRN_MODULE_PORTS(fp_encode)

 private:
  Params p_;
  SrRng rng_;            ///< u_rng
  common::PipeReg out_;  ///< u_out
};

class FpDecode {
 public:
  struct Params {
    unsigned lanes = 4;
  };
  struct In {
    bool rst_ni = false;
    bool valid_i = false;
    std::uint64_t fmt_i = 0, bias_i = 0;
    Bits code_i;
  };
  struct Out {
    bool valid_o = false;
    Bits data_o;
  };

  explicit FpDecode(Params p);
  const Params& params() const { return p_; }
  In make_in() const { return In{false, false, 0, 0, Bits(16 * p_.lanes)}; }
  Out make_out() const { return Out{false, Bits(32 * p_.lanes)}; }
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/numerics/fp_decode.sv, generated from its header; the module's parameters from this model's.
  sv::ports::fp_decode::Params sv_params() const { return {.Lanes = p_.lanes}; }
  TRN_MODULE_PORTS(fp_decode)

 private:
  Params p_;
  common::PipeReg out_;  ///< u_out
};

}  // namespace trn::numerics
