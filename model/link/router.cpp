#include "link/router.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::link {

Kind kind_of(const Bits& f) { return static_cast<Kind>(f.slice(f.width() - 2, 2)); }

Head head_of(const Bits& f) { return Head::unpack(f); }

Bits make_flit(unsigned w, Kind k, const Head& h, const Bits& payload) {
  Bits f = payload;
  if (f.width() != w) throw std::invalid_argument("make_flit: payload width");
  if (w < Head::kWidth + 2) throw std::invalid_argument("make_flit: a flit holds its kind and the head fields");
  if (k == Kind::FlitHead || k == Kind::FlitSingle) h.pack(f);
  f.set_slice(w - 2, 2, static_cast<unsigned>(k));
  return f;
}

std::vector<Bits> tagged_packet(unsigned w, unsigned id, const Head& h, std::vector<Bits> payloads) {
  if (w < 64 || payloads.size() != h.len)
    throw std::invalid_argument("tagged_packet: w >= 64 and one payload per flit");
  if (id >= (1u << 20))
    throw std::invalid_argument(
        fmt::format("tagged_packet: packet id {} does not fit the 20-bit tag (a run creates at most "
                    "1048576 packets: shorten it)",
                    id));
  std::vector<Bits> flits;
  for (unsigned f = 0; f < h.len; ++f) {
    Bits& pay = payloads[f];
    pay.set_slice(32, 20, id);
    pay.set_slice(52, 8, f);
    const Kind kind = h.len == 1       ? Kind::FlitSingle
                      : f == 0         ? Kind::FlitHead
                      : f + 1 == h.len ? Kind::FlitTail
                                       : Kind::FlitBody;
    flits.push_back(make_flit(w, kind, h, pay));
  }
  return flits;
}

FlitTag tag_of(const Bits& f) {
  return FlitTag{static_cast<unsigned>(f.slice(32, 20)), static_cast<unsigned>(f.slice(52, 8))};
}

unsigned torus_neighbour(unsigned kx, unsigned ky, unsigned kz, unsigned r, unsigned q) {
  unsigned x = r % kx, y = r / kx % ky, z = r / (kx * ky);
  switch (q) {
    case 1:
      x = (x + 1) % kx;
      break;
    case 2:
      x = (x + kx - 1) % kx;
      break;
    case 3:
      y = (y + 1) % ky;
      break;
    case 4:
      y = (y + ky - 1) % ky;
      break;
    case 5:
      z = (z + 1) % kz;
      break;
    default:
      z = (z + kz - 1) % kz;
      break;
  }
  return (z * ky + y) * kx + x;
}

Route route(Topo topo, unsigned ports, unsigned kx, unsigned ky, unsigned me, unsigned dst, unsigned in_port,
            unsigned in_class, unsigned kz, bool last_hop, bool ties_minus) {
  if (topo == Topo::TopoSwitch) return Route{dst % ports, 2};
  const unsigned x = me % kx, y = me / kx % ky, z = me / (kx * ky);
  const unsigned dx = dst % kx, dy = dst / kx % ky, dz = dst / (kx * ky);
  // the shorter way round; half way round, + (the RTL's choice) or, with ties_minus, -
  auto plus = [&](unsigned ahead, unsigned k) { return 2 * ahead < k || (2 * ahead == k && !ties_minus); };
  Route r{0, 0};  // ejection: the class's first VC, so a flow reaches the NIC in one FIFO
  if (dx != x) {
    r.port = plus((dx + kx - x) % kx, kx) ? 1 : 2;
    r.cls = (in_port == 1 || in_port == 2) ? in_class : 0;
    if ((r.port == 1 && x == kx - 1) || (r.port == 2 && x == 0)) r.cls = 1;  // the x dateline
  } else if (dy != y) {
    r.port = plus((dy + ky - y) % ky, ky) ? 3 : 4;
    r.cls = (in_port == 3 || in_port == 4) ? in_class : 0;
    if ((r.port == 3 && y == ky - 1) || (r.port == 4 && y == 0)) r.cls = 1;  // the y dateline
  } else if (dz != z) {
    r.port = plus((dz + kz - z) % kz, kz) ? 5 : 6;
    r.cls = (in_port == 5 || in_port == 6) ? in_class : 0;
    if ((r.port == 5 && z == kz - 1) || (r.port == 6 && z == 0)) r.cls = 1;  // the z dateline
  }
  if (last_hop && r.port != 0 && torus_neighbour(kx, ky, kz, me, r.port) == dst) r.cls = 3;
  return r;
}

