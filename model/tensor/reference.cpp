#include "tensor/reference.hpp"

#include <algorithm>

#include "numerics/arith.hpp"

namespace trn::tensor {

using numerics::Format;

unsigned op_bias(const Command& c) {
  return c.mx ? static_cast<unsigned>(numerics::format_info(static_cast<Format>(c.fmt)).bias) : c.bias;
}

FunctionalReference::FunctionalReference(const TensorEngine::Params& prm)
    : psum(static_cast<std::size_t>(prm.banks) * prm.cols * prm.depth, 0), p_(prm) {}

void FunctionalReference::run(const Command& c, const std::vector<std::vector<std::uint32_t>>& sbuf) {
  const auto at = [&](unsigned bank, unsigned part, unsigned off) -> std::uint32_t& {
    return psum[(static_cast<std::size_t>(bank) * p_.cols + part) * p_.depth + off];
  };
  if (c.op == Op::load_stationary) {
    k_ = c.k;
    m_ = c.m;
    wfmt_ = c.fmt;
    wbias_ = op_bias(c);
    wmx_ = c.mx;
    w_.assign(static_cast<std::size_t>(p_.rows) * p_.cols, 0);
    for (unsigned r = 0; r < p_.rows; ++r)
      for (unsigned j = 0; j < m_; ++j) w_[r * p_.cols + j] = sbuf[r][c.addr + j];
    return;
  }
  if (c.tr) {  // the [K, M] tile to PSUM as [M, K], bits unchanged
    for (unsigned n = 0; n < c.n; ++n)
      for (unsigned j = 0; j < m_; ++j) at(c.bank, j, c.off + n) = w_[n * p_.cols + j];
    return;
  }
  const unsigned bs = block_rows();
  const auto scale = [](bool mx, std::uint32_t word) {
    return numerics::decode(Format::e8m0, mx ? (word >> 8) & 0xFF : 127);
  };
  for (unsigned n = 0; n < c.n; ++n)
    for (unsigned j = 0; j < m_; ++j) {
      std::uint32_t t = 0x80000000u;  // -0
      for (unsigned b0 = 0; b0 < p_.rows; b0 += bs) {
        std::uint32_t s = 0x80000000u;
        for (unsigned r = b0; r < std::min(b0 + bs, k_); ++r)
          s = numerics::fp32_add(s, pe_product(w_[r * p_.cols + j], wfmt_, wbias_, sbuf[r][c.addr + n], c.fmt, op_bias(c)));
        const std::uint32_t sw = scale(wmx_, w_[b0 * p_.cols + j]), sx = scale(c.mx, sbuf[b0][c.addr + n]);
        t = numerics::fp32_add(t, numerics::fp32_mul(numerics::fp32_mul(s, sw), sx));
      }
      std::uint32_t& d = at(c.bank, j, c.off + n);
      d = c.acc ? numerics::fp32_add(d, t) : t;
    }
}

}  // namespace trn::tensor
