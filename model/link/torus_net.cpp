#include "link/torus_net.hpp"

#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::link {

namespace {
unsigned back(unsigned q) { return q % 2 == 1 ? q + 1 : q - 1; }
void copy_bits(Bits& dst, unsigned at, const Bits& src, unsigned from, unsigned n) {
  for (unsigned b = 0; b < n; ++b) dst.set_bit(at + b, src.bit(from + b));
}
}  // namespace

TorusNet::TorusNet(Params p) : p_(p) {
  Router::Params rp;
  rp.p = p.kz > 1 ? 7 : 5;
  rp.v = p.v;
  rp.d = p.d;
  rp.w = p.w;
  rp.topo = Topo::torus;
  rp.kx = p.kx;
  rp.ky = p.ky;
  rp.kz = p.kz;
  r_.assign(nodes(), Router(rp));
  vb_ = r_.front().vb();
  if (p.rdepth < p.v * p.d) throw std::invalid_argument("torus: the replay buffer must hold v * d flits");
  const unsigned lw = p.w + vb_;
  tx_.assign(links(), LinkTx(LinkTx::Params{lw, p.rdepth, p.timeout}));
  sb_ = tx_.front().sb();
  rx_.assign(links(), LinkRx(LinkRx::Params{lw, sb_, true}));
  fb_ = clog2(16 + sb_ + lw);
}

TorusNet::State TorusNet::outputs(bool rst_ni) const {
  State st;
  for (const Router& r : r_) {
    Router::Out o = r.make_out();
    r.eval(Router::In{}, o);
    st.ro.push_back(std::move(o));
  }
  for (const LinkTx& t : tx_) {
    LinkTx::In ti;
    ti.rst_ni = rst_ni;
    LinkTx::Out o;
    t.eval(ti, o);
    st.to.push_back(std::move(o));
  }
  for (const LinkRx& x : rx_) {
    LinkRx::Out o;
    x.eval(LinkRx::In{}, o);
    st.xo.push_back(std::move(o));
  }
  return st;
}

unsigned TorusNet::neighbour(unsigned r, unsigned q) const {
  unsigned x = r % p_.kx, y = r / p_.kx % p_.ky, z = r / (p_.kx * p_.ky);
  if (q == 1) x = (x + 1) % p_.kx;
  else if (q == 2) x = (x + p_.kx - 1) % p_.kx;
  else if (q == 3) y = (y + 1) % p_.ky;
  else if (q == 4) y = (y + p_.ky - 1) % p_.ky;
  else if (q == 5) z = (z + 1) % p_.kz;
  else z = (z + p_.kz - 1) % p_.kz;
  return (z * p_.ky + y) * p_.kx + x;
}

