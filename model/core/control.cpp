#include "core/control.hpp"

#include <cstring>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "dma/dma_engine.hpp"
#include "isa/isa.hpp"
#include "vector/lane_engine.hpp"

namespace trn::core {

namespace {

namespace tbl = isa::tbl;
constexpr unsigned kInstBits = tbl::kInstBits;

// control error codes (rtl/core/isa.toml [[error]])
constexpr unsigned kErrIllegal = 1, kErrTensor = 2, kErrVector = 3, kErrScalar = 4, kErrDma = 5, kErrDeadlock = 6,
                   kErrImem = 7, kErrRange = 8, kErrLoop = 9, kErrGpsimd = 10;
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrIllegal) == kErrIllegal);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrTensor) == kErrTensor);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrVector) == kErrVector);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrScalar) == kErrScalar);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrDma) == kErrDma);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrDeadlock) == kErrDeadlock);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrImem) == kErrImem);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrRange) == kErrRange);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrLoop) == kErrLoop);
static_assert(static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrGpsimd) == kErrGpsimd);
static_assert(static_cast<unsigned>(sv::isa_pkg::stream_e::StreamGpsimd) == Control::gpsimd);
static_assert(sv::isa_pkg::inst_t::kWidth == kInstBits);
static_assert(sv::isa_pkg::Sems == Control::kSems);

std::uint64_t f(const Bits& w, unsigned field) { return isa::get(w, field); }

const tbl::Op* op_of(const Bits& w) { return isa::find_op(static_cast<unsigned>(f(w, tbl::kF_op))); }

/// The table index of each le_pkg::instr_t field in its visit order (the same names), or -1.
const std::vector<int>& lane_map() {
  static const std::vector<int> m = [] {
    std::vector<int> v;
    sv::le_pkg::instr_t t;
    t.visit([&](const char* name, auto&, unsigned, unsigned) {
      int idx = -1;
      for (unsigned i = 0; i < tbl::kFieldCount; ++i)
        if (std::strcmp(tbl::kFields[i].name, name) == 0 && std::strcmp(name, "op") != 0) idx = static_cast<int>(i);
      v.push_back(idx);
    });
    return v;
  }();
  return m;
}

}  // namespace

Control::Control(Params p)
    : p_(p),
      q_{common::StreamFifo({kPcBits + kInstBits, kQueueDepth}), common::StreamFifo({kPcBits + kInstBits, kQueueDepth}),
         common::StreamFifo({kPcBits + kInstBits, kQueueDepth}), common::StreamFifo({kPcBits + kInstBits, kQueueDepth}),
         common::StreamFifo({kPcBits + kInstBits, kQueueDepth})} {
  for (auto& m : imem_) m.assign(p_.imem_depth, Bits(kInstBits));
  vshape_ = vector::Shape{vector::Engine::vector, p_.parts, p_.sbuf_bytes, p_.psum_bytes};
  sshape_ = vector::Shape{vector::Engine::scalar, p_.parts, p_.sbuf_bytes, p_.psum_bytes};
  // the descriptor check (dma::check) reads the memories' ranges; the beat width does not enter it
  geo_ = dma::Geometry::make(p_.hbm_bytes, p_.dma_parts < 0 ? p_.parts : static_cast<unsigned>(p_.dma_parts),
                             p_.sbuf_bytes, 16, p_.dma_max_len);
  geo_.chips = p_.chips;
  if (p_.dma_engines < 1 || p_.dma_engines > 16 || p_.queues > 16)
    throw std::invalid_argument("core::Control: at most 16 DMA engines of 16 queues (the instruction's fields)");
  reset();
}

Control::In Control::make_in() const {
  In in;
  in.im_data_i = Bits(kInstBits);
  in.dma_q_idle_i = Bits(p_.nq());
  in.gp_sem_idx_i = Bits(5 * p_.gp_procs);
  in.gp_sem_val_i = Bits(32 * p_.gp_procs);
  return in;
}

void Control::reset() {
  pc_q_.fill(0);
  fetched_end_q_.fill(false);
  ended_q_.fill(false);
  for (auto& s : slot_q_) s.fill(Slot{});
  gp_slot_q_ = Slot{};
  tag_q_.fill(0);
  sem_q_.fill(0);
  for (auto& r : reg_q_) r.fill(0);
  pend_q_.fill(0);
  stale_q_.fill(false);
  running_q_ = err_q_ = false;
  err_code_q_ = err_detail_q_ = err_stream_q_ = 0;
  err_pc_q_ = 0;
}

