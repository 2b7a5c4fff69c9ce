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
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/bench_util.hpp"
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
    p.topo = Topo::sw;
    p.n = 8;
  } else {
    throw std::invalid_argument(fmt::format("net_tb: no network is defined for build {}", name));
  }
  return p;
}

/// A short name of the network for reports.
std::string net_name(const Net& m) {
  const Net::Params& p = m.params();
  if (p.topo == Topo::sw) return fmt::format("switch {}", p.n);
  return p.kz > 1 ? fmt::format("torus {}x{}x{}", p.kx, p.ky, p.kz) : fmt::format("torus {}x{}", p.kx, p.ky);
}

struct NetBench {
  Env& env;
  Signal& rst;
  Clock clk;
  Net model;
  Lockstep<Net> lockstep;
  Traffic traffic;
  Net::Out out;
  unsigned n;
  Clock::HookId hook;

  explicit NetBench(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        model(params_of(e)),
        lockstep(e, clk, model),
        traffic(model, e.rng("traffic").next()),
        out(model.make_out()),
        n(model.endpoints()) {
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
  const std::uint64_t c = env_count("NET_CYCLES", 400);
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
  co_await t.cycles(env_count("NET_CYCLES", 4000));
  const std::size_t created = t.traffic.created();
  const std::uint64_t took = co_await t.drain(50000);
  info("{} packets created at saturation; the last of them delivered {} cycles after injection stopped", created, took);
}

TRN_TEST(bad_destination_dropped, .timeout_ns = 1e12) {
  // One packet in ten is addressed to a chip id that does not exist (beyond the endpoints, up to
  // 255). Each is dropped at injection, its credits returned, and counted by its source's router;
  // the rest are delivered and the network never wedges, also at saturation.
  NetBench t(env);
  t.traffic.p_bad = 0.1;
  co_await t.start();
  for (double l : {0.2, 1.0}) co_await t.measure(Pattern::uniform, l, 0, 1000);
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
      const auto r = co_await t.measure(p, l, 100, 600);
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
