// trn::core::SemTap — model of rtl/core/sem_tap.sv, the DMA write channel of a unit (a NeuronCore,
// a collective core) on its way out to the chip (docs/chip.md). Combinational.
//   - A semaphore write (in_info_i.sem) whose chip and unit fields are both 0 is the unit's own:
//     taken at once, it becomes the addition of its data's low 32 bits to semaphore
//     (address / 4) mod 32 (sem_*); one whose address has bit 12 set (a register load, docs/isa.md)
//     is the write of those bits to register address[5:2] of stream address[14:13] instead
//     (sem_reg_o, sem_stream_o).
//   - Every other write passes to out_*; a semaphore write's unit field 0 becomes unit + 1.
#pragma once

#include <cstdint>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "dma/desc.hpp"
#include "sv/dma_pkg.hpp"
#include "sv/ports/sem_tap.hpp"

namespace trn::core {

class SemTap {
 public:
  struct Params {
    unsigned unit = 0;  ///< the unit's index on its chip
    unsigned beat_bytes = 16;
  };
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using wr_info_t = sv::dma_pkg::wr_info_t;
  struct In {
    bool in_valid_i = false;
    wr_req_t in_i;
    Bits in_data_i;
    wr_info_t in_info_i;
    bool out_ready_i = false;
  };
  struct Out {
    bool in_ready_o = false;
    bool out_valid_o = false;
    wr_req_t out_o;
    Bits out_data_o;
    wr_info_t out_info_o;
    bool sem_valid_o = false;
    std::uint64_t sem_idx_o = 0;
    std::uint32_t sem_val_o = 0;
    bool sem_reg_o = false;          ///< the own write is a register's: register sem_idx_o % 16 ...
    std::uint64_t sem_stream_o = 0;  ///< ... of this stream
  };

  explicit SemTap(Params p) : p_(p) {}
  In make_in() const {
    In in;
    in.in_data_i = Bits(8 * p_.beat_bytes);
    return in;
  }
  Out make_out() const {
    Out o;
    o.out_data_o = Bits(8 * p_.beat_bytes);
    return o;
  }
  void eval(const In& in, Out& out) const {
    const std::uint32_t a = in.in_i.addr;
    const bool own = in.in_info_i.sem && dma::chip_of(a) == 0 && dma::unit_of(a) == 0;
    out.sem_valid_o = in.in_valid_i && own;
    out.sem_idx_o = (a >> 2) & 31;
    out.sem_val_o = static_cast<std::uint32_t>(in.in_data_i.slice(0, 32));
    out.sem_reg_o = (a >> dma::kRegBit) & 1;
    out.sem_stream_o = (a >> dma::kRegStreamLsb) & 7;
    out.in_ready_o = own || in.out_ready_i;
    out.out_valid_o = in.in_valid_i && !own;
    out.out_o = in.in_i;
    if (in.in_info_i.sem && dma::unit_of(a) == 0)
      out.out_o.addr = a | (((p_.unit + 1) & ((1u << dma::kUnitBits) - 1)) << dma::kUnitLsb);
    out.out_data_o = in.in_data_i;
    out.out_info_o = in.in_info_i;
  }
  void tick(const In&) {}

  /// The ports of rtl/core/sem_tap.sv, generated from its header.
  sv::ports::sem_tap::Params sv_params() const { return {.Unit = p_.unit, .BeatBytes = p_.beat_bytes}; }
  TRN_MODULE_PORTS(sem_tap)

 private:
  Params p_;
};

}  // namespace trn::core
