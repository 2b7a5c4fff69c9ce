#include "link/router.hpp"

#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::link {

Kind kind_of(const Bits& f) { return static_cast<Kind>(f.slice(f.width() - 2, 2)); }

Head head_of(const Bits& f) {
  return Head{static_cast<unsigned>(f.slice(0, 8)), static_cast<unsigned>(f.slice(8, 8)),
              static_cast<unsigned>(f.slice(16, 2)), static_cast<unsigned>(f.slice(18, 8)),
              static_cast<unsigned>(f.slice(26, 2))};
}

Bits make_flit(unsigned w, Kind k, const Head& h, const Bits& payload) {
  Bits f = payload;
  if (f.width() != w) throw std::invalid_argument("make_flit: payload width");
  if (k == Kind::head || k == Kind::single) {
    f.set_slice(0, 8, h.dst);
    f.set_slice(8, 8, h.src);
    f.set_slice(16, 2, h.type);
    f.set_slice(18, 8, h.len);
    f.set_slice(26, 2, h.tc);
  }
  f.set_slice(w - 2, 2, static_cast<unsigned>(k));
  return f;
}

std::vector<Bits> tagged_packet(unsigned w, unsigned id, const Head& h, std::vector<Bits> payloads) {
  if (w < 64 || payloads.size() != h.len)
    throw std::invalid_argument("tagged_packet: w >= 64 and one payload per flit");
  std::vector<Bits> flits;
  for (unsigned f = 0; f < h.len; ++f) {
    Bits& pay = payloads[f];
    pay.set_slice(32, 20, id);
    pay.set_slice(52, 8, f);
    const Kind kind = h.len == 1 ? Kind::single : f == 0 ? Kind::head : f + 1 == h.len ? Kind::tail : Kind::body;
    flits.push_back(make_flit(w, kind, h, pay));
  }
  return flits;
}

FlitTag tag_of(const Bits& f) {
  return FlitTag{static_cast<unsigned>(f.slice(32, 20)), static_cast<unsigned>(f.slice(52, 8))};
}

Route route(Topo topo, unsigned ports, unsigned kx, unsigned ky, unsigned me, unsigned dst, unsigned in_port,
            unsigned in_class, unsigned kz) {
  if (topo == Topo::sw) return Route{dst % ports, 2};
  const unsigned x = me % kx, y = me / kx % ky, z = me / (kx * ky);
  const unsigned dx = dst % kx, dy = dst / kx % ky, dz = dst / (kx * ky);
  Route r{0, 2};
  if (dx != x) {
    r.port = 2 * ((dx + kx - x) % kx) <= kx ? 1 : 2;
    r.cls = (in_port == 1 || in_port == 2) ? in_class : 0;
    if ((r.port == 1 && x == kx - 1) || (r.port == 2 && x == 0)) r.cls = 1;  // the x dateline
  } else if (dy != y) {
    r.port = 2 * ((dy + ky - y) % ky) <= ky ? 3 : 4;
    r.cls = (in_port == 3 || in_port == 4) ? in_class : 0;
    if ((r.port == 3 && y == ky - 1) || (r.port == 4 && y == 0)) r.cls = 1;  // the y dateline
  } else if (dz != z) {
    r.port = 2 * ((dz + kz - z) % kz) <= kz ? 5 : 6;
    r.cls = (in_port == 5 || in_port == 6) ? in_class : 0;
    if ((r.port == 5 && z == kz - 1) || (r.port == 6 && z == 0)) r.cls = 1;  // the z dateline
  }
  return r;
}

unsigned classes(Topo topo, unsigned vcs) { return topo == Topo::torus ? vcs / 2 : vcs; }

bool vc_allowed(Topo topo, unsigned vcs, unsigned v, unsigned tc, unsigned cls) {
  const unsigned c = tc % classes(topo, vcs);
  if (topo != Topo::torus) return v == c;
  return v / 2 == c && (cls == 2 || v % 2 == cls);
}

