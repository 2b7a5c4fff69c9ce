#include "system/chip_torus.hpp"

#include <fmt/format.h>

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
  chips_.reserve(n_);  // built in place: a chip is large, and never copied
  for (unsigned c = 0; c < n_; ++c) chips_.emplace_back(p_.chip);
  fb_ = clog2(wire_bits());
  for (unsigned c = 0; c < n_; ++c) {
    ci_.push_back(chips_[c].make_in());
    co_.push_back(chips_[c].make_out());
  }
  dirty_.assign(n_, 1);
  team_ = std::make_unique<common::Workers>(std::min(p_.threads, n_));
  for (unsigned d = 0; d < 3; ++d)
    if (!(p_.wire[d].rate > 0 && p_.wire[d].rate <= 1))
      throw std::invalid_argument("system::ChipTorus: a wire's rate is in (0, 1] flits a cycle");
  lines_.resize(links());
  for (unsigned l = 0; l < links(); ++l)
    if (delayed(l % link_ports())) {
      const Params::Wire& w = p_.wire[l % link_ports() / 2];
      lines_[l].emplace(w.latency, w.rate, chips_[0].lw());
    }
}

sv::ports::chip_torus::Params ChipTorus::sv_params() const {
  auto s = p_.chip.sv_chip<sv::ports::chip_torus::Params>();
  s.KX = p_.chip.kx, s.KY = p_.chip.ky, s.KZ = p_.chip.kz;
  return s;
}

unsigned ChipTorus::neighbour(unsigned c, unsigned k) const {
  return link::torus_neighbour(p_.chip.kx, p_.chip.ky, p_.chip.kz, c, k + 1);
}

ChipTorus::In ChipTorus::make_in() const { return ChipPorts::make_in(p_.chip, n_, links(), fb_); }

ChipTorus::Out ChipTorus::make_out() const { return ChipPorts::make_out(chips_[0], n_, links(), n_); }

