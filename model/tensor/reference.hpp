// trn::tensor::FunctionalReference — the plain functional reference of the tensor engine (SPEC
// 5.1, 5.2): the PSUM image a command program produces, computed by loops, with no timing.
// Each output sums, per block (32 partitions, or all R: with double row, 64 or 2R rows of K), the
// products of rows 0..K-1 in order from the block's first row (one exact product and one IEEE FP32
// addition each), scales the block sum by the weight and moving E8M0 scales (1.0 for non-MX
// operands) and adds it to the total; the MultiplyMoving overwrites PSUM with it or adds it.
// INT8/UINT8: exact integer products and sums in INT32 with wrap. A transpose copies the loaded
// tile's codes. BF16 PSUM: the FP32 value written (accumulate: entry + sum) rounded to BF16, RNE
// or stochastically with partition j's generator, which steps once per entry of partition j it
// rounds, in the order the entries are written (element off, off + 1, .. of each multiply).
// Sparse weights: PE row r (group g = r / N) multiplies row g M + idx[r] of the moving operand; the
// kept rows are summed as the dense rows are (their blocks, their order), a pruned row adds nothing.
// Row groups (rg): G = 1 << rg matmuls, group g of K rows from partition g R / G (its blocks those
// of the array cut at the group's ends), written to bank + g.
// It reads the same SBUF words as the engine and must agree with it bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor_engine.hpp"

namespace trn::tensor {

/// One command as the tests issue it (the fields of the cmd_* ports).
struct Command {
  Op op;
  unsigned tag = 0, fmt = 0, bias = 0, addr = 0, k = 0, m = 0, n = 0, bank = 0, off = 0;
  bool acc = false;
  bool tr = false;       ///< transpose
  bool mx = false;       ///< MX operand: E8M0 block scales in a scale tensor
  unsigned sc_addr = 0;  ///< MX: column j's scale of block b at byte sc_addr + j of partition 32b
  unsigned kpe = 0;      ///< log2 of K rows per partition (1: double row, rows 2r and 2r + 1 in a 2-byte element)
  bool pbf = false;      ///< BF16 PSUM entries (v4): the FP32 result rounded once to BF16
  bool sr = false;       ///< with pbf: stochastic rounding
  bool seed_ld = false;  ///< load `seed` into every PSUM partition's generator first
  std::uint32_t seed = 0;
  unsigned spm = 0;  ///< sparse (v3+): log2 M, 0 dense; a load's K counts kept rows, its metadata at sc_addr
  unsigned spq = 0;  ///< sparse: log2 (M / N): a multiply's element holds 1 << spq rows
  unsigned rg = 0;   ///< row groups, log2: 1 << rg matmuls of K rows, group g on partitions g R / G .., bank + g
};
/// The command port's value (te_pkg::te_cmd_t) of a command.
sv::te_pkg::te_cmd_t to_cmd(const Command& c);
/// SBUF as the tests hold it: [partition][byte] (mem/elements.hpp).
using Sbuf = std::vector<std::vector<std::uint8_t>>;

/// The bias an operand is decoded with: MX elements use their standard bias.
unsigned op_bias(const Command& c);

class FunctionalReference {
 public:
  explicit FunctionalReference(const TensorEngine::Params& prm);
  /// Apply one legal command to the SBUF bytes (addresses are byte addresses).
  void run(const Command& c, const Sbuf& sbuf);
  /// [bank][partition][element]
  std::vector<std::uint32_t> psum;
  /// PSUM as the vector and scalar engines address it: [partition][byte], element e of bank b (FP32,
  /// little-endian) at byte 4 (b * depth + e) (docs/core.md).
  Sbuf psum_rows() const;
  /// PSUM from that image (the inverse of psum_rows): after the vector or scalar engine's
  /// reference wrote PSUM through it.
  void set_psum_rows(const Sbuf& rows);
  /// An engine write on the pe_ port (vector and scalar engines): element `off` of bank `bank`
  /// takes, in every partition whose `mask` bit is set, that partition's 32-bit word of `data`;
  /// an element outside PSUM is not written.
  void engine_write(unsigned bank, unsigned off, const Bits& mask, const Bits& data);

 private:
  unsigned block_rows() const { return p_.rows < 32 ? p_.rows : 32; }
  TensorEngine::Params p_;
  std::vector<std::uint32_t> w_;   // [k][m]: the element codes of the current weights, every row
  std::vector<std::uint32_t> ws_;  // [block][m]: their E8M0 scales (127 = 1.0 for non-MX)
  unsigned k_ = 0, m_ = 0, wfmt_ = 0, wbias_ = 0;
  bool wmx_ = false;
  unsigned wspm_ = 0, wspq_ = 0;    // the weights' sparsity
  unsigned wrg_ = 0;                // the weights' row groups
  std::vector<unsigned> widx_;      // sparse: row r's index in its group
  std::vector<std::uint32_t> rng_;  // per PSUM partition: the stochastic-rounding generator's state
};

}  // namespace trn::tensor
