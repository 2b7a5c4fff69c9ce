#include "link/net.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::link {

namespace {
void copy_bits(Bits& dst, unsigned at, const Bits& src, unsigned from, unsigned n) { dst.copy(at, src, from, n); }
unsigned ring(unsigned a, unsigned b, unsigned k) {
  const unsigned d = (b + k - a) % k;
  return std::min(d, k - d);
}
}  // namespace

Net::Net(Params p) : p_(p) {
  if (p.topo == Topo::TopoSwitch && (p.n < 2 || p.n > 255))
    throw std::invalid_argument("net: a switch has 2 to 255 endpoints");
  if (p.topo == Topo::TopoTorus && (p.kx < 2 || p.ky < 2 || p.kz < 1 || p.kx * p.ky * p.kz > 256))
    throw std::invalid_argument("net: a torus needs kx, ky >= 2 and at most 256 chips");
  if (p.topo == Topo::TopoTable && (!p.graph || p.graph->home.size() < 2 || p.graph->home.size() > 256 ||
                                    p.graph->table.size() != p.graph->ports.size()))
    throw std::invalid_argument(
        "net: a table-routed network needs a graph of 2 to 256 endpoints and a table per router");
  if (p.rdepth < p.v * p.d) throw std::invalid_argument("net: the replay buffer must hold v * d flits");
  Router::Params rp;
  rp.v = p.v;
  rp.d = p.d;
  rp.w = p.w;
  rp.topo = p.topo;
  rp.kx = p.kx;
  rp.ky = p.ky;
  rp.kz = p.kz;
  rp.last_hop = p.last_hop;
  const unsigned n = endpoints();
  if (p.topo == Topo::TopoSwitch) {
    rp.p = p.n;
    r_.assign(1, Router(rp));
    for (unsigned e = 0; e < n; ++e) {  // link e: endpoint e -> switch port e
      from_.push_back(End{true, e, 0});
      to_.push_back(End{false, 0, e});
    }
    for (unsigned e = 0; e < n; ++e) {  // link n + e: switch port e -> endpoint e
      from_.push_back(End{false, 0, e});
      to_.push_back(End{true, e, 0});
    }
  } else if (p.topo == Topo::TopoTable) {
    const Graph& g = *p.graph;
    for (unsigned r = 0; r < g.ports.size(); ++r) {
      if (g.table[r].size() != n) throw std::invalid_argument("net: a routing table has an entry per endpoint");
      for (std::uint8_t q : g.table[r])
        if (q >= g.ports[r]) throw std::invalid_argument("net: a routing table names a port its router does not have");
      rp.p = g.ports[r];
      rp.table = std::make_shared<const std::vector<std::uint8_t>>(g.table[r]);
      r_.push_back(Router(rp));
    }
    for (const auto& [a, b] : g.links) {
      if (a.router >= routers() || b.router >= routers() || a.port >= g.ports[a.router] || b.port >= g.ports[b.router])
        throw std::invalid_argument("net: a link names a router port that does not exist");
      from_.push_back(End{false, a.router, a.port});
      to_.push_back(End{false, b.router, b.port});
    }
  } else {
    rp.p = 1 + lp();
    r_.assign(n, Router(rp));
    for (unsigned r = 0; r < n; ++r)
      for (unsigned q = 1; q <= lp(); ++q) {
        from_.push_back(End{false, r, q});
        to_.push_back(End{false, neighbour(r, q), torus_back(q)});
      }
  }
  base_.assign(1, 0);
  for (const Router& r : r_) base_.push_back(base_.back() + r.params().p);
  vb_ = r_.front().vb();
  const unsigned lw = p.w + vb_;
  tx_.assign(links(), LinkTx(LinkTx::Params{lw, p.rdepth, p.timeout}));
  sb_ = tx_.front().sb();
  rx_.assign(links(), LinkRx(LinkRx::Params{lw, sb_, true}));
  fb_ = clog2(16 + sb_ + lw);
  // who feeds every router port and what every router port feeds
  feed_.assign(total_ports(), Attach{});
  sink_.assign(total_ports(), Attach{});
  home_.assign(n, End{});
  ep_inj_.assign(n, -1);
  ep_ej_.assign(n, -1);
  std::vector<bool> taken_in(total_ports(), false), taken_out(total_ports(), false);
  auto take = [&](std::vector<bool>& taken, unsigned r, unsigned q) {
    if (taken[port_index(r, q)]) throw std::invalid_argument("net: a router port is wired twice");
    taken[port_index(r, q)] = true;
  };
  for (unsigned e = 0; e < n; ++e) {
    home_[e] = p.topo == Topo::TopoSwitch  ? End{false, 0, e}
               : p.topo == Topo::TopoTable ? End{false, p.graph->home[e].router, p.graph->home[e].port}
                                           : End{false, e, 0};
    if (home_[e].node >= routers() || home_[e].port >= ports(home_[e].node))
      throw std::invalid_argument("net: an endpoint sits on a router port that does not exist");
    if (p.topo != Topo::TopoSwitch) {
      take(taken_in, home_[e].node, home_[e].port);
      take(taken_out, home_[e].node, home_[e].port);
    }
    feed_[port_index(home_[e].node, home_[e].port)] = Attach{-1, static_cast<int>(e)};
    sink_[port_index(home_[e].node, home_[e].port)] = Attach{-1, static_cast<int>(e)};
  }
  for (unsigned l = 0; l < links(); ++l) {
    if (from_[l].endpoint)
      ep_inj_[from_[l].node] = static_cast<int>(l);
    else {
      take(taken_out, from_[l].node, from_[l].port);
      sink_[port_index(from_[l].node, from_[l].port)] = Attach{static_cast<int>(l), -1};
    }
    if (to_[l].endpoint)
      ep_ej_[to_[l].node] = static_cast<int>(l);
    else {
      take(taken_in, to_[l].node, to_[l].port);
      feed_[port_index(to_[l].node, to_[l].port)] = Attach{static_cast<int>(l), -1};
    }
  }
  if (p.edge_regs) {
    if (p.topo == Topo::TopoSwitch)
      throw std::invalid_argument("net: edge_regs: the switch's endpoints reach it through links");
    inj_q_.assign(n, common::PipeReg(lw));
    ej_credit_q_.assign(n, common::PipeReg(vb_));
  }
  if (!p.wires.empty()) {
    if (p.wires.size() != links()) throw std::invalid_argument("net: a wire per link, or none");
    lines_.resize(links());
    for (unsigned l = 0; l < links(); ++l) {
      const Params::Wire& w = p.wires[l];
      if (!(w.rate > 0 && w.rate <= 1)) throw std::invalid_argument("net: a wire's rate is in (0, 1] flits a cycle");
      if (!w.delayed()) continue;
      if (from_[l].endpoint || to_[l].endpoint)
        throw std::invalid_argument("net: only a link between two routers has a delayed wire");
      lines_[l].emplace(w.latency, w.rate, lw);
    }
  }
  refresh();
}