bool ChipTorus::wire(const In& in, unsigned c) const {
  const unsigned LP = link_ports(), SB = chips_[0].sb(), LW = chips_[0].lw();
  const unsigned VB = p_.chip.v > 1 ? clog2(p_.chip.v) : 1;
  chip::Chip::In k = ci_[c];
  ChipPorts::own_in(p_.chip, in, c, k);
  const unsigned wb = wire_bits();
  for (unsigned q = 0; q < LP; ++q) {
    // what arrives on port q left the neighbour that way on its port back(q), link m * LP + back(q);
    // what this chip sends on port q is acknowledged and credited by that port
    const unsigned m = neighbour(c, q), j = back(q), l = m * LP + j;
    const chip::Chip::Out& o = co_[m];
    Bits w(wb);
    const bool dl = delayed(q);
    if (dl) {
      const link::Wire::Flit& f = lines_[l]->flit();
      link::wire_word(w, f.data, 0, LW, SB, f.seq, f.crc, in.flip_i, in.flip_bit_i, fb_, l);
    } else {
      link::wire_word(w, o.lk_tx_data_o, j * LW, LW, SB, o.lk_tx_seq_o.slice(j * SB, SB),
                      o.lk_tx_crc_o.slice(j * 16, 16), in.flip_i, in.flip_bit_i, fb_, l);
    }
    k.lk_rx_valid_i.set_bit(q, dl ? lines_[l]->valid() : o.lk_tx_valid_o.bit(j));
    k.lk_rx_data_i.copy(q * LW, w, 0, LW);
    k.lk_rx_seq_i.set_slice(q * SB, SB, w.slice(LW, SB));
    k.lk_rx_crc_i.set_slice(q * 16, 16, w.slice(LW + SB, 16));
    if (dl) {  // what chip m's port j returns for what this chip sent on port q, from the wire
      take_answers(k, q, lines_[c * LP + q]->back());
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
    // every chip's inputs from the outputs of the last pass, then the chips whose inputs changed
    // (each call touches its own chip only: the team shares them out)
    team_->run(n_, [&](unsigned c) {
      if (wire(in, c)) dirty_[c] = 1;
    });
    const bool changed = std::find(dirty_.begin(), dirty_.end(), 1) != dirty_.end();
    if (pass > 0 && !changed) break;
    team_->run(n_, [&](unsigned c) {
      if (dirty_[c] || pass == 0) {
        chips_[c].eval(ci_[c], co_[c]);
        dirty_[c] = 0;
      }
    });
  }
  last_in_ = in;
  evaluated_ = true;
  if (out.sem_o.width() != n_ * co_[0].sem_o.width()) out = make_out();
  const unsigned LP = link_ports();
  for (unsigned c = 0; c < n_; ++c) {
    const chip::Chip::Out& o = co_[c];
    ChipPorts::own_out(p_.chip, o, c, out);
    for (unsigned k = 0; k < LP; ++k) {
      const unsigned l = c * LP + k, m = neighbour(c, k), j = back(k);
      out.link_ready_o.set_bit(l, o.lk_tx_ready_o.bit(k));
      out.link_crc_err_o.set_slice(l * 32, 32, co_[m].lk_crc_err_o.slice(j * 32, 32));
      out.link_replay_o.set_slice(l * 32, 32, o.lk_replays_o.slice(k * 32, 32));
    }
    out.bad_dst_o.set_slice(c * 16, 16, o.bad_dst_o);
  }
}

void ChipTorus::tick(const In& in) {
  if (!evaluated_ || !(in == last_in_)) {
    Out o = make_out();
    eval(in, o);
  }
  evaluated_ = false;
  move_wires();
  team_->run(n_, [&](unsigned c) { chips_[c].tick(ci_[c]); });
  dirty_.assign(n_, 1);
}

unsigned ChipTorus::lookahead() const {
  // what a chip puts on a wire at cycle t arrives at t + latency: the window's last edge brings
  // cycle t0 + window, so a window is shorter than every wire
  unsigned w = ~0u;
  for (unsigned k = 0; k < link_ports(); ++k) {
    if (!delayed(k)) return 0;
    w = std::min(w, lines_[k]->latency() - 1);
  }
  return w == ~0u ? 0 : w;
}

void ChipTorus::run_window(unsigned cycles, const In& in, const Hooks& h) {
  if (cycles == 0 || cycles > lookahead())
    throw std::invalid_argument(
        fmt::format("system::ChipTorus: a window of {} cycles, its wires allow 1 to {}", cycles, lookahead()));
  for (auto& ln : lines_) ln->stage();
  const unsigned LP = link_ports(), SB = chips_[0].sb(), LW = chips_[0].lw();
  const std::uint64_t t0 = now_;
  team_->run(n_, [&](unsigned c) {
    chip::Chip& chip = chips_[c];
    chip::Chip::In& k = ci_[c];
    chip::Chip::Out& o = co_[c];
    for (unsigned i = 0; i < cycles; ++i) {
      // the inputs (wire() without bit errors): its own, then each port's from the wires
      ChipPorts::own_in(p_.chip, in, c, k);
      h.own(c, i, k);
      for (unsigned q = 0; q < LP; ++q) {
        const link::Wire& from = *lines_[neighbour(c, q) * LP + back(q)];
        const link::Wire::Flit& f = from.flit();
        k.lk_rx_valid_i.set_bit(q, from.valid());
        k.lk_rx_data_i.copy(q * LW, f.data, 0, LW);
        k.lk_rx_seq_i.set_slice(q * SB, SB, f.seq);
        k.lk_rx_crc_i.set_slice(q * 16, 16, f.crc);
        take_answers(k, q, lines_[c * LP + q]->back());
      }
      chip.eval(k, o);
      h.seen(c, i, o);
      // the edge (move_wires() for its ends): its flits and its answers go on the wires, the
      // next cycle's reach it, and it ticks
      const std::uint64_t now = t0 + i;
      for (unsigned q = 0; q < LP; ++q) {
        link::Wire& out = *lines_[c * LP + q];
        link::Wire& from = *lines_[neighbour(c, q) * LP + back(q)];
        out.put_flit(now, o.lk_tx_valid_o.bit(q), o.lk_tx_seq_o.slice(q * SB, SB), o.lk_tx_crc_o.slice(q * 16, 16),
                     o.lk_tx_data_o, q * LW);
        from.put_back(now, answers(o, q));
      }
      for (unsigned q = 0; q < LP; ++q) {
        lines_[neighbour(c, q) * LP + back(q)]->arrive_flit(now + 1);
        lines_[c * LP + q]->arrive_back(now + 1);
      }
      chip.tick(k);
      h.edge(c, i);
    }
  });
  now_ = t0 + cycles;
  for (auto& ln : lines_) ln->flush(now_);
  dirty_.assign(n_, 1);
  evaluated_ = false;
}

link::Wire::Back ChipTorus::answers(const chip::Chip::Out& o, unsigned q) const {
  const unsigned SB = chips_[0].sb(), VB = p_.chip.v > 1 ? clog2(p_.chip.v) : 1;
  link::Wire::Back sd;
  sd.ack = o.lk_ack_valid_o.bit(q);
  sd.nack = o.lk_nack_valid_o.bit(q);
  sd.credit = o.lk_credit_o.bit(q);
  if (sd.any()) {
    sd.ack_seq = o.lk_ack_seq_o.slice(q * SB, SB);
    sd.nack_seq = o.lk_nack_seq_o.slice(q * SB, SB);
    sd.credit_vc = o.lk_credit_vc_o.slice(q * VB, VB);
  }
  return sd;
}

void ChipTorus::take_answers(chip::Chip::In& k, unsigned q, const link::Wire::Back& sd) const {
  const unsigned SB = chips_[0].sb(), VB = p_.chip.v > 1 ? clog2(p_.chip.v) : 1;
  k.lk_ack_valid_i.set_bit(q, sd.ack);
  k.lk_ack_seq_i.set_slice(q * SB, SB, sd.ack_seq);
  k.lk_nack_valid_i.set_bit(q, sd.nack);
  k.lk_nack_seq_i.set_slice(q * SB, SB, sd.nack_seq);
  k.lk_credit_i.set_bit(q, sd.credit);
  k.lk_credit_vc_i.set_slice(q * VB, VB, sd.credit_vc);
}

void ChipTorus::move_wires() {
  const unsigned LP = link_ports(), SB = chips_[0].sb(), LW = chips_[0].lw();
  bool any = false;
  for (unsigned c = 0; c < n_; ++c)
    for (unsigned k = 0; k < LP; ++k) {
      if (!delayed(k)) continue;
      any = true;
      const chip::Chip::Out& o = co_[c];                // the sender
      const chip::Chip::Out& r = co_[neighbour(c, k)];  // the receiver, on its port back(k)
      lines_[c * LP + k]->put(now_, o.lk_tx_valid_o.bit(k), o.lk_tx_seq_o.slice(k * SB, SB),
                              o.lk_tx_crc_o.slice(k * 16, 16), o.lk_tx_data_o, k * LW, answers(r, back(k)));
    }
  ++now_;
  if (!any) return;
  for (auto& ln : lines_)
    if (ln) ln->arrive(now_);
}

}  // namespace trn::system
