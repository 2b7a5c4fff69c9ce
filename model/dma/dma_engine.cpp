#include "dma/dma_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <iterator>
#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::dma {

namespace {
unsigned lg(unsigned s) { return s == 4 ? 2 : (s == 2 ? 1 : 0); }

// The model's error codes are the package's (rtl/dma/dma_pkg.sv err_e).
using sv::dma_pkg::err_e;
constexpr bool same(Err a, err_e b) { return static_cast<unsigned>(a) == static_cast<unsigned>(b); }
static_assert(same(Err::none, err_e::ErrNone) && same(Err::range, err_e::ErrRange) &&
              same(Err::zero_len, err_e::ErrZeroLen) && same(Err::long_len, err_e::ErrLongLen) &&
              same(Err::transpose, err_e::ErrTranspose) && same(Err::mx_cast, err_e::ErrMxCast) &&
              same(Err::format, err_e::ErrFormat) && same(Err::chip, err_e::ErrChip));
}  // namespace

DmaEngine::DmaEngine(Params p)
    : p_(p), qarb_(common::RrArbiter::Params{p.queues >= 1 && p.queues <= 64 ? p.queues : 1, 1}) {
  if (p_.queues < 1 || p_.queues > 64 || (p_.queues & (p_.queues - 1)) != 0)
    throw std::invalid_argument("DmaEngine: queues must be a power of two in 1..64");
  if (p_.slots < 2 || (p_.slots & (p_.slots - 1)) != 0)
    throw std::invalid_argument("DmaEngine: slots must be a power of two >= 2");
  if (p_.slots > (1u << kReadIdBits))
    throw std::invalid_argument(fmt::format(
        "DmaEngine: {} slots; a read request's id (dma_pkg::rd_req_t) names at most {}", p_.slots, 1u << kReadIdBits));
  if (p_.qdepth < 2 || (p_.qdepth & (p_.qdepth - 1)) != 0)
    throw std::invalid_argument("DmaEngine: qdepth must be a power of two >= 2");
  const unsigned w = p_.geo.beat_bytes;
  if (w < 4 || w > 128 || (w & (w - 1)) != 0)
    throw std::invalid_argument("DmaEngine: beat_bytes must be 4..128, a power of two");
  qw_ = p_.queues > 1 ? clog2(p_.queues) : 1;
  sw_ = clog2(p_.slots);
  nb_ = clog2(w) + 1;
  reset();
}

DmaEngine::In DmaEngine::make_in() const {
  In in;
  in.r_data_i = Bits(8 * p_.geo.beat_bytes);
  return in;
}

DmaEngine::Out DmaEngine::make_out() const {
  Out o;
  o.wr_data_o = Bits(8 * p_.geo.beat_bytes);
  o.q_code_o = Bits(3 * p_.queues);
  o.q_done_o = Bits(16 * p_.queues);
  return o;
}

Desc DmaEngine::decode(const desc_t& in) {
  Desc d;
  d.src_space = static_cast<Space>(in.src_space);
  d.src_addr = in.src_addr;
  d.dst_space = static_cast<Space>(in.dst_space);
  d.dst_addr = in.dst_addr;
  d.len = in.len;
  d.stype = in.stype;
  d.dtype = in.dtype;
  d.layout = in.layout;
  d.cols = in.cols;
  d.op = in.op;
  d.sem = in.sem;
  d.sem_space = static_cast<Space>(in.sem_space);
  d.sem_addr = in.sem_addr;
  d.sem_val = in.sem_val;
  d.barrier = in.barrier;
  d.last = in.last;
  return d;
}

DmaEngine::desc_t DmaEngine::encode(const Desc& d) {
  desc_t o;
  o.src_space = d.src_space == Space::sbuf;
  o.src_addr = d.src_addr;
  o.dst_space = d.dst_space == Space::sbuf;
  o.dst_addr = d.dst_addr;
  o.len = d.len;
  o.stype = static_cast<std::uint8_t>(d.stype & 15);
  o.dtype = static_cast<std::uint8_t>(d.dtype & 15);
  o.layout = static_cast<std::uint8_t>(d.layout & 3);
  o.cols = static_cast<std::uint16_t>(d.cols);
  o.op = static_cast<std::uint8_t>(d.op & 3);
  o.sem = d.sem;
  o.sem_space = d.sem_space == Space::sbuf;
  o.sem_addr = d.sem_addr;
  o.sem_val = d.sem_val;
  o.barrier = d.barrier;
  o.last = d.last;
  return o;
}

