// trn::core::NeuronCore — cycle-exact model of rtl/core/neuron_core.sv: the NeuronCore with its
// control (docs/isa.md), composed from trn::core::Control and the datapath trn::core::Core
// through their ports.
//
// Wiring, as in the RTL:
//   - the control's command outputs drive the engines' command ports and the DMA's descriptor port
//     (engine and queue: the low bits the core takes); the engines' ready and completions and the
//     DMA engines' queue idle flags go back to the control;
//   - the core's HBM write channel passes through a SemTap (u_tap): a completion write for the core
//     itself (chip and unit fields 0) never leaves the NeuronCore but becomes the semaphore addition
//     of its data's low 32 bits to semaphore (address / 4) mod 32; other writes leave, a completion
//     for another unit with its unit field filled in;
//   - the control's gpsimd_run starts the core's GpSimd engine (core.gp_procs > 0); the engine sees
//     the control's semaphores and its processors' sem.add go to the control; its done and error
//     go to the control, its error's processor and pc to gp_err_proc_o, gp_err_pc_o; the gp_host_*
//     port reaches the processors' local memories;
//   - everything else on the HBM port passes through; the chip's semaphore additions (sem_add_*)
//     go to the control's second addition port.
// Evaluation: the control, then the core, repeated until neither's inputs change (two passes: the
// control's commands do not depend on the engines' ready).
#pragma once

#include <array>
#include <cstdint>

#include "common/ports.hpp"
#include "core/control.hpp"
#include "core/core.hpp"
#include "core/sem_tap.hpp"
#include "sv/ports/neuron_core.hpp"

namespace trn::core {

class NeuronCore {
 public:
  struct Params {
    Core::Params core;
    unsigned imem_depth = 256;
    unsigned unit = 0;  ///< this core's unit index on its chip
    static Params of(const cfg::Arch& a);
  };
  struct In {
    bool rst_ni = false;
    bool start_i = false;
    bool im_valid_i = false;
    unsigned im_stream_i = 0;
    std::uint32_t im_addr_i = 0;
    Bits im_data_i;
    Bits dma_cfg_strong_i;  ///< engine e's queue q at bit e * queues + q
    std::uint64_t dma_cfg_max_outst_i = 0;
    bool sem_ext_en_i = false;  ///< another unit may add to the semaphores (the chip)
    bool sem_add_valid_i = false;
    unsigned sem_add_idx_i = 0;
    std::uint32_t sem_add_val_i = 0;
    bool hbm_ar_ready_i = false, hbm_r_valid_i = false;
    std::uint64_t hbm_r_id_i = 0;
    Bits hbm_r_data_i;
    bool hbm_wr_ready_i = false;
    bool gp_host_we_i = false, gp_host_re_i = false, gp_host_all_i = false;
    std::uint32_t gp_host_proc_i = 0, gp_host_addr_i = 0, gp_host_wdata_i = 0;

    bool operator==(const In&) const = default;
  };
  struct Out {
    bool running_o = false, done_o = false, err_o = false;
    unsigned err_code_o = 0, err_detail_o = 0, err_stream_o = 0;
    std::uint32_t err_pc_o = 0;
    std::array<Control::StreamStatus, Control::kStreams> st_o{};
    std::array<std::uint32_t, Control::kSems> sem_o{};
    std::uint32_t gp_err_proc_o = 0, gp_err_pc_o = 0;  ///< the GpSimd engine's error: processor, pc
    std::uint32_t gp_host_rdata_o = 0;
    // observation
    Bits dma_q_idle_o, dma_q_err_o, dma_q_code_o, dma_q_done_o;
    bool ve_busy_o = false, se_busy_o = false;
    bool hbm_ar_valid_o = false;
    Core::rd_req_t hbm_ar_o;
    bool hbm_r_ready_o = false;
    bool hbm_wr_valid_o = false;
    Core::wr_req_t hbm_wr_o;
    Bits hbm_wr_data_o;
    Core::wr_info_t hbm_wr_info_o;
  };

  explicit NeuronCore(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/core/neuron_core.sv, generated from its header; the module's parameters from this model's.
  sv::ports::neuron_core::Params sv_params() const {
    return {.Parts = p_.core.parts,
            .SbufBytes = p_.core.sbuf_bytes,
            .SbufBanks = p_.core.sbuf_banks,
            .PsumBanks = p_.core.psum_banks,
            .PsumBankBytes = p_.core.psum_bank_bytes,
            .MaxN = p_.core.max_n,
            .Queues = p_.core.queues,
            .Slots = p_.core.slots,
            .BeatBytes = p_.core.beat_bytes,
            .HbmBytes = p_.core.hbm_bytes,
            .ImemDepth = p_.imem_depth,
            .DmaEngines = p_.core.dma_engines,
            .Chips = p_.core.chips,
            .Unit = p_.unit,
            .GpProcs = p_.core.gp_procs,
            .GpTcmBytes = p_.core.gp_tcm_bytes,
            .GpVlen = p_.core.gp_vlen};
  }
  TRN_MODULE_PORTS(neuron_core)

  const Control& control() const { return ctl_; }
  const Core& core() const { return core_; }
  const SemTap& tap() const { return tap_; }
  /// The control's and the core's ports as wired in the last eval().
  const Control::In& ctl_in() const { return ci_; }
  const Control::Out& ctl_out() const { return co_; }
  const Core::In& core_in() const { return ki_; }
  const Core::Out& core_out() const { return ko_; }
  const SemTap::In& tap_in() const { return ti_; }
  const SemTap::Out& tap_out() const { return to_; }

 private:
  void settle(const In& in) const;
  Params p_;
  Control ctl_;
  Core core_;
  SemTap tap_;
  mutable Control::In ci_;
  mutable Control::Out co_;
  mutable Core::In ki_;
  mutable Core::Out ko_;
  mutable SemTap::In ti_;
  mutable SemTap::Out to_;
};

}  // namespace trn::core
