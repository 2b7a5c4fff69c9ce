#include "chip/chip_xbar.hpp"

#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::chip {

ChipXbar::ChipXbar(Params p)
    : p_(p),
      rw_(p.units > 1 ? clog2(p.units) : 1),
      rd_(common::RrArbiter::Params{p.units, rd_req_t::kWidth}),
      wr_(common::RrArbiter::Params{p.units + 1, wr_req_t::kWidth + 8 * p.beat_bytes + wr_info_t::kWidth}),
      tx_(common::RrArbiter::Params{p.units, wr_req_t::kWidth + 1 + 8 * p.beat_bytes}),
      sem_(common::RrArbiter::Params{p.units + 1, kSaBits}) {
  if (p_.units < 1 || p_.units > 31) throw std::invalid_argument("chip::ChipXbar: 1 .. 31 units");
  w_.rd_in = rd_.make_in();
  w_.wr_in = wr_.make_in();
  w_.tx_in = tx_.make_in();
  w_.sem_in = sem_.make_in();
  w_.rd_out = rd_.make_out();
  w_.wr_out = wr_.make_out();
  w_.tx_out = tx_.make_out();
  w_.sem_out = sem_.make_out();
}

ChipXbar::In ChipXbar::make_in() const {
  In in;
  in.u_ar_i.resize(p_.units);
  in.u_wr_i.resize(p_.units);
  in.u_wr_data_i = Bits(p_.units * 8 * p_.beat_bytes);
  in.u_wr_info_i.resize(p_.units);
  in.rx_data_i = Bits(8 * p_.beat_bytes);
  in.hbm_r_data_i = Bits(8 * p_.beat_bytes);
  return in;
}

ChipXbar::Out ChipXbar::make_out() const {
  Out o;
  o.u_r_data_o = Bits(8 * p_.beat_bytes);
  o.tx_data_o = Bits(8 * p_.beat_bytes);
  o.hbm_wr_data_o = Bits(8 * p_.beat_bytes);
  return o;
}

void ChipXbar::wire(const In& in) const {
  const unsigned U = p_.units, DW = 8 * p_.beat_bytes;
  const unsigned id = static_cast<unsigned>(in.id_i);
  // reads
  w_.rd_in.rst_ni = in.rst_ni;
  w_.rd_in.req_valid_i = in.u_ar_valid_i;
  // (an arbiter passes on the data of the requester it grants only, and it grants a valid one: the
  // data of a source that does not request it is left as it was)
  for (unsigned u = 0; u < U; ++u)
    if ((in.u_ar_valid_i >> u) & 1) in.u_ar_i[u].pack(w_.rd_in.req_data_i, u * rd_req_t::kWidth);
  w_.rd_in.gnt_ready_i = in.hbm_ar_ready_i;
  // writes: each source's target
  auto& hw = w_.wr_in;
  auto& tw = w_.tx_in;
  auto& sa = w_.sem_in;
  hw.rst_ni = tw.rst_ni = sa.rst_ni = in.rst_ni;
  hw.req_valid_i = tw.req_valid_i = sa.req_valid_i = 0;
  auto put_sa = [&](unsigned s, std::uint32_t addr, const Bits& data, unsigned lsb) {
    const unsigned base = s * kSaBits;
    sa.req_data_i.set_slice(base, 32, data.slice(lsb, 32));
    sa.req_data_i.set_slice(base + 32, 5, (addr >> 2) & 31);
    sa.req_data_i.set_slice(base + 37, dma::kUnitBits, dma::unit_of(addr));
  };
  auto put_hw = [&](unsigned s, const wr_req_t& wr, const Bits& data, unsigned lsb, const wr_info_t& info) {
    const unsigned base = s * hw_bits();
    info.pack(hw.req_data_i, base);
    hw.req_data_i.copy(base + wr_info_t::kWidth, data, lsb, DW);
    wr.pack(hw.req_data_i, base + wr_info_t::kWidth + DW);
  };
  for (unsigned u = 0; u < U; ++u) {
    const bool valid = ((in.u_wr_valid_i >> u) & 1) != 0;
    const wr_req_t& wr = in.u_wr_i[u];
    const bool local = dma::is_local(wr.addr, id), sem = in.u_wr_info_i[u].sem;
    if (!valid) continue;
    if (!local) {
      tw.req_valid_i |= 1ull << u;
      const unsigned tb = u * tw_bits();
      tw.req_data_i.copy(tb, in.u_wr_data_i, u * DW, DW);
      tw.req_data_i.set_bit(tb + DW, sem);
      wr.pack(tw.req_data_i, tb + DW + 1);
    } else if (sem) {
      sa.req_valid_i |= 1ull << u;
      put_sa(u, wr.addr, in.u_wr_data_i, u * DW);
    } else {
      hw.req_valid_i |= 1ull << u;
      put_hw(u, wr, in.u_wr_data_i, u * DW, in.u_wr_info_i[u]);
    }
  }
  if (in.rx_valid_i && !in.rx_sem_i) {
    hw.req_valid_i |= 1ull << U;
    put_hw(U, in.rx_i, in.rx_data_i, 0, wr_info_t{});
  }
  if (in.rx_valid_i && in.rx_sem_i) {
    sa.req_valid_i |= 1ull << U;
    put_sa(U, in.rx_i.addr, in.rx_data_i, 0);
  }
  hw.gnt_ready_i = in.hbm_wr_ready_i;
  tw.gnt_ready_i = in.tx_ready_i;
  sa.gnt_ready_i = true;
}

