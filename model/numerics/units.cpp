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
FpEncode::FpEncode(Params p) : p_(p), rng_({p.lanes}), out_(16 * p.lanes) {
  if (p_.lanes < 1) throw std::invalid_argument("FpEncode: lanes must be >= 1");
}

FpEncode::In FpEncode::make_in() const {
  In in;
  in.lane_en_i = Bits(p_.lanes);
  in.data_i = Bits(32 * p_.lanes);
  return in;
}

void FpEncode::eval(const In& in, Out& out) const { out_.eval(in.rst_ni, out.valid_o, out.code_o); }

void FpEncode::tick(const In& in) {
  out_.tick(in.rst_ni, in.valid_i, [&](Bits& code_d) {
    const bool ok = is_convert_format(in.fmt_i);
    for (unsigned l = 0; l < p_.lanes; ++l) {
      std::uint32_t code = 0;
      if (ok && in.lane_en_i.bit(l)) {
        Convert c;
        c.mode = in.sr_i ? Round::sr : Round::rne;
        c.saturate = in.sat_i;
        c.bias = static_cast<int>(in.bias_i);
        c.rnd = rng_.peek(l);
        code = encode(static_cast<Format>(in.fmt_i), static_cast<std::uint32_t>(in.data_i.slice(32 * l, 32)), c);
      }
      code_d.set_slice(16 * l, 16, code);
    }
  });
  // u_rng: load (reset: seed 0) has priority; each enabled lane steps once per SR conversion.
  if (!in.rst_ni || in.seed_load_i) {
    rng_.load(in.rst_ni ? static_cast<std::uint32_t>(in.seed_i) : 0);
  } else if (in.valid_i && in.sr_i) {
    for (unsigned l = 0; l < p_.lanes; ++l)
      if (in.lane_en_i.bit(l)) rng_.advance(l);
  }
}

// ---- FpDecode
FpDecode::FpDecode(Params p) : p_(p), out_(32 * p.lanes) {
  if (p_.lanes < 1) throw std::invalid_argument("FpDecode: lanes must be >= 1");
}

void FpDecode::eval(const In& in, Out& out) const { out_.eval(in.rst_ni, out.valid_o, out.data_o); }

void FpDecode::tick(const In& in) {
  out_.tick(in.rst_ni, in.valid_i, [&](Bits& data_d) {
    const bool ok = is_convert_format(in.fmt_i);
    for (unsigned l = 0; l < p_.lanes; ++l)
      data_d.set_slice(32 * l, 32,
                       ok ? decode(static_cast<Format>(in.fmt_i),
                                   static_cast<std::uint32_t>(in.code_i.slice(16 * l, 16)), static_cast<int>(in.bias_i))
                          : 0);
  });
}

// ---- FpMulNarrow
void FpMulNarrow::tick(const In& in) {
  out_.tick(in.rst_ni, in.valid_i, [&](Bits& y_d) {
    const auto fa = static_cast<Format>(in.fmt_a_i), fb = static_cast<Format>(in.fmt_b_i);
    const bool ok = is_narrow_operand(fa) && is_narrow_operand(fb);
    for (unsigned l = 0; l < p_.lanes; ++l) {
      std::uint32_t y = 0;
      if (ok) {
        const Operand a{fa, static_cast<std::uint32_t>(in.a_i.slice(16 * l, 16)), static_cast<int>(in.bias_a_i)};
        const Operand b{fb, static_cast<std::uint32_t>(in.b_i.slice(16 * l, 16)), static_cast<int>(in.bias_b_i)};
        y = mul_narrow(a, b);
      }
      y_d.set_slice(32 * l, 32, y);
    }
  });
}

}  // namespace trn::numerics