unsigned Net::neighbour(unsigned r, unsigned q) const { return torus_neighbour(p_.kx, p_.ky, p_.kz, r, q); }

unsigned Net::links_on_path(unsigned s, unsigned d) const {
  if (p_.topo == Topo::TopoSwitch) return 2;
  if (p_.topo == Topo::TopoTable) {
    // follow the tables from s's router to d's
    unsigned r = home_[s].node, links = 0;
    for (unsigned step = 0; step <= routers(); ++step) {
      const unsigned q = p_.graph->table[r][d];
      const Attach& a = sink_[port_index(r, q)];
      if (a.ep >= 0) return links;
      if (a.link < 0) throw std::logic_error("net: a routing table leads to an unwired port");
      ++links;
      r = to_[static_cast<unsigned>(a.link)].node;
    }
    throw std::logic_error("net: the routing tables loop");
  }
  const unsigned a = p_.kx * p_.ky;
  return ring(s % p_.kx, d % p_.kx, p_.kx) + ring(s / p_.kx % p_.ky, d / p_.kx % p_.ky, p_.ky) +
         ring(s / a, d / a, p_.kz);
}

unsigned Net::routers_on_path(unsigned s, unsigned d) const {
  return p_.topo == Topo::TopoSwitch ? 1 : links_on_path(s, d) + 1;
}

void Net::refresh() {
  // every unit's outputs are registers, but a link sender's ready, which also needs rst_ni (Net::eval)
  st_.to.resize(links());
  LinkTx::In ti;
  ti.rst_ni = true;
  for (unsigned l = 0; l < links(); ++l) tx_[l].eval(ti, st_.to[l]);
}

