#include "tensor/reference.hpp"

#include <algorithm>

#include "mem/elements.hpp"
#include "numerics/arith.hpp"
#include "numerics/sr_rng.hpp"

namespace trn::tensor {

using numerics::Format;

Sbuf FunctionalReference::psum_rows() const {
  Sbuf m(p_.cols, std::vector<std::uint8_t>(static_cast<std::size_t>(p_.banks) * p_.depth * 4, 0));
  for (unsigned b = 0; b < p_.banks; ++b)
    for (unsigned c = 0; c < p_.cols; ++c)
      for (unsigned e = 0; e < p_.depth; ++e)
        mem::store_elem(m[c], b * p_.depth + e, 3, psum[(static_cast<std::size_t>(b) * p_.cols + c) * p_.depth + e]);
  return m;
}

void FunctionalReference::set_psum_rows(const Sbuf& rows) {
  for (unsigned b = 0; b < p_.banks; ++b)
    for (unsigned c = 0; c < p_.cols; ++c)
      for (unsigned e = 0; e < p_.depth; ++e)
        psum[(static_cast<std::size_t>(b) * p_.cols + c) * p_.depth + e] =
            mem::load_elem(rows.at(c), b * p_.depth + e, 3);
}

void FunctionalReference::engine_write(unsigned bank, unsigned off, const Bits& mask, const Bits& data) {
  if (bank >= p_.banks || off >= p_.depth) return;
  for (unsigned c = 0; c < p_.cols; ++c)
    if (mask.bit(c))
      psum[(static_cast<std::size_t>(bank) * p_.cols + c) * p_.depth + off] =
          static_cast<std::uint32_t>(data.slice(32 * c, 32));
}

sv::te_pkg::te_cmd_t to_cmd(const Command& c) {
  sv::te_pkg::te_cmd_t cmd;
  cmd.op = static_cast<sv::te_pkg::te_op_e>(c.op);
  cmd.tag = static_cast<std::uint8_t>(c.tag);
  cmd.fmt = static_cast<std::uint8_t>(c.fmt);
  cmd.bias = static_cast<std::uint8_t>(c.bias);
  cmd.addr = static_cast<std::uint32_t>(c.addr);
  cmd.k = static_cast<std::uint16_t>(c.k);
  cmd.m = static_cast<std::uint16_t>(c.m);
  cmd.n = static_cast<std::uint16_t>(c.n);
  cmd.bank = static_cast<std::uint8_t>(c.bank);
  cmd.off = static_cast<std::uint16_t>(c.off);
  cmd.acc = c.acc;
  cmd.tr = c.tr;
  cmd.mx = c.mx;
  cmd.sc_addr = c.sc_addr;
  cmd.kpe = static_cast<std::uint8_t>(c.kpe);
  cmd.pbf = c.pbf;
  cmd.sr = c.sr;
  cmd.seed_ld = c.seed_ld;
  cmd.seed = c.seed;
  cmd.spm = static_cast<std::uint8_t>(c.spm);
  cmd.spq = static_cast<std::uint8_t>(c.spq);
  cmd.rg = static_cast<std::uint8_t>(c.rg);
  return cmd;
}

unsigned op_bias(const Command& c) {
  return c.mx ? static_cast<unsigned>(numerics::format_info(static_cast<Format>(c.fmt)).bias) : c.bias;
}

FunctionalReference::FunctionalReference(const TensorEngine::Params& prm)
    : psum(static_cast<std::size_t>(prm.banks) * prm.cols * prm.depth, 0), p_(prm), rng_(prm.cols) {
  for (unsigned j = 0; j < p_.cols; ++j) rng_[j] = numerics::Xorshift32::lane_seed(0, j);
}

namespace {
std::int32_t int_value(std::uint32_t code, unsigned fmt) {
  return fmt == kInt8 ? static_cast<std::int8_t>(code) : static_cast<std::int32_t>(code & 0xFF);
}
}  // namespace

void FunctionalReference::run(const Command& c, const Sbuf& sbuf) {
  // K rows per partition: 1, 2 (double row: a 2-byte element holds rows 2r and 2r + 1), or 4 (MX:
  // rows 4r + j in byte j of a 4-byte element, E2M1 in nibble j of a 2-byte one); an MX block is
  // 32 rows: 32 partitions (or all R below 32), with four rows per PE 8 (or all R below 8)
  const bool e2m1 = c.fmt == static_cast<unsigned>(Format::e2m1);
  const unsigned per = 1u << c.kpe;
  const bool sparse_mm = c.op == Op::multiply_moving && wspm_ != 0;
  const unsigned es = c.kpe == 1 ? 2 : c.kpe == 2 ? (e2m1 ? 2 : 3) : mem::dtype_esize(c.fmt) + (sparse_mm ? wspq_ : 0);
  const unsigned bs = c.kpe == 2 ? (p_.rows < 8 ? p_.rows : 8) : block_rows();
  const std::uint64_t base = mem::base_index(c.addr, es);
  // the code of row k, column j of the command's operand
  const auto code = [&](unsigned k, std::uint64_t j) -> std::uint32_t {
    if (sparse_mm) {  // PE row k keeps row o of the operand: lane o % q of partition o / q
      const unsigned o = ((k >> (wspm_ - wspq_)) << wspm_) + widx_[k], lw = 4u << mem::dtype_esize(c.fmt);
      const std::uint32_t e = mem::load_elem(sbuf[o >> wspq_], base + j, es);
      return (e >> (lw * (o & ((1u << wspq_) - 1)))) & ((1u << lw) - 1);
    }
    const std::uint32_t e = mem::load_elem(sbuf[k / per], base + j, es);
    if (per == 1) return e;
    return per == 4 && e2m1 ? (e >> (4 * (k % per))) & 0xF : (e >> (8 * (k % per))) & 0xFF;
  };
  // the E8M0 scale of block b for column j (1.0 for a non-MX operand)
  const auto scale = [&](bool mx, unsigned b, std::uint64_t j) -> std::uint32_t {
    return mx ? mem::load_elem(sbuf[b * bs], c.sc_addr + j, 1) : 127;
  };
  const auto at = [&](unsigned bank, unsigned part, unsigned off) -> std::uint32_t& {
    return psum[(static_cast<std::size_t>(bank) * p_.cols + part) * p_.depth + off];
  };
  if (c.op == Op::load_stationary) {
    k_ = c.k;
    m_ = c.m;
    wfmt_ = c.fmt;
    wbias_ = op_bias(c);
    wmx_ = c.mx;
    wspm_ = c.spm;
    wspq_ = c.spq;
    wrg_ = c.rg;
    widx_.assign(p_.rows, 0);
    if (c.spm != 0)
      for (unsigned r = 0; r < p_.rows; ++r) widx_[r] = sbuf[r].at(c.sc_addr) & 0xF;
    w_.assign(static_cast<std::size_t>(p_.rows) * per * p_.cols, 0);
    ws_.assign(static_cast<std::size_t>(p_.rows / bs) * p_.cols, 127);
    for (unsigned k = 0; k < p_.rows * per; ++k)
      for (unsigned j = 0; j < m_; ++j) w_[k * p_.cols + j] = code(k, j);
    for (unsigned b = 0; b < p_.rows / bs; ++b)
      for (unsigned j = 0; j < m_; ++j) ws_[b * p_.cols + j] = scale(wmx_, b, j);
    return;
  }
  if (c.seed_ld)
    for (unsigned j = 0; j < p_.cols; ++j) rng_[j] = numerics::Xorshift32::lane_seed(c.seed, j);
  if (c.tr) {  // the [K, M] tile to PSUM as [M, K], bits unchanged
    for (unsigned n = 0; n < c.n; ++n)
      for (unsigned j = 0; j < m_; ++j) at(c.bank, j, c.off + n) = w_[n * p_.cols + j];
    return;
  }
  // row groups: group g's rows are g * gk .. g * gk + K - 1 of the operand (gk = its partitions' rows),
  // its blocks those of the array within the group, its result in bank + g
  const unsigned groups = 1u << wrg_, gk = p_.rows * per / groups, blk = std::min(bs * per, gk);
  if (is_int_format(c.fmt)) {  // exact products summed in INT32 with wrap (any order gives the same bits)
    for (unsigned g = 0; g < groups; ++g)
      for (unsigned n = 0; n < c.n; ++n)
        for (unsigned j = 0; j < m_; ++j) {
          std::uint32_t t = 0;
          for (unsigned k = g * gk; k < g * gk + k_; ++k)
            t += static_cast<std::uint32_t>(int_value(w_[k * p_.cols + j], wfmt_) * int_value(code(k, n), c.fmt));
          std::uint32_t& d = at(c.bank + g, j, c.off + n);
          d = c.acc ? d + t : t;
        }
    return;
  }
  for (unsigned g = 0; g < groups; ++g)
    for (unsigned n = 0; n < c.n; ++n)
      for (unsigned j = 0; j < m_; ++j) {
        std::uint32_t t = 0x80000000u;  // -0
        for (unsigned k0 = g * gk; k0 < (g + 1) * gk; k0 += blk) {
          std::uint32_t s = 0x80000000u;
          for (unsigned k = k0; k < std::min(k0 + blk, g * gk + k_); ++k)
            s = numerics::fp32_add(s, pe_product(w_[k * p_.cols + j], wfmt_, wbias_, code(k, n), c.fmt, op_bias(c)));
          const std::uint32_t sw = numerics::decode(Format::e8m0, ws_[(k0 / (bs * per)) * p_.cols + j]);
          const std::uint32_t sx = numerics::decode(Format::e8m0, scale(c.mx, k0 / (bs * per), n));
          t = numerics::fp32_add(t, numerics::fp32_mul(numerics::fp32_mul(s, sw), sx));
        }
        std::uint32_t& d = at(c.bank + g, j, c.off + n);
        d = c.acc ? numerics::fp32_add(d, t) : t;
        if (c.pbf) {
          numerics::Convert cv;
          if (c.sr) {
            cv.mode = numerics::Round::sr;
            cv.rnd = rng_[j] = numerics::Xorshift32::step(rng_[j]);
          }
          d = numerics::encode(Format::bf16, d, cv) << 16;
        }
      }
}

}  // namespace trn::tensor
