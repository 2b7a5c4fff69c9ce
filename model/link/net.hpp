// trn::link::Net — cycle-exact model of the NeuronLink network tops (docs/link.md), for both
// topologies:
//   torus  (rtl/link/torus_net.sv): a KX x KY (x KZ) torus of Routers; router r has chip id r,
//          port 0 is endpoint r's injection and ejection port, ports 1..4 (1..6) link to the +x,
//          -x, +y, -y (+z, -z) neighbours; link l = r * lp() + (q - 1) leaves router r's port q.
//   switch (rtl/link/switch_net.sv): one Router of n ports, endpoint e on port e, reached through
//          a link each way: link e carries endpoint e's injection to the switch, link n + e the
//          switch's port e to endpoint e.
//   table  (model only): any graph of routers (trn::link::Graph: the chip and switch routers of a
//          composed system, model/system), each routing by its own table; endpoint e sits on its
//          router's port directly, like a torus's.
// Every link is LinkTx -> wire (flip_i corrupts one bit of {crc, seq, vc, flit}) -> LinkRx. Credits
// travel on a reliable sideband: an endpoint's injection credits are its router port's returned
// credits, its ejection credits go straight to the router port that feeds it. The replay buffer
// holds at least v * d flits, so it never refuses one. The same class builds networks the RTL does
// not (a 4 x 4 x 4 torus, 64- and 144-endpoint switch domains) for system questions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/bits.hpp"
#include "common/pipe_reg.hpp"
#include "link/link.hpp"
#include "link/router.hpp"
#include "link/wire.hpp"
#include "sv/ports/switch_net.hpp"
#include "sv/ports/torus_net.hpp"

namespace trn::link {

/// A network of routers for Topo::TopoTable: port counts, directed links between router ports, the
/// router port of every endpoint, and every router's output port per destination endpoint.
struct Graph {
  struct Port {
    unsigned router = 0, port = 0;
  };
  std::vector<unsigned> ports;                   ///< per router
  std::vector<std::pair<Port, Port>> links;      ///< directed: from a router port to a router port
  std::vector<Port> home;                        ///< per endpoint
  std::vector<std::vector<std::uint8_t>> table;  ///< per router: output port per destination
};

class Net {
 public:
  struct Params {
    Topo topo = Topo::TopoTorus;
    unsigned kx = 4, ky = 4, kz = 1;  ///< torus size (kz > 1: 3D)
    unsigned n = 8;                   ///< switch: endpoints
    unsigned v = 2, d = 4, w = 64, rdepth = 8, timeout = 64;
    bool last_hop = false;               ///< torus: the routers' last-hop VC (Router::Params::last_hop)
    std::shared_ptr<const Graph> graph;  ///< Topo::TopoTable
    /// An endpoint sitting on a router port reaches it through a register stage (common::PipeReg)
    /// each way: its injection {vc, flit} and the ejection credits it returns arrive one cycle
    /// later. rtl/link/torus_net.sv has them (its endpoint ports are the top's inputs); the
    /// system's networks, whose endpoints drive their routers from their own registers, do not.
    bool edge_regs = false;
    /// The wire of each link between two routers (model only; the RTL tops' wires are direct): a
    /// latency in cycles and a rate below one flit a cycle, which serialises a slower link's flits
    /// (they queue on the wire within the receiver's credits); acknowledgements and credits come
    /// back as late. Empty: every wire direct.
    struct Wire {
      unsigned latency = 0;
      double rate = 1.0;
      bool delayed() const { return latency > 0 || rate < 1.0; }
    };
    std::vector<Wire> wires;  ///< per link (links between routers only)
  };
  /// A link's end: an endpoint (node = endpoint index) or a router port.
  struct End {
    bool endpoint = false;
    unsigned node = 0, port = 0;
  };
  struct In {
    bool rst_ni = false;
    Bits inj_valid_i, inj_vc_i, inj_flit_i, ej_credit_i, ej_credit_vc_i, flip_i, flip_bit_i;
  };
  /// mon_* show every router port (router r, port q at port_index(r, q)): what it sends and the
  /// credits it returns.
  struct Out {
    Bits inj_credit_o, inj_credit_vc_o, ej_valid_o, ej_vc_o, ej_flit_o, mon_valid_o, mon_vc_o, mon_flit_o, mon_credit_o,
        mon_credit_vc_o, bad_dst_o, link_ready_o, link_held_o, link_crc_err_o, link_drop_o, link_replay_o,
        link_timeout_o;
  };
  explicit Net(Params p);
  const Params& params() const { return p_; }
  unsigned endpoints() const {
    return p_.topo == Topo::TopoSwitch  ? p_.n
           : p_.topo == Topo::TopoTable ? static_cast<unsigned>(p_.graph->home.size())
                                        : p_.kx * p_.ky * p_.kz;
  }
  unsigned routers() const { return static_cast<unsigned>(r_.size()); }
  /// Ports of router r, and the index of its port q among every router's ports (r * ports + q
  /// where all routers have the same number).
  unsigned ports(unsigned r) const { return r_[r].params().p; }
  unsigned port_index(unsigned r, unsigned q) const { return base_[r] + q; }
  unsigned total_ports() const { return base_.back(); }
  unsigned links() const { return static_cast<unsigned>(from_.size()); }
  /// Torus link ports per router: 4 (2D) or 6 (3D).
  unsigned lp() const { return p_.kz > 1 ? 6 : 4; }
  End link_from(unsigned l) const { return from_[l]; }
  End link_to(unsigned l) const { return to_[l]; }
  /// Routers and links a packet from endpoint s to endpoint d passes through.
  unsigned routers_on_path(unsigned s, unsigned d) const;
  unsigned links_on_path(unsigned s, unsigned d) const;
  /// Bits of a link's wire {crc, seq, vc, flit} and of a flip_bit_i index.
  unsigned wire_bits() const { return 16 + sb_ + p_.w + vb_; }
  unsigned fb() const { return fb_; }
  unsigned vb() const { return vb_; }
  /// Torus: the router across link port q (1 +x, 2 -x, 3 +y, 4 -y, 5 +z, 6 -z) from router r.
  unsigned neighbour(unsigned r, unsigned q) const;
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/link/torus_net.sv or rtl/link/switch_net.sv, generated from their headers;
  /// the modules' parameters from this model's. A TopoTable network has no RTL top.
  sv::ports::torus_net::Params torus_params() const {
    return {.KX = p_.kx,
            .KY = p_.ky,
            .KZ = p_.kz,
            .V = p_.v,
            .D = p_.d,
            .W = p_.w,
            .RDepth = p_.rdepth,
            .Timeout = p_.timeout};
  }
  sv::ports::switch_net::Params switch_params() const {
    return {.N = p_.n, .V = p_.v, .D = p_.d, .W = p_.w, .RDepth = p_.rdepth, .Timeout = p_.timeout};
  }
  template <class V>
  void visit_in(In& in, V&& v) const {
    if (p_.topo == Topo::TopoSwitch)
      sv::ports::switch_net::visit_in(switch_params(), in, v);
    else if (p_.topo == Topo::TopoTorus)
      sv::ports::torus_net::visit_in(torus_params(), in, v);
    else
      throw std::logic_error("link::Net: a routing-table network has no RTL top to list the ports of");
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    if (p_.topo == Topo::TopoSwitch)
      sv::ports::switch_net::visit_out(switch_params(), out, v);
    else if (p_.topo == Topo::TopoTorus)
      sv::ports::torus_net::visit_out(torus_params(), out, v);
    else
      throw std::logic_error("link::Net: a routing-table network has no RTL top to list the ports of");
  }

