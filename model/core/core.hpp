// trn::core::Core — cycle-exact model of rtl/core/core.sv, the NeuronCore datapath (docs/core.md),
// composed from the unit models through their ports: the tensor engine (with PSUM), the vector and
// scalar engines, the DMA engine, SBUF, and two round-robin arbiters (rtl/common) that put the
// vector and scalar engines' PSUM requests on the tensor engine's PSUM ports.
//
// Wiring, as in the RTL:
//   - SBUF engine ports: e0 tensor stationary, e1 tensor moving, e2/e3 vector A/B, e4 vector
//     output, e5/e6 scalar A/B, e7 scalar output. A vector/scalar request with space = PSUM goes to
//     the PSUM arbiters instead (reads: ve rd0, ve rd1, se rd0, se rd1 onto pr_; writes: ve, se onto
//     pe_); PSUM element idx is bank idx / depth, element idx % depth; the read's data returns the
//     next cycle on the port that asked.
//   - The DMA engines (dma_engines of them, slots / dma_engines read slots each): a descriptor goes
//     to the engine it names; a read's id is {engine, slot} and a write's qid the engine's queue
//     index engine * queues + queue. Their reads and writes go round-robin (common::RrArbiter) by
//     space onto two channels: the HBM port (u_hbm_ar_arb, u_hbm_wr_arb) and SBUF's DMA ports
//     (u_sb_ar_arb, u_sb_wr_arb), a beat a cycle on each of the four. A read response goes to the
//     engine of its id; SBUF's and the HBM port's reach two engines in one cycle, and for one engine
//     SBUF's has priority and the HBM port's r_ready is low in its cycle.
//   - The GpSimd engine (gp_procs > 0: gpsimd::Engine, docs/gpsimd.md "In the NeuronCore") on
//     SBUF engine port e9: a word write of mask 1111 is a 4-byte element at offset / 4, of 0011 << k
//     or 0001 << k a 2- or 1-byte element at (offset + k) / 2 or offset + k, in the partition the
//     request names; a read the word's 4-byte element, its data the lane of that partition, the
//     next cycle. gp_procs = 0: no engine, nine SBUF engine ports.
// Evaluation: every unit's inputs are wired from the units' outputs and the core's inputs, the
// units evaluated, and the wiring repeated until no unit input changes (combinational paths
// between units, e.g. SBUF's grants from the engines' requests, settle in two or three passes).
// tick() gives every unit the edge with the settled inputs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "common/rr_arbiter.hpp"
#include "dma/dma_engine.hpp"
#include "dma/memsys.hpp"
#include "gpsimd/engine.hpp"
#include "mem/sbuf.hpp"
#include "sv/dma_pkg.hpp"
#include "sv/le_pkg.hpp"
#include "sv/ports/core.hpp"
#include "sv/te_pkg.hpp"
#include "tensor/tensor_engine.hpp"
#include "trn_config.hpp"
#include "vector/lane_engine.hpp"

namespace trn::core {

class Core {
 public:
  struct Params {
    unsigned parts = 4;               ///< partitions = tensor rows = columns = lanes
    std::uint32_t sbuf_bytes = 1024;  ///< per partition
    unsigned sbuf_banks = 4;
    unsigned psum_banks = 8;
    unsigned psum_bank_bytes = 64;
    unsigned max_n = 16;
    unsigned queues = 2, slots = 128, beat_bytes = 16;
    std::uint32_t hbm_bytes = 65536;
    unsigned dma_engines = 1;  ///< DMA engines, each with `queues` queues and slots / dma_engines slots
    unsigned chips = 1;        ///< chips an HBM address may name (docs/chip.md)
    unsigned te_gen = 2;       ///< the tensor engine's generation: 0 v2, 1 v3, 2 v4 (te_pkg::te_gen_e)
    unsigned gp_procs = 0;     ///< GpSimd processors (0: no GpSimd engine)
    unsigned gp_tcm_bytes = 4096, gp_vlen = 128;
    unsigned nq() const { return dma_engines * queues; }  ///< every engine's queues
    static Params of(const cfg::Arch& a);
  };
  /// The units' parameters in a core of these parameters.
  static tensor::TensorEngine::Params te_params(const Params& p);
  static mem::Sbuf::Params sb_params(const Params& p);
  static vector::LaneEngine::Params le_params(const Params& p, vector::Engine e);
  static dma::DmaEngine::Params dma_params(const Params& p);
  static gpsimd::Engine::Params gp_params(const Params& p);
  using te_cmd_t = sv::te_pkg::te_cmd_t;
  using instr_t = sv::le_pkg::instr_t;
  using desc_t = sv::dma_pkg::desc_t;
  using rd_req_t = sv::dma_pkg::rd_req_t;
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using wr_info_t = sv::dma_pkg::wr_info_t;
  using te_cpl_t = sv::te_pkg::te_cpl_t;
  using le_cpl_t = sv::le_pkg::le_cpl_t;