Net::In Net::make_in() const {
  const unsigned n = endpoints();
  In in;
  in.inj_valid_i = Bits(n);
  in.inj_vc_i = Bits(n * vb_);
  in.inj_flit_i = Bits(n * p_.w);
  in.ej_credit_i = Bits(n);
  in.ej_credit_vc_i = Bits(n * vb_);
  in.flip_i = Bits(links());
  in.flip_bit_i = Bits(links() * fb_);
  return in;
}

Net::Out Net::make_out() const {
  // the shapes of torus_net's and switch_net's ports, which a table network shares
  const unsigned n = endpoints(), rp = total_ports(), l = links();
  Out o;
  o.inj_credit_o = Bits(n);
  o.inj_credit_vc_o = Bits(n * vb_);
  o.ej_valid_o = Bits(n);
  o.ej_vc_o = Bits(n * vb_);
  o.ej_flit_o = Bits(n * p_.w);
  o.mon_valid_o = Bits(rp);
  o.mon_vc_o = Bits(rp * vb_);
  o.mon_flit_o = Bits(rp * p_.w);
  o.mon_credit_o = Bits(rp);
  o.mon_credit_vc_o = Bits(rp * vb_);
  o.bad_dst_o = Bits(routers() * 16);
  o.link_ready_o = Bits(l);
  o.link_held_o = Bits(l * (sb_ - 1));
  o.link_crc_err_o = Bits(l * 32);
  o.link_drop_o = Bits(l * 32);
  o.link_replay_o = Bits(l * 32);
  o.link_timeout_o = Bits(l * 32);
  return o;
}

void Net::eval(const In& in, Out& out) const {
  // every bit of every output is written below: an Out of the right shape is reused as it is
  if (out.mon_flit_o.width() != total_ports() * p_.w || out.link_timeout_o.width() != links() * 32) out = make_out();
  const unsigned w = p_.w;
  const State& st = st_;
  for (unsigned l = 0; l < links(); ++l) {
    out.link_ready_o.set_bit(l, tx_[l].ready(in.rst_ni));
    out.link_held_o.set_slice(l * (sb_ - 1), sb_ - 1, st.to[l].held_o);
    out.link_crc_err_o.set_slice(l * 32, 32, xo(l).crc_errors_o);
    out.link_drop_o.set_slice(l * 32, 32, xo(l).drops_o);
    out.link_replay_o.set_slice(l * 32, 32, st.to[l].replays_o);
    out.link_timeout_o.set_slice(l * 32, 32, st.to[l].timeouts_o);
  }
  for (unsigned r = 0; r < routers(); ++r) {
    const Router::Out& o = ro(r);
    out.bad_dst_o.set_slice(r * 16, 16, o.bad_dst_o);
    // the router's ports are consecutive among the monitor's: each output moves in one block
    const unsigned k = port_index(r, 0), n = ports(r);
    copy_bits(out.mon_valid_o, k, o.out_valid_o, 0, n);
    copy_bits(out.mon_vc_o, k * vb_, o.out_vc_o, 0, n * vb_);
    copy_bits(out.mon_flit_o, k * w, o.out_flit_o, 0, n * w);
    copy_bits(out.mon_credit_o, k, o.in_credit_o, 0, n);
    copy_bits(out.mon_credit_vc_o, k * vb_, o.in_credit_vc_o, 0, n * vb_);
  }
  for (unsigned e = 0; e < endpoints(); ++e) {
    const Router::Out& o = ro(home_[e].node);
    const unsigned q = home_[e].port;
    out.inj_credit_o.set_bit(e, o.in_credit_o.bit(q));
    out.inj_credit_vc_o.set_slice(e * vb_, vb_, o.in_credit_vc_o.slice(q * vb_, vb_));
    if (ep_ej_[e] < 0) {
      out.ej_valid_o.set_bit(e, o.out_valid_o.bit(q));
      out.ej_vc_o.set_slice(e * vb_, vb_, o.out_vc_o.slice(q * vb_, vb_));
      copy_bits(out.ej_flit_o, e * w, o.out_flit_o, q * w, w);
    } else {
      const LinkRx::Out& x = xo(static_cast<unsigned>(ep_ej_[e]));
      out.ej_valid_o.set_bit(e, x.out_valid_o);
      out.ej_vc_o.set_slice(e * vb_, vb_, x.out_data_o.slice(w, vb_));
      copy_bits(out.ej_flit_o, e * w, x.out_data_o, 0, w);
    }
  }
}

