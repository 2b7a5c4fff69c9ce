// trn::common::PipeReg — cycle-exact model of rtl/common/pipe_reg.sv: one pipeline stage without
// back-pressure. valid follows valid_i one cycle later; data loads only with valid_i and holds
// otherwise; reset (asynchronous, active low) clears both.
#pragma once

#include "common/bits.hpp"

namespace trn::common {

class PipeReg {
 public:
  explicit PipeReg(unsigned width) : data_q_(width) {}

  /// This cycle's outputs (registered: only rst_ni matters).
  void eval(bool rst_ni, bool& valid_o, Bits& data_o) const {
    valid_o = valid(rst_ni);
    data_o = rst_ni ? data_q_ : Bits(data_q_.width());
  }
  /// valid_o, and data_o while valid_o holds, without the copy.
  bool valid(bool rst_ni) const { return rst_ni && valid_q_; }
  const Bits& data() const { return data_q_; }
  /// The clock edge; `compute(Bits& d)` fills the stage's input, called only when valid_i.
  template <class F>
  void tick(bool rst_ni, bool valid_i, F&& compute) {
    if (!rst_ni) {
      valid_q_ = false;
      data_q_ = Bits(data_q_.width());
      return;
    }
    valid_q_ = valid_i;
    if (valid_i) compute(data_q_);
  }

 private:
  bool valid_q_ = false;
  Bits data_q_;
};

}  // namespace trn::common