unsigned class_vcs(bool last_hop) { return last_hop ? 3 : 2; }

unsigned classes(Topo topo, unsigned vcs, bool last_hop) {
  return topo == Topo::TopoTorus ? vcs / class_vcs(last_hop) : vcs;
}

bool vc_allowed(Topo topo, unsigned vcs, unsigned v, unsigned tc, unsigned cls, bool last_hop) {
  const unsigned c = tc % classes(topo, vcs, last_hop), s = class_vcs(last_hop);
  if (topo != Topo::TopoTorus) return v == c;
  if (cls == 3) return last_hop && v / s == c && v % s == 2;
  return v / s == c && (cls == 2 || v % s == cls);
}

Router::Router(Params p) : p_(p), vb_(p.v > 1 ? clog2(p.v) : 1) {
  if (p_.p > 255) throw std::invalid_argument("router: at most 255 ports (8-bit chip ids)");
  if (p_.topo == Topo::TopoTable && (!p_.table || p_.table->size() > 256))
    throw std::invalid_argument("router: a table-routed router needs a table of at most 256 chip ids");
  if (p_.v < 1 || p_.v > 64) throw std::invalid_argument("router: 1 to 64 virtual channels");
  if (p_.topo == Topo::TopoTorus && (p_.p != (p_.kz > 1 ? 7u : 5u) || p_.v % class_vcs(p_.last_hop) != 0))
    throw std::invalid_argument(
        "router: a 2D (3D) torus router has 5 (7) ports and a number of VCs that is a multiple of 2 (with the "
        "last-hop VC, of 3)");
  if (p_.last_hop && p_.topo != Topo::TopoTorus) throw std::invalid_argument("router: the last-hop VC is a torus's");
  iv_.resize(p_.p * p_.v);
  for (auto& i : iv_) i.fifo.slot.assign(p_.d, Bits(p_.w));
  reset();
}

Router::In Router::make_in() const {
  In in;
  in.in_valid_i = Bits(p_.p);
  in.out_credit_i = Bits(p_.p);
  in.in_vc_i = Bits(p_.p * vb_);
  in.in_flit_i = Bits(p_.p * p_.w);
  in.out_credit_vc_i = Bits(p_.p * vb_);
  return in;
}

Router::Out Router::make_out() const {
  Out o;
  o.in_credit_o = Bits(p_.p);
  o.out_valid_o = Bits(p_.p);
  o.in_credit_vc_o = Bits(p_.p * vb_);
  o.out_vc_o = Bits(p_.p * vb_);
  o.out_flit_o = Bits(p_.p * p_.w);
  return o;
}

void Router::eval(const In&, Out& out) const { out = q_; }

namespace {
/// The first index at or after `prio` (wrapping) among n for which `req` holds; n if none.
template <class F>
unsigned rr_first(unsigned n, unsigned prio, F&& req) {
  for (unsigned k = 0, i = prio; k < n; ++k, i = i + 1 == n ? 0 : i + 1)
    if (req(i)) return i;
  return n;
}
/// Round-robin order from `prio` among n: does index a come before index b?
bool rr_before(unsigned a, unsigned b, unsigned prio, unsigned n) {
  // (x + n - prio) % n without the divisions: a and b are below n
  const unsigned ka = a >= prio ? a - prio : a + n - prio, kb = b >= prio ? b - prio : b + n - prio;
  return ka < kb;
}
}  // namespace

void Router::reset() {
  const unsigned NV = p_.p * p_.v;
  for (auto& i : iv_) {
    i.fifo.clear();
    i.active = i.drop = false;
    i.op = i.ov = 0;
    i.front_ok = false;
  }
  obusy_.assign(p_.p, 0);
  cred_.assign(NV, common::CreditCounter({p_.d}));
  va_arb_.assign(p_.p, Arb{});
  sa_in_arb_.assign(p_.p, Arb{});
  sa_out_arb_.assign(p_.p, Arb{});
  q_ = make_out();
}

