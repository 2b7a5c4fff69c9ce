// Bench for rtl/vector/lane_engine.sv in lockstep with trn::vector::LaneEngine: built twice, as
// tb_vector_engine_<cfg> (Engine = 0) and tb_scalar_engine_<cfg> (Engine = 1).
// Environment: one memory ([partition][element], a 32-bit slot each) behind both read ports,
// answering in order after a seeded random latency with seeded request stalls, and behind the
// write port, which stalls at random (wr_ready_i low). After every program the whole memory is
// compared with trn::vector::FunctionalReference (plain loops) run on its own copy.
#include <algorithm>
#include <cmath>
#include <deque>
#include <string_view>
#include <type_traits>
#include <vector>

#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "lane_engine_ports.hpp"
#include "mem/elements.hpp"
#include "numerics/format.hpp"
#include "numerics/mx.hpp"
#include "scalar/activation.hpp"
#include "vector/lane_engine.hpp"
#include "vector/reference.hpp"
#include "vector/runner.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::vector;

namespace {

constexpr bool kScalar = std::string_view(TRN_BENCH_NAME) == "scalar_engine";
// docs/vector.md: softmax's bound relative to each output, for rows of up to 32 elements.
constexpr double kSoftmaxRel = 4e-4;

using e_req_t = LaneEngine::e_req_t;

struct ReadServer {
  Signal &req_valid, &req_ready, &req, &rsp_valid, &rsp_data;
  std::deque<std::pair<std::uint64_t, e_req_t>> q;  // (ready cycle, request)
};

/// FP32 word i of a partition (bytes 4i .. 4i + 3), for the row programs.
std::uint32_t word(const std::vector<std::uint8_t>& row, std::uint32_t i) { return mem::load_elem(row, i, 3); }
void set_word(std::vector<std::uint8_t>& row, std::uint32_t i, std::uint32_t v) { mem::store_elem(row, i, 3, v); }

struct LeBench {
  Env& env;
  Signal& rst;
  Clock clk;
  LaneEngine::Params prm;
  LaneEngine model;
  Lockstep<LaneEngine> lockstep;
  std::array<ReadServer, 2> rd;
  Signal &cmd_valid, &cmd_ready, &wr_valid, &wr_ready, &wr_req, &wr_mask, &wr_data, &cpl_sig, &acc;
  Memory mem;   ///< SBUF
  Memory psum;  ///< PSUM, for operands that name it (FP32 words)
  Rng rng;
  double p_ready = 1.0, p_wready = 1.0;
  std::uint64_t wr_hold_until = 0;  ///< wr_ready_i held low before this cycle (a long write stall)
  unsigned lat_min = 1, lat_max = 1;
  unsigned done_count = 0, err_count = 0;
  std::vector<unsigned> err_codes;
  std::uint64_t writes = 0;
  Clock::HookId hook;

  static LaneEngine::Params params_of(const Env& e) {
    LaneEngine::Params p;
    p.engine = kScalar ? Engine::scalar : Engine::vector;
    p.lanes = e.cfg().arch.partitions;
    p.sbuf_bytes = e.cfg().arch.sbuf_bytes_per_partition;
    p.psum_bytes = e.cfg().arch.psum_banks * e.cfg().arch.psum_bank_bytes;
    return p;
  }
  Shape shape() const { return model.shape(); }

