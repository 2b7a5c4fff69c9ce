// Bench for the NeuronLink network tops in lockstep with trn::link::Net, every router port compared
// every cycle (the endpoint ports and, through mon_*, every router port's flits and returned
// credits) with every link's counters:
//   torus_net    rtl/link/torus_net.sv, a 4 x 4 torus (64 links)
//   torus3d_net  rtl/link/torus_net.sv, a 4 x 2 x 2 3D torus (7-port routers, 96 links) with 4 VCs:
//                two traffic classes
//   switch_net   rtl/link/switch_net.sv, the all-to-all domain of 8 endpoints through one switch
//                (16 links: each endpoint's to and from the switch)
//   switch_nocrc the same with receivers that ignore the CRC: a broken DUT, only for the
//                self-test selftest_crc_off_is_caught (no lockstep)
// The endpoints, the channel model (one wire bit inverted per link-cycle with a seeded chance) and
// the end-to-end scoreboard are trn::link::Traffic, the same ones the model-only NetRunner uses:
// every packet delivered once, whole, intact, at its destination, in order per (source,
// destination, injection VC), and no flit offered to a link whose replay buffer is full.
// Functional coverage (NetCover): every (source, destination) pair delivered, CRC errors and
// replays on every link, replays by cause, and the links' replay buffers against their bound.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "link/net.hpp"
#include "link/net_runner.hpp"
#include "link/traffic.hpp"
#include TRN_PORTS_HEADER

using namespace trn;
using namespace trn::tb;
using namespace trn::link;

namespace {

/// The broken build (receivers that ignore the CRC), for the scoreboard's self-test.
constexpr bool kBroken = std::string_view(TRN_BENCH_NAME) == "switch_nocrc";

/// The network of this build, matching the parameters tb/CMakeLists.txt gives the top.
Net::Params params_of(const Env& e) {
  const auto& a = e.cfg().arch;
  Net::Params p;
  p.v = a.link_vcs;
  p.d = a.link_vc_depth;
  p.w = a.link_flit_bits;
  p.rdepth = a.link_replay_depth;
  p.timeout = a.link_timeout;
  const std::string_view name = TRN_BENCH_NAME;
  p.edge_regs = name != "switch_net" && name != "switch_nocrc";  // torus_net.sv registers its endpoint ports
  if (name == "torus_net") {
    p.kx = p.ky = 4;
  } else if (name == "torus3d_net") {
    p.kx = 4;
    p.ky = p.kz = 2;
    p.v = 4;  // two traffic classes
    p.rdepth = 32;
  } else if (name == "switch_net" || name == "switch_nocrc") {
    p.topo = Topo::TopoSwitch;
    p.n = 8;
  } else {
    throw std::invalid_argument(fmt::format("net_tb: no network is defined for build {}", name));
  }
  return p;
}

/// A short name of the network for reports.
std::string net_name(const Net& m) {
  const Net::Params& p = m.params();
  if (p.topo == Topo::TopoSwitch) return fmt::format("switch {}", p.n);
  return p.kz > 1 ? fmt::format("torus {}x{}x{}", p.kx, p.ky, p.kz) : fmt::format("torus {}x{}", p.kx, p.ky);
}

/// A link's name for the cover points: torus "r5+x" (router 5's +x port), switch "ep3>sw" and "sw>ep3".
std::string link_name(const Net& m, unsigned l) {
  static const char* const kDir[] = {"+x", "-x", "+y", "-y", "+z", "-z"};
  const Net::End f = m.link_from(l), t = m.link_to(l);
  if (m.params().topo == Topo::TopoTorus) return fmt::format("r{}{}", f.node, kDir[f.port - 1]);
  return f.endpoint ? fmt::format("ep{}>sw", f.node) : fmt::format("sw>ep{}", t.node);
}

/// Functional coverage of a network, sampled by NetBench::serve() every cycle from the top's
/// outputs after the scoreboard has checked them: the endpoints' ejections and every link's
/// counters and replay buffer. (The broken build, switch_nocrc, runs only self-tests, and a run of
/// self-tests writes no coverage: the harness.)
struct NetCover {
  CoverPoint& src_dst;       ///< source x destination endpoint of every packet, at its tail's ejection
  CoverPoint& link_crc;      ///< per link: its receiver dropped a flit for its CRC
  CoverPoint& link_replay;   ///< per link: its sender started a replay (on a nack or the timeout)
  CoverPoint& replay_cause;  ///< any link: a replay on a nack, on the timeout
  CoverPoint& rx_drop;       ///< any link: a flit dropped for its CRC, a good flit dropped out of sequence
  CoverPoint& held;          ///< every link every cycle: its replay buffer against min(RDepth, V x D)
  /// The link counters of the last cycle sampled (the first cycle only records them).
  bool primed = false;
  Bits crc_q, drop_q, replay_q, timeout_q;