void Router::pop(unsigned i) {
  iv_[i].fifo.pop_front();
  iv_[i].front_ok = false;
}

void Router::tick(const In& in) {
  if (!in.rst_ni) {
    reset();
    return;
  }
  // Nothing held, arriving or returned: the allocators have no request, so only the valid bits of
  // the outputs and the switch allocator's held grants change (most routers of a network at low
  // load, most cycles).
  auto empty = [](const InVc& i) { return i.fifo.empty(); };
  if (!in.in_valid_i.any() && !in.out_credit_i.any() && std::all_of(iv_.begin(), iv_.end(), empty)) {
    q_.out_valid_o.clear();
    q_.in_credit_o.clear();
    for (Arb& a : sa_in_arb_) a.lock = false;
    return;
  }
  // the stages of rtl/link/router.sv, in its order
  buffer_in(in);
  decode_fronts(static_cast<unsigned>(in.id_i));
  allocate_vcs();
  allocate_switch(in);
  traverse();
  drop_bad();
  update_credits();
}

void Router::buffer_in(const In& in) {
  // Input VC buffers with their bypass: the arriving flit joins the ring first, so an empty
  // buffer's front is the flit arriving this cycle (and a flit read then is never stored).
  const unsigned P = p_.p, V = p_.v;
  for (unsigned p = 0; p < P; ++p) {
    if (!in.in_valid_i.bit(p)) continue;
    const unsigned v = static_cast<unsigned>(in.in_vc_i.slice(p * vb_, vb_));
    if (v >= V) throw std::runtime_error("router: flit on a virtual channel that does not exist");
    InVc& s = iv_[p * V + v];
    if (s.fifo.size() >= p_.d) throw std::runtime_error("router: flit without a credit (buffer full)");
    if (s.fifo.empty()) s.front_ok = false;
    s.fifo.push_back().copy(0, in.in_flit_i, p * p_.w, p_.w);
  }
}

void Router::decode_fronts(unsigned me) {
  // route computation: the front flit of every input VC, its kind, and for a head its route
  // (decoded once per flit)
  const unsigned P = p_.p, V = p_.v, NV = P * V;
  static const Front kNone{};
  auto& f = sc_.front;
  f.resize(NV);
  for (unsigned i = 0; i < NV; ++i) {
    InVc& s = iv_[i];
    if (s.fifo.empty()) {
      f[i] = &kNone;
      continue;
    }
    f[i] = &s.front;
    if (s.front_ok && s.front_id == me) continue;
    Front& fr = s.front;
    const Bits& fl = s.fifo.front();
    const Kind k = kind_of(fl);
    fr.has = true;
    fr.head = k == Kind::FlitHead || k == Kind::FlitSingle;
    fr.tail = k == Kind::FlitTail || k == Kind::FlitSingle;
    fr.bad = false;
    fr.tc = 0;
    fr.rt = Route{};
    fr.allowed = 0;
    if (fr.head) {
      const Head h = head_of(fl);
      fr.bad = h.dst >= ids();
      fr.tc = h.tc;
      fr.rt = p_.topo == Topo::TopoTable ? Route{fr.bad ? 0u : (*p_.table)[h.dst], 2}
                                         : route(p_.topo, P, p_.kx, p_.ky, me, h.dst, i / V,
                                                 (i % V) % class_vcs(p_.last_hop) == 1, p_.kz, p_.last_hop);
      for (unsigned v = 0; v < V; ++v)
        if (vc_allowed(p_.topo, V, v, fr.tc, fr.rt.cls, p_.last_hop)) fr.allowed |= std::uint64_t{1} << v;
    }
    s.front_ok = true;
    s.front_id = me;
  }
}

