// Bench for rtl/tensor/tensor_engine.sv in lockstep with trn::tensor::TensorEngine.
// Environment: an SBUF memory (bytes per partition, elements laid out as SBUF keeps them; MX scales
// in scale tensors) behind the two read ports, answering SBUF engine requests in order after a
// seeded random latency with seeded request stalls; a
// command driver; a completion monitor. After each program every PSUM entry is read back through
// the pr_ port and compared with trn::tensor::FunctionalReference: plain loops computing every
// output with the same FP32 additions in the same order (row 0 first within each 32-row block).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "mem/elements.hpp"
#include "numerics/arith.hpp"
#include "numerics/mx.hpp"
#include "system/preset.hpp"
#include "tensor/reference.hpp"
#include "tensor/tensor_engine.hpp"
#include "tensor_engine_ports.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::tensor;
using numerics::Format;

namespace {

// ---- functional coverage
/// Operand types as commands name them: the PE formats (numerics::Format 0..8), MX elements, then
/// the integers (their data-type codes 12 and 13).
const std::vector<std::string> kTypeBins = {"fp32", "tf32", "bf16",    "fp16",      "e5m2",    "e4m3", "e4m3fn",
                                            "e3m4", "e2m1", "mx_e5m2", "mx_e4m3fn", "mx_e2m1", "int8", "uint8"};
std::size_t type_bin(unsigned fmt, bool mx) {
  if (!mx) return fmt;  // (int8 12, uint8 13)
  return fmt == static_cast<unsigned>(Format::e5m2) ? 9 : fmt == static_cast<unsigned>(Format::e4m3fn) ? 10 : 11;
}
const std::vector<std::string> kSpecialBins = {"zero", "subnormal", "inf", "nan", "max_normal"};
/// The special value an operand code of type fmt is (an index of kSpecialBins), or -1. Codes are
/// classed by their type (FP8 whatever its bias); TF32 as the array takes it, FP32 rounded to TF32.
int special_of(unsigned fmt, std::uint32_t code) {
  const auto f = static_cast<Format>(fmt);
  if (f == Format::fp32 || f == Format::tf32) {
    const std::uint32_t mag = (f == Format::tf32 ? numerics::tf32_round(code) : code) & 0x7FFFFFFFu;
    if (mag == 0) return 0;
    if (mag < 0x00800000u) return 1;
    if (mag == 0x7F800000u) return 2;
    if (mag > 0x7F800000u) return 3;
    return mag == (f == Format::tf32 ? 0x7F7FE000u : 0x7F7FFFFFu) ? 4 : -1;
  }
  const numerics::FormatInfo& d = numerics::format_info(f);
  const std::uint32_t mag = code & ((std::uint32_t{1} << (d.bits - 1)) - 1);
  if (numerics::is_nan_code(d, code)) return 3;
  if (numerics::is_inf_code(d, code)) return 2;
  if (mag == 0) return 0;
  if (d.subnormals && (mag >> d.man_bits) == 0) return 1;
  return mag == numerics::max_magnitude(d) ? 4 : -1;
}

/// One SBUF read port: requests accepted with probability p_ready, answered in order after
/// lat_min..lat_max cycles.
struct ReadServer {
  Signal &req_valid, &req_ready, &req, &rsp_valid, &rsp_data;
  std::deque<std::pair<std::uint64_t, TensorEngine::e_req_t>> q;  // (ready cycle, request)
};

struct TeBench {
  Env& env;
  Signal& rst;
  Clock clk;
  TensorEngine::Params prm;
  TensorEngine model;
  Lockstep<TensorEngine> lockstep;
  ReadServer st, mv, sx;  ///< stationary, moving, and a four-row MX multiply's scale words
  Signal &cmd_valid, &cmd_ready, &cpl_sig, &pr_valid, &pr_addr, &pr_data;
  Sbuf sbuf;  // [partition][byte]
  Rng rng;
  Rng junk;  ///< what a read port's data lines carry while its response is not valid
  double p_ready = 1.0;
  bool mv_blocked = false;  ///< hold the moving read port's requests (a long SBUF stall)
  unsigned lat_min = 1, lat_max = 1;
  /// the most moving reads the engine had outstanding (accepted, response not yet taken)
  unsigned mv_outstanding_max = 0;
  unsigned done_count = 0, err_count = 0;
  std::map<unsigned, std::uint64_t> mm_done_at;  ///< per tag: the cycle its last multiply finished
  std::vector<std::uint64_t> st_reads;           ///< the cycles of the stationary reads
  std::vector<unsigned> err_codes;

  // ---- functional coverage (docs/tensor.md), sampled from the command port (cmd_i at each
  // handshake; cpl_o.err the cycle after tells an illegal one), cpl_o's done pulses, the read ports'
  // requests and the data the bench answers them with; never from the model. A legal command's reads
  // come in order on its port: M (MX: 2M, each column's scales, then its elements) for a
  // LoadStationary, N (MX: 2N) for a MultiplyMoving that does not transpose.
  Signal& cmd_in = env.sig("cmd_i");
  /// Per legal MultiplyMoving (not a transpose): the moving type, and the stationary type of the
  /// weights it uses, each x overwrite / accumulate.
  CoverPoint& cov_moving = cover_cross("tensor_engine.moving_type_x_psum", {kTypeBins, {"overwrite", "accumulate"}});
  CoverPoint& cov_stationary =
      cover_cross("tensor_engine.stationary_type_x_psum", {kTypeBins, {"overwrite", "accumulate"}});
  /// Per legal transposing MultiplyMoving: the type of the tile.
  CoverPoint& cov_transpose =
      cover_point("tensor_engine.transpose_type",
                  {"fp32", "tf32", "bf16", "fp16", "e5m2", "e4m3", "e4m3fn", "e3m4", "e2m1", "int8", "uint8"});
  /// Per legal MultiplyMoving (not a transpose): the generation x how many K-rows a PE takes a
  /// cycle for which kind of operand (SPEC 5.1's rates).
  CoverPoint& cov_rows = cover_cross(
      "tensor_engine.rows_per_pe", {{"v2", "v3", "v4"}, {"fp_one", "fp8_double", "int_one", "int_double", "mx_quad"}});
  CoverPoint& cov_err = cover_point("tensor_engine.err_code", {"shape", "range", "type", "no_weights", "kind", "meta"});
  /// Per legal sparse MultiplyMoving (v3+): N:M, and whether its type is an integer.
  CoverPoint& cov_sparse =
      cover_cross("tensor_engine.sparsity", {{"1:2", "2:4", "4:8", "8:16", "1:4", "2:8", "4:16"}, {"fp", "int"}});
  /// Per legal MultiplyMoving into BF16 PSUM entries (v4): rounding x overwrite / accumulate; and
  /// the multiplies that load the stochastic-rounding seed.
  CoverPoint& cov_bf16_psum = cover_cross("tensor_engine.bf16_psum", {{"rne", "sr"}, {"overwrite", "accumulate"}});
  CoverPoint& cov_seed = cover_point("tensor_engine.seed_load", {"seed_ld"});
  CoverPoint& cov_k = range_point("tensor_engine.ls.k");               // 1 .. R
  CoverPoint& cov_m = range_point("tensor_engine.ls.m");               // 1 .. C
  CoverPoint& cov_n = range_point("tensor_engine.mm.n");               // 1 .. Nmax
  CoverPoint& cov_tr_n = range_point("tensor_engine.mm.transpose_n");  // 1 .. the tile's K
  CoverPoint& cov_bank = range_point("tensor_engine.mm.bank");         // 0 .. banks - 1
  CoverPoint& cov_off = range_point("tensor_engine.mm.off");           // 0 .. depth - N
  /// Per stationary read: no MultiplyMoving before the load in flight; one in flight (the load runs
  /// in the background); and a moving read accepted in the same cycle.
  CoverPoint& cov_background =
      cover_point("tensor_engine.background_load", {"alone", "behind_multiply", "beside_moving_read"});
  /// A cycle where the load holds its read back because the moving read wants the same SBUF bank.
  CoverPoint& cov_yield = cover_point("tensor_engine.load_yields", {"same_bank"});
  /// Special values in the operand data the bench answers with (rows below the weights' K).
  CoverPoint& cov_st_special = cover_point("tensor_engine.stationary_special", kSpecialBins);
  CoverPoint& cov_mv_special = cover_point("tensor_engine.moving_special", kSpecialBins);
  /// MX E8M0 block scales at their extremes (2^-127, 2^127) and NaN.
  CoverPoint& cov_scale = cover_cross("tensor_engine.mx_scale", {{"stationary", "moving"}, {"2^-127", "2^127", "nan"}});
  struct Weights {
    unsigned fmt = 0, k = 0;
    bool mx = false;
  } weights;  ///< of the last legal LoadStationary
  /// The generation the bench straps (gen_i), set before start()
  sv::te_pkg::te_gen_e gen = sv::te_pkg::te_gen_e::TeGenV4;
  /// A legal command's reads on its port (0 stationary, 1 moving): `total` in all, `issued` so far.
  struct Reader {
    std::uint64_t seq = 0;
    unsigned fmt = 0, rows = 0, total = 0, issued = 0;
    bool mx = false;
    unsigned kpe = 0;
    bool meta = false;  ///< a sparse load: its first read is the index metadata
  };
  /// What one accepted read request carries: an MX scale or elements of `fmt` (sampled in K rows
  /// below `rows`; 0: not sampled), 1 << kpe rows per partition.
  struct Operand {
    bool scale = false;
    unsigned fmt = 0, rows = 0, kpe = 0;
  };
  std::array<std::deque<Reader>, 2> readers;
  std::array<std::deque<Operand>, 2> operands;      ///< per port, beside ReadServer::q
  std::optional<sv::te_pkg::te_cmd_t> cmd_pending;  ///< accepted in the cycle before
  std::uint64_t cmd_seq = 0, cmd_pending_seq = 0;
  std::deque<std::uint64_t> mm_active;  ///< legal MultiplyMoving commands not yet done, by sequence number

  Clock::HookId hook;

  static TensorEngine::Params params_of(const Env& e) {
    const auto& a = e.cfg().arch;
    TensorEngine::Params p;
    p.rows = a.partitions;
    p.cols = a.te_cols;
    p.max_n = a.max_moving_n;
    p.banks = a.psum_banks;
    p.depth = a.psum_bank_bytes / 4;
    p.sbuf_bytes = a.sbuf_bytes_per_partition;
    p.sbuf_banks = a.sbuf_banks;
    p.sbuf_line_bytes = a.dma_beat_bytes;
    return p;
  }

