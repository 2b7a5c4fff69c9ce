// trn::vector::FunctionalReference — the plain-loop meaning of every vector and scalar engine
// instruction (docs/vector.md), with no timing: the end-to-end check of the lockstep tests.
// Memory is [partition][byte], elements laid out as in SBUF (mem/elements.hpp, docs/core.md). An
// instruction reads all its inputs before it writes (an output that overlaps an input anywhere
// but in place is outside the contract, and the tests do not generate it).
#pragma once

#include <cstdint>
#include <vector>

#include "vector/instr.hpp"

namespace trn::vector {

using Memory = std::vector<std::vector<std::uint8_t>>;  ///< [partition][byte]

class FunctionalReference {
 public:
  explicit FunctionalReference(Shape s);
  /// Apply one instruction to `mem` (SBUF) and `psum` (operands in PSUM; required when the
  /// instruction names it); an illegal instruction changes nothing and returns its error.
  Err execute(const Instr& in, Memory& mem, Memory* psum = nullptr);
  const std::vector<std::uint32_t>& acc() const { return acc_; }

 private:
  Shape s_;
  std::vector<std::uint32_t> acc_, rng_;
};

}  // namespace trn::vector
