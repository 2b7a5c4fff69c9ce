// trn::system::ChipNet — chips on a network of routers the system holds (model only; no RTL top):
// N trn::chip::Chip instances of topo TopoTable (no router and no link layer of their own) on the
// endpoints of a trn::link::Net, chip c on endpoint c. The network's router at that endpoint is
// the chip's router: its port 0 is the chip's NIC, its other ports the chip's links, and every link
// between routers is the verified link layer (LinkTx, a wire, LinkRx). So a switched system of the
// presets (model/system: chip routers and switch routers, table-routed, Net's TopoTable), with each
// wire's latency and rate (link::Net::Params::wires), runs on the same unit models as the RTL's
// chips, for the cycle level of `trnsim collective`.
// Every chip output the network reads is a register and so is every network output: an evaluation
// evaluates the network, wires each chip's port from it and evaluates the chips; tick() gives
// every part the edge.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "chip/chip.hpp"
#include "common/workers.hpp"
#include "link/net.hpp"
#include "system/chip_ports.hpp"

namespace trn::system {

class ChipNet {
 public:
  struct Params {
    chip::Chip::Params chip;  ///< every chip's (topo TopoTable, chips the network's endpoints)
    link::Net::Params net;    ///< the network (its endpoints are the chips)
    unsigned threads = 1;     ///< model speed only: threads evaluating the chips (common::Workers)
    unsigned chips() const { return chip.chips; }
  };
  using In = ChipPorts::In;    ///< flip_i: the network's links
  using Out = ChipPorts::Out;  ///< link_*: the network's links; bad_dst_o: its routers' drops

  explicit ChipNet(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  unsigned chips() const { return n_; }
  const chip::Chip& chip(unsigned c) const { return chips_.at(c); }
  /// chip::Chip::write_imem on chip c (the system's outputs are evaluated again).
  void write_imem(unsigned c, unsigned u, unsigned s, std::uint32_t addr, const Bits& word) {
    chips_.at(c).write_imem(u, s, addr, word);
    evaluated_ = false;
  }
  const link::Net& net() const { return net_; }
  unsigned wire_bits() const { return net_.wire_bits(); }
  unsigned fb() const { return net_.fb(); }
  unsigned links() const { return net_.links(); }

 private:
  void wire_net(const In& in) const;
  Params p_;
  unsigned n_;
  std::vector<chip::Chip> chips_;
  link::Net net_;
  mutable std::vector<chip::Chip::In> ci_;
  mutable std::vector<chip::Chip::Out> co_;
  mutable link::Net::In ni_;
  mutable link::Net::Out no_;
  mutable In last_in_;
  mutable bool evaluated_ = false;
  std::unique_ptr<common::Workers> team_;
};

}  // namespace trn::system