  explicit LeBench(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(params_of(e)),
        model(prm),
        lockstep(e, clk, model),
        rd{ReadServer{e.sig("rd0_req_valid_o"),
                      e.sig("rd0_req_ready_i"),
                      e.sig("rd0_req_o"),
                      e.sig("rd0_rsp_valid_i"),
                      e.sig("rd0_rsp_data_i"),
                      {}},
           ReadServer{e.sig("rd1_req_valid_o"),
                      e.sig("rd1_req_ready_i"),
                      e.sig("rd1_req_o"),
                      e.sig("rd1_rsp_valid_i"),
                      e.sig("rd1_rsp_data_i"),
                      {}}},
        cmd_valid(e.sig("cmd_valid_i")),
        cmd_ready(e.sig("cmd_ready_o")),
        wr_valid(e.sig("wr_valid_o")),
        wr_ready(e.sig("wr_ready_i")),
        wr_req(e.sig("wr_o")),
        wr_mask(e.sig("wr_mask_o")),
        wr_data(e.sig("wr_data_o")),
        cpl_sig(e.sig("cpl_o")),
        acc(e.sig("acc_o")),
        mem(prm.lanes, std::vector<std::uint8_t>(prm.sbuf_bytes, 0)),
        psum(prm.lanes, std::vector<std::uint8_t>(prm.psum_bytes, 0)),
        rng(e.rng("memory")) {
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~LeBench() { clk.remove_hook(hook); }

  /// Settled values just before the edge: accepted requests, accepted writes, completions.
  void serve() {
    if (!(rst.get() & 1)) return;
    const std::uint64_t now = clk.cycle();
    for (auto& s : rd)
      if ((s.req_valid.get() & 1) && (s.req_ready.get() & 1))
        s.q.emplace_back(now + lat_min + rng.below(lat_max - lat_min + 1), e_req_t::unpack(s.req.bits()));
    if ((wr_valid.get() & 1) && (wr_ready.get() & 1)) {
      const Bits m = wr_mask.bits(), d = wr_data.bits();
      const e_req_t w = e_req_t::unpack(wr_req.bits());
      check(w.we, "cycle {}: a write request with we = 0", now);
      for (unsigned l = 0; l < prm.lanes; ++l)
        if (m.bit(l))
          mem::store_elem((w.space ? psum : mem)[l], w.idx, static_cast<unsigned>(w.esize),
                          static_cast<std::uint32_t>(d.slice(32 * l, 32)));
      ++writes;
    }
    const auto cpl = sv::le_pkg::le_cpl_t::unpack(cpl_sig.bits());
    if (cpl.done) ++done_count;
    if (cpl.err) {
      ++err_count;
      err_codes.push_back(static_cast<unsigned>(cpl.code));
    }
  }
  /// Drive the ports for the next cycle (after the edge).
  void drive() {
    const std::uint64_t now = clk.cycle();
    for (auto& s : rd) {
      s.req_ready.set(rng.chance(p_ready));
      const bool v = !s.q.empty() && s.q.front().first <= now;
      s.rsp_valid.set(v);
      if (v) {
        Bits d(32 * prm.lanes);
        const e_req_t& q = s.q.front().second;
        check(!q.we, "cycle {}: a read request with we = 1", now);
        for (unsigned l = 0; l < prm.lanes; ++l)
          d.set_slice(32 * l, 32, mem::load_elem((q.space ? psum : mem)[l], q.idx, static_cast<unsigned>(q.esize)));
        s.rsp_data.set(d);
        s.q.pop_front();
      }
    }
    const bool w = rng.chance(p_wready);  // drawn even while held: the same stream either way
    wr_ready.set(w && now >= wr_hold_until);
  }

  Task<> start() {
    cmd_valid.set(0);
    wr_ready.set(0);
    for (auto& s : rd) {
      s.req_ready.set(0);
      s.rsp_valid.set(0);
    }
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }

  Task<> cycle() {
    drive();
    co_await RisingEdge(clk.signal());
  }

  /// Offer one instruction until it is accepted.
  Task<> issue(const Instr& ins) {
    LaneEngine::In in = model.make_in();
    in.cmd_i = LaneEngine::encode(ins);
    drive_inputs(env, model, in, "cmd_");
    cmd_valid.set(1);
    for (;;) {
      drive();
      co_await ReadOnly();
      const bool fire = cmd_ready.get() & 1;
      co_await RisingEdge(clk.signal());
      if (fire) break;
    }
    cmd_valid.set(0);
  }

  /// Wait until `n` instructions in all have completed (done or error).
  Task<> wait_done(unsigned n, unsigned limit = 200000) {
    for (unsigned k = 0; done_count + err_count < n; ++k) {
      check(k < limit, "{} of {} instructions completed after {} cycles", done_count + err_count, n, limit);
      co_await cycle();
    }
  }

  /// Issue and wait for completion.
  Task<> run(const Instr& ins) {
    const unsigned n = done_count + err_count + 1;
    co_await issue(ins);
    co_await wait_done(n);
  }

  void compare_memory(const Memory& ref, const Memory* ref_psum = nullptr) const {
    for (unsigned l = 0; l < prm.lanes; ++l)
      for (std::uint32_t a = 0; a < prm.sbuf_bytes; ++a)
        check(mem[l][a] == ref[l][a], "memory partition {} byte {:#x}: {:#04x}, reference {:#04x}", l, a, mem[l][a],
              ref[l][a]);
    if (ref_psum)
      for (unsigned l = 0; l < prm.lanes; ++l)
        for (std::uint32_t a = 0; a < prm.psum_bytes; ++a)
          check(psum[l][a] == (*ref_psum)[l][a], "PSUM partition {} byte {:#x}: {:#04x}, reference {:#04x}", l, a,
                psum[l][a], (*ref_psum)[l][a]);
  }
  void compare_acc(const FunctionalReference& ref) const {
    const Bits a = acc.bits();
    for (unsigned l = 0; l < prm.lanes; ++l)
      check(a.slice(32 * l, 32) == ref.acc()[l], "accumulator {}: {:#010x}, reference {:#010x}", l, a.slice(32 * l, 32),
            ref.acc()[l]);
  }
};

// ---- random instructions

/// A memory word: mostly an FP32 of moderate exponent (its low bits are random codes of every
/// narrower type), sometimes any 32 bits.
std::uint32_t random_word(Rng& r) {
  if (r.chance(0.05)) return static_cast<std::uint32_t>(r.next());
  return (static_cast<std::uint32_t>(r.next()) & 0x807FFFFFu) | (static_cast<std::uint32_t>(r.range(112, 140)) << 23);
}

void fill_random(Memory& m, Rng& r) {
  for (auto& row : m)
    for (std::uint32_t i = 0; i < row.size() / 4; ++i) set_word(row, i, random_word(r));
}

/// The nibble range [first, last] that an access pattern of data type dt from byte address base
/// touches (so patterns of different element sizes compare); PSUM's ranges lie above SBUF's.
std::pair<std::uint64_t, std::uint64_t> span_of(std::uint32_t base, unsigned dt,
                                                const std::array<std::uint32_t, kDims>& size,
                                                const std::array<std::uint32_t, kDims>& stride, bool psum = false) {
  const unsigned es = mem::dtype_esize(dt);
  const std::uint64_t at = psum ? std::uint64_t{1} << 40 : 0;
  std::uint64_t e = first_index(base, dt);
  for (unsigned d = 0; d < kDims; ++d) e += static_cast<std::uint64_t>(size[d] - 1) * stride[d];
  return {at + (first_index(base, dt) << es), at + ((e + 1) << es) - 1};
}
bool overlap(std::pair<std::uint64_t, std::uint64_t> a, std::pair<std::uint64_t, std::uint64_t> b) {
  return a.first <= b.second && b.first <= a.second;
}

unsigned bias_for(Rng& r, unsigned t) { return (t >= 4 && t <= 7) ? static_cast<unsigned>(r.range(0, 20)) : 0u; }

/// Are the instruction's outputs (and quantize_mx's scales) clear of everything it reads, and of
/// each other? The reference reads every input before it writes; the engine streams.
bool outputs_clear(const Instr& in) {
  constexpr unsigned kFp32 = 0, kE8m0 = 9;
  const std::array<std::uint32_t, kDims> one{1, 1, 1, 1}, zero{};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> outs{
      span_of(in.o_addr, in.o_fmt, out_sizes(in), in.o_stride, in.o_space)};
  if (in.op == Op::quantize_mx) outs.push_back(span_of(in.sc_addr, kE8m0, in.size, in.o_stride));
  if (outs.size() == 2 && overlap(outs[0], outs[1])) return false;
  for (const auto& o : outs) {
    if (reads_a(in) && overlap(o, span_of(in.a_addr, in.a_fmt, in.size, in.a_stride, in.a_space))) return false;
    if (reads_b(in) && overlap(o, span_of(in.b_addr, in.b_fmt, in.size, in.b_stride, in.b_space))) return false;
    if (prologue_reads(in) > 0 && ((in.s0_vec && overlap(o, span_of(in.s0_addr, kFp32, one, zero))) ||
                                   (in.s1_vec && overlap(o, span_of(in.s1_addr, kFp32, one, zero)))))
      return false;
  }
  return true;
}

/// A random legal instruction for this engine with an output disjoint from its inputs.
Instr random_instr(Rng& r, const Shape& s) {
  const unsigned G = s.group();
  static const Op vops[] = {Op::copy,          Op::tensor_tensor, Op::tensor_scalar, Op::tensor_tensor,
                            Op::tensor_scalar, Op::tensor_reduce, Op::exp,           Op::iota,
                            Op::memset,        Op::quantize_mx,   Op::transpose};
  for (;;) {
    Instr in;
    if (s.engine == Engine::scalar)
      in.op = r.chance(0.85) ? Op::activate : Op::acc_store;
    else
      in.op = vops[r.below(std::size(vops))];
    in.tag = static_cast<unsigned>(r.below(16));
    const bool grouped = in.op == Op::quantize_mx || in.op == Op::transpose;
    if (grouped) {
      const unsigned groups = s.lanes / G;
      const unsigned g0 = static_cast<unsigned>(r.below(groups));
      in.ps = g0 * G;
      in.pc = G * static_cast<unsigned>(r.range(1, groups - g0));
    } else {
      in.ps = static_cast<unsigned>(r.below(s.lanes));
      in.pc = static_cast<unsigned>(r.range(1, s.lanes - in.ps));
      if (r.chance(0.4)) {
        in.ps = 0;
        in.pc = s.lanes;
      }
    }
    // shape: up to 4 dims, <= 48 elements
    if (in.op == Op::transpose) {
      in.size = {G, 1, 1, 1};
      if (G % 2 == 0 && r.chance(0.5)) in.size = {G / 2, 2, 1, 1};
    } else {
      in.size = {static_cast<std::uint32_t>(r.range(1, 8)), static_cast<std::uint32_t>(r.range(1, 3)),
                 static_cast<std::uint32_t>(r.range(1, 2)), static_cast<std::uint32_t>(r.range(1, 2))};
    }
    auto strides = [&](std::array<std::uint32_t, kDims>& st) {
      if (r.chance(0.5)) {  // dense
        st[0] = 1;
        for (unsigned d = 1; d < kDims; ++d) st[d] = st[d - 1] * in.size[d - 1];
      } else {
        for (unsigned d = 0; d < kDims; ++d) st[d] = static_cast<std::uint32_t>(r.range(0, 2 + 4 * d));
      }
    };
    strides(in.a_stride);
    strides(in.b_stride);
    strides(in.o_stride);
    if (in.op == Op::tensor_reduce || in.op == Op::iota) in.o_stride[0] = 0;
    // types
    const bool ints = r.chance(0.25);
    auto any_type = [&] { return static_cast<unsigned>(r.below(kDtypeCount)); };
    auto int_type = [&] { return static_cast<unsigned>(r.range(kInt32, kUint8)); };
    in.a_fmt = ints ? int_type() : any_type();
    in.b_fmt = ints ? int_type() : any_type();
    in.o_fmt = ints ? int_type() : any_type();
    in.a_bias = bias_for(r, in.a_fmt);
    in.b_bias = bias_for(r, in.b_fmt);
    in.o_bias = bias_for(r, in.o_fmt);
    in.o_sr = r.chance(0.2);
    in.o_sat = r.chance(0.2);
    if (in.op == Op::quantize_mx) {
      static const unsigned elems[] = {6, 4, 8};
      in.a_fmt = r.chance(0.5) ? 0u : 2u;
      in.a_bias = 0;
      in.o_fmt = elems[r.below(3)];
      in.o_bias = 0;
      in.o_mx = true;
      in.o_sr = false;
      in.mx_neuron = r.chance(0.5);
    }
    // addresses: a random first element of each pattern's type that keeps the pattern inside
    // operands in PSUM (FP32, or INT32 for an integer operand: an integer matmul's sums): the
    // evacuation path reads it, and engines may write it
    auto psum_operand = [&](unsigned& fmt, unsigned& bias) {
      if (!r.chance(0.2) || (in.op == Op::quantize_mx && &fmt == &in.o_fmt)) return false;
      fmt = is_int_dtype(fmt) ? kInt32 : 0;
      bias = 0;
      return true;
    };
    in.a_space = psum_operand(in.a_fmt, in.a_bias);
    in.b_space = psum_operand(in.b_fmt, in.b_bias);
    in.o_space = psum_operand(in.o_fmt, in.o_bias);
    auto place = [&](unsigned dt, const std::array<std::uint32_t, kDims>& size,
                     const std::array<std::uint32_t, kDims>& st, bool psum = false) {
      const std::uint64_t elems = 2 * std::uint64_t{psum ? s.psum_bytes : s.bytes} >> mem::dtype_esize(dt);
      std::uint64_t last = 0;
      for (unsigned d = 0; d < kDims; ++d) last += static_cast<std::uint64_t>(size[d] - 1) * st[d];
      std::uint64_t idx = r.below(elems > last ? elems - last : 1);
      if (mem::dtype_esize(dt) == 0) idx &= ~std::uint64_t{1};  // a byte address: an even 4-bit element
      return mem::byte_address(idx, mem::dtype_esize(dt));
    };
    const auto osz = out_sizes(in);
    constexpr unsigned kE8m0 = 9;
    in.a_addr = place(in.a_fmt, in.size, in.a_stride, in.a_space);
    in.b_addr = place(in.b_fmt, in.size, in.b_stride, in.b_space);
    in.o_addr = place(in.o_fmt, osz, in.o_stride, in.o_space);
    in.sc_addr = place(kE8m0, in.size, in.o_stride);
    in.s0_addr = 4 * static_cast<std::uint32_t>(r.below(s.bytes / 4));
    in.s1_addr = 4 * static_cast<std::uint32_t>(r.below(s.bytes / 4));
    in.alu0 = static_cast<Alu>(r.below(kAluCount));
    in.alu1 = static_cast<Alu>(r.below(kAluCount));
    if (in.op == Op::tensor_reduce) {
      static const Alu red[] = {Alu::add, Alu::max, Alu::min, Alu::absmax};
      in.alu0 = red[r.below(4)];
    }
    const bool idom = int_domain(in);
    auto imm = [&]() -> std::uint32_t {
      if (idom) return static_cast<std::uint32_t>(r.range(0, 200)) - 100u;
      return (static_cast<std::uint32_t>(r.next()) & 0x807FFFFFu) |
             (static_cast<std::uint32_t>(r.range(118, 132)) << 23);
    };
    in.imm0 = imm();
    in.imm1 = imm();
    if (in.op == Op::iota) in.imm1 = static_cast<std::uint32_t>(r.range(0, 64));
    in.s0_vec = r.chance(0.4);
    in.s1_vec = r.chance(0.4);
    in.func = static_cast<unsigned>(r.below(scalar::kActCount));
    in.acc = r.chance(0.6);
    in.acc_clr = r.chance(0.3);

    if (check(in, s) != Err::none) continue;
    if (!outputs_clear(in)) continue;
    return in;
  }
}

}  // namespace

namespace {

/// Random legal instructions back to back, every op of the engine with random types, shapes,
/// strides (broadcast and gaps), partition ranges, FP8 biases, rounding modes and per-partition
/// operands, over one small memory (so instructions read what earlier ones wrote; a third of them
/// read the previous output directly); read latency 1..4 with request stalls, write stalls. After
/// each program the memory (and the scalar engine's accumulators) against the reference. With
/// `holds`, the write port is also held not ready before every tenth instruction: 300 cycles the
/// first time, then 20..250, so the engine's writes and the next command stall long.
Task<> random_programs_run(LeBench& t, Env& env, Rng* holds) {
  t.p_ready = 0.8;
  t.p_wready = 0.7;
  t.lat_min = 1;
  t.lat_max = 4;
  co_await t.start();
  auto r = env.rng("program");
  const unsigned programs = static_cast<unsigned>(scaled(env_count("LE_PROGRAMS", 4)));
  const unsigned per = static_cast<unsigned>(env_count("LE_INSTRS", 40));
  FunctionalReference ref(t.shape());
  Memory refmem, refpsum;
  unsigned total = 0, in_psum = 0, held = 0;
  std::array<unsigned, kOpCount> ops{};
  for (unsigned g = 0; g < programs; ++g) {
    fill_random(t.mem, r);
    fill_random(t.psum, r);
    refmem = t.mem;
    refpsum = t.psum;
    Instr seed;
    seed.op = Op::set_seed;
    seed.imm0 = static_cast<std::uint32_t>(r.next());
    co_await t.run(seed);
    ref.execute(seed, refmem, &refpsum);
    Instr prev;
    bool have_prev = false;
    for (unsigned i = 0; i < per; ++i) {
      Instr in = random_instr(r, t.shape());
      if (have_prev && reads_a(in) && r.chance(0.33)) {
        // read the previous instruction's output as this one's input, if that stays legal
        Instr dep = in;
        dep.a_addr = prev.o_addr;
        dep.a_stride = prev.o_stride;
        dep.a_fmt = prev.o_fmt;
        dep.a_space = prev.o_space;
        dep.a_bias = prev.o_bias;
        if (check(dep, t.shape()) == Err::none && outputs_clear(dep)) in = dep;
      }
      if (holds && i % 10 == 0) t.wr_hold_until = t.clk.cycle() + (held++ == 0 ? 300 : holds->range(20, 250));
      co_await t.issue(in);  // back to back: accepted as soon as the previous one is done
      check(ref.execute(in, refmem, &refpsum) == Err::none, "generated an illegal instruction");
      in_psum += (reads_a(in) && in.a_space) || (reads_b(in) && in.b_space) || in.o_space;
      ++ops[static_cast<unsigned>(in.op)];
      prev = in;
      have_prev = true;
      ++total;
    }
    co_await t.wait_done(total + g + 1);
    check(t.err_count == 0, "{} legal instructions were rejected (first code {})", t.err_count,
          t.err_codes.empty() ? 0u : t.err_codes[0]);
    t.compare_memory(refmem, &refpsum);
    if (kScalar) t.compare_acc(ref);
  }
  std::string mix;
  for (unsigned o = 0; o < kOpCount; ++o)
    if (ops[o]) mix += fmt::format(" {}={}", op_name(static_cast<Op>(o)), ops[o]);
  info(
      "{} instructions ({} with an operand in PSUM), {} writes, {} write holds, SBUF and PSUM match the reference; "
      "mix:{}",
      total, in_psum, t.writes, held, mix);
}

}  // namespace

TRN_TEST(random_programs, .timeout_ns = 1e11) {
  LeBench t(env);
  co_await random_programs_run(t, env, nullptr);
}

TRN_TEST(long_stalls, .timeout_ns = 1e11) {
  LeBench t(env);
  auto holds = env.rng("holds");
  co_await random_programs_run(t, env, &holds);
}

TRN_TEST(every_type_pair, .timeout_ns = 1e11) {
  // Every input type to every output type (vector: copy; scalar: activate identity), with RNE,
  // RNE + saturate and stochastic rounding, over all partitions and a strided pattern.
  LeBench t(env);
  t.p_wready = 0.8;
  co_await t.start();
  auto r = env.rng("types");
  fill_random(t.mem, r);
  Memory refmem = t.mem;
  FunctionalReference ref(t.shape());
  const std::uint32_t half = t.prm.sbuf_bytes / 2;  // inputs in the lower half, outputs in the upper
  unsigned n = 0;
  for (unsigned a = 0; a < kDtypeCount; ++a)
    for (unsigned o = 0; o < kDtypeCount; ++o)
      for (unsigned mode = 0; mode < 3; ++mode) {
        Instr in;
        in.op = kScalar ? Op::activate : Op::copy;
        in.func = 0;
        in.imm0 = 0x3F800000u;  // scale 1.0
        in.imm1 = 0x80000000u;  // bias -0.0 (x + -0 = x, -0 kept)
        in.ps = 0;
        in.pc = t.prm.lanes;
        in.a_fmt = a;
        in.a_bias = bias_for(r, a);
        in.o_fmt = o;
        in.o_bias = bias_for(r, o);
        in.o_sat = mode == 1;
        in.o_sr = mode == 2;
        in.size = {4, 2, 1, 1};
        in.a_stride = {1, 5, 0, 0};
        in.o_stride = {2, 9, 0, 0};
        // patterns of at most 4 x 5 + 1 + 1 and 2 x 9 + 1 + 1 elements of at most 4 bytes
        const auto align = [](std::uint32_t b, unsigned dt) {
          const std::uint32_t size = std::max(1u, (1u << mem::dtype_esize(dt)) / 2);  // bytes
          return b - b % size;
        };
        in.a_addr = align(static_cast<std::uint32_t>(r.below(half - 16 * 4)), a);
        in.o_addr = align(half + static_cast<std::uint32_t>(r.below(half - 24 * 4)), o);
        in.tag = n & 15;
        co_await t.issue(in);
        check(ref.execute(in, refmem) == Err::none, "copy {} -> {} rejected by the reference", dtype_name(a),
              dtype_name(o));
        ++n;
      }
  co_await t.wait_done(n);
  check(t.err_count == 0, "{} legal instructions were rejected", t.err_count);
  t.compare_memory(refmem);
  info("{} type pairs x rounding modes, memory matches the reference", n);
}

TRN_TEST(illegal_instructions, .timeout_ns = 1e9) {
  // Each kind of illegal instruction is answered with its error code and writes nothing.
  LeBench t(env);
  co_await t.start();
  auto r = env.rng("fill");
  fill_random(t.mem, r);
  const Memory before = t.mem;
  const Shape s = t.shape();
  const unsigned L = t.prm.lanes;
  Instr base;
  base.op = kScalar ? Op::activate : Op::copy;
  base.pc = L;
  base.size = {4, 1, 1, 1};
  base.a_stride = base.o_stride = {1, 0, 0, 0};
  base.o_addr = 64;
  base.imm0 = 0x3F800000u;
  std::vector<std::pair<Instr, Err>> bad;
  auto add = [&](auto&& edit, Err e) {
    Instr in = base;
    edit(in);
    bad.emplace_back(in, e);
  };
  // op
  add([](Instr& in) { in.op = static_cast<Op>(12); }, Err::op);
  add([](Instr& in) { in.op = static_cast<Op>(15); }, Err::op);
  add([](Instr& in) { in.op = kScalar ? Op::copy : Op::activate; }, Err::op);  // the other engine's op
  if (kScalar) {
    add([](Instr& in) { in.func = 12; }, Err::op);
  } else {
    add(
        [](Instr& in) {
          in.op = Op::tensor_tensor;
          in.alu0 = Alu::absmax;
        },
        Err::op);
    add(
        [](Instr& in) {
          in.op = Op::tensor_reduce;
          in.alu0 = Alu::mul;
        },
        Err::op);
    add(
        [](Instr& in) {
          in.op = Op::tensor_scalar;
          in.alu1 = static_cast<Alu>(11);
        },
        Err::op);
  }
  // type
  add([](Instr& in) { in.a_fmt = 14; }, Err::type);
  add([](Instr& in) { in.o_fmt = 15; }, Err::type);
  add(
      [](Instr& in) {
        in.o_fmt = 6;
        in.o_mx = true;
      },
      Err::type);  // MX output for a non-MX op
  add(
      [](Instr& in) {
        in.o_space = true;
        in.o_fmt = 2;
      },
      Err::type);  // PSUM holds FP32 or INT32 only
  add(
      [](Instr& in) {
        in.a_space = true;
        in.a_fmt = kInt16;
      },
      Err::type);
  if (!kScalar) {
    add(
        [](Instr& in) {
          in.op = Op::tensor_tensor;
          in.alu0 = Alu::bit_xor;
          in.a_fmt = 2;
        },
        Err::type);
    add(
        [](Instr& in) {
          in.op = Op::tensor_tensor;
          in.alu0 = Alu::div;
          in.a_fmt = in.b_fmt = in.o_fmt = kInt32;
        },
        Err::type);
    add(
        [](Instr& in) {
          in.op = Op::quantize_mx;
          in.a_fmt = 3;
          in.o_fmt = 6;
          in.o_mx = true;
        },
        Err::type);
    add(
        [](Instr& in) {
          in.op = Op::quantize_mx;
          in.o_fmt = 2;
          in.o_mx = true;
        },
        Err::type);
    add(
        [](Instr& in) {
          in.op = Op::quantize_mx;
          in.o_fmt = 6;
          in.o_mx = false;
        },
        Err::type);
  }
  // partitions
  add([](Instr& in) { in.pc = 0; }, Err::partitions);
  add(
      [&](Instr& in) {
        in.ps = 1;
        in.pc = L;
      },
      Err::partitions);
  add(
      [&](Instr& in) {
        in.ps = L;
        in.pc = 1;
      },
      Err::partitions);
  if (!kScalar && L >= 2) {
    add(
        [&](Instr& in) {
          in.op = Op::transpose;
          in.ps = 1;
          in.pc = L - 1;
          in.size = {s.group(), 1, 1, 1};
        },
        Err::partitions);
    add(
        [&](Instr& in) {
          in.op = Op::quantize_mx;
          in.o_fmt = 6;
          in.o_mx = true;
          in.pc = L - 1;
        },
        Err::partitions);
  }
  // access patterns
  add([](Instr& in) { in.size[2] = 0; }, Err::pattern);
  add([&](Instr& in) { in.a_addr = s.bytes - 12; }, Err::pattern);  // four FP32 elements run past the end
  add([&](Instr& in) { in.o_addr = s.bytes; }, Err::pattern);
  add(
      [&](Instr& in) {
        in.o_space = true;
        in.o_addr = s.psum_bytes - 12;
      },
      Err::pattern);  // past the end of PSUM
  add(
      [&](Instr& in) {
        in.a_space = true;
        in.a_addr = s.psum_bytes;
      },
      Err::pattern);
  add(
      [&](Instr& in) {
        in.size = {2, 2, 1, 1};
        in.o_stride = {1, s.bytes / 4, 0, 0};
      },
      Err::pattern);
  add([&](Instr& in) { in.a_addr = (1u << kAddrBits) - 4; }, Err::pattern);
  add([&](Instr& in) { in.a_addr = 6; }, Err::pattern);  // FP32 not aligned to 4 bytes
  add(
      [&](Instr& in) {
        in.o_fmt = 2;
        in.o_addr = 65;
      },
      Err::pattern);  // BF16 not aligned to 2 bytes
  if (kScalar) {
    add(
        [&](Instr& in) {
          in.s0_vec = true;
          in.s0_addr = s.bytes;
        },
        Err::pattern);
    add(
        [&](Instr& in) {
          in.s0_vec = true;
          in.s0_addr = 2;
        },
        Err::pattern);  // not aligned
    add(
        [&](Instr& in) {
          in.op = Op::acc_store;
          in.o_addr = s.bytes + 20;
        },
        Err::pattern);
  } else {
    add(
        [&](Instr& in) {
          in.op = Op::transpose;
          in.size = {s.group() + 1, 1, 1, 1};
        },
        Err::pattern);
    add(
        [&](Instr& in) {
          in.op = Op::tensor_scalar;
          in.s1_vec = true;
          in.s1_addr = s.bytes + 4;
        },
        Err::pattern);
    add(
        [&](Instr& in) {
          in.op = Op::quantize_mx;
          in.o_fmt = 6;
          in.o_mx = true;
          in.pc = s.group() * (L / s.group());
          in.sc_addr = s.bytes - 3;
        },
        Err::pattern);  // the scale bytes run past the end
  }
  for (std::size_t i = 0; i < bad.size(); ++i) {
    bad[i].first.tag = static_cast<unsigned>(i & 15);
    check(trn::vector::check(bad[i].first, s) == bad[i].second, "case {}: the model's check gives {}, expected {}", i,
          static_cast<unsigned>(trn::vector::check(bad[i].first, s)), static_cast<unsigned>(bad[i].second));
    co_await t.issue(bad[i].first);
  }
  // a legal instruction after them all still runs
  co_await t.issue(base);
  // and so does a copy that carries per-partition operand addresses it never reads (past the end,
  // not aligned): only tensor_scalar and activate fetch them, so only they are checked
  Instr stray = base;
  stray.s0_vec = stray.s1_vec = true;
  stray.s0_addr = s.bytes;
  stray.s1_addr = 2;
  stray.o_addr = 128;
  stray.tag = 15;
  if (!kScalar) {
    check(trn::vector::check(stray, s) == Err::none, "the model's check refuses a copy for operands it does not read");
    co_await t.issue(stray);
  }
  co_await t.wait_done(static_cast<unsigned>(bad.size()) + 1 + (kScalar ? 0 : 1));
  for (int k = 0; k < 10; ++k) co_await t.cycle();
  check(t.err_count == bad.size(), "{} rejections for {} illegal instructions", t.err_count, bad.size());
  for (std::size_t i = 0; i < bad.size(); ++i)
    check(t.err_codes[i] == static_cast<unsigned>(bad[i].second), "illegal instruction {}: code {}, expected {}", i,
          t.err_codes[i], static_cast<unsigned>(bad[i].second));
  Memory want = before;
  FunctionalReference ref(s);
  ref.execute(base, want);
  if (!kScalar) ref.execute(stray, want);
  t.compare_memory(want);  // only the legal copies wrote anything
}

TRN_TEST(directed_values, .timeout_ns = 1e9, .skip = kScalar) {
  // Values random words almost never draw, each where a slip in the lane arithmetic shows:
  //   - exp at x = 0x42B17218 (88.7228...), the largest input below the overflow bound: finite
  //     (0x7F7FFB49), where a bound one code lower gives +Inf; and one code above it, and -104,
  //     the underflow bound (+0);
  //   - an FP32 division whose exact quotient is a subnormal tie (5 x 2^-149 / 2 = 2.5 x 2^-149:
  //     RNE gives 2 x 2^-149; a remainder computed wrong makes it look inexact, and rounds up);
  //   - an int32 absmax reduction whose running maximum has bit 30 set (0x40000000 then 1): the
  //     magnitude's sign is bit 31.
  // Each lane holds the same words; the reference gives the expected memory.
  LeBench t(env);
  co_await t.start();
  auto r = env.rng("fill");
  fill_random(t.mem, r);
  const Shape s = t.shape();
  const unsigned L = t.prm.lanes;
  const std::uint32_t xs[] = {0x42B17218u, 0x42B17219u, 0x42B17217u, 0xC2D00000u, 0xC2CFFFFFu};
  for (auto& row : t.mem) {
    for (std::uint32_t i = 0; i < 5; ++i) set_word(row, i, xs[i]);
    set_word(row, 8, 0x00000005u);  // a / b
    set_word(row, 9, 0x40000000u);
    set_word(row, 12, 0x40000000u);  // absmax over two int32 words
    set_word(row, 13, 0x00000001u);
  }
  Memory want = t.mem;
  FunctionalReference ref(s);
  std::vector<Instr> prog;
  Instr e;
  e.op = Op::exp;
  e.pc = L;
  e.size = {5, 1, 1, 1};
  e.a_stride = e.o_stride = {1, 0, 0, 0};
  e.a_addr = 0;
  e.o_addr = 256;
  prog.push_back(e);
  Instr d;
  d.op = Op::tensor_tensor;
  d.alu0 = Alu::div;
  d.pc = L;
  d.a_addr = 32;
  d.b_addr = 36;
  d.o_addr = 320;
  prog.push_back(d);
  Instr m;
  m.op = Op::tensor_reduce;
  m.alu0 = Alu::absmax;
  m.pc = L;
  m.a_fmt = m.o_fmt = kInt32;
  m.size = {2, 1, 1, 1};
  m.a_stride = {1, 0, 0, 0};
  m.a_addr = 48;
  m.o_addr = 384;
  prog.push_back(m);
  for (std::size_t i = 0; i < prog.size(); ++i) {
    prog[i].tag = static_cast<unsigned>(i);
    check(ref.execute(prog[i], want) == Err::none, "directed instruction {} refused by the reference", i);
    co_await t.issue(prog[i]);
  }
  co_await t.wait_done(static_cast<unsigned>(prog.size()));
  check(t.err_count == 0, "{} directed instructions were refused", t.err_count);
  check(word(want[0], 64) == 0x7F7FFB49u && word(want[0], 65) == 0x7F800000u && word(want[0], 67) == 0u &&
            word(want[0], 80) == 0x00000002u && word(want[0], 96) == 0x40000000u,
        "the reference's directed values: exp {:#010x} {:#010x} {:#010x}, div {:#010x}, absmax {:#010x}",
        word(want[0], 64), word(want[0], 65), word(want[0], 67), word(want[0], 80), word(want[0], 96));
  t.compare_memory(want);
}

TRN_TEST(selftest_memory_compare_catches_wrong_value, .timeout_ns = 1e9, .expect_fail = true) {
  // The memory comparison must fail when the reference and the DUT differ in one element.
  expect_failure([](const TestFailure& f) {
    check(std::string(f.what()).find("memory partition") != std::string::npos, "wrong failure: {}", f.what());
  });
  LeBench t(env);
  co_await t.start();
  auto r = env.rng("fill");
  fill_random(t.mem, r);
  Memory refmem = t.mem, refpsum = t.psum;
  FunctionalReference ref(t.shape());
  Instr in = random_instr(r, t.shape());
  co_await t.run(in);
  ref.execute(in, refmem, &refpsum);
  refmem[t.prm.lanes - 1][t.prm.sbuf_bytes - 1] ^= 0x10u;
  t.compare_memory(refmem);
}

namespace {

/// A row program over both engines: steps of this bench's engine run on the RTL (in lockstep),
/// the other engine's on its cycle model (ModelRunner) over the same memory; every step also goes
/// to the functional reference of its engine on a copy of the memory.
struct RowProgram {
  LeBench& t;
  Shape vshape, sshape;
  ModelRunner other;
  FunctionalReference vref, sref;
  Memory refmem;