  explicit TeBench(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(params_of(e)),
        model(prm),
        lockstep(e, clk, model),
        st{e.sig("st_req_valid_o"), e.sig("st_req_ready_i"), e.sig("st_req_o"),
           e.sig("st_rsp_valid_i"), e.sig("st_rsp_data_i"),  {}},
        mv{e.sig("mv_req_valid_o"), e.sig("mv_req_ready_i"), e.sig("mv_req_o"),
           e.sig("mv_rsp_valid_i"), e.sig("mv_rsp_data_i"),  {}},
        sx{e.sig("sx_req_valid_o"), e.sig("sx_req_ready_i"), e.sig("sx_req_o"),
           e.sig("sx_rsp_valid_i"), e.sig("sx_rsp_data_i"),  {}},
        cmd_valid(e.sig("cmd_valid_i")),
        cmd_ready(e.sig("cmd_ready_o")),
        cpl_sig(e.sig("cpl_o")),
        pr_valid(e.sig("pr_valid_i")),
        pr_addr(e.sig("pr_i")),
        pr_data(e.sig("pr_data_o")),
        sbuf(prm.rows, std::vector<std::uint8_t>(prm.sbuf_bytes, 0)),
        rng(e.rng("sbuf")),
        junk(e.rng("junk")) {
    // The SBUF ports and the monitor act just before each edge, on settled values.
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~TeBench() { clk.remove_hook(hook); }

  void serve() {
    if (!(rst.get() & 1)) return;
    const std::uint64_t now = clk.cycle();
    cover_commands();  // first: a command's reads start the cycle after it was accepted
    for (ReadServer* s : {&st, &mv, &sx}) {
      if ((s->req_valid.get() & 1) && (s->req_ready.get() & 1)) {
        if (s == &mv) {  // at most max_outstanding moving reads in flight (docs/tensor.md)
          const unsigned out = static_cast<unsigned>(s->q.size()) + (s->rsp_valid.get() & 1) + 1;
          check(out <= prm.max_outstanding, "cycle {}: a moving read issued with {} already outstanding (limit {})",
                now, out - 1, prm.max_outstanding);
          mv_outstanding_max = std::max(mv_outstanding_max, out);
        }
        s->q.emplace_back(now + lat_min + rng.below(lat_max - lat_min + 1),
                          TensorEngine::e_req_t::unpack(s->req.bits()));
        if (s != &sx) operands[s == &mv ? 1 : 0].push_back(next_operand(s == &mv ? 1 : 0));
        if (s == &st) st_reads.push_back(now);
      }
    }
    cover_yield();
    const auto cpl = cpl_now();
    if (cpl.ls_done) ++done_count;
    if (cpl.mm_done) {
      ++done_count;
      mm_done_at[cpl.mm_tag] = now;
    }
    if (cpl.err) {
      ++err_count;
      const auto code = static_cast<unsigned>(cpl.code);
      err_codes.push_back(code);
      if (code >= 1 && code <= 6) cov_err.hit_index(code - 1);
      // a sparse load dropped for its metadata: its reads ended with the metadata's
      if (code == 6 && !readers[0].empty() && readers[0].front().meta) readers[0].pop_front();
    }
    if ((cmd_valid.get() & 1) && (cmd_ready.get() & 1)) {
      cmd_pending = sv::te_pkg::te_cmd_t::unpack(cmd_in.bits());
      cmd_pending_seq = cmd_seq++;
    }
  }

  // ---- functional coverage
  /// The completion port this cycle.
  sv::te_pkg::te_cpl_t cpl_now() const { return sv::te_pkg::te_cpl_t::unpack(cpl_sig.bits()); }
  /// The command accepted in the cycle before (legal unless cpl_o.err now), and the multiplies done.
  void cover_commands() {
    const auto cpl = cpl_now();
    if (cmd_pending) {
      if (!cpl.err) on_legal(*cmd_pending, cmd_pending_seq);
      cmd_pending.reset();
    }
    if (cpl.mm_done && !mm_active.empty()) mm_active.pop_front();
  }
  void on_legal(const sv::te_pkg::te_cmd_t& c, std::uint64_t seq) {
    if (c.op == sv::te_pkg::te_op_e::TeLoadStationary) {
      if (c.kpe == 0) hit_range(cov_k, c.k, 1, prm.rows);
      hit_range(cov_m, c.m, 1, prm.cols);
      weights = Weights{c.fmt, c.k, c.mx};
      // a load for a transpose keeps raw codes: its data is not sampled for special values
      const bool sp = c.spm != 0;
      readers[0].push_back(
          Reader{seq, c.fmt, c.tr ? 0u : c.k, (c.mx ? 2u * c.m : c.m) + (sp ? 1 : 0), 0, c.mx, c.kpe, sp});
      return;
    }
    mm_active.push_back(seq);
    if (c.seed_ld) cov_seed.hit_index(0);
    if (c.pbf) cov_bf16_psum.hit_index((c.sr ? 2 : 0) + (c.acc ? 1 : 0));
    if (c.tr) {
      if (weights.fmt <= 8) cov_transpose.hit_index(weights.fmt);
      if (is_int_format(weights.fmt)) cov_transpose.hit_index(weights.fmt - kInt8 + 9);
      hit_range(cov_tr_n, c.n, 1, weights.k);
      return;
    }
    const std::size_t psum = c.acc ? 1 : 0;
    if (c.fmt <= 8 || is_int_format(c.fmt)) cov_moving.hit_index(type_bin(c.fmt, c.mx) * 2 + psum);
    if (weights.fmt <= 8 || is_int_format(weights.fmt))
      cov_stationary.hit_index(type_bin(weights.fmt, weights.mx) * 2 + psum);
    cov_rows.hit_index(static_cast<std::size_t>(gen) * 5 +
                       (c.kpe == 2 ? 4 : (is_int_format(c.fmt) ? 2 : 0) + (c.kpe != 0 ? 1 : 0)));
    hit_range(cov_n, c.n, 1, prm.max_n);
    hit_range(cov_bank, c.bank, 0, prm.banks - 1);
    hit_range(cov_off, c.off, 0, prm.depth - c.n);
    if (c.spm != 0) {  // N:M as spm, spq name it; a sparse column's data is not sampled for special values
      static const int bin[5][3] = {{-1, -1, -1}, {-1, 0, -1}, {-1, 1, 4}, {-1, 2, 5}, {-1, 3, 6}};
      if (c.spm <= 4 && c.spq <= 2 && bin[c.spm][c.spq] >= 0)
        cov_sparse.hit_index(static_cast<std::size_t>(bin[c.spm][c.spq]) * 2 + (is_int_format(c.fmt) ? 1 : 0));
    }
    const bool two = c.mx && c.kpe != 2;  // MX: each column's scales, then its elements (four rows: scales on sx)
    readers[1].push_back(Reader{seq, c.fmt, c.spm != 0 ? 0u : weights.k, two ? 2u * c.n : c.n, 0, two, c.kpe});
  }
  /// The operand of a read request accepted now on port 0 (stationary) or 1 (moving).
  Operand next_operand(unsigned port) {
    if (readers[port].empty()) return {};
    Reader& r = readers[port].front();
    // (a sparse load's first read, its index metadata, is not sampled: rows 0)
    const Operand o = r.meta && r.issued == 0 ? Operand{} : Operand{r.mx && r.issued % 2 == 0, r.fmt, r.rows, r.kpe};
    if (port == 0) {
      const bool behind = !mm_active.empty() && mm_active.front() < r.seq;
      const bool beside = (mv.req_valid.get() & 1) && (mv.req_ready.get() & 1);
      cov_background.hit_index(!behind ? 0 : beside ? 2 : 1);
    }
    if (++r.issued >= r.total) readers[port].pop_front();
    return o;
  }
  /// The load yields: it has reads left, the moving port asks for one in the bank of its next read.
  void cover_yield() {
    if (readers[0].empty() || !(mv.req_valid.get() & 1) || (st.req_valid.get() & 1)) return;
    auto bank = [&](const TensorEngine::e_req_t& q) {
      return ((std::uint64_t{q.idx} << static_cast<unsigned>(q.esize)) / (2 * std::uint64_t{prm.sbuf_line_bytes})) %
             prm.sbuf_banks;
    };
    if (bank(TensorEngine::e_req_t::unpack(st.req.bits())) == bank(TensorEngine::e_req_t::unpack(mv.req.bits())))
      cov_yield.hit_index(0);
  }
  /// The code of partition r in a read response on port 0 (stationary) or 1 (moving).
  void cover_operand(unsigned port, const Operand& o, unsigned r, std::uint32_t code) {
    if (o.kpe == 2 && !o.scale) {  // four MX codes: rows 4r + j, byte j (E2M1: nibble j)
      const bool nib = o.fmt == static_cast<unsigned>(Format::e2m1);
      for (unsigned h = 0; h < 4; ++h)
        cover_operand(port, Operand{false, o.fmt, o.rows, 0}, 4 * r + h,
                      nib ? (code >> 4 * h) & 0xF : (code >> 8 * h) & 0xFF);
      return;
    }
    if (o.kpe == 1) {  // two codes: rows 2r (low byte) and 2r + 1
      for (unsigned h = 0; h < 2; ++h)
        cover_operand(port, Operand{false, o.fmt, o.rows, 0}, 2 * r + h, (code >> 8 * h) & 0xFF);
      return;
    }
    if (r >= o.rows || is_int_format(o.fmt)) return;
    if (o.scale) {  // a block's scale is in the block's first partition (blocks of 8 with four rows)
      if (r % (o.kpe == 2 ? std::min(prm.rows, 8u) : std::min(prm.rows, 32u)) != 0) return;
      if (code == 0x00 || code == 0xFE || code == 0xFF)
        cov_scale.hit_index(3 * port + (code == 0x00 ? 0 : code == 0xFE ? 1 : 2));
      return;
    }
    if (const int k = special_of(o.fmt, code); k >= 0)
      (port == 0 ? cov_st_special : cov_mv_special).hit_index(static_cast<std::size_t>(k));
  }
  /// Drive the ports for the next cycle (after the edge).
  void drive() {
    const std::uint64_t now = clk.cycle();
    for (ReadServer* s : {&st, &mv, &sx}) {
      s->req_ready.set(!(s == &mv && mv_blocked) && rng.chance(p_ready));
      const bool v = !s->q.empty() && s->q.front().first <= now;
      s->rsp_valid.set(v);
      if (v) {
        Bits d(32 * prm.rows);
        const TensorEngine::e_req_t& q = s->q.front().second;
        check(!q.we, "cycle {}: a write request on a read port", now);
        const unsigned port = s == &mv ? 1 : 0;
        const Operand o = s == &sx || operands[port].empty() ? Operand{} : operands[port].front();
        for (unsigned r = 0; r < prm.rows; ++r) {
          const std::uint32_t code = mem::load_elem(sbuf[r], q.idx, static_cast<unsigned>(q.esize));
          d.set_slice(32 * r, 32, code);
          if (s != &sx) cover_operand(port, o, r, code);
        }
        s->rsp_data.set(d);
        s->q.pop_front();
        if (s != &sx && !operands[port].empty()) operands[port].pop_front();
      } else {
        // data without valid means nothing: the port carries noise, which a design (or model)
        // that reads it without its valid turns into a wrong result (its own stream, so the
        // tests' other draws are unchanged)
        s->rsp_data.set(junk.bits(32 * prm.rows));
      }
    }
  }

  /// The generation strap, changed while no command runs.
  void set_gen(sv::te_pkg::te_gen_e g) {
    gen = g;
    env.sig("gen_i").set(static_cast<unsigned>(gen));
  }

  Task<> start() {
    set_gen(gen);
    cmd_valid.set(0);
    pr_valid.set(0);
    env.sig("pe_valid_i").set(0);
    for (ReadServer* s : {&st, &mv, &sx}) {
      s->req_ready.set(0);
      s->rsp_valid.set(0);
    }
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }

  /// One cycle: drive the servers, wait for the edge.
  Task<> cycle() {
    drive();
    co_await RisingEdge(clk.signal());
  }

  Task<> issue(const Command& c) {
    cmd_valid.set(1);
    env.sig("cmd_i").set(to_cmd(c).pack());
    for (;;) {
      drive();
      co_await ReadOnly();
      const bool fire = cmd_ready.get() & 1;
      co_await RisingEdge(clk.signal());
      if (fire) break;
    }
    cmd_valid.set(0);
  }

  /// Wait until `n` completions (done or error) have been seen.
  Task<> wait_done(unsigned n, unsigned limit = 100000) {
    for (unsigned k = 0; done_count + err_count < n; ++k) {
      check(k < limit, "{} of {} commands completed after {} cycles", done_count + err_count, n, limit);
      co_await cycle();
    }
  }

  /// Row r, column j of command c's operand (c.addr a byte address, c.fmt the type): element j in
  /// partition r; with two rows per partition (c.kpe 1), byte r % 2 of the 2-byte element j in
  /// partition r / 2.
  void put(unsigned r, const Command& c, unsigned j, std::uint32_t code) {
    if (c.kpe == 1) {
      sbuf[r / 2].at(c.addr + 2 * j + r % 2) = static_cast<std::uint8_t>(code);
      return;
    }
    if (c.kpe == 2 && c.fmt == static_cast<unsigned>(Format::e2m1)) {  // four rows: nibble r % 4 of 2 bytes
      std::uint8_t& b = sbuf[r / 4].at(c.addr + 2 * j + (r % 4) / 2);
      const unsigned sh = 4 * (r % 2);
      b = static_cast<std::uint8_t>((b & ~(0xF << sh)) | ((code & 0xF) << sh));
      return;
    }
    if (c.kpe == 2) {  // four rows: byte r % 4 of 4 bytes
      sbuf[r / 4].at(c.addr + 4 * j + r % 4) = static_cast<std::uint8_t>(code);
      return;
    }
    put_at(r, c.fmt, mem::base_index(c.addr, mem::dtype_esize(c.fmt)) + j, code);
  }
  /// Element idx of type fmt in partition r.
  void put_at(unsigned r, unsigned fmt, std::uint64_t idx, std::uint32_t code) {
    mem::store_elem(sbuf[r], idx, mem::dtype_esize(fmt), code);
  }
  /// MX: the E8M0 scale of block b for column j of command c's operand.
  void put_scale(unsigned b, const Command& c, unsigned j, std::uint32_t scale) {
    const unsigned bp = c.kpe == 2 ? std::min(prm.rows, 8u) : std::min(prm.rows, 32u);  // the block's partitions
    sbuf[b * bp].at(c.sc_addr + j) = static_cast<std::uint8_t>(scale);
  }
  /// Every element of partition r as element type fmt (its bytes filled with that code).
  void fill(unsigned fmt, const std::function<std::uint32_t()>& code) {
    const unsigned es = mem::dtype_esize(fmt);
    for (auto& part : sbuf)
      for (std::uint64_t i = 0; i < (2 * std::uint64_t{prm.sbuf_bytes} >> es); ++i)
        mem::store_elem(part, i, es, code());
  }

  /// Read back PSUM (every entry, or banks [b0, b1) x elements [o0, o1)) and compare with `ref`
  /// [bank][part][off].
  Task<> compare_psum(const std::vector<std::uint32_t>& ref, unsigned b0 = 0, unsigned b1 = ~0u, unsigned o0 = 0,
                      unsigned o1 = ~0u) {
    std::vector<std::pair<unsigned, unsigned>> at;
    for (unsigned b = b0; b < std::min(b1, prm.banks); ++b)
      for (unsigned o = o0; o < std::min(o1, prm.depth); ++o) at.emplace_back(b, o);
    // a whole read also reads just past the end, the first bank and the first element outside
    // PSUM: zero, not an entry the address wraps to
    if (b0 == 0 && b1 == ~0u && o0 == 0 && o1 == ~0u) {
      at.emplace_back(prm.banks, 0);
      at.emplace_back(0, prm.depth);
    }
    for (auto [b, o] : at) {
      pr_valid.set(1);
      pr_addr.set(TensorEngine::psum_addr_t{static_cast<std::uint8_t>(b), static_cast<std::uint16_t>(o)}.pack());
      co_await cycle();
      pr_valid.set(0);
      co_await ReadOnly();
      const Bits d = pr_data.bits();
      const bool inside = b < prm.banks && o < prm.depth;
      for (unsigned c = 0; c < prm.cols; ++c) {
        const std::uint32_t want = inside ? ref[(static_cast<std::size_t>(b) * prm.cols + c) * prm.depth + o] : 0;
        check(d.slice(32 * c, 32) == want, "PSUM bank {} partition {} element {}{}: {:#010x}, reference {:#010x}", b, c,
              o, inside ? "" : " (outside PSUM)", d.slice(32 * c, 32), want);
      }
      co_await RisingEdge(clk.signal());
    }
  }
};

/// A LoadStationary of a whole R x C tile of `fmt` from SBUF address `addr`.
Command load_all(const TensorEngine::Params& p, unsigned fmt, unsigned addr = 0) {
  Command c{Op::load_stationary};
  c.fmt = fmt;
  c.k = p.rows;
  c.m = p.cols;
  c.addr = addr;
  return c;
}

/// The byte address of element idx of type fmt (idx even for 4-bit types).
unsigned byte_of(std::uint64_t idx, unsigned fmt) { return mem::byte_address(idx, mem::dtype_esize(fmt)); }

bool is_mx_elem(unsigned fmt) { return numerics::is_mx_element(static_cast<Format>(fmt)); }

/// An E8M0 block scale: mostly near 1.0, sometimes extreme or NaN.
std::uint32_t mx_scale(Rng& r) {
  static const std::uint32_t extremes[] = {0, 1, 64, 200, 253, 254, 255};
  return r.chance(0.15) ? extremes[r.below(7)] : static_cast<std::uint32_t>(r.range(110, 140));
}
/// An MX operand: element codes (rows x columns) and a scale per block and column.
void put_mx(TeBench& t, Rng& r, const Command& c, unsigned cols) {
  const unsigned bs = c.kpe == 2 ? std::min(t.prm.rows, 8u) : std::min(t.prm.rows, 32u);
  for (unsigned rr = 0; rr < (t.prm.rows << c.kpe); ++rr)
    for (unsigned j = 0; j < cols; ++j)
      t.put(rr, c, j,
            static_cast<std::uint32_t>(r.next()) &
                numerics::code_mask(numerics::format_info(static_cast<Format>(c.fmt))));
  for (unsigned b = 0; b < t.prm.rows / bs; ++b)
    for (unsigned j = 0; j < cols; ++j) t.put_scale(b, c, j, mx_scale(r));
}

const unsigned kTypes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};  // FP32, TF32, BF16, FP16, FP8 x4, E2M1

std::uint32_t random_code(Rng& r, unsigned fmt) {
  if (is_int_format(fmt)) return static_cast<std::uint32_t>(r.next()) & 0xFF;
  const auto& d = numerics::format_info(static_cast<Format>(fmt));
  if (fmt <= 1) {  // FP32/TF32: moderate exponents mostly, specials sometimes
    if (r.chance(0.05)) return static_cast<std::uint32_t>(r.next());
    return (static_cast<std::uint32_t>(r.next()) & 0x807FFFFFu) | (static_cast<std::uint32_t>(r.range(100, 150)) << 23);
  }
  return static_cast<std::uint32_t>(r.next()) & numerics::code_mask(d);
}

/// A sparse load's index metadata (a byte of partition r at c.sc_addr): in each group of N rows,
/// the rows inside the array keep distinct rows of the group, in order, among those the array reads
/// (partition (g M + idx) / q below R); rows at or past `k` get any byte (they are not checked).
void put_sparse_meta(TeBench& t, Rng& r, const Command& c, unsigned k) {
  const unsigned keep = 1u << (c.spm - c.spq), q = 1u << c.spq, R = t.prm.rows;
  for (unsigned g0 = 0; g0 < R; g0 += keep) {
    const unsigned rows = std::min(keep, R - g0);
    std::vector<unsigned> pick(rows * q);
    for (unsigned i = 0; i < pick.size(); ++i) pick[i] = i;
    for (unsigned i = 0; i < rows; ++i) std::swap(pick[i], pick[i + r.below(pick.size() - i)]);
    std::sort(pick.begin(), pick.begin() + rows);
    for (unsigned i = 0; i < rows; ++i)
      t.sbuf[g0 + i].at(c.sc_addr) = static_cast<std::uint8_t>(g0 + i < k ? pick[i] : r.below(256));
  }
}
/// A sparse multiply's moving operand: in every partition, element j holds 1 << spq random codes
/// (lane l: row (p << spq) + l).
void put_sparse_moving(TeBench& t, Rng& r, const Command& c) {
  const unsigned es = mem::dtype_esize(c.fmt) + c.spq, lw = 4u << mem::dtype_esize(c.fmt);
  for (unsigned pp = 0; pp < t.prm.rows; ++pp)
    for (unsigned j = 0; j < c.n; ++j) {
      std::uint32_t word = 0;
      for (unsigned l = 0; l < (1u << c.spq); ++l) word |= random_code(r, c.fmt) << (lw * l);
      mem::store_elem(t.sbuf[pp], mem::base_index(c.addr, es) + j, es, word);
    }
}

}  // namespace

/// Random LoadStationary / MultiplyMoving programs: every type (mixed stationary and moving types
/// too), one, two and four K-rows per PE (FP8 from v3 on, INT8/UINT8, MX on v4), random K, M, N,
/// banks, offsets, overwrite and accumulate, FP32 or (v4) BF16 PSUM entries with RNE or stochastic
/// rounding and seed loads, structured-sparse weights (v3+: every N:M, FP and integer), row groups
/// (two, or four from v3 on: any K of a group, group banks), FP8 biases, the SBUF's latency
/// and stalls as `t` sets them, a random generation; then PSUM against the reference. Commands are issued back to back
/// in batches whose SBUF data sit at distinct addresses (so loads run behind multiplies); between batches the bench
/// waits for completion and rewrites the SBUF.
Task<> random_programs_on(Env& env, TeBench& t) {
  t.gen = static_cast<sv::te_pkg::te_gen_e>(env.rng("gen").below(3));
  co_await t.start();
  auto r = env.rng("program");
  const auto& p = t.prm;
  FunctionalReference ref(p);
  unsigned issued = 0, next_addr = 0;
  const unsigned programs = static_cast<unsigned>(scaled(env_count("TE_PROGRAMS", 6)));
  // SBUF in slots of 4 bytes (room for an element of any type); a tensor of n columns takes n
  // slots, an MX scale tensor n more. alloc returns a byte address.
  const unsigned slots = p.sbuf_bytes / 4;
  auto alloc = [&](unsigned n) -> std::optional<unsigned> {
    if (next_addr + n > slots) return std::nullopt;
    next_addr += n;
    return 4 * (next_addr - n);
  };
  auto bias_of = [&](unsigned fmt) {
    return !is_int_format(fmt) && numerics::format_info(static_cast<Format>(fmt)).adjustable_bias
               ? static_cast<unsigned>(r.range(0, 20))
               : 0u;
  };
  for (unsigned g = 0; g < programs; ++g) {
    // the program's kind: integers (one or two rows per PE), FP8 two rows (v3 and later), MX four
    // rows (v4), or any FP type one row per PE (moving types mixed within each kind)
    const unsigned kind = static_cast<unsigned>(r.below(12));
    if (kind >= 6 && kind < 8 && t.gen != sv::te_pkg::te_gen_e::TeGenV2) {
      // Structured sparsity (v3+): N:M weights (K kept rows and their index metadata), then
      // multiplies that read 1 << spq rows an element; FP or integer, BF16 PSUM sometimes on v4.
      const auto spm = static_cast<unsigned>(r.range(1, 4));
      const auto spq = static_cast<unsigned>(r.range(1, std::min(2u, spm)));
      const bool sint = r.chance(0.3);
      const auto mv_fmt = [&]() -> unsigned {
        static const unsigned two[] = {2, 3, 4, 5, 6, 7, 8}, one[] = {4, 5, 6, 7, 8};
        if (sint) return kInt8 + static_cast<unsigned>(r.below(2));
        return spq == 1 ? two[r.below(7)] : one[r.below(5)];  // (the element holds q rows: at most 4 bytes)
      };
      Command ls{Op::load_stationary};
      ls.fmt = sint ? kInt8 + static_cast<unsigned>(r.below(2)) : kTypes[r.below(9)];
      ls.bias = bias_of(ls.fmt);
      ls.spm = spm;
      ls.spq = spq;
      ls.k = static_cast<unsigned>(r.range(1, p.rows));
      ls.m = static_cast<unsigned>(r.range(1, p.cols));
      std::vector<Command> mm(static_cast<std::size_t>(r.range(1, 3)), Command{Op::multiply_moving});
      unsigned need = ls.m + 1;
      for (auto& c : mm) {
        c.fmt = mv_fmt();
        c.bias = bias_of(c.fmt);
        c.spm = spm;
        c.spq = spq;
        c.n = static_cast<unsigned>(r.range(1, p.max_n));
        c.bank = static_cast<unsigned>(r.below(p.banks));
        c.off = static_cast<unsigned>(r.below(p.depth - c.n + 1));
        c.acc = r.chance(0.5);
        c.pbf = t.gen == sv::te_pkg::te_gen_e::TeGenV4 && !sint && r.chance(0.3);
        c.sr = c.pbf && r.chance(0.5);
        need += c.n;
      }
      if (next_addr + need > slots) {
        co_await t.wait_done(issued);
        next_addr = 0;
      }
      ls.addr = *alloc(ls.m);
      ls.sc_addr = *alloc(1);
      for (unsigned rr = 0; rr < p.rows; ++rr)
        for (unsigned j = 0; j < ls.m; ++j) t.put(rr, ls, j, random_code(r, ls.fmt));
      put_sparse_meta(t, r, ls, ls.k);
      ls.tag = issued++ & 15;
      co_await t.issue(ls);
      ref.run(ls, t.sbuf);
      for (auto& c : mm) {
        c.addr = *alloc(c.n);
        put_sparse_moving(t, r, c);
        c.tag = issued++ & 15;
        co_await t.issue(c);
        ref.run(c, t.sbuf);
      }
      continue;
    }
    const bool ints = kind < 2, fp8_dr = kind >= 2 && kind < 4 && t.gen != sv::te_pkg::te_gen_e::TeGenV2;
    const bool mx4 = kind >= 4 && kind < 6 && t.gen == sv::te_pkg::te_gen_e::TeGenV4;
    const unsigned kpe = ints ? static_cast<unsigned>(r.below(2)) : fp8_dr ? 1u : mx4 ? 2u : 0u;
    const auto draw_fmt = [&] {
      static const unsigned mx_elems[] = {6, 4, 8};  // e4m3fn, e5m2, e2m1
      return ints     ? kInt8 + static_cast<unsigned>(r.below(2))
             : fp8_dr ? 4 + static_cast<unsigned>(r.below(4))
             : mx4    ? mx_elems[r.below(3)]
                      : kTypes[r.below(9)];
    };
    const unsigned wfmt = draw_fmt(), krows = p.rows << kpe;
    // row groups (two on every generation, four from v3 on): independent matmuls of K <= R / G rows
    // each, with no MX, transpose or stochastic rounding, group 0's bank a multiple of G
    const unsigned rg = !mx4 && r.chance(0.25) ? (t.gen == sv::te_pkg::te_gen_e::TeGenV2 ? 1u : r.range(1, 2)) : 0u;
    const bool tr =
        rg == 0 && kpe == 0 && !fp8_dr && r.chance(0.2);  // a transpose program: raw load, then transposing writes
    Command ls{Op::load_stationary};
    ls.tr = tr;
    ls.mx = mx4 || (rg == 0 && !tr && !fp8_dr && is_mx_elem(wfmt) && r.chance(0.6));
    ls.fmt = wfmt;
    ls.bias = bias_of(wfmt);
    ls.kpe = kpe;
    ls.rg = rg;
    ls.k = static_cast<unsigned>(r.range(1, krows >> rg));
    ls.m = static_cast<unsigned>(r.range(1, p.cols));
    const unsigned mms = static_cast<unsigned>(r.range(1, 3));
    std::vector<Command> mm(mms, Command{Op::multiply_moving});
    for (auto& c : mm) {
      c.tr = tr;
      c.kpe = kpe;
      c.fmt = r.chance(0.7) ? wfmt : draw_fmt();
      c.mx = mx4 || (rg == 0 && !tr && !fp8_dr && is_mx_elem(c.fmt) && r.chance(0.6));
      c.bias = bias_of(c.fmt);
      c.rg = rg;
      c.n = static_cast<unsigned>(r.range(1, tr ? ls.k : p.max_n));
      c.bank = static_cast<unsigned>(r.below(p.banks >> rg)) << rg;
      c.off = static_cast<unsigned>(r.below(p.depth - c.n + 1));
      c.acc = r.chance(0.5);
      // BF16 PSUM entries (v4, FP sums), RNE or stochastic; any multiply may reseed the generators
      c.pbf = t.gen == sv::te_pkg::te_gen_e::TeGenV4 && !ints && !tr && r.chance(0.3);
      c.sr = c.pbf && rg == 0 && r.chance(0.5);
      c.seed_ld = r.chance(0.1);
      c.seed = static_cast<std::uint32_t>(r.next());
    }
    unsigned need = ls.mx ? 2 * ls.m : ls.m;
    for (auto& c : mm) need += c.mx ? 2 * c.n : c.n;
    if (next_addr + need > slots) {  // new batch: everything issued must finish first
      co_await t.wait_done(issued);
      next_addr = 0;
    }
    if (r.chance(0.2) && next_addr + need + p.cols <= slots) {
      // A load that is overwritten before use: the next load goes to the bank the previous
      // program's multiplies may still be reading from, and must wait for them.
      Command decoy = load_all(p, 2);
      decoy.addr = *alloc(p.cols);
      for (unsigned rr = 0; rr < p.rows; ++rr)
        for (unsigned j = 0; j < p.cols; ++j) t.put(rr, decoy, j, random_code(r, 2));
      decoy.tag = issued++ & 15;
      co_await t.issue(decoy);
      ref.run(decoy, t.sbuf);
    }
    ls.addr = *alloc(ls.m);
    if (ls.mx) {
      ls.sc_addr = *alloc(ls.m);
      put_mx(t, r, ls, ls.m);
    } else {
      for (unsigned rr = 0; rr < krows; ++rr)
        for (unsigned j = 0; j < ls.m; ++j)  // a transposed FP32 tile: any 32 bits, NaN payloads too
          t.put(rr, ls, j, tr && wfmt == 0 ? static_cast<std::uint32_t>(r.next()) : random_code(r, wfmt));
    }
    ls.tag = issued++ & 15;
    co_await t.issue(ls);
    ref.run(ls, t.sbuf);
    for (auto& c : mm) {
      c.addr = *alloc(c.n);
      if (c.mx) {
        c.sc_addr = *alloc(c.n);
        put_mx(t, r, c, c.n);
      } else {
        for (unsigned rr = 0; rr < krows; ++rr)
          for (unsigned j = 0; j < c.n; ++j) t.put(rr, c, j, random_code(r, c.fmt));
      }
      c.tag = issued++ & 15;
      co_await t.issue(c);
      ref.run(c, t.sbuf);
    }
  }
  co_await t.wait_done(issued);
  check(t.err_count == 0, "{} legal commands were rejected", t.err_count);
  co_await t.compare_psum(ref.psum);
  info("{} commands, PSUM matches the reference", issued);
}

TRN_TEST(random_programs, .timeout_ns = 1e10) {
  TeBench t(env);
  t.p_ready = 0.8;
  t.lat_min = 1;
  t.lat_max = 4;
  co_await random_programs_on(env, t);
}

TRN_TEST(outstanding_reads_at_the_limit, .timeout_ns = 1e10) {
  // The SBUF answers every read after MaxOut + 4 cycles, so the moving stream runs into its limit
  // of MaxOut reads in flight (the other tests answer within 4 cycles, below it): the engine
  // must stop issuing there (the bench checks every issue) and still compute the same PSUM.
  TeBench t(env);
  t.lat_min = t.lat_max = t.prm.max_outstanding + 4;
  co_await random_programs_on(env, t);
  check(t.mv_outstanding_max == t.prm.max_outstanding, "at most {} moving reads were outstanding, want the limit {}",
        t.mv_outstanding_max, t.prm.max_outstanding);
  info("the moving reads in flight reached the limit of {}", t.prm.max_outstanding);
}

TRN_TEST(illegal_commands, .timeout_ns = 1e9) {
  // Each kind of illegal command is answered on err_* and leaves PSUM untouched (on a v2 core: FP8
  // has no double row there, INT8 has).
  TeBench t(env);
  t.gen = sv::te_pkg::te_gen_e::TeGenV2;
  co_await t.start();
  const auto& p = t.prm;
  FunctionalReference ref(p);
  Command mm0{Op::multiply_moving};
  mm0.fmt = 2;
  mm0.n = 1;
  co_await t.issue(mm0);  // no weights loaded yet
  std::vector<std::pair<Command, unsigned>> bad;
  Command c{Op::load_stationary};
  c.fmt = 2;
  c.k = p.rows + 1;
  c.m = 1;
  bad.push_back({c, 1});  // K > R
  c.k = 0;
  bad.push_back({c, 1});  // K = 0
  c.k = 1;
  c.m = 0;
  bad.push_back({c, 1});  // M = 0
  c.m = p.cols + 1;
  bad.push_back({c, 1});  // M > C
  c.m = 1;
  c.fmt = 9;
  bad.push_back({c, 3});  // E8M0 is not a PE type
  c.fmt = 2;
  c.addr = p.sbuf_bytes - 2;
  c.m = 2;
  bad.push_back({c, 2});  // two BF16 elements past the end of SBUF
  c.addr = 1;
  c.m = 1;
  bad.push_back({c, 2});  // BF16 not aligned to 2 bytes
  c.addr = 0;
  c.fmt = 6;
  c.mx = true;
  c.sc_addr = p.sbuf_bytes;
  bad.push_back({c, 2});  // the MX scale tensor past the end of SBUF
  c.sc_addr = 0;
  c.fmt = 2;
  bad.push_back({c, 3});  // MX with a non-MX type (BF16)
  c.fmt = 6;
  c.tr = true;
  bad.push_back({c, 3});  // a transpose of MX data
  c.mx = false;
  c.tr = false;
  c.fmt = 2;
  c.kpe = 1;
  bad.push_back({c, 3});  // two rows per PE of BF16
  c.fmt = 5;
  bad.push_back({c, 3});  // two rows per PE of FP8 on v2
  c.fmt = kInt8;
  c.kpe = 2;
  bad.push_back({c, 3});  // four rows per PE (MX on v4 only)
  c.kpe = 1;
  c.tr = true;
  bad.push_back({c, 3});  // two rows per PE of a transpose
  c.tr = false;
  c.kpe = 0;
  c.mx = true;
  bad.push_back({c, 3});  // MX with an integer type
  c.kpe = 1;
  c.fmt = 6;
  bad.push_back({c, 3});  // MX elements two rows per PE
  c.mx = false;
  c.fmt = kInt8;
  c.k = 2 * p.rows + 1;
  bad.push_back({c, 1});  // K > 2R with two rows per PE
  c.k = 2 * p.rows;
  c.addr = 1;
  bad.push_back({c, 2});  // two rows per PE: a 2-byte element, not aligned
  c.addr = 0;
  c.kpe = 0;
  c.fmt = 2;
  c.k = 1;
  c.spm = 2;
  c.spq = 1;
  bad.push_back({c, 3});  // structured sparsity on v2
  c.spm = c.spq = 0;
  c.k = 1;
  c.kpe = 0;
  c.fmt = 2;
  co_await t.wait_done(1);
  for (auto& [cmd, code] : bad) co_await t.issue(cmd);
  // load legal weights, then bad MultiplyMoving commands
  Command ls = load_all(p, 2);
  co_await t.issue(ls);
  Command m{Op::multiply_moving};
  m.fmt = 2;
  m.n = p.max_n + 1;
  bad.push_back({m, 1});  // N > Nmax
  co_await t.issue(m);
  m.n = 0;
  bad.push_back({m, 1});  // N = 0
  co_await t.issue(m);
  m.n = 1;
  if (p.banks < 16) {  // a 4-bit bank field can name a bank past the end
    m.bank = p.banks;
    bad.push_back({m, 2});  // bank out of range
    co_await t.issue(m);
  }
  m.bank = 0;
  m.off = p.depth - 1;
  m.n = 2;
  bad.push_back({m, 2});  // past the end of the bank
  co_await t.issue(m);
  m.off = 0;
  m.addr = p.sbuf_bytes - 2;
  bad.push_back({m, 2});  // two BF16 moving elements past the end of SBUF
  co_await t.issue(m);
  m.addr = 1;
  m.n = 1;
  bad.push_back({m, 2});  // BF16 moving data not aligned to 2 bytes
  co_await t.issue(m);
  m.addr = 0;
  m.fmt = 6;
  m.mx = true;
  m.sc_addr = p.sbuf_bytes;
  bad.push_back({m, 2});  // the moving MX scale tensor past the end of SBUF
  co_await t.issue(m);
  m.fmt = 2;
  m.mx = false;
  m.sc_addr = 0;
  m.tr = true;
  bad.push_back({m, 5});  // transpose of weights loaded for a multiply
  co_await t.issue(m);
  Command lt{Op::load_stationary};
  lt.fmt = 2;
  lt.k = 1;
  lt.m = p.cols;
  lt.tr = true;
  co_await t.issue(lt);
  m.tr = false;
  bad.push_back({m, 5});  // multiply with weights loaded for a transpose
  co_await t.issue(m);
  m.tr = true;
  m.n = 2;
  bad.push_back({m, 1});  // transpose of more rows than loaded (N > K)
  co_await t.issue(m);
  m.tr = false;
  m.n = 1;
  Command li = load_all(p, kInt8);  // INT8, two rows per PE: legal on v2
  li.kpe = 1;
  li.k = 2 * p.rows;
  co_await t.issue(li);
  m.fmt = kUint8;
  bad.push_back({m, 5});  // one row per PE on two-row weights
  co_await t.issue(m);
  m.fmt = 2;
  m.kpe = 1;
  bad.push_back({m, 3});  // BF16 two rows per PE
  co_await t.issue(m);
  m.fmt = 5;
  bad.push_back({m, 3});  // FP8 two rows per PE on v2
  co_await t.issue(m);
  m.fmt = 2;
  m.kpe = 0;
  bad.push_back({m, 5});  // an FP multiply on integer weights
  co_await t.issue(m);
  m.pbf = true;
  bad.push_back({m, 3});  // BF16 PSUM on v2
  co_await t.issue(m);
  m.pbf = false;
  // on v4: two rows per PE only for the FP8 variants (E5M2 .. E3M4, both ends loaded) and integers
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + 3);
  t.set_gen(sv::te_pkg::te_gen_e::TeGenV4);
  unsigned legal = 3;
  for (unsigned f : {0u, 1u, 2u, 3u, 4u, 7u, 8u}) {
    Command l = load_all(p, f);
    l.kpe = 1;
    if (f == 4 || f == 7) {
      ++legal;
    } else {
      bad.push_back({l, 3});  // FP32, TF32, BF16, FP16, E2M1: no double row
    }
    co_await t.issue(l);
  }
  // four rows per PE: MX on v4 only
  Command q = load_all(p, 6);  // E4M3FN
  q.kpe = 2;
  q.k = 4 * p.rows;
  q.mx = true;
  q.sc_addr = 2;
  bad.push_back({q, 2});  // a four-row load's scale words not 4-aligned
  co_await t.issue(q);
  q.sc_addr = 0;
  q.mx = false;
  bad.push_back({q, 3});  // four rows per PE without MX
  co_await t.issue(q);
  q.mx = true;
  q.k = 4 * p.rows + 1;
  bad.push_back({q, 1});  // K > 4R
  co_await t.issue(q);
  q.k = 4 * p.rows;
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  t.set_gen(sv::te_pkg::te_gen_e::TeGenV3);
  bad.push_back({q, 3});  // MX four rows per PE on v3
  co_await t.issue(q);
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  t.set_gen(sv::te_pkg::te_gen_e::TeGenV4);
  co_await t.issue(q);  // legal: MX E4M3FN, K = 4R
  ++legal;
  Command mq{Op::multiply_moving};
  mq.fmt = 6;
  mq.mx = true;
  mq.kpe = 2;
  mq.n = 1;
  mq.sc_addr = 2;
  bad.push_back({mq, 2});  // the scale words not 4-aligned
  co_await t.issue(mq);
  mq.sc_addr = p.sbuf_bytes - 4;
  mq.n = 5;
  bad.push_back({mq, 2});  // the second scale word past SBUF's end
  co_await t.issue(mq);
  mq.sc_addr = 0;
  mq.n = 1;
  mq.kpe = 0;
  bad.push_back({mq, 5});  // MX one row per PE on four-row weights
  co_await t.issue(mq);
  Command mp{Op::multiply_moving};  // BF16 PSUM: FP sums of a multiply only, stochastic rounding only with it
  mp.fmt = 2;
  mp.n = 1;
  mp.pbf = true;
  mp.tr = true;
  bad.push_back({mp, 3});  // BF16 PSUM entries of a transpose
  co_await t.issue(mp);
  mp.tr = false;
  mp.fmt = kInt8;
  bad.push_back({mp, 3});  // BF16 PSUM entries of integer sums
  co_await t.issue(mp);
  mp.fmt = 2;
  mp.pbf = false;
  mp.sr = true;
  bad.push_back({mp, 3});  // stochastic rounding of FP32 entries
  co_await t.issue(mp);
  // legal: scale addresses a command does not use, and one-row MX scales at an odd byte
  Command lb = load_all(p, 2);
  lb.sc_addr = p.sbuf_bytes + 100;  // BF16: no scales
  co_await t.issue(lb);
  Command lm = load_all(p, 6);
  lm.mx = true;
  lm.sc_addr = 1;  // one row per PE: a byte a column, any byte address
  co_await t.issue(lm);
  legal += 2;
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  Command mb{Op::multiply_moving};  // on lm's weights, into PSUM (compared below)
  mb.fmt = 6;
  mb.mx = true;
  mb.n = 1;
  mb.sc_addr = 1;
  mb.bank = 1;
  co_await t.issue(mb);
  Command mn = mb;  // BF16 on the MX weights: no scales read, whatever sc_addr says; BF16 PSUM, stochastic
  mn.fmt = 2;
  mn.mx = false;
  mn.sc_addr = p.sbuf_bytes + 100;
  mn.bank = 2;
  mn.pbf = mn.sr = mn.seed_ld = true;
  mn.seed = 0x2545F491u;
  co_await t.issue(mn);
  legal += 2;
  ref.run(lb, t.sbuf);
  ref.run(lm, t.sbuf);
  ref.run(mb, t.sbuf);
  ref.run(mn, t.sbuf);
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  // structured sparsity (v4): refused shapes of N:M, types and modes; metadata past SBUF's end;
  // then loads dropped for their metadata when it arrives (code 6), after which a multiply still
  // uses the weights before them; a dense multiply on sparse weights
  Command sl = load_all(p, 2);
  sl.spm = 2;
  const unsigned meta = p.sbuf_bytes - 4;  // the metadata bytes of these loads
  sl.sc_addr = meta;
  for (const auto& [spm, spq, why] :
       std::vector<std::tuple<unsigned, unsigned, const char*>>{{2, 0, "M without N"},
                                                                {2, 3, "spq 3"},
                                                                {5, 1, "M = 32"},
                                                                {1, 2, "N below 1 (M 2, a quarter)"},
                                                                {0, 1, "spq without M"}}) {
    sl.spm = spm;
    sl.spq = spq;
    bad.push_back({sl, 3});
    co_await t.issue(sl);
  }
  sl.spm = 2;
  sl.spq = 1;
  sl.fmt = 6;
  sl.mx = true;
  bad.push_back({sl, 3});  // sparse MX weights
  co_await t.issue(sl);
  sl.mx = false;
  sl.fmt = 2;
  sl.tr = true;
  bad.push_back({sl, 3});  // a sparse transpose
  co_await t.issue(sl);
  sl.tr = false;
  sl.fmt = kInt8;
  sl.kpe = 1;
  bad.push_back({sl, 3});  // sparse with two rows per PE
  co_await t.issue(sl);
  sl.kpe = 0;
  sl.fmt = 2;
  sl.sc_addr = p.sbuf_bytes;
  bad.push_back({sl, 2});  // the metadata past SBUF's end
  co_await t.issue(sl);
  sl.sc_addr = meta;
  Command sm{Op::multiply_moving};
  sm.fmt = 2;
  sm.n = 1;
  sm.spm = 2;
  sm.spq = 2;
  bad.push_back({sm, 3});  // BF16 four rows an element: 8 bytes
  co_await t.issue(sm);
  sm.fmt = 0;
  sm.spq = 1;
  bad.push_back({sm, 3});  // FP32 two rows an element: 8 bytes
  co_await t.issue(sm);
  // metadata (2:4: groups of two rows): each of these drops its load
  std::vector<std::vector<unsigned>> metas = {{1, 1, 0, 1}, {0, 4, 0, 1}, {2, 1, 0, 1}};
  if (p.rows < 8) metas.push_back({0, 1, 2, 9});  // 8:16 in 4 rows: row 9 is in partition 4, past R
  for (const auto& mi : metas) {
    for (unsigned rr = 0; rr < p.rows; ++rr) t.sbuf[rr].at(meta) = static_cast<std::uint8_t>(mi[rr % 4]);
    sl.spm = mi[3] == 9 ? 4 : 2;
    sl.k = std::min(p.rows, 4u);
    bad.push_back({sl, 6});
    co_await t.issue(sl);
    co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);  // (before the bytes change)
  }
  Command md = mb;  // the MX weights of lm are still the ones in use
  md.bank = 3;
  co_await t.issue(md);
  ref.run(md, t.sbuf);
  ++legal;
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  // legal sparse weights (2:4: rows 1 and 2 of each group of four), a dense multiply on them
  // refused, a sparse one into bank 4
  for (unsigned rr = 0; rr < p.rows; ++rr) t.sbuf[rr].at(meta) = static_cast<std::uint8_t>(rr % 2 == 0 ? 1 : 2);
  sl.spm = 2;
  sl.k = p.rows;
  for (unsigned rr = 0; rr < p.rows; ++rr)
    for (unsigned j = 0; j < p.cols; ++j) t.put(rr, sl, j, 0x3F80 + rr + 16 * j);
  co_await t.issue(sl);
  ref.run(sl, t.sbuf);
  Command dn{Op::multiply_moving};
  dn.fmt = 2;
  dn.n = 1;
  bad.push_back({dn, 5});  // a dense multiply on sparse weights
  co_await t.issue(dn);
  Command sp{Op::multiply_moving};
  sp.fmt = 2;
  sp.n = 2;
  sp.spm = 2;
  sp.spq = 1;
  sp.addr = 64;
  sp.bank = 4;
  for (unsigned rr = 0; rr < p.rows; ++rr)
    for (unsigned j = 0; j < 2; ++j) mem::store_elem(t.sbuf[rr], 16 + j, 3, 0x3F803F80u + 0x10001u * (rr + j));
  co_await t.issue(sp);
  ref.run(sp, t.sbuf);
  legal += 2;
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  // row groups: refused kinds, shapes and banks; then a multiply whose groups differ from its weights'
  Command gl = load_all(p, 2);
  gl.rg = 3;
  bad.push_back({gl, 3});  // rg 3 is reserved
  gl.rg = 1;
  gl.k = p.rows / 2 + 1;
  bad.push_back({gl, 1});  // K past its group of R / 2
  gl.k = p.rows / 2;
  gl.fmt = 6;
  gl.mx = true;
  bad.push_back({gl, 3});  // MX in row groups
  gl.mx = false;
  gl.fmt = 2;
  gl.spm = 2;
  gl.spq = 1;
  gl.sc_addr = meta;
  bad.push_back({gl, 3});  // sparse in row groups
  gl.spm = gl.spq = 0;
  gl.tr = true;
  bad.push_back({gl, 3});  // a transpose in row groups
  gl.tr = false;
  for (std::size_t i = bad.size() - 5; i < bad.size(); ++i) co_await t.issue(bad[i].first);
  t.set_gen(sv::te_pkg::te_gen_e::TeGenV2);
  gl.rg = 2;
  gl.k = 1;
  bad.push_back({gl, 3});  // four groups on v2
  co_await t.issue(gl);
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  t.set_gen(sv::te_pkg::te_gen_e::TeGenV4);
  gl.rg = 1;
  gl.k = p.rows / 2;
  for (unsigned rr = 0; rr < p.rows; ++rr)
    for (unsigned j = 0; j < p.cols; ++j) t.put(rr, gl, j, 0x3F80 + 3 * rr + j);
  co_await t.issue(gl);  // legal: two groups of R / 2 rows
  ref.run(gl, t.sbuf);
  Command gm{Op::multiply_moving};
  gm.fmt = 2;
  gm.n = 2;
  gm.addr = 64;
  gm.rg = 1;
  gm.bank = 1;
  bad.push_back({gm, 2});  // group 0's bank not a multiple of two
  gm.bank = p.banks;
  bad.push_back({gm, 2});  // past PSUM's banks
  gm.bank = p.banks - 2;
  gm.rg = 0;
  bad.push_back({gm, 5});  // a multiply of the whole array on weights in two groups
  gm.rg = 1;
  gm.sr = gm.pbf = true;
  bad.push_back({gm, 3});  // stochastic rounding in row groups
  gm.sr = gm.pbf = false;
  for (std::size_t i = bad.size() - 4; i < bad.size(); ++i) co_await t.issue(bad[i].first);
  co_await t.issue(gm);  // legal: the last two banks
  ref.run(gm, t.sbuf);
  legal += 2;
  co_await t.wait_done(1 + static_cast<unsigned>(bad.size()) + legal);
  check(t.err_count == bad.size() + 1 && t.done_count == legal,
        "{} rejections for {} illegal commands, {} of {} legal ones done", t.err_count, bad.size() + 1, t.done_count,
        legal);
  check(t.err_codes[0] == 4, "MultiplyMoving without weights: code {}", t.err_codes[0]);
  for (std::size_t i = 0; i < bad.size(); ++i)
    check(t.err_codes[i + 1] == bad[i].second, "illegal command {}: code {}, expected {}", i, t.err_codes[i + 1],
          bad[i].second);
  for (int k = 0; k < 20; ++k) co_await t.cycle();
  co_await t.compare_psum(ref.psum);  // only the legal multiplies' results: no illegal command wrote
}