  struct In {
    bool rst_ni = false;
    bool te_cmd_valid_i = false;
    te_cmd_t te_cmd_i;
    bool ve_cmd_valid_i = false;
    instr_t ve_cmd_i;
    bool se_cmd_valid_i = false;
    instr_t se_cmd_i;
    bool dma_desc_valid_i = false;
    std::uint64_t dma_desc_engine_i = 0, dma_desc_queue_i = 0;
    desc_t dma_desc_i;
    Bits dma_cfg_strong_i;  ///< engine e's queue q at bit e * queues + q
    std::uint64_t dma_cfg_max_outst_i = 0;
    Bits dma_q_clr_i;
    bool hbm_ar_ready_i = false, hbm_r_valid_i = false;
    std::uint64_t hbm_r_id_i = 0;
    Bits hbm_r_data_i;
    bool hbm_wr_ready_i = false;
    // the GpSimd engine
    bool gp_start_i = false;
    std::uint32_t gp_entry_i = 0, gp_args_i = 0;
    bool gp_host_we_i = false, gp_host_re_i = false, gp_host_all_i = false;
    std::uint32_t gp_host_proc_i = 0, gp_host_addr_i = 0, gp_host_wdata_i = 0;
    std::array<std::uint32_t, 32> gp_sem_i{};
    bool operator==(const In&) const = default;  ///< (the NeuronCore's wiring settles on it)
  };
  struct Out {
    bool te_cmd_ready_o = false;
    te_cpl_t te_cpl_o;
    bool ve_cmd_ready_o = false, ve_busy_o = false;
    le_cpl_t ve_cpl_o;
    bool se_cmd_ready_o = false, se_busy_o = false;
    le_cpl_t se_cpl_o;
    Bits se_acc_o;
    bool dma_desc_ready_o = false;
    Bits dma_q_idle_o, dma_q_err_o;  ///< engine e's queue q at bit e * queues + q
    Bits dma_q_code_o, dma_q_done_o;
    bool hbm_ar_valid_o = false;
    rd_req_t hbm_ar_o;
    bool hbm_r_ready_o = false;
    bool hbm_wr_valid_o = false;
    wr_req_t hbm_wr_o;
    Bits hbm_wr_data_o;
    wr_info_t hbm_wr_info_o;
    bool gp_busy_o = false, gp_done_o = false, gp_err_o = false;
    std::uint32_t gp_err_proc_o = 0;
    sv::gpsimd_pkg::gp_err_e gp_err_code_o{};
    std::uint32_t gp_err_pc_o = 0, gp_host_rdata_o = 0;
    std::uint64_t gp_sem_add_o = 0;  ///< bit i: processor i's sem.add
    Bits gp_sem_idx_o, gp_sem_val_o;
  };

  /// The units' ports as wired in the last eval() (for the probes that compare them with the RTL's).
  struct Wires {
    tensor::TensorEngine::In te_in;
    tensor::TensorEngine::Out te_out;
    vector::LaneEngine::In ve_in, se_in;
    vector::LaneEngine::Out ve_out, se_out;
    std::vector<dma::DmaEngine::In> dma_in;  ///< per engine
    std::vector<dma::DmaEngine::Out> dma_out;
    /// the engines' reads and writes onto the core's channels, by space (index: dma_pkg's
    /// SpaceHbm 0, SpaceSbuf 1)
    std::vector<common::RrArbiter::In> ar_in, wr_in;
    std::vector<common::RrArbiter::Out> ar_out, wr_out;
    mem::Sbuf::In sb_in;
    mem::Sbuf::Out sb_out;
    common::RrArbiter::In prd_in, pwr_in;
    common::RrArbiter::Out prd_out, pwr_out;
    gpsimd::Engine::In gp_in;  ///< (gp_procs > 0)
    gpsimd::Engine::Out gp_out;
    unsigned passes = 0;  ///< wiring passes the last eval needed
  };

