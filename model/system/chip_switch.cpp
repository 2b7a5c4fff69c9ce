#include "system/chip_switch.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/clog2.hpp"
#include "link/wire.hpp"

namespace trn::system {

namespace {
constexpr unsigned kMaxPasses = 6;

template <class T>
bool assign(T& dst, T&& v) {
  if (dst == v) return false;
  dst = std::move(v);
  return true;
}
}  // namespace

ChipSwitch::Params ChipSwitch::Params::of(const cfg::Arch& a, unsigned cores, unsigned n) {
  Params p{chip::Chip::Params::switched(a, n)};
  p.chip.cores = cores;
  return p;
}

ChipSwitch::ChipSwitch(Params p)
    : p_(p),
      n_(p.chips()),
      fb_(0),
      sw_(link::Router::Params{.p = p.chips(),
                               .v = p.chip.v,
                               .d = p.chip.d,
                               .w = p.chip.w,
                               .topo = link::Topo::TopoSwitch,
                               .kx = 1,
                               .ky = 1,
                               .kz = 1,
                               .table = nullptr}) {
  if (n_ == 0 || p_.chip.topo != link::Topo::TopoSwitch)
    throw std::invalid_argument("system::ChipSwitch: its chips are the chips of one switch (topo TopoSwitch)");
  if (n_ > 32 || n_ * p_.chip.v > 32)
    throw std::invalid_argument("system::ChipSwitch: the switch router takes at most 32 input VCs");
  chips_.reserve(n_);  // built in place: a chip is large, and never copied
  for (unsigned c = 0; c < n_; ++c) chips_.emplace_back(p_.chip);
  fb_ = clog2(wire_bits());
  const unsigned LW = chips_[0].lw();
  for (unsigned c = 0; c < n_; ++c) {
    ci_.push_back(chips_[c].make_in());
    co_.push_back(chips_[c].make_out());
    tx_.emplace_back(link::LinkTx::Params{LW, p_.chip.rdepth, p_.chip.timeout});
    rx_.emplace_back(link::LinkRx::Params{LW, tx_.front().sb(), true});
    ti_.push_back(tx_[c].make_in());
    to_.push_back(tx_[c].make_out());
    ri_.push_back(rx_[c].make_in());
    ro_.push_back(rx_[c].make_out());
  }
  si_ = sw_.make_in();
  so_ = sw_.make_out();
  dirty_.assign(n_, true);
  dirty_tx_.assign(n_, true);
  dirty_rx_.assign(n_, true);
}

sv::ports::chip_switch::Params ChipSwitch::sv_params() const {
  auto s = p_.chip.sv_chip<sv::ports::chip_switch::Params>();
  s.N = n_;
  return s;
}

ChipSwitch::In ChipSwitch::make_in() const { return ChipPorts::make_in(p_.chip, n_, links(), fb_); }

ChipSwitch::Out ChipSwitch::make_out() const { return ChipPorts::make_out(chips_[0], n_, links(), 1); }

bool ChipSwitch::wire(const In& in) const {
  const unsigned SB = chips_[0].sb(), LW = chips_[0].lw(), W = p_.chip.w;
  const unsigned VB = p_.chip.v > 1 ? clog2(p_.chip.v) : 1, wb = wire_bits();
  bool changed = false;
  // the wire of link l as its receiver sees it: {crc, seq, data} with the channel's flip
  auto on_wire = [&](unsigned l, const Bits& data, std::uint64_t seq, std::uint64_t crc) {
    Bits w(wb);
    link::wire_word(w, data, 0, LW, SB, seq, crc, in.flip_i, in.flip_bit_i, fb_, l);
    return w;
  };
  link::Router::In s = si_;
  s.rst_ni = in.rst_ni;
  s.id_i = 0;
  for (unsigned c = 0; c < n_; ++c) {
    const chip::Chip::Out& o = co_[c];
    // chip c: its own ports, and link port 0 from switch port c
    chip::Chip::In k = ci_[c];
    ChipPorts::own_in(p_.chip, in, c, k);
    {
      const link::LinkTx::Out& t = to_[c];
      const Bits w = on_wire(n_ + c, t.tx_data_o, t.tx_seq_o, t.tx_crc_o);
      k.lk_rx_valid_i.set_bit(0, t.tx_valid_o);
      k.lk_rx_data_i.copy(0, w, 0, LW);
      k.lk_rx_seq_i.set_slice(0, SB, w.slice(LW, SB));
      k.lk_rx_crc_i.set_slice(0, 16, w.slice(LW + SB, 16));
      const link::LinkRx::Out& r = ro_[c];
      k.lk_ack_valid_i.set_bit(0, r.ack_valid_o);
      k.lk_ack_seq_i.set_slice(0, SB, r.ack_seq_o);
      k.lk_nack_valid_i.set_bit(0, r.nack_valid_o);
      k.lk_nack_seq_i.set_slice(0, SB, r.nack_seq_o);
      k.lk_credit_i.set_bit(0, so_.in_credit_o.bit(c));
      k.lk_credit_vc_i.set_slice(0, VB, so_.in_credit_vc_o.slice(c * VB, VB));
    }
    if (assign(ci_[c], std::move(k))) changed = dirty_[c] = true;
    // switch port c's receiver: what chip c sends
    link::LinkRx::In x = ri_[c];
    x.rst_ni = in.rst_ni;
    {
      const Bits w = on_wire(c, o.lk_tx_data_o, o.lk_tx_seq_o.slice(0, SB), o.lk_tx_crc_o.slice(0, 16));
      x.rx_valid_i = o.lk_tx_valid_o.bit(0);
      x.rx_data_i.copy(0, w, 0, LW);
      x.rx_seq_i = w.slice(LW, SB);
      x.rx_crc_i = w.slice(LW + SB, 16);
    }
    if (assign(ri_[c], std::move(x))) changed = dirty_rx_[c] = true;
    // switch port c's sender: the switch's output c, acknowledged by chip c's receiver
    link::LinkTx::In t = ti_[c];
    t.rst_ni = in.rst_ni;
    t.in_valid_i = so_.out_valid_o.bit(c);
    t.in_data_i.copy(0, so_.out_flit_o, c * W, W);
    t.in_data_i.set_slice(W, VB, so_.out_vc_o.slice(c * VB, VB));
    t.ack_valid_i = o.lk_ack_valid_o.bit(0);
    t.ack_seq_i = o.lk_ack_seq_o.slice(0, SB);
    t.nack_valid_i = o.lk_nack_valid_o.bit(0);
    t.nack_seq_i = o.lk_nack_seq_o.slice(0, SB);
    if (assign(ti_[c], std::move(t))) changed = dirty_tx_[c] = true;
    // the switch's port c: what its receiver delivers, the credits chip c's NIC returns
    const link::LinkRx::Out& r = ro_[c];
    s.in_valid_i.set_bit(c, r.out_valid_o);
    s.in_flit_i.copy(c * W, r.out_data_o, 0, W);
    s.in_vc_i.set_slice(c * VB, VB, r.out_data_o.slice(W, VB));
    s.out_credit_i.set_bit(c, o.lk_credit_o.bit(0));
    s.out_credit_vc_i.set_slice(c * VB, VB, o.lk_credit_vc_o.slice(0, VB));
  }
  if (assign(si_, std::move(s))) changed = dirty_sw_ = true;
  return changed;
}

void ChipSwitch::eval(const In& in, Out& out) const {
  for (unsigned pass = 0;; ++pass) {
    if (pass == kMaxPasses)
      throw std::logic_error(fmt::format("chip switch model: the wiring does not settle in {} passes", kMaxPasses));
    const bool changed = wire(in);
    if (pass > 0 && !changed) break;
    for (unsigned c = 0; c < n_; ++c) {
      if (dirty_[c] || pass == 0) chips_[c].eval(ci_[c], co_[c]);
      if (dirty_tx_[c] || pass == 0) tx_[c].eval(ti_[c], to_[c]);
      if (dirty_rx_[c] || pass == 0) rx_[c].eval(ri_[c], ro_[c]);
      dirty_[c] = dirty_tx_[c] = dirty_rx_[c] = false;
    }
    if (dirty_sw_ || pass == 0) sw_.eval(si_, so_);
    dirty_sw_ = false;
  }
  last_in_ = in;
  evaluated_ = true;
  if (out.sem_o.width() != n_ * co_[0].sem_o.width()) out = make_out();
  for (unsigned c = 0; c < n_; ++c) {
    const chip::Chip::Out& o = co_[c];
    ChipPorts::own_out(p_.chip, o, c, out);
    out.link_ready_o.set_bit(c, o.lk_tx_ready_o.bit(0));
    out.link_ready_o.set_bit(n_ + c, to_[c].in_ready_o);
    out.link_crc_err_o.set_slice(c * 32, 32, ro_[c].crc_errors_o);
    out.link_crc_err_o.set_slice((n_ + c) * 32, 32, o.lk_crc_err_o.slice(0, 32));
    out.link_replay_o.set_slice(c * 32, 32, o.lk_replays_o.slice(0, 32));
    out.link_replay_o.set_slice((n_ + c) * 32, 32, to_[c].replays_o);
  }
  out.bad_dst_o.set_slice(0, 16, so_.bad_dst_o);
}

void ChipSwitch::tick(const In& in) {
  if (!evaluated_ || !(in == last_in_)) {
    Out o = make_out();
    eval(in, o);
  }
  evaluated_ = false;
  for (unsigned c = 0; c < n_; ++c) {
    chips_[c].tick(ci_[c]);
    tx_[c].tick(ti_[c]);
    rx_[c].tick(ri_[c]);
  }
  sw_.tick(si_);
}

}  // namespace trn::system