Control::te_cmd_t Control::te_cmd(const Bits& w, unsigned tag) {
  te_cmd_t c;
  const tbl::Op* o = op_of(w);
  c.op = (o && std::strcmp(o->name, "multiply_moving") == 0) ? sv::te_pkg::te_op_e::TeMultiplyMoving
                                                             : sv::te_pkg::te_op_e::TeLoadStationary;
  c.tag = static_cast<std::uint8_t>(tag);
  c.fmt = static_cast<std::uint8_t>(f(w, tbl::kF_a_fmt));
  c.bias = static_cast<std::uint8_t>(f(w, tbl::kF_a_bias));
  c.addr = static_cast<std::uint32_t>(f(w, tbl::kF_a_addr));
  c.k = static_cast<std::uint16_t>(f(w, tbl::kF_k));
  c.m = static_cast<std::uint16_t>(f(w, tbl::kF_m));
  c.n = static_cast<std::uint16_t>(f(w, tbl::kF_n));
  c.bank = static_cast<std::uint8_t>(f(w, tbl::kF_bank));
  c.off = static_cast<std::uint16_t>(f(w, tbl::kF_off));
  c.acc = f(w, tbl::kF_acc) != 0;
  c.tr = f(w, tbl::kF_tr) != 0;
  c.mx = f(w, tbl::kF_mx) != 0;
  c.sc_addr = static_cast<std::uint32_t>(f(w, tbl::kF_sc_addr));
  c.kpe = static_cast<std::uint8_t>(f(w, tbl::kF_kpe));
  c.pbf = f(w, tbl::kF_pbf) != 0;
  c.sr = f(w, tbl::kF_o_sr) != 0;
  c.seed_ld = f(w, tbl::kF_seed_ld) != 0;
  c.seed = static_cast<std::uint32_t>(f(w, tbl::kF_imm0));
  c.spm = static_cast<std::uint8_t>(f(w, tbl::kF_spm));
  c.spq = static_cast<std::uint8_t>(f(w, tbl::kF_spq));
  c.rg = static_cast<std::uint8_t>(f(w, tbl::kF_rg));
  return c;
}

Control::instr_t Control::lane_cmd(const Bits& w, unsigned tag) {
  instr_t c;
  const auto& map = lane_map();
  std::size_t i = 0;
  const tbl::Op* o = op_of(w);
  c.visit([&](const char* name, auto& field, unsigned, unsigned) {
    using T = std::decay_t<decltype(field)>;
    const int idx = map[i++];
    if (std::strcmp(name, "op") == 0)
      field = static_cast<T>(o && o->lane_op >= 0 ? o->lane_op : 0);
    else if (std::strcmp(name, "tag") == 0)
      field = static_cast<T>(tag);
    else if (idx >= 0)
      field = static_cast<T>(f(w, static_cast<unsigned>(idx)));
  });
  return c;
}

Control::desc_t Control::dma_desc(const Bits& w) {
  desc_t d;
  d.src_space = f(w, tbl::kF_src_space) != 0;
  d.src_addr = static_cast<std::uint32_t>(f(w, tbl::kF_src_addr));
  d.dst_space = f(w, tbl::kF_dst_space) != 0;
  d.dst_addr = static_cast<std::uint32_t>(f(w, tbl::kF_dst_addr));
  d.len = static_cast<std::uint32_t>(f(w, tbl::kF_len));
  d.stype = static_cast<std::uint8_t>(f(w, tbl::kF_stype));
  d.dtype = static_cast<std::uint8_t>(f(w, tbl::kF_dtype));
  d.layout = static_cast<std::uint8_t>(f(w, tbl::kF_layout));
  d.cols = static_cast<std::uint16_t>(f(w, tbl::kF_cols));
  d.op = static_cast<std::uint8_t>(f(w, tbl::kF_dop));
  d.sem = f(w, tbl::kF_dsem_en) != 0;
  d.sem_space = false;  // HBM: the unit's own is taken off its HBM port (sem_tap)
  d.sem_addr = static_cast<std::uint32_t>(f(w, tbl::kF_dsem_chip) << dma::kChipLsb |
                                          f(w, tbl::kF_dsem_unit) << dma::kUnitLsb | 4 * f(w, tbl::kF_dsem));
  d.sem_val = static_cast<std::uint32_t>(f(w, tbl::kF_dsem_val));
  d.barrier = f(w, tbl::kF_barrier) != 0;
  d.last = false;
  return d;
}