 private:
  /// The link senders' outputs after the last edge (the routers' and receivers' are read in
  /// place: ro, xo).
  struct State {
    std::vector<LinkTx::Out> to;
  };
  const Router::Out& ro(unsigned r) const { return r_[r].out(); }
  const LinkRx::Out& xo(unsigned l) const { return rx_[l].out(); }
  /// What feeds a router input port, and what its output port feeds: link `link`, endpoint `ep`
  /// directly, or nothing (both -1: a port the topology leaves unwired, idle and without credits).
  struct Attach {
    int link = -1, ep = -1;
  };
  /// The link senders' outputs after the last edge (all are registers), into st_: once a cycle.
  void refresh();
  /// Router r's inputs this cycle, into ri.
  void router_in(const In& in, unsigned r, Router::In& ri) const;
  /// Put this cycle's senders' flits and receivers' answers on the delayed wires, then (the cycle
  /// after) take off what is due.
  void push_wires();
  void pop_wires();
  std::vector<std::optional<Wire>> lines_;  // per link: its delayed wire (empty: none has one)
  std::uint64_t now_ = 0;
  Params p_;
  unsigned vb_, sb_, fb_;
  std::vector<unsigned> base_;  // per router: its first port's index; then the total
  std::vector<Router> r_;
  std::vector<LinkTx> tx_;
  std::vector<LinkRx> rx_;
  std::vector<End> from_, to_;       // per link
  std::vector<Attach> feed_, sink_;  // per router port port_index(r, q)
  std::vector<End> home_;            // per endpoint: its router port
  std::vector<int> ep_inj_, ep_ej_;  // per endpoint: its injection and ejection links (-1: direct)
  // per endpoint on a router port, with edge_regs: its injection {vc, flit} and its ejection
  // credit's vc, one cycle later
  std::vector<common::PipeReg> inj_q_, ej_credit_q_;
  State st_;  // the link senders' outputs this cycle (refresh)
  // the units' inputs, rebuilt in place every tick (no allocation per cycle)
  std::vector<Router::In> ri_;
  std::vector<LinkTx::In> ti_;
  std::vector<LinkRx::In> xi_;
  Bits wire_;
};

}  // namespace trn::link