void DmaEngine::reset() {
  q_.assign(p_.queues, Queue{});
  for (auto& q : q_) q.seq_slot.assign(p_.slots, 0);
  s_.assign(p_.slots, Slot{});
  for (auto& s : s_) s.data = Bits(8 * p_.geo.beat_bytes);
  busy_.assign((p_.slots + 63) / 64, 0);
  data_.assign((p_.slots + 63) / 64, 0);
  spans_.clear();
  span_lo_ = ~std::uint64_t{0};
  span_hi_ = 0;
  inflight_ = rob_ = 0;
  qarb_.tick(qarb_.make_in());  // rst_ni low: the queue arbiter's reset state
  ar_v_ = ar_space_ = false;
  ar_addr_ = 0;
  ar_bytes_ = ar_id_ = 0;
  w_v_ = w_sem_ = false;
  w_slot_ = p_.slots - 1;  // the write selection starts from slot 0
  w_q_ = 0;
}

void DmaEngine::set_slot(unsigned i, S st) {
  Slot& s = s_[i];
  if ((s.st == S::free) != (st == S::free)) {
    auto& of = q_[s.q].slots_of;
    auto it = std::find_if(of.begin(), of.end(), [&](const auto& e) { return e.first == s.desc; });
    if (st != S::free) {  // taken: its destination and descriptor counted
      if (!spans_.emplace(s.lo, s.hi).second || s.hi <= s.lo)
        throw std::logic_error(fmt::format(
            "dma engine model: slot {} destination [{:#x}, {:#x}) overlaps another's or is empty", i, s.lo, s.hi));
      span_lo_ = std::min(span_lo_, s.lo);
      span_hi_ = std::max(span_hi_, s.hi);
      if (it == of.end())
        of.emplace_back(s.desc, 1);
      else
        ++it->second;
    } else {  // freed
      spans_.erase(s.lo);
      if (--it->second == 0) {
        *it = of.back();
        of.pop_back();
      }
    }
  }
  s.st = st;
  const std::uint64_t bit = std::uint64_t{1} << (i % 64);
  busy_[i / 64] = st != S::free ? busy_[i / 64] | bit : busy_[i / 64] & ~bit;
  data_[i / 64] = st == S::data ? data_[i / 64] | bit : data_[i / 64] & ~bit;
}

common::RrArbiter::In DmaEngine::arb_in(bool res_ok) const {
  common::RrArbiter::In a = qarb_.make_in();
  a.rst_ni = true;
  for (unsigned q = 0; q < p_.queues; ++q)
    if (q_[q].st == Q::run) a.req_valid_i |= std::uint64_t{1} << q;
  a.gnt_ready_i = res_ok;
  return a;
}

