// trn::chip::Chip — cycle-exact model of rtl/chip/chip.sv (SPEC 5.7, docs/chip.md), composed from
// the unit models through their ports as the RTL is from its units:
//   g_core[c].u_nc   trn::core::NeuronCore (unit c)
//   g_cc[k].u_cc     trn::chip::CcCore (unit cores + k)
//   u_xbar           trn::chip::ChipXbar: the units' HBM ports, the NIC, the semaphores, the HBM port
//   u_nic            trn::chip::Nic on the router's local port
//   g_router.u_router  trn::link::Router, port 0 the NIC, port k + 1 link port k (a chip on a
//                    torus; a chip on a switch has none: its NIC is on its one link port)
//   g_link[k].u_tx   trn::link::LinkTx: the router's output k + 1 onto link port k
//   g_link[k].u_rx   trn::link::LinkRx: link port k into the router's input k + 1
// Evaluation: every part is evaluated on the inputs wired from the chip's inputs and the parts'
// outputs, and the wiring repeated until no part's inputs change (a unit's HBM readies come from
// the fabric, which reads the units' requests); tick() gives every part the edge with its settled
// inputs. The parts and their wired ports are exposed for the probes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chip/cc_core.hpp"
#include "chip/chip_xbar.hpp"
#include "chip/nic.hpp"
#include "common/bits.hpp"
#include "common/ports.hpp"
#include "core/neuron_core.hpp"
#include "link/link.hpp"
#include "link/router.hpp"
#include "sv/ports/chip.hpp"
#include "trn_config.hpp"

namespace trn::chip {

class Chip {
 public:
  struct Params {
    core::NeuronCore::Params core;  ///< every core's (its unit index set per core)
    unsigned cores = 2, cc_cores = 1;
    bool skip_quiet = true;  ///< model speed only: the collective cores' (CcCore::Params::skip_quiet)
    unsigned chips = 2;      ///< chips an HBM address may name
    unsigned w = 64, v = 2, d = 4, rdepth = 8, timeout = 64;
    link::Topo topo = link::Topo::TopoTorus;
    unsigned kx = 2, ky = 1, kz = 1;
    /// Torus: the router's last-hop VC (link::Router::Params::last_hop; v a multiple of 3).
    bool last_hop = false;
    unsigned units() const { return cores + cc_cores; }
    /// Link ports: 4 (6 in 3D) on a torus, 1 on a switch or a network.
    unsigned link_ports() const { return topo != link::Topo::TopoTorus ? 1 : kz > 1 ? 6 : 4; }
    /// A chip of configuration a in a system of `chips` chips on a kx x ky x kz torus.
    static Params of(const cfg::Arch& a, unsigned chips, unsigned kx, unsigned ky, unsigned kz = 1);
    /// A chip of configuration a on a switch of `chips` chips.
    static Params switched(const cfg::Arch& a, unsigned chips);
    /// A chip of configuration a on a network of routers the system holds (model only, topo
    /// TopoTable: trn::system::ChipNet): no router and no link layer of its own; its one port is
    /// the NIC on its router's local port (lk_tx_valid_o and lk_tx_data_o {vc, flit}: what it
    /// injects; lk_rx_valid_i and lk_rx_data_i: what it is given; lk_credit_*: the credits each
    /// way; the link layer's fields unused).
    static Params on_network(const cfg::Arch& a, unsigned chips);
    /// The RTL parameters of a top built of chips like this one (chip.sv, rtl/system/chip_torus.sv) that
    /// come from the chip alone; the top fills in its own.
    template <class Sv>
    Sv sv_chip() const {
      const auto& c = core.core;
      Sv s;
      s.Parts = c.parts, s.SbufBytes = c.sbuf_bytes, s.SbufBanks = c.sbuf_banks, s.PsumBanks = c.psum_banks;
      s.PsumBankBytes = c.psum_bank_bytes, s.MaxN = c.max_n, s.Queues = c.queues, s.Slots = c.slots;
      s.BeatBytes = c.beat_bytes, s.HbmBytes = c.hbm_bytes, s.ImemDepth = core.imem_depth;
      s.DmaEngines = c.dma_engines, s.Cores = cores, s.CcCores = cc_cores;
      s.W = w, s.V = v, s.D = d, s.RDepth = rdepth, s.Timeout = timeout;
      return s;
    }
  };
  using rd_req_t = sv::dma_pkg::rd_req_t;
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using wr_info_t = sv::dma_pkg::wr_info_t;
  struct In {
    bool rst_ni = false;
    std::uint64_t id_i = 0;
    bool im_valid_i = false;
    std::uint64_t im_unit_i = 0;
    unsigned im_stream_i = 0;
    std::uint32_t im_addr_i = 0;
    Bits im_data_i;
    std::uint64_t start_i = 0, dma_strong_i = 0;  ///< a bit per unit
    bool sem_ext_en_i = false;
    bool hbm_ar_ready_i = false, hbm_r_valid_i = false;
    std::uint64_t hbm_r_id_i = 0;
    Bits hbm_r_data_i;
    bool hbm_wr_ready_i = false;
    // link ports (port k at bits [k * field width, ...))
    Bits lk_ack_valid_i, lk_ack_seq_i, lk_nack_valid_i, lk_nack_seq_i;
    Bits lk_rx_valid_i, lk_rx_seq_i, lk_rx_data_i, lk_rx_crc_i;
    Bits lk_credit_i, lk_credit_vc_i;
    bool operator==(const In&) const = default;
  };
  struct Out {
    std::uint64_t running_o = 0, done_o = 0, err_o = 0;  ///< a bit per unit
    Bits err_code_o, err_detail_o, err_stream_o, err_pc_o, sem_o;
    std::uint64_t sem_ext_valid_o = 0, sem_ext_idx_o = 0;
    std::uint32_t sem_ext_val_o = 0;
    bool hbm_ar_valid_o = false;
    rd_req_t hbm_ar_o;
    std::uint64_t hbm_ar_src_o = 0;
    bool hbm_r_ready_o = false;
    bool hbm_wr_valid_o = false;
    wr_req_t hbm_wr_o;
    Bits hbm_wr_data_o;
    wr_info_t hbm_wr_info_o;
    std::uint64_t hbm_wr_src_o = 0;
    Bits lk_tx_valid_o, lk_tx_seq_o, lk_tx_data_o, lk_tx_crc_o;
    Bits lk_ack_valid_o, lk_ack_seq_o, lk_nack_valid_o, lk_nack_seq_o;
    Bits lk_credit_o, lk_credit_vc_o;
    Bits lk_tx_ready_o, lk_crc_err_o, lk_replays_o;
    std::uint64_t bad_dst_o = 0, nic_drop_o = 0, bad_sem_o = 0;
  };

