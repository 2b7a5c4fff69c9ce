// trn::link::Router — cycle-exact model of rtl/link/router.sv (SPEC 5.6, docs/link.md), part for
// part: an input buffer per virtual channel with a bypass (stream_fifo), a VC allocator per output
// port and a separable switch allocator (rr_arbiter), a credit counter per output VC
// (credit_counter); route computation, VC and switch allocation chained in one cycle, output
// registers.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "common/bits.hpp"
#include "common/credit_counter.hpp"

namespace trn::link {

/// torus: dimension-order routing with datelines; sw: one switch, endpoint e on port e; table: a
/// routing table per router (destination -> output port), for the composed systems' networks of chip
/// and switch routers (model only: the RTL router routes tori and a switch).
enum class Topo : unsigned { torus = 0, sw = 1, table = 2 };

/// Flit kinds (the top two bits of a flit) and the head flit's fields.
enum class Kind : unsigned { body = 0, head = 1, tail = 2, single = 3 };
struct Head {
  unsigned dst = 0, src = 0, type = 0, len = 1;
  unsigned tc = 0;  ///< traffic class (2 bits; a router takes it modulo its class count)
};
Kind kind_of(const Bits& flit);
Head head_of(const Bits& flit);
/// A flit of w bits: kind, and for a head the fields; the rest of the bits from `payload`.
Bits make_flit(unsigned w, Kind k, const Head& h, const Bits& payload);

/// Test packets (benches and NetRunner): the h.len flits of packet `id`, payload from `payloads`
/// (one per flit), tagged with the packet id (bits 32..51) and the flit's index (bits 52..59) so a
/// scoreboard can name any flit it sees. Needs w >= 64.
std::vector<Bits> tagged_packet(unsigned w, unsigned id, const Head& h, std::vector<Bits> payloads);
struct FlitTag {
  unsigned id, idx;
};
FlitTag tag_of(const Bits& flit);

/// Route of a head flit: output port and the VC class the hop allows (2: any).
struct Route {
  unsigned port = 0, cls = 2;
};
/// Torus: 2D (kz = 1; ports 0 local, 1 +x, 2 -x, 3 +y, 4 -y) or 3D (kz > 1; also 5 +z, 6 -z; the
/// 3D torus is built only in the model so far), chip id = (z * ky + y) * kx + x.
Route route(Topo topo, unsigned ports, unsigned kx, unsigned ky, unsigned me, unsigned dst, unsigned in_port,
            unsigned in_class, unsigned kz = 1);

/// Traffic classes of a router with `vcs` virtual channels: vcs / 2 on a torus, vcs on a switch or a
/// table-routed network (whose routes must need no dateline: the system tests check its channel
/// dependencies are acyclic).
unsigned classes(Topo topo, unsigned vcs);
/// May a packet of traffic class tc (taken modulo classes()) use VC v on a hop whose route allows
/// dateline class cls (2: any)? Torus: class c owns VCs 2c and 2c + 1, a link hop the one of its
/// dateline class; switch: class c owns VC c.
bool vc_allowed(Topo topo, unsigned vcs, unsigned v, unsigned tc, unsigned cls);

class Router {
 public:
  struct Params {
    unsigned p = 5, v = 2, d = 4, w = 64;
    Topo topo = Topo::torus;
    unsigned kx = 4, ky = 4, kz = 1;
    /// Topo::table: output port per destination chip id (its size is the number of chip ids).
    std::shared_ptr<const std::vector<std::uint8_t>> table;
  };
  struct In {
    bool rst_ni = false;
    std::uint64_t id_i = 0;
    Bits in_valid_i, in_vc_i, in_flit_i, out_credit_i, out_credit_vc_i;  // masks: one bit per port
  };
  struct Out {
    Bits in_credit_o, in_credit_vc_o, out_valid_o, out_vc_o, out_flit_o;  // masks: one bit per port
    std::uint64_t bad_dst_o = 0;
  };
  explicit Router(Params p);
  const Params& params() const { return p_; }
  unsigned vb() const { return vb_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);
  /// The outputs (all registers): what eval writes, without the copy.
  const Out& out() const { return q_; }

