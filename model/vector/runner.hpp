// trn::vector::ModelRunner — a LaneEngine cycle model on its own, with an ideal memory behind its
// ports (reads answered in order after a fixed latency, writes always accepted): the fast path for
// programs that do not need the RTL, and the source of the bench's elements-per-cycle figures.
#pragma once

#include <cstdint>
#include <deque>

#include "vector/lane_engine.hpp"
#include "vector/reference.hpp"

namespace trn::vector {

class ModelRunner {
 public:
  struct Result {
    Err err = Err::none;
    std::uint64_t cycles = 0;  ///< from the cycle the instruction is offered to done_o / err_o
  };
  /// `psum`: the memory behind operands in PSUM (required when an instruction names it).
  ModelRunner(LaneEngine::Params p, Memory& mem, unsigned read_latency = 1, Memory* psum = nullptr);
  /// Issue one instruction and run until it completes.
  Result run(const Instr& ins);
  const LaneEngine& engine() const { return eng_; }

 private:
  LaneEngine eng_;
  Memory& mem_;
  Memory* psum_;
  unsigned lat_;
  Memory& space(bool psum);
  std::uint64_t now_ = 0;
  std::array<std::deque<std::pair<std::uint64_t, LaneEngine::e_req_t>>, 2> q_;  // (ready cycle, request)
};

}  // namespace trn::vector
