#include "numerics/mx_quantize.hpp"

#include <array>

namespace trn::numerics {

void MxQuantize::reset() { *this = MxQuantize(); }

void MxQuantize::eval(const In& in, Out& out) const {
  out.valid_o = in.rst_ni && valid_q_;
  out.scale_o = in.rst_ni ? scale_q_ : 0;
  out.codes_o = in.rst_ni ? codes_q_ : Bits(8 * kMxBlock);
}

void MxQuantize::tick(const In& in) {
  if (!in.rst_ni) {
    reset();
    return;
  }
  // stage 2 from stage 1's registers
  valid_q_ = s1_valid_q_;
  if (s1_valid_q_) {
    const auto elem = static_cast<Format>(s1_elem_q_);
    if (s1_nan_q_ || !is_mx_element(elem)) {
      scale_q_ = 0xFF;
      codes_q_ = Bits(8 * kMxBlock);
    } else {
      scale_q_ = static_cast<std::uint64_t>(s1_exp_q_ + 127);
      Convert c;
      c.saturate = true;
      for (unsigned i = 0; i < kMxBlock; ++i)
        codes_q_.set_slice(8 * i, 8,
                           encode_scaled(elem, static_cast<std::uint32_t>(s1_data_q_.slice(32 * i, 32)), s1_exp_q_, c));
    }
  }
  // stage 1 from the inputs
  s1_valid_q_ = in.valid_i;
  if (in.valid_i) {
    std::array<std::uint32_t, kMxBlock> v{};
    bool nan = false;
    for (unsigned i = 0; i < kMxBlock; ++i) {
      v[i] = static_cast<std::uint32_t>(in.data_i.slice(32 * i, 32));
      nan |= (v[i] & 0x7F800000u) == 0x7F800000u;
    }
    const auto elem = static_cast<Format>(in.elem_i);
    s1_data_q_ = in.data_i;
    s1_elem_q_ = in.elem_i;
    s1_nan_q_ = nan;
    s1_exp_q_ = is_mx_element(elem) ? mx_shared_exponent(v, elem, in.neuron_i) : 0;
  }
}

}  // namespace trn::numerics
