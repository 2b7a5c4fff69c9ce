// Boost.Test units of model/link: the CRC against the published check value of CRC-16/CCITT-FALSE
// (an external oracle), its detection of every 1-, 2- and 3-bit error in a flit, and the sender
// and receiver models closed in a loop without errors; networks built by the model alone (a 4x4x4
// torus, 64- and 144-endpoint switch domains) saturated and drained, and the shared scoreboard's
// self-test.
#include "link/link.hpp"

#include <boost/test/unit_test.hpp>
#include <random>

using namespace trn;
using namespace trn::link;

BOOST_AUTO_TEST_SUITE(link_layer)

BOOST_AUTO_TEST_CASE(crc_check_value) {
  // CRC-16/CCITT-FALSE("123456789") = 0x29B1 (the catalogue's check value), bytes MSB first.
  const char* s = "123456789";
  Bits x(72);
  for (unsigned i = 0; i < 9; ++i) x.set_slice(8 * (8 - i), 8, static_cast<unsigned char>(s[i]));
  BOOST_CHECK_EQUAL(crc16(x, 72), 0x29B1);
}

BOOST_AUTO_TEST_CASE(crc_of_any_width_matches_a_bit_serial_register) {
  // crc16 and flit_crc take whole bytes through a table where they can: at every width and
  // sequence width they agree with the register shifted one bit at a time over {seq, data}
  auto serial = [](const Bits& x, unsigned n) {
    std::uint16_t c = 0xFFFF;
    for (unsigned i = n; i > 0; --i) {
      const bool fb = ((c >> 15) & 1) != x.bit(i - 1);
      c = static_cast<std::uint16_t>((c << 1) ^ (fb ? 0x1021 : 0));
    }
    return c;
  };
  std::mt19937_64 r(11);
  for (unsigned w : {1u, 8u, 63u, 64u, 65u, 66u, 70u, 130u, 200u})
    for (unsigned sb : {3u, 5u, 7u}) {
      Bits d(w);
      for (unsigned k = 0; k < d.words(); ++k) d.set_word(k, r());
      const std::uint64_t seq = r();
      Bits x(w + sb);
      x.copy(0, d, 0, w);
      x.set_slice(w, sb, seq);
      BOOST_TEST(crc16(d, w) == serial(d, w), "width " << w);
      BOOST_TEST(flit_crc(seq, sb, d) == serial(x, w + sb), "width " << w << " seq width " << sb);
    }
}

BOOST_AUTO_TEST_CASE(crc_detects_small_errors) {
  std::mt19937_64 r(7);
  Bits d(64);
  d.set_word(0, r());
  const std::uint16_t c = flit_crc(5, 5, d);
  const unsigned n = 64 + 5;
  auto flipped = [&](std::initializer_list<unsigned> bits) {
    Bits x = d;
    std::uint64_t seq = 5;
    for (unsigned b : bits) {
      if (b < 64)
        x.flip_bit(b);
      else
        seq ^= std::uint64_t{1} << (b - 64);
    }
    return flit_crc(seq, 5, x);
  };
  for (unsigned a = 0; a < n; ++a) {
    BOOST_REQUIRE_NE(flipped({a}), c);
    for (unsigned b = a + 1; b < n; ++b) {
      BOOST_REQUIRE_NE(flipped({a, b}), c);
      for (unsigned e = b + 1; e < n; e += 7) BOOST_REQUIRE_NE(flipped({a, b, e}), c);
    }
  }
}

BOOST_AUTO_TEST_CASE(models_in_a_loop_deliver_in_order) {
  // LinkTx -> LinkRx with a one-cycle wire and acknowledgements fed straight back.
  LinkTx tx(LinkTx::Params{32, 4, 16});
  LinkRx rx(LinkRx::Params{32, tx.sb(), true});
  LinkTx::In ti{true, false, Bits(32), false, 0, false, 0};
  LinkRx::In ri{true, false, 0, Bits(32), 0};
  LinkTx::Out to;
  LinkRx::Out ro;
  unsigned sent = 0, got = 0;
  for (int cyc = 0; cyc < 200; ++cyc) {
    tx.eval(ti, to);
    rx.eval(ri, ro);
    ti.in_valid_i = sent < 100;
    ti.in_data_i = Bits(32, sent);
    if (ti.in_valid_i && to.in_ready_o) ++sent;
    if (ro.out_valid_o) BOOST_REQUIRE_EQUAL(ro.out_data_o.to_u64(), got++);
    ti.ack_valid_i = ro.ack_valid_o;
    ti.ack_seq_i = ro.ack_seq_o;
    ti.nack_valid_i = ro.nack_valid_o;
    ti.nack_seq_i = ro.nack_seq_o;
    ri = LinkRx::In{true, to.tx_valid_o, to.tx_seq_o, to.tx_data_o, to.tx_crc_o};
    tx.tick(ti);
    rx.tick(ri);
  }
  BOOST_CHECK_EQUAL(got, 100u);
  BOOST_CHECK_EQUAL(to.replays_o + to.timeouts_o, 0u);
}