  NetCover(const Net& m, const std::string& b)
      : src_dst(cover_cross(b + ".src_dst", {cover_names("e", m.endpoints()), cover_names("e", m.endpoints())})),
        link_crc(cover_point(b + ".link.crc_error", link_names(m))),
        link_replay(cover_point(b + ".link.replay", link_names(m))),
        replay_cause(cover_point(b + ".link.replay_cause", {"nack", "timeout"})),
        rx_drop(cover_point(b + ".link.rx_drop", {"crc_error", "out_of_sequence"})),
        held(cover_point(b + ".link.replay_fill", {"empty", "between", "full"})) {
    for (unsigned l = 0, k = 0; l < m.links(); ++l) link_bin.push_back(used(m, l) ? static_cast<int>(k++) : -1);
  }
  void hit_link(CoverPoint& p, unsigned l) const {
    if (link_bin[l] >= 0) p.hit_index(static_cast<std::size_t>(link_bin[l]));
  }

  /// A link's bin, or -1 for a link no packet takes: in a torus dimension of two routers the
  /// minimal route takes the + port on a tie (route() in model/link/router.cpp), so the - links
  /// carry nothing.
  std::vector<int> link_bin;
  static bool used(const Net& m, unsigned l) {
    const auto& p = m.params();
    if (p.topo != Topo::TopoTorus) return true;
    const unsigned port = m.link_from(l).port, k[] = {p.kx, p.ky, p.kz};
    return port % 2 == 1 || k[(port - 1) / 2] != 2;
  }
  static std::vector<std::string> link_names(const Net& m) {
    std::vector<std::string> v;
    for (unsigned l = 0; l < m.links(); ++l)
      if (used(m, l)) v.push_back(link_name(m, l));
    return v;
  }
};

struct NetBench {
  Env& env;
  Signal& rst;
  Clock clk;
  Net model;
  Lockstep<Net> lockstep;
  Traffic traffic;
  Net::Out out;
  unsigned n;
  NetCover cov;  ///< functional coverage
  Clock::HookId hook;