namespace {
/// Commands issued to the bench and applied to the functional reference beside it.
struct RefRun {
  TeBench& t;
  FunctionalReference ref;
  unsigned issued = 0;
  explicit RefRun(TeBench& tb) : t(tb), ref(tb.prm) {}
  Task<> issue(Command c) {
    c.tag = issued++ & 15;
    co_await t.issue(c);
    ref.run(c, t.sbuf);
  }
  /// One command alone: its cycles from accept to done (everything issued before it done first).
  Task<std::uint64_t> timed(Command c) {
    co_await issue(c);
    const std::uint64_t t0 = t.clk.cycle();
    co_await t.wait_done(issued);
    co_return t.clk.cycle() - t0;
  }
  /// The cycles of a dense BF16 multiply of K = R, M = C, N = Nmax on random data (weights at byte 0,
  /// the moving operand after them), the yardstick other multiplies are timed against.
  Task<std::uint64_t> dense(Rng& r) {
    const auto& p = t.prm;
    Command ls = load_all(p, 2);
    Command mm{Op::multiply_moving};
    mm.fmt = 2;
    mm.n = p.max_n;
    mm.addr = 4 * p.cols;
    for (unsigned rr = 0; rr < p.rows; ++rr) {
      for (unsigned j = 0; j < p.cols; ++j) t.put(rr, ls, j, random_code(r, 2));
      for (unsigned j = 0; j < mm.n; ++j) t.put(rr, mm, j, random_code(r, 2));
    }
    co_await issue(ls);
    co_return co_await timed(mm);
  }
};
}  // namespace