Control::desc_t Control::reg_desc(const Bits& w, unsigned s) {
  desc_t d;
  d.src_space = f(w, tbl::kF_src_space) != 0;
  d.src_addr = static_cast<std::uint32_t>(f(w, tbl::kF_src_addr));
  d.dst_space = false;  // HBM: the register address is taken off the unit's HBM port (sem_tap)
  d.dst_addr = dma::reg_addr(s, static_cast<unsigned>(f(w, tbl::kF_rd)));
  d.len = 4;
  d.stype = d.dtype = static_cast<std::uint8_t>(dma::kTypeBytes);
  d.layout = 0;
  d.cols = 0;
  d.op = static_cast<std::uint8_t>(dma::Op::reg);
  d.sem = false;
  d.sem_space = false;
  d.sem_addr = d.sem_val = 0;
  d.barrier = d.last = false;
  return d;
}

/// The decode check of a legal word on stream s: 0, or an error code (and its detail).
unsigned Control::unit_check(unsigned s, const Bits& w, unsigned& detail) const {
  detail = 0;
  const tbl::Op* o = op_of(w);
  if (o->unit == tbl::Unit::lane) {
    const vector::Err e = vector::check(vector::LaneEngine::decode(lane_cmd(w, 0)), s == vector ? vshape_ : sshape_);
    if (e != vector::Err::none) {
      detail = static_cast<unsigned>(e);
      return s == vector ? kErrVector : kErrScalar;
    }
  } else if (o->unit == tbl::Unit::dma) {
    if (f(w, tbl::kF_queue) >= p_.queues || f(w, tbl::kF_engine) >= p_.dma_engines) return kErrIllegal;
    const dma::Err e = std::strcmp(o->name, "reg_load") == 0
                           ? dma::check_reg(f(w, tbl::kF_src_space) ? dma::Space::sbuf : dma::Space::hbm,
                                            static_cast<std::uint32_t>(f(w, tbl::kF_src_addr)), geo_)
                           : dma::check(dma::DmaEngine::decode(dma_desc(w)), geo_);
    if (e != dma::Err::none) {
      detail = static_cast<unsigned>(e);
      return kErrDma;
    }
  }
  return 0;
}

const Control::Decoded& Control::decoded(unsigned s, const Bits& word, unsigned tag) const {
  Decoded& d = decoded_[s];
  if (d.tag == tag && d.word == word) return d;
  d.word = word;
  d.tag = tag;
  d.detail = 0;
  d.illegal = !isa::illegal(word, s).empty();
  d.code = d.illegal ? kErrIllegal : unit_check(s, word, d.detail);
  d.wait_en = f(word, tbl::kF_wait_en);
  d.wait_sem = static_cast<unsigned>(f(word, tbl::kF_wait_sem));
  d.wait_val = f(word, tbl::kF_wait_val);
  d.op = op_of(word);
  d.ctl = Ctl::none;
  if (d.op && d.op->unit == tbl::Unit::ctl) {
    static constexpr std::pair<const char*, Ctl> kCtl[] = {{"reg_set", Ctl::reg_set},
                                                           {"reg_add", Ctl::reg_add},
                                                           {"reg_mul", Ctl::reg_mul},
                                                           {"branch", Ctl::branch},
                                                           {"loop", Ctl::loop}};
    for (const auto& [name, c] : kCtl)
      if (std::strcmp(d.op->name, name) == 0) d.ctl = c;
  }
  d.rl = d.op && std::strcmp(d.op->name, "reg_load") == 0;
  d.regs = isa::regs_named(word);
  d.rd = static_cast<unsigned>(f(word, tbl::kF_rd));
  d.ra = static_cast<unsigned>(f(word, tbl::kF_ra));
  d.rb = static_cast<unsigned>(f(word, tbl::kF_rb));
  d.cond = static_cast<unsigned>(f(word, tbl::kF_cond));
  d.imm0 = static_cast<std::uint32_t>(f(word, tbl::kF_imm0));
  d.target = static_cast<std::uint32_t>(f(word, tbl::kF_target));
  if (s == tensor) d.te = te_cmd(word, tag);
  if (s == vector || s == scalar) d.lane = lane_cmd(word, tag);
  d.gp_entry = static_cast<std::uint32_t>(f(word, tbl::kF_gp_entry));
  d.gp_args = static_cast<std::uint32_t>(f(word, tbl::kF_gp_args));
  if (s == sync || d.rl) {
    d.engine = static_cast<unsigned>(f(word, tbl::kF_engine));
    d.queue = static_cast<unsigned>(f(word, tbl::kF_queue));
    d.desc = d.rl ? reg_desc(word, s) : dma_desc(word);
  }
  return d;
}