  explicit NetBench(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        model(params_of(e)),
        lockstep(e, clk, model),
        traffic(model, e.rng("traffic").next()),
        out(model.make_out()),
        n(model.endpoints()),
        cov(model, TRN_BENCH_NAME) {
    check(e.sig("inj_valid_i").width() == n && e.sig("flip_i").width() == model.links(),
          "build {}: the top has {} endpoints and {} links, the model {} and {}", TRN_BENCH_NAME,
          e.sig("inj_valid_i").width(), e.sig("flip_i").width(), n, model.links());
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~NetBench() { clk.remove_hook(hook); }

  /// The settled outputs before the edge, to the endpoints and the scoreboard.
  void serve() {
    if (!(rst.get() & 1)) return;
    read_outputs(env, model, out, "");
    try {
      traffic.observe(out, clk.cycle());
    } catch (const std::runtime_error& x) {
      check(false, "{}", x.what());
    }
    cover_cycle();
  }
  /// Coverage of the cycle's outputs (read into `out`, checked by the scoreboard).
  void cover_cycle() {
    NetCover& c = cov;
    const Net::Params& p = model.params();
    // every packet delivered: its source (the endpoint that injected it) and its destination
    for (unsigned e = 0; e < n; ++e) {
      if (!out.ej_valid_o.bit(e)) continue;
      Bits f(p.w);
      f.copy(0, out.ej_flit_o, e * p.w, p.w);
      const Kind kind = kind_of(f);
      if (kind == Kind::FlitTail || kind == Kind::FlitSingle)
        c.src_dst.hit_index(traffic.packet(tag_of(f).id).src * n + e);
    }
    // every link's replay buffer: an unacknowledged flit holds a credit of the downstream buffer,
    // so at most V x D flits are held (RDepth >= V x D)
    const unsigned links = model.links(), hb = out.link_held_o.width() / links;
    const std::uint64_t cap = std::min<std::uint64_t>(p.rdepth, std::uint64_t{p.v} * p.d);
    for (unsigned l = 0; l < links; ++l) {
      const std::uint64_t h = out.link_held_o.slice(l * hb, hb);
      hit_level(c.held, h, cap);
    }
    // the link counters that moved since the last cycle (each moves by at most 1 a cycle); the
    // first cycle only records them
    auto moved = [&](const Bits& now, Bits& last, auto&& on_link) {
      if (c.primed && now == last) return;
      if (c.primed)
        for (unsigned l = 0; l < links; ++l)
          if (now.slice(32 * l, 32) != last.slice(32 * l, 32)) on_link(l);
      last = now;
    };
    moved(out.link_crc_err_o, c.crc_q, [&](unsigned l) {
      c.hit_link(c.link_crc, l);
      c.rx_drop.hit_index(0);
    });
    moved(out.link_drop_o, c.drop_q, [&](unsigned) { c.rx_drop.hit_index(1); });
    moved(out.link_replay_o, c.replay_q, [&](unsigned l) {
      c.hit_link(c.link_replay, l);
      c.replay_cause.hit_index(0);
    });
    moved(out.link_timeout_o, c.timeout_q, [&](unsigned l) {
      c.hit_link(c.link_replay, l);
      c.replay_cause.hit_index(1);
    });
    c.primed = true;
  }
  void drive() {
    Net::In in = traffic.drive(clk.cycle());
    drive_inputs(env, model, in, "", "rst_ni");
  }
  /// The sum over all links of a 32-bit counter output.
  std::uint64_t link_sum(const char* port) const {
    const Bits b = env.sig(port).bits();
    std::uint64_t s = 0;
    for (unsigned l = 0; l < model.links(); ++l) s += b.slice(32 * l, 32);
    return s;
  }

  Task<> start() {
    Net::In in = model.make_in();
    drive_inputs(env, model, in, "", "rst_ni");
    clk.start();
    if (!kBroken) lockstep.start();  // the model checks the CRC: the scoreboard alone judges a broken build
    co_await reset_dut(clk, rst);
  }
  Task<> cycles(std::uint64_t c) {
    for (std::uint64_t i = 0; i < c; ++i) {
      drive();
      co_await RisingEdge(clk.signal());
    }
  }
  /// Stop injecting; every packet created so far must be delivered within `bound` cycles.
  Task<std::uint64_t> drain(std::uint64_t bound) {
    traffic.injecting = false;
    const std::uint64_t c0 = clk.cycle();
    while (!traffic.drained()) {
      check(clk.cycle() - c0 < bound, "{} of {} packets delivered {} cycles after injection stopped: deadlock or loss",
            traffic.delivered(), traffic.created() - traffic.bad(), bound);
      drive();
      co_await RisingEdge(clk.signal());
    }
    co_return clk.cycle() - c0;
  }
  /// Offer `load` with pattern `p` for `warm` + `c` cycles, then drain; return accepted
  /// flits/endpoint/cycle over the last c cycles and the mean latency of packets created in them.
  Task<std::pair<double, double>> measure(Pattern p, double l, std::uint64_t warm, std::uint64_t c) {
    traffic.pattern = p;
    traffic.load = l;
    traffic.injecting = true;
    co_await cycles(warm);
    traffic.start_window(clk.cycle());
    const std::uint64_t f0 = traffic.flits_out();
    co_await cycles(c);
    const double thr = static_cast<double>(traffic.flits_out() - f0) / static_cast<double>(c * n);
    co_await drain(20000 + 4 * c);
    co_return std::make_pair(thr, traffic.mean_latency());
  }
};

}  // namespace

TRN_TEST(traffic_patterns, .timeout_ns = 1e12) {
  // Uniform, transpose, bit-complement, hotspot and nearest-neighbour traffic at low, medium and
  // saturating loads; after each, injection stops and every packet must drain.
  NetBench t(env);
  co_await t.start();
  const std::uint64_t c = scaled(env_count("NET_CYCLES", 400));
  for (Pattern p : kPatterns)
    for (double l : {0.05, 0.25, 0.8}) {
      const auto r = co_await t.measure(p, l, 100, c);
      info("{} load {:.2f}: accepted {:.3f} flits/endpoint/cycle, mean latency {:.1f} cycles", pattern_name(p), l,
           r.first, r.second);
    }
  check(t.traffic.delivered() > 0, "no packet was delivered: the test shows nothing");
  info("{} packets delivered, every one once, whole, in order", t.traffic.delivered());
}

TRN_TEST(saturation_drains, .timeout_ns = 1e12) {
  // Uniform traffic offered above saturation for several thousand cycles, then stopped: every
  // packet must be delivered within a bound (no deadlock: the dateline classes at work).
  NetBench t(env);
  co_await t.start();
  t.traffic.load = 1.0;
  t.traffic.injecting = true;
  co_await t.cycles(scaled(env_count("NET_CYCLES", 4000)));
  const std::size_t created = t.traffic.created();
  const std::uint64_t took = co_await t.drain(scaled(50000));  // the backlog grows with the cycles
  info("{} packets created at saturation; the last of them delivered {} cycles after injection stopped", created, took);
}

TRN_TEST(bad_destination_dropped, .timeout_ns = 1e12) {
  // One packet in ten is addressed to a chip id that does not exist (beyond the endpoints, up to
  // 255). Each is dropped at injection, its credits returned, and counted by its source's router;
  // the rest are delivered and the network never wedges, also at saturation.
  NetBench t(env);
  t.traffic.p_bad = 0.1;
  co_await t.start();
  for (double l : {0.2, 1.0}) co_await t.measure(Pattern::uniform, l, 0, scaled(1000));
  const Bits cnt = t.env.sig("bad_dst_o").bits();
  std::uint64_t counted = 0;
  for (unsigned r = 0; r < t.model.routers(); ++r) counted += cnt.slice(16 * r, 16);
  info("{} packets to non-existent chips, {} counted as dropped; {} others delivered", t.traffic.bad(), counted,
       t.traffic.delivered());
  check(t.traffic.bad() > 0, "no packet to a bad chip id was sent");
  check(counted == t.traffic.bad(), "{} packets to bad chip ids sent, {} counted as dropped", t.traffic.bad(), counted);
}

TRN_TEST(link_errors, .timeout_ns = 1e12) {
  // Every link's wire corrupted at random (1 % of link-cycles; 5 % with LINK_HEAVY=1) under
  // uniform and hotspot traffic up to saturation: nothing lost, duplicated, reordered or
  // corrupted, and the link counters show the errors and the replays.
  NetBench t(env);
  t.traffic.p_flip = env_count("LINK_HEAVY", 0) ? 0.05 : 0.01;
  co_await t.start();
  for (Pattern p : {Pattern::uniform, Pattern::hotspot})
    for (double l : {0.2, 0.8}) {
      const auto r = co_await t.measure(p, l, 100, scaled(600));
      info("{} load {:.1f} with link errors: accepted {:.3f}, latency {:.1f}", pattern_name(p), l, r.first, r.second);
    }
  const std::uint64_t crc = t.link_sum("link_crc_err_o"), rep = t.link_sum("link_replay_o"),
                      to = t.link_sum("link_timeout_o");
  info(
      "{} packets delivered intact; {} wire bits inverted, {} flits dropped for their CRC, {} replays on nack, {} on "
      "timeout",
      t.traffic.delivered(), t.traffic.flips(), crc, rep, to);
  check(crc > 0 && rep + to > 0, "no CRC error or replay seen although {} bits were inverted", t.traffic.flips());
}

TRN_TEST(selftest_scoreboard_catches_corrupted_flit, .timeout_ns = 1e12, .expect_fail = true) {
  expect_failure([](const TestFailure& f) {
    const std::string m = f.what();
    check(m.find("out of order, foreign or corrupted") != std::string::npos, "wrong failure: {}", m);
  });
  NetBench t(env);
  t.traffic.corrupt_packet = 30;
  co_await t.start();
  co_await t.measure(Pattern::uniform, 0.2, 0, 500);
}

TRN_TEST(selftest_crc_off_is_caught, .timeout_ns = 1e12, .expect_fail = true) {
  // Runs on the switch_nocrc build, whose link receivers deliver corrupted flits: with 1 % of
  // link-cycles corrupted, the scoreboard alone (no lockstep) must report a packet gone wrong.
  if (!kBroken) throw HarnessError("selftest_crc_off_is_caught runs on the switch_nocrc build");
  expect_failure([](const TestFailure& f) {
    const std::string m = f.what();
    check(m.find("packet") != std::string::npos, "not a scoreboard failure: {}", m);
  });
  NetBench t(env);
  t.traffic.p_flip = 0.01;
  co_await t.start();
  co_await t.measure(Pattern::uniform, 0.5, 0, 2000);
}

namespace {

/// make bench figures of the network: zero-load latency, the curves (CSV to $NET_CSV), and the
/// throughput lost to corrupted flits.
Task<> figures(NetBench& t, const std::string& name) {
  Env& env = t.env;
  const auto z = co_await t.measure(Pattern::uniform, 0.01, 50, 3000);
  const double rt = t.traffic.mean_routers(), lk = t.traffic.mean_links();
  const double edge = t.model.params().edge_regs ? 1 : 0;
  fmt::print(
      "bench: figure {} zero-load latency {:.1f} cycles over {:.2f} routers and {:.2f} links: 1 x routers + 3 x "
      "links + {} endpoint register + 1.5 serialization = {:.1f} predicted\n",
      name, z.second, rt, lk, edge, rt + 3 * lk + edge + 1.5);
  std::string csv = "network,pattern,offered,accepted,latency\n";
  for (Pattern p : kPatterns) {
    std::string row;
    for (double l : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0}) {
      const auto r = co_await t.measure(p, l, 200, 1000);
      row += fmt::format(" {:.2f}:{:.3f}/{:.0f}", l, r.first, r.second);
      csv += fmt::format("{},{},{:.2f},{:.4f},{:.1f}\n", name, pattern_name(p), l, r.first, r.second);
    }
    fmt::print("bench: figure {} {:>17} offered:accepted/latency{}\n", name, pattern_name(p), row);
  }
  if (const char* path = std::getenv("NET_CSV")) {
    std::FILE* f = std::fopen(path, "w");
    check(f != nullptr, "cannot write NET_CSV={}", path);
    std::fputs(csv.c_str(), f);
    std::fclose(f);
  }
  // Throughput lost to corrupted flits, on the model of this network (the lockstep ties it to the
  // RTL cycle for cycle) for long runs. Each seed runs every condition from reset, so the offered
  // traffic is identical and only the channel differs; the change is the mean over the seeds of
  // the paired differences, +- their standard error (the timing noise errors cause).
  const std::uint64_t c = env_count("NET_LOSS_CYCLES", 20000);
  auto saturated = [&](double pf, std::uint64_t seed) {
    NetRunner run(t.model.params(), seed);
    run.traffic().p_flip = pf;
    run.run(300, 1.0);
    const std::uint64_t f0 = run.traffic().flits_out();
    run.run(c, 1.0);
    return static_cast<double>(run.traffic().flits_out() - f0) / static_cast<double>(c * t.n);
  };
  constexpr unsigned kSeeds = 4;
  std::vector<double> base;
  std::uint64_t seed0 = env.rng("loss").next();
  for (unsigned k = 0; k < kSeeds; ++k) base.push_back(saturated(0, seed0 + k));
  std::string loss;
  for (double pf : {1e-4, 1e-3, 1e-2}) {
    double sum = 0, sq = 0;
    for (unsigned k = 0; k < kSeeds; ++k) {
      const double d = 100 * (saturated(pf, seed0 + k) / base[k] - 1);
      sum += d;
      sq += d * d;
    }
    const double mean = sum / kSeeds, se = std::sqrt(std::max(0.0, sq / kSeeds - mean * mean) / (kSeeds - 1));
    loss += fmt::format("  {:.0e}: {:+.2f}% +- {:.2f}", pf, mean, se);
  }
  fmt::print(
      "bench: figure {} uniform saturation throughput {:.4f} (model, {} seeds x {} cycles); change when this "
      "share of flits is corrupted on every wire:{}\n",
      name, std::accumulate(base.begin(), base.end(), 0.0) / kSeeds, kSeeds, c, loss);
}

}  // namespace

TRN_TEST(throughput) {
  // make bench: zero-load latency against 1 cycle per router and 3 per link + serialization,
  // accepted throughput against offered load for every pattern (CSV to $NET_CSV when set), and the
  // throughput lost to corrupted flits at uniform saturation.
  // (scripts/bench asks for the figures once per top, BENCH_FIGURES=1, and for speed alone in its
  // other runs)
  NetBench t(env);
  const std::string name = net_name(t.model);
  co_await t.start();
  if (bench_figures()) co_await figures(t, name);
  BenchTimer timer;
  const std::uint64_t c0 = t.clk.cycle();
  t.traffic.load = 0.3;
  t.traffic.injecting = true;
  co_await t.cycles(bench_cycles(20000) / 4);
  timer.report(t.clk.cycle() - c0);
}

TRN_BENCH_MAIN(TRN_VTOP, TRN_BENCH_NAME)