DmaEngine::Comb DmaEngine::comb(const In& in) const {
  Comb c;
  const unsigned Q = p_.queues;
  // the lowest free slot (the slots' states are mirrored in busy_ and data_, a bit a slot, so
  // the searches below visit words and set bits instead of every slot)
  bool have_free = false;
  for (unsigned k = 0; k < busy_.size() && !have_free; ++k) {
    const std::uint64_t f = ~busy_[k];
    const unsigned i = 64 * k + static_cast<unsigned>(std::countr_zero(f));
    if (f != 0 && i < p_.slots) {
      have_free = true;
      c.free_slot = i;
    }
  }
  c.res_ok = (!ar_v_ || in.ar_ready_i) && have_free && inflight_ < in.cfg_max_outst_i;
  // queue choice: round-robin among the queues in RUN (rtl/common rr_arbiter, its grant held
  // while the read resources are not free)
  common::RrArbiter::Out ao = qarb_.make_out();
  qarb_.eval(arb_in(c.res_ok), ao);
  c.any_req = ao.gnt_valid_o;
  c.win = static_cast<unsigned>(ao.gnt_idx_o);
  if (c.any_req) {
    const Queue& qu = q_[c.win];
    const Desc& d = qu.fifo.front();
    const std::uint32_t rem = qu.nelem - qu.elem;
    if (d.layout == 0) {
      c.cn = rem < qu.ecap ? rem : qu.ecap;
    } else {
      const std::uint32_t left = (d.cols - qu.col) & 0xFFFF;
      c.cn = left < qu.ecap ? left : qu.ecap;
    }
    c.es = d.layout == static_cast<unsigned>(Layout::col2) ? 2 : 4;
    c.src = d.src_addr + (qu.elem << lg(qu.ss));
    c.src_space = d.src_space == Space::sbuf;
    const std::uint64_t sp = static_cast<std::uint64_t>(d.dst_space == Space::sbuf) << 32;
    if (d.layout == 0) {
      c.dst = d.dst_addr + (qu.elem << lg(qu.ds));
      c.wn = c.cn << lg(qu.ds);
      c.lo = sp | c.dst;
      c.hi = c.lo + c.wn;
    } else {
      c.dst = d.dst_addr + (qu.col << p_.geo.off_bits) + (qu.row << lg(c.es));
      c.wn = c.cn;
      c.lo = sp | c.dst;
      c.hi = c.lo + ((static_cast<std::uint64_t>(c.cn) - 1) << p_.geo.off_bits) + c.es;
    }
    // a slot's destination overlaps [lo, hi): the nearest below hi (spans_)
    if (c.lo < span_hi_ && span_lo_ < c.hi) {
      if (spans_.empty()) {
        span_lo_ = ~std::uint64_t{0};
        span_hi_ = 0;
      } else {
        span_lo_ = spans_.begin()->first;
        span_hi_ = spans_.rbegin()->second;
        auto it = spans_.lower_bound(c.hi);
        c.hazard = it != spans_.begin() && std::prev(it)->second > c.lo;
      }
    }
    c.chunk_last = qu.elem + c.cn == qu.nelem;
  }
  c.issue = c.res_ok && c.any_req && !c.hazard;

  c.wfree = !w_v_ || in.wr_ready_i;
  bool sem = false;
  for (unsigned q = 0; q < Q && !sem; ++q)
    if (q_[q].st == Q::semw && sem_ready(q) && q_[q].fifo.front().sem) {
      sem = true;
      c.sem_q = q;
    }
  // the slot holding data its queue may write (under write-after-write any, under strong order the
  // one holding the queue's next write, wseq) that comes first after w_slot_, the slot last
  // written: round-robin over the slots, so data waits at most Slots - 1 writes
  bool data = false;
  unsigned best = 0;  // the chosen slot's distance from the one after w_slot_
  const auto consider = [&](unsigned i) {
    const unsigned dist = i > w_slot_ ? i - w_slot_ : i + p_.slots - w_slot_;
    if (!data || dist < best) {
      data = true;
      best = dist;
      c.data_slot = i;
    }
  };
  const std::uint64_t all = Q >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << Q) - 1;
  bool scan = (in.cfg_strong_i & all) != all;
  for (unsigned q = 0; q < Q && !scan; ++q) {  // every queue strong: each queue's next write
    const Queue& qu = q_[q];
    if (qu.wseq == qu.iseq) continue;  // every write it issued taken
    const unsigned i = qu.seq_slot[qu.wseq % p_.slots];
    const Slot& s = s_[i];
    if (s.st == S::free || s.q != q || s.seq != qu.wseq) {
      scan = true;  // its slot's entry taken by a later issue: search every slot
    } else if (s.st == S::data) {
      consider(i);
    }
  }
  if (scan) data = false;
  for (unsigned k = 0; k < data_.size() && scan; ++k)
    for (std::uint64_t m = data_[k]; m != 0; m &= m - 1) {
      const unsigned i = 64 * k + static_cast<unsigned>(std::countr_zero(m));
      const Slot& s = s_[i];
      if (!strong(in, s.q) || s.seq == q_[s.q].wseq) consider(i);
    }
  c.sem_pick = sem && c.wfree;
  c.data_pick = data && c.wfree && !c.sem_pick;

  const bool w_acc = w_v_ && in.wr_ready_i;
  for (unsigned q = 0; q < Q; ++q) {
    const Queue& qu = q_[q];
    bool pop = false;
    switch (qu.st) {
      case Q::run:
        pop = c.issue && c.win == q && c.chunk_last && !qu.fifo.front().sem && !qu.fifo.front().last;
        break;
      case Q::semw:
        pop = qu.pend == 0 && !qu.fifo.front().sem;
        break;
      case Q::sema:
        pop = w_acc && w_sem_ && w_q_ == q;
        break;
      default:
        break;
    }
    c.pop |= std::uint64_t{pop} << q;
    c.drop |= std::uint64_t{qu.st == Q::err && ((in.q_clr_i >> q) & 1)} << q;
  }
  return c;
}

void DmaEngine::convert(const Slot& s, const Bits& d, Bits& rx) const {
  const unsigned W = p_.geo.beat_bytes;
  if (rx.width() != 8 * W) rx = Bits(8 * W);
  rx.clear();
  if (!s.cast) {  // the chunk's bytes as they came, the rest of the beat zero
    rx.copy(0, d, 0, 8 * std::min(W, s.cnt * s.ss));
    return;
  }
  for (unsigned j = 0; j < W / 4 && j < s.cnt; ++j) {
    const auto code = static_cast<std::uint32_t>(d.slice(8 * s.ss * j, 8 * s.ss));
    const std::uint32_t v = cast_elem(s.stype, s.dtype, code);
    rx.set_slice(8 * s.esize * j, 8 * s.esize, v);
  }
}