void Router::allocate_vcs() {
  // VC allocation: per output port, an arbiter among the input VCs whose head routes there and
  // for which a free output VC of their class exists; the winner takes the lowest such VC
  const unsigned P = p_.p, V = p_.v, NV = P * V;
  Scratch& sc = sc_;
  const auto& f = sc.front;
  auto free_vc = [&](unsigned o, unsigned i) {
    const std::uint64_t m = f[i]->allowed & ~obusy_[o];
    return m != 0 ? static_cast<unsigned>(std::countr_zero(m)) : V;
  };
  auto& va_vc = sc.va_vc;
  va_vc.assign(NV, V);  // V: no grant
  auto& take = sc.take;
  take.assign(P, 0);
  // round-robin over the requests: per output, the first at or after the arbiter's priority
  auto& win = sc.va_win;
  win.assign(P, NV);
  for (unsigned i = 0; i < NV; ++i) {
    const Front& fr = *f[i];
    if (!fr.has || iv_[i].active || !fr.head || fr.bad) continue;
    const unsigned o = fr.rt.port;
    if (free_vc(o, i) == V) continue;
    if (win[o] == NV || rr_before(i, win[o], va_arb_[o].prio, NV)) win[o] = i;
  }
  for (unsigned o = 0; o < P; ++o) {
    const unsigned w = win[o];
    if (w == NV) continue;
    va_vc[w] = free_vc(o, w);
    take[o] |= std::uint64_t{1} << va_vc[w];
    va_arb_[o].prio = w + 1 == NV ? 0 : w + 1;  // the grant is always taken
  }
  // every input VC's output port and VC: held, or granted this cycle
  auto& aop = sc.aop;
  auto& aov = sc.aov;
  aop.resize(NV);
  aov.resize(NV);
  for (unsigned i = 0; i < NV; ++i) {
    const InVc& s = iv_[i];
    aop[i] = s.active ? s.op : f[i]->rt.port;
    aov[i] = s.active ? s.ov : va_vc[i];
  }
}

void Router::allocate_switch(const In& in) {
  const unsigned P = p_.p, V = p_.v, NV = P * V;
  Scratch& sc = sc_;
  const auto& f = sc.front;
  const auto& aop = sc.aop;
  const auto& aov = sc.aov;
  auto alloc = [&](unsigned i) { return iv_[i].active || sc.va_vc[i] < V; };
  // output credits: a credit arriving this cycle can be spent this cycle
  auto& give = sc.give;
  give.assign(NV, 0);
  for (unsigned o = 0; o < P; ++o)
    if (in.out_credit_i.bit(o)) {
      const unsigned v = static_cast<unsigned>(in.out_credit_vc_i.slice(o * vb_, vb_));
      if (v < V) give[o * V + v] = 1;
    }
  auto cred_ok = [&](unsigned j) { return cred_[j].count() > 0 || give[j]; };
  // switch allocation, input stage: per input port, an arbiter among its VCs that can send (its
  // grant held until the output stage takes it)
  auto& in_pick = sc.in_pick;
  in_pick.assign(P, V);
  for (unsigned p = 0; p < P; ++p) {
    auto req = [&](unsigned v) {
      const unsigned i = p * V + v;
      return f[i]->has && alloc(i) && cred_ok(aop[i] * V + aov[i]);
    };
    const Arb& a = sa_in_arb_[p];
    in_pick[p] = a.lock && req(a.lock_idx) ? a.lock_idx : rr_first(V, a.prio, req);
  }
  // output stage: per output port, an arbiter among the input ports asking for it
  auto& out_pick = sc.out_pick;
  out_pick.assign(P, P);
  for (unsigned p = 0; p < P; ++p) {
    if (in_pick[p] == V) continue;
    const unsigned o = aop[p * V + in_pick[p]], prio = sa_out_arb_[o].prio;
    if (out_pick[o] == P || rr_before(p, out_pick[o], prio, P)) out_pick[o] = p;
  }
}

