#include "system/chip_torus.hpp"

#include <algorithm>
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
  for (unsigned d = 0; d < 3; ++d)
    if (!(p_.wire[d].rate > 0 && p_.wire[d].rate <= 1))
      throw std::invalid_argument("system::ChipTorus: a wire's rate is in (0, 1] flits a cycle");
  lines_.resize(links());
  for (Line& l : lines_) l.cur.data = Bits(chips_[0].lw());
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
    const bool dl = delayed(q);
    if (dl) {
      const Line& ln = lines_[l];
      w.copy(0, ln.cur.data, 0, LW);
      w.set_slice(LW, SB, ln.cur.seq);
      w.set_slice(LW + SB, 16, ln.cur.crc);
    } else {
      w.copy(0, o.lk_tx_data_o, j * LW, LW);
      w.set_slice(LW, SB, o.lk_tx_seq_o.slice(j * SB, SB));
      w.set_slice(LW + SB, 16, o.lk_tx_crc_o.slice(j * 16, 16));
    }
    if (in.flip_i.bit(l)) {
      const unsigned b = static_cast<unsigned>(in.flip_bit_i.slice(l * fb_, fb_));
      if (b < wb) w.set_bit(b, !w.bit(b));  // (a bit past the wire flips nothing, as in the RTL)
    }
    k.lk_rx_valid_i.set_bit(q, dl ? lines_[l].valid : o.lk_tx_valid_o.bit(j));
    k.lk_rx_data_i.copy(q * LW, w, 0, LW);
    k.lk_rx_seq_i.set_slice(q * SB, SB, w.slice(LW, SB));
    k.lk_rx_crc_i.set_slice(q * 16, 16, w.slice(LW + SB, 16));
    if (dl) {  // what chip m's port j returns for what this chip sent on port q, from the wire
      const Side& sd = lines_[c * LP + q].side;
      k.lk_ack_valid_i.set_bit(q, sd.ack);
      k.lk_ack_seq_i.set_slice(q * SB, SB, sd.ack_seq);
      k.lk_nack_valid_i.set_bit(q, sd.nack);
      k.lk_nack_seq_i.set_slice(q * SB, SB, sd.nack_seq);
      k.lk_credit_i.set_bit(q, sd.credit);
      k.lk_credit_vc_i.set_slice(q * VB, VB, sd.credit_vc);
      continue;
    }
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
  last_in_ = in;
  evaluated_ = true;
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
  if (!evaluated_ || !(in == last_in_)) {
    Out o = make_out();
    eval(in, o);
  }
  evaluated_ = false;
  move_wires();
  for (unsigned c = 0; c < n_; ++c) chips_[c].tick(ci_[c]);
  dirty_.assign(n_, true);
}

void ChipTorus::move_wires() {
  const unsigned LP = link_ports(), SB = chips_[0].sb(), LW = chips_[0].lw();
  const unsigned VB = p_.chip.v > 1 ? clog2(p_.chip.v) : 1;
  bool any = false;
  for (unsigned c = 0; c < n_; ++c)
    for (unsigned k = 0; k < LP; ++k) {
      if (!delayed(k)) continue;
      any = true;
      const Params::Wire& wr = p_.wire[k / 2];
      const std::uint64_t lat = std::max(1u, wr.latency);
      Line& ln = lines_[c * LP + k];
      const chip::Chip::Out& o = co_[c];  // the sender
      if (o.lk_tx_valid_o.bit(k)) {
        const double start = std::max(ln.free, static_cast<double>(now_));
        ln.free = start + 1.0 / wr.rate;
        Flit f;
        f.due = static_cast<std::uint64_t>(start) + lat;
        f.seq = o.lk_tx_seq_o.slice(k * SB, SB);
        f.crc = static_cast<std::uint16_t>(o.lk_tx_crc_o.slice(k * 16, 16));
        f.data = Bits(LW);
        f.data.copy(0, o.lk_tx_data_o, k * LW, LW);
        ln.fwd.push_back(std::move(f));
      }
      const chip::Chip::Out& r = co_[neighbour(c, k)];  // the receiver, on its port back(k)
      const unsigned j = back(k);
      Side sd;
      sd.ack = r.lk_ack_valid_o.bit(j);
      sd.nack = r.lk_nack_valid_o.bit(j);
      sd.credit = r.lk_credit_o.bit(j);
      if (sd.ack || sd.nack || sd.credit) {
        sd.ack_seq = r.lk_ack_seq_o.slice(j * SB, SB);
        sd.nack_seq = r.lk_nack_seq_o.slice(j * SB, SB);
        sd.credit_vc = static_cast<unsigned>(r.lk_credit_vc_o.slice(j * VB, VB));
        ln.back.emplace_back(now_ + lat, sd);
      }
    }
  ++now_;
  if (!any) return;
  for (Line& ln : lines_) {
    ln.valid = !ln.fwd.empty() && ln.fwd.front().due <= now_;
    if (ln.valid) {
      if (ln.fwd.front().due < now_) throw std::logic_error("chip torus model: a wire missed a flit's cycle");
      ln.cur = std::move(ln.fwd.front());
      ln.fwd.pop_front();
    }
    ln.side = Side{};
    if (!ln.back.empty() && ln.back.front().first == now_) {
      ln.side = ln.back.front().second;
      ln.back.pop_front();
    }
  }
}

}  // namespace trn::system
