// trn::gpsimd::Engine — cycle-exact model of rtl/gpsimd/gpsimd.sv: `procs` GpSimd processors
// (gpsimd::Proc) on one SBUF word port through a round-robin arbiter (common::RrArbiter) and a FIFO
// of the reads in flight (common::StreamFifo), each processor owning partitions
// [i·parts/procs, (i+1)·parts/procs) (docs/gpsimd.md "The engine"). The units are wired through
// their ports and ticked every cycle, as in the RTL.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "common/rr_arbiter.hpp"
#include "common/stream_fifo.hpp"
#include "gpsimd/proc.hpp"
#include "sv/ports/gpsimd.hpp"

namespace trn::gpsimd {

class Engine {
 public:
  struct Params {
    unsigned procs = 2, tcm_bytes = 4096, vlen = 128, parts = 4, sbuf_bytes = 1024, read_depth = 4;
  };
  static constexpr unsigned kSems = Proc::kSems;
  struct In {
    bool rst_ni = false, start_i = false;
    std::uint32_t entry_i = 0, args_i = 0;
    bool host_we_i = false, host_re_i = false, host_all_i = false;
    std::uint32_t host_proc_i = 0, host_addr_i = 0, host_wdata_i = 0;
    bool sb_gnt_i = false, sb_rvalid_i = false;
    std::uint32_t sb_rdata_i = 0;
    std::array<std::uint32_t, kSems> sem_i{};
    bool operator==(const In&) const = default;
  };
  struct Out {
    bool busy_o = false, done_o = false, err_o = false;
    std::uint32_t err_proc_o = 0;
    Err err_code_o = Err::GpErrNone;
    std::uint32_t err_pc_o = 0, host_rdata_o = 0;
    bool sb_req_o = false, sb_we_o = false;
    std::uint32_t sb_part_o = 0, sb_off_o = 0, sb_mask_o = 0, sb_wdata_o = 0;
    std::uint64_t sem_add_o = 0;  ///< bit i: processor i adds
    Bits sem_idx_o, sem_val_o;    ///< processor i's at [5 i +: 5], [32 i +: 32]
  };

  explicit Engine(Params p);
  const Params& params() const { return p_; }
  In make_in() const { return {}; }
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  sv::ports::gpsimd::Params sv_params() const {
    return {.Procs = p_.procs,
            .TcmBytes = p_.tcm_bytes,
            .Vlen = p_.vlen,
            .Parts = p_.parts,
            .SbufBytes = p_.sbuf_bytes,
            .Sems = kSems,
            .ReadDepth = p_.read_depth};
  }
  TRN_MODULE_PORTS(gpsimd)

  const Proc& proc(unsigned i) const { return procs_.at(i); }
  Proc& proc(unsigned i) {  // (a change through it, a load, voids the settled wiring)
    w_valid_ = false;
    return procs_.at(i);
  }

 private:
  /// Every unit's inputs for this cycle, from `in` and the units' outputs (eval's and tick's).
  struct Wires {
    std::vector<Proc::In> pin;
    std::vector<Proc::Out> pout;
    common::RrArbiter::In ain;
    common::RrArbiter::Out aout;
    common::StreamFifo::In fin;
    common::StreamFifo::Out fout;
  };
  void settle(const In& in, Wires& w) const;
  static constexpr unsigned kReqW = 1 + 16 + 32 + 4 + 32;

  Params p_;
  std::vector<Proc> procs_;
  common::RrArbiter arb_;
  common::StreamFifo reads_;
  unsigned host_q_ = 0;  ///< the processor the last host read went to
  mutable Wires w_;
  mutable In w_in_;  ///< the input w_ was settled for (tick after eval on it settles no more)
  mutable bool w_valid_ = false;
};

}  // namespace trn::gpsimd
