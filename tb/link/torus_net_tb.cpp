// Bench for rtl/link/torus_net.sv (a 4 x 4 torus of routers, every link through the link layer) in
// lockstep with trn::link::TorusNet: every router port compared every cycle (the endpoint ports
// and, through mon_*, every link and returned credit) and every link's counters. The channel model
// corrupts a link's wire (one bit) with a seeded probability per link and cycle (flip_i). Endpoints inject packets of 1 to 4 flits by a traffic
// pattern at an offered load (flits per node per cycle, Bernoulli), within their credits, and eject
// with credits returned the next cycle. The scoreboard checks that every packet is delivered once,
// whole and intact, at its destination, in order per (source, destination, injection VC).
#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "link/router.hpp"
#include "packets.hpp"
#include "link/torus_net.hpp"
#include "torus_net_ports.hpp"

using namespace trn;
using namespace trn::tb;
using namespace trn::link;

namespace {

TorusNet::Params params_of(const Env& e) {
  const auto& a = e.cfg().arch;
  return TorusNet::Params{4, 4, a.link_vcs, a.link_vc_depth, a.link_flit_bits, a.link_replay_depth, a.link_timeout};
}

enum class Pattern { uniform, transpose, bitcomp, hotspot, neighbour };
const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::uniform: return "uniform";
    case Pattern::transpose: return "transpose";
    case Pattern::bitcomp: return "bit-complement";
    case Pattern::hotspot: return "hotspot";
    default: return "nearest-neighbour";
  }
}

struct Pkt {
  unsigned id = 0, src = 0, dst = 0, vc = 0, seq = 0;
  std::uint64_t born = 0;
  std::vector<Bits> flits;
};

struct NetBench {
  Env& env;
  Signal& rst;
  Clock clk;
  TorusNet::Params prm;
  TorusNet model;
  Lockstep<TorusNet> lockstep;
  Rng rng;
  Pattern pattern = Pattern::uniform;
  double load = 0.1;  ///< offered flits per node per cycle
  bool injecting = false;
  unsigned n = 16;
  std::vector<Pkt> pkts;
  std::vector<std::deque<unsigned>> queue;   // per node: packets waiting to start
  std::vector<std::optional<unsigned>> cur;  // per (node, vc): packet being injected
  std::vector<unsigned> cur_flit, cred;      // per (node, vc)
  std::vector<int> ej_pkt;                   // per (node, vc): packet being ejected
  std::vector<unsigned> ej_idx;
  std::vector<unsigned> ej_credit_next;      // per node: VC to credit next cycle (+1; 0 none)
  std::map<std::uint64_t, unsigned> next_seq, expect_seq;  // (src, dst, vc) -> sequence
  std::size_t delivered = 0;
  std::uint64_t flits_in = 0, flits_out = 0, lat_sum = 0, lat_n = 0, hops_sum = 0, measure_from = 0;
  unsigned corrupt_packet = ~0u;  ///< self-test: the scoreboard expects this packet's last flit altered
  double p_bad = 0;               ///< share of packets sent to a chip id that does not exist
  double p_flip = 0;              ///< chance per link and cycle that its wire has one bit inverted
  std::uint64_t flips = 0;
  std::size_t bad = 0;            ///< packets sent to such ids (never delivered)
  Clock::HookId hook;

