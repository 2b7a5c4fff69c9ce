// trn::chip::CcCore — cycle-exact model of rtl/chip/cc_core.sv, a collective core (docs/chip.md),
// composed as the RTL is from the NeuronCore's control (trn::core::Control with only its sync
// stream built), a DMA engine with no SBUF (trn::dma::DmaEngine, parts 0) and a SemTap:
//   - the control's descriptors go to the DMA's descriptor port, the DMA's queue idle flags back;
//   - the DMA's reads are the unit's HBM port; its writes pass the tap, which takes off the unit's
//     own completions (added to the semaphores) and lets every other write leave;
//   - the chip's semaphore additions arrive on sem_add_* (the control's second addition port).
// Evaluation: control, DMA, tap, repeated until the control's inputs do not change.
#pragma once

#include <array>
#include <cstdint>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "core/control.hpp"
#include "core/sem_tap.hpp"
#include "dma/dma_engine.hpp"
#include "sv/ports/cc_core.hpp"

namespace trn::chip {

class CcCore {
 public:
  struct Params {
    unsigned queues = 2, slots = 64, beat_bytes = 16;
    std::uint32_t hbm_bytes = 65536;
    unsigned imem_depth = 256;
    unsigned chips = 1;
    unsigned unit = 0;  ///< this unit's index on its chip (after the cores)
    /// Model speed only: a waiting core skips its ticks on unchanged inputs (tick()); false runs
    /// every tick (collectives/cycle_level_skipping_changes_nothing compares the two).
    bool skip_quiet = true;
  };
  using rd_req_t = sv::dma_pkg::rd_req_t;
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using wr_info_t = sv::dma_pkg::wr_info_t;
  using StreamStatus = core::Control::StreamStatus;
  struct In {
    bool rst_ni = false;
    bool start_i = false;
    bool im_valid_i = false;
    unsigned im_stream_i = 0;
    std::uint32_t im_addr_i = 0;
    Bits im_data_i;
    std::uint64_t dma_cfg_strong_i = 0;
    bool sem_ext_en_i = false;
    bool sem_add_valid_i = false;
    unsigned sem_add_idx_i = 0;
    std::uint32_t sem_add_val_i = 0;
    bool hbm_ar_ready_i = false, hbm_r_valid_i = false;
    std::uint64_t hbm_r_id_i = 0;
    Bits hbm_r_data_i;
    bool hbm_wr_ready_i = false;
    bool operator==(const In&) const = default;
  };
  struct Out {
    bool running_o = false, done_o = false, err_o = false;
    unsigned err_code_o = 0, err_detail_o = 0, err_stream_o = 0;
    std::uint32_t err_pc_o = 0;
    std::array<StreamStatus, core::Control::kStreams> st_o{};
    std::array<std::uint32_t, core::Control::kSems> sem_o{};
    std::uint64_t dma_q_idle_o = 0, dma_q_err_o = 0;
    Bits dma_q_code_o, dma_q_done_o;
    bool hbm_ar_valid_o = false;
    rd_req_t hbm_ar_o;
    bool hbm_r_ready_o = false;
    bool hbm_wr_valid_o = false;
    wr_req_t hbm_wr_o;
    Bits hbm_wr_data_o;
    wr_info_t hbm_wr_info_o;
  };

  explicit CcCore(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);
  /// Control::write_imem (its sync stream).
  void write_imem(unsigned s, std::uint32_t addr, const Bits& word) {
    ctl_.write_imem(s, addr, word);
    settled_ = false;
    ctl_moved_ = true;
    was_quiet_ = false;
  }

  /// The ports of rtl/chip/cc_core.sv, generated from its header.
  sv::ports::cc_core::Params sv_params() const {
    return {.Queues = p_.queues,
            .Slots = p_.slots,
            .BeatBytes = p_.beat_bytes,
            .HbmBytes = p_.hbm_bytes,
            .ImemDepth = p_.imem_depth,
            .Chips = p_.chips,
            .Unit = p_.unit};
  }
  TRN_MODULE_PORTS(cc_core)

  /// The parts (u_ctl, u_dma, u_tap) and their ports as wired in the last eval(), for the probes.
  const core::Control& control() const { return ctl_; }
  const dma::DmaEngine& dma() const { return dma_; }
  const core::SemTap& tap() const { return tap_; }
  const core::Control::In& ctl_in() const { return ci_; }
  const core::Control::Out& ctl_out() const { return co_; }
  const dma::DmaEngine::In& dma_in() const { return di_; }
  const dma::DmaEngine::Out& dma_out() const { return do_; }
  const core::SemTap::In& tap_in() const { return ti_; }
  const core::SemTap::Out& tap_out() const { return to_; }

 private:
  void settle(const In& in) const;
  Params p_;
  core::Control ctl_;
  dma::DmaEngine dma_;
  core::SemTap tap_;
  mutable core::Control::In ci_;
  mutable core::Control::In cn_;  // settle(): the next pass's control input is built here
  mutable core::Control::Out co_;
  mutable dma::DmaEngine::In di_;
  mutable dma::DmaEngine::Out do_;
  mutable core::SemTap::In ti_;
  mutable core::SemTap::Out to_;
  mutable bool ctl_moved_ = true;  // the control's state moved since its last eval (into co_, on ci_)
  mutable bool settled_ = false;   // the parts' ports above are settled for settled_in_ and the state
  mutable In settled_in_;
  bool was_quiet_ = false;  // the last tick ran quiet on quiet_in_: the state is a fixed point for it
  In quiet_in_;
};

}  // namespace trn::chip