Control::Step& Control::fresh_step() const {
  Step& st = step_;
  for (Head& h : st.head) {
    h.valid = false;
    h.pc = 0;
  }
  st.fetch = st.issue = st.valid = st.wait_ok = st.pop = st.redirect = st.stale = st.reg_we = {};
  st.reg_wv = {};
  st.reg_in = false;
  st.dec = {};
  st.err_now = false;
  st.err_code = st.err_detail = st.err_stream = 0;
  st.err_pc = 0;
  st.add = {};
  st.any_add = false;
  st.done = false;
  return st;
}

void Control::decide(const In& in, Step& st, Out* out) const {
  if (!q_ports_) {
    for (unsigned s = 0; s < kStreams; ++s) {
      qi_[s] = q_[s].make_in();
      qo_[s] = q_[s].make_out();
    }
    q_ports_ = true;
  }
  auto& qo = qo_;
  for (unsigned s = 0; s < kStreams; ++s) {
    common::StreamFifo::In& qi = qi_[s];
    qi.rst_ni = in.rst_ni;
    q_[s].eval(qi, qo[s]);
    Head& h = st.head[s];
    h.valid = qo[s].pop_valid_o;
    if (h.word.width() != kInstBits) h.word = Bits(kInstBits);
    h.word.copy(0, qo[s].pop_data_o, 0, kInstBits);
    h.pc = static_cast<std::uint32_t>(qo[s].pop_data_o.slice(kInstBits, kPcBits));
  }
  // every head decoded once as it would issue (its registers added: isa::substitute; its tag's; an
  // invalid head's word is decoded too, and never used)
  auto& dec = st.dec;
  std::array<bool, kStreams> fits{};
  for (unsigned s = 0; s < kStreams; ++s) {
    const Bits* w = &st.head[s].word;
    fits[s] = true;
    if (isa::names_register(*w)) {
      fits[s] = isa::substitute(*w, reg_q_[s], eff_[s]);
      w = &eff_[s];
    }
    dec[s] = &decoded(s, *w, s < 3 ? tag_q_[s] : 0);
  }
  const bool live = in.rst_ni && running_q_ && !err_q_;
  bool dma_idle = true;
  for (unsigned q = 0; q < p_.nq(); ++q) dma_idle = dma_idle && in.dma_q_idle_i.bit(q);
  bool slots_busy = gp_slot_q_.busy;
  for (const auto& e : slot_q_)
    for (const auto& sl : e) slots_busy |= sl.busy;

  // errors, lowest stream first; within a stream: the unit's report, decode, fetch
  if (live) {
    const bool unit_err[3] = {in.te_cpl_i.err, in.ve_cpl_i.err, in.se_cpl_i.err};
    const unsigned unit_tag[3] = {in.te_cpl_i.err_tag, in.ve_cpl_i.err_tag, in.se_cpl_i.err_tag};
    const unsigned unit_code[3] = {static_cast<unsigned>(in.te_cpl_i.code), static_cast<unsigned>(in.ve_cpl_i.code),
                                   static_cast<unsigned>(in.se_cpl_i.code)};
    for (unsigned s = 0; s < kStreams && !st.err_now; ++s) {
      const Head& h = st.head[s];
      if (s < 3 && unit_err[s]) {
        st.err_now = true;
        st.err_code = kErrTensor + s;
        st.err_detail = unit_code[s];
        st.err_stream = s;
        st.err_pc = slot_q_[s][unit_tag[s] % kTags].pc;
      } else if (s == gpsimd && in.gp_err_i && gp_slot_q_.busy) {
        // the operator in flight: a processor stopped it
        st.err_now = true;
        st.err_code = kErrGpsimd;
        st.err_detail = static_cast<unsigned>(in.gp_code_i);
        st.err_stream = s;
        st.err_pc = gp_slot_q_.pc;
      } else if (h.valid && !stale_q_[s] && (dec[s]->regs & pend_q_[s]) == 0) {
        // illegal, then range, then loop, then the unit's check
        const Decoded& ck = *dec[s];
        unsigned code = ck.code, detail = ck.detail;
        if (!ck.illegal && (!fits[s] || (ck.ctl == Ctl::loop && reg_q_[s][ck.rd % tbl::kRegs] == 0))) {
          code = fits[s] ? kErrLoop : kErrRange;
          detail = 0;
        }
        if (code) {
          st.err_now = true;
          st.err_code = code;
          st.err_detail = detail;
          st.err_stream = s;
          st.err_pc = h.pc;
        }
      }
      if (!st.err_now && !fetched_end_q_[s] && !h.valid && pc_q_[s] >= p_.imem_depth) {
        st.err_now = true;
        st.err_code = kErrImem;
        st.err_stream = s;
        st.err_pc = pc_q_[s];
      }
    }
  }
  const bool go = live && !st.err_now;

  // fetch, wait, issue
  const bool eng_ready[kStreams] = {in.te_cmd_ready_i, in.ve_cmd_ready_i, in.se_cmd_ready_i, false, in.gp_ready_i};
  std::array<bool, kStreams> unit_op{}, tag_op{}, dma_op{}, tag_free{}, reg_busy{}, ready{};
  for (unsigned s = 0; s < kStreams; ++s) {
    const Head& h = st.head[s];
    const Decoded& dh = *dec[s];
    st.wait_ok[s] = !dh.wait_en || sem_q_[dh.wait_sem % kSems] >= dh.wait_val;
    const tbl::Op* o = dh.op;
    unit_op[s] = o && o->unit != tbl::Unit::ctl;
    dma_op[s] = o && o->unit == tbl::Unit::dma;
    tag_op[s] = unit_op[s] && !dma_op[s];  // a tensor, lane or GpSimd op: it takes a tag (slot) of its engine
    tag_free[s] = !tag_op[s] || !(s < 3 ? slot_q_[s][tag_q_[s]].busy : gp_slot_q_.busy);
    reg_busy[s] = (dh.regs & pend_q_[s]) != 0;
    st.valid[s] = go && h.valid && !stale_q_[s] && st.wait_ok[s] && tag_free[s] && !reg_busy[s];
  }
  // the DMA port: the lowest stream whose DMA op asks has it
  unsigned gnt = kStreams;
  for (unsigned s = kStreams; s-- > 0;)
    if (st.valid[s] && dma_op[s]) gnt = s;
  for (unsigned s = 0; s < kStreams; ++s) ready[s] = dma_op[s] ? in.dma_desc_ready_i && gnt == s : eng_ready[s];
  for (unsigned s = 0; s < kStreams; ++s) {
    const Head& h = st.head[s];
    const Decoded& dh = *dec[s];
    st.issue[s] = st.valid[s] && (!unit_op[s] || ready[s]);
    // the control's own operations: operands ra and rb + imm0
    const isa::Regs& r = reg_q_[s];
    const std::uint32_t a = r[dh.ra % tbl::kRegs], b = r[dh.rb % tbl::kRegs] + dh.imm0;
    bool taken = false;
    switch (dh.ctl) {
      case Ctl::reg_set:
        st.reg_we[s] = true, st.reg_wv[s] = b;
        break;
      case Ctl::reg_add:
        st.reg_we[s] = true, st.reg_wv[s] = a + b;
        break;
      case Ctl::reg_mul:
        st.reg_we[s] = true, st.reg_wv[s] = a * b;
        break;
      case Ctl::branch: {
        const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
        const bool c[6] = {a == b, a != b, sa < sb, sa >= sb, a < b, a >= b};
        taken = dh.cond < 6 && c[dh.cond];
        break;
      }
      case Ctl::loop:
        st.reg_we[s] = true, st.reg_wv[s] = r[dh.rd % tbl::kRegs] - 1;
        taken = st.reg_wv[s] != 0;
        break;
      case Ctl::none:
        break;
    }
    st.redirect[s] = st.issue[s] && taken;
    st.stale[s] = st.redirect[s] && qo[s].usage_o == 2;  // the word behind the branch
    st.pop[s] = st.issue[s] || (go && h.valid && stale_q_[s]);
    st.fetch[s] = go && !fetched_end_q_[s] && qo[s].push_ready_o && pc_q_[s] < p_.imem_depth && !st.redirect[s];
  }

  // semaphore additions
  auto add = [&](bool en, unsigned sem, std::uint64_t val) {
    if (!en) return;
    st.add[sem % kSems] += val;
    st.any_add = true;
  };
  for (unsigned s = 0; s < kStreams; ++s) {
    if (!st.issue[s]) continue;
    const tbl::Op* o = op_of(st.head[s].word);
    if (o->done_at_issue)
      add(f(st.head[s].word, tbl::kF_post_en), static_cast<unsigned>(f(st.head[s].word, tbl::kF_post_sem)),
          f(st.head[s].word, tbl::kF_post_val));
  }
  auto done = [&](unsigned e, bool v, unsigned tag) {
    if (!v) return;
    const Slot& sl = slot_q_[e][tag % kTags];
    add(sl.busy && sl.post_en, sl.post_sem, sl.post_val);
  };
  done(0, in.te_cpl_i.ls_done, in.te_cpl_i.ls_tag);
  done(0, in.te_cpl_i.mm_done, in.te_cpl_i.mm_tag);
  done(1, in.ve_cpl_i.done, in.ve_cpl_i.tag);
  done(2, in.se_cpl_i.done, in.se_cpl_i.tag);
  add(in.gp_done_i && gp_slot_q_.busy && gp_slot_q_.post_en, gp_slot_q_.post_sem, gp_slot_q_.post_val);
  for (unsigned i = 0; i < p_.gp_procs; ++i)
    add((in.gp_sem_add_i >> i) & 1, static_cast<unsigned>(in.gp_sem_idx_i.slice(5 * i, 5)),
        in.gp_sem_val_i.slice(32 * i, 32));
  add(in.sem_add_valid_i && !in.sem_add_reg_i, in.sem_add_idx_i, in.sem_add_val_i);
  st.reg_in = in.sem_add_valid_i && in.sem_add_reg_i;
  add(in.sem_ext_valid_i, in.sem_ext_idx_i, in.sem_ext_val_i);

  // deadlock: every stream not ended waits on its semaphore, and nothing is in flight (unless
  // another unit may still add to the semaphores)
  bool pend = false;
  for (auto m : pend_q_) pend |= m != 0;
  if (go && !in.sem_ext_en_i && !slots_busy && !pend && dma_idle && !st.any_add) {
    bool all = true, some = false;
    unsigned first = 0;
    for (unsigned s = 0; s < kStreams; ++s) {
      if (ended_q_[s]) continue;
      const bool waits = st.head[s].valid && !stale_q_[s] && !st.wait_ok[s];
      if (waits && !some) first = s;
      some |= waits;
      all &= waits;
    }
    if (all && some) {
      st.err_now = true;
      st.err_code = kErrDeadlock;
      st.err_stream = first;
      st.err_pc = st.head[first].pc;
      st.err_detail = 0;
    }
  }
  bool all_ended = true;
  for (unsigned s = 0; s < kStreams; ++s) all_ended &= ended_q_[s];
  st.done = live && !st.err_now && all_ended && !slots_busy && !pend && dma_idle;

  if (!out) return;
  Out& o = *out;
  o.te_cmd_valid_o = st.valid[tensor] && tag_op[tensor];
  o.te_cmd_o = dec[tensor]->te;
  o.ve_cmd_valid_o = st.valid[vector] && tag_op[vector];
  o.ve_cmd_o = dec[vector]->lane;
  o.se_cmd_valid_o = st.valid[scalar] && tag_op[scalar];
  o.se_cmd_o = dec[scalar]->lane;
  o.gp_start_o = st.valid[gpsimd] && tag_op[gpsimd];
  o.gp_entry_o = dec[gpsimd]->gp_entry;
  o.gp_args_o = dec[gpsimd]->gp_args;
  // the DMA port: the granted stream's descriptor (the sync stream's when none asks)
  o.dma_desc_valid_o = gnt < kStreams;
  const Decoded& ds = *dec[gnt < kStreams ? gnt : static_cast<unsigned>(sync)];
  o.dma_desc_engine_o = ds.engine;
  o.dma_desc_queue_o = ds.queue;
  o.dma_desc_o = ds.desc;
  o.running_o = running_q_;
  o.done_o = st.done;
  o.err_o = err_q_;
  o.err_code_o = err_code_q_;
  o.err_detail_o = err_detail_q_;
  o.err_stream_o = err_stream_q_;
  o.err_pc_o = err_pc_q_;
  for (unsigned s = 0; s < kStreams; ++s) {
    const Head& h = st.head[s];
    const bool hv = h.valid && !stale_q_[s];  // a stale head is not the stream's
    StreamStatus& ss = o.st_o[s];
    if (err_q_)
      ss.state = State::StHalt;
    else if (ended_q_[s])
      ss.state = State::StEnd;
    else if (!running_q_)
      ss.state = State::StIdle;
    else if (hv && !st.wait_ok[s])
      ss.state = State::StWait;
    else if (hv && (reg_busy[s] || (unit_op[s] && !(ready[s] && tag_free[s]))))
      ss.state = State::StBusy;
    else
      ss.state = State::StRun;
    ss.pc = static_cast<std::uint16_t>(hv ? h.pc : pc_q_[s]);
    const Decoded& dh = *dec[s];
    const bool w = hv && dh.wait_en;
    ss.wait_sem = static_cast<std::uint8_t>(w ? dh.wait_sem : 0);
    ss.wait_val = static_cast<std::uint32_t>(w ? dh.wait_val : 0);
    o.issue[s] = st.issue[s];
    o.issue_pc[s] = h.pc;
    o.issue_tag[s] = s < 3 ? tag_q_[s] : 0;
  }
  o.sem_o = sem_q_;
}