  template <class V>
  void visit_in(In& in, V&& v) const {
    v("rst_ni", in.rst_ni, 1);
    v("id_i", in.id_i, 8);
    v("in_valid_i", in.in_valid_i, p_.p);
    v("in_vc_i", in.in_vc_i, p_.p * vb_);
    v("in_flit_i", in.in_flit_i, p_.p * p_.w);
    v("out_credit_i", in.out_credit_i, p_.p);
    v("out_credit_vc_i", in.out_credit_vc_i, p_.p * vb_);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    v("in_credit_o", out.in_credit_o, p_.p);
    v("in_credit_vc_o", out.in_credit_vc_o, p_.p * vb_);
    v("out_valid_o", out.out_valid_o, p_.p);
    v("out_vc_o", out.out_vc_o, p_.p * vb_);
    v("out_flit_o", out.out_flit_o, p_.p * p_.w);
    v("bad_dst_o", out.bad_dst_o, 16);
  }
  /// Chip ids that exist: kx * ky * kz on a torus, p on a switch, the table's size.
  unsigned ids() const {
    return p_.topo == Topo::sw      ? p_.p
           : p_.topo == Topo::table ? static_cast<unsigned>(p_.table->size())
                                    : p_.kx * p_.ky * p_.kz;
  }

 private:
  /// An input VC's buffer: d flit slots in a ring, reused (no allocation per flit).
  struct Ring {
    std::vector<Bits> slot;
    unsigned head = 0, n = 0;
    bool empty() const { return n == 0; }
    std::size_t size() const { return n; }
    const Bits& front() const { return slot[head]; }
    void pop_front() {
      head = (head + 1) % static_cast<unsigned>(slot.size());
      --n;
    }
    /// The slot after the last (the caller writes the flit into it).
    Bits& push_back() { return slot[(head + n++) % slot.size()]; }
    void clear() { head = n = 0; }
  };
  /// An input VC's front flit, decoded (route and class only for a head).
  struct Front {
    bool has = false, head = false, tail = false, bad = false;
    unsigned tc = 0;
    Route rt;
    std::uint64_t allowed = 0;  ///< the output VCs a head may take (bit v: vc_allowed)
  };
  struct InVc {
    Ring fifo;  ///< the rtl stream_fifo and its bypass
    bool active = false, drop = false;
    unsigned op = 0, ov = 0;
    /// The front flit decoded for router id `front_id`, while `front_ok` (a flit pushed into the
    /// empty buffer or a pop changes the front; decoding is a function of the flit, the id and
    /// the VC).
    Front front;
    bool front_ok = false;
    unsigned front_id = 0;
  };
  /// An rtl/common rr_arbiter's state: the requester with the highest priority, and a grant held
  /// until its handshake.
  struct Arb {
    unsigned prio = 0;
    bool lock = false;
    unsigned lock_idx = 0;
  };
  void reset();
  /// Pop input VC i's front flit (its decoded front goes with it).
  void pop(unsigned i);
  Params p_;
  unsigned vb_;
  std::vector<InVc> iv_;                              // p * v + vc
  std::vector<std::uint64_t> obusy_;                  // per output port: bit vc, allocated
  std::vector<common::CreditCounter> cred_;           // o * v + vc
  std::vector<Arb> va_arb_, sa_in_arb_, sa_out_arb_;  // per output, input, output port
  Out q_;
  struct Scratch {  // tick's working vectors (no state: rebuilt every tick)
    std::vector<const Front*> front;
    std::vector<unsigned> va_vc, va_win, aop, aov, in_pick, out_pick;
    std::vector<std::uint64_t> take;  // per output port: bit vc, allocated this cycle
    std::vector<std::uint8_t> give, sent, freed, gnt;
  };
  Scratch sc_;
};

}  // namespace trn::link
