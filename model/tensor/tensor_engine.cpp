#include "tensor/tensor_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/clog2.hpp"
#include "mem/elements.hpp"
#include "numerics/arith.hpp"
#include "numerics/mx.hpp"
#include "numerics/sr_rng.hpp"
#include "vector/ops.hpp"

namespace trn::tensor {

using numerics::Format;

namespace {
constexpr std::uint32_t kNegZero = 0x80000000u;  // row 0's incoming partial sum: x + -0 == x

// The model's command and error codes are the package's (rtl/tensor/te_pkg.sv).
using sv::te_pkg::te_err_e;
using sv::te_pkg::te_op_e;
constexpr bool same(Err a, te_err_e b) { return static_cast<unsigned>(a) == static_cast<unsigned>(b); }
static_assert(same(Err::none, te_err_e::TeErrNone) && same(Err::shape, te_err_e::TeErrShape) &&
              same(Err::range, te_err_e::TeErrRange) && same(Err::type, te_err_e::TeErrType) &&
              same(Err::no_weights, te_err_e::TeErrNoWeights) && same(Err::mode, te_err_e::TeErrKind) &&
              same(Err::meta, te_err_e::TeErrMeta));
// the integer operand codes are the vector engine's data types (one definition: model/vector/ops.hpp)
static_assert(kInt8 == vector::kInt8 && kUint8 == vector::kUint8);
static_assert(static_cast<unsigned>(Op::load_stationary) == static_cast<unsigned>(te_op_e::TeLoadStationary) &&
              static_cast<unsigned>(Op::multiply_moving) == static_cast<unsigned>(te_op_e::TeMultiplyMoving));
}  // namespace

bool is_pe_format(std::uint64_t fmt) { return fmt <= static_cast<unsigned>(Format::e2m1) || is_int_format(fmt); }

std::uint32_t pe_operand(std::uint32_t code, unsigned fmt, unsigned bias, unsigned kpe) {
  if (kpe == 2) return code;  // four MX codes, decoded in the PE
  if (is_int_format(fmt)) {
    const auto lane = [&](std::uint32_t b) -> std::uint32_t {
      return fmt == kInt8 ? static_cast<std::uint16_t>(static_cast<std::int16_t>(static_cast<std::int8_t>(b))) : b;
    };
    // (one row: the element is one byte, so the high lane is 0, and the PE never reads it)
    return lane((code >> 8) & 0xFF) << 16 | lane(code & 0xFF);
  }
  const auto f = static_cast<Format>(fmt);
  if (kpe != 0) {  // two FP8 codes as two BF16 lanes (exact: every FP8 value is a BF16 value)
    const auto half = [&](std::uint32_t b) { return numerics::decode(f, b, static_cast<int>(bias)) >> 16; };
    return half((code >> 8) & 0xFF) << 16 | half(code & 0xFF);
  }
  if (f == Format::tf32) return numerics::tf32_round(code);
  if (f == Format::fp32) return numerics::decode(Format::fp32, code);
  return numerics::decode(f, code, static_cast<int>(bias));
}

std::uint32_t pe_product(std::uint32_t w, unsigned wfmt, unsigned wbias, std::uint32_t x, unsigned xfmt,
                         unsigned xbias) {
  return numerics::fp32_mul(pe_operand(w, wfmt, wbias), pe_operand(x, xfmt, xbias));
}

TensorEngine::TensorEngine(Params p) : p_(p), off_w_(std::max(1u, clog2(p.depth))), psum_(p.banks, p.cols, p.depth) {
  if (p_.rows < 1 || p_.cols < 1 || p_.max_n < 1 || p_.banks < 1 || p_.banks > 16 || p_.depth < p_.max_n ||
      p_.max_outstanding < 1 || (p_.rows > 32 && p_.rows % 32 != 0))
    throw std::invalid_argument("TensorEngine: bad parameters (rows above 32 must be a multiple of the MX block, 32)");
  reset();
  tick_out_ = make_out();
}

void TensorEngine::reset() {
  mx_sx_q_.assign(p_.rows / block_rows(), 0);
  sx_q_ = {};
  sxb_q_.clear();
  psum_.clear();
  for (auto& w : w_q_) w.assign(static_cast<std::size_t>(p_.rows) * p_.cols, 0);
  bank_q_ = {};
  for (auto& v : sidx_q_) v.assign(p_.rows, 0);
  cur_bank_q_ = next_ls_bank_q_ = 0;
  inflight_q_ = 0;
  ls_q_ = {};
  mm_q_ = {};
  pend_q_.clear();
  skew_q_.assign(p_.rows, {});
  for (unsigned r = 0; r < p_.rows; ++r) skew_q_[r].assign(r, Token{});
  x_q_.assign(static_cast<std::size_t>(p_.rows) * p_.cols, Token{});
  ps_q_.assign(static_cast<std::size_t>(p_.rows) * p_.cols, 0);
  ts_q_.assign(static_cast<std::size_t>(p_.rows) * p_.cols, 0);
  for (auto& w : ws_q_) w.assign(static_cast<std::size_t>(p_.rows / block_rows_quad()) * p_.cols, 0);
  wev_q_.assign(p_.rows - 1, WEvent{});
  ps_valid_q_.assign(static_cast<std::size_t>(p_.rows) * p_.cols, false);
  bmeta_q_.assign(p_.cols, Meta{});
  for (auto& t : tmeta_q_) t.assign(p_.cols, Meta{});
  arr_rg_q_ = 0;
  ls_done_q_ = mm_done_q_ = err_q_ = false;
  ls_done_tag_q_ = mm_done_tag_q_ = err_tag_q_ = err_code_q_ = 0;
  pr_data_q_ = Bits(32 * p_.cols);
  rng_q_.resize(p_.cols);
  for (unsigned c = 0; c < p_.cols; ++c) rng_q_[c] = numerics::Xorshift32::lane_seed(0, c);
}

TensorEngine::In TensorEngine::make_in() const {
  In in;
  in.st_rsp_data_i = Bits(32 * p_.rows);
  in.mv_rsp_data_i = Bits(32 * p_.rows);
  in.sx_rsp_data_i = Bits(32 * p_.rows);
  in.pe_mask_i = Bits(p_.cols);
  in.pe_data_i = Bits(32 * p_.cols);
  return in;
}

TensorEngine::Out TensorEngine::make_out() const {
  Out out;
  out.pw_valid_o = Bits(p_.cols);
  out.pw_data_o = Bits(32 * p_.cols);
  out.pr_data_o = Bits(32 * p_.cols);
  return out;
}

TensorEngine::e_req_t TensorEngine::read_req(bool scale, std::uint64_t idx, unsigned es) {
  e_req_t r;
  r.we = false;
  r.esize = static_cast<sv::sbuf_pkg::esize_e>(scale ? 1 : es);
  r.idx = static_cast<std::uint32_t>(idx);
  return r;
}

unsigned TensorEngine::cmd_esize(const In& in) {
  if (in.cmd_i.kpe == 1) return 2;
  if (in.cmd_i.spm != 0 && in.cmd_i.op == sv::te_pkg::te_op_e::TeMultiplyMoving)  // 1 << spq rows an element
    return mem::dtype_esize(static_cast<unsigned>(in.cmd_i.fmt)) + in.cmd_i.spq;
  if (in.cmd_i.kpe == 2) return in.cmd_i.fmt == static_cast<unsigned>(Format::e2m1) ? 2 : 3;  // four MX codes
  return mem::dtype_esize(static_cast<unsigned>(in.cmd_i.fmt));
}

Err TensorEngine::check_cmd(const In& in) const {
  const auto& c = in.cmd_i;
  const bool ints = is_int_format(c.fmt);
  const bool fp8 = c.fmt >= static_cast<unsigned>(Format::e5m2) && c.fmt <= static_cast<unsigned>(Format::e3m4);
  // double row: FP8 from v3 on, INT8/UINT8 on every generation; four rows: MX on v4
  const bool kpe_ok = c.kpe == 0 ||
                      (c.kpe == 1 && !c.mx && !c.tr && (ints || (fp8 && in.gen_i != sv::te_pkg::te_gen_e::TeGenV2))) ||
                      (c.kpe == 2 && c.mx && in.gen_i == sv::te_pkg::te_gen_e::TeGenV4);
  // BF16 PSUM: v4, FP sums of a multiply (not a transpose); stochastic rounding only with it
  const bool psum_ok = c.op == sv::te_pkg::te_op_e::TeLoadStationary ||
                       ((!c.pbf || (in.gen_i == sv::te_pkg::te_gen_e::TeGenV4 && !ints && !c.tr)) && (!c.sr || c.pbf));
  // structured sparsity (v3+): M = 2 .. 16, N = M / 2 or M / 4; one row per PE, no MX or transpose;
  // a multiply's element (its type's size << spq) at most 4 bytes
  const bool sp_ok = c.spm == 0 ? c.spq == 0
                                : in.gen_i != sv::te_pkg::te_gen_e::TeGenV2 && c.spm <= 4 && c.spq >= 1 && c.spq <= 2 &&
                                      c.spq <= c.spm && !c.mx && !c.tr && c.kpe == 0 &&
                                      (c.op == sv::te_pkg::te_op_e::TeLoadStationary ||
                                       mem::dtype_esize(static_cast<unsigned>(c.fmt)) + c.spq <= 3);
  // row groups: two on every generation, four from v3 on; dense, not MX, RNE PSUM only
  const bool rg_ok = c.rg == 0 || (c.rg <= 2 && (c.rg == 1 || in.gen_i != sv::te_pkg::te_gen_e::TeGenV2) && !c.mx &&
                                   c.spm == 0 && !c.tr && !c.sr);
  if (!is_pe_format(c.fmt) || !kpe_ok || !psum_ok || !sp_ok || !rg_ok) return Err::type;
  if (in.cmd_i.mx && (in.cmd_i.tr || !numerics::is_mx_element(static_cast<Format>(in.cmd_i.fmt)))) return Err::type;
  // `count` elements of size e from byte address a: aligned, and inside the partition
  const auto fits = [&](std::uint64_t a, unsigned e, std::uint64_t count) {
    return mem::elems_fit(a, e, count, p_.sbuf_bytes);
  };
  const unsigned es = cmd_esize(in);
  const unsigned groups = 1u << c.rg;
  if (p_.rows % groups != 0) return Err::shape;  // the groups must divide the rows
  if (in.cmd_i.op == sv::te_pkg::te_op_e::TeLoadStationary) {
    if (c.k == 0 || c.k > ((p_.rows / groups) << c.kpe) || c.m == 0 || c.m > p_.cols) return Err::shape;
    if (!fits(in.cmd_i.addr, es, in.cmd_i.m) || (in.cmd_i.mx && c.kpe != 2 && !fits(in.cmd_i.sc_addr, 1, in.cmd_i.m)) ||
        (in.cmd_i.mx && c.kpe == 2 && !fits(in.cmd_i.sc_addr, 3, (std::uint64_t{in.cmd_i.m} + 3) / 4)) ||
        (c.spm != 0 && !fits(in.cmd_i.sc_addr, 1, 1)))
      return Err::range;
    return Err::none;
  }
  if (in.cmd_i.n == 0 || in.cmd_i.n > p_.max_n) return Err::shape;
  // group g writes bank + g: every group's bank inside PSUM, the first a multiple of the groups
  if (in.cmd_i.bank + groups > p_.banks || in.cmd_i.bank % groups != 0 || in.cmd_i.off + in.cmd_i.n > p_.depth ||
      (!in.cmd_i.tr &&
       (!fits(in.cmd_i.addr, es, in.cmd_i.n) || (in.cmd_i.mx && c.kpe != 2 && !fits(in.cmd_i.sc_addr, 1, in.cmd_i.n)) ||
        (in.cmd_i.mx && c.kpe == 2 && !fits(in.cmd_i.sc_addr, 3, (std::uint64_t{in.cmd_i.n} + 3) / 4)))))
    return Err::range;
  if (ls_q_.busy) return Err::none;  // the weights' checks wait for the load
  const BankInfo& b = bank_q_[cur_bank_q_];
  if (!b.loaded) return Err::no_weights;
  if (b.raw != c.tr ||
      (!c.tr && (b.kpe != c.kpe || b.ints != ints || b.spm != c.spm || b.spq != c.spq || b.rg != c.rg)))
    return Err::mode;
  if (in.cmd_i.tr && in.cmd_i.n > b.k) return Err::shape;
  return Err::none;
}

unsigned TensorEngine::op_bias(const In& in) {
  // MX elements use their standard bias; the bias register is for plain FP8 operands.
  return in.cmd_i.mx ? static_cast<unsigned>(numerics::format_info(static_cast<Format>(in.cmd_i.fmt)).bias)
                     : static_cast<unsigned>(in.cmd_i.bias);
}

bool TensorEngine::cmd_ready(const In& in, bool mv_fire) const {
  // (while a sparse load's metadata is checked no command is taken: its verdict uses the error port)
  if (!in.cmd_valid_i || ls_q_.mrph) return false;
  if (check_cmd(in) != Err::none) return true;
  // its bank: no column still to issue from it and no read of one outstanding (the columns in the
  // array keep their weights: the load's rows are written in the skew behind them)
  if (in.cmd_i.op == sv::te_pkg::te_op_e::TeLoadStationary)
    return !ls_q_.busy && !(mm_q_.busy && mm_q_.wsel == next_ls_bank_q_) &&
           std::none_of(pend_q_.begin(), pend_q_.end(), [&](const Pending& p) { return p.wsel == next_ls_bank_q_; });
  // the issuer frees at the edge when its last column issues now (read, or a transpose's generated one)
  const bool last = mm_q_.busy && mm_q_.left == 1 && (mm_q_.tr || (mv_fire && !mm_q_.iph));
  // a transpose's generated columns take the array's entry: no moving read in flight or issued now
  const bool drained = !mm_q_.busy && inflight_q_ == 0;
  return !ls_q_.busy && (!mm_q_.busy || last) && (!in.cmd_i.tr || (pend_q_.empty() && !mv_fire)) &&
         // a seed load: no column left to issue or in the array
         (!in.cmd_i.seed_ld || drained) &&
         // other row groups than the last multiply's: a later group's write would overtake an earlier column's
         (in.cmd_i.rg == arr_rg_q_ || drained);
}

void TensorEngine::eval(const In& in, Out& out) const {
  if (!in.rst_ni) {  // asynchronous reset: the outputs of the reset state
    TensorEngine fresh(p_);
    In live = in;
    live.rst_ni = true;
    fresh.eval(live, out);
    return;
  }
  // (four rows per PE: the column's scale word must be in)
  out.mv_req_valid_o = mm_q_.busy && !mm_q_.tr && mm_q_.left > 0 && mm_q_.gap == 0 &&
                       pend_q_.size() < p_.max_outstanding && (mm_q_.kpe != 2 || !sxb_q_.empty());
  out.cmd_ready_o = cmd_ready(in, out.mv_req_valid_o && in.mv_req_ready_i);
  out.mv_req_o = read_req(mm_q_.iph, mm_q_.iph ? mm_q_.sc : mm_q_.idx, mm_q_.es);
  // (MX: one scale byte per column; four rows per PE: a 4-byte scale word per four columns)
  const bool ls_quad = bank_q_[ls_q_.bank].kpe == 2;
  // (sparse: the index metadata first, a byte a partition at sc_addr)
  out.st_req_o = ls_q_.iph && ls_quad ? read_req(false, ls_q_.sc, 3)
                 : ls_q_.mph          ? read_req(true, ls_q_.sc, 0)
                                      : read_req(ls_q_.iph, ls_q_.iph ? ls_q_.sc : ls_q_.idx, ls_q_.es);
  // the stationary loader yields to the moving stream on a shared SBUF bank
  const auto bank = [&](const e_req_t& r) {
    return mem::elem_bank(r.idx, static_cast<unsigned>(r.esize), p_.sbuf_line_bytes, p_.sbuf_banks);
  };
  const bool yield = p_.st_yield && out.mv_req_valid_o && bank(out.st_req_o) == bank(out.mv_req_o);
  out.st_req_valid_o = ls_q_.busy && (ls_q_.mph || (!ls_q_.mrph && ls_q_.req_left > 0)) && !yield;
  // the scale-word reader: at most sx_max() words held or in flight; it yields to the moving stream too
  out.sx_req_o = read_req(false, sx_q_.idx, 3);
  const bool sx_yield = out.mv_req_valid_o && bank(out.sx_req_o) == bank(out.mv_req_o);
  out.sx_req_valid_o = sx_q_.left > 0 && sxb_q_.size() + sx_q_.out < sx_max() && !sx_yield;
  out.cpl_o = te_cpl_t{.ls_done = ls_done_q_,
                       .ls_tag = static_cast<std::uint8_t>(ls_done_tag_q_),
                       .mm_done = mm_done_q_,
                       .mm_tag = static_cast<std::uint8_t>(mm_done_tag_q_),
                       .err = err_q_,
                       .err_tag = static_cast<std::uint8_t>(err_tag_q_),
                       .code = static_cast<sv::te_pkg::te_err_e>(err_code_q_)};
  out.pr_data_o = pr_data_q_;
  const unsigned last = p_.rows - 1;
  for (unsigned c = 0; c < p_.cols; ++c) {
    const Meta& m = bmeta_q_[c];
    const bool v = ps_valid_q_[idx(last, c)] && c < m.m;
    out.pw_valid_o.set_bit(c, v);
    std::uint32_t d = 0;
    if (v)
      d = psum_value(psum_.read(bottom_bank(m), c, static_cast<unsigned>(m.off)), ts_q_[idx(last, c)], m,
                     numerics::Xorshift32::step(rng_q_[c]));
    out.pw_data_o.set_slice(32 * c, 32, d);
  }
  out.pe_ready_o = true;
  for (unsigned c = 0; c < p_.cols; ++c) {
    bool w = out.pw_valid_o.bit(c);
    for (unsigned q = 1; q <= 3; ++q) w = w || tap_writes(q, c);
    if (w && in.pe_mask_i.bit(c)) out.pe_ready_o = false;
  }
}

std::uint32_t TensorEngine::psum_value(std::uint32_t old, std::uint32_t t, const Meta& m, std::uint32_t rnd) {
  std::uint32_t d = !m.acc ? t : m.ints ? old + t : numerics::fp32_add(old, t);
  if (m.pbf)  // BF16 entry: rounded once, kept as the FP32 word of the BF16 value
    d = numerics::encode(Format::bf16, d, {.mode = m.sr ? numerics::Round::sr : numerics::Round::rne, .rnd = rnd})
        << 16;
  return d;
}

bool TensorEngine::tap_writes(unsigned q, unsigned c) const {
  if (!tap_ok(q)) return false;
  const Meta& m = tmeta_q_[q - 1][c];
  return ps_valid_q_[idx(tap_row(q), c)] && tap_group(q, m.rg) >= 0 && c < m.m;
}

TensorEngine::PsumWrite TensorEngine::tap_write(unsigned q, unsigned c) const {
  if (!tap_writes(q, c)) return {};
  const unsigned r = tap_row(q);
  const Meta& m = tmeta_q_[q - 1][c];
  const int g = tap_group(q, m.rg);
  PsumWrite w{true, static_cast<unsigned>(m.bank) + static_cast<unsigned>(g), c, static_cast<unsigned>(m.off), 0};
  w.data = psum_value(psum_.read(w.bank, c, w.off), ts_q_[idx(r, c)], m, 0);  // (row groups round to nearest)
  return w;
}

void TensorEngine::tick(const In& in) {
  if (!in.rst_ni) {
    reset();
    return;
  }
  Out& o = tick_out_;
  eval(in, o);
  // The stages read the state before this edge where the RTL's registers do; each updates its
  // own part, in an order where no stage reads what an earlier one has already changed.
  psum_ports(in, o);
  unsigned inflight = inflight_q_;
  retire_column(inflight);
  step_array();
  enter_column(in);
  load_stationary(in, o);
  issue_moving(in, o, inflight);
  scale_words(in, o);
  inflight_q_ = inflight;
  dispatch(in, o);
}

void TensorEngine::psum_ports(const In& in, const Out& o) {
  // the read port (the value before this edge's writes)
  const unsigned C = p_.cols;
  pr_data_q_ = Bits(32 * C);
  if (in.pr_valid_i && in.pr_i.bank < p_.banks && in.pr_i.off < p_.depth)
    for (unsigned c = 0; c < C; ++c) pr_data_q_.set_slice(32 * c, 32, psum_.read(in.pr_i.bank, c, in.pr_i.off));
  // each partition's write port: the array's write, else the engines' write when accepted
  const bool pe_in = in.pe_i.bank < p_.banks && in.pe_i.off < p_.depth;
  for (unsigned c = 0; c < C; ++c)
    if (o.pw_valid_o.bit(c) && bmeta_q_[c].pbf && bmeta_q_[c].sr) rng_q_[c] = numerics::Xorshift32::step(rng_q_[c]);
  // (the taps' writes, read before any write of this edge: they go to other banks than the bottom's)
  std::vector<PsumWrite> taps;
  for (unsigned q = 1; q <= 3; ++q)
    for (unsigned c = 0; c < C; ++c)
      if (auto w = tap_write(q, c); w.valid) taps.push_back(w);
  for (unsigned c = 0; c < C; ++c)
    if (o.pw_valid_o.bit(c))
      psum_.write(bottom_bank(bmeta_q_[c]), c, static_cast<unsigned>(bmeta_q_[c].off),
                  static_cast<std::uint32_t>(o.pw_data_o.slice(32 * c, 32)));
    else if (in.pe_valid_i && o.pe_ready_o && pe_in && in.pe_mask_i.bit(c))
      psum_.write(in.pe_i.bank, c, in.pe_i.off, static_cast<std::uint32_t>(in.pe_data_i.slice(32 * c, 32)));
  for (const auto& w : taps) psum_.write(w.bank, w.part, w.off, w.data);
}

void TensorEngine::retire_column(unsigned& inflight) {
  // the bottom row's last column: the MultiplyMoving finishing, a column leaving the array
  const unsigned last = p_.rows - 1, C = p_.cols;
  mm_done_q_ = ps_valid_q_[idx(last, C - 1)] && bmeta_q_[C - 1].last;
  mm_done_tag_q_ = mm_done_q_ ? bmeta_q_[C - 1].tag : 0;
  if (ps_valid_q_[idx(last, C - 1)]) --inflight;
}

void TensorEngine::step_array() {
  // Partial sums down, with the weights of this cycle. Two sums flow down: P, the current block's
  // partial sum, and T, the sum of the finished blocks, each scaled by its weight and moving E8M0
  // scales (1.0 for non-MX operands) at the block's last row: T += (P * Sw) * Sx, then P
  // restarts at -0. Integer sums start at 0 and add in INT32 (T += P). With row groups each group
  // is an array of its own: both sums start again at its first row, and its last row ends a block.
  const unsigned R = p_.rows, C = p_.cols, last = R - 1;
  std::vector<std::uint32_t> ps(ps_q_.size()), ts(ts_q_.size());
  std::vector<bool> psv(ps_q_.size());
  for (unsigned r = 0; r < R; ++r)
    for (unsigned c = 0; c < C; ++c) {
      const Token& x = x_q_[idx(r, c)];
      psv[idx(r, c)] = x.valid;
      if (!x.valid) continue;
      const WRec& b = x.w;
      const std::uint32_t zero = b.ints ? 0 : kNegZero;
      const unsigned grows = R >> b.rg, lr = r % grows;  // the group's rows, this row's place in it
      const bool top = r == 0 || lr == 0;
      const std::uint32_t in_p = top ? zero : ps_q_[idx(r - 1, c)];
      const std::uint32_t in_t = top ? zero : ts_q_[idx(r - 1, c)];
      if (x.tr) {  // transpose: the column takes row `code`'s weight, bits unchanged
        ps[idx(r, c)] = in_p;
        ts[idx(r, c)] = r == x.code ? w_q_[x.wsel][idx(r, c)] : in_t;
        continue;
      }
      const std::uint32_t w = w_q_[x.wsel][idx(r, c)];
      std::uint32_t pv = in_p;
      // the rows this PE takes, (r << kpe) + lane, while below K: r; 2r then 2r + 1 (double row);
      // 4r .. 4r + 3 (MX, four rows: codes decoded here with their standard bias)
      for (unsigned lane = 0; lane < (1u << b.kpe); ++lane) {
        if ((lr << b.kpe) + lane >= b.k) break;
        const unsigned sh = 16 * lane;
        if (b.kpe == 2) {
          const auto code = [](std::uint32_t v, unsigned f, unsigned j) {
            return f == static_cast<unsigned>(Format::e2m1) ? (v >> 4 * j) & 0xF : (v >> 8 * j) & 0xFF;
          };
          const auto dec = [](unsigned f, std::uint32_t cd) { return numerics::decode(static_cast<Format>(f), cd); };
          pv = numerics::fp32_add(
              pv, numerics::fp32_mul(dec(b.fmt, code(w, b.fmt, lane)), dec(x.xf, code(x.code, x.xf, lane))));
        } else if (b.ints) {
          const auto sx16 = [](std::uint32_t v, unsigned s) {
            return static_cast<std::int32_t>(static_cast<std::int16_t>(v >> s));
          };
          pv += static_cast<std::uint32_t>(sx16(w, sh) * sx16(x.code, sh));
        } else {
          const bool dr = b.kpe == 1;
          const std::uint32_t wl = dr ? (w >> sh) << 16 : w, xl = dr ? (x.code >> sh) << 16 : x.code;
          pv = numerics::fp32_add(pv, numerics::fp32_mul(wl, xl));
        }
      }
      std::uint32_t tv = in_t;
      const unsigned bs = b.kpe == 2 ? block_rows_quad() : block_rows();  // the block's partitions
      const bool block_end = r % bs == bs - 1 || lr == grows - 1;
      if (block_end && b.ints) {
        tv = in_t + pv;
        pv = 0;
      } else if (block_end) {
        const std::uint32_t sw =
            numerics::decode(Format::e8m0, b.mx ? ws_q_[x.wsel][(r / block_rows_quad()) * C + c] : 127);
        const std::uint32_t sx = numerics::decode(Format::e8m0, x.sx);
        tv = numerics::fp32_add(in_t, numerics::fp32_mul(numerics::fp32_mul(pv, sw), sx));
        pv = kNegZero;
      }
      ps[idx(r, c)] = pv;
      ts[idx(r, c)] = tv;
    }
  for (unsigned c = 0; c < C; ++c) bmeta_q_[c] = x_q_[idx(last, c)].meta;
  for (unsigned q = 1; q <= 3; ++q)
    if (tap_ok(q))
      for (unsigned c = 0; c < C; ++c) tmeta_q_[q - 1][c] = x_q_[idx(tap_row(q), c)].meta;
  ps_q_ = std::move(ps);
  ts_q_ = std::move(ts);
  ps_valid_q_ = std::move(psv);
}

void TensorEngine::enter_column(const In& in) {
  // A moving column enters (a read response, or a transpose's generated column): row r through
  // an r-stage delay (the skew); the values in the array move one column right.
  const unsigned R = p_.rows, C = p_.cols, last = R - 1, bs = block_rows(), bsq = block_rows_quad();
  std::vector<Token> col(R);
  if (mm_q_.busy && mm_q_.tr) {  // a transpose generates one column per cycle
    for (unsigned r = 0; r < R; ++r) {
      col[r].valid = true;
      col[r].wsel = mm_q_.wsel;
      col[r].tr = true;
      col[r].code = static_cast<std::uint32_t>(mm_q_.n - mm_q_.left);
      col[r].w = wrec(bank_q_[mm_q_.wsel]);
    }
    col[last].meta = Meta{mm_q_.bank, mm_q_.off, mm_q_.m, mm_q_.tag, false, mm_q_.left == 1, false, mm_q_.wsel};
    for (unsigned q = 1; q <= 3; ++q)
      if (tap_ok(q)) col[tap_row(q)].meta = col[last].meta;
  } else if (in.mv_rsp_valid_i && !pend_q_.empty()) {
    const Pending p = pend_q_.front();
    pend_q_.pop_front();
    if (p.sc) {
      // MX: the column's block scales, one byte in each block's first partition; its elements next
      for (unsigned b = 0; b < R / bs; ++b)
        mx_sx_q_[b] = static_cast<std::uint32_t>(in.mv_rsp_data_i.slice(32 * b * bs, 8));
    } else {
      for (unsigned r = 0; r < R; ++r) {
        col[r].valid = true;
        col[r].wsel = p.wsel;
        auto code = static_cast<std::uint32_t>(in.mv_rsp_data_i.slice(32 * r, 32));
        if (p.spm != 0) {
          // sparse: row r (group g = r / N, index idx) takes original row o = g M + idx, lane o % (M / N)
          // of partition o / (M / N), lanes of 4 << esize bits
          const unsigned o = ((r >> (p.spm - p.spq)) << p.spm) + sidx_q_[p.wsel][r], part = o >> p.spq;
          const unsigned lw = 4u << mem::dtype_esize(p.fmt);
          const auto word = part < R ? static_cast<std::uint32_t>(in.mv_rsp_data_i.slice(32 * part, 32)) : 0u;
          code = (word >> (lw * (o & ((1u << p.spq) - 1)))) & ((1u << lw) - 1);
        }
        col[r].code = pe_operand(code, p.fmt, p.bias, p.kpe);
        col[r].sx = !p.mx ? 127 : p.kpe == 2 ? p.sxv[r / bsq] : mx_sx_q_[r / bs];
        col[r].xf = p.fmt;
        col[r].w = wrec(bank_q_[p.wsel]);
        col[r].meta = p.meta;  // (read on the last row and the taps' rows)
      }
    }
  }
  for (unsigned r = 0; r < R; ++r)
    for (unsigned c = C; c-- > 1;) x_q_[idx(r, c)] = x_q_[idx(r, c - 1)];
  for (unsigned r = 0; r < R; ++r) {
    auto& d = skew_q_[r];
    if (d.empty()) {
      x_q_[idx(r, 0)] = col[r];
    } else {
      x_q_[idx(r, 0)] = d.back();
      for (std::size_t s = d.size(); s-- > 1;) d[s] = d[s - 1];
      d[0] = col[r];
    }
  }
}

void TensorEngine::load_stationary(const In& in, const Out& o) {
  const unsigned R = p_.rows, bs = block_rows(), bsq = block_rows_quad();
  WEvent ev;  // a column's elements arriving
  const bool st_fire = o.st_req_valid_o && in.st_req_ready_i;
  ls_done_q_ = false;
  ls_done_tag_q_ = 0;
  err_q_ = false;  // this edge's refusal: a sparse load's metadata here, a command's in dispatch
  err_tag_q_ = err_code_q_ = 0;
  if (st_fire && ls_q_.mph) {  // sparse: the metadata read; the columns' once it is checked
    ls_q_.mph = false;
  } else if (st_fire && ls_q_.iph) {  // MX: a column's scale read, its element read next
    ++ls_q_.sc;
    ls_q_.iph = false;
  } else if (st_fire) {
    ++ls_q_.idx;
    --ls_q_.req_left;
    ls_q_.iph = bank_q_[ls_q_.bank].mx && (bank_q_[ls_q_.bank].kpe != 2 || ls_q_.cj == 3);
    ls_q_.cj = (ls_q_.cj + 1) & 3;
  }
  const bool ls_rsp = in.st_rsp_valid_i && ls_q_.busy && ls_q_.rsp_idx < ls_q_.m;
  if (ls_rsp && ls_q_.mrph) {
    // Sparse metadata, a byte in each of the load's K partitions: row r of group g = r / N keeps row
    // g M + idx; idx below M, above its predecessor's in the group, its partition below R.
    const BankInfo& b = bank_q_[ls_q_.bank];
    const unsigned nlog = b.spm - b.spq;
    bool bad = false;
    std::vector<unsigned> idx(R);
    for (unsigned r = 0; r < R; ++r) {
      idx[r] = static_cast<unsigned>(in.st_rsp_data_i.slice(32 * r, 8));
      if (r >= b.k) continue;
      const bool first = r % (1u << nlog) == 0;
      if (idx[r] >= (1u << b.spm) || (!first && idx[r] <= idx[r - 1]) ||
          ((((r >> nlog) << b.spm) + idx[r]) >> b.spq) >= R)
        bad = true;
    }
    ls_q_.mrph = false;
    if (bad) {  // dropped: its bank stays unloaded (the next load fills it), the weights in use stay
      ls_q_.busy = false;
      next_ls_bank_q_ = ls_q_.bank;
      err_q_ = true;
      err_tag_q_ = ls_q_.tag;
      err_code_q_ = static_cast<unsigned>(Err::meta);
    } else {
      for (unsigned r = 0; r < R; ++r) sidx_q_[ls_q_.bank][r] = idx[r] & 0xF;
    }
  } else if (ls_rsp && ls_q_.rph) {
    // MX: the scales, held for the column's elements, in each block's first partition: four rows per
    // PE a word of the scales of columns rsp_idx .. rsp_idx + 3, else the column's byte
    const bool quad = bank_q_[ls_q_.bank].kpe == 2;
    for (unsigned blk = 0; blk < R / (quad ? bsq : bs); ++blk)
      ls_q_.sch[blk] = static_cast<std::uint32_t>(in.st_rsp_data_i.slice(32 * blk * (quad ? bsq : bs), quad ? 32 : 8));
    ls_q_.rph = false;
  } else if (ls_rsp) {
    const BankInfo& b = bank_q_[ls_q_.bank];
    ev.valid = true;
    ev.bank = ls_q_.bank;
    ev.col = static_cast<unsigned>(ls_q_.rsp_idx);
    ev.quad = b.kpe == 2;
    ev.mx = b.mx;
    ev.data.resize(R);
    for (unsigned r = 0; r < R; ++r) {
      const auto code = static_cast<std::uint32_t>(in.st_rsp_data_i.slice(32 * r, 32));
      ev.data[r] = b.raw ? code : pe_operand(code, b.fmt, b.bias, b.kpe);
    }
    if (b.mx) {
      ev.sc.resize(R / bsq);
      for (unsigned blk = 0; blk < R / (ev.quad ? bsq : bs); ++blk)
        ev.sc[blk] = ev.quad ? (ls_q_.sch[blk] >> 8 * ls_q_.rj) & 0xFF : ls_q_.sch[blk];
    }
    ls_q_.rph = b.mx && (b.kpe != 2 || ls_q_.rj == 3);
    ls_q_.rj = (ls_q_.rj + 1) & 3;
    if (++ls_q_.rsp_idx == ls_q_.m) {
      ls_q_.busy = false;
      cur_bank_q_ = ls_q_.bank;
      bank_q_[ls_q_.bank].loaded = true;
      ls_done_q_ = true;
      ls_done_tag_q_ = ls_q_.tag;
    }
  }
  write_weights(std::move(ev));
}

void TensorEngine::write_weights(WEvent in) {
  // Row r of a loaded column is written r cycles after its response, as the moving values' skew
  // delays row r: a column still in the array passes each row with the weights it entered with,
  // and the next multiply's first column reaches each row after its weight. An MX column's block
  // scale is written with its block's last row, the one row that reads it, and kept by that row
  // (a slot per 8 rows): a one-row MX load's 32-row block and a four-row load's 8-partition blocks
  // end on different rows, and neither may change the scale a row below still reads.
  const unsigned R = p_.rows, C = p_.cols;
  for (unsigned r = 0; r < R; ++r) {
    const WEvent& e = r == 0 ? in : wev_q_[r - 1];
    if (!e.valid) continue;
    w_q_[e.bank][idx(r, e.col)] = e.data[r];
    const unsigned bs = e.quad ? block_rows_quad() : block_rows();
    if (e.mx && r % bs == bs - 1) ws_q_[e.bank][(r / block_rows_quad()) * C + e.col] = e.sc[r / bs];
  }
  if (R > 1) {
    for (std::size_t s = wev_q_.size(); s-- > 1;) wev_q_[s] = std::move(wev_q_[s - 1]);
    wev_q_[0] = std::move(in);
  }
}

void TensorEngine::issue_moving(const In& in, const Out& o, unsigned& inflight) {
  const bool mv_fire = o.mv_req_valid_o && in.mv_req_ready_i;
  const auto next_column = [&] {  // a column issued (read, or generated by a transpose)
    ++inflight;
    mm_q_.off = (mm_q_.off + 1) & ((std::uint64_t{1} << off_w_) - 1);
    if (--mm_q_.left == 0) mm_q_.busy = false;
  };
  if (mm_q_.busy && mm_q_.tr) next_column();
  const bool col_fire = mv_fire && !mm_q_.iph;
  if (mv_fire) {
    // four rows per PE: the column's scales, byte sj of each block's head word
    std::vector<std::uint32_t> sxv(p_.rows / block_rows_quad(), 0);
    if (!sxb_q_.empty())
      for (std::size_t b = 0; b < sxv.size(); ++b) sxv[b] = (sxb_q_.front()[b] >> 8 * mm_q_.sj) & 0xFF;
    pend_q_.push_back(Pending{mm_q_.iph, mm_q_.wsel, mm_q_.fmt, mm_q_.bias, mm_q_.mx, mm_q_.kpe, std::move(sxv),
                              mm_q_.spm, mm_q_.spq,
                              Meta{mm_q_.bank, mm_q_.off, mm_q_.m, mm_q_.tag, mm_q_.acc, mm_q_.left == 1, mm_q_.ints,
                                   mm_q_.wsel, mm_q_.pbf, mm_q_.sr, mm_q_.rg}});
  }
  if (col_fire && mm_q_.kpe == 2) {  // the word's last column (or the multiply's) takes it
    if (mm_q_.sj == 3 || mm_q_.left == 1) sxb_q_.pop_front();
    mm_q_.sj = (mm_q_.sj + 1) & 3;
  }
  if (col_fire && mm_q_.fmt == static_cast<unsigned>(Format::fp32))
    mm_q_.gap = 3;  // FP32: a column every fourth cycle
  else if (mm_q_.gap != 0)
    --mm_q_.gap;
  if (mv_fire && mm_q_.iph) {  // MX: a column's scale read, its element read next
    ++mm_q_.sc;
    mm_q_.iph = false;
  } else if (mv_fire) {
    ++mm_q_.idx;
    mm_q_.iph = mm_q_.mx && mm_q_.kpe != 2;
    next_column();
  }
}

void TensorEngine::scale_words(const In& in, const Out& o) {
  // a four-row MX multiply's scale words: read, and pushed as they arrive (per block, the word of
  // the block's first partition)
  if (o.sx_req_valid_o && in.sx_req_ready_i) {
    ++sx_q_.idx;
    --sx_q_.left;
    ++sx_q_.out;
  }
  if (in.sx_rsp_valid_i) {
    const unsigned bsq = block_rows_quad();
    std::vector<std::uint32_t> w(p_.rows / bsq);
    for (std::size_t b = 0; b < w.size(); ++b)
      w[b] = static_cast<std::uint32_t>(in.sx_rsp_data_i.slice(32 * b * bsq, 32));
    sxb_q_.push_back(std::move(w));
    --sx_q_.out;
  }
}

void TensorEngine::dispatch(const In& in, const Out& o) {
  // (err_q_ was cleared by load_stationary, which may report a sparse load's metadata)
  if (!(in.cmd_valid_i && o.cmd_ready_o)) return;
  const Err e = check_cmd(in);
  const unsigned es = cmd_esize(in);
  if (e != Err::none) {
    err_q_ = true;
    err_tag_q_ = in.cmd_i.tag;
    err_code_q_ = static_cast<unsigned>(e);
  } else if (in.cmd_i.op == sv::te_pkg::te_op_e::TeLoadStationary) {
    ls_q_ = Ls{};
    ls_q_.busy = true;
    ls_q_.idx = mem::base_index(in.cmd_i.addr, es);
    ls_q_.sc = in.cmd_i.kpe == 2 ? mem::base_index(in.cmd_i.sc_addr, 3) : in.cmd_i.sc_addr;
    ls_q_.iph = ls_q_.rph = in.cmd_i.mx;
    ls_q_.mph = ls_q_.mrph = in.cmd_i.spm != 0;
    ls_q_.es = es;
    ls_q_.sch.assign(p_.rows / block_rows_quad(), 0);
    ls_q_.req_left = ls_q_.m = in.cmd_i.m;
    ls_q_.tag = in.cmd_i.tag;
    ls_q_.bank = next_ls_bank_q_;
    bank_q_[next_ls_bank_q_] = BankInfo{static_cast<unsigned>(in.cmd_i.k),
                                        static_cast<unsigned>(in.cmd_i.m),
                                        static_cast<unsigned>(in.cmd_i.fmt),
                                        op_bias(in),
                                        false,
                                        in.cmd_i.tr,
                                        in.cmd_i.mx,
                                        in.cmd_i.kpe,
                                        is_int_format(in.cmd_i.fmt),
                                        in.cmd_i.spm,
                                        in.cmd_i.spq,
                                        in.cmd_i.rg};
    next_ls_bank_q_ ^= 1;
  } else {
    const unsigned gap = mm_q_.gap;  // the FP32 spacing carries over
    mm_q_ = Mm{};
    mm_q_.gap = gap;
    mm_q_.busy = true;
    mm_q_.idx = mem::base_index(in.cmd_i.addr, es);
    mm_q_.sc = in.cmd_i.sc_addr;
    mm_q_.iph = in.cmd_i.mx && !in.cmd_i.tr && in.cmd_i.kpe != 2;
    mm_q_.es = es;
    mm_q_.left = mm_q_.n = in.cmd_i.n;
    mm_q_.off = in.cmd_i.off;
    mm_q_.bank = in.cmd_i.bank;
    mm_q_.tag = in.cmd_i.tag;
    mm_q_.m = bank_q_[cur_bank_q_].m;
    mm_q_.wsel = cur_bank_q_;
    mm_q_.fmt = static_cast<unsigned>(in.cmd_i.fmt);
    mm_q_.bias = op_bias(in);
    mm_q_.acc = in.cmd_i.acc && !in.cmd_i.tr;
    mm_q_.tr = in.cmd_i.tr;
    mm_q_.mx = in.cmd_i.mx;
    mm_q_.kpe = in.cmd_i.kpe;
    mm_q_.ints = is_int_format(in.cmd_i.fmt);
    mm_q_.spm = in.cmd_i.spm;
    mm_q_.spq = in.cmd_i.spq;
    mm_q_.pbf = in.cmd_i.pbf;
    mm_q_.sr = in.cmd_i.sr;
    mm_q_.rg = arr_rg_q_ = in.cmd_i.rg;
    if (in.cmd_i.seed_ld)  // (the array is empty: no entry is rounded with the old seed after this)
      for (unsigned c = 0; c < p_.cols; ++c) rng_q_[c] = numerics::Xorshift32::lane_seed(in.cmd_i.seed, c);
    if (in.cmd_i.kpe == 2) {  // its scale words, four columns each (the previous multiply's all taken)
      sx_q_.idx = mem::base_index(in.cmd_i.sc_addr, 3);
      sx_q_.left = (std::uint64_t{in.cmd_i.n} + 3) / 4;
    }
  }
}

}  // namespace trn::tensor
