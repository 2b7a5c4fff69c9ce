#include "system/chip_net.hpp"

#include <algorithm>
#include <stdexcept>

namespace trn::system {

ChipNet::ChipNet(Params p) : p_(p), n_(p.chips()), net_(p.net) {
  if (p_.chip.topo != link::Topo::TopoTable)
    throw std::invalid_argument("system::ChipNet: its chips are on the network (topo TopoTable)");
  if (n_ != net_.endpoints()) throw std::invalid_argument("system::ChipNet: a chip on every endpoint of the network");
  if (p_.net.w != p_.chip.w || p_.net.v != p_.chip.v || p_.net.d != p_.chip.d)
    throw std::invalid_argument("system::ChipNet: the chips' flits, VCs and buffers are the network's");
  if (p_.net.edge_regs) throw std::invalid_argument("system::ChipNet: the chips drive the network from registers");
  chips_.reserve(n_);  // built in place: a chip is large, and never copied
  for (unsigned c = 0; c < n_; ++c) {
    chips_.emplace_back(p_.chip);
    ci_.push_back(chips_[c].make_in());
    co_.push_back(chips_[c].make_out());
  }
  ni_ = net_.make_in();
  no_ = net_.make_out();
  team_ = std::make_unique<common::Workers>(std::min(p_.threads, n_));
}

ChipNet::In ChipNet::make_in() const { return ChipPorts::make_in(p_.chip, n_, links(), fb()); }

ChipNet::Out ChipNet::make_out() const { return ChipPorts::make_out(chips_[0], n_, links(), net_.routers()); }

void ChipNet::wire_net(const In& in) const {
  const unsigned w = p_.chip.w, vb = net_.vb();
  link::Net::In& ni = ni_;
  ni.rst_ni = in.rst_ni;
  ni.flip_i = in.flip_i;
  ni.flip_bit_i = in.flip_bit_i;
  for (unsigned c = 0; c < n_; ++c) {
    const chip::Chip::Out& o = co_[c];
    const bool v = o.lk_tx_valid_o.bit(0);
    ni.inj_valid_i.set_bit(c, v);
    if (v) {
      ni.inj_flit_i.copy(c * w, o.lk_tx_data_o, 0, w);
      ni.inj_vc_i.set_slice(c * vb, vb, o.lk_tx_data_o.slice(w, vb));
    }
    const bool cr = o.lk_credit_o.bit(0);
    ni.ej_credit_i.set_bit(c, cr);
    if (cr) ni.ej_credit_vc_i.set_slice(c * vb, vb, o.lk_credit_vc_o.slice(0, vb));
  }
}

void ChipNet::eval(const In& in, Out& out) const {
  const unsigned w = p_.chip.w, vb = net_.vb();
  wire_net(in);  // (the network's outputs are registers: what it is given changes none of them)
  net_.eval(ni_, no_);
  team_->run(n_, [&](unsigned c) {  // each call its own chip: the team shares them out
    chip::Chip::In& k = ci_[c];
    ChipPorts::own_in(p_.chip, in, c, k);
    k.lk_rx_valid_i.set_bit(0, no_.ej_valid_o.bit(c));
    k.lk_rx_data_i.copy(0, no_.ej_flit_o, c * w, w);
    k.lk_rx_data_i.set_slice(w, vb, no_.ej_vc_o.slice(c * vb, vb));
    k.lk_credit_i.set_bit(0, no_.inj_credit_o.bit(c));
    k.lk_credit_vc_i.set_slice(0, vb, no_.inj_credit_vc_o.slice(c * vb, vb));
    chips_[c].eval(k, co_[c]);
  });
  wire_net(in);
  last_in_ = in;
  evaluated_ = true;
  if (out.sem_o.width() != n_ * co_[0].sem_o.width()) out = make_out();
  for (unsigned c = 0; c < n_; ++c) ChipPorts::own_out(p_.chip, co_[c], c, out);
  out.link_ready_o = no_.link_ready_o;
  out.link_crc_err_o = no_.link_crc_err_o;
  out.link_replay_o = no_.link_replay_o;
  out.bad_dst_o = no_.bad_dst_o;
}

void ChipNet::tick(const In& in) {
  if (!evaluated_ || !(in == last_in_)) {
    Out o = make_out();
    eval(in, o);
  }
  evaluated_ = false;
  team_->run(n_, [&](unsigned c) { chips_[c].tick(ci_[c]); });
  net_.tick(ni_);
}

}  // namespace trn::system
