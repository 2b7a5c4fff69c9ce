// trn::tb::ChipProbes — a probe on every part of a chip (rtl/chip/chip.sv) inside a top: each
// NeuronCore (<scope>g_core[c].u_nc) with its control and datapath, each collective core
// (<scope>g_cc[k].u_cc) with its control and DMA, the fabric (u_xbar), the NIC (u_nic), the router
// (g_router.u_router; none in a chip on a switch) and each link's sender and receiver (g_link[k].u_tx, u_rx), each
// against its unit model inside trn::chip::Chip. compare() checks them all; the first mismatch names the part and its
// port. The top's build reads rtl/chip/chip_probes.vlt.
#pragma once

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "chip/chip.hpp"
#include "harness/lockstep.hpp"

namespace trn::tb {

class ChipProbes {
 public:
  ChipProbes(Env& env, Clock& clk, const chip::Chip& chip, const std::string& scope)
      : chip_(chip), xbar_(env, clk, chip.xbar(), scope + "u_xbar."), nic_(env, clk, chip.nic(), scope + "u_nic.") {
    const auto& p = chip.params();
    if (chip.routed())
      router_ = std::make_unique<Probe<link::Router>>(env, clk, chip.router(), scope + "g_router.u_router.");
    for (unsigned c = 0; c < p.cores; ++c) {
      const std::string s = fmt::format("{}g_core[{}].u_nc.", scope, c);
      add(nc_, env, clk, chip.core(c), s);
      add(ctl_, env, clk, chip.core(c).control(), s + "u_ctl.");
      add(core_, env, clk, chip.core(c).core(), s + "u_core.");
    }
    for (unsigned k = 0; k < p.cc_cores; ++k) {
      const std::string s = fmt::format("{}g_cc[{}].u_cc.", scope, k);
      add(cc_, env, clk, chip.cc(k), s);
      add(cc_ctl_, env, clk, chip.cc(k).control(), s + "u_ctl.");
      add(cc_dma_, env, clk, chip.cc(k).dma(), s + "u_dma.");
    }
    for (unsigned k = 0; k < p.link_ports(); ++k) {
      add(tx_, env, clk, chip.link_tx(k), fmt::format("{}g_link[{}].u_tx.", scope, k));
      add(rx_, env, clk, chip.link_rx(k), fmt::format("{}g_link[{}].u_rx.", scope, k));
    }
  }

  /// Every part's wired inputs and outputs (the chip model's last eval) against its instance's.
  void compare() {
    const chip::Chip::Wires& w = chip_.wires();
    for (std::size_t c = 0; c < nc_.size(); ++c) {
      const core::NeuronCore& n = chip_.core(static_cast<unsigned>(c));
      nc_[c]->compare(w.core_in[c], w.core_out[c]);
      ctl_[c]->compare(n.ctl_in(), n.ctl_out());
      core_[c]->compare(n.core_in(), n.core_out());
    }
    for (std::size_t k = 0; k < cc_.size(); ++k) {
      const chip::CcCore& u = chip_.cc(static_cast<unsigned>(k));
      cc_[k]->compare(w.cc_in[k], w.cc_out[k]);
      cc_ctl_[k]->compare(u.ctl_in(), u.ctl_out());
      cc_dma_[k]->compare(u.dma_in(), u.dma_out());
    }
    xbar_.compare(w.xbar_in, w.xbar_out);
    nic_.compare(w.nic_in, w.nic_out);
    if (router_) router_->compare(w.router_in, w.router_out);
    for (std::size_t k = 0; k < tx_.size(); ++k) {
      tx_[k]->compare(w.tx_in[k], w.tx_out[k]);
      rx_[k]->compare(w.rx_in[k], w.rx_out[k]);
    }
  }

 private:
  template <class U>
  using Probes = std::vector<std::unique_ptr<Probe<U>>>;
  template <class U>
  static void add(Probes<U>& v, Env& env, Clock& clk, const U& unit, const std::string& scope) {
    v.push_back(std::make_unique<Probe<U>>(env, clk, unit, scope));
  }

  const chip::Chip& chip_;
  Probes<core::NeuronCore> nc_;
  Probes<core::Control> ctl_, cc_ctl_;
  Probes<core::Core> core_;
  Probes<chip::CcCore> cc_;
  Probes<dma::DmaEngine> cc_dma_;
  Probe<chip::ChipXbar> xbar_;
  Probe<chip::Nic> nic_;
  std::unique_ptr<Probe<link::Router>> router_;  ///< none on a switch
  Probes<link::LinkTx> tx_;
  Probes<link::LinkRx> rx_;
};

}  // namespace trn::tb
