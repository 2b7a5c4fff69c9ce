// trn::chip::ChipXbar — cycle-exact model of rtl/chip/chip_xbar.sv, the chip's memory and write
// fabric (docs/chip.md), written from docs/chip.md ("The fabric"). Its parts, as in the RTL:
// u_rd_arb (the units' reads onto the HBM port), u_wr_arb (writes to HBM: the units', then the
// NIC's), u_tx_arb (the units' writes to other chips, to the NIC), u_sem_arb (semaphore additions:
// the units', then the NIC's), each a common::RrArbiter; a register counting the semaphore writes
// for no unit.
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "common/rr_arbiter.hpp"
#include "dma/desc.hpp"
#include "sv/dma_pkg.hpp"
#include "sv/ports/chip_xbar.hpp"

namespace trn::chip {

class ChipXbar {
 public:
  struct Params {
    unsigned units = 3;  ///< units with an HBM port: cores, then collective cores
    unsigned id_w = 7;   ///< a unit's read id bits
    unsigned beat_bytes = 16;
  };
  using rd_req_t = sv::dma_pkg::rd_req_t;
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using wr_info_t = sv::dma_pkg::wr_info_t;
  struct In {
    bool rst_ni = false;
    std::uint64_t id_i = 0;
    std::uint64_t u_ar_valid_i = 0;  ///< a bit per unit
    std::vector<rd_req_t> u_ar_i;
    std::uint64_t u_r_ready_i = 0;
    std::uint64_t u_wr_valid_i = 0;
    std::vector<wr_req_t> u_wr_i;
    Bits u_wr_data_i;  ///< unit u's at bits [u * 8 * beat_bytes, ...)
    std::vector<wr_info_t> u_wr_info_i;
    bool rx_valid_i = false;
    wr_req_t rx_i;
    bool rx_sem_i = false;
    Bits rx_data_i;
    bool tx_ready_i = false;
    bool hbm_ar_ready_i = false;
    bool hbm_r_valid_i = false;
    std::uint64_t hbm_r_id_i = 0;
    Bits hbm_r_data_i;
    bool hbm_wr_ready_i = false;
    bool operator==(const In&) const = default;
  };
  struct Out {
    std::uint64_t u_ar_ready_o = 0;
    std::uint64_t u_r_valid_o = 0;
    std::uint64_t u_r_id_o = 0;
    Bits u_r_data_o;
    std::uint64_t u_wr_ready_o = 0;
    bool rx_ready_o = false;
    bool tx_valid_o = false;
    wr_req_t tx_o;
    bool tx_sem_o = false;
    Bits tx_data_o;
    std::uint64_t sem_valid_o = 0;
    std::uint64_t sem_idx_o = 0;
    std::uint32_t sem_val_o = 0;
    bool hbm_ar_valid_o = false;
    rd_req_t hbm_ar_o;
    std::uint64_t hbm_ar_src_o = 0;
    bool hbm_r_ready_o = false;
    bool hbm_wr_valid_o = false;
    wr_req_t hbm_wr_o;
    Bits hbm_wr_data_o;
    wr_info_t hbm_wr_info_o;
    std::uint64_t hbm_wr_src_o = 0;
    std::uint64_t bad_sem_o = 0;
  };
  /// The arbiters' ports as wired in the last eval(), for the probes.
  struct Wires {
    common::RrArbiter::In rd_in, wr_in, tx_in, sem_in;
    common::RrArbiter::Out rd_out, wr_out, tx_out, sem_out;
  };

  explicit ChipXbar(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/chip/chip_xbar.sv, generated from its header.
  sv::ports::chip_xbar::Params sv_params() const {
    return {.Units = p_.units, .IdW = p_.id_w, .BeatBytes = p_.beat_bytes};
  }
  TRN_MODULE_PORTS(chip_xbar)

  const common::RrArbiter& rd_arb() const { return rd_; }    ///< u_rd_arb
  const common::RrArbiter& wr_arb() const { return wr_; }    ///< u_wr_arb
  const common::RrArbiter& tx_arb() const { return tx_; }    ///< u_tx_arb
  const common::RrArbiter& sem_arb() const { return sem_; }  ///< u_sem_arb
  const Wires& wires() const { return w_; }

 private:
  /// The payloads of the write arbiters, as the RTL's packed structs hw_t {wr, data, info}, tw_t
  /// {wr, sem, data}, sa_t {unit, idx, val} (the first field the most significant).
  unsigned hw_bits() const { return wr_req_t::kWidth + 8 * p_.beat_bytes + wr_info_t::kWidth; }
  unsigned tw_bits() const { return wr_req_t::kWidth + 1 + 8 * p_.beat_bytes; }
  static constexpr unsigned kSaBits = dma::kUnitBits + 5 + 32;
  void wire(const In& in) const;

  Params p_;
  unsigned rw_;  ///< a read's source bits
  common::RrArbiter rd_, wr_, tx_, sem_;
  std::uint16_t bad_q_ = 0;
  mutable Wires w_;
};

}  // namespace trn::chip