  explicit Core(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The units (their state, for tests and reports).
  const tensor::TensorEngine& te() const { return te_; }
  const vector::LaneEngine& ve() const { return ve_; }
  const vector::LaneEngine& se() const { return se_; }
  const dma::DmaEngine& dma(unsigned e = 0) const { return dma_.at(e); }  ///< g_dma[e].u_dma
  /// The engines' read and write arbiters onto a space's channel (0 HBM: u_hbm_ar_arb,
  /// u_hbm_wr_arb; 1 SBUF: u_sb_ar_arb, u_sb_wr_arb).
  const common::RrArbiter& dma_rd_arb(unsigned space) const { return ar_arb_.at(space); }
  const common::RrArbiter& dma_wr_arb(unsigned space) const { return wr_arb_.at(space); }
  const mem::Sbuf& sbuf() const { return sb_; }
  const common::RrArbiter& psum_rd_arb() const { return prd_; }  ///< u_prd_arb
  const common::RrArbiter& psum_wr_arb() const { return pwr_; }  ///< u_pwr_arb
  /// The GpSimd engine (g_gp.u_gp; gp_procs > 0).
  const gpsimd::Engine& gp() const { return gp_.value(); }
  gpsimd::Engine& gp() { return gp_.value(); }
  /// The units' ports of the last eval().
  const Wires& wires() const { return w_; }

  /// The ports of rtl/core/core.sv, generated from its header; the module's parameters from this model's.
  sv::ports::core::Params sv_params() const {
    return {.Parts = p_.parts,
            .SbufBytes = p_.sbuf_bytes,
            .SbufBanks = p_.sbuf_banks,
            .PsumBanks = p_.psum_banks,
            .PsumBankBytes = p_.psum_bank_bytes,
            .MaxN = p_.max_n,
            .Queues = p_.queues,
            .Slots = p_.slots,
            .BeatBytes = p_.beat_bytes,
            .HbmBytes = p_.hbm_bytes,
            .DmaEngines = p_.dma_engines,
            .Chips = p_.chips,
            .TeGen = p_.te_gen,
            .GpProcs = p_.gp_procs,
            .GpTcmBytes = p_.gp_tcm_bytes,
            .GpVlen = p_.gp_vlen};
  }
  TRN_MODULE_PORTS(core)

  /// The HBM port's write channel (hbm_wr_o, hbm_wr_data_o, hbm_wr_info_o) as the memory model's Write.
  static dma::Write hbm_write(const Out& o, unsigned beat_bytes);

  /// SBUF engine port of each requester (docs/core.md).
  enum Port : unsigned {
    kTeSt = 0,
    kTeMv = 1,
    kVeRd0 = 2,
    kVeRd1 = 3,
    kVeWr = 4,
    kSeRd0 = 5,
    kSeRd1 = 6,
    kSeWr = 7,
    kTeSx = 8,  ///< the tensor engine's scale words (four-row MX multiplies)
    kGp = 9,    ///< the GpSimd engine's word port (gp_procs > 0)
  };
  /// SBUF engine ports: e0..e8, and e9 with a GpSimd engine.
  static unsigned eports(const Params& p) { return p.gp_procs > 0 ? 10 : 9; }

 private:
  /// Wire every unit's inputs from the core's inputs and the units' outputs in w_; true if any
  /// input changed.
  bool wire(const In& in) const;
  /// The write arbiter's payload {wr, data, info}: where wr starts.
  unsigned dwr_wr_lsb() const { return sv::dma_pkg::wr_info_t::kWidth + 8 * p_.beat_bytes; }
  void settle(const In& in) const;

  Params p_;
  unsigned depth_, ow_;
  tensor::TensorEngine te_;
  vector::LaneEngine ve_, se_;
  std::vector<dma::DmaEngine> dma_;
  mem::Sbuf sb_;
  common::RrArbiter prd_, pwr_;
  std::vector<common::RrArbiter> ar_arb_, wr_arb_;  ///< by space
  std::optional<gpsimd::Engine> gp_;
  unsigned gp_rpart_q_ = 0;    ///< the partition of the GpSimd read whose data returns this cycle
  unsigned esw_;               ///< bits of an engine's slot
  std::uint64_t id_mask_ = 0;  ///< a read id's bits (the slot; above: the SBUF tag)
  // the PSUM read whose data arrives this cycle, and the port that asked (0..3)
  bool prv_q_ = false;
  unsigned prp_q_ = 0;
  mutable Wires w_;
};

}  // namespace trn::core