bool DmaEngine::sem_ready(unsigned q) const {
  const Queue& qu = q_[q];
  if (qu.fifo.front().last) return qu.pend == 0;  // `last`: every write of the queue visible
  for (const auto& [desc, n] : qu.slots_of)       // else: the descriptor's own writes (no slot)
    if (desc == qu.dseq) return false;
  return true;
}

void DmaEngine::eval(const In& in, Out& o) const {
  const auto qid = static_cast<unsigned>(in.desc_queue_i);
  o.desc_ready_o = qid < p_.queues && q_[qid].fifo.size() < p_.qdepth;
  o.ar_valid_o = ar_v_;
  o.ar_o = {ar_space_, ar_addr_, static_cast<std::uint8_t>(ar_bytes_), static_cast<std::uint8_t>(ar_id_)};
  o.wr_valid_o = w_v_;
  // (the outputs' vectors are reused: no allocation an eval)
  if (o.wr_data_o.width() != 8 * p_.geo.beat_bytes)
    o.wr_data_o = Bits(8 * p_.geo.beat_bytes);
  else
    o.wr_data_o.clear();
  o.wr_o = {};
  o.wr_info_o = {};
  if (w_v_ && w_sem_) {
    const Desc& h = q_[w_q_].fifo.front();
    o.wr_o = {h.sem_space == Space::sbuf, false, 4, h.sem_addr, 4, false};
    o.wr_data_o.set_slice(0, 32, h.sem_val);
    o.wr_info_o = {static_cast<std::uint8_t>(w_q_), q_[w_q_].dseq, q_[w_q_].nelem, true};
  } else if (w_v_) {
    const Slot& s = s_[w_slot_];
    o.wr_o = {s.space, s.col, static_cast<std::uint8_t>(s.esize), s.addr, static_cast<std::uint8_t>(s.n), s.acc};
    o.wr_data_o = s.data;
    o.wr_info_o = {static_cast<std::uint8_t>(w_q_), s.desc, s.elem, s.rg};
  }
  o.q_idle_o = o.q_err_o = 0;
  if (o.q_code_o.width() != 3 * p_.queues) o.q_code_o = Bits(3 * p_.queues);
  if (o.q_done_o.width() != 16 * p_.queues) o.q_done_o = Bits(16 * p_.queues);
  for (unsigned q = 0; q < p_.queues; ++q) {
    const Queue& qu = q_[q];
    if (qu.st == Q::load && qu.fifo.empty() && qu.pend == 0) o.q_idle_o |= std::uint64_t{1} << q;
    if (qu.st == Q::err) o.q_err_o |= std::uint64_t{1} << q;
    o.q_code_o.set_slice(3 * q, 3, static_cast<unsigned>(qu.code));
    o.q_done_o.set_slice(16 * q, 16, qu.done);
  }
  o.rob_o = rob_;
  o.inflight_o = inflight_;
}

bool DmaEngine::idle() const {
  if (ar_v_ || w_v_ || inflight_ || rob_) return false;
  return std::all_of(q_.begin(), q_.end(), [](const Queue& q) { return q.st == Q::load && q.fifo.empty() && !q.pend; });
}