BOOST_AUTO_TEST_SUITE_END()

#include "link/net_runner.hpp"
#include "link/traffic.hpp"

BOOST_AUTO_TEST_SUITE(link_networks)

BOOST_AUTO_TEST_CASE(torus_3d_saturates_and_drains) {
  // The model alone builds a 4 x 4 x 4 torus (7-port routers, dateline classes in three
  // dimensions, the link layer on all 384 links): offered uniform traffic above saturation, then
  // stopped, every packet is delivered whole, once and in order within a bound (no deadlock).
  Net::Params p;
  p.kz = 4;
  NetRunner run(p, 11);
  BOOST_REQUIRE_EQUAL(run.net().links(), 384u);
  run.run(1500, 1.0);
  const auto took = run.drain(50000);
  BOOST_REQUIRE(took.has_value());
  BOOST_CHECK_GT(run.traffic().created(), 10000u);
  BOOST_TEST_MESSAGE("4x4x4 torus: " << run.traffic().created() << " packets, drained " << *took
                                     << " cycles after injection stopped");
}

BOOST_AUTO_TEST_CASE(switch_domains_of_64_and_144_saturate_and_drain) {
  // The all-to-all domains of 64 and 144 endpoints: one switch router of that many ports, the link
  // layer on every endpoint link both ways. Uniform and hotspot traffic above saturation, then
  // stopped: everything is delivered whole, once and in order, within a bound.
  for (unsigned n : {64u, 144u})
    for (Pattern pat : {Pattern::uniform, Pattern::hotspot}) {
      Net::Params p;
      p.topo = Topo::TopoSwitch;
      p.n = n;
      NetRunner run(p, 5 + n);
      BOOST_REQUIRE_EQUAL(run.net().links(), 2 * n);
      run.traffic().pattern = pat;
      const unsigned cycles = pat == Pattern::hotspot ? 200 : 500;
      run.run(cycles, 1.0);
      // the bound: twice what the busiest endpoint must eject (a fifth of all flits plus its share
      // under hotspot; every endpoint ejects one flit per cycle at most), plus the pipeline
      const double busiest = cycles * n * (pat == Pattern::hotspot ? 0.2 + 0.8 / n : 1.0 / n);
      const auto took = run.drain(static_cast<std::uint64_t>(2 * busiest) + 1000);
      BOOST_REQUIRE(took.has_value());
      BOOST_CHECK_GT(run.traffic().created(), cycles * n / 4);
      BOOST_TEST_MESSAGE(n << "-endpoint switch, " << pattern_name(pat) << ": " << run.traffic().flits_out()
                           << " flits delivered, drained " << *took << " cycles after injection stopped");
    }
}

BOOST_AUTO_TEST_CASE(switch_domain_of_64_runs_near_the_head_of_line_limit) {
  // In a 64-endpoint switch each endpoint ejects at most one flit per cycle. Under uniform traffic
  // above saturation an input-queued switch is capped by head-of-line blocking (near 0.59 of the
  // ports for one-flit packets and one queue per input; a queue per traffic class raises it,
  // packets of several flits that hold their output lower it); a broken allocator or credit loop
  // would fall far below 0.45.
  Net::Params p;
  p.topo = Topo::TopoSwitch;
  p.n = 64;
  NetRunner run(p, 3);
  run.run(300, 1.0);
  const std::uint64_t f0 = run.traffic().flits_out();
  run.run(2000, 1.0);
  const double thr = static_cast<double>(run.traffic().flits_out() - f0) / (2000.0 * 64);
  BOOST_TEST_MESSAGE("64-endpoint switch, uniform saturation: " << thr << " flits/endpoint/cycle");
  BOOST_CHECK_GT(thr, 0.45);
}