void Net::router_in(const In& in, unsigned r, Router::In& ri) const {
  // The bits of an unwired port are never written: zero from make_in, reused cycle after cycle.
  // A router reads a port's vc and flit only with its valid bit, and a credit's vc only with the
  // credit: they are copied only then (the rest keep older values the router never looks at).
  const unsigned w = p_.w;
  if (ri.in_flit_i.width() != ports(r) * w) ri = r_[r].make_in();
  ri.rst_ni = in.rst_ni;
  ri.id_i = r;
  for (unsigned q = 0; q < ports(r); ++q) {
    const Attach& f = feed_[port_index(r, q)];
    if (f.ep >= 0 && p_.edge_regs) {  // the endpoint, through its register stage
      const common::PipeReg& s = inj_q_[static_cast<unsigned>(f.ep)];
      const bool v = s.valid(in.rst_ni);
      ri.in_valid_i.set_bit(q, v);
      if (v) {
        ri.in_vc_i.set_slice(q * vb_, vb_, s.data().slice(w, vb_));
        copy_bits(ri.in_flit_i, q * w, s.data(), 0, w);
      }
    } else if (f.ep >= 0) {  // the endpoint itself
      const auto e = static_cast<unsigned>(f.ep);
      const bool v = in.inj_valid_i.bit(e);
      ri.in_valid_i.set_bit(q, v);
      if (v) {
        ri.in_vc_i.set_slice(q * vb_, vb_, in.inj_vc_i.slice(e * vb_, vb_));
        copy_bits(ri.in_flit_i, q * w, in.inj_flit_i, e * w, w);
      }
    } else if (f.link >= 0) {
      const LinkRx::Out& x = xo(static_cast<unsigned>(f.link));
      ri.in_valid_i.set_bit(q, x.out_valid_o);
      if (x.out_valid_o) {
        ri.in_vc_i.set_slice(q * vb_, vb_, x.out_data_o.slice(w, vb_));
        copy_bits(ri.in_flit_i, q * w, x.out_data_o, 0, w);
      }
    }
    // credits for this output port: from the endpoint it ends at, or the router input port at the
    // far end of its link
    const Attach& s = sink_[port_index(r, q)];
    if (s.link < 0 && s.ep < 0) continue;  // unwired: no credits, and no route leads here
    const End t = s.link < 0 ? End{true, static_cast<unsigned>(s.ep), 0} : to_[static_cast<unsigned>(s.link)];
    bool c;
    std::uint64_t cv = 0;
    if (t.endpoint && p_.edge_regs) {
      const common::PipeReg& e = ej_credit_q_[t.node];
      c = e.valid(in.rst_ni);
      if (c) cv = e.data().to_u64();
    } else if (t.endpoint) {
      c = in.ej_credit_i.bit(t.node);
      if (c) cv = in.ej_credit_vc_i.slice(t.node * vb_, vb_);
    } else if (s.link >= 0 && !lines_.empty() && lines_[static_cast<unsigned>(s.link)]) {
      const Wire::Back& sd = lines_[static_cast<unsigned>(s.link)]->back();  // back over the wire
      c = sd.credit;
      cv = sd.credit_vc;
    } else {
      const Router::Out& n = ro(t.node);
      c = n.in_credit_o.bit(t.port);
      if (c) cv = n.in_credit_vc_o.slice(t.port * vb_, vb_);
    }
    ri.out_credit_i.set_bit(q, c);
    if (c) ri.out_credit_vc_i.set_slice(q * vb_, vb_, cv);
  }
}