TRN_TEST(sparse_matmul, .timeout_ns = 1e10) {
  // Structured sparsity (v3): every N:M (1:2 .. 8:16 at half, 1:4 .. 4:16 at a quarter), FP and
  // integer, K = R kept rows with random valid metadata, N = Nmax columns; PSUM against the
  // reference (the dense matmul of the kept rows in K order). Each sparse multiply covers K = (M / N)
  // R rows of the moving operand in the cycles a dense multiply of K = R takes: its time from
  // dispatch to done must be the dense multiply's within 2 cycles.
  TeBench t(env);
  t.gen = sv::te_pkg::te_gen_e::TeGenV3;
  co_await t.start();
  const auto& p = t.prm;
  RefRun run(t);
  auto r = env.rng("data");
  const std::uint64_t dense = co_await run.dense(r);
  unsigned bank = 1;
  for (unsigned spm = 1; spm <= 4; ++spm)
    for (unsigned spq = 1; spq <= std::min(2u, spm); ++spq)
      for (const bool ints : {false, true}) {
        const unsigned keep = 1u << (spm - spq), q = 1u << spq;
        const unsigned wfmt = ints ? kInt8 : 2, xfmt = ints ? kUint8 : spq == 1 ? 2u : 5u;  // BF16 / E4M3
        Command ls = load_all(p, wfmt);
        ls.spm = spm;
        ls.spq = spq;
        ls.sc_addr = p.sbuf_bytes - 4;
        for (unsigned rr = 0; rr < p.rows; ++rr)
          for (unsigned j = 0; j < p.cols; ++j) t.put(rr, ls, j, random_code(r, wfmt));
        put_sparse_meta(t, r, ls, p.rows);
        co_await run.issue(ls);
        Command mm{Op::multiply_moving};
        mm.fmt = xfmt;
        mm.spm = spm;
        mm.spq = spq;
        mm.n = p.max_n;
        mm.addr = 4 * (p.cols + p.max_n);
        mm.bank = bank++ % p.banks;
        mm.bias = ints ? 0 : 7;
        put_sparse_moving(t, r, mm);
        const std::uint64_t cyc = co_await run.timed(mm);
        check(cyc <= dense + 2 && cyc + 2 >= dense, "{}:{} {}: {} cycles for K = {} rows, the dense K = {}: {}", keep,
              1u << spm, ints ? "int" : "fp", cyc, q * p.rows, p.rows, dense);
        co_await t.compare_psum(run.ref.psum, mm.bank, mm.bank + 1);
        info("{}:{} {}: K = {} rows in {} cycles (dense K = {}: {}), PSUM matches the reference", keep, 1u << spm,
             ints ? "int" : "fp", q * p.rows, cyc, p.rows, dense);
      }
  check(t.err_count == 0, "{} legal commands were rejected", t.err_count);
}

