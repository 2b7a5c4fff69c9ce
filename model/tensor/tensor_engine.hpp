// trn::tensor::TensorEngine — cycle-exact model of rtl/tensor/tensor_engine.sv: the weight-
// stationary systolic array (R rows = K, C columns = M), its controller and PSUM (SPEC 5.1, 5.2).
//
// Commands (cmd_i, a te_pkg::te_cmd_t, one per handshake, dispatched in order):
//   LoadStationary (op 0): stationary[K, M] from M SBUF elements of the operand's type from byte
//     address addr (one read per column m, every partition r at once; MX: the column's block scales
//     first, from byte sc_addr + m of each block's first partition) into the weight bank the next MultiplyMoving will
//     use, while the other bank keeps computing. It waits until no column in the array uses that bank and no
//     MultiplyMoving still has reads to issue with it.
//   MultiplyMoving (op 1): moving[K, N] from N SBUF elements from byte address addr (MX: each
//     column's block scales first, from byte sc_addr + n) streams one column per
//     cycle (as the read responses arrive; a late response is a bubble) through the array with the
//     most recently loaded weights; dst[M, N] = stationary^T . moving goes to PSUM bank `bank`,
//     elements off..off+N-1 of partitions 0..M-1, overwriting or accumulating (PSUM + sum).
//     BF16 PSUM (pbf, v4): that FP32 value rounded once to BF16 (RNE, or stochastically with sr:
//     partition c's xorshift32 generator, seeded by a multiply's seed_ld), stored as the FP32 word
//     of the BF16 value; a multiply with seed_ld waits until the array holds no column.
//   Structured sparsity (spm, spq; v3+): a LoadStationary of K kept rows reads a byte of index
//     metadata in each partition first (row r of group g = r / N keeps row g M + idx of its group);
//     bad metadata (idx >= M, not increasing within the group, a row past the array's) drops the
//     load with Err::meta when it arrives, and no command is taken while it is checked. A multiply
//     on sparse weights reads 1 << spq rows an element, and row r takes row g M + idx's value.
//   Row groups (rg, log2 G): G independent matmuls of K <= R / G rows, group g on partitions
//     [g R / G, (g + 1) R / G) with its own weights, its sums starting again at its first row and
//     written to PSUM bank bank + g from its last row (bank a multiple of G), in one multiply's
//     cycles; a multiply whose rg differs from the last one's waits until the array holds no column.
// PSUM ports: pr_ reads one element of every partition (the data the next cycle); pe_ writes one
// element of the masked partitions for the vector and scalar engines, when the array does not.
// Each PE(r, c) holds w[r][c]; the moving value of row r passes right, the partial sum passes down:
//   ps(r, c) = ps(r-1, c) + w[r][c] * x[r]   (rows r >= K pass ps through; row 0 starts at -0)
// with the product exact (narrow types) or rounded once (FP32) and one IEEE FP32 addition.
// Illegal commands are rejected at dispatch (err_* for one cycle) and touch nothing.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "mem/psum.hpp"
#include "numerics/format.hpp"
#include "sv/ports/tensor_engine.hpp"
#include "sv/sbuf_pkg.hpp"
#include "sv/te_pkg.hpp"

