// trn::gpsimd::Proc — cycle-exact model of rtl/gpsimd/gpsimd_proc.sv: one GpSimd processor, an
// RV32IM core in machine mode executing from its local memory (docs/gpsimd.md).
//
// Timing: an instruction retires the cycle it is executed and the next word is fetched at that
// edge, so every instruction takes one cycle, jumps and taken branches too; a load takes two (the
// data port's read, then its word); a division or remainder sv::gpsimd_pkg::DivCycles. A store writes
// at its retiring edge, after the fetch at that edge has read the old word.
// start_i (while idle) clears the registers, sets a0 and a1 and fetches entry_i. The processor runs
// until op.end retires (done_o) or an error stops it (err_o, err_code_o, err_pc_o). While idle the
// host port reads (host_rdata_o next cycle) and writes local memory words.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/ports.hpp"
#include "sv/gpsimd_pkg.hpp"
#include "sv/ports/gpsimd_proc.hpp"

namespace trn::gpsimd {

using Err = sv::gpsimd_pkg::gp_err_e;

class Proc {
 public:
  struct Params {
    unsigned tcm_bytes = 4096;   ///< local memory: a power of two, >= 64
    unsigned vlen = 128;         ///< vector register bits: a power of two, >= 64
    unsigned sbuf_bytes = 1024;  ///< bytes of an SBUF partition
  };
  static constexpr unsigned kSems = 32;  ///< the core's semaphores (the sem_i port)
  struct In {
    bool rst_ni = false;
    bool start_i = false;
    std::uint32_t entry_i = 0, arg0_i = 0, arg1_i = 0;
    bool host_we_i = false, host_re_i = false, host_vre_i = false;
    std::uint32_t host_addr_i = 0, host_wdata_i = 0;
    std::uint32_t part_lo_i = 0, part_hi_i = 0;
    bool sb_gnt_i = false, sb_rvalid_i = false;
    std::uint32_t sb_rdata_i = 0;
    std::array<std::uint32_t, kSems> sem_i{};
    bool operator==(const In&) const = default;
  };
  struct Out {
    bool busy_o = false, done_o = false, err_o = false;
    Err err_code_o = Err::GpErrNone;
    std::uint32_t err_pc_o = 0, host_rdata_o = 0;
    bool ret_o = false;
    std::uint32_t ret_pc_o = 0, ret_insn_o = 0, ret_rd_o = 0, ret_wdata_o = 0;
    std::uint32_t ret_st_mask_o = 0, ret_st_addr_o = 0, ret_st_data_o = 0;
    bool vw_o = false;
    std::uint32_t vw_reg_o = 0, vw_off_o = 0;
    bool vw_bit_o = false;
    std::uint32_t vw_data_o = 0;
    bool sb_req_o = false, sb_we_o = false;
    std::uint32_t sb_part_o = 0, sb_off_o = 0, sb_mask_o = 0, sb_wdata_o = 0;
    bool sem_add_o = false;
    std::uint32_t sem_idx_o = 0, sem_val_o = 0;
  };

  explicit Proc(Params p);
  const Params& params() const { return p_; }
  In make_in() const { return {}; }
  Out make_out() const { return {}; }
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  sv::ports::gpsimd_proc::Params sv_params() const {
    return {.TcmBytes = p_.tcm_bytes, .Vlen = p_.vlen, .SbufBytes = p_.sbuf_bytes, .Sems = kSems};
  }
  TRN_MODULE_PORTS(gpsimd_proc)