TRN_TEST(row_groups, .timeout_ns = 1e10) {
  // Row groups (v3): G = 2 and 4 independent matmuls of K = R / G rows each (BF16 one row a PE,
  // FP8 and INT8 two), each group on its own partitions with its own weights, in one multiply: its
  // cycles from dispatch to done must be a dense multiply's within 2 (G matmuls in the time of one),
  // the G results (banks 0 .. G - 1) bit-exact against the reference's G separate matmuls. Then a
  // dense multiply and row-grouped ones accumulating into the same PSUM entries back to back: a
  // later group's tap would overtake an earlier column's write unless a multiply of other groups
  // waits for the array to drain; the reference applies them in program order. (Each pair: a long
  // multiply, then a short one whose first column accumulates onto its last column's entry, in
  // a bank the earlier writes from a lower row: without the wait the later write lands first.)
  TeBench t(env);
  t.gen = sv::te_pkg::te_gen_e::TeGenV3;
  co_await t.start();
  const auto& p = t.prm;
  RefRun run(t);
  auto r = env.rng("data");
  // weights of K rows (one or two a PE) in every group, and a moving operand of N columns, in
  // SBUF region `at` (each command of a back-to-back stream has its own)
  const unsigned region = 4 * (p.cols + p.max_n);
  const auto weights = [&](unsigned fmt, unsigned kpe, unsigned rg, unsigned at = 0) {
    Command ls = load_all(p, fmt, at * region);
    ls.kpe = kpe;
    ls.rg = rg;
    ls.k = (p.rows >> rg) << kpe;
    for (unsigned rr = 0; rr < p.rows << kpe; ++rr)
      for (unsigned j = 0; j < p.cols; ++j) t.put(rr, ls, j, random_code(r, fmt));
    return ls;
  };
  const auto moving = [&](unsigned fmt, unsigned kpe, unsigned rg, unsigned bank, bool acc, unsigned at = 0) {
    Command mm{Op::multiply_moving};
    mm.fmt = fmt;
    mm.kpe = kpe;
    mm.rg = rg;
    mm.n = p.max_n;
    mm.addr = at * region + 4 * p.cols;
    mm.bank = bank;
    mm.acc = acc;
    for (unsigned rr = 0; rr < p.rows << kpe; ++rr)
      for (unsigned j = 0; j < mm.n; ++j) t.put(rr, mm, j, random_code(r, fmt));
    return mm;
  };
  const std::uint64_t dense = co_await run.dense(r);
  struct Kind {
    const char* name;
    unsigned wfmt, xfmt, kpe;
  };
  for (unsigned rg = 1; rg <= 2; ++rg)
    for (const Kind& k : {Kind{"bf16", 2, 2, 0}, Kind{"fp8", 5, 4, 1}, Kind{"int8", kInt8, kUint8, 1}}) {
      const unsigned groups = 1u << rg, krows = (p.rows >> rg) << k.kpe;
      co_await run.issue(weights(k.wfmt, k.kpe, rg));
      const std::uint64_t cyc = co_await run.timed(moving(k.xfmt, k.kpe, rg, 0, false));
      check(cyc <= dense + 2 && cyc + 2 >= dense, "{} groups {}: {} cycles, a dense multiply {}", groups, k.name, cyc,
            dense);
      co_await t.compare_psum(run.ref.psum, 0, groups);
      const double macs = static_cast<double>(groups) * krows * p.cols * p.max_n;
      info("{} groups of K = {} {}: {} matmuls in {} cycles (a dense multiply: {}), {:.1f} MACs/cycle; PSUM matches",
           groups, krows, k.name, groups, cyc, dense, macs / static_cast<double>(cyc));
    }
  // program order across groupings: pairs (earlier, later) of row groups (log2), issued back to back
  for (const auto& [g0, g1] : std::vector<std::pair<unsigned, unsigned>>{{0, 1}, {1, 2}, {0, 2}, {2, 1}, {2, 0}}) {
    co_await run.issue(weights(2, 0, g0, 0));
    Command first = moving(2, 0, g0, 0, false, 0);
    first.n = p.max_n - 1;  // entries 0 .. Nmax - 2
    co_await run.issue(first);
    co_await run.issue(weights(2, 0, g1, 1));
    Command second = moving(2, 0, g1, 0, true, 1);
    second.n = 2;
    second.off = p.max_n - 2;  // its first column onto the first multiply's last entry
    co_await run.issue(second);
    co_await t.wait_done(run.issued);
    co_await t.compare_psum(run.ref.psum);
    info("{} then {} groups, the second's first column onto the first's last entry: PSUM matches", 1u << g0, 1u << g1);
  }
  check(t.err_count == 0, "{} legal commands were rejected", t.err_count);
}

TRN_TEST(bf16_psum_rounding, .timeout_ns = 1e10) {
  // BF16 PSUM entries (v4) hold x rounded once, for FP32 moving values x times a weight of 1.0 (K =
  // 1): x = 1 + f ulp between its BF16 neighbours lo = 1 and hi = 1 + ulp (ulp = 2^-7). RNE entries
  // must be the nearest (the tie f = 1/2 to even, lo); stochastic ones lo or hi, hi with
  // probability f: over every entry of f = 1/4 in every bank the count of hi must lie within 5
  // sigma of a quarter. A reseed with the same seed repeats the entries bit for bit, another seed
  // changes them. PSUM against the reference throughout.
  TeBench t(env);
  t.gen = sv::te_pkg::te_gen_e::TeGenV4;
  co_await t.start();
  const auto& p = t.prm;
  FunctionalReference ref(p);
  unsigned issued = 0;
  Command ls = load_all(p, 2);
  ls.k = 1;
  for (unsigned j = 0; j < p.cols; ++j) t.put(0, ls, j, 0x3F80);  // 1.0
  co_await t.issue(ls);
  ref.run(ls, t.sbuf);
  ++issued;
  constexpr std::uint32_t kOne = 0x3F800000u, kLo = 0x3F800000u, kHi = 0x3F810000u;
  // RNE: one column per fraction (f in 1/65536 ulp), the expected entry beside it
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> rne = {
      {0x0000, kLo}, {0x0001, kLo}, {0x4000, kLo}, {0x7FFF, kLo}, {0x8000, kLo}, {0x8001, kHi}, {0xC000, kHi}};
  Command m{Op::multiply_moving};
  m.fmt = 0;
  m.addr = 4 * p.cols;
  m.n = std::min<unsigned>(p.max_n, static_cast<unsigned>(rne.size()));
  m.pbf = true;
  for (unsigned j = 0; j < m.n; ++j) t.put(0, m, j, kOne | rne[j].first);
  m.tag = issued++ & 15;
  co_await t.issue(m);
  ref.run(m, t.sbuf);
  co_await t.wait_done(issued);
  co_await t.compare_psum(ref.psum);
  for (unsigned j = 0; j < m.n; ++j)
    for (unsigned c = 0; c < p.cols; ++c)
      check(ref.psum[static_cast<std::size_t>(c) * p.depth + j] == rne[j].second,
            "RNE: 1 + {:#06x}/65536 ulp in partition {}: {:#010x}, expected {:#010x}", rne[j].first, c,
            ref.psum[static_cast<std::size_t>(c) * p.depth + j], rne[j].second);
  // stochastic: f = 1/4 in every column of every bank, seeded once
  Command q = m;
  q.addr = 4 * (p.cols + p.max_n);
  q.n = p.max_n;
  q.sr = true;
  for (unsigned j = 0; j < q.n; ++j) t.put(0, q, j, kOne | 0x4000);
  const auto sweep = [&](std::uint32_t seed) -> Task<std::vector<std::uint32_t>> {
    for (unsigned b = 0; b < p.banks; ++b) {
      q.bank = b;
      q.seed_ld = b == 0;
      q.seed = seed;
      q.tag = issued++ & 15;
      co_await t.issue(q);
      ref.run(q, t.sbuf);
    }
    co_await t.wait_done(issued);
    co_await t.compare_psum(ref.psum);
    co_return ref.psum;
  };
  const std::vector<std::uint32_t> a = co_await sweep(0x1234567u);
  std::uint64_t hi = 0, all = 0;
  for (unsigned b = 0; b < p.banks; ++b)
    for (unsigned c = 0; c < p.cols; ++c)
      for (unsigned j = 0; j < q.n; ++j) {
        const std::uint32_t v = a[(static_cast<std::size_t>(b) * p.cols + c) * p.depth + j];
        check(v == kLo || v == kHi, "SR: bank {} partition {} element {}: {:#010x}, neither neighbour", b, c, j, v);
        hi += v == kHi;
        ++all;
      }
  const double mean = 0.25 * static_cast<double>(all), sigma = std::sqrt(static_cast<double>(all) * 0.25 * 0.75);
  check(std::abs(static_cast<double>(hi) - mean) <= 5 * sigma,
        "SR: {} of {} entries rounded up, expected {:.0f} +- {:.0f}", hi, all, mean, 5 * sigma);
  const std::vector<std::uint32_t> same = co_await sweep(0x1234567u);
  check(same == a, "SR: the same seed gave other entries");
  const std::vector<std::uint32_t> other = co_await sweep(0x89ABCDEu);
  check(other != a, "SR: another seed gave the same entries");
  // A generator steps only for the entries it rounds: weights of M = C - 1 leave the last partition
  // unwritten (its generator must not step), a multiply on all C partitions then uses it. A seed
  // load issued right behind that multiply waits for the array to drain, its seed taking effect
  // after the last entry before it.
  Command narrow = ls;
  narrow.m = p.cols - 1;
  for (const Command& c : {narrow, ls}) {
    co_await t.issue(c);
    ref.run(c, t.sbuf);
    ++issued;
    q.bank = 1;
    q.seed_ld = false;
    q.tag = issued++ & 15;
    co_await t.issue(q);
    ref.run(q, t.sbuf);
  }
  q.bank = 2;
  q.seed_ld = true;
  q.seed = 0x5EED;
  q.tag = issued++ & 15;
  co_await t.issue(q);
  ref.run(q, t.sbuf);
  co_await t.wait_done(issued);
  co_await t.compare_psum(ref.psum);
  info("RNE entries the nearest; SR: {} of {} entries up (expected {:.0f}), repeatable by seed", hi, all, mean);
}

TRN_TEST(integer_wrap, .timeout_ns = 1e9) {
  // INT8 / UINT8 two rows per PE into INT32 PSUM: PSUM bank 0 preset through the engines' write
  // port to INT32_MAX - 15, then a multiply of all-127 INT8 operands (K = 2R) accumulates onto it
  // and must wrap to a negative sum; UINT8 255 weights times INT8 -128 moving values overwrite bank
  // 1 with the exact negative sum. PSUM against the reference, and the wrapped value by hand.
  TeBench t(env);
  t.gen = sv::te_pkg::te_gen_e::TeGenV2;  // INT8's two rows per PE run on every generation
  co_await t.start();
  const auto& p = t.prm;
  FunctionalReference ref(p);
  const unsigned n = std::min(4u, p.max_n);
  Signal& pe_valid = env.sig("pe_valid_i");
  for (unsigned off = 0; off < n; ++off) {
    TensorEngine::In in = t.model.make_in();
    in.pe_valid_i = true;
    in.pe_i.bank = 0;
    in.pe_i.off = static_cast<std::uint16_t>(off);
    for (unsigned c = 0; c < p.cols; ++c) {
      in.pe_mask_i.set_bit(c, true);
      in.pe_data_i.set_slice(32 * c, 32, 0x7FFFFFF0u);
    }
    drive_inputs(env, t.model, in, "pe_");
    co_await t.cycle();  // nothing else writes PSUM: accepted at once
    ref.engine_write(0, off, in.pe_mask_i, in.pe_data_i);
  }
  pe_valid.set(0);
  unsigned issued = 0;
  for (const auto& [wf, wcode, xf, xcode, acc] :
       {std::tuple{kInt8, 0x7Fu, kInt8, 0x7Fu, true}, std::tuple{kUint8, 0xFFu, kInt8, 0x80u, false}}) {
    co_await t.wait_done(issued);
    Command ls = load_all(p, wf);
    ls.kpe = 1;
    ls.k = 2 * p.rows;
    Command mm{Op::multiply_moving};
    mm.fmt = xf;
    mm.kpe = 1;
    mm.n = n;
    mm.addr = 4 * p.cols;
    mm.bank = acc ? 0 : 1;
    mm.acc = acc;
    for (unsigned k = 0; k < 2 * p.rows; ++k) {
      for (unsigned j = 0; j < p.cols; ++j) t.put(k, ls, j, wcode);
      for (unsigned j = 0; j < n; ++j) t.put(k, mm, j, xcode);
    }
    for (Command* c : {&ls, &mm}) {
      c->tag = issued++ & 15;
      co_await t.issue(*c);
      ref.run(*c, t.sbuf);
    }
  }
  co_await t.wait_done(issued);
  check(t.err_count == 0, "{} commands rejected", t.err_count);
  const std::uint32_t wrapped = 0x7FFFFFF0u + 2 * p.rows * 127u * 127u;
  const auto negative = static_cast<std::uint32_t>(-static_cast<std::int64_t>(2 * p.rows) * 255 * 128);
  check(ref.psum[0] == wrapped && static_cast<std::int32_t>(wrapped) < 0, "reference: {:#010x}, want {:#010x}",
        ref.psum[0], wrapped);
  check(ref.psum[static_cast<std::size_t>(p.cols) * p.depth] == negative, "reference: {:#010x}, want {:#010x}",
        ref.psum[static_cast<std::size_t>(p.cols) * p.depth], negative);
  co_await t.compare_psum(ref.psum);
  info("INT32 PSUM wrapped to {} and took the exact negative sum {}", static_cast<std::int32_t>(wrapped),
       static_cast<std::int32_t>(negative));
}

TRN_TEST(transpose_every_type, .timeout_ns = 1e9) {
  // Every type: a [K, M] tile of raw codes (FP32: any 32 bits, NaN payloads and -0 included)
  // loaded for a transpose and written to PSUM as [M, K], bit for bit.
  TeBench t(env);
  t.p_ready = 0.6;
  t.lat_max = 3;
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("tiles");
  FunctionalReference ref(p);
  unsigned issued = 0;
  for (unsigned fmt : kTypes) {
    Command ls = load_all(p, fmt);
    ls.tr = true;
    ls.addr = 0;
    co_await t.wait_done(issued);
    for (unsigned rr = 0; rr < p.rows; ++rr)
      for (unsigned j = 0; j < ls.m; ++j)
        t.put(rr, ls, j, fmt == 0 ? static_cast<std::uint32_t>(r.next()) : random_code(r, fmt));
    t.put(0, ls, 0, fmt == 0 ? 0x7FA12345u : numerics::nan_code(numerics::format_info(static_cast<Format>(fmt))));
    ls.tag = issued++ & 15;
    co_await t.issue(ls);
    ref.run(ls, t.sbuf);
    Command mm{Op::multiply_moving};
    mm.fmt = fmt;
    mm.n = p.rows;
    mm.tr = true;
    mm.bank = fmt % p.banks;
    mm.off = static_cast<unsigned>(r.below(p.depth - p.rows + 1));
    mm.tag = issued++ & 15;
    co_await t.issue(mm);
    ref.run(mm, t.sbuf);
  }
  co_await t.wait_done(issued);
  check(t.err_count == 0, "{} transposes rejected", t.err_count);
  co_await t.compare_psum(ref.psum);
}

