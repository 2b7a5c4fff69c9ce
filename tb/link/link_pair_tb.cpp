// Bench for rtl/link/link_pair.sv (a NeuronLink link's sender and receiver) in lockstep with
// trn::link::LinkPair. The channel model closes the loop: flits from tx_* reach rx_* after a fixed
// latency, each corrupted with a seeded probability (one to three bit flips anywhere in sequence
// number, payload or CRC); acknowledgements from rack_*/rnack_* reach ack_*/nack_* after the same
// latency, each lost with a seeded probability. The scoreboard checks that the receiver delivers
// the offered payloads exactly once, in order and intact. Functional coverage (LinkCover): replays
// by cause, the replay buffer's fill, sequence numbers wrapping, acknowledgements stale or lost,
// corrupted flits by field and bit count, the receiver's drops.
#include <bit>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "link/link.hpp"
#include "link_pair_ports.hpp"

using namespace trn;
using namespace trn::tb;
using trn::link::LinkPair;

namespace {

/// The bench build whose receiver ignores the CRC (CheckCrc = 0), for the self-test.
constexpr bool kBroken = std::string_view(TRN_BENCH_NAME) == "link_nocrc";

LinkPair::Params params_of(const Env& e) {
  const auto& a = e.cfg().arch;
  return LinkPair::Params{a.link_flit_bits, a.link_replay_depth, a.link_timeout, !kBroken};
}

/// Functional coverage of the link (docs/link.md), sampled by LinkBench every cycle from the DUT's
/// ports and from what the bench's channel did. (The broken build, link_nocrc, runs only its
/// self-test, and a run of self-tests writes no coverage: the harness.)
struct LinkCover {
  CoverPoint& replay;      ///< a replay started (replays_o / timeouts_o counted): cause x held_o then
  CoverPoint& fill;        ///< held_o against Depth, every cycle
  CoverPoint& seq_wrap;    ///< the sequence number wraps: on the wire (tx_seq_o max, then 0), at delivery
  CoverPoint& ack_in;      ///< an ack on ack_* (no nack beside it): moves the sender's window, or stale
  CoverPoint& ack_lost;    ///< the channel lost an acknowledgement: an ack, a nack
  CoverPoint& wire_field;  ///< a flit the channel corrupted: each field its inverted bits are in
  CoverPoint& wire_bits;   ///< a flit the channel corrupted: how many of its bits differ
  CoverPoint& rx_drop;     ///< the receiver dropped a flit (crc_errors_o / drops_o counted)
  Signal &held, &replays, &timeouts, &crc_errors, &drops, &tx_valid, &tx_seq, &out_valid, &ack_valid, &ack_seq,
      &nack_valid;
  /// The counters and held_o of the last cycle sampled, and the last sequence number on the wire;
  /// the first cycle only records them (the DUT may not have been reset yet).
  bool primed = false, tx_seen = false;
  std::uint64_t replays_q = 0, timeouts_q = 0, crc_q = 0, drops_q = 0, held_q = 0, tx_seq_q = 0;