  explicit Chip(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);
  /// A collective core's instruction memory word, written at once (CcCore::write_imem): unit u is
  /// one of the chip's collective cores.
  void write_imem(unsigned u, unsigned s, std::uint32_t addr, const Bits& word);

  /// The ports of rtl/chip/chip.sv, generated from its header.
  sv::ports::chip::Params sv_params() const;
  TRN_MODULE_PORTS(chip)

  /// Link sequence number bits, and a link's payload {vc, flit}.
  unsigned sb() const { return sb_; }
  /// Link layers: one per link port, none on a network.
  unsigned links() const { return p_.topo == link::Topo::TopoTable ? 0 : p_.link_ports(); }
  unsigned lw() const { return p_.w + vb_; }

  /// The parts, and their ports as wired in the last eval() (for the probes).
  const core::NeuronCore& core(unsigned c) const { return cores_.at(c); }
  const CcCore& cc(unsigned k) const { return ccs_.at(k); }
  const ChipXbar& xbar() const { return xbar_; }
  const Nic& nic() const { return nic_; }
  /// Whether the chip has a router (on a torus), and the router.
  bool routed() const { return p_.topo == link::Topo::TopoTorus; }
  const link::Router& router() const { return router_.value(); }
  const link::LinkTx& link_tx(unsigned k) const { return tx_.at(k); }
  const link::LinkRx& link_rx(unsigned k) const { return rx_.at(k); }
  struct Wires {
    std::vector<core::NeuronCore::In> core_in;
    std::vector<core::NeuronCore::Out> core_out;
    std::vector<CcCore::In> cc_in;
    std::vector<CcCore::Out> cc_out;
    ChipXbar::In xbar_in;
    ChipXbar::Out xbar_out;
    Nic::In nic_in;
    Nic::Out nic_out;
    link::Router::In router_in;
    link::Router::Out router_out;
    std::vector<link::LinkTx::In> tx_in;
    std::vector<link::LinkTx::Out> tx_out;
    std::vector<link::LinkRx::In> rx_in;
    std::vector<link::LinkRx::Out> rx_out;
    unsigned passes = 0;
  };
  const Wires& wires() const { return w_; }

 private:
  /// The parts whose inputs changed in the last wire(): re-evaluated in the next pass.
  struct Dirty {
    std::vector<bool> core, cc, tx, rx;
    bool xbar = false, nic = false, router = false;
    bool any() const;
    void all(bool v);
  };
  /// Wire every part's inputs from the chip's inputs and the parts' outputs; true if any changed.
  bool wire(const In& in) const;
  void settle(const In& in) const;

  Params p_;
  unsigned vb_, sb_ = 0;
  std::vector<core::NeuronCore> cores_;
  std::vector<CcCore> ccs_;
  ChipXbar xbar_;
  Nic nic_;
  std::optional<link::Router> router_;
  std::vector<link::LinkTx> tx_;
  std::vector<link::LinkRx> rx_;
  mutable Wires w_;
  mutable Dirty dirty_;
  /// The parts' outputs are those of their current state (no edge since the last eval): an eval
  /// with other inputs re-evaluates only the parts whose inputs change.
  mutable bool evaluated_ = false;
  /// The inputs the parts settled on last (while evaluated_).
  mutable In settled_in_;
};

}  // namespace trn::chip
