#include "vector/lane_engine.hpp"

#include <stdexcept>

#include "common/clog2.hpp"
#include "mem/elements.hpp"
#include "numerics/arith.hpp"
#include "numerics/mx.hpp"
#include "numerics/sr_rng.hpp"
#include "scalar/activation.hpp"

namespace trn::vector {

namespace {

// The model's codes are the package's (rtl/vector/le_pkg.sv): errors, operations, ALU operations.
using sv::le_pkg::alu_e;
using sv::le_pkg::le_err_e;
using sv::le_pkg::op_e;
template <class A, class B>
constexpr bool same(A a, B b) {
  return static_cast<unsigned>(a) == static_cast<unsigned>(b);
}
static_assert(same(Err::none, le_err_e::LeErrNone) && same(Err::pattern, le_err_e::LeErrPattern) &&
              same(Err::partitions, le_err_e::LeErrPartitions) && same(Err::type, le_err_e::LeErrType) &&
              same(Err::op, le_err_e::LeErrOp));
static_assert(same(Op::copy, op_e::OpCopy) && same(Op::tensor_tensor, op_e::OpTensorTensor) &&
              same(Op::tensor_scalar, op_e::OpTensorScalar) && same(Op::tensor_reduce, op_e::OpTensorReduce) &&
              same(Op::exp, op_e::OpExp) && same(Op::iota, op_e::OpIota) && same(Op::memset, op_e::OpMemset) &&
              same(Op::quantize_mx, op_e::OpQuantizeMx) && same(Op::transpose, op_e::OpTranspose) &&
              same(Op::activate, op_e::OpActivate) && same(Op::acc_store, op_e::OpAccStore) &&
              same(Op::set_seed, op_e::OpSetSeed));
static_assert(same(Alu::add, alu_e::AluAdd) && same(Alu::sub, alu_e::AluSub) && same(Alu::mul, alu_e::AluMul) &&
              same(Alu::max, alu_e::AluMax) && same(Alu::min, alu_e::AluMin) && same(Alu::bit_and, alu_e::AluAnd) &&
              same(Alu::bit_or, alu_e::AluOr) && same(Alu::bit_xor, alu_e::AluXor) &&
              same(Alu::absmax, alu_e::AluAbsmax) && same(Alu::bypass, alu_e::AluBypass) &&
              same(Alu::div, alu_e::AluDiv));

std::uint32_t field(std::uint64_t packed, unsigned d) {
  return static_cast<std::uint32_t>((packed >> (kDimBits * d)) & ((1u << kDimBits) - 1));
}
std::uint64_t pack(const std::array<std::uint32_t, kDims>& a) {
  std::uint64_t v = 0;
  for (unsigned d = 0; d < kDims; ++d) v |= static_cast<std::uint64_t>(a[d] & ((1u << kDimBits) - 1)) << (kDimBits * d);
  return v;
}

}  // namespace

LaneEngine::LaneEngine(Params p) : p_(p) {
  if (p_.lanes < 1 || p_.lanes > 128) throw std::invalid_argument("LaneEngine: lanes must be 1..128");
  if (p_.lanes >= 32 && p_.lanes % 32 != 0)
    throw std::invalid_argument("LaneEngine: lanes above 32 must be a multiple of 32");
  if (p_.sbuf_bytes < 8) throw std::invalid_argument("LaneEngine: sbuf_bytes must be >= 8");
  if (p_.fifo_depth < 2) throw std::invalid_argument("LaneEngine: fifo_depth must be >= 2");
  reset();
}

LaneEngine::In LaneEngine::make_in() const {
  In in;
  in.rd0_rsp_data_i = Bits(32 * p_.lanes);
  in.rd1_rsp_data_i = Bits(32 * p_.lanes);
  return in;
}

LaneEngine::Out LaneEngine::make_out() const {
  Out o;
  o.wr_mask_o = Bits(p_.lanes);
  o.wr_data_o = Bits(32 * p_.lanes);
  o.acc_o = Bits(32 * p_.lanes);
  return o;
}

Instr LaneEngine::decode(const instr_t& in) {
  Instr s;
  s.op = static_cast<Op>(in.op);
  s.tag = static_cast<unsigned>(in.tag);
  s.ps = static_cast<unsigned>(in.ps);
  s.pc = static_cast<unsigned>(in.pc);
  s.a_addr = static_cast<std::uint32_t>(in.a_addr);
  s.b_addr = static_cast<std::uint32_t>(in.b_addr);
  s.o_addr = static_cast<std::uint32_t>(in.o_addr);
  s.s0_addr = static_cast<std::uint32_t>(in.s0_addr);
  s.s1_addr = static_cast<std::uint32_t>(in.s1_addr);
  s.sc_addr = static_cast<std::uint32_t>(in.sc_addr);
  s.a_space = in.a_space;
  s.b_space = in.b_space;
  s.o_space = in.o_space;
  s.a_fmt = static_cast<unsigned>(in.a_fmt);
  s.a_bias = static_cast<unsigned>(in.a_bias);
  s.b_fmt = static_cast<unsigned>(in.b_fmt);
  s.b_bias = static_cast<unsigned>(in.b_bias);
  s.o_fmt = static_cast<unsigned>(in.o_fmt);
  s.o_bias = static_cast<unsigned>(in.o_bias);
  s.o_sr = in.o_sr;
  s.o_sat = in.o_sat;
  s.o_mx = in.o_mx;
  s.mx_neuron = in.mx_neuron;
  for (unsigned d = 0; d < kDims; ++d) {
    s.size[d] = field(in.size, d);
    s.a_stride[d] = field(in.a_stride, d);
    s.b_stride[d] = field(in.b_stride, d);
    s.o_stride[d] = field(in.o_stride, d);
  }
  s.alu0 = static_cast<Alu>(in.alu0);
  s.alu1 = static_cast<Alu>(in.alu1);
  s.imm0 = static_cast<std::uint32_t>(in.imm0);
  s.imm1 = static_cast<std::uint32_t>(in.imm1);
  s.s0_vec = in.s0_vec;
  s.s1_vec = in.s1_vec;
  s.func = static_cast<unsigned>(in.func);
  s.acc = in.acc;
  s.acc_clr = in.acc_clr;
  return s;
}

LaneEngine::instr_t LaneEngine::encode(const Instr& s) {
  instr_t in;
  constexpr std::uint64_t kAddrMask = (1u << kAddrBits) - 1;
  in.op = static_cast<decltype(in.op)>(static_cast<unsigned>(s.op) & 0xF);
  in.tag = static_cast<decltype(in.tag)>(s.tag & 0xF);
  in.ps = static_cast<decltype(in.ps)>(s.ps & 0xFF);
  in.pc = static_cast<decltype(in.pc)>(s.pc & 0xFF);
  in.a_addr = static_cast<decltype(in.a_addr)>(s.a_addr & kAddrMask);
  in.b_addr = static_cast<decltype(in.b_addr)>(s.b_addr & kAddrMask);
  in.o_addr = static_cast<decltype(in.o_addr)>(s.o_addr & kAddrMask);
  in.s0_addr = static_cast<decltype(in.s0_addr)>(s.s0_addr & kAddrMask);
  in.s1_addr = static_cast<decltype(in.s1_addr)>(s.s1_addr & kAddrMask);
  in.sc_addr = static_cast<decltype(in.sc_addr)>(s.sc_addr & kAddrMask);
  in.a_space = s.a_space;
  in.b_space = s.b_space;
  in.o_space = s.o_space;
  in.a_fmt = static_cast<decltype(in.a_fmt)>(s.a_fmt & 0xF);
  in.a_bias = static_cast<decltype(in.a_bias)>(s.a_bias & 0x3F);
  in.b_fmt = static_cast<decltype(in.b_fmt)>(s.b_fmt & 0xF);
  in.b_bias = static_cast<decltype(in.b_bias)>(s.b_bias & 0x3F);
  in.o_fmt = static_cast<decltype(in.o_fmt)>(s.o_fmt & 0xF);
  in.o_bias = static_cast<decltype(in.o_bias)>(s.o_bias & 0x3F);
  in.o_sr = static_cast<decltype(in.o_sr)>(s.o_sr);
  in.o_sat = static_cast<decltype(in.o_sat)>(s.o_sat);
  in.o_mx = static_cast<decltype(in.o_mx)>(s.o_mx);
  in.mx_neuron = static_cast<decltype(in.mx_neuron)>(s.mx_neuron);
  in.size = static_cast<decltype(in.size)>(pack(s.size));
  in.a_stride = static_cast<decltype(in.a_stride)>(pack(s.a_stride));
  in.b_stride = static_cast<decltype(in.b_stride)>(pack(s.b_stride));
  in.o_stride = static_cast<decltype(in.o_stride)>(pack(s.o_stride));
  in.alu0 = static_cast<decltype(in.alu0)>(static_cast<unsigned>(s.alu0) & 0xF);
  in.alu1 = static_cast<decltype(in.alu1)>(static_cast<unsigned>(s.alu1) & 0xF);
  in.imm0 = static_cast<decltype(in.imm0)>(s.imm0);
  in.imm1 = static_cast<decltype(in.imm1)>(s.imm1);
  in.s0_vec = static_cast<decltype(in.s0_vec)>(s.s0_vec);
  in.s1_vec = static_cast<decltype(in.s1_vec)>(s.s1_vec);
  in.func = static_cast<decltype(in.func)>(s.func & 0xF);
  in.acc = static_cast<decltype(in.acc)>(s.acc);
  in.acc_clr = static_cast<decltype(in.acc_clr)>(s.acc_clr);
  return in;
}

void LaneEngine::reset() {
  st_ = St::idle;
  ins_ = Instr{};
  int_dom_ = false;
  idx_ = {};
  iss_done_ = {true, true};
  outst_ = {};
  fifo_[0].clear();
  fifo_[1].clear();
  pro_iss_ = pro_rcv_ = 0;
  s0_.assign(p_.lanes, 0);
  s1_.assign(p_.lanes, 0);
  cidx_ = oidx_ = {};
  c_done_ = false;
  tph_ = false;
  tcnt_ = 0;
  red_.assign(p_.lanes, 0);
  tbuf_.assign(shape().group(), std::vector<std::uint32_t>(p_.lanes, 0));
  wv_ = false;
  wreq_ = e_req_t{};
  wmask_ = Bits(p_.lanes);
  wdata_ = Bits(32 * p_.lanes);
  sc_ = false;
  sc_req_ = e_req_t{};
  sc_mask_ = Bits(p_.lanes);
  sc_data_ = Bits(32 * p_.lanes);
  acc_.assign(p_.lanes, 0);
  rng_.resize(p_.lanes);
  for (unsigned l = 0; l < p_.lanes; ++l) rng_[l] = numerics::Xorshift32::lane_seed(0, l);
  done_ = err_ = false;
  done_tag_ = err_tag_ = err_code_ = 0;
}

bool LaneEngine::advance(Idx& idx, const Idx& size) {
  for (unsigned d = 0; d < kDims; ++d) {
    if (++idx[d] < size[d]) return false;
    idx[d] = 0;
  }
  return true;
}

std::uint32_t LaneEngine::offset(const Idx& idx, const Idx& stride) {
  std::uint64_t a = 0;
  for (unsigned d = 0; d < kDims; ++d) a += static_cast<std::uint64_t>(idx[d]) * stride[d];
  return static_cast<std::uint32_t>(a);  // a legal pattern stays inside its memory (checked)
}

LaneEngine::e_req_t LaneEngine::elem_req(bool space, bool we, std::uint32_t base, unsigned dtype, const Idx& idx,
                                         const Idx& stride) {
  e_req_t r;
  r.space = space;
  r.we = we;
  r.esize = static_cast<sv::sbuf_pkg::esize_e>(mem::dtype_esize(dtype));
  r.idx = static_cast<std::uint32_t>(first_index(base, dtype) + offset(idx, stride));
  return r;
}

bool LaneEngine::req_valid(unsigned p) const {
  if (p == 1 && st_ == St::prologue) return pro_iss_ < prologue_reads(ins_);
  return st_ == St::run && !iss_done_[p] && outst_[p] + fifo_[p].size() < p_.fifo_depth;
}

LaneEngine::e_req_t LaneEngine::req(unsigned p) const {
  constexpr unsigned kFp32 = 0;
  if (st_ == St::prologue)
    return p == 0 ? e_req_t{}
                  : elem_req(false, false, (pro_iss_ == 0 && ins_.s0_vec) ? ins_.s0_addr : ins_.s1_addr, kFp32, {}, {});
  if (st_ == St::run)
    return p == 0 ? elem_req(ins_.a_space, false, ins_.a_addr, ins_.a_fmt, idx_[0], ins_.a_stride)
                  : elem_req(ins_.b_space, false, ins_.b_addr, ins_.b_fmt, idx_[1], ins_.b_stride);
  return e_req_t{};
}

void LaneEngine::eval(const In& /*in*/, Out& out) const {
  // every output is a function of the state (the reset state while rst_ni is low)
  out.cmd_ready_o = st_ == St::idle;
  out.rd0_req_valid_o = req_valid(0);
  out.rd0_req_o = req(0);
  out.rd1_req_valid_o = req_valid(1);
  out.rd1_req_o = req(1);
  out.wr_valid_o = wv_;
  out.wr_o = wreq_;
  out.wr_mask_o = wmask_;
  out.wr_data_o = wdata_;
  out.cpl_o = le_cpl_t{.done = done_,
                       .tag = static_cast<std::uint8_t>(done_tag_),
                       .err = err_,
                       .err_tag = static_cast<std::uint8_t>(err_tag_),
                       .code = static_cast<sv::le_pkg::le_err_e>(err_code_)};
  out.acc_o = Bits(32 * p_.lanes);
  for (unsigned l = 0; l < p_.lanes; ++l) out.acc_o.set_slice(32 * l, 32, acc_[l]);
  out.busy_o = st_ != St::idle;
}

void LaneEngine::step(bool out_free) {
  const Instr& s = ins_;
  const unsigned L = p_.lanes, G = shape().group();
  const bool needs_in = reads_a(s) && !(s.op == Op::transpose && tph_);
  const bool have = !needs_in || (!fifo_[0].empty() && (!reads_b(s) || !fifo_[1].empty()));
  const bool produce = s.op == Op::tensor_reduce ? cidx_[0] + 1 == s.size[0] : (s.op != Op::transpose || tph_);
  if (c_done_ || !have || (produce && !out_free)) return;

  std::vector<std::uint32_t> a(L, 0), b(L, 0), v(L, 0);
  if (needs_in) {
    for (unsigned l = 0; l < L; ++l) {
      if (!active(l)) continue;
      a[l] = in_cast(s.a_fmt, s.a_bias, static_cast<std::uint32_t>(fifo_[0].front().slice(32 * l, 32)), int_dom_);
      if (reads_b(s))
        b[l] = in_cast(s.b_fmt, s.b_bias, static_cast<std::uint32_t>(fifo_[1].front().slice(32 * l, 32)), int_dom_);
    }
  }
  for (unsigned l = 0; l < L; ++l) {
    if (!active(l)) continue;
    switch (s.op) {
      case Op::copy:
        v[l] = a[l];
        break;
      case Op::tensor_tensor:
        v[l] = alu(s.alu0, a[l], b[l], int_dom_);
        break;
      case Op::tensor_scalar:
        v[l] = alu(s.alu1, alu(s.alu0, a[l], s0_[l], int_dom_), s1_[l], int_dom_);
        break;
      case Op::tensor_reduce:
        if (cidx_[0] == 0)
          v[l] = s.alu0 == Alu::absmax ? alu(Alu::absmax, a[l], a[l], int_dom_) : a[l];
        else
          v[l] = alu(s.alu0, red_[l], a[l], int_dom_);
        red_[l] = v[l];
        break;
      case Op::exp:
        v[l] = fast_exp(a[l]);
        break;
      case Op::iota: {
        std::uint32_t n = s.imm0 + s.imm1 * l;
        for (unsigned d = 0; d < kDims; ++d) n += oidx_[d] * s.a_stride[d];
        v[l] = int_dom_ ? n : int_to_fp32(static_cast<std::int32_t>(n));
        break;
      }
      case Op::memset:
        v[l] = s.imm0;
        break;
      case Op::quantize_mx:
        v[l] = a[l];
        break;
      case Op::transpose:
        if (tph_)
          v[l] = tbuf_[l % G][(l / G) * G + tcnt_];
        else
          tbuf_[tcnt_][l] = a[l];
        break;
      case Op::activate: {
        const std::uint32_t x = numerics::fp32_add(numerics::fp32_mul(a[l], s0_[l]), s1_[l]);
        v[l] = scalar::activate(static_cast<scalar::Act>(s.func), x);
        if (s.acc) acc_[l] = numerics::fp32_add(acc_[l], v[l]);
        break;
      }
      case Op::acc_store:
        v[l] = acc_[l];
        break;
      case Op::set_seed:
        break;
    }
  }

  if (needs_in) {
    fifo_[0].pop_front();
    if (reads_b(s)) fifo_[1].pop_front();
    const bool wrapped = advance(cidx_, s.size);
    if (s.op == Op::transpose) {
      ++tcnt_;
      if (wrapped) {
        tph_ = true;
        tcnt_ = 0;
      }
    }
  } else if (s.op == Op::transpose) {
    ++tcnt_;
  }
  if (!produce) return;

  Bits mask(L), data(32 * L);
  if (s.op == Op::quantize_mx) {
    // the codes now, then each block's scale byte in its first partition at sc_addr + offset
    const auto elem = static_cast<numerics::Format>(s.o_fmt);
    sc_ = true;
    sc_req_.space = false;
    sc_req_.we = true;
    sc_req_.esize = sv::sbuf_pkg::esize_e::ESize1;
    sc_req_.idx = s.sc_addr + offset(oidx_, s.o_stride);
    sc_mask_ = Bits(L);
    sc_data_ = Bits(32 * L);
    for (unsigned b0 = s.ps; b0 < s.ps + s.pc; b0 += G) {
      const numerics::MxBlock blk =
          numerics::mx_quantize(std::span<const std::uint32_t>(v.data() + b0, G), elem, s.mx_neuron);
      for (unsigned i = 0; i < G; ++i) data.set_slice(32 * (b0 + i), 32, blk.codes[i]);
      sc_mask_.set_bit(b0, true);
      sc_data_.set_slice(32 * b0, 32, blk.scale);
    }
  }
  for (unsigned l = 0; l < L; ++l) {
    if (!active(l)) continue;
    mask.set_bit(l, true);
    if (s.op == Op::quantize_mx) continue;
    std::uint32_t rnd = 0;
    if (s.o_sr) rnd = rng_[l] = numerics::Xorshift32::step(rng_[l]);
    data.set_slice(32 * l, 32, out_cast(s.o_fmt, s.o_bias, v[l], int_dom_, s.o_sr, s.o_sat, rnd));
  }
  wv_ = true;
  wreq_ = elem_req(s.o_space, true, s.o_addr, s.o_fmt, oidx_, s.o_stride);
  wmask_ = mask;
  wdata_ = data;
  if (advance(oidx_, out_sizes(s))) c_done_ = true;
}

void LaneEngine::tick(const In& in) {
  if (!in.rst_ni) {
    reset();
    return;
  }
  const bool fire0 = req_valid(0) && in.rd0_req_ready_i;
  const bool fire1 = req_valid(1) && in.rd1_req_ready_i;
  const bool finishing = st_ == St::run && c_done_ && !wv_;
  // the output register can take a result: empty, or written this cycle with no scale to follow
  const bool out_free = !wv_ || (in.wr_ready_i && !sc_);
  done_ = err_ = false;

  if (st_ == St::idle && in.cmd_valid_i) {
    const Instr s = decode(in.cmd_i);
    const Err e = check(s, shape());
    if (e != Err::none) {
      err_ = true;
      err_tag_ = s.tag;
      err_code_ = static_cast<unsigned>(e);
    } else if (s.op == Op::set_seed) {
      for (unsigned l = 0; l < p_.lanes; ++l) rng_[l] = numerics::Xorshift32::lane_seed(s.imm0, l);
      done_ = true;
      done_tag_ = s.tag;
    } else {
      ins_ = s;
      int_dom_ = int_domain(s);
      idx_ = {};
      iss_done_ = {!reads_a(s), !reads_b(s)};
      pro_iss_ = pro_rcv_ = 0;
      s0_.assign(p_.lanes, s.imm0);
      s1_.assign(p_.lanes, s.imm1);
      cidx_ = oidx_ = {};
      c_done_ = false;
      tph_ = false;
      tcnt_ = 0;
      if (s.op == Op::activate && s.acc_clr) acc_.assign(p_.lanes, 0);
      st_ = prologue_reads(s) > 0 ? St::prologue : St::run;
    }
    return;
  }

  if (st_ == St::prologue) {
    if (fire1) ++pro_iss_;
    if (in.rd1_rsp_valid_i) {
      auto& dst = (pro_rcv_ == 0 && ins_.s0_vec) ? s0_ : s1_;
      for (unsigned l = 0; l < p_.lanes; ++l) dst[l] = static_cast<std::uint32_t>(in.rd1_rsp_data_i.slice(32 * l, 32));
      if (++pro_rcv_ == prologue_reads(ins_)) st_ = St::run;
    }
    return;
  }
  if (st_ != St::run) return;

  // output port, stream step, read issue and responses (the FIFOs have no fall-through: the step
  // sees the heads of this cycle's state)
  if (wv_ && in.wr_ready_i) {
    if (sc_) {  // the scale write of quantize_mx follows the codes
      wreq_ = sc_req_;
      wmask_ = sc_mask_;
      wdata_ = sc_data_;
      sc_ = false;
    } else {
      wv_ = false;
    }
  }
  if (finishing) {
    st_ = St::idle;
    done_ = true;
    done_tag_ = ins_.tag;
    return;
  }
  step(out_free);
  const std::array<bool, 2> fire{fire0, fire1};
  const std::array<bool, 2> rsp{in.rd0_rsp_valid_i, in.rd1_rsp_valid_i};
  const std::array<const Bits*, 2> rdata{&in.rd0_rsp_data_i, &in.rd1_rsp_data_i};
  for (unsigned p = 0; p < 2; ++p) {
    if (fire[p]) {
      ++outst_[p];
      const Idx& size = ins_.size;
      if (advance(idx_[p], size)) iss_done_[p] = true;
    }
    if (rsp[p]) {
      fifo_[p].push_back(*rdata[p]);
      --outst_[p];
    }
  }
}

}  // namespace trn::vector
