#include "mem/sbuf.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/clog2.hpp"
#include "mem/elements.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"

namespace trn::mem {

Sbuf::Sbuf(Params p)
    : p_(p),
      nb_(clog2(p.beat_bytes) + 1),
      off_bits_(clog2(p.part_bytes)),
      mem_(std::size_t{p.parts} * p.part_bytes, 0) {
  if (p_.banks < 2 || p_.banks > 64) throw std::invalid_argument("sbuf: banks must be 2..64");
  if (p_.beat_bytes < 4 || (p_.beat_bytes & (p_.beat_bytes - 1)) != 0 || p_.part_bytes % p_.beat_bytes != 0)
    throw std::invalid_argument("sbuf: beat_bytes must be a power of two >= 4 dividing part_bytes");
  if (p_.eports < 1 || p_.eports > 64) throw std::invalid_argument("sbuf: eports must be 1..64");
  dr_q_ = Bits(8 * p_.beat_bytes);
  e_q_ = Bits(p_.eports * 32 * p_.parts);
  wait_.assign(p_.eports, 0);
  for (unsigned b = 0; b < p_.banks; ++b) {
    rd_arb_.emplace_back(common::RrArbiter::Params{p_.eports, 1});
    wr_arb_.emplace_back(common::RrArbiter::Params{p_.eports, 1});
    rd_in_.push_back(rd_arb_.back().make_in());
    wr_in_.push_back(wr_arb_.back().make_in());
  }
  arb_out_ = rd_arb_.front().make_out();
}

Sbuf::In Sbuf::make_in() const {
  In in;
  in.dw_data_i = Bits(8 * p_.beat_bytes);
  in.e_i.resize(p_.eports);
  in.e_mask_i = Bits(p_.eports * p_.parts);
  in.e_wdata_i = Bits(p_.eports * 32 * p_.parts);
  return in;
}

Sbuf::Out Sbuf::make_out() const {
  Out o;
  o.dr_rdata_o = Bits(8 * p_.beat_bytes);
  o.e_rdata_o = Bits(p_.eports * 32 * p_.parts);
  return o;
}

std::uint64_t Sbuf::banks_of(std::uint32_t first, std::uint32_t last) const {
  return row_banks(first, last - first + 1, p_.beat_bytes, p_.banks);
}

std::uint64_t Sbuf::dw_banks(const In& in) const {
  const std::uint32_t off = static_cast<std::uint32_t>(in.dw_i.addr) & ((1u << off_bits_) - 1);
  if (in.dw_i.col || in.dw_i.n == 0) return banks_of(off, off);
  return banks_of(off, off + static_cast<std::uint32_t>(in.dw_i.n) - 1);
}

unsigned Sbuf::bank_of(unsigned port, const e_req_t& r) const {
  const unsigned es = static_cast<unsigned>(r.esize);
  if (elem_bytes(std::uint64_t{r.idx} + 1, es) > p_.part_bytes)
    throw std::out_of_range(
        fmt::format("sbuf: engine port {} element {} of {} bits lies beyond the partition ({} bytes)", port, r.idx,
                    4u << es, p_.part_bytes));
  return elem_bank(r.idx, es, p_.beat_bytes, p_.banks);
}

std::uint32_t Sbuf::read_elem(unsigned part, const e_req_t& r) const {
  return load_elem(std::span<const std::uint8_t>(mem_).subspan(std::size_t{part} * p_.part_bytes, p_.part_bytes), r.idx,
                   static_cast<unsigned>(r.esize));
}

void Sbuf::write_elem(unsigned part, const e_req_t& r, std::uint32_t v) {
  store_elem(std::span<std::uint8_t>(mem_).subspan(std::size_t{part} * p_.part_bytes, p_.part_bytes), r.idx,
             static_cast<unsigned>(r.esize), v);
}

Sbuf::Grants Sbuf::grants(const In& in) const {
  Grants g;
  const std::uint64_t s2 = s2_v_ ? s2_banks_ : 0;
  // an engine port refused `starve` cycles in a row claims its bank from the DMA
  std::uint64_t claim = 0;
  // every bank's read and write requests (bit i: engine port i)
  for (unsigned b = 0; b < p_.banks; ++b) rd_in_[b].req_valid_i = wr_in_[b].req_valid_i = 0;
  for (unsigned i = 0; i < p_.eports; ++i) {
    if (!((in.e_valid_i >> i) & 1)) continue;
    const unsigned b = bank_of(i, in.e_i[i]);
    if (wait_[i] == p_.starve) claim |= std::uint64_t{1} << b;
    (in.e_i[i].we ? wr_in_[b] : rd_in_[b]).req_valid_i |= std::uint64_t{1} << i;
  }
  g.dw_banks = dw_banks(in);
  g.dw_ready = in.rst_ni && (in.dw_i.acc || (g.dw_banks & s2) == 0) && (g.dw_banks & claim) == 0;
  g.dw_go = in.dw_valid_i && g.dw_ready;
  const bool acc_go = g.dw_go && in.dw_i.acc;
  // an engine read needs its bank's read port (free of stage 2 and of an accumulate's stage 1); a
  // write its write port, and never between an accumulate's read and its write
  const std::uint64_t r_busy = s2 | (acc_go ? g.dw_banks : 0);
  const std::uint64_t w_busy = s2 | (g.dw_go ? g.dw_banks : 0);
  std::uint64_t er_banks = 0;
  for (unsigned b = 0; b < p_.banks; ++b) {
    auto& ri = rd_in_[b];
    auto& wi = wr_in_[b];
    ri.rst_ni = wi.rst_ni = in.rst_ni;
    ri.gnt_ready_i = in.rst_ni && !((r_busy >> b) & 1);
    wi.gnt_ready_i = in.rst_ni && !((w_busy >> b) & 1);
    // an arbiter without a request grants nothing (its edge still runs, in tick)
    if (ri.req_valid_i != 0) {
      rd_arb_[b].eval(ri, arb_out_);
      g.e_rd |= arb_out_.req_ready_o;
      if (arb_out_.req_ready_o) er_banks |= std::uint64_t{1} << b;
    }
    if (wi.req_valid_i != 0) {
      wr_arb_[b].eval(wi, arb_out_);
      g.e_wr |= arb_out_.req_ready_o;
    }
  }
  const std::uint32_t roff = static_cast<std::uint32_t>(in.dr_i.addr) & ((1u << off_bits_) - 1);
  const std::uint64_t dr = banks_of(roff, roff + (in.dr_i.bytes ? static_cast<std::uint32_t>(in.dr_i.bytes) - 1 : 0));
  // the banks refusing a DMA read, whatever the read asks (the core chooses its read with them)
  g.dr_busy = in.rst_ni ? s2 | (acc_go ? g.dw_banks : 0) | er_banks | claim : (std::uint64_t{1} << p_.banks) - 1;
  g.dr_ready = (dr & g.dr_busy) == 0;
  g.dr_go = in.dr_valid_i && g.dr_ready;
  return g;
}

void Sbuf::eval(const In& in, Out& out) const {
  const Grants g = grants(in);
  out.dw_ready_o = g.dw_ready;
  out.e_ready_o = g.e_rd | g.e_wr;
  out.dr_ready_o = g.dr_ready;
  out.dr_busy_o = g.dr_busy;
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
    dr_v_ = false;
    dr_id_ = 0;
    dr_q_ = Bits(8 * p_.beat_bytes);
    e_v_ = 0;
    e_q_ = Bits(p_.eports * 32 * p_.parts);
    wait_.assign(p_.eports, 0);
    for (unsigned b = 0; b < p_.banks; ++b) {
      rd_in_[b].rst_ni = wr_in_[b].rst_ni = false;
      rd_arb_[b].tick(rd_in_[b]);
      wr_arb_[b].tick(wr_in_[b]);
    }
    return;
  }
  const Grants g = grants(in);
  for (unsigned b = 0; b < p_.banks; ++b) {
    rd_arb_[b].tick(rd_in_[b]);
    wr_arb_[b].tick(wr_in_[b]);
  }
  const std::uint64_t e_go = g.e_rd | g.e_wr;
  for (unsigned i = 0; i < p_.eports; ++i) {
    const bool valid = (in.e_valid_i >> i) & 1;
    if (!valid || ((e_go >> i) & 1))
      wait_[i] = 0;
    else if (wait_[i] < p_.starve)
      ++wait_[i];
  }
  const std::uint32_t omask = (1u << off_bits_) - 1;
  // Reads see the contents before this cycle's writes.
  dr_v_ = g.dr_go;
  if (g.dr_go) {
    dr_id_ = in.dr_i.id;
    const unsigned part = static_cast<unsigned>(in.dr_i.addr >> off_bits_);
    const std::uint32_t off = static_cast<std::uint32_t>(in.dr_i.addr) & omask;
    dr_q_.clear();  // (its width is set at reset: no allocation here)
    for (unsigned b = 0; b < in.dr_i.bytes; ++b) dr_q_.set_slice(8 * b, 8, at(part, off + b));
  }
  e_v_ = g.e_rd;
  for (unsigned i = 0; i < p_.eports; ++i) {
    if (!((g.e_rd >> i) & 1)) continue;
    for (unsigned p = 0; p < p_.parts; ++p) e_q_.set_slice(32 * (i * p_.parts + p), 32, read_elem(p, in.e_i[i]));
  }
  // Writes (an engine write's bank is free of the DMA's).
  for (unsigned i = 0; i < p_.eports; ++i) {
    if (!((g.e_wr >> i) & 1)) continue;
    for (unsigned p = 0; p < p_.parts; ++p)
      if (in.e_mask_i.bit(i * p_.parts + p))
        write_elem(p, in.e_i[i], static_cast<std::uint32_t>(in.e_wdata_i.slice(32 * (i * p_.parts + p), 32)));
  }
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
        const std::uint32_t r = es == 4
                                    ? numerics::fp32_add(d, s)
                                    : numerics::encode(numerics::Format::bf16, numerics::fp32_add(d << 16, s << 16));
        for (unsigned b = 0; b < es; ++b) at(pp, o + b) = static_cast<std::uint8_t>(r >> (8 * b));
      }
    }
  }
  s2_v_ = g.dw_go && in.dw_i.acc;
  s2_banks_ = s2_v_ ? g.dw_banks : 0;
}

}  // namespace trn::mem