Router::Router(Params p) : p_(p), vb_(p.v > 1 ? clog2(p.v) : 1) {
  if (p_.p > 255) throw std::invalid_argument("router: at most 255 ports (8-bit chip ids)");
  if (p_.topo == Topo::table && (!p_.table || p_.table->size() > 256))
    throw std::invalid_argument("router: a table-routed router needs a table of at most 256 chip ids");
  if (p_.topo == Topo::torus && (p_.p != (p_.kz > 1 ? 7u : 5u) || p_.v % 2 != 0))
    throw std::invalid_argument("router: a 2D (3D) torus router has 5 (7) ports and an even number of VCs");
  iv_.resize(p_.p * p_.v);
  for (auto& i : iv_) i.fifo.slot.assign(p_.d, Bits(p_.w));
  obusy_.assign(p_.p * p_.v, false);
  cred_.assign(p_.p * p_.v, p_.d);
  va_prio_.assign(p_.p, 0);
  sa_in_prio_.assign(p_.p, 0);
  sa_out_prio_.assign(p_.p, 0);
  q_ = make_out();
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
/// Round-robin: the first requester at or after `prio` (wrapping) among n; n if none.
unsigned rr(const std::vector<bool>& req, unsigned prio) {
  const unsigned n = static_cast<unsigned>(req.size());
  for (unsigned k = 0; k < n; ++k)
    if (req[(prio + k) % n]) return (prio + k) % n;
  return n;
}
}  // namespace