void Net::tick(const In& in) {
  const State& st = st_;
  const unsigned w = p_.w, lw = w + vb_;
  ri_.resize(routers());
  ti_.resize(links());
  xi_.resize(links());
  for (unsigned r = 0; r < routers(); ++r) router_in(in, r, ri_[r]);
  if (wire_.width() != wire_bits()) wire_ = Bits(wire_bits());
  for (unsigned l = 0; l < links(); ++l) {
    // A sender reads its data input only with its valid, a receiver its wire only with the
    // sender's valid: both are built only then.
    LinkTx::In& t = ti_[l];
    t.rst_ni = in.rst_ni;
    if (t.in_data_i.width() != lw) t.in_data_i = Bits(lw);
    const End f = from_[l];
    if (f.endpoint) {
      t.in_valid_i = in.inj_valid_i.bit(f.node);
      if (t.in_valid_i) {
        copy_bits(t.in_data_i, 0, in.inj_flit_i, f.node * w, w);
        t.in_data_i.set_slice(w, vb_, in.inj_vc_i.slice(f.node * vb_, vb_));
      }
    } else {
      const Router::Out& o = ro(f.node);
      t.in_valid_i = o.out_valid_o.bit(f.port);
      if (t.in_valid_i) {
        copy_bits(t.in_data_i, 0, o.out_flit_o, f.port * w, w);
        t.in_data_i.set_slice(w, vb_, o.out_vc_o.slice(f.port * vb_, vb_));
      }
    }
    const bool dl = !lines_.empty() && lines_[l];
    if (dl) {  // the receiver's answers, back over the wire
      const Wire::Back& sd = lines_[l]->back();
      t.ack_valid_i = sd.ack;
      t.ack_seq_i = sd.ack_seq;
      t.nack_valid_i = sd.nack;
      t.nack_seq_i = sd.nack_seq;
    } else {
      const LinkRx::Out& xr = xo(l);
      t.ack_valid_i = xr.ack_valid_o;
      t.ack_seq_i = xr.ack_seq_o;
      t.nack_valid_i = xr.nack_valid_o;
      t.nack_seq_i = xr.nack_seq_o;
    }
    const LinkTx::Out& tx = st.to[l];
    LinkRx::In& x = xi_[l];
    x.rst_ni = in.rst_ni;
    x.rx_valid_i = dl ? lines_[l]->valid() : tx.tx_valid_o;
    if (x.rx_data_i.width() != lw) x.rx_data_i = Bits(lw);
    if (!x.rx_valid_i) continue;
    // the wire {crc, seq, data}, one bit inverted when the channel says so
    Bits& wire = wire_;
    if (dl) {
      const Wire::Flit& f = lines_[l]->flit();
      wire_word(wire, f.data, 0, lw, sb_, f.seq, f.crc, in.flip_i, in.flip_bit_i, fb_, l);
    } else {
      wire_word(wire, tx.tx_data_o, 0, lw, sb_, tx.tx_seq_o, tx.tx_crc_o, in.flip_i, in.flip_bit_i, fb_, l);
    }
    copy_bits(x.rx_data_i, 0, wire, 0, lw);
    x.rx_seq_i = wire.slice(lw, sb_);
    x.rx_crc_i = wire.slice(lw + sb_, 16);
  }
  if (!lines_.empty()) push_wires();
  for (unsigned r = 0; r < routers(); ++r) r_[r].tick(ri_[r]);
  for (unsigned l = 0; l < links(); ++l) {
    tx_[l].tick(ti_[l]);
    rx_[l].tick(xi_[l]);
  }
  ++now_;
  if (!lines_.empty()) pop_wires();
  for (unsigned e = 0; e < inj_q_.size(); ++e) {
    inj_q_[e].tick(in.rst_ni, in.inj_valid_i.bit(e), [&](Bits& d) {
      copy_bits(d, 0, in.inj_flit_i, e * w, w);
      d.set_slice(w, vb_, in.inj_vc_i.slice(e * vb_, vb_));
    });
    ej_credit_q_[e].tick(in.rst_ni, in.ej_credit_i.bit(e),
                         [&](Bits& d) { d.set_slice(0, vb_, in.ej_credit_vc_i.slice(e * vb_, vb_)); });
  }
  refresh();
}

void Net::push_wires() {
  for (unsigned l = 0; l < links(); ++l) {
    if (!lines_[l]) continue;
    const LinkTx::Out& tx = st_.to[l];
    const LinkRx::Out& x = xo(l);
    const End t = to_[l];
    const Router::Out& r = ro(t.node);
    Wire::Back sd;
    sd.ack = x.ack_valid_o;
    sd.nack = x.nack_valid_o;
    sd.credit = r.in_credit_o.bit(t.port);
    if (sd.any()) {
      sd.ack_seq = x.ack_seq_o;
      sd.nack_seq = x.nack_seq_o;
      if (sd.credit) sd.credit_vc = r.in_credit_vc_o.slice(t.port * vb_, vb_);
    }
    lines_[l]->put(now_, tx.tx_valid_o, tx.tx_seq_o, tx.tx_crc_o, tx.tx_data_o, 0, sd);
  }
}

void Net::pop_wires() {
  for (auto& ln : lines_)
    if (ln) ln->arrive(now_);
}

}  // namespace trn::link