  explicit NetBench(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(params_of(e)),
        model(prm),
        lockstep(e, clk, model),
        rng(e.rng("traffic")) {
    n = model.nodes();
    queue.resize(n);
    cur.resize(n * prm.v);
    cur_flit.assign(n * prm.v, 0);
    cred.assign(n * prm.v, prm.d);
    ej_pkt.assign(n * prm.v, -1);
    ej_idx.assign(n * prm.v, 0);
    ej_credit_next.assign(n, 0);
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~NetBench() { clk.remove_hook(hook); }

  unsigned hops(unsigned a, unsigned b) const {
    auto ring = [](unsigned u, unsigned v, unsigned k) { const unsigned d = (v + k - u) % k; return std::min(d, k - d); };
    return ring(a % prm.kx, b % prm.kx, prm.kx) + ring(a / prm.kx, b / prm.kx, prm.ky);
  }
  unsigned dest(unsigned s) {
    const unsigned x = s % prm.kx, y = s / prm.kx;
    switch (pattern) {
      case Pattern::transpose: return x * prm.kx + y;
      case Pattern::bitcomp: return (n - 1) ^ s;
      case Pattern::hotspot: return rng.chance(0.2) ? 0 : static_cast<unsigned>(rng.below(n));
      case Pattern::neighbour: return y * prm.kx + (x + 1) % prm.kx;
      default: return static_cast<unsigned>(rng.below(n));
    }
  }
  void new_packet(unsigned s) {
    Pkt k;
    k.id = static_cast<unsigned>(pkts.size());
    k.src = s;
    k.dst = dest(s);
    if (rng.chance(p_bad)) {
      k.dst = static_cast<unsigned>(rng.range(n, 255));
      ++bad;
    }
    k.vc = static_cast<unsigned>(rng.below(prm.v));
    k.born = clk.cycle();
    const std::uint64_t key = (std::uint64_t{k.src} << 32) | (k.dst << 8) | k.vc;
    k.seq = next_seq[key]++;
    const unsigned len = static_cast<unsigned>(rng.range(1, 4));
    const Head h{k.dst, k.src, static_cast<unsigned>(rng.below(4)), len};
    k.flits = packet_flits(rng, prm.w, k.id, h);
    queue[s].push_back(k.id);
    pkts.push_back(std::move(k));
  }

  void serve() {
    if (!(rst.get() & 1)) return;
    const Bits mv = env.sig("mon_valid_o").bits(), lr = env.sig("link_ready_o").bits();
    for (unsigned l = 0; l < 4 * n; ++l)
      check(!mv.bit(l) || lr.bit(l), "cycle {}: router {} sent on link port {} while the link's replay buffer was full",
            clk.cycle(), l / 4, l % 4 + 1);
    const unsigned V = prm.v, vb = model.vb(), w = prm.w;
    const Bits ic = env.sig("inj_credit_o").bits(), icv = env.sig("inj_credit_vc_o").bits();
    const Bits ev = env.sig("ej_valid_o").bits(), evc = env.sig("ej_vc_o").bits(), ef = env.sig("ej_flit_o").bits();
    for (unsigned r = 0; r < n; ++r) {
      if (ic.bit(r)) ++cred[r * V + icv.slice(r * vb, vb)];
      ej_credit_next[r] = 0;
      if (!ev.bit(r)) continue;
      const unsigned v = static_cast<unsigned>(evc.slice(r * vb, vb)), j = r * V + v;
      ej_credit_next[r] = v + 1;
      Bits f(w);
      for (unsigned b = 0; b < w; ++b) f.set_bit(b, ef.bit(r * w + b));
      ++flits_out;
      const auto [id, idx] = tag_of(f);
      check(id < pkts.size(), "cycle {}: node {} ejected a flit of unknown packet {}", clk.cycle(), r, id);
      const Pkt& k = pkts[id];
      const Kind kind = kind_of(f);
      if (kind == Kind::head || kind == Kind::single) {
        check(ej_pkt[j] < 0, "cycle {}: node {} VC {}: packet {} starts inside packet {}", clk.cycle(), r, v, id, ej_pkt[j]);
        check(k.dst == r, "cycle {}: packet {} for node {} delivered at node {}", clk.cycle(), id, k.dst, r);
        const std::uint64_t key = (std::uint64_t{k.src} << 32) | (k.dst << 8) | k.vc;
        check(k.seq == expect_seq[key], "cycle {}: packet {} ({} -> {}, VC {}) is number {} of its flow, expected {}: "
              "lost, duplicated or reordered", clk.cycle(), id, k.src, k.dst, k.vc, k.seq, expect_seq[key]);
        ++expect_seq[key];
        ej_pkt[j] = static_cast<int>(id);
        ej_idx[j] = 0;
      }
      Bits want = k.flits[idx];
      if (id == corrupt_packet && idx + 1 == k.flits.size()) want.flip_bit(40);
      check(ej_pkt[j] == static_cast<int>(id) && idx == ej_idx[j] && f == want,
            "cycle {}: node {} VC {}: flit {} of packet {} out of order, foreign or corrupted", clk.cycle(), r, v, idx, id);
      ++ej_idx[j];
      if (kind == Kind::tail || kind == Kind::single) {
        check(ej_idx[j] == k.flits.size(), "cycle {}: packet {} ended after {} of {} flits", clk.cycle(), id, ej_idx[j],
              k.flits.size());
        ej_pkt[j] = -1;
        ++delivered;
        if (k.born >= measure_from) {
          lat_sum += clk.cycle() - k.born;
          hops_sum += hops(k.src, k.dst);
          ++lat_n;
        }
      }
    }
  }

  void drive() {
    const unsigned V = prm.v, vb = model.vb(), w = prm.w;
    TorusNet::In in = model.make_in();
    for (unsigned r = 0; r < n; ++r) {
      if (injecting && rng.chance(load / 2.5)) new_packet(r);  // 2.5 flits per packet on average
      // start queued packets on free VCs of their choice
      if (!queue[r].empty()) {
        const unsigned id = queue[r].front(), j = r * V + pkts[id].vc;
        if (!cur[j]) {
          cur[j] = id;
          cur_flit[j] = 0;
          queue[r].pop_front();
        }
      }
      std::vector<unsigned> ready;
      for (unsigned v = 0; v < V; ++v)
        if (cur[r * V + v] && cred[r * V + v] > 0) ready.push_back(v);
      if (!ready.empty()) {
        const unsigned v = ready[rng.below(ready.size())], j = r * V + v;
        const Pkt& k = pkts[*cur[j]];
        in.inj_valid_i.set_bit(r, true);
        in.inj_vc_i.set_slice(r * vb, vb, v);
        for (unsigned b = 0; b < w; ++b) in.inj_flit_i.set_bit(r * w + b, k.flits[cur_flit[j]].bit(b));
        --cred[j];
        ++flits_in;
        if (++cur_flit[j] == k.flits.size()) cur[j].reset();
      }
      if (ej_credit_next[r]) {
        in.ej_credit_i.set_bit(r, true);
        in.ej_credit_vc_i.set_slice(r * vb, vb, ej_credit_next[r] - 1);
      }
    }
    for (unsigned l = 0; l < 4 * n; ++l)
      if (p_flip > 0 && rng.chance(p_flip)) {
        in.flip_i.set_bit(l, true);
        in.flip_bit_i.set_slice(l * model.fb(), model.fb(), rng.below(model.wire_bits()));
        ++flips;
      }
    drive_inputs(env, model, in, "", "rst_ni");
  }
  /// The sum over all links of a 32-bit counter output.
  std::uint64_t link_sum(const char* port) const {
    const Bits b = env.sig(port).bits();
    std::uint64_t s = 0;
    for (unsigned l = 0; l < 4 * n; ++l) s += b.slice(32 * l, 32);
    return s;
  }

  Task<> start() {
    TorusNet::In in = model.make_in();
    drive_inputs(env, model, in, "", "rst_ni");
    clk.start();
    lockstep.start();
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
    injecting = false;
    const std::uint64_t c0 = clk.cycle();
    while (delivered + bad < pkts.size()) {
      check(clk.cycle() - c0 < bound, "{} of {} packets delivered {} cycles after injection stopped: deadlock or loss",
            delivered, pkts.size() - bad, bound);
      drive();
      co_await RisingEdge(clk.signal());
    }
    co_return clk.cycle() - c0;
  }
  /// Offer `load` with `pattern` for `warm` + `c` cycles; return accepted flits/node/cycle and mean
  /// latency (cycles from creation to the tail's ejection) of the packets created after warm-up.
  Task<std::pair<double, double>> measure(Pattern p, double l, std::uint64_t warm, std::uint64_t c) {
    pattern = p;
    load = l;
    injecting = true;
    co_await cycles(warm);
    measure_from = clk.cycle();
    lat_sum = lat_n = hops_sum = 0;
    const std::uint64_t f0 = flits_out;
    co_await cycles(c);
    const double thr = static_cast<double>(flits_out - f0) / static_cast<double>(c * n);
    co_await drain(20000 + 4 * c);
    co_return std::make_pair(thr, lat_n ? static_cast<double>(lat_sum) / lat_n : 0.0);
  }
};

Task<> patterns_test(Env& env, std::uint64_t c) {
  NetBench t(env);
  co_await t.start();
  for (Pattern p : {Pattern::uniform, Pattern::transpose, Pattern::bitcomp, Pattern::hotspot, Pattern::neighbour})
    for (double l : {0.05, 0.25, 0.8}) {
      const auto r = co_await t.measure(p, l, 100, c);
      info("{} load {:.2f}: accepted {:.3f} flits/node/cycle, mean latency {:.1f} cycles", pattern_name(p), l, r.first,
           r.second);
    }
  check(t.delivered > 0, "no packet was delivered: the test shows nothing");
  info("{} packets delivered, every one once, whole, in order", t.delivered);
}

}  // namespace

TRN_TEST(traffic_patterns, .timeout_ns = 1e12) {
  // Uniform, transpose, bit-complement, hotspot and nearest-neighbour traffic at low, medium and
  // saturating loads; after each, injection stops and every packet must drain.
  co_await patterns_test(env, env_count("NET_CYCLES", 400));
}

TRN_TEST(saturation_drains, .timeout_ns = 1e12) {
  // Uniform traffic offered above saturation for several thousand cycles, then stopped: every
  // packet must be delivered within a bound (no deadlock: the dateline classes at work).
  NetBench t(env);
  co_await t.start();
  t.pattern = Pattern::uniform;
  t.load = 1.0;
  t.injecting = true;
  co_await t.cycles(env_count("NET_CYCLES", 4000));
  const std::size_t created = t.pkts.size();
  const std::uint64_t took = co_await t.drain(50000);
  info("{} packets created at saturation; the last of them delivered {} cycles after injection stopped", created, took);
}

TRN_TEST(bad_destination_dropped, .timeout_ns = 1e12) {
  // One packet in ten is addressed to a chip id that does not exist (16..255). Each is dropped at
  // injection, its credits returned, and counted by its source's router; the rest are delivered
  // and the network never wedges, also at saturation.
  NetBench t(env);
  t.p_bad = 0.1;
  co_await t.start();
  for (double l : {0.2, 1.0}) co_await t.measure(Pattern::uniform, l, 0, 1000);
  const Bits cnt = t.env.sig("bad_dst_o").bits();
  std::uint64_t counted = 0;
  for (unsigned r = 0; r < t.n; ++r) counted += cnt.slice(16 * r, 16);
  info("{} packets to non-existent chips, {} counted as dropped; {} others delivered", t.bad, counted, t.delivered);
  check(t.bad > 0, "no packet to a bad chip id was sent");
  check(counted == t.bad, "{} packets to bad chip ids sent, {} counted as dropped", t.bad, counted);
}

TRN_TEST(link_errors, .timeout_ns = 1e12) {
  // Every link's wire corrupted at random (1 % of link-cycles; 5 % with LINK_HEAVY=1) under
  // uniform and hotspot traffic up to saturation: nothing lost, duplicated, reordered or
  // corrupted, and the link counters show the errors and the replays.
  NetBench t(env);
  t.p_flip = env_count("LINK_HEAVY", 0) ? 0.05 : 0.01;
  co_await t.start();
  for (Pattern p : {Pattern::uniform, Pattern::hotspot})
    for (double l : {0.2, 0.8}) {
      const auto r = co_await t.measure(p, l, 100, 600);
      info("{} load {:.1f} with link errors: accepted {:.3f}, latency {:.1f}", pattern_name(p), l, r.first, r.second);
    }
  const std::uint64_t crc = t.link_sum("link_crc_err_o"), rep = t.link_sum("link_replay_o"),
                      to = t.link_sum("link_timeout_o");
  info("{} packets delivered intact; {} wire bits inverted, {} flits dropped for their CRC, {} replays on nack, {} on "
       "timeout", t.delivered, t.flips, crc, rep, to);
  check(crc > 0 && rep + to > 0, "no CRC error or replay seen although {} bits were inverted", t.flips);
}

TRN_TEST(selftest_scoreboard_catches_corrupted_flit, .timeout_ns = 1e12, .expect_fail = true) {
  expect_failure([](const TestFailure& f) {
    const std::string m = f.what();
    check(m.find("out of order, foreign or corrupted") != std::string::npos, "wrong failure: {}", m);
  });
  NetBench t(env);
  t.corrupt_packet = 30;
  co_await t.start();
  co_await t.measure(Pattern::uniform, 0.2, 0, 500);
}

TRN_TEST(throughput) {
  // make bench: zero-load latency against hops x 3 cycles + serialization, and accepted throughput
  // against offered load for every pattern; CSV to $NET_CSV when set.
  NetBench t(env);
  co_await t.start();
  const auto z = co_await t.measure(Pattern::uniform, 0.01, 50, 3000);
  const double hops = t.lat_n ? static_cast<double>(t.hops_sum) / t.lat_n : 0;
  fmt::print("bench: figure torus 4x4 zero-load latency {:.1f} cycles at {:.2f} mean hops: 3 x (hops + 1) router "
             "+ 3 x hops link + 1.5 serialization = {:.1f} predicted\n", z.second, hops, 3 * (hops + 1) + 3 * hops + 1.5);
  std::string csv = "pattern,offered,accepted,latency\n";
  for (Pattern p : {Pattern::uniform, Pattern::transpose, Pattern::bitcomp, Pattern::hotspot, Pattern::neighbour}) {
    std::string row;
    for (double l : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0}) {
      const auto r = co_await t.measure(p, l, 200, 1000);
      row += fmt::format(" {:.2f}:{:.3f}/{:.0f}", l, r.first, r.second);
      csv += fmt::format("{},{:.2f},{:.4f},{:.1f}\n", pattern_name(p), l, r.first, r.second);
    }
    fmt::print("bench: figure torus 4x4 {:>17} offered:accepted/latency{}\n", pattern_name(p), row);
  }
  // throughput lost to link errors: uniform traffic at saturation, error-free against 1e-4 and
  // 1e-3 of link-cycles corrupted
  std::string loss;
  double base = 0;
  for (double pf : {0.0, 1e-4, 1e-3}) {
    t.p_flip = pf;
    const auto r = co_await t.measure(Pattern::uniform, 1.0, 200, 3000);
    if (pf == 0) base = r.first;
    loss += fmt::format("  {:.0e}: {:.3f} ({:+.1f}%)", pf, r.first, base > 0 ? 100 * (r.first / base - 1) : 0.0);
  }
  t.p_flip = 0;
  fmt::print("bench: figure torus 4x4 uniform saturation throughput with link errors (per link-cycle):{}\n", loss);
  if (const char* path = std::getenv("NET_CSV")) {
    std::FILE* f = std::fopen(path, "w");
    check(f != nullptr, "cannot write NET_CSV={}", path);
    std::fputs(csv.c_str(), f);
    std::fclose(f);
  }
  BenchTimer timer;
  const std::uint64_t c0 = t.clk.cycle();
  t.pattern = Pattern::uniform;
  t.load = 0.3;
  t.injecting = true;
  co_await t.cycles(bench_cycles(20000) / 4);
  timer.report(t.clk.cycle() - c0);
}

TRN_BENCH_MAIN(Vtorus_net, TRN_BENCH_NAME)