TRN_TEST(every_type_x_psum, .timeout_ns = 1e10) {
  // Every operand type on both sides, overwriting and accumulating: for each type (the MX element
  // types also with block scales) a load of random codes, then a multiply of the same type that
  // overwrites a PSUM region and one that accumulates onto it. Random programs reach each pairing
  // only by chance (about one multiply in sixty is a given plain FP8 type overwriting); this sweeps
  // them all. PSUM against the reference at the end.
  TeBench t(env);
  t.p_ready = 0.7;
  t.lat_max = 3;
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("types");
  FunctionalReference ref(p);
  unsigned issued = 0, multiplies = 0;
  for (unsigned fmt : kTypes)
    for (bool mx : {false, true}) {
      if (mx && !is_mx_elem(fmt)) continue;
      co_await t.wait_done(issued);
      Command ls = load_all(p, fmt);
      ls.mx = mx;
      Command mm{Op::multiply_moving};
      mm.fmt = fmt;
      mm.mx = mx;
      mm.n = std::min(p.max_n, p.depth);
      mm.bank = multiplies / 2 % p.banks;
      // byte addresses as in mx_blocks: weights, their scales, moving data, its scales
      ls.sc_addr = 4 * p.cols;
      mm.addr = 8 * p.cols;
      mm.sc_addr = 8 * p.cols + 4 * p.max_n;
      if (mx) {
        put_mx(t, r, ls, p.cols);
        put_mx(t, r, mm, mm.n);
      } else {
        for (unsigned rr = 0; rr < p.rows; ++rr) {
          for (unsigned j = 0; j < p.cols; ++j) t.put(rr, ls, j, random_code(r, fmt));
          for (unsigned j = 0; j < mm.n; ++j) t.put(rr, mm, j, random_code(r, fmt));
        }
      }
      ls.tag = issued++ & 15;
      co_await t.issue(ls);
      ref.run(ls, t.sbuf);
      for (bool acc : {false, true}) {
        mm.acc = acc;
        mm.tag = issued++ & 15;
        co_await t.issue(mm);
        ref.run(mm, t.sbuf);
        ++multiplies;
      }
    }
  co_await t.wait_done(issued);
  check(t.err_count == 0, "{} commands rejected", t.err_count);
  co_await t.compare_psum(ref.psum);
  info("{} multiplies over every type, overwrite and accumulate", multiplies);
}

TRN_TEST(mx_blocks, .timeout_ns = 1e10) {
  // MXFP8 (E4M3FN, E5M2) and MXFP4 (E2M1) in every pairing, MX with a plain BF16 side, block
  // scales from 2^-127 to 2^127 and NaN: PSUM against the reference, and a NaN scale must give NaN.
  TeBench t(env);
  t.p_ready = 0.8;
  t.lat_max = 3;
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("mx");
  FunctionalReference ref(p);
  const unsigned elems[] = {6, 4, 8};  // e4m3fn, e5m2, e2m1
  unsigned issued = 0, nan_outputs = 0;
  for (unsigned wf : elems)
    for (unsigned xf : {6u, 4u, 8u, 2u}) {
      co_await t.wait_done(issued);
      Command ls = load_all(p, wf);
      ls.mx = true;
      ls.addr = 0;
      Command mm{Op::multiply_moving};
      mm.fmt = xf;
      mm.mx = xf != 2;
      mm.n = p.max_n;
      // byte addresses: weights, their scales, moving data, its scales (4 bytes per column: room for any type)
      ls.sc_addr = 4 * p.cols;
      mm.addr = 8 * p.cols;
      mm.sc_addr = 8 * p.cols + 4 * p.max_n;
      mm.bank = issued / 2 % p.banks;
      put_mx(t, r, ls, p.cols);
      if (mm.mx) {
        put_mx(t, r, mm, mm.n);
        t.put_scale(0, mm, 0, 0xFF);  // a NaN scale for moving column 0
      } else {
        for (unsigned rr = 0; rr < p.rows; ++rr)
          for (unsigned j = 0; j < mm.n; ++j) t.put(rr, mm, j, random_code(r, xf));
      }
      ls.tag = issued++ & 15;
      co_await t.issue(ls);
      ref.run(ls, t.sbuf);
      mm.tag = issued++ & 15;
      co_await t.issue(mm);
      ref.run(mm, t.sbuf);
      if (mm.mx) {
        const std::uint32_t v = ref.psum[(static_cast<std::size_t>(mm.bank) * p.cols) * p.depth];
        check(v == numerics::kCanonicalNaN, "{} x {}: a NaN block scale gave {:#010x} in the reference", wf, xf, v);
        ++nan_outputs;
      }
    }
  co_await t.wait_done(issued);
  check(t.err_count == 0, "{} MX commands rejected", t.err_count);
  co_await t.compare_psum(ref.psum);
  info("{} MX matmuls over every element pairing match the reference; {} NaN-scale columns", issued / 2, nan_outputs);
}

TRN_TEST(mx_four_rows, .timeout_ns = 1e10) {
  // MX four K-rows per PE (v4): every element pairing (E4M3FN, E5M2, E2M1 on each side), K = 4R
  // and K = 4R - 3 (a PE's lanes partly past K), blocks of 8 partitions with scales from 2^-127
  // to 2^127 and NaN, the multiply's scales read four columns a word on the sx_ port: PSUM
  // against the reference.
  TeBench t(env);
  t.p_ready = 0.8;
  t.lat_max = 3;
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("mx4");
  FunctionalReference ref(p);
  unsigned issued = 0;
  for (unsigned wf : {6u, 4u, 8u})
    for (unsigned xf : {6u, 4u, 8u})
      for (unsigned k : {4 * p.rows, 4 * p.rows - 3}) {
        co_await t.wait_done(issued);
        Command ls = load_all(p, wf);
        ls.mx = true;
        ls.kpe = 2;
        ls.k = k;
        Command mm{Op::multiply_moving};
        mm.fmt = xf;
        mm.mx = true;
        mm.kpe = 2;
        mm.n = p.max_n;
        // byte addresses: weights, their scales, moving data, its scales (4-aligned)
        ls.sc_addr = 4 * p.cols;
        mm.addr = 8 * p.cols;
        mm.sc_addr = 8 * p.cols + 4 * p.max_n;
        mm.bank = issued / 2 % p.banks;
        mm.acc = issued % 4 == 2;
        put_mx(t, r, ls, p.cols);
        put_mx(t, r, mm, mm.n);
        for (Command* c : {&ls, &mm}) {
          c->tag = issued++ & 15;
          co_await t.issue(*c);
          ref.run(*c, t.sbuf);
        }
      }
  co_await t.wait_done(issued);
  check(t.err_count == 0, "{} MX commands rejected", t.err_count);
  co_await t.compare_psum(ref.psum);
  info("{} four-row MX matmuls over every element pairing match the reference", issued / 2);
}

TRN_TEST(bank_reuse_waits_for_issuing_multiply, .timeout_ns = 1e9) {
  // LS0 (bank 0), MM_A on bank 0 whose reads stall long enough for its issued columns to leave the
  // array, LS1 (bank 1, never used) and LS2 (bank 0 again): LS2 must wait until MM_A has issued and
  // finished every column, or MM_A's later columns would use LS2's weights. PSUM against the
  // reference, which gives MM_A the first weights.
  TeBench t(env);
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("data");
  t.fill(2, [&] { return random_code(r, 2); });
  FunctionalReference ref(p);
  Command ls = load_all(p, 2);
  Command mm{Op::multiply_moving};
  mm.fmt = 2;
  mm.n = p.max_n;
  mm.addr = 2 * 3 * p.cols;  // BF16: element 3C
  ls.tag = 0;
  co_await t.issue(ls);
  ref.run(ls, t.sbuf);
  mm.tag = 1;
  co_await t.issue(mm);
  ref.run(mm, t.sbuf);
  for (int k = 0; k < 2; ++k) co_await t.cycle();  // a few moving reads go out
  t.mv_blocked = true;
  TaskGroup g;
  auto release = [](TeBench& tb, unsigned cycles) -> Task<> {
    co_await ClockCycles(tb.clk.signal(), cycles);
    tb.mv_blocked = false;
  };
  (void)g.start(release(t, 4 * (p.rows + p.cols) + 20));
  Command ls1 = ls, ls2 = ls;
  ls1.addr = 2 * p.cols;
  ls1.tag = 2;
  ls2.addr = 2 * 2 * p.cols;
  ls2.tag = 3;
  co_await t.issue(ls1);
  ref.run(ls1, t.sbuf);
  co_await t.issue(ls2);  // must not be taken while MM_A still has reads to issue
  ref.run(ls2, t.sbuf);
  co_await t.wait_done(4);
  co_await t.compare_psum(ref.psum, 0, 1, 0, p.max_n);
}

TRN_TEST(load_behind_columns_in_the_array, .timeout_ns = 1e10) {
  // A load may refill a bank whose columns are still in the array (docs/tensor.md): MM_A (bank 0,
  // Nmax columns), LS_B and a one-column MM_B on bank 1, then LS_C into bank 0 with another type,
  // K and rows per PE. LS_C must start reading before MM_A's last column leaves the array, and MM_A's
  // columns must still multiply with LS_A's weights and block scales in every row (the load's rows,
  // and an MX block's scale with the block's last row, are written in the skew behind them), MM_C
  // with LS_C's. Rounds over BF16, FP8 two rows per PE, INT8, MXFP8 one row and MXFP4 four rows per
  // PE (v4), LS_C's block scales differing from LS_A's in every column, with random SBUF latency;
  // PSUM against the reference, every round. (A scale written with the block's first row shows in
  // small: in tiny an MX load's scale read ahead of its elements keeps its first element R - 1 = 3
  // cycles behind MM_A's last column, so the last row, which reads the scale, is passed before.)
  TeBench t(env);
  t.lat_max = 3;
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("data");
  t.fill(2, [&] { return random_code(r, 2); });
  FunctionalReference ref(p);
  struct Type {
    unsigned fmt, kpe;
    bool mx;
  };
  const Type bf16{2, 0, false}, fp8{5, 1, false}, int8{kInt8, 1, false}, mx8{6, 0, true}, mx8b{4, 0, true},
      mx4{8, 2, true}, mx4b{6, 2, true};
  const std::vector<std::pair<Type, Type>> rounds{{bf16, fp8}, {fp8, int8}, {int8, bf16}, {int8, mx8}, {mx8, mx4},
                                                  {mx4, mx8b}, {mx8, mx8b}, {mx4, mx4b},  {mx4b, bf16}};
  // byte addresses: the loads' elements from 0 (4 bytes per column at most), the moving elements
  // from 64, then the block scales: LS_A's, LS_B's, LS_C's, the multiplies' (MM_B's after MM_A's)
  const unsigned sc = 64 + 4 * p.max_n + 64, sc_a = sc, sc_b = sc + p.cols, sc_c = sc + 2 * p.cols,
                 sc_m = sc + 3 * p.cols;
  unsigned issued = 0, early = 0, round = 0;
  for (const auto& [ta, tc] : rounds) {
    const auto load = [&](Type ty, unsigned addr, unsigned k, unsigned sc_addr) {
      Command c = load_all(p, ty.fmt, addr);
      c.kpe = ty.kpe;
      c.k = k << ty.kpe;
      c.mx = ty.mx;
      c.sc_addr = sc_addr;
      return c;
    };
    const auto mult = [&](Type ty, unsigned addr, unsigned n, unsigned bank, unsigned sc_addr) {
      Command c{Op::multiply_moving};
      c.fmt = ty.fmt;
      c.kpe = ty.kpe;
      c.mx = ty.mx;
      c.sc_addr = sc_addr;
      c.n = n;
      c.addr = addr;
      c.bank = bank;
      c.acc = round % 2 == 1;
      return c;
    };
    // (A uses every row: the rows a load reaches last are where an early write would show)
    const unsigned k_a = p.rows, k_c = 1 + r.below(p.rows);
    std::vector<Command> cmds{load(ta, 0, k_a, sc_a),
                              mult(ta, 64, p.max_n, 0, sc_m),
                              load(tc, 2 * p.cols, p.rows, sc_b),
                              mult(tc, 64 + 2 * p.max_n, 1, 1, sc_m + p.max_n),
                              load(tc, 4 * p.cols, k_c, sc_c),
                              mult(tc, 64, p.max_n, 2, sc_m)};
    // block scales near 1 (no overflow to hide a difference), LS_C's never LS_A's in the same block
    // and column
    const unsigned blocks = p.rows / std::min(p.rows, 8u);  // the most blocks a load has (four rows)
    for (unsigned b = 0; b < blocks; ++b) {
      auto& part = t.sbuf[b * std::min(p.rows, 8u)];  // a block's scales are in its first partition
      for (unsigned j = 0; j < p.cols; ++j) {
        const auto sa = static_cast<std::uint8_t>(r.range(118, 136)), sb = static_cast<std::uint8_t>(r.range(118, 136));
        auto sc_j = static_cast<std::uint8_t>(r.range(118, 136));
        if (sc_j == sa) ++sc_j;
        part.at(sc_a + j) = sa;
        part.at(sc_b + j) = sb;
        part.at(sc_c + j) = sc_j;
      }
      for (unsigned j = 0; j < p.max_n + 1; ++j) part.at(sc_m + j) = static_cast<std::uint8_t>(r.range(118, 136));
    }
    std::uint64_t c_at = 0;  // the cycle LS_C was accepted in
    for (std::size_t i = 0; i < cmds.size(); ++i) {
      cmds[i].tag = issued++ & 15;
      co_await t.issue(cmds[i]);
      if (i == 4) c_at = t.clk.cycle() - 1;
      ref.run(cmds[i], t.sbuf);
    }
    co_await t.wait_done(issued);
    const std::uint64_t a_done = t.mm_done_at.at(cmds[1].tag);
    const auto first = std::find_if(t.st_reads.begin(), t.st_reads.end(), [&](std::uint64_t c) { return c > c_at; });
    check(first != t.st_reads.end(), "round {}: LS_C made no stationary read", round);
    if (first != t.st_reads.end() && *first < a_done) ++early;
    info("round {} ({} -> {}): LS_C accepted in cycle {}, its first read in {}, MM_A's last column out in {}", round,
         ta.fmt, tc.fmt, c_at, first != t.st_reads.end() ? *first : 0, a_done);
    co_await t.compare_psum(ref.psum, 0, 3);  // every round's (the next may overwrite them)
    ++round;
  }
  check(t.err_count == 0, "{} commands rejected", t.err_count);
  check(early == rounds.size(), "LS_C read before MM_A's last column left the array in {} of {} rounds", early,
        rounds.size());
}

