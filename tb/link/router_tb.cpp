// Bench for rtl/link/router.sv (one router) in lockstep with trn::link::Router. Every input port
// has a source that sends packets (1 to 4 flits, random destinations) on random virtual channels
// within its credits; every output port has a sink with D flits of buffer per VC that drains at a
// random rate and returns credits. The scoreboard checks that every packet leaves once, whole, on
// the output port its route names and on a VC of the class the route allows, its flits in order
// and never interleaved with another packet's on one output VC. Functional coverage (RouterCover):
// every (input port, output port) pair, heads meeting in VC allocation, input VC buffers and output
// VC credits from empty to full (exhausted), and on the torus the dateline crossings and classes.
#include <algorithm>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "link/router.hpp"
#include "router_ports.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::link;

namespace {

/// router_torus: one router of a 4 x 4 torus; router_torus_lh: the same with the last-hop VC (6 VCs:
/// two traffic classes of three); router_torus3d_lh: one 7-port router of a 3 x 5 x 6 torus with the
/// last-hop VC (one traffic class of three VCs: the z dimension's routes, dateline classes and last
/// hops, which no 2-D router takes); router_switch: the
/// all-to-all domain of 8 endpoints, one router whose port i is endpoint i.
constexpr bool kSwitch = std::string_view(TRN_BENCH_NAME) == "router_switch";
#ifndef TRN_PARAM_LastHop
#define TRN_PARAM_LastHop 0
#endif
#ifndef TRN_PARAM_KZ
#define TRN_PARAM_KZ 1
#endif

Router::Params params_of() {
  Router::Params p;
  // the top's parameters (tb/CMakeLists.txt)
  p.p = TRN_PARAM_P;
  p.v = TRN_PARAM_V;
  p.last_hop = TRN_PARAM_LastHop != 0;
  p.d = TRN_PARAM_D;
  p.w = TRN_PARAM_W;
  p.topo = kSwitch ? Topo::TopoSwitch : Topo::TopoTorus;
  p.kx = TRN_PARAM_KX;
  p.ky = TRN_PARAM_KY;
  p.kz = TRN_PARAM_KZ;
  return p;
}

/// Names of the router's ports (torus: local and the four directions; switch: the endpoints).
std::vector<std::string> port_names(const Router::Params& p) {
  if (p.topo == Topo::TopoTorus && p.kz > 1) return {"local", "+x", "-x", "+y", "-y", "+z", "-z"};
  if (p.topo == Topo::TopoTorus) return {"local", "+x", "-x", "+y", "-y"};
  return cover_names("p", p.p);
}

/// Functional coverage of the router, sampled by RouterBench from what it drives (in_*,
/// out_credit_*), what the router sends (out_*, in_credit_*) and the packets' routes (which the
/// scoreboard checks against the port each head leaves on).
struct RouterCover {
  CoverPoint& port_pair;  ///< input port x output port of every packet, when its head leaves
  /// Two or more heads reach empty input VCs in one cycle (so they ask for VC allocation at once):
  /// routed to other output ports, to one port but disjoint output VCs, or wanting one output VC.
  CoverPoint& va_conflict;
  CoverPoint& in_vc_fill;      ///< every input VC every cycle: its D slots held (the sender's credits out)
  CoverPoint& in_vc_full;      ///< input port x VC: all D slots held, the sender has no credit
  CoverPoint& out_vc_credits;  ///< every output VC every cycle: the router's credits for it
  /// output port x VC: no credit, the router cannot send on it. On a torus the local port takes
  /// only its class's first VC (rtl/link/router.sv: a flow keeps one FIFO up to the endpoint), so
  /// its other VCs carry nothing and are no bins; exhausted_bin maps output VC o * V + v to its
  /// bin (-1: none)
  CoverPoint& out_vc_exhausted;
  std::vector<int> exhausted_bin;
  CoverPoint* dateline = nullptr;   ///< torus: a head leaving across a dateline (wrap link), by direction
  CoverPoint* hop_class = nullptr;  ///< torus: a head leaving on a link port, how its VC class was chosen
};

/// Whether output port o's VC v can carry a packet: on a torus the local port takes only its
/// class's first VC (a class: two dateline VCs, and the last-hop VC with last_hop).
bool carries(const Router::Params& p, unsigned o, unsigned v) {
  return !(p.topo == Topo::TopoTorus && o == 0 && v % class_vcs(p.last_hop) != 0);
}

/// RouterCover::out_vc_exhausted: port x VC over the VCs that can carry a packet.
CoverPoint& out_vc_exhausted_point(const std::string& b, const Router::Params& p, const std::vector<std::string>& ports,
                                   const std::vector<std::string>& vcs) {
  std::vector<std::string> bins;
  for (unsigned o = 0; o < p.p; ++o)
    for (unsigned v = 0; v < p.v; ++v)
      if (carries(p, o, v)) bins.push_back(ports[o] + "*" + vcs[v]);
  return cover_point(b + ".out_vc.exhausted", std::move(bins));
}

RouterCover router_cover(const Router::Params& p) {
  const std::string b = TRN_BENCH_NAME;
  const std::vector<std::string> ports = port_names(p), vcs = cover_names("vc", p.v);
  RouterCover c{cover_cross(b + ".port_pair", {ports, ports}),
                cover_point(b + ".va_conflict", {"other_ports", "same_port_other_vc", "same_vc"}),
                cover_point(b + ".in_vc.fill", {"empty", "between", "full"}),
                cover_cross(b + ".in_vc.full", {ports, vcs}),
                cover_point(b + ".out_vc.credits", {"empty", "between", "full"}),
                out_vc_exhausted_point(b, p, ports, vcs),
                {},
                nullptr,
                nullptr};
  for (unsigned o = 0, n = 0; o < p.p; ++o)
    for (unsigned v = 0; v < p.v; ++v) c.exhausted_bin.push_back(carries(p, o, v) ? int(n++) : -1);
  if (p.topo == Topo::TopoTorus) {
    const std::vector<std::string> names = port_names(p);
    c.dateline = &cover_point(b + ".dateline", std::vector<std::string>(names.begin() + 1, names.end()));
    // entering a dimension: class 0; continuing along it: the class it came in; crossing: class 1
    std::vector<std::string> bins{"enter_class0", "continue_class0", "continue_class1", "cross_class1"};
    if (p.last_hop) bins.push_back("last_hop");  // the next router is the destination
    c.hop_class = &cover_point(b + ".hop_class", bins);
  }
  return c;
}

struct Packet {
  unsigned id = 0, in_port = 0, in_vc = 0, tc = 0;
  std::vector<Bits> flits;
  Route rt;
};

struct RouterBench {
  Env& env;
  Signal& rst;
  Clock clk;
  Router::Params prm;
  Router model;
  Lockstep<Router> lockstep;
  Rng rng;
  RouterCover cov;
  /// drive(): the heads sent this cycle to an empty input VC (so at its front), as (output port,
  /// output VCs their route allows), for va_conflict
  std::vector<std::pair<unsigned, std::uint64_t>> va_heads;
  unsigned me = 0;
  double p_send = 0.5, p_drain = 0.8;
  double p_local = 0;  ///< a packet's chance of being for this router (0: uniform destinations)
  std::vector<Packet> packets;
  // sources: per (port, vc) the packets still to send, flits sent of the front one, credits
  std::vector<std::deque<unsigned>> src;
  std::vector<unsigned> src_flit, src_cred;
  // sinks: per (port, vc) buffered flits and the packet being received
  std::vector<unsigned> sink_fill;
  std::vector<int> sink_pkt;
  std::vector<unsigned> sink_idx;
  std::size_t done = 0, flits_out = 0;
  unsigned to_send = 0;
  unsigned corrupt_packet = ~0u;  ///< self-test: the packet whose last flit the scoreboard expects altered
  Clock::HookId hook;

