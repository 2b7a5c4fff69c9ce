#include "system/chip_torus.hpp"

#include <stdexcept>

#include "common/clog2.hpp"
#include "isa/isa.hpp"

namespace trn::system {

ChipTorus::Params ChipTorus::Params::of(const cfg::Arch& a, unsigned cores, unsigned kx, unsigned ky, unsigned kz) {
  Params p{chip::Chip::Params::of(a, kx * ky * kz, kx, ky, kz)};
  p.chip.cores = cores;
  return p;
}

ChipTorus::ChipTorus(Params p) : p_(p), n_(p.chips()), fb_(0) {
  if (n_ == 0 || p_.chip.chips != n_ || p_.chip.topo != link::Topo::TopoTorus)
    throw std::invalid_argument("system::ChipTorus: its chips are the chips of one kx x ky x kz torus");
  for (unsigned c = 0; c < n_; ++c) chips_.emplace_back(p_.chip);
  fb_ = clog2(wire_bits());
  for (unsigned c = 0; c < n_; ++c) {
    ci_.push_back(chips_[c].make_in());
    co_.push_back(chips_[c].make_out());
  }
  dirty_.assign(n_, true);
}

sv::ports::chip_torus::Params ChipTorus::sv_params() const {
  auto s = p_.chip.sv_chip<sv::ports::chip_torus::Params>();
  s.KX = p_.chip.kx, s.KY = p_.chip.ky, s.KZ = p_.chip.kz;
  return s;
}

unsigned ChipTorus::neighbour(unsigned c, unsigned k) const {
  return link::torus_neighbour(p_.chip.kx, p_.chip.ky, p_.chip.kz, c, k + 1);
}

ChipTorus::In ChipTorus::make_in() const {
  const unsigned U = p_.chip.units(), DW = 8 * p_.chip.core.core.beat_bytes;
  const unsigned idw = (U > 1 ? clog2(U) : 1) + clog2(p_.chip.core.core.slots);
  In in;
  in.im_data_i = Bits(isa::tbl::kInstBits);
  in.start_i = Bits(n_ * U);
  in.dma_strong_i = Bits(n_ * U);
  in.hbm_ar_ready_i = Bits(n_);
  in.hbm_r_valid_i = Bits(n_);
  in.hbm_r_id_i = Bits(n_ * idw);
  in.hbm_r_data_i = Bits(n_ * DW);
  in.hbm_wr_ready_i = Bits(n_);
  in.flip_i = Bits(links());
  in.flip_bit_i = Bits(links() * fb_);
  return in;
}

ChipTorus::Out ChipTorus::make_out() const {
  const chip::Chip::Out o = chips_[0].make_out();
  const unsigned U = p_.chip.units();
  Out out;
  auto all = [this](const Bits& b) { return Bits(n_ * b.width()); };
  out.running_o = out.done_o = out.err_o = Bits(n_ * U);
  out.err_code_o = all(o.err_code_o);
  out.err_detail_o = all(o.err_detail_o);
  out.err_stream_o = all(o.err_stream_o);
  out.err_pc_o = all(o.err_pc_o);
  out.sem_o = all(o.sem_o);
  out.sem_ext_valid_o = Bits(n_ * U);
  out.sem_ext_idx_o = Bits(n_ * 5);
  out.sem_ext_val_o = Bits(n_ * 32);
  out.hbm_ar_valid_o = out.hbm_r_ready_o = out.hbm_wr_valid_o = Bits(n_);
  out.hbm_ar_o.resize(n_);
  out.hbm_ar_src_o = Bits(n_ * (U > 1 ? clog2(U) : 1));
  out.hbm_wr_o.resize(n_);
  out.hbm_wr_data_o = all(o.hbm_wr_data_o);
  out.hbm_wr_info_o.resize(n_);
  out.hbm_wr_src_o = Bits(n_ * clog2(U + 1));
  out.link_ready_o = Bits(links());
  out.link_crc_err_o = Bits(links() * 32);
  out.link_replay_o = Bits(links() * 32);
  out.bad_dst_o = out.nic_drop_o = out.bad_sem_o = Bits(n_ * 16);
  return out;
}

bool ChipTorus::wire(const In& in, unsigned c) const {
  const unsigned U = p_.chip.units(), LP = link_ports(), SB = chips_[0].sb(), LW = chips_[0].lw();
  const unsigned DW = 8 * p_.chip.core.core.beat_bytes, VB = p_.chip.v > 1 ? clog2(p_.chip.v) : 1;
  const unsigned idw = (U > 1 ? clog2(U) : 1) + clog2(p_.chip.core.core.slots);
  chip::Chip::In k = ci_[c];
  k.rst_ni = in.rst_ni;
  k.id_i = c;
  k.im_valid_i = in.im_valid_i && in.im_chip_i == c;
  k.im_unit_i = in.im_unit_i;
  k.im_stream_i = in.im_stream_i;
  k.im_addr_i = in.im_addr_i;
  k.im_data_i = in.im_data_i;
  k.start_i = in.start_i.slice(c * U, U);
  k.dma_strong_i = in.dma_strong_i.slice(c * U, U);
  k.sem_ext_en_i = in.sem_ext_en_i;
  k.hbm_ar_ready_i = in.hbm_ar_ready_i.bit(c);
  k.hbm_r_valid_i = in.hbm_r_valid_i.bit(c);
  k.hbm_r_id_i = in.hbm_r_id_i.slice(c * idw, idw);
  k.hbm_r_data_i.copy(0, in.hbm_r_data_i, c * DW, DW);
  k.hbm_wr_ready_i = in.hbm_wr_ready_i.bit(c);
  const unsigned wb = wire_bits();
  for (unsigned q = 0; q < LP; ++q) {
    // what arrives on port q left the neighbour that way on its port back(q), link m * LP + back(q);
    // what this chip sends on port q is acknowledged and credited by that port
    const unsigned m = neighbour(c, q), j = back(q), l = m * LP + j;
    const chip::Chip::Out& o = co_[m];
    Bits w(wb);
    w.copy(0, o.lk_tx_data_o, j * LW, LW);
    w.set_slice(LW, SB, o.lk_tx_seq_o.slice(j * SB, SB));
    w.set_slice(LW + SB, 16, o.lk_tx_crc_o.slice(j * 16, 16));
    if (in.flip_i.bit(l)) {
      const unsigned b = static_cast<unsigned>(in.flip_bit_i.slice(l * fb_, fb_));
      if (b < wb) w.set_bit(b, !w.bit(b));  // (a bit past the wire flips nothing, as in the RTL)
    }
    k.lk_rx_valid_i.set_bit(q, o.lk_tx_valid_o.bit(j));
    k.lk_rx_data_i.copy(q * LW, w, 0, LW);
    k.lk_rx_seq_i.set_slice(q * SB, SB, w.slice(LW, SB));
    k.lk_rx_crc_i.set_slice(q * 16, 16, w.slice(LW + SB, 16));
    k.lk_ack_valid_i.set_bit(q, o.lk_ack_valid_o.bit(j));
    k.lk_ack_seq_i.set_slice(q * SB, SB, o.lk_ack_seq_o.slice(j * SB, SB));
    k.lk_nack_valid_i.set_bit(q, o.lk_nack_valid_o.bit(j));
    k.lk_nack_seq_i.set_slice(q * SB, SB, o.lk_nack_seq_o.slice(j * SB, SB));
    k.lk_credit_i.set_bit(q, o.lk_credit_o.bit(j));
    k.lk_credit_vc_i.set_slice(q * VB, VB, o.lk_credit_vc_o.slice(j * VB, VB));
  }
  const bool changed = !(k == ci_[c]);
  if (changed) ci_[c] = std::move(k);
  return changed;
}

void ChipTorus::eval(const In& in, Out& out) const {
  for (unsigned pass = 0;; ++pass) {
    if (pass == 4) throw std::logic_error("chip torus model: the links' wiring does not settle in 4 passes");
    bool changed = false;
    for (unsigned c = 0; c < n_; ++c)
      if (wire(in, c)) changed = dirty_[c] = true;
    if (pass > 0 && !changed) break;
    for (unsigned c = 0; c < n_; ++c)
      if (dirty_[c] || pass == 0) {
        chips_[c].eval(ci_[c], co_[c]);
        dirty_[c] = false;
      }
  }
  if (out.sem_o.width() != n_ * co_[0].sem_o.width()) out = make_out();
  const unsigned U = p_.chip.units(), LP = link_ports();
  const unsigned aw = U > 1 ? clog2(U) : 1, xw = clog2(U + 1), DW = 8 * p_.chip.core.core.beat_bytes;
  for (unsigned c = 0; c < n_; ++c) {
    const chip::Chip::Out& o = co_[c];
    out.running_o.set_slice(c * U, U, o.running_o);
    out.done_o.set_slice(c * U, U, o.done_o);
    out.err_o.set_slice(c * U, U, o.err_o);
    auto put = [c](Bits& dst, const Bits& src) { dst.copy(c * src.width(), src, 0, src.width()); };
    put(out.err_code_o, o.err_code_o);
    put(out.err_detail_o, o.err_detail_o);
    put(out.err_stream_o, o.err_stream_o);
    put(out.err_pc_o, o.err_pc_o);
    put(out.sem_o, o.sem_o);
    out.sem_ext_valid_o.set_slice(c * U, U, o.sem_ext_valid_o);
    out.sem_ext_idx_o.set_slice(c * 5, 5, o.sem_ext_idx_o);
    out.sem_ext_val_o.set_slice(c * 32, 32, o.sem_ext_val_o);
    out.hbm_ar_valid_o.set_bit(c, o.hbm_ar_valid_o);
    out.hbm_ar_o[c] = o.hbm_ar_o;
    out.hbm_ar_src_o.set_slice(c * aw, aw, o.hbm_ar_src_o);
    out.hbm_r_ready_o.set_bit(c, o.hbm_r_ready_o);
    out.hbm_wr_valid_o.set_bit(c, o.hbm_wr_valid_o);
    out.hbm_wr_o[c] = o.hbm_wr_o;
    out.hbm_wr_data_o.copy(c * DW, o.hbm_wr_data_o, 0, DW);
    out.hbm_wr_info_o[c] = o.hbm_wr_info_o;
    out.hbm_wr_src_o.set_slice(c * xw, xw, o.hbm_wr_src_o);
    for (unsigned k = 0; k < LP; ++k) {
      const unsigned l = c * LP + k, m = neighbour(c, k), j = back(k);
      out.link_ready_o.set_bit(l, o.lk_tx_ready_o.bit(k));
      out.link_crc_err_o.set_slice(l * 32, 32, co_[m].lk_crc_err_o.slice(j * 32, 32));
      out.link_replay_o.set_slice(l * 32, 32, o.lk_replays_o.slice(k * 32, 32));
    }
    out.bad_dst_o.set_slice(c * 16, 16, o.bad_dst_o);
    out.nic_drop_o.set_slice(c * 16, 16, o.nic_drop_o);
    out.bad_sem_o.set_slice(c * 16, 16, o.bad_sem_o);
  }
}

void ChipTorus::tick(const In& in) {
  Out o = make_out();
  eval(in, o);
  for (unsigned c = 0; c < n_; ++c) chips_[c].tick(ci_[c]);
  dirty_.assign(n_, true);
}

}  // namespace trn::system