BOOST_AUTO_TEST_CASE(traffic_scoreboard_catches_a_corrupted_flit) {
  // The shared scoreboard against a network that delivers everything intact, told to expect packet
  // 20's last flit altered: it must throw, naming the flit.
  Net::Params p;
  p.topo = Topo::TopoSwitch;
  p.n = 8;
  NetRunner run(p, 1);
  run.traffic().corrupt_packet = 20;
  try {
    run.run(500, 0.3);
    BOOST_FAIL("the scoreboard missed the altered flit");
  } catch (const std::runtime_error& e) {
    BOOST_CHECK(std::string(e.what()).find("of packet 20 out of order, foreign or corrupted") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(torus_with_two_traffic_classes_keeps_flows_in_order) {
  // 4 VCs on a torus: two traffic classes, each with a VC per dateline class, so every hop of a
  // packet has exactly one VC and a flow (source, destination, class) one FIFO. Saturated, then
  // drained, the scoreboard sees every flow in order. (When VC allocation let a packet take either
  // VC of its dateline class, packets of a flow overtook each other within 250 cycles.)
  Net::Params p;
  p.v = 4;
  p.d = 8;
  p.rdepth = 32;
  for (std::uint64_t seed : {1, 2, 3}) {
    NetRunner run(p, seed);
    run.run(2000, 1.0);
    BOOST_REQUIRE(run.drain(50000).has_value());
    BOOST_CHECK_GT(run.traffic().created(), 10000u);
  }
}

BOOST_AUTO_TEST_CASE(torus_with_the_last_hop_vc_keeps_flows_in_order_and_drains) {
  // 6 VCs with the last-hop VC: two traffic classes of three, the hop into a packet's destination
  // on the class's third VC. Saturated on a 4 x 4 and a 4 x 2 x 2 torus, then drained (no
  // deadlock: the last-hop VCs wait only on ejection), the scoreboard sees every flow in order.
  for (unsigned kz : {1u, 2u}) {
    Net::Params p;
    p.v = 6;
    p.last_hop = true;
    p.d = 8;
    p.rdepth = 64;
    p.ky = 4 / kz;
    p.kz = kz;
    for (std::uint64_t seed : {1, 2}) {
      NetRunner run(p, seed);
      run.run(2000, 1.0);
      BOOST_REQUIRE(run.drain(50000).has_value());
      BOOST_CHECK_GT(run.traffic().created(), 10000u);
    }
  }
  // a 4 x 4 torus router at (1, 1) = 5: a hop to a neighbour is class 3, to one two hops away not
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 5, 4, 4, 5, 6, 0, 0, 1, true).cls, 3u);
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 5, 4, 4, 5, 7, 0, 0, 1, true).cls, 0u);
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 5, 4, 4, 5, 6, 0, 0, 1, false).cls, 0u);
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 5, 4, 4, 5, 9, 0, 0, 1, true).cls, 3u);   // +y
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 5, 4, 4, 5, 10, 0, 0, 1, true).cls, 0u);  // x first, then y
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 5, 4, 4, 3, 0, 0, 0, 1, true).cls, 3u);   // across the wrap
  // class c owns VCs 3c, 3c + 1, 3c + 2; the last hop only the third
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 6, 5, 1, 3, true));
  BOOST_CHECK(!vc_allowed(Topo::TopoTorus, 6, 3, 1, 3, true));
  BOOST_CHECK(!vc_allowed(Topo::TopoTorus, 6, 2, 1, 3, true));
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 6, 4, 1, 1, true) && !vc_allowed(Topo::TopoTorus, 6, 5, 1, 1, true));
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 6, 0, 0, 2, true) && !vc_allowed(Topo::TopoTorus, 6, 3, 0, 2, true));
}

BOOST_AUTO_TEST_CASE(traffic_classes_own_their_vcs) {
  // torus, 4 VCs: class 0 owns VCs 0 and 1, class 1 VCs 2 and 3; a link hop takes the VC of its
  // dateline class, the local port either; the class field is taken modulo the class count
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 4, 2, 1, 0));
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 4, 3, 1, 1));
  BOOST_CHECK(!vc_allowed(Topo::TopoTorus, 4, 3, 1, 0));
  BOOST_CHECK(!vc_allowed(Topo::TopoTorus, 4, 1, 1, 1));
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 4, 0, 0, 2) && vc_allowed(Topo::TopoTorus, 4, 1, 0, 2));
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 4, 1, 2, 1));  // class 2 is class 0 with 2 classes
  BOOST_CHECK(vc_allowed(Topo::TopoTorus, 2, 1, 3, 1));  // one class with 2 VCs
  // switch, 2 VCs: class c owns VC c alone
  BOOST_CHECK(vc_allowed(Topo::TopoSwitch, 2, 1, 1, 2));
  BOOST_CHECK(!vc_allowed(Topo::TopoSwitch, 2, 0, 1, 2));
  BOOST_CHECK(vc_allowed(Topo::TopoSwitch, 2, 0, 2, 2));
}

