#include "mem/sbuf.hpp"

#include <stdexcept>

#include "common/clog2.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"

namespace trn::mem {

Sbuf::Sbuf(Params p)
    : p_(p),
      nb_(clog2(p.beat_bytes) + 1),
      ew_(clog2(p.part_bytes / 4)),
      off_bits_(clog2(p.part_bytes)),
      mem_(std::size_t{p.parts} * p.part_bytes, 0) {
  if (p_.banks < 2 || p_.banks > 64) throw std::invalid_argument("sbuf: banks must be 2..64");
  if (p_.beat_bytes < 4 || (p_.beat_bytes & (p_.beat_bytes - 1)) != 0 || p_.part_bytes % p_.beat_bytes != 0)
    throw std::invalid_argument("sbuf: beat_bytes must be a power of two >= 4 dividing part_bytes");
  dr_q_ = Bits(8 * p_.beat_bytes);
  e_q_ = Bits(32 * p_.parts);
}

Sbuf::In Sbuf::make_in() const {
  In in;
  in.dw_data_i = Bits(8 * p_.beat_bytes);
  in.e_mask_i = Bits(p_.parts);
  in.e_wdata_i = Bits(32 * p_.parts);
  return in;
}

Sbuf::Out Sbuf::make_out() const {
  Out o;
  o.dr_rdata_o = Bits(8 * p_.beat_bytes);
  o.e_rdata_o = Bits(32 * p_.parts);
  return o;
}

std::uint64_t Sbuf::banks_of(std::uint32_t first, std::uint32_t last) const {
  std::uint64_t s = 0;
  for (std::uint32_t line = first / p_.beat_bytes; line <= last / p_.beat_bytes; ++line)
    s |= std::uint64_t{1} << (line % p_.banks);
  return s;
}

std::uint64_t Sbuf::dw_banks(const In& in) const {
  const std::uint32_t off = static_cast<std::uint32_t>(in.dw_i.addr) & ((1u << off_bits_) - 1);
  if (in.dw_i.col || in.dw_i.n == 0) return banks_of(off, off);
  return banks_of(off, off + static_cast<std::uint32_t>(in.dw_i.n) - 1);
}

Sbuf::Grants Sbuf::grants(const In& in) const {
  Grants g;
  if (!in.rst_ni) return g;
  const std::uint64_t s2 = s2_v_ ? s2_banks_ : 0;
  g.dw_banks = dw_banks(in);
  g.dw_ready = in.dw_i.acc || (g.dw_banks & s2) == 0;
  g.dw_go = in.dw_valid_i && g.dw_ready;
  const bool acc_go = g.dw_go && in.dw_i.acc;
  const std::uint64_t e_bank = std::uint64_t{1} << ((4 * in.e_addr_i / p_.beat_bytes) % p_.banks);
  // an engine write may not split an accumulate nor share a write port; a read needs the read port
  const std::uint64_t e_busy = s2 | (in.e_we_i ? (g.dw_go ? g.dw_banks : 0) : (acc_go ? g.dw_banks : 0));
  g.e_ready = (e_bank & e_busy) == 0;
  g.e_go = in.e_valid_i && g.e_ready;
  const std::uint32_t roff = static_cast<std::uint32_t>(in.dr_i.addr) & ((1u << off_bits_) - 1);
  const std::uint64_t dr = banks_of(roff, roff + (in.dr_i.bytes ? static_cast<std::uint32_t>(in.dr_i.bytes) - 1 : 0));
  const std::uint64_t dr_busy = s2 | (acc_go ? g.dw_banks : 0) | (g.e_go && !in.e_we_i ? e_bank : 0);
  g.dr_ready = (dr & dr_busy) == 0;
  g.dr_go = in.dr_valid_i && g.dr_ready;
  return g;
}

void Sbuf::eval(const In& in, Out& out) const {
  const Grants g = grants(in);
  out.dw_ready_o = g.dw_ready;
  out.e_ready_o = g.e_ready;
  out.dr_ready_o = g.dr_ready;
  out.dr_rvalid_o = dr_v_;
  out.dr_rid_o = dr_id_;
  out.dr_rdata_o = dr_q_;
  out.e_rvalid_o = e_v_;
  out.e_rdata_o = e_q_;
  out.acc_busy_o = s2_v_;
}

void Sbuf::tick(const In& in) {
  if (!in.rst_ni) {
    s2_v_ = false;
    s2_banks_ = 0;
    dr_v_ = e_v_ = false;
    dr_id_ = 0;
    dr_q_ = Bits(8 * p_.beat_bytes);
    e_q_ = Bits(32 * p_.parts);
    return;
  }
  const Grants g = grants(in);
  const std::uint32_t omask = (1u << off_bits_) - 1;
  // Reads see the contents before this cycle's writes.
  dr_v_ = g.dr_go;
  if (g.dr_go) {
    dr_id_ = in.dr_i.id;
    const unsigned part = static_cast<unsigned>(in.dr_i.addr >> off_bits_);
    const std::uint32_t off = static_cast<std::uint32_t>(in.dr_i.addr) & omask;
    dr_q_ = Bits(8 * p_.beat_bytes);
    for (unsigned b = 0; b < in.dr_i.bytes; ++b) dr_q_.set_slice(8 * b, 8, at(part, off + b));
  }
  const std::uint32_t e_off = static_cast<std::uint32_t>(4 * in.e_addr_i);
  e_v_ = g.e_go && !in.e_we_i;
  if (e_v_)
    for (unsigned p = 0; p < p_.parts; ++p)
      for (unsigned b = 0; b < 4; ++b) e_q_.set_slice(32 * p + 8 * b, 8, at(p, e_off + b));
  // Writes.
  if (g.e_go && in.e_we_i)
    for (unsigned p = 0; p < p_.parts; ++p)
      if (in.e_mask_i.bit(p))
        for (unsigned b = 0; b < 4; ++b) at(p, e_off + b) = static_cast<std::uint8_t>(in.e_wdata_i.slice(32 * p + 8 * b, 8));
  if (g.dw_go) {
    const unsigned part = static_cast<unsigned>(in.dw_i.addr >> off_bits_);
    const std::uint32_t off = static_cast<std::uint32_t>(in.dw_i.addr) & omask;
    const unsigned es = static_cast<unsigned>(in.dw_i.esize), n = static_cast<unsigned>(in.dw_i.n);
    if (!in.dw_i.acc) {
      if (!in.dw_i.col) {
        for (unsigned b = 0; b < n; ++b) at(part, off + b) = static_cast<std::uint8_t>(in.dw_data_i.slice(8 * b, 8));
      } else {
        for (unsigned k = 0; k < n; ++k)
          for (unsigned b = 0; b < es; ++b)
            at(part + k, off + b) = static_cast<std::uint8_t>(in.dw_data_i.slice(8 * (k * es + b), 8));
      }
    } else {
      const unsigned elems = in.dw_i.col ? n : n / es;
      for (unsigned k = 0; k < elems; ++k) {
        const unsigned pp = in.dw_i.col ? part + k : part;
        const std::uint32_t o = in.dw_i.col ? off : off + k * es;
        std::uint32_t d = 0;
        for (unsigned b = 0; b < es; ++b) d |= std::uint32_t{at(pp, o + b)} << (8 * b);
        const auto s = static_cast<std::uint32_t>(in.dw_data_i.slice(8 * k * es, 8 * es));
        const std::uint32_t r = es == 4 ? numerics::fp32_add(d, s)
                                        : numerics::encode(numerics::Format::bf16, numerics::fp32_add(d << 16, s << 16));
        for (unsigned b = 0; b < es; ++b) at(pp, o + b) = static_cast<std::uint8_t>(r >> (8 * b));
      }
    }
  }
  s2_v_ = g.dw_go && in.dw_i.acc;
  s2_banks_ = s2_v_ ? g.dw_banks : 0;
}

}  // namespace trn::mem
