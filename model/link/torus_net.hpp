// trn::link::TorusNet — cycle-exact model of rtl/link/torus_net.sv: a KX x KY torus of Routers
// (docs/link.md), router r with chip id r, port 0 the endpoint, ports 1..4 to the +x, -x, +y, -y
// neighbours, every directed link through a LinkTx -> wire (flip_i) -> LinkRx. The same class
// builds any torus size for the system model (no RTL needed).
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "link/link.hpp"
#include "link/router.hpp"

namespace trn::link {

class TorusNet {
 public:
  struct Params {
    unsigned kx = 4, ky = 4, v = 2, d = 4, w = 64, rdepth = 8, timeout = 64;
    unsigned kz = 1;  ///< > 1: a 3D torus (model only; the RTL top is 2D)
  };
  struct In {
    bool rst_ni = false;
    Bits inj_valid_i, inj_vc_i, inj_flit_i, ej_credit_i, ej_credit_vc_i, flip_i, flip_bit_i;
  };
  struct Out {
    Bits inj_credit_o, inj_credit_vc_o, ej_valid_o, ej_vc_o, ej_flit_o, mon_valid_o, mon_vc_o, mon_flit_o,
        mon_credit_o, mon_credit_vc_o, bad_dst_o, link_ready_o, link_held_o, link_crc_err_o, link_drop_o,
        link_replay_o, link_timeout_o;
  };
  unsigned links() const { return lp() * nodes(); }
  /// Link ports per router: 4 (2D) or 6 (3D).
  unsigned lp() const { return p_.kz > 1 ? 6 : 4; }
  /// Bits of a link's wire {crc, seq, vc, flit} and of a flip_bit_i index.
  unsigned wire_bits() const { return 16 + sb_ + p_.w + vb_; }
  unsigned fb() const { return fb_; }
  explicit TorusNet(Params p);
  const Params& params() const { return p_; }
  unsigned nodes() const { return p_.kx * p_.ky * p_.kz; }
  unsigned vb() const { return vb_; }
  /// The neighbour of router r across link port q (1 +x, 2 -x, 3 +y, 4 -y, 5 +z, 6 -z).
  unsigned neighbour(unsigned r, unsigned q) const;
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  template <class V>
  void visit_in(In& in, V&& v) const {
    const unsigned n = nodes(), w = p_.w;
    v("rst_ni", in.rst_ni, 1);
    v("inj_valid_i", in.inj_valid_i, n);
    v("inj_vc_i", in.inj_vc_i, n * vb_);
    v("inj_flit_i", in.inj_flit_i, n * w);
    v("ej_credit_i", in.ej_credit_i, n);
    v("ej_credit_vc_i", in.ej_credit_vc_i, n * vb_);
    v("flip_i", in.flip_i, lp() * n);
    v("flip_bit_i", in.flip_bit_i, lp() * n * fb_);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    const unsigned n = nodes(), w = p_.w;
    v("inj_credit_o", out.inj_credit_o, n);
    v("inj_credit_vc_o", out.inj_credit_vc_o, n * vb_);
    v("ej_valid_o", out.ej_valid_o, n);
    v("ej_vc_o", out.ej_vc_o, n * vb_);
    v("ej_flit_o", out.ej_flit_o, n * w);
    v("mon_valid_o", out.mon_valid_o, n * lp());
    v("mon_vc_o", out.mon_vc_o, n * lp() * vb_);
    v("mon_flit_o", out.mon_flit_o, n * lp() * w);
    v("mon_credit_o", out.mon_credit_o, n * lp());
    v("mon_credit_vc_o", out.mon_credit_vc_o, n * lp() * vb_);
    v("bad_dst_o", out.bad_dst_o, n * 16);
    v("link_ready_o", out.link_ready_o, lp() * n);
    v("link_held_o", out.link_held_o, lp() * n * (sb_ - 1));
    v("link_crc_err_o", out.link_crc_err_o, lp() * n * 32);
    v("link_drop_o", out.link_drop_o, lp() * n * 32);
    v("link_replay_o", out.link_replay_o, lp() * n * 32);
    v("link_timeout_o", out.link_timeout_o, lp() * n * 32);
  }

 private:
  struct State {
    std::vector<Router::Out> ro;
    std::vector<LinkTx::Out> to;
    std::vector<LinkRx::Out> xo;
  };
  State outputs(bool rst_ni) const;
  Router::In router_in(const In& in, unsigned r, const State& st) const;
  Params p_;
  unsigned vb_, sb_, fb_;
  std::vector<Router> r_;
  std::vector<LinkTx> tx_;
  std::vector<LinkRx> rx_;
};

}  // namespace trn::link
