// trn::gpsimd::Reference — the GpSimd processor's reference interpreter, written from the RISC-V
// unprivileged specification (RV32I chapter, the M chapter, and the instruction-set listings'
// match/mask table), the "V" specification for the vector subset (reference_vector.cpp) and
// docs/gpsimd.md for the custom instructions and the stops. It knows no timing
// and shares no code with the cycle model (proc.hpp) or the RTL: the benches check both against it,
// one retired instruction at a time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sv/gpsimd_pkg.hpp"

namespace trn::gpsimd {

class Reference {
 public:
  /// What one instruction did (the retire port's fields).
  struct Retired {
    std::uint32_t pc = 0, insn = 0;
    unsigned rd = 0;          ///< the register written, 0 for none
    std::uint32_t wdata = 0;  ///< its value (0 for none)
    unsigned st_mask = 0;     ///< the bytes stored within the word at st_addr
    std::uint32_t st_addr = 0, st_data = 0;
    bool end = false;     ///< op.end
    unsigned sem_op = 0;  ///< 1 sem.wait, 2 sem.add: on semaphore sem_idx with sem_val
    std::uint32_t sem_idx = 0, sem_val = 0;
    bool operator==(const Retired&) const = default;
  };
  /// Why it stopped without retiring.
  struct Stop {
    sv::gpsimd_pkg::gp_err_e code = sv::gpsimd_pkg::gp_err_e::GpErrNone;
    std::uint32_t pc = 0;
  };

  /// `vlen`: the vector registers' bits (gpsimd_vlen).
  explicit Reference(std::uint32_t mem_bytes, unsigned vlen = 128);
  void load(std::uint32_t addr, std::span<const std::uint8_t> bytes);
  /// SBUF for sb.load and sb.store: `parts` partitions of bytes, of which [lo, hi) are this
  /// processor's (none until set).
  void set_sbuf(std::vector<std::vector<std::uint8_t>>* parts, unsigned lo, unsigned hi) {
    sbuf_ = parts, part_lo_ = lo, part_hi_ = hi;
  }
  /// A start: every register 0 but a0 = arg0 and a1 = arg1, the pc at entry.
  void start(std::uint32_t entry, std::uint32_t arg0, std::uint32_t arg1);
  /// Executes the instruction at the pc: what it retired, or nothing and stop() says why. After a
  /// stop or op.end, step() does nothing more.
  std::optional<Retired> step();
  bool running() const { return running_; }
  const Stop& stop() const { return stop_; }
  std::uint32_t pc() const { return pc_; }
  std::uint32_t x(unsigned i) const { return x_.at(i); }
  const std::vector<std::uint8_t>& memory() const { return mem_; }
  /// Vector state: vl, and word `word` of vector register `reg` (little-endian elements).
  std::uint32_t vl() const { return vl_; }
  std::uint32_t vreg_word(unsigned reg, unsigned word) const;
  /// The instruction's name in the listing ("addi", "op.end"), or "" for none.
  static std::string name_of(std::uint32_t insn);

 private:
  void fail(sv::gpsimd_pkg::gp_err_e code);
  std::optional<Retired> vector_step(std::uint32_t w, Retired r);
  std::optional<Retired> custom_step(std::uint32_t w, Retired r);
  std::vector<std::vector<std::uint8_t>>* sbuf_ = nullptr;
  unsigned part_lo_ = 0, part_hi_ = 0;
  void set_vtype(std::uint32_t vtype, std::uint64_t avl, bool keep_vl);
  std::uint32_t velem(unsigned reg, unsigned i, unsigned sew) const;
  void vset(unsigned reg, unsigned i, unsigned sew, std::uint32_t v);
  bool vbit(unsigned reg, unsigned i) const;
  void vset_bit(unsigned reg, unsigned i, bool b);
  std::vector<std::uint8_t> mem_;
  unsigned vlen_, vlenb_;
  std::vector<std::uint8_t> v_;  ///< v0 .. v31, vlenb_ bytes each
  std::uint32_t vl_ = 0;
  unsigned sew_ = 8, lmul_ = 1;
  bool vill_ = true;
  std::array<std::uint32_t, 32> x_{};
  std::uint32_t pc_ = 0;
  bool running_ = false;
  Stop stop_;
};

}  // namespace trn::gpsimd