TorusNet::In TorusNet::make_in() const {
  const unsigned n = nodes();
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

TorusNet::Out TorusNet::make_out() const {
  const unsigned n = nodes();
  Out o;
  o.inj_credit_o = Bits(n);
  o.inj_credit_vc_o = Bits(n * vb_);
  o.ej_valid_o = Bits(n);
  o.ej_vc_o = Bits(n * vb_);
  o.ej_flit_o = Bits(n * p_.w);
  o.mon_valid_o = Bits(n * lp());
  o.mon_vc_o = Bits(n * lp() * vb_);
  o.mon_flit_o = Bits(n * lp() * p_.w);
  o.mon_credit_o = Bits(n * lp());
  o.mon_credit_vc_o = Bits(n * lp() * vb_);
  o.bad_dst_o = Bits(n * 16);
  o.link_ready_o = Bits(links());
  o.link_held_o = Bits(links() * (sb_ - 1));
  o.link_crc_err_o = Bits(links() * 32);
  o.link_drop_o = Bits(links() * 32);
  o.link_replay_o = Bits(links() * 32);
  o.link_timeout_o = Bits(links() * 32);
  return o;
}

void TorusNet::eval(const In& in, Out& out) const {
  out = make_out();
  const unsigned w = p_.w;
  const State st = outputs(in.rst_ni);
  for (unsigned l = 0; l < links(); ++l) {
    out.link_ready_o.set_bit(l, st.to[l].in_ready_o);
    out.link_held_o.set_slice(l * (sb_ - 1), sb_ - 1, st.to[l].held_o);
    out.link_crc_err_o.set_slice(l * 32, 32, st.xo[l].crc_errors_o);
    out.link_drop_o.set_slice(l * 32, 32, st.xo[l].drops_o);
    out.link_replay_o.set_slice(l * 32, 32, st.to[l].replays_o);
    out.link_timeout_o.set_slice(l * 32, 32, st.to[l].timeouts_o);
  }
  for (unsigned r = 0; r < nodes(); ++r) {
    const Router::Out& o = st.ro[r];
    out.inj_credit_o.set_bit(r, o.in_credit_o & 1);
    out.inj_credit_vc_o.set_slice(r * vb_, vb_, o.in_credit_vc_o.slice(0, vb_));
    out.ej_valid_o.set_bit(r, o.out_valid_o & 1);
    out.ej_vc_o.set_slice(r * vb_, vb_, o.out_vc_o.slice(0, vb_));
    copy_bits(out.ej_flit_o, r * w, o.out_flit_o, 0, w);
    out.bad_dst_o.set_slice(r * 16, 16, o.bad_dst_o);
    for (unsigned k = 0; k < lp(); ++k) {
      const unsigned q = 1 + k;
      out.mon_valid_o.set_bit(r * lp() + k, (o.out_valid_o >> q) & 1);
      out.mon_vc_o.set_slice((r * lp() + k) * vb_, vb_, o.out_vc_o.slice(q * vb_, vb_));
      copy_bits(out.mon_flit_o, (r * lp() + k) * w, o.out_flit_o, q * w, w);
      out.mon_credit_o.set_bit(r * lp() + k, (o.in_credit_o >> q) & 1);
      out.mon_credit_vc_o.set_slice((r * lp() + k) * vb_, vb_, o.in_credit_vc_o.slice(q * vb_, vb_));
    }
  }
}

Router::In TorusNet::router_in(const In& in, unsigned r, const State& st) const {
  const std::vector<Router::Out>& ro = st.ro;
  const unsigned w = p_.w;
  Router::In ri = r_[r].make_in();
  ri.rst_ni = in.rst_ni;
  ri.id_i = r;
  ri.in_valid_i = in.inj_valid_i.bit(r);
  ri.in_vc_i.set_slice(0, vb_, in.inj_vc_i.slice(r * vb_, vb_));
  copy_bits(ri.in_flit_i, 0, in.inj_flit_i, r * w, w);
  ri.out_credit_i = in.ej_credit_i.bit(r);
  ri.out_credit_vc_i.set_slice(0, vb_, in.ej_credit_vc_i.slice(r * vb_, vb_));
  for (unsigned q = 1; q <= lp(); ++q) {
    const Router::Out& n = ro[neighbour(r, q)];
    const unsigned b = back(q);
    const LinkRx::Out& x = st.xo[neighbour(r, q) * lp() + b - 1];  // the link that ends here
    ri.in_valid_i |= std::uint64_t{x.out_valid_o} << q;
    ri.in_vc_i.set_slice(q * vb_, vb_, x.out_data_o.slice(w, vb_));
    copy_bits(ri.in_flit_i, q * w, x.out_data_o, 0, w);
    ri.out_credit_i |= ((n.in_credit_o >> b) & 1) << q;
    ri.out_credit_vc_i.set_slice(q * vb_, vb_, n.in_credit_vc_o.slice(b * vb_, vb_));
  }
  return ri;
}

void TorusNet::tick(const In& in) {
  const State st = outputs(in.rst_ni);
  const unsigned w = p_.w, lw = w + vb_;
  std::vector<Router::In> ri;
  ri.reserve(nodes());
  for (unsigned r = 0; r < nodes(); ++r) ri.push_back(router_in(in, r, st));
  std::vector<LinkTx::In> ti(links());
  std::vector<LinkRx::In> xi(links());
  for (unsigned l = 0; l < links(); ++l) {
    const unsigned r = l / lp(), q = l % lp() + 1;
    const Router::Out& o = st.ro[r];
    LinkTx::In& t = ti[l];
    t.rst_ni = in.rst_ni;
    t.in_valid_i = (o.out_valid_o >> q) & 1;
    t.in_data_i = Bits(lw);
    copy_bits(t.in_data_i, 0, o.out_flit_o, q * w, w);
    t.in_data_i.set_slice(w, vb_, o.out_vc_o.slice(q * vb_, vb_));
    t.ack_valid_i = st.xo[l].ack_valid_o;
    t.ack_seq_i = st.xo[l].ack_seq_o;
    t.nack_valid_i = st.xo[l].nack_valid_o;
    t.nack_seq_i = st.xo[l].nack_seq_o;
    // the wire {crc, seq, data}, one bit inverted when the channel says so
    const LinkTx::Out& tx = st.to[l];
    Bits wire(wire_bits());
    copy_bits(wire, 0, tx.tx_data_o, 0, lw);
    wire.set_slice(lw, sb_, tx.tx_seq_o);
    wire.set_slice(lw + sb_, 16, tx.tx_crc_o);
    if (in.flip_i.bit(l)) {
      const unsigned b = static_cast<unsigned>(in.flip_bit_i.slice(l * fb_, fb_));
      if (b < wire_bits()) wire.flip_bit(b);
    }
    LinkRx::In& x = xi[l];
    x.rst_ni = in.rst_ni;
    x.rx_valid_i = tx.tx_valid_o;
    x.rx_data_i = Bits(lw);
    copy_bits(x.rx_data_i, 0, wire, 0, lw);
    x.rx_seq_i = wire.slice(lw, sb_);
    x.rx_crc_i = wire.slice(lw + sb_, 16);
  }
  for (unsigned r = 0; r < nodes(); ++r) r_[r].tick(ri[r]);
  for (unsigned l = 0; l < links(); ++l) {
    tx_[l].tick(ti[l]);
    rx_[l].tick(xi[l]);
  }
}

}  // namespace trn::link
