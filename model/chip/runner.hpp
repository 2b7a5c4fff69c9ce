// trn::chip::ChipRunner — a chip model run alone (no RTL): its HBM port served by
// trn::dma::MemSystem (as the chip bench's trn::tb::HbmPort serves the RTL's), programs loaded
// through the chip's im_ port, units started and run to their end. The model's fast path for chip
// questions and the chip's unit tests.
#pragma once

#include <cstdint>
#include <string>

#include "chip/chip.hpp"
#include "dma/memsys.hpp"
#include "isa/isa.hpp"

namespace trn::chip {

/// One cycle of a chip's HBM port against the MemSystem serving it: the read request and the write
/// the port hands over this cycle (each when valid and ready; the write's data from bit data_at of
/// `data`), and whether it takes read data. A read's id is {source unit, id}, id_bits of id.
void observe_hbm_port(dma::MemSystem& m, std::uint64_t cycle, unsigned beat, unsigned id_bits, bool ar,
                      const sv::dma_pkg::rd_req_t& req, std::uint64_t src, bool wr, const sv::dma_pkg::wr_req_t& w,
                      const Bits& data, unsigned data_at, const sv::dma_pkg::wr_info_t& info, bool r_ready);

class ChipRunner {
 public:
  ChipRunner(const Chip::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, unsigned id = 0);
  dma::MemSystem& hbm() { return hbm_; }
  const Chip& chip() const { return chip_; }
  const Chip::Out& out() const { return out_; }
  std::uint64_t cycle() const { return cycle_; }

  /// Load unit u's program (a collective core: its sync stream).
  void load(unsigned u, const isa::Program& p);
  /// Start the units in `mask` and run until each is done; the cycles taken. Throws
  /// std::runtime_error naming the unit and its error, or after `limit` cycles.
  std::uint64_t run(std::uint64_t mask, std::uint64_t limit = 1000000);
  /// Unit u's semaphore s.
  std::uint32_t sem(unsigned u, unsigned s) const;

  /// One clock cycle.
  void step();
  Chip::In& in() { return in_; }

 private:
  Chip chip_;
  dma::MemSystem hbm_;
  Chip::In in_;
  Chip::Out out_;
  unsigned id_bits_;
  std::uint64_t cycle_ = 0;
};

}  // namespace trn::chip