void ChipXbar::eval(const In& in, Out& out) const {
  const unsigned U = p_.units, DW = 8 * p_.beat_bytes;
  wire(in);
  rd_.eval(w_.rd_in, w_.rd_out);
  wr_.eval(w_.wr_in, w_.wr_out);
  tx_.eval(w_.tx_in, w_.tx_out);
  sem_.eval(w_.sem_in, w_.sem_out);
  if (out.u_r_data_o.width() != DW) out = make_out();
  const unsigned id = static_cast<unsigned>(in.id_i);
  const std::uint32_t local_mask = dma::kLocalMask;
  // reads
  out.u_ar_ready_o = w_.rd_out.req_ready_o;
  out.hbm_ar_valid_o = w_.rd_out.gnt_valid_o;
  out.hbm_ar_o = rd_req_t::unpack(w_.rd_out.gnt_data_o);
  out.hbm_ar_o.addr &= local_mask;
  out.hbm_ar_src_o = w_.rd_out.gnt_idx_o;
  const unsigned src = static_cast<unsigned>((in.hbm_r_id_i >> p_.id_w) & ((1ull << rw_) - 1));
  out.u_r_valid_o = in.hbm_r_valid_i && src < U ? 1ull << src : 0;
  out.u_r_id_o = in.hbm_r_id_i & ((1ull << p_.id_w) - 1);
  out.u_r_data_o = in.hbm_r_data_i;
  out.hbm_r_ready_o = src < U && ((in.u_r_ready_i >> src) & 1);
  // the sources' readies
  out.u_wr_ready_o = 0;
  for (unsigned u = 0; u < U; ++u) {
    const bool local = dma::is_local(in.u_wr_i[u].addr, id), sem = in.u_wr_info_i[u].sem;
    const std::uint64_t r = !local ? w_.tx_out.req_ready_o : sem ? w_.sem_out.req_ready_o : w_.wr_out.req_ready_o;
    out.u_wr_ready_o |= r & (1ull << u);
  }
  out.rx_ready_o = ((in.rx_sem_i ? w_.sem_out.req_ready_o : w_.wr_out.req_ready_o) >> U) & 1;
  // HBM writes
  const Bits& g = w_.wr_out.gnt_data_o;
  out.hbm_wr_valid_o = w_.wr_out.gnt_valid_o;
  out.hbm_wr_info_o = wr_info_t::unpack(g);
  out.hbm_wr_data_o.copy(0, g, wr_info_t::kWidth, DW);
  out.hbm_wr_o = wr_req_t::unpack(g, wr_info_t::kWidth + DW);
  out.hbm_wr_o.addr &= local_mask;
  out.hbm_wr_src_o = w_.wr_out.gnt_idx_o;
  // writes to other chips
  const Bits& t = w_.tx_out.gnt_data_o;
  out.tx_valid_o = w_.tx_out.gnt_valid_o;
  out.tx_data_o.copy(0, t, 0, DW);
  out.tx_sem_o = t.bit(DW);
  out.tx_o = wr_req_t::unpack(t, DW + 1);
  // semaphore additions
  const Bits& a = w_.sem_out.gnt_data_o;
  const unsigned unit = static_cast<unsigned>(a.slice(37, dma::kUnitBits));
  const bool good = unit != 0 && unit <= U;
  out.sem_valid_o = w_.sem_out.gnt_valid_o && good ? 1ull << (unit - 1) : 0;
  out.sem_idx_o = a.slice(32, 5);
  out.sem_val_o = static_cast<std::uint32_t>(a.slice(0, 32));
  out.bad_sem_o = in.rst_ni ? bad_q_ : 0;  // an asynchronous reset clears the count at once
}

void ChipXbar::tick(const In& in) {
  if (!in.rst_ni) {
    rd_.tick(rd_.make_in());
    wr_.tick(wr_.make_in());
    tx_.tick(tx_.make_in());
    sem_.tick(sem_.make_in());
    bad_q_ = 0;
    return;
  }
  // the arbiters' inputs, and the semaphore arbiter's grant (the one output the state needs)
  wire(in);
  sem_.eval(w_.sem_in, w_.sem_out);
  const unsigned unit = static_cast<unsigned>(w_.sem_out.gnt_data_o.slice(37, dma::kUnitBits));
  if (w_.sem_out.gnt_valid_o && !(unit != 0 && unit <= p_.units)) ++bad_q_;
  rd_.tick(w_.rd_in);
  wr_.tick(w_.wr_in);
  tx_.tick(w_.tx_in);
  sem_.tick(w_.sem_in);
}

}  // namespace trn::chip