  LinkCover(Env& e, const std::string& b)
      : replay(cover_cross(b + ".replay.cause", {{"nack", "timeout"}, {"not_full", "full"}})),
        fill(cover_point(b + ".replay.fill", {"empty", "between", "full"})),
        seq_wrap(cover_point(b + ".seq_wrap", {"sent", "delivered"})),
        ack_in(cover_point(b + ".ack_in", {"advances", "stale"})),
        ack_lost(cover_point(b + ".ack_lost", {"ack", "nack"})),
        wire_field(cover_point(b + ".wire_error.field", {"payload", "seq", "crc"})),
        wire_bits(cover_point(b + ".wire_error.bits", {"1", "2", "3"})),
        rx_drop(cover_point(b + ".rx_drop", {"crc_error", "out_of_sequence"})),
        held(e.sig("held_o")),
        replays(e.sig("replays_o")),
        timeouts(e.sig("timeouts_o")),
        crc_errors(e.sig("crc_errors_o")),
        drops(e.sig("drops_o")),
        tx_valid(e.sig("tx_valid_o")),
        tx_seq(e.sig("tx_seq_o")),
        out_valid(e.sig("out_valid_o")),
        ack_valid(e.sig("ack_valid_i")),
        ack_seq(e.sig("ack_seq_i")),
        nack_valid(e.sig("nack_valid_i")) {}
};

struct Channel {
  unsigned latency = 3;
  double p_flit_error = 0;            ///< chance that a flit is corrupted
  double p_ack_loss = 0;              ///< chance that an acknowledgement (ack or nack) is lost
  std::optional<double> p_nack_loss;  ///< chance that a nack is lost (unset: p_ack_loss)
  unsigned back_extra = 0;            ///< cycles an acknowledgement takes beyond `latency`
  double p_offer = 1.0;               ///< chance that the source offers a flit in a cycle
};

struct LinkBench {
  Env& env;
  Signal& rst;
  Clock clk;
  LinkPair::Params prm;
  LinkPair model;
  Lockstep<LinkPair> lockstep;
  Channel ch;
  Rng rng;
  struct Flit {
    std::uint64_t due;
    std::uint64_t seq;
    Bits data;
    std::uint64_t crc;
  };
  struct Ack {
    std::uint64_t due;
    bool nack;
    std::uint64_t seq;
  };
  std::deque<Flit> fwd;
  std::deque<Ack> back;
  std::vector<Bits> sent;  ///< every payload the sender accepted, in order
  std::size_t delivered = 0;
  std::uint64_t corrupted = 0, acks_lost = 0, cycles = 0;
  std::optional<Bits> offer;
  bool took = false;
  LinkCover cov;  ///< functional coverage
  Clock::HookId hook;