  explicit RowProgram(LeBench& b)
      : t(b),
        vshape{Engine::vector, b.prm.lanes, b.prm.sbuf_bytes},
        sshape{Engine::scalar, b.prm.lanes, b.prm.sbuf_bytes},
        other(LaneEngine::Params{kScalar ? Engine::vector : Engine::scalar, b.prm.lanes, b.prm.sbuf_bytes}, b.mem),
        vref(vshape),
        sref(sshape),
        refmem(b.mem) {}

  Task<> step(const Instr& in, Engine e) {
    if ((e == Engine::scalar) == kScalar) {
      co_await t.run(in);
    } else {
      const auto r = other.run(in);
      check(r.err == Err::none, "{} on the {} engine model: error {}", op_name(in.op), kScalar ? "vector" : "scalar",
            static_cast<unsigned>(r.err));
    }
    check((e == Engine::vector ? vref : sref).execute(in, refmem) == Err::none, "{} rejected by the reference",
          op_name(in.op));
  }
};

/// An FP32 row instruction over all partitions: n elements from word a (dense) to word o.
Instr row(Op op, std::uint32_t a, std::uint32_t o, std::uint32_t n, unsigned lanes) {
  Instr in;
  in.op = op;
  in.pc = lanes;
  in.a_addr = 4 * a;
  in.b_addr = 4 * a;
  in.o_addr = 4 * o;
  in.size = {n, 1, 1, 1};
  in.a_stride = in.b_stride = in.o_stride = {1, 0, 0, 0};
  in.imm0 = 0x3F800000u;
  in.alu1 = Alu::bypass;
  return in;
}

std::uint32_t f32(float v) { return numerics::f32_bits(v); }
float fl(std::uint32_t b) { return numerics::f32_from(b); }

}  // namespace

TRN_TEST(softmax_rows, .timeout_ns = 1e10) {
  // Softmax of each partition's row of n FP32 values: max, x - max, exp, sum, divide (vector
  // engine); on the scalar engine's bench: exp with a per-partition bias and the accumulator,
  // acc_store, reciprocal and a per-partition scale. Against a double-precision softmax; bound in
  // docs/vector.md.
  LeBench t(env);
  t.p_wready = 0.8;
  t.lat_max = 3;
  co_await t.start();
  auto r = env.rng("rows");
  const unsigned L = t.prm.lanes, n = std::min(32u, t.prm.sbuf_bytes / 32);
  const std::uint32_t X = 0, T = n, E = 2 * n, Y = 3 * n, M = 4 * n, S = 4 * n + 1, R = 4 * n + 2, NM = 4 * n + 3;
  double worst = 0;
  for (unsigned trial = 0; trial < 4; ++trial) {
    const float spread = trial == 3 ? 40.0f : 8.0f;  // the last rows span e^-80 .. 1
    for (unsigned l = 0; l < L; ++l)
      for (unsigned i = 0; i < n; ++i)
        set_word(t.mem[l], X + i,
                 f32(static_cast<float>((static_cast<double>(r.below(1u << 20)) / (1u << 20) * 2 - 1) * spread)));
    RowProgram g(t);
    Instr mx = row(Op::tensor_reduce, X, M, n, L);
    mx.alu0 = Alu::max;
    co_await g.step(mx, Engine::vector);
    if (!kScalar) {
      Instr sub = row(Op::tensor_scalar, X, T, n, L);
      sub.alu0 = Alu::sub;
      sub.s0_vec = true;
      sub.s0_addr = 4 * M;
      co_await g.step(sub, Engine::vector);
      co_await g.step(row(Op::exp, T, E, n, L), Engine::vector);
      Instr sum = row(Op::tensor_reduce, E, S, n, L);
      sum.alu0 = Alu::add;
      co_await g.step(sum, Engine::vector);
      Instr div = row(Op::tensor_scalar, E, Y, n, L);
      div.alu0 = Alu::div;
      div.s0_vec = true;
      div.s0_addr = 4 * S;
      co_await g.step(div, Engine::vector);
    } else {
      Instr neg = row(Op::tensor_scalar, M, NM, 1, L);
      neg.alu0 = Alu::mul;
      neg.imm0 = f32(-1.0f);
      co_await g.step(neg, Engine::vector);
      Instr ex = row(Op::activate, X, E, n, L);
      ex.func = static_cast<unsigned>(scalar::Act::exp);
      ex.s1_vec = true;
      ex.s1_addr = 4 * NM;
      ex.acc = ex.acc_clr = true;
      co_await g.step(ex, Engine::scalar);
      co_await g.step(row(Op::acc_store, 0, S, 1, L), Engine::scalar);
      Instr rc = row(Op::activate, S, R, 1, L);
      rc.func = static_cast<unsigned>(scalar::Act::reciprocal);
      co_await g.step(rc, Engine::scalar);
      Instr sc = row(Op::activate, E, Y, n, L);
      sc.func = static_cast<unsigned>(scalar::Act::identity);
      sc.s0_vec = true;
      sc.s0_addr = 4 * R;
      co_await g.step(sc, Engine::scalar);
    }
    t.compare_memory(g.refmem);
    for (unsigned l = 0; l < L; ++l) {
      double mxv = -1e300, sum = 0;
      for (unsigned i = 0; i < n; ++i) mxv = std::max(mxv, static_cast<double>(fl(word(t.mem[l], X + i))));
      for (unsigned i = 0; i < n; ++i) sum += std::exp(static_cast<double>(fl(word(t.mem[l], X + i))) - mxv);
      for (unsigned i = 0; i < n; ++i) {
        const double want = std::exp(static_cast<double>(fl(word(t.mem[l], X + i))) - mxv) / sum;
        const double got = fl(word(t.mem[l], Y + i));
        const double err = std::abs(got - want) / (want + 1e-30);
        if (want > 1e-30) worst = std::max(worst, err);  // FP32 subnormal outputs excluded: absolute check below
        check(std::abs(got - want) <= kSoftmaxRel * want + 1e-37,
              "softmax partition {} element {}: {} vs {} (rel {:.3g})", l, i, got, want, err);
      }
    }
  }
  fmt::print("bench: figure {} softmax rows n={}: max relative error {:.3g} (bound {:.3g})\n", TRN_BENCH_NAME, n, worst,
             kSoftmaxRel);
}

TRN_TEST(layernorm_rows, .timeout_ns = 1e10) {
  // Layer norm of each partition's row: mean and variance by reductions (vector engine), rsqrt of
  // variance + eps (scalar engine), normalize. Against a double-precision reference; bound in
  // docs/vector.md.
  LeBench t(env);
  t.p_wready = 0.8;
  t.lat_max = 3;
  co_await t.start();
  auto r = env.rng("rows");
  const unsigned L = t.prm.lanes, n = std::min(32u, t.prm.sbuf_bytes / 32);
  const std::uint32_t X = 0, C = n, Q = 2 * n, Y = 3 * n, SUM = 4 * n, MEAN = SUM + 1, VS = SUM + 2, VE = SUM + 3,
                      R = SUM + 4;
  const float eps = 1e-5f;
  double worst = 0;
  for (unsigned trial = 0; trial < 4; ++trial) {
    const double offset = trial * 3.0, scale = trial == 2 ? 0.01 : 2.0;
    for (unsigned l = 0; l < L; ++l)
      for (unsigned i = 0; i < n; ++i)
        set_word(
            t.mem[l], X + i,
            f32(static_cast<float>(offset + scale * ((static_cast<double>(r.below(1u << 20)) / (1u << 20)) * 2 - 1))));
    RowProgram g(t);
    Instr sum = row(Op::tensor_reduce, X, SUM, n, L);
    sum.alu0 = Alu::add;
    co_await g.step(sum, Engine::vector);
    Instr mean = row(Op::tensor_scalar, SUM, MEAN, 1, L);
    mean.alu0 = Alu::mul;
    mean.imm0 = f32(1.0f / static_cast<float>(n));
    co_await g.step(mean, Engine::vector);
    Instr ctr = row(Op::tensor_scalar, X, C, n, L);
    ctr.alu0 = Alu::sub;
    ctr.s0_vec = true;
    ctr.s0_addr = 4 * MEAN;
    co_await g.step(ctr, Engine::vector);
    Instr sq = row(Op::tensor_tensor, C, Q, n, L);
    sq.alu0 = Alu::mul;
    co_await g.step(sq, Engine::vector);
    Instr vs = row(Op::tensor_reduce, Q, VS, n, L);
    vs.alu0 = Alu::add;
    co_await g.step(vs, Engine::vector);
    Instr ve = row(Op::tensor_scalar, VS, VE, 1, L);
    ve.alu0 = Alu::mul;
    ve.imm0 = f32(1.0f / static_cast<float>(n));
    ve.alu1 = Alu::add;
    ve.imm1 = f32(eps);
    co_await g.step(ve, Engine::vector);
    Instr rs = row(Op::activate, VE, R, 1, L);
    rs.func = static_cast<unsigned>(scalar::Act::rsqrt);
    co_await g.step(rs, Engine::scalar);
    if (kScalar) {
      Instr nm = row(Op::activate, C, Y, n, L);
      nm.func = static_cast<unsigned>(scalar::Act::identity);
      nm.s0_vec = true;
      nm.s0_addr = 4 * R;
      co_await g.step(nm, Engine::scalar);
    } else {
      Instr nm = row(Op::tensor_scalar, C, Y, n, L);
      nm.alu0 = Alu::mul;
      nm.s0_vec = true;
      nm.s0_addr = 4 * R;
      co_await g.step(nm, Engine::vector);
    }
    t.compare_memory(g.refmem);
    for (unsigned l = 0; l < L; ++l) {
      double m = 0, v = 0;
      for (unsigned i = 0; i < n; ++i) m += fl(word(t.mem[l], X + i));
      m /= n;
      for (unsigned i = 0; i < n; ++i) v += (fl(word(t.mem[l], X + i)) - m) * (fl(word(t.mem[l], X + i)) - m);
      v /= n;
      double maxabs = 0;
      for (unsigned i = 0; i < n; ++i)
        maxabs = std::max(maxabs, static_cast<double>(std::abs(fl(word(t.mem[l], X + i)))));
      const double sd = std::sqrt(v + static_cast<double>(eps)), u = 0x1p-24;
      for (unsigned i = 0; i < n; ++i) {
        const double x = fl(word(t.mem[l], X + i)), want = (x - m) / sd, got = fl(word(t.mem[l], Y + i));
        // docs/vector.md: the FP32 mean's error over the standard deviation, the centred value's
        // rounding, and the variance / rsqrt / product roundings relative to the output; twice over.
        const double bound = 2 * (((n - 1) * u * maxabs + u * std::abs(x - m)) / sd + (n + 8) * u * std::abs(want));
        worst = std::max(worst, std::abs(got - want) / bound);
        check(std::abs(got - want) <= bound, "layer norm partition {} element {}: {} vs {} (bound {:.3g})", l, i, got,
              want, bound);
      }
    }
  }
  fmt::print("bench: figure {} layer norm rows n={}: largest error / bound {:.3g}\n", TRN_BENCH_NAME, n, worst);
}

TRN_TEST(throughput) {
  // make bench: for each instruction class, elements per cycle at steady state and the fixed
  // overhead per instruction (two sizes, read latency 1, no stalls), then back-to-back copies (or
  // identity activations) for the simulation-speed figure.
  LeBench t(env);
  co_await t.start();
  auto r = env.rng("fill");
  fill_random(t.mem, r);
  const unsigned L = t.prm.lanes, G = t.shape().group();
  const std::uint32_t words = t.prm.sbuf_bytes / 4, big = std::min(256u, words / 4), small = big / 4;
  auto timed = [&](Instr in) -> Task<std::uint64_t> {
    const std::uint64_t c0 = t.clk.cycle();
    co_await t.run(in);
    co_return t.clk.cycle() - c0;
  };
  auto shaped = [&](Op op, std::uint32_t n) {
    Instr in = row(op, 0, words / 2, n, L);
    in.a_fmt = in.b_fmt = in.o_fmt = 2;  // BF16
    in.b_addr = 4 * (words / 4);
    in.s0_addr = in.s1_addr = 4 * (words - 1);
    in.sc_addr = 4 * (3 * words / 4);
    return in;
  };
  struct Case {
    const char* name;
    Op op;
    Alu alu0;
    bool vec;
  };
  std::vector<Case> cases;
  if (kScalar)
    cases = {{"activate (gelu)", Op::activate, Alu::add, false},
             {"activate, per-partition scale", Op::activate, Alu::add, true}};
  else
    cases = {{"copy", Op::copy, Alu::add, false},
             {"tensor_tensor add", Op::tensor_tensor, Alu::add, false},
             {"tensor_scalar, immediates", Op::tensor_scalar, Alu::mul, false},
             {"tensor_scalar, per-partition", Op::tensor_scalar, Alu::mul, true},
             {"tensor_reduce add", Op::tensor_reduce, Alu::add, false},
             {"exp (fast)", Op::exp, Alu::add, false},
             {"iota", Op::iota, Alu::add, false},
             {"memset", Op::memset, Alu::add, false},
             {"quantize_mx", Op::quantize_mx, Alu::add, false}};
  for (const Case& c : cases) {
    std::array<std::uint64_t, 2> cyc{};
    const std::array<std::uint32_t, 2> n{small, big};
    for (unsigned k = 0; k < 2; ++k) {
      Instr in = shaped(c.op, n[k]);
      in.alu0 = c.alu0;
      in.s0_vec = c.vec;
      in.func = static_cast<unsigned>(scalar::Act::gelu);
      if (c.op == Op::quantize_mx) {
        in.a_fmt = 2;
        in.o_fmt = 6;
        in.o_mx = true;
      }
      cyc[k] = co_await timed(in);
    }
    const double per_cycle = static_cast<double>(n[1] - n[0]) / static_cast<double>(cyc[1] - cyc[0]);
    const double overhead = static_cast<double>(cyc[1]) - n[1] / per_cycle;
    fmt::print(
        "bench: figure {} {} lanes {}: {:.2f} elements/cycle ({:.2f} per lane) at steady state, "
        "fixed overhead {:.0f} cycles per instruction ({} elements per lane in {} cycles)\n",
        TRN_BENCH_NAME, c.name, L, per_cycle * L, per_cycle, overhead, n[1], cyc[1]);
  }
  if (!kScalar) {
    Instr tr = shaped(Op::transpose, G);
    const std::uint64_t c1 = co_await timed(tr);
    fmt::print(
        "bench: figure {} transpose {}x{} lanes {}: {} cycles for {} elements per lane ({:.2f} per lane per "
        "cycle: the buffer is loaded, then written)\n",
        TRN_BENCH_NAME, G, G, L, c1, G, static_cast<double>(G) / static_cast<double>(c1));
  }
  // simulation speed: back-to-back streaming instructions
  const std::uint64_t want = bench_cycles(20000);
  BenchTimer timer;
  const std::uint64_t c0 = t.clk.cycle();
  while (t.clk.cycle() - c0 < want) {
    Instr in = shaped(kScalar ? Op::activate : Op::copy, big);
    in.func = 0;
    co_await t.run(in);
  }
  timer.report(t.clk.cycle() - c0);
}

TRN_BENCH_MAIN(Vlane_engine, TRN_BENCH_NAME)