  // ---- state, for the fast path (trnsim) and the tests
  bool busy() const { return run_q_; }
  bool done() const { return done_q_; }
  bool error() const { return err_q_; }
  Err err_code() const { return code_q_; }
  std::uint32_t err_pc() const { return err_pc_q_; }
  std::uint32_t reg(unsigned i) const { return x_q_.at(i); }
  /// Local memory word i (byte address 4 i), little-endian.
  std::uint32_t word(unsigned i) const { return mem_q_.at(i); }
  std::span<const std::uint32_t> memory() const { return mem_q_; }
  /// Word `word` of vector register `reg`; vl.
  std::uint32_t vreg_word(unsigned reg, unsigned word) const { return vrf_q_.at(reg * (p_.vlen / 32) + word); }
  std::uint32_t vl() const { return vl_q_; }
  /// Writes bytes into local memory at `addr` directly (a loader; the host port's effect without its cycles).
  void load(std::uint32_t addr, std::span<const std::uint8_t> bytes);

 private:
  /// What an instruction word is to the datapath.
  enum class Kind : std::uint8_t {
    illegal,
    lui,
    auipc,
    jal,
    jalr,
    branch,
    load,
    store,
    alu,
    alu_imm,
    mul,
    div,
    fence,
    end,
    sem_wait,
    sem_add
  };
  struct Decoded {
    Kind kind = Kind::illegal;
    unsigned rd = 0, rs1 = 0, rs2 = 0, f3 = 0;
    bool alt = false;  ///< sub, sra, srai
    std::int32_t imm = 0;
  };
  static Decoded decode(std::uint32_t w);
  /// The cycle's decision for the instruction in the fetch register.
  struct Step {
    bool retire = false, stop = false, wen = false, load_go = false, div_go = false;
    Err code = Err::GpErrNone;
    std::uint32_t wv = 0, next = 0, st_mask = 0, st_word = 0, st_data = 0, ld_word = 0;
    // the vector unit: a register write (an element or a mask bit), a load's read, a store, and its
    // state after the edge
    bool vw = false, vw_bit = false, v_load = false, v_store = false;
    unsigned vw_reg = 0, vw_off = 0;
    std::uint32_t vw_data = 0, v_word = 0, v_mask = 0, v_data = 0;
    std::uint32_t vl = 0, sew = 8, ve = 0, acc = 0, sbr = 0;
    bool lmul2 = false, vill = true, lp = false;
    // SBUF and the semaphores
    bool sb_req = false, sb_we = false, sem_add = false;
    std::uint32_t sb_part = 0, sb_off = 0, sb_mask = 0, sb_wdata = 0, sem_idx = 0, sem_val = 0;
  };
  Step decide(const In& in) const;
  /// decide(), remembered for the last input until the state changes (eval and tick on one input
  /// decide once)
  const Step& decided(const In& in) const;
  mutable Step step_;
  mutable In step_in_;
  mutable bool step_valid_ = false;
  /// The vector unit's part of decide() for a vector instruction or an SBUF transfer (proc_vector.cpp).
  void decide_vector(std::uint32_t w, const In& in, Step& s) const;
  void decide_sbuf(std::uint32_t w, const In& in, Step& s) const;
  std::uint32_t velem(unsigned reg, unsigned i, unsigned sew) const;
  static std::uint32_t alu(unsigned f3, bool alt, std::uint32_t x, std::uint32_t y);

  Params p_;
  unsigned words_;
  std::vector<std::uint32_t> mem_q_;
  std::array<std::uint32_t, 32> x_q_{};
  bool run_q_ = false, done_q_ = false, err_q_ = false;
  Err code_q_ = Err::GpErrNone;
  std::uint32_t err_pc_q_ = 0;
  std::uint32_t ir_q_ = 0, pc_q_ = 0;
  bool fe_q_ = false;  ///< the fetch of pc_q_ was outside local memory
  std::uint32_t dr_q_ = 0;
  bool ld_q_ = false;   ///< a load's second cycle
  unsigned div_n_ = 0;  ///< cycles a division has taken so far
  // the vector unit
  std::vector<std::uint32_t> vrf_q_;  ///< v0 .. v31, vlen / 32 words each
  std::uint32_t vl_q_ = 0, sew_q_ = 8, ve_q_ = 0, acc_q_ = 0, sbr_q_ = 0;
  bool lmul2_q_ = false, vill_q_ = true, lp_q_ = false;
};

}  // namespace trn::gpsimd
