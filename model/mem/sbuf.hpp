// trn::mem::Sbuf — cycle-exact model of rtl/mem/sbuf.sv, written from SPEC 5.4 and the contract
// in docs/sbuf.md: Parts partitions of PartBytes bytes in lines of BeatBytes bytes, line l in bank
// l % Banks; a DMA write port (row or column, copy or accumulate), a DMA read port and EPorts
// engine element ports, arbitrated per bank (engine ports round-robin, trn::common::RrArbiter);
// reads return the next cycle.
//
// The model keeps the contents as one byte image and applies every write, accumulates included,
// in the cycle it is accepted. The read-add-write unit's second stage shows only in timing: for
// one cycle after an accumulate its banks refuse copies, engine accesses and DMA reads.
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "common/rr_arbiter.hpp"
#include "sv/dma_pkg.hpp"
#include "sv/ports/sbuf.hpp"
#include "sv/sbuf_pkg.hpp"

namespace trn::mem {

class Sbuf {
 public:
  struct Params {
    unsigned parts = 4;
    std::uint32_t part_bytes = 1024;
    unsigned beat_bytes = 16;
    unsigned banks = 4;
    unsigned eports = 8;  ///< engine ports (docs/core.md: e0..e7), at most 64
    unsigned starve = 8;  ///< refused cycles after which an engine port claims its bank from the DMA
  };
  /// The DMA ports' typed requests (rtl/dma/dma_pkg.sv).
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using rd_req_t = sv::dma_pkg::rd_req_t;
  /// The engine ports' typed request (rtl/mem/sbuf_pkg.sv).
  using e_req_t = sv::sbuf_pkg::e_req_t;
  struct In {
    bool rst_ni = false;
    bool dw_valid_i = false;
    wr_req_t dw_i;
    Bits dw_data_i;
    bool dr_valid_i = false;
    rd_req_t dr_i;
    std::uint64_t e_valid_i = 0;  ///< bit i: engine port i
    std::vector<e_req_t> e_i;     ///< one request per engine port
    Bits e_mask_i;                ///< port i's partition mask at bits [i * Parts, +Parts)
    Bits e_wdata_i;               ///< port i's partition p at bits [(i * Parts + p) * 32, +32)

    bool operator==(const In&) const = default;  ///< (the core model's wiring settles on it)
  };
  struct Out {
    bool dw_ready_o = false, dr_ready_o = false, dr_rvalid_o = false;
    std::uint64_t dr_busy_o = 0;  ///< the banks that refuse a DMA read this cycle
    std::uint64_t dr_rid_o = 0;
    Bits dr_rdata_o;
    std::uint64_t e_ready_o = 0, e_rvalid_o = 0;
    Bits e_rdata_o;  ///< as e_wdata_i
    bool acc_busy_o = false;
  };

  explicit Sbuf(Params p);
  const Params& params() const { return p_; }
  unsigned nb() const { return nb_; }
  unsigned off_bits() const { return off_bits_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The contents (partition-major), for tests; not a port.
  std::uint8_t byte(unsigned part, std::uint32_t off) const { return mem_.at(std::size_t{part} * p_.part_bytes + off); }

  /// The ports of rtl/mem/sbuf.sv, generated from its header; the module's parameters from this model's.
  sv::ports::sbuf::Params sv_params() const {
    return {.Parts = p_.parts,
            .PartBytes = p_.part_bytes,
            .BeatBytes = p_.beat_bytes,
            .Banks = p_.banks,
            .EPorts = p_.eports,
            .Starve = p_.starve};
  }
  TRN_MODULE_PORTS(sbuf)

 private:
  struct Grants {
    std::uint64_t dw_banks = 0, dr_busy = 0;
    bool dw_ready = false, dw_go = false, dr_ready = false, dr_go = false;
    std::uint64_t e_rd = 0, e_wr = 0;  ///< the engine ports granted a read, a write
  };
  /// The bank of an engine request's element (an element beyond the partition is an error).
  unsigned bank_of(unsigned port, const e_req_t& r) const;
  /// The grants of this cycle; the arbiters' inputs are left in arb_in_ for tick().
  Grants grants(const In& in) const;
  std::uint32_t read_elem(unsigned part, const e_req_t& r) const;
  void write_elem(unsigned part, const e_req_t& r, std::uint32_t v);
  /// The banks holding bytes [first, last] of one partition's offsets.
  std::uint64_t banks_of(std::uint32_t first, std::uint32_t last) const;
  std::uint64_t dw_banks(const In& in) const;
  std::uint8_t& at(unsigned part, std::uint32_t off) { return mem_.at(std::size_t{part} * p_.part_bytes + off); }

  Params p_;
  unsigned nb_, off_bits_;
  std::vector<std::uint8_t> mem_;
  bool s2_v_ = false;
  std::uint64_t s2_banks_ = 0;
  bool dr_v_ = false;
  unsigned dr_id_ = 0;
  Bits dr_q_;
  std::uint64_t e_v_ = 0;
  Bits e_q_;
  std::vector<unsigned> wait_;  ///< cycles each engine port has been refused in a row
  /// Per bank: the round-robin arbiters of the engine reads and writes (rtl/common/rr_arbiter.sv).
  std::vector<common::RrArbiter> rd_arb_, wr_arb_;
  mutable std::vector<common::RrArbiter::In> rd_in_, wr_in_;
  mutable common::RrArbiter::Out arb_out_;
};

}  // namespace trn::mem