BOOST_AUTO_TEST_CASE(traffic_checks_catch_reordering_and_refused_flits) {
  // The scoreboard's order and link checks against outputs made up to break them: the second
  // packet of a flow ejected first, and a link not ready when its sender is offered a flit.
  Net::Params p;
  p.topo = Topo::TopoSwitch;
  p.n = 8;
  const Net net(p);
  auto expect_throw = [](auto&& f, const std::string& what) {
    try {
      f();
      BOOST_ERROR("no error; expected one saying: " << what);
    } catch (const std::runtime_error& e) {
      BOOST_CHECK_MESSAGE(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
  };
  {
    // nearest-neighbour traffic: endpoint s sends only to s + 1; find two packets of one flow
    Traffic t(net, 7);
    t.pattern = Pattern::neighbour;
    t.load = 1.0;
    t.injecting = true;
    Net::Out idle = net.make_out();
    for (unsigned l = 0; l < net.links(); ++l) idle.link_ready_o.set_bit(l, true);
    for (unsigned i = 0; i < 200; ++i) {
      t.drive(i);
      t.observe(idle, i);  // nothing delivered, credits never return: packets only queue up
    }
    unsigned a = 0, b = 0;
    for (unsigned i = 0; i < t.created() && !b; ++i)
      for (unsigned j = i + 1; j < t.created() && !b; ++j)
        if (t.packet(i).src == t.packet(j).src && t.packet(i).dst == t.packet(j).dst &&
            t.packet(i).vc == t.packet(j).vc) {
          a = i;
          b = j;
        }
    BOOST_REQUIRE(b > a);
    const auto later = t.packet(b);
    Net::Out out = idle;
    out.ej_valid_o.set_bit(later.dst, true);
    out.ej_vc_o.set_slice(later.dst * net.vb(), net.vb(), later.vc);
    for (unsigned k = 0; k < p.w; ++k) out.ej_flit_o.set_bit(later.dst * p.w + k, later.flits[0].bit(k));
    expect_throw([&] { t.observe(out, 200); }, "is number 1 of its flow, expected 0");
  }
  {
    Traffic t(net, 8);
    t.load = 1.0;
    t.injecting = true;
    Net::Out out = net.make_out();  // no link ready
    Net::In in = t.drive(0);
    for (unsigned i = 1; i < 20 && !in.inj_valid_i.any(); ++i) in = t.drive(i);
    BOOST_REQUIRE(in.inj_valid_i.any());
    expect_throw([&] { t.observe(out, 20); }, "while its replay buffer was full");
  }
}

BOOST_AUTO_TEST_CASE(torus_3d_routes_each_dimension_in_order) {
  // dimension order x, y, z; the z dateline between z = 3 and z = 0
  const unsigned me = (3 * 4 + 1) * 4 + 2;                                                        // x 2, y 1, z 3
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 7, 4, 4, me, (0 * 4 + 1) * 4 + 2, 0, 0, 4).port, 5u);  // z 3 -> 0: +z
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 7, 4, 4, me, (0 * 4 + 1) * 4 + 2, 0, 0, 4).cls, 1u);  // crosses the dateline
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 7, 4, 4, me, (2 * 4 + 2) * 4 + 2, 0, 0, 4).port, 3u);  // y first
  BOOST_CHECK_EQUAL(route(Topo::TopoTorus, 7, 4, 4, me, me, 0, 0, 4).port, 0u);                   // here
}

