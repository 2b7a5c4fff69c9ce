// trn::system::ChipSwitch — cycle-exact model of rtl/system/chip_switch.sv: N trn::chip::Chip
// instances (g_chip[c], Topo = TopoSwitch: no router of their own, the NIC on the one link port),
// chip c with id c on port c of a switch trn::link::Router (u_switch, TopoSwitch), each switch port
// with its own link layer (g_port[c].u_tx toward chip c, g_port[c].u_rx from it). Directed link
// l = c is chip c to the switch, l = N + c the switch to chip c; each passes a wire
// {crc, seq, {vc, flit}} that flip_i corrupts at bit flip_bit_i; acknowledgements and credits
// travel back beside it. Everything else is the chips' own ports (ChipPorts).
// Evaluation: every chip and every switch-side part on the inputs wired from the system's inputs
// and the parts' outputs, again until no part's inputs change; tick() gives each part the edge.
#pragma once

#include <cstdint>
#include <vector>

#include "chip/chip.hpp"
#include "common/bits.hpp"
#include "common/ports.hpp"
#include "link/link.hpp"
#include "link/router.hpp"
#include "sv/ports/chip_switch.hpp"
#include "system/chip_ports.hpp"

namespace trn::system {

class ChipSwitch {
 public:
  struct Params {
    chip::Chip::Params chip;  ///< every chip's (topo TopoSwitch, chips the switch's ports)
    /// A switch of n chips of configuration a, each with `cores` NeuronCores.
    static Params of(const cfg::Arch& a, unsigned cores, unsigned n);
    unsigned chips() const { return chip.chips; }
  };
  using In = ChipPorts::In;    ///< flip_i: link c chip c -> switch, N + c switch -> chip c
  using Out = ChipPorts::Out;  ///< bad_dst_o: the switch's drops

  explicit ChipSwitch(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/system/chip_switch.sv, generated from its header.
  sv::ports::chip_switch::Params sv_params() const;
  TRN_MODULE_PORTS(chip_switch)

  unsigned chips() const { return n_; }
  const chip::Chip& chip(unsigned c) const { return chips_.at(c); }
  /// chip::Chip::write_imem on chip c (the system's outputs are evaluated again).
  void write_imem(unsigned c, unsigned u, unsigned s, std::uint32_t addr, const Bits& word) {
    chips_.at(c).write_imem(u, s, addr, word);
    evaluated_ = false;
  }
  const chip::Chip::In& chip_in(unsigned c) const { return ci_.at(c); }
  const chip::Chip::Out& chip_out(unsigned c) const { return co_.at(c); }
  /// The switch and its port c's link layer, and their ports as wired in the last eval().
  const link::Router& switch_router() const { return sw_; }
  const link::LinkTx& port_tx(unsigned c) const { return tx_.at(c); }
  const link::LinkRx& port_rx(unsigned c) const { return rx_.at(c); }
  const link::Router::In& switch_in() const { return si_; }
  const link::Router::Out& switch_out() const { return so_; }
  const link::LinkTx::In& port_tx_in(unsigned c) const { return ti_.at(c); }
  const link::LinkTx::Out& port_tx_out(unsigned c) const { return to_.at(c); }
  const link::LinkRx::In& port_rx_in(unsigned c) const { return ri_.at(c); }
  const link::LinkRx::Out& port_rx_out(unsigned c) const { return ro_.at(c); }
  /// The chip after chip c (the switch reaches every chip; the benches' "next").
  unsigned neighbour(unsigned c, unsigned /*k*/) const { return (c + 1) % n_; }
  /// Bits of a link's wire {crc, seq, vc, flit} and of a flip_bit_i index.
  unsigned wire_bits() const { return 16 + chips_[0].sb() + chips_[0].lw(); }
  unsigned fb() const { return fb_; }
  unsigned link_ports() const { return 1; }
  unsigned links() const { return 2 * n_; }

 private:
  /// Every part's inputs from the system's inputs and the parts' outputs; true if any changed.
  bool wire(const In& in) const;
  Params p_;
  unsigned n_, fb_;
  std::vector<chip::Chip> chips_;
  link::Router sw_;
  std::vector<link::LinkTx> tx_;
  std::vector<link::LinkRx> rx_;
  mutable std::vector<chip::Chip::In> ci_;
  mutable std::vector<chip::Chip::Out> co_;
  mutable link::Router::In si_;
  mutable link::Router::Out so_;
  mutable std::vector<link::LinkTx::In> ti_;
  mutable std::vector<link::LinkTx::Out> to_;
  mutable std::vector<link::LinkRx::In> ri_;
  mutable std::vector<link::LinkRx::Out> ro_;
  mutable std::vector<bool> dirty_;  // chips
  mutable bool dirty_sw_ = true;
  mutable std::vector<bool> dirty_tx_, dirty_rx_;
  mutable In last_in_;
  mutable bool evaluated_ = false;
};

}  // namespace trn::system
