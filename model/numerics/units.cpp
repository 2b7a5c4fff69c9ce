// Unit models of rtl/numerics: FpEncode, FpDecode, FpMulNarrow (their pipelines; the arithmetic is
// numerics/format.cpp and numerics/arith.cpp).
#include <stdexcept>

#include "numerics/fp_convert_units.hpp"
#include "numerics/fp_mul_narrow.hpp"

namespace trn::numerics {

bool is_convert_format(std::uint64_t fmt) {
  return fmt >= static_cast<unsigned>(Format::bf16) && fmt <= static_cast<unsigned>(Format::e8m0);
}

bool is_narrow_operand(Format f) { return f >= Format::bf16 && f <= Format::e2m1; }

// ---- FpEncode
FpEncode::FpEncode(Params p) : p_(p), rng_({p.lanes}), code_q_(16 * p.lanes) {
  if (p_.lanes < 1) throw std::invalid_argument("FpEncode: lanes must be >= 1");
}

FpEncode::In FpEncode::make_in() const {
  In in;
  in.lane_en_i = Bits(p_.lanes);
  in.data_i = Bits(32 * p_.lanes);
  return in;
}

void FpEncode::eval(const In& in, Out& out) const {
  out.valid_o = in.rst_ni && valid_q_;
  out.code_o = in.rst_ni ? code_q_ : Bits(16 * p_.lanes);
}

void FpEncode::tick(const In& in) {
  if (!in.rst_ni) {
    valid_q_ = false;
    code_q_ = Bits(16 * p_.lanes);
    rng_.load(0);
    return;
  }
  valid_q_ = in.valid_i;
  if (in.valid_i) {
    const bool ok = is_convert_format(in.fmt_i);
    for (unsigned l = 0; l < p_.lanes; ++l) {
      std::uint32_t code = 0;
      const bool en = in.lane_en_i.bit(l);
      if (ok && en) {
        Convert c;
        c.mode = in.sr_i ? Round::sr : Round::rne;
        c.saturate = in.sat_i;
        c.bias = static_cast<int>(in.bias_i);
        c.rnd = rng_.peek(l);
        code = encode(static_cast<Format>(in.fmt_i), static_cast<std::uint32_t>(in.data_i.slice(32 * l, 32)), c);
      }
      code_q_.set_slice(16 * l, 16, code);
    }
    if (in.sr_i && !in.seed_load_i)
      for (unsigned l = 0; l < p_.lanes; ++l)
        if (in.lane_en_i.bit(l)) rng_.advance(l);
  }
  if (in.seed_load_i) rng_.load(static_cast<std::uint32_t>(in.seed_i));
}

// ---- FpDecode
FpDecode::FpDecode(Params p) : p_(p), data_q_(32 * p.lanes) {
  if (p_.lanes < 1) throw std::invalid_argument("FpDecode: lanes must be >= 1");
}

void FpDecode::eval(const In& in, Out& out) const {
  out.valid_o = in.rst_ni && valid_q_;
  out.data_o = in.rst_ni ? data_q_ : Bits(32 * p_.lanes);
}

void FpDecode::tick(const In& in) {
  if (!in.rst_ni) {
    valid_q_ = false;
    data_q_ = Bits(32 * p_.lanes);
    return;
  }
  valid_q_ = in.valid_i;
  if (!in.valid_i) return;
  const bool ok = is_convert_format(in.fmt_i);
  for (unsigned l = 0; l < p_.lanes; ++l)
    data_q_.set_slice(32 * l, 32,
                      ok ? decode(static_cast<Format>(in.fmt_i), static_cast<std::uint32_t>(in.code_i.slice(16 * l, 16)),
                                  static_cast<int>(in.bias_i))
                         : 0);
}

// ---- FpMulNarrow
void FpMulNarrow::tick(const In& in) {
  if (!in.rst_ni) {
    valid_q_ = false;
    y_q_ = Bits(32 * p_.lanes);
    return;
  }
  valid_q_ = in.valid_i;
  if (!in.valid_i) return;
  const auto fa = static_cast<Format>(in.fmt_a_i), fb = static_cast<Format>(in.fmt_b_i);
  const bool ok = is_narrow_operand(fa) && is_narrow_operand(fb);
  for (unsigned l = 0; l < p_.lanes; ++l) {
    std::uint32_t y = 0;
    if (ok) {
      const Operand a{fa, static_cast<std::uint32_t>(in.a_i.slice(16 * l, 16)), static_cast<int>(in.bias_a_i)};
      const Operand b{fb, static_cast<std::uint32_t>(in.b_i.slice(16 * l, 16)), static_cast<int>(in.bias_b_i)};
      y = mul_narrow(a, b);
    }
    y_q_.set_slice(32 * l, 32, y);
  }
}

}  // namespace trn::numerics