namespace trn::tensor {

enum class Op : std::uint8_t { load_stationary = 0, multiply_moving = 1 };
enum class Err : std::uint8_t { none = 0, shape = 1, range = 2, type = 3, no_weights = 4, mode = 5, meta = 6 };

/// The integer operand types (the vector engine's data-type codes: vector::kInt8, kUint8).
inline constexpr unsigned kInt8 = 12, kUint8 = 13;
inline constexpr bool is_int_format(std::uint64_t fmt) { return fmt == kInt8 || fmt == kUint8; }
/// Formats a PE multiplies: FP32, TF32, BF16, FP16, the FP8 variants, E2M1, INT8, UINT8.
bool is_pe_format(std::uint64_t fmt);
/// An operand as the array holds it, decoded where it enters. One row per PE (kpe 0): FP32 bits
/// (narrow codes decoded exactly, FP8 with its bias; TF32 rounded RNE to 10 mantissa bits; FP32 as
/// is, NaN canonical), an integer in the low 16-bit lane. Two rows per PE (kpe 1): the 2-byte
/// element's codes as two 16-bit lanes, row 2r low: FP8 as BF16 (exact), integers extended. Four
/// rows per PE (kpe 2, MX): the element's raw codes (the PE decodes them).
std::uint32_t pe_operand(std::uint32_t code, unsigned fmt, unsigned bias, unsigned kpe = 0);
/// One PE product: exact for narrow types; TF32 operands rounded first; FP32 rounded once.
std::uint32_t pe_product(std::uint32_t w, unsigned wfmt, unsigned wbias, std::uint32_t x, unsigned xfmt,
                         unsigned xbias);

class TensorEngine {
 public:
  struct Params {
    unsigned rows = 4, cols = 4, max_n = 16, banks = 8, depth = 16, sbuf_bytes = 1024;
    unsigned max_outstanding = 8;                   ///< moving reads in flight
    unsigned sbuf_banks = 4, sbuf_line_bytes = 16;  ///< SBUF's geometry, for the stationary loader's yield
    /// The stationary loader yields to the moving stream: no stationary read in a cycle where the
    /// moving port asks for one in the same SBUF bank. True in every real configuration; false
    /// only for the self-test of the check that the multiply loses no cycle to a background load
    /// (core_test); the RTL has no such parameter.
    bool st_yield = true;
  };
  using e_req_t = sv::sbuf_pkg::e_req_t;        ///< the SBUF read ports' requests (rtl/mem/sbuf_pkg.sv)
  using psum_addr_t = sv::te_pkg::psum_addr_t;  ///< the PSUM ports' element (rtl/tensor/te_pkg.sv)
  using te_cpl_t = sv::te_pkg::te_cpl_t;        ///< the completion port (rtl/tensor/te_pkg.sv)
  struct In {
    bool rst_ni = false;
    bool cmd_valid_i = false;
    sv::te_pkg::te_cmd_t cmd_i;  ///< rtl/tensor/te_pkg.sv
    bool st_req_ready_i = false, st_rsp_valid_i = false;
    Bits st_rsp_data_i;
    bool mv_req_ready_i = false, mv_rsp_valid_i = false;
    Bits mv_rsp_data_i;
    bool sx_req_ready_i = false, sx_rsp_valid_i = false;  ///< a four-row MX multiply's scale words
    Bits sx_rsp_data_i;
    bool pr_valid_i = false;
    psum_addr_t pr_i;  ///< te_pkg::psum_addr_t: bank and element
    /// PSUM write port of the vector and scalar engines: element (bank, off) of the partitions in
    /// pe_mask_i, accepted when the array writes none of them this cycle
    bool pe_valid_i = false;
    psum_addr_t pe_i;
    Bits pe_mask_i, pe_data_i;
    /// the generation (a strap): which rows-per-PE modes commands may use
    sv::te_pkg::te_gen_e gen_i = sv::te_pkg::te_gen_e::TeGenV4;

    bool operator==(const In&) const = default;  ///< (the core model's wiring settles on it)
  };
  struct Out {
    bool cmd_ready_o = false;
    bool st_req_valid_o = false;
    e_req_t st_req_o;
    bool mv_req_valid_o = false;
    e_req_t mv_req_o;
    bool sx_req_valid_o = false;
    e_req_t sx_req_o;
    te_cpl_t cpl_o;   ///< done and refused commands, with their tags (rtl/tensor/te_pkg.sv)
    Bits pw_valid_o;  ///< per column: PSUM written at the next edge
    Bits pw_data_o;   ///< per column: the value written
    Bits pr_data_o;   ///< PSUM read port (registered)
    bool pe_ready_o = false;
  };

