#include "link/torus_net.hpp"

namespace trn::link {

namespace {
unsigned back(unsigned q) { return q == 1 ? 2 : q == 2 ? 1 : q == 3 ? 4 : 3; }
void copy_bits(Bits& dst, unsigned at, const Bits& src, unsigned from, unsigned n) {
  for (unsigned b = 0; b < n; ++b) dst.set_bit(at + b, src.bit(from + b));
}
}  // namespace

TorusNet::TorusNet(Params p) : p_(p) {
  Router::Params rp;
  rp.p = 5;
  rp.v = p.v;
  rp.d = p.d;
  rp.w = p.w;
  rp.topo = Topo::torus;
  rp.kx = p.kx;
  rp.ky = p.ky;
  r_.assign(p.kx * p.ky, Router(rp));
  vb_ = r_.front().vb();
}

unsigned TorusNet::neighbour(unsigned r, unsigned q) const {
  unsigned x = r % p_.kx, y = r / p_.kx;
  if (q == 1) x = (x + 1) % p_.kx;
  else if (q == 2) x = (x + p_.kx - 1) % p_.kx;
  else if (q == 3) y = (y + 1) % p_.ky;
  else y = (y + p_.ky - 1) % p_.ky;
  return y * p_.kx + x;
}

TorusNet::In TorusNet::make_in() const {
  const unsigned n = nodes();
  In in;
  in.inj_valid_i = Bits(n);
  in.inj_vc_i = Bits(n * vb_);
  in.inj_flit_i = Bits(n * p_.w);
  in.ej_credit_i = Bits(n);
  in.ej_credit_vc_i = Bits(n * vb_);
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
  o.mon_valid_o = Bits(n * 4);
  o.mon_vc_o = Bits(n * 4 * vb_);
  o.mon_flit_o = Bits(n * 4 * p_.w);
  o.mon_credit_o = Bits(n * 4);
  o.mon_credit_vc_o = Bits(n * 4 * vb_);
  o.bad_dst_o = Bits(n * 16);
  return o;
}

void TorusNet::eval(const In& in, Out& out) const {
  out = make_out();
  const unsigned w = p_.w;
  for (unsigned r = 0; r < nodes(); ++r) {
    Router::Out o = r_[r].make_out();
    r_[r].eval(Router::In{}, o);
    out.inj_credit_o.set_bit(r, o.in_credit_o & 1);
    out.inj_credit_vc_o.set_slice(r * vb_, vb_, o.in_credit_vc_o.slice(0, vb_));
    out.ej_valid_o.set_bit(r, o.out_valid_o & 1);
    out.ej_vc_o.set_slice(r * vb_, vb_, o.out_vc_o.slice(0, vb_));
    copy_bits(out.ej_flit_o, r * w, o.out_flit_o, 0, w);
    out.bad_dst_o.set_slice(r * 16, 16, o.bad_dst_o);
    for (unsigned k = 0; k < 4; ++k) {
      const unsigned q = 1 + k;
      out.mon_valid_o.set_bit(r * 4 + k, (o.out_valid_o >> q) & 1);
      out.mon_vc_o.set_slice((r * 4 + k) * vb_, vb_, o.out_vc_o.slice(q * vb_, vb_));
      copy_bits(out.mon_flit_o, (r * 4 + k) * w, o.out_flit_o, q * w, w);
      out.mon_credit_o.set_bit(r * 4 + k, (o.in_credit_o >> q) & 1);
      out.mon_credit_vc_o.set_slice((r * 4 + k) * vb_, vb_, o.in_credit_vc_o.slice(q * vb_, vb_));
    }
  }
  (void)in;
}

Router::In TorusNet::router_in(const In& in, unsigned r, const std::vector<Router::Out>& ro) const {
  const unsigned w = p_.w;
  Router::In ri = r_[r].make_in();
  ri.rst_ni = in.rst_ni;
  ri.id_i = r;
  ri.in_valid_i = in.inj_valid_i.bit(r);
  ri.in_vc_i.set_slice(0, vb_, in.inj_vc_i.slice(r * vb_, vb_));
  copy_bits(ri.in_flit_i, 0, in.inj_flit_i, r * w, w);
  ri.out_credit_i = in.ej_credit_i.bit(r);
  ri.out_credit_vc_i.set_slice(0, vb_, in.ej_credit_vc_i.slice(r * vb_, vb_));
  for (unsigned q = 1; q < 5; ++q) {
    const Router::Out& n = ro[neighbour(r, q)];
    const unsigned b = back(q);
    ri.in_valid_i |= ((n.out_valid_o >> b) & 1) << q;
    ri.in_vc_i.set_slice(q * vb_, vb_, n.out_vc_o.slice(b * vb_, vb_));
    copy_bits(ri.in_flit_i, q * w, n.out_flit_o, b * w, w);
    ri.out_credit_i |= ((n.in_credit_o >> b) & 1) << q;
    ri.out_credit_vc_i.set_slice(q * vb_, vb_, n.in_credit_vc_o.slice(b * vb_, vb_));
  }
  return ri;
}

void TorusNet::tick(const In& in) {
  std::vector<Router::Out> ro;
  ro.reserve(nodes());
  for (unsigned r = 0; r < nodes(); ++r) {
    Router::Out o = r_[r].make_out();
    r_[r].eval(Router::In{}, o);
    ro.push_back(std::move(o));
  }
  std::vector<Router::In> ri;
  ri.reserve(nodes());
  for (unsigned r = 0; r < nodes(); ++r) ri.push_back(router_in(in, r, ro));
  for (unsigned r = 0; r < nodes(); ++r) r_[r].tick(ri[r]);
}

}  // namespace trn::link