TRN_TEST(gemm_tiled, .timeout_ns = 1e10) {
  // End to end: C[M, N] = A[K, M]^T . B[K, N] with K = 3R, M = 2C, N = 2 Nmax, tiled over K (PSUM
  // accumulation: the first K tile overwrites, the others accumulate), M and N, for BF16 and
  // E4M3 (bias 9). The result must equal, bit for bit, a plain GEMM loop that sums each K tile
  // from row 0 (block by block of 32 rows, as the array does) and adds the tiles in order; and
  // stay within a bound of the double-precision GEMM.
  TeBench t(env);
  t.p_ready = 0.7;
  t.lat_max = 3;
  co_await t.start();
  const auto& p = t.prm;
  const unsigned KT = 3, MT = 2, NT = 2, K = KT * p.rows, M = MT * p.cols, N = NT * p.max_n;
  auto r = env.rng("gemm");
  unsigned issued = 0;
  for (unsigned fmt : {2u, 5u}) {
    const unsigned bias = fmt == 5 ? 9 : 0;
    std::vector<std::uint32_t> A(static_cast<std::size_t>(K) * M), B(static_cast<std::size_t>(K) * N);
    auto draw = [&]() {  // a value in [-2, 2] rounded to the type
      const float v = static_cast<float>((static_cast<double>(r.next() >> 11) * 0x1.0p-53) * 4 - 2);
      numerics::Convert cv;
      cv.bias = static_cast<int>(bias);
      return numerics::encode(static_cast<Format>(fmt), numerics::f32_bits(v), cv);
    };
    for (auto& a : A) a = draw();
    for (auto& b : B) b = draw();
    // SBUF: A tile (kt, mt) at (kt * MT + mt) * C, B tile (kt, nt) after all A tiles
    const unsigned b_base = KT * MT * p.cols;
    for (unsigned k = 0; k < K; ++k) {
      const unsigned kt = k / p.rows, row = k % p.rows;
      for (unsigned m = 0; m < M; ++m) t.put_at(row, fmt, (kt * MT + m / p.cols) * p.cols + m % p.cols, A[k * M + m]);
      for (unsigned n = 0; n < N; ++n)
        t.put_at(row, fmt, b_base + (kt * NT + n / p.max_n) * p.max_n + n % p.max_n, B[k * N + n]);
    }
    for (unsigned mt = 0; mt < MT; ++mt)
      for (unsigned nt = 0; nt < NT; ++nt)
        for (unsigned kt = 0; kt < KT; ++kt) {
          Command ls = load_all(p, fmt);
          ls.bias = bias;
          ls.addr = byte_of((kt * MT + mt) * p.cols, fmt);
          ls.tag = issued++ & 15;
          co_await t.issue(ls);
          Command mm{Op::multiply_moving};
          mm.fmt = fmt;
          mm.bias = bias;
          mm.n = p.max_n;
          mm.addr = byte_of(b_base + (kt * NT + nt) * p.max_n, fmt);
          mm.bank = mt * NT + nt;
          mm.acc = kt > 0;
          mm.tag = issued++ & 15;
          co_await t.issue(mm);
        }
    co_await t.wait_done(issued);
    // the plain GEMM loop, and the double-precision one
    std::vector<std::uint32_t> ref(static_cast<std::size_t>(p.banks) * p.cols * p.depth, 0);
    for (unsigned m = 0; m < M; ++m)
      for (unsigned n = 0; n < N; ++n) {
        std::uint32_t acc = 0;
        double exact = 0, mag = 0;
        const unsigned bs = p.rows < 32 ? p.rows : 32;  // the array sums each 32-row block apart
        for (unsigned kt = 0; kt < KT; ++kt) {
          std::uint32_t tile = 0x80000000u, block = 0x80000000u;
          for (unsigned row = 0; row < p.rows; ++row) {
            const unsigned k = kt * p.rows + row;
            block = numerics::fp32_add(block, pe_product(A[k * M + m], fmt, bias, B[k * N + n], fmt, bias));
            if (row % bs == bs - 1) {
              tile = numerics::fp32_add(tile, block);
              block = 0x80000000u;
            }
            const double prod = static_cast<double>(numerics::f32_from(pe_operand(A[k * M + m], fmt, bias))) *
                                numerics::f32_from(pe_operand(B[k * N + n], fmt, bias));
            exact += prod;
            mag += std::fabs(prod);
          }
          acc = kt == 0 ? tile : numerics::fp32_add(acc, tile);
        }
        const double got = numerics::f32_from(acc);
        check(std::fabs(got - exact) <= 4 * K * 0x1.0p-24 * mag + 1e-30,
              "GEMM ({}, {}): {} vs double {} beyond the rounding bound", m, n, got, exact);
        ref[(static_cast<std::size_t>((m / p.cols) * NT + n / p.max_n) * p.cols + m % p.cols) * p.depth + n % p.max_n] =
            acc;
      }
    co_await t.compare_psum(ref);
    info("{}: {}x{}x{} GEMM tiled {}x{}x{} over the array matches the reference bit for bit",
         numerics::format_info(static_cast<Format>(fmt)).name, M, N, K, MT, NT, KT);
  }
}

TRN_TEST(selftest_psum_compare_catches_wrong_value, .timeout_ns = 1e9, .expect_fail = true) {
  // The PSUM comparison must be able to fail: one multiply, then a reference with one entry off
  // by one ulp.
  TeBench t(env);
  expect_failure([](const TestFailure& f) {
    check(std::string(f.what()).find("PSUM bank 1 partition 0 element 2") != std::string::npos, "wrong failure: {}",
          f.what());
  });
  co_await t.start();
  const auto& p = t.prm;
  t.fill(2, [] { return 0x3F80u; });  // BF16 1.0
  FunctionalReference ref(p);
  Command ls = load_all(p, 2);
  Command mm{Op::multiply_moving};
  mm.fmt = 2;
  mm.n = 4;
  mm.bank = 1;
  for (const Command& c : {ls, mm}) {
    co_await t.issue(c);
    ref.run(c, t.sbuf);
  }
  co_await t.wait_done(2);
  ref.psum[(1 * p.cols + 0) * p.depth + 2] += 1;
  co_await t.compare_psum(ref.psum);
}

TRN_TEST(single_matmul, .timeout_ns = 1e10) {
  // One R x C x Nmax matmul (full configuration: 128 x 128 x 512) in lockstep: cycles from the
  // MultiplyMoving's dispatch to its completion against the ideal (N columns plus fill and
  // drain), and the PSUM bank against the reference. TE_FMT=bf16 (default) or mxfp8 (E4M3FN
  // elements with random E8M0 block scales on both sides: four blocks per pass at 128 rows).
  TeBench t(env);
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("data");
  const char* fe = std::getenv("TE_FMT");
  const std::string fmt_name = fe && *fe ? fe : "bf16";
  if (fmt_name != "bf16" && fmt_name != "mxfp8")
    throw HarnessError(fmt::format("TE_FMT={}: want bf16 or mxfp8", fmt_name));
  const bool mx = fmt_name == "mxfp8";
  const unsigned fmt = mx ? 6 : 2;
  for (unsigned part = 0; part < p.rows; ++part)
    for (unsigned a = 0; a < p.cols + p.max_n; ++a) {
      const float v = static_cast<float>(r.below(2001)) / 1000 - 1;
      t.put_at(part, fmt, a,
               mx ? numerics::encode(Format::e4m3fn, numerics::f32_bits(v * 400))
                  : numerics::encode(Format::bf16, numerics::f32_bits(v)));
    }
  FunctionalReference ref(p);
  Command ls = load_all(p, fmt);
  ls.mx = mx;
  ls.sc_addr = byte_of(p.cols + p.max_n, fmt);  // the scale tensors after the data
  Command mm{Op::multiply_moving};
  mm.fmt = fmt;
  mm.mx = mx;
  mm.n = p.max_n;
  mm.addr = byte_of(p.cols, fmt);
  mm.sc_addr = ls.sc_addr + p.cols;
  mm.bank = 1;
  if (mx)
    for (unsigned b = 0; b < p.rows / (p.rows < 32 ? p.rows : 32); ++b) {
      for (unsigned j = 0; j < p.cols; ++j) t.put_scale(b, ls, j, static_cast<std::uint32_t>(r.range(120, 134)));
      for (unsigned j = 0; j < p.max_n; ++j) t.put_scale(b, mm, j, static_cast<std::uint32_t>(r.range(120, 134)));
    }
  co_await t.issue(ls);
  ref.run(ls, t.sbuf);
  co_await t.wait_done(1);
  const std::uint64_t c0 = t.clk.cycle();
  co_await t.issue(mm);
  ref.run(mm, t.sbuf);
  co_await t.wait_done(2);
  const std::uint64_t cycles = t.clk.cycle() - c0;
  const std::uint64_t ideal = p.max_n + p.rows + p.cols - 1;
  info("{}x{}x{} {} matmul: {} cycles from dispatch to completion; ideal {} (N + R + C - 1), ratio {:.3f}", p.rows,
       p.cols, p.max_n, fmt_name, cycles, ideal, static_cast<double>(cycles) / ideal);
  fmt::print("bench: figure tensor_engine single {}x{}x{} {} matmul: {} cycles, ideal {} (N + R + C - 1)\n", p.rows,
             p.cols, p.max_n, fmt_name, cycles, ideal);
  co_await t.compare_psum(ref.psum, 1, 2, 0, p.max_n);
}

TRN_TEST(engine_psum_writes, .timeout_ns = 1e10) {
  // The PSUM write port of the vector and scalar engines (pe_) beside a stream of accumulating
  // multiplies into bank 0: a new random write (bank 1.., element, partition mask, data) offered
  // every cycle until accepted. A write is accepted only in a cycle where the array writes none of
  // its partitions (pe_ready_o low otherwise, whatever the bank); every accepted write lands
  // exactly once and the array's results are untouched: PSUM against the reference with the
  // accepted writes applied in order. A tenth of the writes name an element outside PSUM: they
  // are accepted and write nothing. Every other multiply is in row groups (two or four, after a
  // load in groups), whose taps write PSUM from rows above the bottom: the engines' writes wait for
  // them too. (The engines write banks 4.., the multiplies banks 0 .. 3.)
  TeBench t(env);
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("data");
  const unsigned fmt = 2;  // BF16
  t.fill(fmt,
         [&] { return numerics::encode(Format::bf16, numerics::f32_bits(static_cast<float>(r.below(17)) / 8 - 1)); });
  FunctionalReference ref(p);
  Command ls = load_all(p, fmt);
  co_await t.issue(ls);
  ref.run(ls, t.sbuf);
  co_await t.wait_done(1);
  Signal &pe_valid = env.sig("pe_valid_i"), &pe_ready = env.sig("pe_ready_o");
  auto next_write = [&] {
    TensorEngine::In in = t.model.make_in();
    in.pe_valid_i = true;
    in.pe_i.bank = static_cast<std::uint8_t>(4 + r.below(p.banks - 4));
    in.pe_i.off = static_cast<std::uint16_t>(r.below(p.depth));
    if (r.chance(0.2)) {  // outside PSUM: accepted and not written
      // half of them just past the end (the first bank or element outside), the bound's edge
      if (r.chance(0.5))
        in.pe_i.off = static_cast<std::uint16_t>(p.depth + (r.chance(0.5) ? 0 : r.below(1000)));
      else
        in.pe_i.bank = static_cast<std::uint8_t>(p.banks + (r.chance(0.5) ? 0 : r.below(16 - p.banks)));
    }
    if (r.chance(0.5))  // one partition: refused only by a write to that partition (say, one tap's alone)
      in.pe_mask_i.set_bit(static_cast<unsigned>(r.below(p.cols)), true);
    while (in.pe_mask_i.to_u64() == 0)
      for (unsigned c = 0; c < p.cols; ++c) in.pe_mask_i.set_bit(c, r.chance(0.5));
    for (unsigned c = 0; c < p.cols; ++c) in.pe_data_i.set_slice(32 * c, 32, static_cast<std::uint32_t>(r.next()));
    drive_inputs(env, t.model, in, "pe_");
    return in;
  };
  TensorEngine::In w = next_write();
  const auto mms = static_cast<unsigned>(scaled(12));
  const std::uint64_t limit = scaled(100000);
  unsigned issued = 0, accepted = 0, refused = 0, multiplies = 0, grouped = 0;
  std::deque<Command> todo;
  for (unsigned i = 0; i < mms; ++i) {  // back-to-back multiplies into bank 0 (accumulating), or in groups
    const unsigned rg = i % 2 == 1 ? 1 + (i / 2) % 2 : 0;
    if (i > 0) {  // the weights for this multiply: in groups, or dense again
      Command l = load_all(p, fmt);
      l.rg = rg;
      l.k = p.rows >> rg;
      todo.push_back(l);
    }
    Command mm{Op::multiply_moving};
    mm.fmt = fmt;
    mm.rg = rg;
    // (in groups, every other one of a kind a single column: its one token writes a partition
    // through one tap, or the bottom row, at a time, so a one-partition engine write waiting on it
    // is refused by each of them in turn)
    mm.n = static_cast<unsigned>(rg != 0 && (i / 4) % 2 == 0 ? 1 : r.range(1, p.max_n));
    mm.off = static_cast<unsigned>(r.below(p.depth - mm.n + 1));
    mm.acc = rg == 0 && i > 0;  // (groups write banks 0 .. G - 1, overwriting)
    mm.addr = byte_of(p.cols, fmt);
    todo.push_back(mm);
    grouped += rg != 0;
  }
  const auto commands = static_cast<unsigned>(todo.size());
  std::optional<Command> cmd;
  for (unsigned k = 0; issued < commands || t.done_count < 1 + commands; ++k) {
    check(k < limit, "multiplies not done after {} cycles", k);
    if (!cmd && !todo.empty()) {
      Command c = todo.front();
      todo.pop_front();
      c.tag = (1 + issued) & 15;
      TensorEngine::In in = t.model.make_in();
      in.cmd_i = to_cmd(c);
      drive_inputs(env, t.model, in, "cmd_i");
      t.cmd_valid.set(1);
      cmd = c;
      multiplies += c.op == Op::multiply_moving;
    }
    t.drive();
    co_await ReadOnly();
    const bool cmd_fire = cmd && (t.cmd_ready.get() & 1);
    const bool pe_fire = pe_ready.get() & 1;
    co_await RisingEdge(t.clk.signal());
    if (cmd_fire) {
      ref.run(*cmd, t.sbuf);
      cmd.reset();
      t.cmd_valid.set(0);
      ++issued;
    }
    if (pe_fire) {
      ref.engine_write(w.pe_i.bank, w.pe_i.off, w.pe_mask_i, w.pe_data_i);  // outside PSUM: nothing
      ++accepted;
      w = next_write();
    } else {
      ++refused;
    }
  }
  pe_valid.set(0);
  info(
      "engine PSUM writes: {} accepted, {} refused while the array wrote their partitions ({} multiplies, {} in row "
      "groups)",
      accepted, refused, multiplies, grouped);
  check(t.err_count == 0, "{} commands rejected", t.err_count);
  check(accepted > 0 && refused > 0, "the test must see writes accepted ({}) and refused ({})", accepted, refused);
  co_await t.compare_psum(ref.psum);
}