void Router::traverse() {
  // the winners: outputs of the next cycle (the data registers keep their values when nothing is
  // sent), input VCs read, output VCs sent on and freed by a tail
  const unsigned P = p_.p, V = p_.v, NV = P * V;
  Scratch& sc = sc_;
  const auto& f = sc.front;
  const auto& aop = sc.aop;
  const auto& aov = sc.aov;
  const auto& in_pick = sc.in_pick;
  const auto& out_pick = sc.out_pick;
  Out& n = q_;
  n.out_valid_o.clear();
  n.in_credit_o.clear();
  auto& sent = sc.sent;
  auto& freed = sc.freed;
  auto& gnt = sc.gnt;
  sent.assign(NV, 0);
  freed.assign(NV, 0);
  gnt.assign(P, 0);
  for (unsigned o = 0; o < P; ++o) {
    if (out_pick[o] == P) continue;
    const unsigned p = out_pick[o], i = p * V + in_pick[p], j = aop[i] * V + aov[i];
    gnt[p] = 1;
    n.out_valid_o.set_bit(o, true);
    n.out_vc_o.set_slice(o * vb_, vb_, aov[i]);
    n.out_flit_o.copy(o * p_.w, iv_[i].fifo.front(), 0, p_.w);
    sent[j] = 1;
    freed[j] = f[i]->tail;
    n.in_credit_o.set_bit(p, true);
    n.in_credit_vc_o.set_slice(p * vb_, vb_, in_pick[p]);
    sa_out_arb_[o].prio = p + 1 == P ? 0 : p + 1;
  }
  for (unsigned p = 0; p < P; ++p) {
    Arb& a = sa_in_arb_[p];
    if (in_pick[p] == V) {
      a.lock = false;
    } else if (gnt[p]) {
      a.prio = in_pick[p] + 1 == V ? 0 : in_pick[p] + 1;
      a.lock = false;
    } else {
      a.lock = true;
      a.lock_idx = in_pick[p];
    }
  }
  // input VC state: an output VC granted this cycle is held until the tail leaves (a one-flit
  // packet may take it and leave in the same cycle)
  for (unsigned i = 0; i < NV; ++i) {
    InVc& s = iv_[i];
    if (sc.va_vc[i] < V) {
      s.active = true;
      s.op = aop[i];
      s.ov = aov[i];
    }
  }
  for (unsigned o = 0; o < P; ++o) {
    if (out_pick[o] == P) continue;
    const unsigned i = out_pick[o] * V + in_pick[out_pick[o]];
    InVc& s = iv_[i];
    if (freed[s.op * V + s.ov]) s.active = false;
    pop(i);
  }
}

void Router::drop_bad() {
  // packets to destinations that do not exist: a port without a switch grant discards one flit of
  // its lowest discarding VC and returns its credit
  const unsigned P = p_.p, V = p_.v;
  const auto& f = sc_.front;
  Out& n = q_;
  for (unsigned p = 0; p < P; ++p) {
    if (sc_.gnt[p]) continue;
    for (unsigned v = 0; v < V; ++v) {
      const unsigned i = p * V + v;
      InVc& s = iv_[i];
      const Front& fr = *f[i];
      if (!fr.has || s.active || !(s.drop || fr.bad)) continue;
      if (!s.drop) ++n.bad_dst_o;
      s.drop = !fr.tail;
      pop(i);
      n.in_credit_o.set_bit(p, true);
      n.in_credit_vc_o.set_slice(p * vb_, vb_, v);
      break;
    }
  }
}

void Router::update_credits() {
  // output VCs and their credit counters: a credit spent in the cycle it arrives does not pass
  // through the counter (a counter neither spent nor given keeps its count)
  const unsigned P = p_.p, V = p_.v, NV = P * V;
  const Scratch& sc = sc_;
  for (unsigned o = 0; o < P; ++o) {
    std::uint64_t fr = 0;
    for (unsigned v = 0; v < V; ++v) fr |= std::uint64_t{sc.freed[o * V + v]} << v;
    obusy_[o] = (obusy_[o] | sc.take[o]) & ~fr;
  }
  for (unsigned j = 0; j < NV; ++j) {
    const bool spend = sc.sent[j] && !sc.give[j], ret = sc.give[j] && !sc.sent[j];
    if (!spend && !ret) continue;
    cred_[j].tick(common::CreditCounter::In{true, spend, ret});
    if (cred_[j].error())
      throw std::runtime_error(
          fmt::format("router: output VC {} of port {}: a flit sent without a credit or a "
                      "credit returned beyond the buffer's depth",
                      j % V, j / V));
  }
}

}  // namespace trn::link