void Router::tick(const In& in) {
  const unsigned P = p_.p, V = p_.v, NV = P * V;
  if (!in.rst_ni) {
    for (auto& i : iv_) {
      i.fifo.clear();
      i.active = i.drop = false;
      i.op = i.ov = 0;
    }
    obusy_.assign(NV, false);
    cred_.assign(NV, p_.d);
    va_prio_.assign(P, 0);
    sa_in_prio_.assign(P, 0);
    sa_out_prio_.assign(P, 0);
    q_ = make_out();
    return;
  }
  const unsigned me = static_cast<unsigned>(in.id_i);
  // scratch of this tick, kept between ticks so that nothing is allocated per cycle
  Scratch& sc = sc_;
  sc.rt.assign(NV, Route{});
  sc.tc.assign(NV, 0);
  auto& rt = sc.rt;
  auto& tc = sc.tc;
  // route of every head flit waiting for VC allocation (only those use it)
  for (unsigned i = 0; i < NV; ++i)
    if (!iv_[i].fifo.empty() && !iv_[i].active) {
      const Head h = head_of(iv_[i].fifo.front());
      rt[i] = p_.topo == Topo::table ? Route{h.dst < ids() ? (*p_.table)[h.dst] : 0u, 2}
                                     : route(p_.topo, P, p_.kx, p_.ky, me, h.dst, i / V, (i % V) % 2, p_.kz);
      tc[i] = h.tc;
    }
  auto is_head = [&](unsigned i) {
    const Kind k = kind_of(iv_[i].fifo.front());
    return k == Kind::head || k == Kind::single;
  };
  auto bad_head = [&](unsigned i) { return is_head(i) && head_of(iv_[i].fifo.front()).dst >= ids(); };
  auto is_tail = [&](unsigned i) {
    const Kind k = kind_of(iv_[i].fifo.front());
    return k == Kind::tail || k == Kind::single;
  };
  // VC allocation: per output port, one input VC, the lowest free output VC of its class
  auto& va_gnt = sc.va_gnt;
  auto& va_vc = sc.va_vc;
  auto& va_pick = sc.va_pick;
  auto& va_take = sc.va_take;
  auto& va_req = sc.va_req;
  va_gnt.assign(NV, false);
  va_vc.assign(NV, 0);
  va_pick.assign(P, NV);
  va_take.assign(NV, false);
  // requests listed per output port (a switch has many ports; most ask for none)
  va_req.resize(P);
  for (auto& r : va_req) r.clear();
  for (unsigned i = 0; i < NV; ++i)
    if (!iv_[i].active && !iv_[i].fifo.empty() && is_head(i) && !bad_head(i)) va_req[rt[i].port].push_back(i);
  for (unsigned o = 0; o < P; ++o) {
    // only requests that a free output VC of their class can satisfy take part; round-robin: the
    // first at or after the priority pointer, wrapping
    auto free_vc = [&](unsigned i) {
      for (unsigned v = 0; v < V; ++v)
        if (!obusy_[o * V + v] && vc_allowed(p_.topo, V, v, tc[i], rt[i].cls)) return true;
      return false;
    };
    unsigned w = NV;
    for (unsigned i : va_req[o])
      if (free_vc(i) && (w == NV || (i + NV - va_prio_[o]) % NV < (w + NV - va_prio_[o]) % NV)) w = i;
    if (w == NV) continue;
    for (unsigned v = 0; v < V; ++v) {
      if (obusy_[o * V + v] || !vc_allowed(p_.topo, V, v, tc[w], rt[w].cls)) continue;
      va_gnt[w] = true;
      va_vc[w] = v;
      va_pick[o] = w;
      va_take[o * V + v] = true;
      break;
    }
  }
  // switch allocation: input stage, then output stage
  auto& in_pick = sc.in_pick;
  auto& req = sc.req;
  in_pick.assign(P, V);
  for (unsigned p = 0; p < P; ++p) {
    req.assign(V, false);
    for (unsigned v = 0; v < V; ++v) {
      const InVc& s = iv_[p * V + v];
      req[v] = s.active && !s.fifo.empty() && cred_[s.op * V + s.ov] > 0;
    }
    in_pick[p] = rr(req, sa_in_prio_[p]);
  }
  auto& out_pick = sc.out_pick;
  out_pick.assign(P, P);
  for (unsigned p = 0; p < P; ++p) {
    if (in_pick[p] == V) continue;
    const unsigned o = iv_[p * V + in_pick[p]].op;
    if (out_pick[o] == P || (p + P - sa_out_prio_[o]) % P < (out_pick[o] + P - sa_out_prio_[o]) % P) out_pick[o] = p;
  }
  // outputs of the next cycle (the data registers keep their values when nothing is sent), state
  Out& n = q_;
  n.out_valid_o.clear();
  n.in_credit_o.clear();
  auto& sent = sc.sent;
  auto& freed = sc.freed;
  sent.assign(NV, false);
  freed.assign(NV, false);
  for (unsigned o = 0; o < P; ++o) {
    if (out_pick[o] == P) continue;
    const unsigned p = out_pick[o], i = p * V + in_pick[p];
    InVc& s = iv_[i];
    n.out_valid_o.set_bit(o, true);
    n.out_vc_o.set_slice(o * vb_, vb_, s.ov);
    const Bits& f = s.fifo.front();
    n.out_flit_o.copy(o * p_.w, f, 0, p_.w);
    sent[s.op * V + s.ov] = true;
    freed[s.op * V + s.ov] = is_tail(i);
    if (is_tail(i)) s.active = false;
    s.fifo.pop_front();
    n.in_credit_o.set_bit(p, true);
    n.in_credit_vc_o.set_slice(p * vb_, vb_, in_pick[p]);
    sa_in_prio_[p] = (in_pick[p] + 1) % V;
    sa_out_prio_[o] = (p + 1) % P;
  }
  // packets to destinations that do not exist: a port without a switch grant discards one flit of
  // its lowest discarding VC and returns its credit
  for (unsigned p = 0; p < P; ++p) {
    if (n.in_credit_o.bit(p)) continue;  // the port's switch grant returns this cycle's credit
    for (unsigned v = 0; v < V; ++v) {
      InVc& s = iv_[p * V + v];
      if (s.fifo.empty() || s.active || !(s.drop || bad_head(p * V + v))) continue;
      if (!s.drop) ++n.bad_dst_o;
      s.drop = !is_tail(p * V + v);
      s.fifo.pop_front();
      n.in_credit_o.set_bit(p, true);
      n.in_credit_vc_o.set_slice(p * vb_, vb_, v);
      break;
    }
  }
  for (unsigned i = 0; i < NV; ++i)
    if (va_gnt[i]) {
      iv_[i].active = true;
      iv_[i].op = rt[i].port;
      iv_[i].ov = va_vc[i];
    }
  for (unsigned j = 0; j < NV; ++j) {
    const unsigned o = j / V;
    const bool back = in.out_credit_i.bit(o) && in.out_credit_vc_i.slice(o * vb_, vb_) == j % V;
    cred_[j] = cred_[j] - (sent[j] ? 1 : 0) + (back ? 1 : 0);
    if (va_take[j])
      obusy_[j] = true;
    else if (freed[j])
      obusy_[j] = false;
  }
  for (unsigned o = 0; o < P; ++o)
    if (va_pick[o] < NV) va_prio_[o] = (va_pick[o] + 1) % NV;
  // arriving flits
  for (unsigned p = 0; p < P; ++p) {
    if (!in.in_valid_i.bit(p)) continue;
    const unsigned v = static_cast<unsigned>(in.in_vc_i.slice(p * vb_, vb_));
    if (v >= V) throw std::runtime_error("router: flit on a virtual channel that does not exist");
    if (iv_[p * V + v].fifo.size() >= p_.d) throw std::runtime_error("router: flit without a credit (buffer full)");
    iv_[p * V + v].fifo.push_back().copy(0, in.in_flit_i, p * p_.w, p_.w);
  }
}

}  // namespace trn::link