TRN_TEST(long_stalls, .timeout_ns = 1e10) {
  // Long stalls on the command port and on the engines' PSUM write port (pe_), results still
  // checked. Rounds of a random program: a LoadStationary (any PE type, random K, M >= 2), then
  // MultiplyMoving commands of one moving type (random N, bank, offset, overwrite or accumulate,
  // FP8 biases). Even rounds: seeded SBUF latency and request stalls, idle cycles before commands,
  // and the moving read port held from the first multiply's dispatch for 20..200 cycles (300 in
  // round 0): the next multiply waits at the command port that long. Odd rounds: back-to-back
  // multiplies (20..200 columns, at least 300 in round 1; a moving type other than FP32, which
  // streams at a quarter of the rate) with SBUF answering every read the next cycle, so the array
  // writes partitions 0 .. M-1 in every cycle; beside them an engine write (partitions 0 and 1 always in its mask, a
  // bank the multiplies do not use) is offered every cycle until accepted, and waits out the stream. PSUM against the
  // reference with the accepted engine writes applied. (cmd's ready_idle is out of reach: cmd_ready_o is only ever high
  // with cmd_valid_i.)
  TeBench t(env);
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("program");
  FunctionalReference ref(p);
  Signal &pe_valid = env.sig("pe_valid_i"), &pe_ready = env.sig("pe_ready_o");
  auto bias_of = [&](unsigned fmt) {
    return numerics::format_info(static_cast<Format>(fmt)).adjustable_bias ? static_cast<unsigned>(r.range(0, 20)) : 0u;
  };
  struct Step {
    Command cmd;
    unsigned gap;  ///< idle cycles before it is offered
  };
  const unsigned rounds = static_cast<unsigned>(scaled(6));
  /// A port's stalls: the one under way, how many lasted 16 cycles or more, the longest.
  struct Stalls {
    std::uint64_t now = 0, longest = 0;
    unsigned long_ones = 0;
    void cycle(bool stalled) {
      if (stalled) {
        ++now;
        return;
      }
      if (now >= 16) ++long_ones;
      longest = std::max(longest, now);
      now = 0;
    }
  };
  unsigned issued = 0, pe_accepted = 0;
  Stalls cmd_st, pe_st;
  for (unsigned g = 0; g < rounds; ++g) {
    co_await t.wait_done(issued);  // SBUF is rewritten only when no command reads it
    const bool stream = g % 2 == 1;
    t.p_ready = stream ? 1.0 : 0.8;
    t.lat_max = stream ? 1 : 4;
    const unsigned wfmt = kTypes[r.below(9)];
    unsigned xfmt = r.chance(0.7) ? wfmt : kTypes[r.below(9)];
    if (stream && xfmt == 0) xfmt = 1;  // FP32 streams a column every fourth cycle: TF32 keeps the array busy
    Command ls{Op::load_stationary};
    ls.fmt = wfmt;
    ls.bias = bias_of(wfmt);
    ls.k = static_cast<unsigned>(r.range(1, p.rows));
    ls.m = static_cast<unsigned>(r.range(2, p.cols));  // partitions 0 and 1 written
    ls.addr = 0;
    Command tile{Op::multiply_moving};  // the moving tile every multiply of the round reads
    tile.fmt = xfmt;
    tile.addr = 4 * p.cols;  // after the weights: 4 bytes per column, room for any type
    for (unsigned rr = 0; rr < p.rows; ++rr) {
      for (unsigned j = 0; j < ls.m; ++j) t.put(rr, ls, j, random_code(r, wfmt));
      for (unsigned j = 0; j < p.max_n; ++j) t.put(rr, tile, j, random_code(r, xfmt));
    }
    const unsigned pe_bank = static_cast<unsigned>(r.below(p.banks));
    const unsigned hold = stream ? 0u : g < 2 ? 300u : static_cast<unsigned>(r.range(20, 200));
    // a stream's columns; a held round's multiplies
    const unsigned columns = g < 2 ? 300u : static_cast<unsigned>(r.range(20, 200));
    const unsigned mms = static_cast<unsigned>(r.range(2, 4));
    std::vector<Step> steps;
    ls.tag = issued++ & 15;
    steps.push_back({ls, r.chance(0.5) ? 0u : static_cast<unsigned>(r.range(1, 8))});
    for (unsigned sum = 0; stream ? sum < columns : steps.size() < 1 + mms;) {
      Command mm = tile;
      mm.bias = bias_of(xfmt);
      mm.n = static_cast<unsigned>(stream ? r.range(std::max(1u, p.max_n / 2), p.max_n) : r.range(1, p.max_n));
      mm.bank = stream ? (pe_bank + 1 + static_cast<unsigned>(r.below(p.banks - 1))) % p.banks
                       : static_cast<unsigned>(r.below(p.banks));
      mm.off = static_cast<unsigned>(r.below(p.depth - mm.n + 1));
      mm.acc = r.chance(0.5);
      mm.tag = issued++ & 15;
      sum += mm.n;
      // a stream's multiplies back to back; otherwise 1..3 idle cycles before half the commands
      const unsigned gap = stream && steps.size() > 1 ? 0u : r.chance(0.5) ? 0u : static_cast<unsigned>(r.range(1, 3));
      steps.push_back({mm, gap});
    }
    // Offer the steps in order, each after its idle cycles; hold the moving reads; offer engine writes.
    std::size_t next = 0;
    unsigned gap_left = steps[0].gap;
    bool offered = false, held = false, pe_pending = false;
    std::uint64_t hold_until = 0;
    cmd_st.now = pe_st.now = 0;
    TensorEngine::In w = t.model.make_in();
    for (unsigned k = 0; next < steps.size() || t.done_count + t.err_count < issued || pe_pending; ++k) {
      check(k < 100000, "round {}: {} of {} commands offered, {} of {} completed after {} cycles", g, next,
            steps.size(), t.done_count + t.err_count, issued, k);
      if (!offered && next < steps.size()) {
        if (gap_left > 0) {
          --gap_left;
        } else {
          t.cmd_in.set(to_cmd(steps[next].cmd).pack());
          t.cmd_valid.set(1);
          offered = true;
        }
      }
      if (stream && !pe_pending && (next < steps.size() || t.done_count + t.err_count < issued)) {
        w = t.model.make_in();
        w.pe_valid_i = true;
        w.pe_i.bank = static_cast<std::uint8_t>(pe_bank);
        w.pe_i.off = static_cast<std::uint16_t>(r.below(p.depth));
        w.pe_mask_i.set_bit(0, true);
        w.pe_mask_i.set_bit(1, true);
        for (unsigned c = 2; c < p.cols; ++c) w.pe_mask_i.set_bit(c, r.chance(0.5));
        for (unsigned c = 0; c < p.cols; ++c) w.pe_data_i.set_slice(32 * c, 32, static_cast<std::uint32_t>(r.next()));
        drive_inputs(env, t.model, w, "pe_");
        pe_pending = true;
      }
      t.mv_blocked = t.clk.cycle() < hold_until;
      t.drive();
      co_await ReadOnly();
      const bool cmd_fire = offered && (t.cmd_ready.get() & 1);
      const bool pe_fire = pe_pending && (pe_ready.get() & 1);
      co_await RisingEdge(t.clk.signal());
      cmd_st.cycle(offered && !cmd_fire);
      pe_st.cycle(pe_pending && !pe_fire);
      if (cmd_fire) {
        const Command& cmd = steps[next].cmd;
        ref.run(cmd, t.sbuf);
        if (cmd.op == Op::multiply_moving && hold > 0 && !held) {  // the round's first multiply
          hold_until = t.clk.cycle() + hold;
          held = true;
        }
        t.cmd_valid.set(0);
        offered = false;
        if (++next < steps.size()) gap_left = steps[next].gap;
      }
      if (pe_fire) {
        ref.engine_write(pe_bank, w.pe_i.off, w.pe_mask_i, w.pe_data_i);
        ++pe_accepted;
        pe_pending = false;
        pe_valid.set(0);
      }
    }
    t.mv_blocked = false;
  }
  co_await t.wait_done(issued);
  check(t.err_count == 0, "{} legal commands were rejected", t.err_count);
  check(cmd_st.longest >= 256, "the longest command stall was {} cycles, want 256 or more", cmd_st.longest);
  check(pe_st.longest >= 256, "the longest engine-write stall was {} cycles, want 256 or more", pe_st.longest);
  co_await t.compare_psum(ref.psum);
  info(
      "{} commands, {} engine writes, PSUM matches the reference; stalls of 16+ cycles: {} on cmd (longest {}), "
      "{} on pe (longest {})",
      issued, pe_accepted, cmd_st.long_ones, cmd_st.longest, pe_st.long_ones, pe_st.longest);
}

namespace {
/// One operand type at its rate: the type, K-rows per PE (log2), and its preset rate's name.
struct RateCase {
  const char* name;
  unsigned fmt, kpe;
  system::DType dtype;
  bool mx = false;
  unsigned spm = 0, spq = 0;  ///< structured sparsity (counted as the dense matmul it stands for)
};
/// The types of SPEC 5.1's rates on generation `gen`: BF16, FP8 (two rows per PE from v3 on), INT8
/// (two rows per PE), FP32 (a quarter), on v4 MXFP8 and MXFP4 (four rows per PE), and from v3 on
/// FP8 weights 1:4 sparse (four rows of the moving operand a PE).
std::vector<RateCase> rate_cases(sv::te_pkg::te_gen_e gen) {
  const unsigned fp8_kpe = gen == sv::te_pkg::te_gen_e::TeGenV2 ? 0 : 1;
  std::vector<RateCase> v = {{"bf16", 2, 0, system::DType::bf16},
                             {"fp8", 5, fp8_kpe, system::DType::fp8},
                             {"int8", kInt8, 1, system::DType::int8},
                             {"fp32", 0, 0, system::DType::fp32}};
  if (gen == sv::te_pkg::te_gen_e::TeGenV4) {
    v.push_back({"mxfp8", 6, 2, system::DType::mxfp8, true});
    v.push_back({"mxfp4", 8, 2, system::DType::mxfp4, true});
  }
  if (gen != sv::te_pkg::te_gen_e::TeGenV2) v.push_back({"sparse", 5, 0, system::DType::sparse, false, 2, 2});
  return v;
}
/// Back-to-back MultiplyMoving with N = Nmax, K = R (x2, x4 with two, four rows per PE), M = C,
/// each followed (`reload`) by a LoadStationary of the next weights in the background, SBUF
/// answering every request the next cycle, until `min_mms` multiplies and `min_cycles` cycles:
/// (multiplies, cycles from the first one's dispatch to the last result in PSUM). t started, idle.
struct RateRun {
  unsigned mms = 0;
  std::uint64_t cycles = 0;
  double macs = 0;
};
Task<RateRun> rate_run(TeBench& t, Rng& r, const RateCase& rc, unsigned min_mms, std::uint64_t min_cycles,
                       bool reload = true) {
  const auto& p = t.prm;
  Command ls = load_all(p, rc.fmt);
  ls.kpe = rc.kpe;
  ls.k = p.rows << rc.kpe;  // (sparse: the kept rows, one a PE)
  Command mm{Op::multiply_moving};
  mm.fmt = rc.fmt;
  mm.kpe = rc.kpe;
  mm.n = p.max_n;
  mm.addr = 4 * p.cols;  // 4 bytes a column: room for any type
  // MX: the scale tensors after the data (the multiply's 4-aligned)
  ls.mx = mm.mx = rc.mx;
  ls.sc_addr = 4 * p.cols + 4 * p.max_n;
  mm.sc_addr = ls.sc_addr + 4 * p.cols;
  const unsigned krows = p.rows << (rc.kpe + rc.spq);  // (sparse: the rows of the dense matmul)
  ls.spm = mm.spm = rc.spm;
  ls.spq = mm.spq = rc.spq;
  if (rc.spm != 0) {  // kept weights, their metadata after the scale tensors' room, the moving rows
    ls.sc_addr = mm.sc_addr + 4 * p.max_n;
    for (unsigned rr = 0; rr < p.rows; ++rr)
      for (unsigned j = 0; j < p.cols; ++j) t.put(rr, ls, j, random_code(r, rc.fmt));
    put_sparse_meta(t, r, ls, p.rows);
    put_sparse_moving(t, r, mm);
  } else if (rc.mx) {
    put_mx(t, r, ls, p.cols);
    put_mx(t, r, mm, p.max_n);
  } else {
    for (unsigned rr = 0; rr < krows; ++rr) {  // moderate values: FP32/TF32 exponents near 1, narrow codes any
      for (unsigned j = 0; j < p.cols; ++j) t.put(rr, ls, j, random_code(r, rc.fmt));
      for (unsigned j = 0; j < p.max_n; ++j) t.put(rr, mm, j, random_code(r, rc.fmt));
    }
  }
  const unsigned base = t.done_count + t.err_count;
  unsigned issued = 1;
  co_await t.issue(ls);
  co_await t.wait_done(base + 1);
  RateRun run;
  const std::uint64_t c0 = t.clk.cycle();
  while (run.mms < min_mms || t.clk.cycle() - c0 < min_cycles) {
    mm.tag = issued++ & 15;
    mm.bank = run.mms % p.banks;
    co_await t.issue(mm);
    ++run.mms;
    if (!reload) continue;
    ls.tag = issued++ & 15;
    co_await t.issue(ls);
  }
  co_await t.wait_done(base + issued);
  check(t.err_count == 0, "{}: {} commands rejected", rc.name, t.err_count);
  run.cycles = t.clk.cycle() - c0;
  run.macs = static_cast<double>(run.mms) * krows * p.cols * p.max_n;
  co_return run;
}
/// The MACs per cycle the core preset of generation `gen` promises for a type: R x C x its rate.
double rule_macs(const TensorEngine::Params& p, sv::te_pkg::te_gen_e gen, system::DType d) {
  static const system::Presets presets = system::default_presets();
  const char* key = gen == sv::te_pkg::te_gen_e::TeGenV2 ? "v2" : gen == sv::te_pkg::te_gen_e::TeGenV3 ? "v3" : "v4";
  return static_cast<double>(p.rows) * p.cols * presets.core(key).rate[static_cast<unsigned>(d)];
}
sv::te_pkg::te_gen_e gen_from_env() {
  const char* g = std::getenv("TE_GEN");
  const std::string s = g && *g ? g : "v4";
  if (s == "v2") return sv::te_pkg::te_gen_e::TeGenV2;
  if (s == "v3") return sv::te_pkg::te_gen_e::TeGenV3;
  if (s == "v4") return sv::te_pkg::te_gen_e::TeGenV4;
  throw HarnessError(fmt::format("TE_GEN={}: want v2, v3 or v4", s));
}
}  // namespace

TRN_TEST(rates, .timeout_ns = 1e10) {
  // SPEC 5.1's per-type rates on every generation: for each type, 8 back-to-back multiplies
  // (K = R, 2R or 4R with one, two or four rows per PE; M = C; N = Nmax) on one load of weights
  // (the array's rate alone; the bench's stream loads new weights behind every multiply). The
  // measured MACs per cycle, fill and drain included, must reach the core preset's rule (R x C x
  // the type's rate) within the fill: the stream takes at most its ideal cycles (8 N columns, FP32
  // 4 x 8 N) plus R + C + 8, and a four-row MX multiply 2 more (its first scale word).
  TeBench t(env);
  auto r = env.rng("data");
  co_await t.start();
  for (auto gen : {sv::te_pkg::te_gen_e::TeGenV2, sv::te_pkg::te_gen_e::TeGenV3, sv::te_pkg::te_gen_e::TeGenV4}) {
    t.set_gen(gen);  // a strap: changed while the engine is idle
    for (const RateCase& rc : rate_cases(gen)) {
      const RateRun run = co_await rate_run(t, r, rc, 8, 0, false);
      const double rule = rule_macs(t.prm, gen, rc.dtype);
      const double ideal = run.macs / rule;
      // a four-row MX multiply's first read waits for its first scale word: 2 cycles each
      const double start = rc.mx ? 2.0 * run.mms : 0.0;
      check(static_cast<double>(run.cycles) <= ideal + start + t.prm.rows + t.prm.cols + 8,
            "gen {} {}: {} cycles for {} MACs; the rule of {} MACs a cycle wants {} plus the fill",
            static_cast<int>(gen), rc.name, run.cycles, run.macs, rule, ideal);
      info("gen v{} {}: {:.1f} MACs/cycle, rule {} ({} cycles, ideal {})", static_cast<unsigned>(gen) + 2, rc.name,
           run.macs / static_cast<double>(run.cycles), rule, run.cycles, ideal);
    }
  }
}

TRN_TEST(throughput) {
  // make bench: back-to-back MultiplyMoving with N = Nmax, K = R, M = C (BF16), each followed by
  // a LoadStationary of the next weights in the background; SBUF answers every request the next
  // cycle. Utilization = useful MACs / (R x C x cycles from the first MultiplyMoving's dispatch
  // to its last result in PSUM), over at least 8 multiplies and BENCH_CYCLES cycles. Then the
  // other types at their rates on generation TE_GEN (default v4): a line each with the measured
  // MACs per cycle against the core preset's rule (R x C x the type's rate).
  TeBench t(env);
  t.gen = gen_from_env();
  co_await t.start();
  const auto& p = t.prm;
  auto r = env.rng("data");
  const auto cases = rate_cases(t.gen);
  BenchTimer timer;
  const RateRun bf = co_await rate_run(t, r, cases[0], 8, bench_cycles(20000));
  timer.report(bf.cycles);
  const double util = bf.macs / (static_cast<double>(p.rows) * p.cols * static_cast<double>(bf.cycles));
  fmt::print(
      "bench: figure tensor_engine {}x{} N={}: {} MultiplyMoving in {} cycles, utilization {:.1f}% "
      "(ideal {} cycles; fill {} and drain {} cycles: R + C - 1 each way plus SBUF latency)\n",
      p.rows, p.cols, p.max_n, bf.mms, bf.cycles, 100 * util, static_cast<std::uint64_t>(bf.mms) * p.max_n,
      p.rows + p.cols - 1, p.rows + p.cols - 1);
  for (const RateCase& rc : cases) {
    const RateRun run = rc.fmt == 2 ? bf : co_await rate_run(t, r, rc, 8, bench_cycles(20000));
    const double got = run.macs / static_cast<double>(run.cycles), rule = rule_macs(p, t.gen, rc.dtype);
    fmt::print(
        "bench: figure tensor_engine rate v{} {}: {:.1f} MACs/cycle measured, preset rule {:.0f} ({}x{} x {}), "
        "ratio {:.3f}\n",
        static_cast<unsigned>(t.gen) + 2, rc.name, got, rule, p.rows, p.cols, rule / (p.rows * p.cols), got / rule);
  }
}

TRN_BENCH_MAIN(Vtensor_engine, "tensor_engine")