BOOST_AUTO_TEST_CASE(endpoint_register_adds_one_cycle_each_way) {
  // Net::Params::edge_regs puts a register stage (rtl/common pipe_reg) between an endpoint and its
  // router port, as rtl/link/torus_net.sv does: a one-flit packet from endpoint 0 to endpoint 1 of
  // an idle 4 x 4 torus arrives exactly one cycle later with it than without it.
  auto arrival = [](bool edge_regs) {
    Net::Params p;
    p.edge_regs = edge_regs;
    Net net(p);
    Net::In in = net.make_in();
    Net::Out out = net.make_out();
    net.tick(in);  // reset
    in.rst_ni = true;
    const Bits flit = make_flit(p.w, Kind::FlitSingle, Head{.len = 1, .dst = 1}, Bits(p.w));
    for (unsigned c = 0; c < 100; ++c) {
      in.inj_valid_i.set_bit(0, c == 0);
      in.inj_flit_i.copy(0, flit, 0, p.w);
      net.eval(in, out);
      if (out.ej_valid_o.bit(1)) {
        BOOST_CHECK_EQUAL(out.ej_flit_o.slice(p.w, 64), flit.to_u64());  // (p.w is 64)
        return c;
      }
      net.tick(in);
    }
    return 100u;
  };
  const unsigned direct = arrival(false), staged = arrival(true);
  BOOST_TEST_MESSAGE("one hop: " << direct << " cycles direct, " << staged << " with the endpoint register");
  BOOST_CHECK_LT(direct, 100u);
  BOOST_CHECK_EQUAL(staged, direct + 1);
  // the switch's endpoints reach it through links: no endpoint register there
  Net::Params sw;
  sw.topo = Topo::TopoSwitch;
  sw.edge_regs = true;
  BOOST_CHECK_THROW(Net{sw}, std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(wires_delay_each_hop_and_serialise_a_slow_link) {
  // Net::Params::wires (the model's wires, for the cycle level's systems): on an idle 4 x 4 torus a
  // one-flit packet over wires of 10 cycles arrives 10 cycles later per hop than over direct ones;
  // an 8-flit packet over half-rate wires ends about 8 cycles later per hop; traffic above
  // saturation over such wires is still delivered whole, once and in order.
  auto arrival = [](unsigned dst, unsigned flits, unsigned latency, double rate) {
    Net::Params p;
    if (latency || rate < 1) p.wires.assign(Net(p).links(), Net::Params::Wire{latency, rate});
    p.d = 32;  // credits for the wire's round trip
    p.rdepth = 64;
    p.timeout = 256;
    Net net(p);
    Net::In in = net.make_in();
    Net::Out out = net.make_out();
    net.tick(in);  // reset
    in.rst_ni = true;
    for (unsigned c = 0; c < 1000; ++c) {
      const unsigned k = c;
      in.inj_valid_i.set_bit(0, k < flits);
      if (k < flits) {
        const Kind kind = flits == 1       ? Kind::FlitSingle
                          : k == 0         ? Kind::FlitHead
                          : k + 1 == flits ? Kind::FlitTail
                                           : Kind::FlitBody;
        in.inj_flit_i.copy(
            0,
            make_flit(p.w, kind, Head{.len = static_cast<std::uint8_t>(flits), .dst = static_cast<std::uint8_t>(dst)},
                      Bits(p.w)),
            0, p.w);
      }
      net.eval(in, out);
      if (out.ej_valid_o.bit(dst) && out.ej_flit_o.slice(dst * p.w + p.w - 2, 2) >= 2) return c;  // the tail
      net.tick(in);
    }
    return 1000u;
  };
  const unsigned one = arrival(1, 1, 0, 1), two = arrival(2, 1, 0, 1);
  BOOST_CHECK_LT(two, 1000u);
  BOOST_CHECK_EQUAL(arrival(1, 1, 10, 1), one + 10);
  BOOST_CHECK_EQUAL(arrival(2, 1, 10, 1), two + 20);
  const unsigned fast = arrival(1, 8, 0, 1), slow = arrival(1, 8, 0, 0.5);
  BOOST_TEST_MESSAGE("8 flits over one hop: " << fast << " cycles at a flit a cycle, " << slow << " at half");
  BOOST_CHECK_GE(slow, fast + 7);
  BOOST_CHECK_LE(slow, fast + 9);
  Net::Params p;
  p.wires.assign(Net(p).links(), Net::Params::Wire{12, 0.5});
  p.d = 32;
  p.rdepth = 64;
  p.timeout = 256;
  NetRunner run(p, 5);
  run.run(1500, 1.0);
  const auto took = run.drain(50000);
  BOOST_REQUIRE(took.has_value());
  BOOST_CHECK_GT(run.traffic().created(), 1000u);
  Net::Params bad;
  bad.wires.assign(3, Net::Params::Wire{1, 1});
  BOOST_CHECK_THROW(Net{bad}, std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(router_refuses_a_credit_beyond_its_buffer) {
  // The router's output credit counters (rtl credit_counter) start full: a credit returned then is
  // a receiver breaking the protocol, and the model stops on it, naming the output VC.
  Router r(Router::Params{});
  Router::In in = r.make_in();
  in.rst_ni = true;
  in.out_credit_i.set_bit(3, true);
  in.out_credit_vc_i.set_slice(3 * r.vb(), r.vb(), 1);
  try {
    r.tick(in);
    BOOST_FAIL("a credit beyond the buffer's depth was accepted");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find("output VC 1 of port 3") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_SUITE_END()