void Control::eval(const In& in, Out& out) const {
  Step& st = fresh_step();
  if (!in.rst_ni) {
    // asynchronous reset: the outputs of the reset state (the instruction memories keep theirs)
    step_fresh_ = false;
    Control r(*this);
    r.reset();
    r.decide(in, st, &out);
    return;
  }
  decide(in, st, &out);
  step_in_ = in;
  step_fresh_ = true;
}

bool Control::quiet() const {
  const Step& st = step_;
  for (unsigned s = 0; s < kStreams; ++s)
    if (st.fetch[s] || st.pop[s]) return false;
  return !st.any_add && !st.reg_in && !st.err_now && !st.done;
}

void Control::write_imem(unsigned s, std::uint32_t addr, const Bits& word) {
  if (running_q_) throw std::logic_error("control: an instruction memory written directly while running");
  put_imem(s, addr, word);
  step_fresh_ = false;
}

void Control::put_imem(unsigned s, std::uint32_t addr, const Bits& word) {
  if (s >= kStreams || !((p_.streams_on >> s) & 1) || addr >= p_.imem_depth) return;  // no such word
  Bits w(kInstBits);
  w.copy(0, word, 0, kInstBits);
  imem_[s][addr] = std::move(w);
}

bool Control::tick(const In& in) {
  // the instruction memories (not reset)
  if (in.im_valid_i) put_imem(in.im_stream_i, in.im_addr_i, in.im_data_i);
  const bool fresh = step_fresh_ && in == step_in_;
  step_fresh_ = false;
  if (!in.rst_ni) {
    for (auto& q : q_) {
      common::StreamFifo::In qi = q.make_in();
      q.tick(qi);
    }
    reset();
    return true;
  }
  // the step: the last eval's when it was on this input (the state has not changed since)
  Step& st = step_;
  if (!fresh) {
    fresh_step();
    decide(in, st, nullptr);
  }
  // a quiet step with no instruction write, start or completion coming in moves no register (no
  // fetch, issue, addition, error or finish; the queues neither push nor pop): the state and the
  // step on this input hold
  if (!in.im_valid_i && !in.start_i && !in.te_cpl_i.ls_done && !in.te_cpl_i.mm_done && !in.ve_cpl_i.done &&
      !in.se_cpl_i.done && !in.gp_done_i && quiet()) {
    if (!fresh) step_in_ = in;
    step_fresh_ = true;
    return false;
  }
  // the queues: push the fetched word, pop the issued head
  if (!tq_made_) {
    for (unsigned s = 0; s < kStreams; ++s) tq_[s] = q_[s].make_in();
    tq_made_ = true;
  }
  for (unsigned s = 0; s < kStreams; ++s) {
    common::StreamFifo::In& qi = tq_[s];
    qi.rst_ni = true;
    qi.push_valid_i = st.fetch[s];
    if (st.fetch[s]) {
      qi.push_data_i.copy(0, imem_[s][pc_q_[s]], 0, kInstBits);
      qi.push_data_i.set_slice(kInstBits, kPcBits, pc_q_[s]);
    }
    qi.pop_ready_i = st.pop[s];
    q_[s].tick(qi);
  }
  if (in.start_i && !running_q_ && !err_q_) {
    // a new run (the queues are empty after reset and after done)
    pc_q_.fill(0);
    for (unsigned s = 0; s < kStreams; ++s) fetched_end_q_[s] = ended_q_[s] = !((p_.streams_on >> s) & 1);
    for (auto& e : slot_q_) e.fill(Slot{});
    gp_slot_q_ = Slot{};
    tag_q_.fill(0);
    sem_q_.fill(0);
    for (auto& r : reg_q_) r.fill(0);
    pend_q_.fill(0);
    stale_q_.fill(false);
    running_q_ = true;
    return true;
  }
  for (unsigned s = 0; s < kStreams; ++s) {
    if (st.fetch[s]) {
      const tbl::Op* o = op_of(imem_[s][pc_q_[s]]);
      fetched_end_q_[s] = fetched_end_q_[s] || (o && std::strcmp(o->name, "end") == 0);
      ++pc_q_[s];
    }
    // the registers and the pc of a taken branch (its word is the head, not substituted)
    if (st.pop[s]) stale_q_[s] = false;
    if (st.issue[s] && (st.reg_we[s] || st.dec[s]->rl)) {
      const unsigned rd = static_cast<unsigned>(f(st.head[s].word, tbl::kF_rd)) % tbl::kRegs;
      if (rd && st.reg_we[s]) reg_q_[s][rd] = st.reg_wv[s];
      if (rd && st.dec[s]->rl) pend_q_[s] = static_cast<std::uint16_t>(pend_q_[s] | 1u << rd);
    }
    if (st.redirect[s]) {
      pc_q_[s] = static_cast<std::uint32_t>(f(st.head[s].word, tbl::kF_target));
      fetched_end_q_[s] = false;
      stale_q_[s] = st.stale[s];
    }
  }
  // completions free their slots, issues take one
  auto free_slot = [&](unsigned e, bool v, unsigned tag) {
    if (v) slot_q_[e][tag % kTags].busy = false;
  };
  free_slot(0, in.te_cpl_i.ls_done, in.te_cpl_i.ls_tag);
  free_slot(0, in.te_cpl_i.mm_done, in.te_cpl_i.mm_tag);
  free_slot(1, in.ve_cpl_i.done, in.ve_cpl_i.tag);
  free_slot(2, in.se_cpl_i.done, in.se_cpl_i.tag);
  if (in.gp_done_i) gp_slot_q_.busy = false;
  for (unsigned s = 0; s < kStreams; ++s) {
    if (!st.issue[s]) continue;
    const Bits& w = st.head[s].word;
    const tbl::Op* o = op_of(w);
    if (std::strcmp(o->name, "end") == 0) ended_q_[s] = true;
    if (s < 3 && (o->unit == tbl::Unit::tensor || o->unit == tbl::Unit::lane)) {
      Slot& sl = slot_q_[s][tag_q_[s]];
      sl.busy = true;
      sl.pc = st.head[s].pc;
      sl.post_en = !o->done_at_issue && f(w, tbl::kF_post_en);
      sl.post_sem = static_cast<unsigned>(f(w, tbl::kF_post_sem));
      sl.post_val = static_cast<unsigned>(f(w, tbl::kF_post_val));
      tag_q_[s] = (tag_q_[s] + 1) % kTags;
    }
    if (s == gpsimd && o->unit == tbl::Unit::gpsimd) {
      gp_slot_q_ = Slot{.busy = true,
                        .pc = st.head[s].pc,
                        .post_en = f(w, tbl::kF_post_en) != 0,
                        .post_sem = static_cast<unsigned>(f(w, tbl::kF_post_sem)),
                        .post_val = static_cast<unsigned>(f(w, tbl::kF_post_val))};
    }
  }
  for (unsigned i = 0; i < kSems; ++i) sem_q_[i] = static_cast<std::uint32_t>(sem_q_[i] + st.add[i]);
  // a register load's word (the register is pending, so nothing else writes it now)
  if (st.reg_in && in.sem_add_idx_i % tbl::kRegs && in.sem_add_stream_i < kStreams) {
    const unsigned s = in.sem_add_stream_i, r = in.sem_add_idx_i % tbl::kRegs;
    reg_q_[s][r] = in.sem_add_val_i;
    pend_q_[s] = static_cast<std::uint16_t>(pend_q_[s] & ~(1u << r));
  }
  if (st.err_now && !err_q_) {
    err_q_ = true;
    err_code_q_ = st.err_code;
    err_detail_q_ = st.err_detail;
    err_stream_q_ = st.err_stream;
    err_pc_q_ = st.err_pc;
  }
  if (st.done) running_q_ = false;
  return true;
}

}  // namespace trn::core