  explicit TensorEngine(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  const mem::Psum& psum() const { return psum_; }

  /// The ports of rtl/tensor/tensor_engine.sv, generated from its header; the module's parameters from this model's.
  sv::ports::tensor_engine::Params sv_params() const {
    return {.Rows = p_.rows,
            .Cols = p_.cols,
            .MaxN = p_.max_n,
            .Banks = p_.banks,
            .PsumBankBytes = 4 * p_.depth,
            .SbufBytes = p_.sbuf_bytes,
            .MaxOut = p_.max_outstanding,
            .SbufBanks = p_.sbuf_banks,
            .SbufLineBytes = p_.sbuf_line_bytes};
  }
  TRN_MODULE_PORTS(tensor_engine)

  /// The check a command gets at dispatch (Err::none: legal).
  Err check_cmd(const In& in) const;

 private:
  /// tick's view of this cycle's outputs (eval writes every field: reused, not rebuilt per cycle)
  Out tick_out_;
  struct Meta {  // what a moving column needs at the bottom of the array
    std::uint64_t bank = 0, off = 0, m = 0, tag = 0;
    bool acc = false, last = false;
    bool ints = false;  ///< INT32 sums: PSUM accumulates in integer
    unsigned wsel = 0;  ///< the weight bank (released when the column leaves)
    bool pbf = false;   ///< BF16 PSUM entries: the sum rounded to BF16 as it is written
    bool sr = false;    ///< (pbf) stochastically, with the partition's generator
    unsigned rg = 0;    ///< row groups, log2: group g writes bank + g
  };
  struct WRec {  // what a PE needs of its weights' record (the bank's BankInfo when the column entered)
    unsigned k = 0, fmt = 0, kpe = 0, rg = 0;
    bool ints = false, mx = false;
  };
  struct Token {  // a moving value in the array, decoded to FP32 where it entered
    bool valid = false;
    unsigned wsel = 0;
    bool tr = false;  ///< transpose: code is the row whose weight the column takes
    std::uint32_t code = 0;
    std::uint32_t sx = 0;  ///< E8M0 scale of this row's block (127: 1.0 for non-MX operands)
    unsigned xf = 0;       ///< the moving format (four rows per PE: the PE decodes the codes)
    WRec w;                ///< its weights' record, taken as it entered (a load may refill the bank behind it)
    Meta meta;             // used on the last row and the taps' rows only
  };
  struct BankInfo {
    unsigned k = 0, m = 0, fmt = 0, bias = 0;
    bool loaded = false;
    bool raw = false;           ///< loaded for a transpose: codes kept as they are
    bool mx = false;            ///< MX elements with E8M0 scales
    unsigned kpe = 0;           ///< K-rows per PE, log2
    bool ints = false;          ///< INT8/UINT8
    unsigned spm = 0, spq = 0;  ///< sparse: log2 M (0 dense), log2 (M / N)
    unsigned rg = 0;            ///< row groups, log2
  };
  static WRec wrec(const BankInfo& b) { return {b.k, b.fmt, b.kpe, b.rg, b.ints, b.mx}; }
  struct Mm {  // the moving-read issuer
    bool busy = false;
    std::uint64_t idx = 0, sc = 0;  ///< the next column's element index and (MX) scale byte
    bool iph = false;               ///< MX: the next read is the column's scale read
    unsigned es = 0;                ///< element size (sbuf_pkg::esize_e)
    std::uint64_t left = 0, off = 0, bank = 0, tag = 0, m = 0;
    unsigned wsel = 0, fmt = 0, bias = 0;
    bool acc = false;
    bool tr = false;  ///< transpose: columns generated here, no SBUF reads
    std::uint64_t n = 0;
    bool mx = false;
    unsigned kpe = 0;
    bool ints = false;
    unsigned gap = 0;              ///< FP32: cycles until the next column's read (a quarter of the rate)
    unsigned sj = 0;               ///< four rows per PE: the next column's byte in its scale word
    bool pbf = false, sr = false;  ///< BF16 PSUM entries, stochastically rounded
    unsigned spm = 0, spq = 0;     ///< sparse weights
    unsigned rg = 0;               ///< row groups, log2
  };
  struct Sx {                // the scale-word reader of a four-row MX multiply
    std::uint64_t idx = 0;   ///< ESize4 index of the next word
    std::uint64_t left = 0;  ///< words still to read
    unsigned out = 0;        ///< reads in flight
  };
  struct Ls {  // the stationary loader
    bool busy = false;
    std::uint64_t idx = 0, sc = 0;  ///< the next column's element index and (MX) scale byte
    bool iph = false, rph = false;  ///< MX: the next read / response is a column's scales
    unsigned es = 0;
    std::uint64_t req_left = 0, rsp_idx = 0, m = 0, tag = 0;
    unsigned bank = 0;
    unsigned cj = 0, rj = 0;  ///< four rows per PE: the next read's, the next response's column in its scale word
    bool mph = false;         ///< sparse: the next read is the index metadata's
    bool mrph = false;        ///< sparse: the metadata's response is awaited (no column read before it)
    std::vector<std::uint32_t> sch;  ///< MX: the scale response held for its columns, a word per block
  };
  struct WEvent {  // a loaded column on its way down: row r is written r cycles after its response
    bool valid = false;
    unsigned bank = 0, col = 0;
    bool quad = false, mx = false;    ///< four rows per PE (blocks of block_rows_quad()); MX scales
    std::vector<std::uint32_t> data;  ///< per row: the weight, decoded (or raw for a transpose)
    std::vector<std::uint32_t> sc;    ///< MX: per block, the column's E8M0 scale
  };
  struct Pending {  // an issued moving read
    bool sc;        ///< MX: the column's block scales, not its elements
    unsigned wsel, fmt, bias;
    bool mx;
    unsigned kpe;
    std::vector<std::uint32_t> sxv;  ///< four rows per PE: the column's block scales
    unsigned spm = 0, spq = 0;       ///< sparse weights: each row takes its kept row's value
    Meta meta;
  };

  bool cmd_ready(const In& in, bool mv_fire) const;
  // tick's stages, in order (each at the clock edge, from this cycle's outputs `o`):
  void psum_ports(const In& in, const Out& o);       ///< PSUM: the read port, then this cycle's writes
  void retire_column(unsigned& inflight);            ///< bottom: the multiply's done, a column out of the array
  void step_array();                                 ///< the PEs: partial sums one row down
  void enter_column(const In& in);                   ///< a moving column enters through the skew; values move right
  void load_stationary(const In& in, const Out& o);  ///< the stationary loader's reads and responses
  void write_weights(WEvent in);  ///< each loaded column's rows, in the skew; the chain one stage down
  void issue_moving(const In& in, const Out& o, unsigned& inflight);  ///< moving reads
  void dispatch(const In& in, const Out& o);                          ///< a command accepted: refused, or started
  /// A read request: a column's scale byte (MX) or its element index of size es.
  static e_req_t read_req(bool scale, std::uint64_t idx, unsigned es);
  static unsigned op_bias(const In& in);
  /// The SBUF element size of a command's operand: its type's, or 2 bytes for two rows per PE.
  static unsigned cmd_esize(const In& in);
  std::size_t idx(unsigned r, unsigned c) const { return static_cast<std::size_t>(r) * p_.cols + c; }
  /// Partitions of an MX block: 32, or all R when R < 32; with four rows per PE 8, or all R below 8.
  unsigned block_rows() const { return p_.rows < 32 ? p_.rows : 32; }
  /// Four rows per PE: scale words held or in flight. The reader yields to the moving stream's bank
  /// for at most a line of moving elements (line / 2 columns of 2-byte E2M1 quads: line / 8 words),
  /// and a word arrives 2 cycles after its read.
  unsigned sx_max() const { return p_.sbuf_line_bytes / 8 + 2; }
  unsigned block_rows_quad() const { return p_.rows < 8 ? p_.rows : 8; }
  void scale_words(const In& in, const Out& o);  ///< the scale-word reader's reads and responses
  // Row groups: tap q (1..3) is row q R / 4 - 1 (when R / 4 divides it), the last row of group
  // q - 1 of four; tap 2 is also the last row of group 0 of two. The last group ends at the bottom.
  bool tap_ok(unsigned q) const { return (q * p_.rows) % 4 == 0 && q * p_.rows >= 4; }
  unsigned tap_row(unsigned q) const { return (q * p_.rows) / 4 - 1; }
  /// The group tap q ends for a column of 1 << rg groups, or -1 when it ends none.
  static int tap_group(unsigned q, unsigned rg) {
    return rg == 2 ? static_cast<int>(q) - 1 : rg == 1 && q == 2 ? 0 : -1;
  }
  struct PsumWrite {
    bool valid = false;
    unsigned bank = 0, part = 0, off = 0;
    std::uint32_t data = 0;
  };
  /// The bank the array's bottom row writes for a column: its last group's (bank + G - 1).
  static unsigned bottom_bank(const Meta& m) { return static_cast<unsigned>(m.bank) + (1u << m.rg) - 1; }
  /// Tap q's write to partition c this cycle (from the state before the edge).
  bool tap_writes(unsigned q, unsigned c) const;      ///< tap q writes partition c at the next edge
  PsumWrite tap_write(unsigned q, unsigned c) const;  ///< that write (its data read from PSUM)
  /// A path's value: the column's sum t (accumulate: the entry + t), a BF16 entry rounded once
  /// (stochastically with the random word rnd).
  static std::uint32_t psum_value(std::uint32_t old, std::uint32_t t, const Meta& m, std::uint32_t rnd);
  void reset();

  Params p_;
  unsigned off_w_;
  mem::Psum psum_;
  // weights: two banks of R x C operands, decoded to FP32 as they load
  std::array<std::vector<std::uint32_t>, 2> w_q_;
  std::array<BankInfo, 2> bank_q_;
  std::array<std::vector<unsigned>, 2> sidx_q_;  ///< sparse weights: row r's index in its group of M rows
  unsigned cur_bank_q_ = 0;                      ///< the bank the next MultiplyMoving uses
  unsigned next_ls_bank_q_ = 0;                  ///< the bank the next LoadStationary writes
  unsigned inflight_q_ = 0;                      ///< moving columns issued and not yet out of the array
  Ls ls_q_;
  Mm mm_q_;
  Sx sx_q_;
  std::deque<std::vector<std::uint32_t>> sxb_q_;    ///< scale words held (sx_max() at most), per block
  std::deque<Pending> pend_q_;                      ///< issued moving reads, in order
  std::vector<std::uint32_t> mx_sx_q_;              ///< MX: the block scales of the moving column next in
  std::vector<std::vector<Token>> skew_q_;          ///< row r: r-stage delay line to column 0
  std::vector<Token> x_q_;                          ///< R x C: the moving value at each PE
  std::vector<std::uint32_t> ps_q_;                 ///< R x C: the block's partial sum each PE produced
  std::vector<std::uint32_t> ts_q_;                 ///< R x C: the sum of the scaled blocks above
  std::array<std::vector<std::uint32_t>, 2> ws_q_;  ///< per bank: E8M0 scale per (block-end row / 8, column)
  std::vector<WEvent> wev_q_;                       ///< stage s: the loaded column of s + 1 cycles ago
  std::vector<bool> ps_valid_q_;
  std::vector<Meta> bmeta_q_;                 ///< per column: meta of the bottom partial sum
  std::array<std::vector<Meta>, 3> tmeta_q_;  ///< taps 1..3, per column: meta of the tap row's sum
  unsigned arr_rg_q_ = 0;                     ///< the row groups of the last multiply dispatched
  bool ls_done_q_ = false, mm_done_q_ = false, err_q_ = false;
  std::uint64_t ls_done_tag_q_ = 0, mm_done_tag_q_ = 0, err_tag_q_ = 0, err_code_q_ = 0;
  Bits pr_data_q_;
  /// per PSUM partition: the stochastic-rounding generator of BF16 entries (xorshift32 state)
  std::vector<std::uint32_t> rng_q_;
};

}  // namespace trn::tensor