void DmaEngine::tick(const In& in) {
  if (!in.rst_ni) {
    reset();
    return;
  }
  const Comb c = comb(in);
  qarb_.tick(arb_in(c.res_ok));  // the arbiter's edge, from the queue states before this edge
  const unsigned W = p_.geo.beat_bytes;
  const bool w_acc = w_v_ && in.wr_ready_i;
  const unsigned w_slot_q = s_[w_slot_].q;
  const unsigned data_slot_q = s_[c.data_slot].q;
  const bool push = in.desc_valid_i && static_cast<unsigned>(in.desc_queue_i) < p_.queues &&
                    q_[static_cast<unsigned>(in.desc_queue_i)].fifo.size() < p_.qdepth;
  // the issuing chunk's slot, before the queue's counters move
  Slot ns;
  if (c.issue) {
    const Queue& qu = q_[c.win];
    const Desc& d = qu.fifo.front();
    ns.st = S::wait;
    ns.q = c.win;
    ns.seq = qu.iseq;
    ns.desc = qu.dseq;
    ns.elem = qu.elem;
    ns.space = d.dst_space == Space::sbuf;
    ns.col = d.layout != 0;
    ns.acc = d.op == static_cast<unsigned>(Op::acc);
    ns.rg = d.op == static_cast<unsigned>(Op::reg);
    ns.cast = d.cast();
    ns.esize = d.layout != 0 ? c.es : qu.ds;
    ns.ss = qu.ss;
    ns.stype = d.stype;
    ns.dtype = d.dtype;
    ns.addr = c.dst;
    ns.n = c.wn;
    ns.cnt = c.cn;
    ns.lo = c.lo;
    ns.hi = c.hi;
    ns.data = s_[c.free_slot].data;
  }

  for (unsigned q = 0; q < p_.queues; ++q) {
    Queue& qu = q_[q];
    switch (qu.st) {
      case Q::load:
        if (!qu.fifo.empty()) {
          const Desc& h = qu.fifo.front();
          const Err e = check(h, p_.geo);
          if (e != Err::none) {
            qu.st = Q::err;
            qu.code = e;
          } else {
            qu.ss = type_size(h.stype);
            qu.ds = type_size(h.dtype);
            qu.nelem = h.len >> lg(qu.ss);
            qu.ecap = h.cast() ? W / 4 : W >> lg(qu.ss);
            qu.elem = qu.row = qu.col = 0;
            qu.st = h.barrier ? Q::bar : Q::run;
          }
        }
        break;
      case Q::bar:
        if (qu.pend == 0) qu.st = Q::run;
        break;
      case Q::run:
        if (c.issue && c.win == q) {
          const Desc& h = qu.fifo.front();
          qu.elem += c.cn;
          if (h.layout != 0) {
            if (((qu.col + c.cn) & 0xFFFF) == h.cols) {
              qu.col = 0;
              ++qu.row;
            } else {
              qu.col = (qu.col + c.cn) & 0xFFFF;
            }
          }
          if (c.chunk_last && (h.sem || h.last)) qu.st = Q::semw;
        }
        break;
      case Q::semw:
        if (sem_ready(q) && c.sem_pick && c.sem_q == q) qu.st = Q::sema;
        break;
      case Q::err:
        if ((in.q_clr_i >> q) & 1) {
          qu.st = Q::load;
          qu.code = Err::none;
        }
        break;
      default:
        break;
    }
    if ((c.pop >> q) & 1) {
      qu.st = Q::load;
      ++qu.done;
    }
    if (((c.pop | c.drop) >> q) & 1) {
      qu.fifo.pop_front();
      ++qu.dseq;
    }
    if (push && in.desc_queue_i == q) qu.fifo.push_back(decode(in.desc_i));
    if (c.issue && c.win == q) {
      ++qu.pend;
      ++qu.iseq;
    }
    if (w_acc && !w_sem_ && w_slot_q == q) --qu.pend;
    if (c.data_pick && data_slot_q == q) ++qu.wseq;
  }

  if (c.issue) {
    const S st = ns.st;
    ns.st = S::free;  // set_slot() takes it from free
    s_[c.free_slot] = ns;
    set_slot(c.free_slot, st);
    q_[ns.q].seq_slot[ns.seq % p_.slots] = c.free_slot;
    ar_v_ = true;
    ar_space_ = c.src_space;
    ar_addr_ = c.src;
    ar_bytes_ = c.cn << lg(ns.ss);
    ar_id_ = c.free_slot;
  } else if (in.ar_ready_i) {
    ar_v_ = false;
  }
  if (in.r_valid_i) {
    const unsigned i = static_cast<unsigned>(in.r_id_i) % p_.slots;
    Slot& s = s_[i];
    set_slot(i, S::data);
    convert(s, in.r_data_i, s.data);  // (in place: no allocation a beat)
  }
  inflight_ = inflight_ + (c.issue ? 1 : 0) - (in.r_valid_i ? 1 : 0);
  rob_ = rob_ + (in.r_valid_i ? 1 : 0) - (c.data_pick ? 1 : 0);

  if (w_acc && !w_sem_) set_slot(w_slot_, S::free);
  if (c.sem_pick) {
    w_v_ = true;
    w_sem_ = true;
    w_q_ = c.sem_q;
  } else if (c.data_pick) {
    w_v_ = true;
    w_sem_ = false;
    w_slot_ = c.data_slot;
    w_q_ = data_slot_q;
    set_slot(c.data_slot, S::wr);
  } else if (in.wr_ready_i) {
    w_v_ = false;
  }
}

}  // namespace trn::dma