  explicit RouterBench(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(params_of()),
        model(prm),
        lockstep(e, clk, model),
        rng(e.rng("traffic")),
        cov(router_cover(prm)) {
    const unsigned n = prm.p * prm.v;
    src.resize(n);
    src_flit.assign(n, 0);
    src_cred.assign(n, prm.d);
    sink_fill.assign(n, 0);
    sink_pkt.assign(n, -1);
    sink_idx.assign(n, 0);
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~RouterBench() { clk.remove_hook(hook); }

  Packet& new_packet(unsigned port, unsigned vc) {
    Packet k;
    k.id = static_cast<unsigned>(packets.size());
    k.in_port = port;
    k.in_vc = vc;
    const unsigned len = static_cast<unsigned>(rng.range(1, 4));
    // drawn in the order dst, src, type, class
    const auto dst = static_cast<std::uint8_t>(rng.below(kSwitch ? prm.p : prm.kx * prm.ky * prm.kz));
    const auto src = static_cast<std::uint8_t>(rng.below(256));
    const auto type = static_cast<PktType>(rng.below(4));
    Head h{.tc = static_cast<std::uint8_t>(rng.below(4)),
           .len = static_cast<std::uint8_t>(len),
           .ptype = type,
           .src = src,
           .dst = dst};
    if (p_local > 0 && rng.chance(p_local)) h.dst = me;  // drawn only when set: other tests keep their stream
    k.tc = h.tc;
    std::vector<Bits> pay;
    for (unsigned f = 0; f < len; ++f) pay.push_back(rng.bits(prm.w));
    k.flits = tagged_packet(prm.w, k.id, h, std::move(pay));
    k.rt = route(prm.topo, prm.p, prm.kx, prm.ky, me, h.dst, port, vc % stride() == 1, prm.kz, prm.last_hop);
    packets.push_back(std::move(k));
    return packets.back();
  }
  /// The flit the scoreboard expects: as the source sent it (the self-test alters one).
  Bits expected(const Packet& k, unsigned idx) const {
    Bits want = k.flits[idx];
    if (k.id == corrupt_packet && idx + 1 == k.flits.size()) want.flip_bit(40);
    return want;
  }

  /// Settled outputs before the edge: credits back to the sources, flits into the sinks.
  void serve() {
    if (!(rst.get() & 1)) return;
    const unsigned V = prm.v, vb = model.vb();
    const std::uint64_t cr = env.sig("in_credit_o").get();
    const Bits crv = env.sig("in_credit_vc_o").bits();
    for (unsigned p = 0; p < prm.p; ++p)
      if ((cr >> p) & 1) ++src_cred[p * V + crv.slice(p * vb, vb)];
    // An input VC's slots held: the flits sent on it less the credits back; a credit comes the
    // cycle after its flit leaves the buffer, so this is the buffer's usage plus the flit arriving.
    for (unsigned j = 0; j < prm.p * V; ++j) {
      cov.in_vc_fill.hit_index(level_bin(prm.d - src_cred[j], prm.d));
      if (src_cred[j] == 0) cov.in_vc_full.hit_index(j);
    }
    const std::uint64_t ov = env.sig("out_valid_o").get();
    const Bits ovc = env.sig("out_vc_o").bits(), of = env.sig("out_flit_o").bits();
    for (unsigned o = 0; o < prm.p; ++o) {
      if (!((ov >> o) & 1)) continue;
      const unsigned v = static_cast<unsigned>(ovc.slice(o * vb, vb)), j = o * V + v;
      Bits f(prm.w);
      for (unsigned b = 0; b < prm.w; ++b) f.set_bit(b, of.bit(o * prm.w + b));
      check(sink_fill[j] < prm.d, "cycle {}: output {} VC {} sent a flit without a credit", clk.cycle(), o, v);
      ++sink_fill[j];
      ++flits_out;
      const auto [id, idx] = tag_of(f);
      check(id < packets.size(), "cycle {}: output {} flit of unknown packet {}", clk.cycle(), o, id);
      const Packet& k = packets[id];
      const Kind kind = kind_of(f);
      if (kind == Kind::FlitHead || kind == Kind::FlitSingle) {
        check(sink_pkt[j] < 0, "cycle {}: output {} VC {}: packet {} starts inside packet {}", clk.cycle(), o, v, id,
              sink_pkt[j]);
        check(o == k.rt.port, "cycle {}: packet {} left on port {}, its route is port {}", clk.cycle(), id, o,
              k.rt.port);
        check(vc_allowed(prm.topo, V, v, k.tc, k.rt.cls, prm.last_hop),
              "cycle {}: packet {} (traffic class {}) on VC {}, its route "
              "needs dateline class {}",
              clk.cycle(), id, k.tc, v, k.rt.cls);
        sink_pkt[j] = static_cast<int>(id);
        sink_idx[j] = 0;
        cover_departure(k, o, v);
      }
      check(
          sink_pkt[j] == static_cast<int>(id) && idx == sink_idx[j] && f == expected(k, idx),
          "cycle {}: output {} VC {}: flit {} of packet {} out of order, foreign or corrupted (expected flit {} of {})",
          clk.cycle(), o, v, idx, id, sink_idx[j], sink_pkt[j]);
      ++sink_idx[j];
      if (kind == Kind::FlitTail || kind == Kind::FlitSingle) {
        check(sink_idx[j] == k.flits.size(), "cycle {}: packet {} ended after {} of {} flits", clk.cycle(), id,
              sink_idx[j], k.flits.size());
        sink_pkt[j] = -1;
        ++done;
      }
    }
    // The router's credits for an output VC this cycle: D less the flits it sent on it and the
    // sink holds (a credit the bench returns now counts: the router can spend it now).
    for (unsigned j = 0; j < prm.p * V; ++j) {
      cov.out_vc_credits.hit_index(level_bin(prm.d - sink_fill[j], prm.d));
      // (a flit on a VC that carries nothing fails vc_allowed's check where it leaves)
      if (sink_fill[j] == prm.d && cov.exhausted_bin[j] >= 0)
        cov.out_vc_exhausted.hit_index(unsigned(cov.exhausted_bin[j]));
    }
  }

  /// Coverage of packet k's head leaving on output port o, VC v.
  void cover_departure(const Packet& k, unsigned o, unsigned v) {
    cov.port_pair.hit_index(k.in_port * prm.p + o);
    if (!cov.dateline || o == 0) return;
    // torus ports 1 +x, 2 -x, 3 +y, 4 -y, 5 +z, 6 -z: the hop crosses the dateline when it takes
    // the wrap link
    const unsigned x = me % prm.kx, y = me / prm.kx % prm.ky, z = me / (prm.kx * prm.ky);
    const bool cross = (o == 1 && x == prm.kx - 1) || (o == 2 && x == 0) || (o == 3 && y == prm.ky - 1) ||
                       (o == 4 && y == 0) || (o == 5 && z == prm.kz - 1) || (o == 6 && z == 0);
    if (cross) cov.dateline->hit_index(o - 1);
    const bool same_dim = (k.in_port + 1) / 2 == (o + 1) / 2;  // came in on a port of this dimension
    cov.hop_class->hit_index(v % stride() == 2 ? 4 : cross ? 3 : same_dim ? 1 + v % stride() : 0);
  }
  /// Positions a test draws the router's own id from: the torus's routers (16 on the switch, whose
  /// routing ignores it; the 2-D benches' draws are what they were).
  unsigned positions() const { return kSwitch ? 16 : prm.kx * prm.ky * prm.kz; }
  /// A torus traffic class's VCs: its two dateline classes, and the last-hop VC when there is one.
  unsigned stride() const { return class_vcs(prm.last_hop); }

  /// The output VCs packet k's route allows at this router (bit v).
  std::uint64_t allowed_vcs(const Packet& k) const {
    std::uint64_t m = 0;
    for (unsigned v = 0; v < prm.v; ++v)
      if (vc_allowed(prm.topo, prm.v, v, k.tc, k.rt.cls, prm.last_hop)) m |= std::uint64_t{1} << v;
    return m;
  }

  void drive() {
    const unsigned V = prm.v, vb = model.vb();
    Router::In in = model.make_in();
    in.id_i = me;
    va_heads.clear();
    for (unsigned p = 0; p < prm.p; ++p) {
      // new packets
      if (to_send > 0 && rng.chance(p_send / 2)) {
        const unsigned vc = static_cast<unsigned>(rng.below(V));
        src[p * V + vc].push_back(new_packet(p, vc).id);
        --to_send;
      }
      if (!rng.chance(p_send)) continue;
      std::vector<unsigned> ready;
      for (unsigned v = 0; v < V; ++v)
        if (!src[p * V + v].empty() && src_cred[p * V + v] > 0) ready.push_back(v);
      if (ready.empty()) continue;
      const unsigned v = ready[rng.below(ready.size())], j = p * V + v;
      const Packet& k = packets[src[j].front()];
      // a head into an input VC whose credits are all back (its buffer empty) is at the front now
      if (src_flit[j] == 0 && src_cred[j] == prm.d) va_heads.emplace_back(k.rt.port, allowed_vcs(k));
      in.in_valid_i.set_bit(p, true);
      in.in_vc_i.set_slice(p * vb, vb, v);
      for (unsigned b = 0; b < prm.w; ++b) in.in_flit_i.set_bit(p * prm.w + b, k.flits[src_flit[j]].bit(b));
      --src_cred[j];
      if (++src_flit[j] == k.flits.size()) {
        src_flit[j] = 0;
        src[j].pop_front();
      }
    }
    // sinks drain one flit per port now and then, returning its credit
    for (unsigned o = 0; o < prm.p; ++o) {
      if (!rng.chance(p_drain)) continue;
      std::vector<unsigned> full;
      for (unsigned v = 0; v < V; ++v)
        if (sink_fill[o * V + v] > 0) full.push_back(v);
      if (full.empty()) continue;
      const unsigned v = full[rng.below(full.size())];
      --sink_fill[o * V + v];
      in.out_credit_i.set_bit(o, true);
      in.out_credit_vc_i.set_slice(o * vb, vb, v);
    }
    if (va_heads.size() >= 2) {
      std::size_t bin = 0;  // other_ports
      for (std::size_t a = 0; a < va_heads.size(); ++a)
        for (std::size_t b = a + 1; b < va_heads.size(); ++b)
          if (va_heads[a].first == va_heads[b].first)
            bin = std::max<std::size_t>(bin, (va_heads[a].second & va_heads[b].second) ? 2 : 1);
      cov.va_conflict.hit_index(bin);
    }
    drive_inputs(env, model, in, "", "rst_ni");
  }

  Task<> start() {
    Router::In in = model.make_in();
    in.id_i = me;
    drive_inputs(env, model, in, "", "rst_ni");
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }
  Task<std::uint64_t> run(unsigned n, std::uint64_t limit) {
    to_send = n;
    const std::size_t want = packets.size() + n;
    const std::uint64_t c0 = clk.cycle();
    while (done < want) {
      check(clk.cycle() - c0 < limit, "{} of {} packets delivered after {} cycles", done, want, limit);
      drive();
      co_await RisingEdge(clk.signal());
    }
    co_return clk.cycle() - c0;
  }
};

}  // namespace

TRN_TEST(random_packets, .timeout_ns = 1e10) {
  RouterBench t(env);
  Rng r = env.rng("setup");
  t.me = static_cast<unsigned>(r.below(t.positions()));
  t.p_send = 0.2 + 0.8 * static_cast<double>(r.below(101)) / 100;
  t.p_drain = 0.3 + 0.7 * static_cast<double>(r.below(101)) / 100;
  co_await t.start();
  const std::uint64_t cyc =
      co_await t.run(static_cast<unsigned>(scaled(env_count("ROUTER_PACKETS", 1000))), scaled(200000));
  info("router {}: {} packets ({} flits) in {} cycles, send rate {:.2f}, drain rate {:.2f}", t.me, t.done, t.flits_out,
       cyc, t.p_send, t.p_drain);
}

TRN_TEST(congested_sinks, .timeout_ns = 1e10) {
  // Every input sending at full rate into sinks that drain rarely (2-10 % of cycles): the output
  // VCs run out of credits, on every port and VC a packet can use from this router, and stay out
  // while packets wait behind them. Random packets drain at 30 % or more, so a port and VC that
  // few routes use (the local port's upper VC, -y on VC 0) reach no credits only by chance; on
  // the torus 30 % of the packets are for this router.
  RouterBench t(env);
  Rng r = env.rng("setup");
  t.me = static_cast<unsigned>(r.below(t.positions()));
  t.p_send = 1.0;
  t.p_drain = 0.02 + 0.08 * static_cast<double>(r.below(101)) / 100;
  t.p_local = kSwitch ? 0.0 : 0.3;  // the torus's local port: its upper VC fills only under many local packets
  co_await t.start();
  const std::uint64_t cyc =
      co_await t.run(static_cast<unsigned>(scaled(env_count("ROUTER_PACKETS", 400))), scaled(400000));
  info("router {}: {} packets ({} flits) in {} cycles, drain rate {:.2f}", t.me, t.done, t.flits_out, cyc, t.p_drain);
}

TRN_TEST(every_position, .timeout_ns = 1e10) {
  // The router at every position of its torus in turn (its id_i changed between batches, with
  // nothing in flight): a batch of random packets at each, so the routes of every coordinate
  // (the datelines at both ends of every dimension, the half-way ties) are taken in one run,
  // where the random tests see one position per seed.
  RouterBench t(env);
  Rng r = env.rng("setup");
  t.p_send = 0.5 + 0.5 * static_cast<double>(r.below(101)) / 100;
  t.p_drain = 0.5 + 0.5 * static_cast<double>(r.below(101)) / 100;
  co_await t.start();
  const unsigned per = static_cast<unsigned>(scaled(env_count("ROUTER_PACKETS", 40)));
  const unsigned n = kSwitch ? 1 : t.positions();
  for (unsigned pos = 0; pos < n; ++pos) {
    t.me = pos;
    co_await t.run(per, scaled(100000));
  }
  check(t.done == static_cast<std::size_t>(per) * n, "{} packets delivered, {} sent", t.done, per * n);
  info("{} positions, {} packets each: {} flits", n, per, t.flits_out);
}

TRN_TEST(selftest_scoreboard_catches_corrupted_flit, .timeout_ns = 1e10, .expect_fail = true) {
  // The scoreboard's record of one body-or-tail flit differs from what the source sent (as if the
  // router had flipped a payload bit): it must report that flit.
  expect_failure([](const TestFailure& f) {
    const std::string m = f.what();
    check(m.find("out of order, foreign or corrupted") != std::string::npos, "wrong failure: {}", m);
  });
  RouterBench t(env);
  t.me = 3;
  t.corrupt_packet = 40;
  co_await t.start();
  co_await t.run(200, 100000);
}

TRN_TEST(throughput) {
  RouterBench t(env);
  t.me = 5;
  t.p_send = 1.0;
  t.p_drain = 1.0;
  co_await t.start();
  BenchTimer timer;
  const std::uint64_t c0 = t.clk.cycle();
  co_await t.run(static_cast<unsigned>(bench_cycles(20000) / 4), 1000000);
  fmt::print("bench: figure {}: {:.2f} flits/cycle leaving {} ports, all inputs saturated, random destinations\n",
             TRN_BENCH_NAME, static_cast<double>(t.flits_out) / static_cast<double>(t.clk.cycle() - c0), t.prm.p);
  timer.report(t.clk.cycle() - c0);
}

TRN_BENCH_MAIN(Vrouter, TRN_BENCH_NAME)