  explicit LinkBench(Env& e, Channel c)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(params_of(e)),
        model(prm),
        lockstep(e, clk, model),
        ch(c),
        rng(e.rng("channel")),
        cov(e, TRN_BENCH_NAME) {
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~LinkBench() { clk.remove_hook(hook); }

  std::uint64_t get(const char* n) const { return env.sig(n).get(); }

  /// The settled outputs of the cycle that ends: the source handshake, the receiver's deliveries
  /// (the scoreboard), and what enters the two channels.
  void serve() {
    if (!(rst.get() & 1)) return;
    ++cycles;
    const std::uint64_t now = clk.cycle();
    cover_cycle();  // before this cycle's flit is counted in sent and delivered
    took = offer && (get("in_ready_o") & 1);
    if (took) sent.push_back(*offer);
    if (get("out_valid_o") & 1) {
      const Bits d = env.sig("out_data_o").bits();
      check(delivered < sent.size(), "cycle {}: flit {} delivered, but only {} were sent (a duplicate)", now, delivered,
            sent.size());
      check(d == sent[delivered], "cycle {}: flit {} delivered corrupted or out of order: {}, sent {}", now, delivered,
            d.hex(), sent[delivered].hex());
      ++delivered;
    }
    if (get("tx_valid_o") & 1) {
      Flit f{now + ch.latency, get("tx_seq_o"), env.sig("tx_data_o").bits(), get("tx_crc_o")};
      if (rng.chance(ch.p_flit_error)) {
        ++corrupted;
        const unsigned sb = model.sb(), total = sb + prm.w + 16;
        const Flit sent_f = f;
        for (unsigned k = 0, n = static_cast<unsigned>(rng.range(1, 3)); k < n; ++k) {
          const unsigned b = static_cast<unsigned>(rng.below(total));
          if (b < prm.w)
            f.data.flip_bit(b);
          else if (b < prm.w + sb)
            f.seq ^= std::uint64_t{1} << (b - prm.w);
          else
            f.crc ^= std::uint64_t{1} << (b - prm.w - sb);
        }
        cover_wire(sent_f, f);
      }
      fwd.push_back(std::move(f));
    }
    for (bool nack : {false, true}) {
      if (!(get(nack ? "rnack_valid_o" : "rack_valid_o") & 1)) continue;
      if (rng.chance(nack && ch.p_nack_loss ? *ch.p_nack_loss : ch.p_ack_loss)) {
        ++acks_lost;
        cov.ack_lost.hit_index(nack ? 1 : 0);
        continue;
      }
      back.push_back(Ack{now + ch.latency + ch.back_extra, nack, get(nack ? "rnack_seq_o" : "rack_seq_o")});
    }
  }

  /// Coverage of a flit the channel corrupted: the fields that differ from what was sent, and how
  /// many bits (two flips of one bit cancel, so it can be none).
  void cover_wire(const Flit& sent_f, const Flit& got) {
    unsigned payload = 0;
    for (unsigned b = 0; b < prm.w; ++b) payload += sent_f.data.bit(b) != got.data.bit(b);
    const unsigned seq = static_cast<unsigned>(std::popcount(sent_f.seq ^ got.seq)),
                   crc = static_cast<unsigned>(std::popcount(sent_f.crc ^ got.crc)), n = payload + seq + crc;
    if (n == 0) return;
    if (payload) cov.wire_field.hit_index(0);
    if (seq) cov.wire_field.hit_index(1);
    if (crc) cov.wire_field.hit_index(2);
    cov.wire_bits.hit_index(n - 1);
  }

  /// Coverage of the cycle that ends, from the settled ports: the replays and drops the counters
  /// show since the last cycle, the replay buffer, the sequence numbers sent and delivered, and
  /// the ack the sender gets. `sent` and `delivered` do not count this cycle's flits yet.
  void cover_cycle() {
    LinkCover& c = cov;
    const std::uint64_t held = c.held.get(), replays = c.replays.get(), timeouts = c.timeouts.get(),
                        crc = c.crc_errors.get(), drops = c.drops.get();
    const std::uint64_t m = (std::uint64_t{1} << model.sb()) - 1;  // sequence numbers modulo m + 1
    c.fill.hit_index(level_bin(held, prm.depth));
    if (c.primed) {
      // a replay counted now was decided at the last edge, with the buffer of the last cycle
      const std::size_t full = c.held_q >= prm.depth ? 1 : 0;
      if (replays > c.replays_q) c.replay.hit_index(full);        // nack*not_full, nack*full
      if (timeouts > c.timeouts_q) c.replay.hit_index(2 + full);  // timeout*not_full, timeout*full
      if (crc > c.crc_q) c.rx_drop.hit_index(0);
      if (drops > c.drops_q) c.rx_drop.hit_index(1);
    }
    c.primed = true;
    c.replays_q = replays;
    c.timeouts_q = timeouts;
    c.crc_q = crc;
    c.drops_q = drops;
    c.held_q = held;
    if (c.tx_valid.get() & 1) {
      const std::uint64_t seq = c.tx_seq.get();
      if (c.tx_seen && c.tx_seq_q == m && seq == 0) c.seq_wrap.hit_index(0);
      c.tx_seen = true;
      c.tx_seq_q = seq;
    }
    // the receiver delivers in order from 0 after reset (the scoreboard checks it): flit k has
    // sequence number k modulo m + 1
    if ((c.out_valid.get() & 1) && delivered > 0 && (delivered & m) == 0) c.seq_wrap.hit_index(1);
    // An ack the sender is given now: does it move the window? The sender's next sequence number
    // is the count of flits it took (sent), its base that minus held_o; a nack would win.
    if ((c.ack_valid.get() & 1) && !(c.nack_valid.get() & 1)) {
      const std::uint64_t base = (sent.size() - held) & m, d = (c.ack_seq.get() + 1 - base) & m;
      c.ack_in.hit_index(d != 0 && d <= held ? 0 : 1);
    }
  }

  /// Drive the inputs of the next cycle: the source's offer and whatever the channels deliver.
  void drive() {
    const std::uint64_t now = clk.cycle();
    if (took) offer.reset();
    took = false;
    if (!offer && source_left > 0 && rng.chance(ch.p_offer)) {
      offer = rng.bits(prm.w);
      --source_left;
    }
    LinkPair::In in = model.make_in();
    in.in_valid_i = offer.has_value();
    if (offer) in.in_data_i = *offer;
    if (!fwd.empty() && fwd.front().due <= now) {
      const Flit& f = fwd.front();
      in.rx_valid_i = true;
      in.rx_seq_i = f.seq;
      in.rx_data_i = f.data;
      in.rx_crc_i = f.crc;
      fwd.pop_front();
    }
    while (!back.empty() && back.front().due <= now) {
      const Ack& a = back.front();
      (a.nack ? in.nack_valid_i : in.ack_valid_i) = true;
      (a.nack ? in.nack_seq_i : in.ack_seq_i) = a.seq;
      back.pop_front();
    }
    drive_inputs(env, model, in, "in_");
    drive_inputs(env, model, in, "rx_");
    drive_inputs(env, model, in, "ack_");
    drive_inputs(env, model, in, "nack_");
  }

  std::uint64_t source_left = 0;
  bool with_model = true;  ///< lockstep with the model (the self-test runs the scoreboard alone)

  Task<> start() {
    LinkPair::In in = model.make_in();
    drive_inputs(env, model, in, "in_");
    drive_inputs(env, model, in, "rx_");
    drive_inputs(env, model, in, "ack_");
    drive_inputs(env, model, in, "nack_");
    clk.start();
    if (with_model) lockstep.start();
    co_await reset_dut(clk, rst);
  }
  /// Send n random flits through the link; wait until all are delivered (or fail after `limit`
  /// cycles). Returns the cycles taken.
  Task<std::uint64_t> send(std::uint64_t n, std::uint64_t limit) {
    source_left = n;
    const std::size_t want = sent.size() + n;
    const std::uint64_t c0 = clk.cycle();
    while (delivered < want || offer) {
      check(clk.cycle() - c0 < limit, "{} of {} flits delivered after {} cycles (held {}, replays {}, timeouts {})",
            delivered, want, limit, get("held_o"), get("replays_o"), get("timeouts_o"));
      drive();
      co_await RisingEdge(clk.signal());
    }
    co_return clk.cycle() - c0;
  }
  /// After the last delivery the link drains: the sender's replay buffer empties (every flit
  /// acknowledged, through lost acknowledgements and replays) within `limit` cycles, and then the
  /// sender stays silent with nothing held and no timeout for two timeouts and a round trip. A
  /// sender that never frees its buffer, or keeps resending delivered flits, passes the scoreboard;
  /// this is what sees it.
  Task<> drain(std::uint64_t limit) {
    const std::uint64_t c0 = clk.cycle();
    while (get("held_o") != 0) {
      check(clk.cycle() - c0 < limit,
            "the link did not drain: {} flits still held {} cycles after the last delivery (replays {}, timeouts {})",
            get("held_o"), clk.cycle() - c0, get("replays_o"), get("timeouts_o"));
      drive();
      co_await RisingEdge(clk.signal());
    }
    for (int i = 0; i < 2; ++i) {  // a flit sent as the last acknowledgement came is still on the wire
      drive();
      co_await RisingEdge(clk.signal());
    }
    const std::uint64_t timeouts = get("timeouts_o"), quiet = 2 * prm.timeout + 2 * ch.latency + 8;
    for (std::uint64_t i = 0; i < quiet; ++i) {
      check(get("held_o") == 0 && !(get("tx_valid_o") & 1) && get("timeouts_o") == timeouts,
            "the drained link is not quiet {} cycles on: {} flits held, tx_valid_o {}, {} timeouts since", i,
            get("held_o"), get("tx_valid_o") & 1, get("timeouts_o") - timeouts);
      drive();
      co_await RisingEdge(clk.signal());
    }
  }
  void report(const char* what) const {
    info(
        "{}: {} flits delivered in {} cycles; {} corrupted on the wire, {} acknowledgements lost; receiver: {} CRC "
        "errors, {} out-of-sequence drops; sender: {} replays on nack, {} on timeout",
        what, delivered, cycles, corrupted, acks_lost, env.sig("crc_errors_o").get(), env.sig("drops_o").get(),
        env.sig("replays_o").get(), env.sig("timeouts_o").get());
  }
};

Channel random_channel(Env& env, double p_err) {
  Rng r = env.rng("setup");
  Channel c;
  c.latency = static_cast<unsigned>(r.range(1, 8));
  c.p_flit_error = p_err;
  c.p_ack_loss = r.chance(0.5) ? 0.05 : 0.0;
  c.p_offer = r.chance(0.5) ? 1.0 : 0.5;
  return c;
}

}  // namespace

TRN_TEST(clean_link, .timeout_ns = 1e10) {
  // No errors: every flit once, in order, no replay and no drop.
  LinkBench t(env, Channel{2, 0, 0, 1.0});
  co_await t.start();
  co_await t.send(scaled(1000), scaled(20000));
  co_await t.drain(1000 * (t.prm.timeout + 2 * t.ch.latency + 8));
  t.report("clean link");
  check(t.get("replays_o") == 0 && t.get("timeouts_o") == 0 && t.get("crc_errors_o") == 0 && t.get("drops_o") == 0,
        "a clean link replayed or dropped flits");
}

TRN_TEST(bit_errors, .timeout_ns = 1e10) {
  // 2 % of flits corrupted, random latency, sometimes lost acknowledgements: nothing lost,
  // duplicated, reordered or corrupted, and the counters show the errors were seen and repaired.
  LinkBench t(env, random_channel(env, 0.02));
  info("channel: latency {}, flit error rate {}, acknowledgement loss {}, offer rate {}", t.ch.latency,
       t.ch.p_flit_error, t.ch.p_ack_loss, t.ch.p_offer);
  co_await t.start();
  co_await t.send(scaled(env_count("LINK_FLITS", 3000)), scaled(400000));
  co_await t.drain(1000 * (t.prm.timeout + 2 * t.ch.latency + 8));
  t.report("bit errors");
  check(t.corrupted > 0, "the channel corrupted no flit: the test shows nothing");
  check(t.get("crc_errors_o") > 0, "the receiver saw no CRC error although {} flits were corrupted", t.corrupted);
  check(t.get("replays_o") + t.get("timeouts_o") > 0, "no replay although flits were dropped");
}

TRN_TEST(heavy_errors, .timeout_ns = 1e10) {
  // One flit in five corrupted and one acknowledgement in ten lost.
  Channel c = random_channel(env, 0.2);
  c.p_ack_loss = 0.1;
  LinkBench t(env, c);
  co_await t.start();
  co_await t.send(scaled(500), scaled(400000));
  co_await t.drain(1000 * (t.prm.timeout + 2 * t.ch.latency + 8));
  t.report("heavy errors");
  check(t.get("crc_errors_o") > 0 && t.get("replays_o") > 0, "no CRC error or replay at a 20 % flit error rate");
}

TRN_TEST(nack_acknowledges_everything, .timeout_ns = 1e10) {
  // Every ack lost, no nack: the sender times out and replays flits the receiver has delivered;
  // the receiver drops the first and asks for the flit after the last it delivered. That nack
  // names the sender's next sequence number, so it acknowledges everything: the window empties
  // (one replay counted) and nothing is delivered twice. With one flit held and with several.
  for (const std::uint64_t want : {std::uint64_t{1}, std::uint64_t{4}}) {
    Channel c{2, 0, 1.0, 1.0};
    c.p_nack_loss = 0;
    LinkBench t(env, c);
    co_await t.start();
    const std::uint64_t n = std::min<std::uint64_t>(want, t.prm.depth);
    co_await t.send(n, 10000);
    check(t.get("held_o") == n, "{} flits delivered with every ack lost, but the sender holds {}", n, t.get("held_o"));
    co_await t.drain(20 * (t.prm.timeout + 2 * c.latency + 8));
    check(t.get("timeouts_o") >= 1 && t.get("replays_o") >= 1,
          "{} flits: the window emptied without a timeout and a nack ({} timeouts, {} replays)", n, t.get("timeouts_o"),
          t.get("replays_o"));
  }
}

TRN_TEST(ack_at_every_timer_phase, .timeout_ns = 1e10) {
  // A clean link whose round trip sweeps past the timeout a cycle at a time, so that an
  // acknowledgement arrives at every count of the sender's timer, the timeout's own cycle
  // included (where the ack must win: no timeout counted); the model in lockstep says what each
  // cycle must show, and the link drains every time.
  const unsigned t_out = params_of(env).timeout;
  for (unsigned lat = 1; lat <= t_out / 2 + 2; ++lat)
    for (const unsigned extra : {0u, 1u}) {
      Channel c{lat, 0, 0, 1.0};
      c.back_extra = extra;
      LinkBench t(env, c);
      co_await t.start();
      co_await t.send(2, 20 * (t_out + 2 * lat + 8));
      co_await t.drain(20 * (t_out + 2 * lat + 8));
    }
}

TRN_TEST(selftest_corruption_is_caught, .timeout_ns = 1e10, .expect_fail = true) {
  // Runs on the link_nocrc build, whose receiver ignores the CRC: a corrupted payload is
  // delivered, and the scoreboard must say so.
  if (!kBroken) throw HarnessError("selftest_corruption_is_caught runs on the link_nocrc build");
  expect_failure([](const TestFailure& f) {
    const std::string m = f.what();
    check(m.find("delivered corrupted or out of order") != std::string::npos, "wrong failure: {}", m);
  });
  LinkBench t(env, Channel{2, 0.05, 0, 1.0});
  t.with_model = false;
  co_await t.start();
  co_await t.send(2000, 100000);
}

TRN_TEST(throughput) {
  // make bench: delivered flits per cycle with the source always offering, against the flit error
  // rate and the channel latency; a flit holds its replay-buffer slot for a round trip of 2 x latency + 4 cycles.
  fmt::print("bench: figure link goodput (flits/cycle), replay buffer {} flits, flit error rate x channel latency\n",
             params_of(env).depth);
  for (double p : {0.0, 1e-4, 1e-3, 1e-2, 1e-1}) {
    std::string row;
    for (unsigned lat : {1u, 2u, 4u, 8u}) {
      LinkBench t(env, Channel{lat, p, 0, 1.0});
      co_await t.start();
      const std::uint64_t n = 20000;
      const std::uint64_t cyc = co_await t.send(n, 100 * n);
      row += fmt::format("  L={}: {:.3f}", lat, static_cast<double>(n) / static_cast<double>(cyc));
    }
    fmt::print("bench: figure link   error rate {:7.0e}:{}\n", p, row);
  }
  LinkBench t(env, Channel{2, 1e-3, 0, 1.0});
  co_await t.start();
  const std::uint64_t want = bench_cycles(20000);
  BenchTimer timer;
  const std::uint64_t c0 = t.clk.cycle();
  co_await t.send(want, 100 * want);
  timer.report(t.clk.cycle() - c0);
}

TRN_BENCH_MAIN(Vlink_pair, TRN_BENCH_NAME)
