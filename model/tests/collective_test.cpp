// Boost.Test units of model/collective: every algorithm x operation on rings and tori of 2, 3, 4, 8
// and 16 chips and on switch domains of 4, 8 and 64 chips ends with exactly the plain reference's
// data, at the flow level and on the cycle-exact chips (the cycle level, on systems with short
// wires); hierarchical groups out of step; the cycle level against the flow level on the same
// chips; its ordering checker catching a semaphore that overtakes its data under write-after-write
// (and a barrier repairing it); a collective under link bit errors; a ring all-reduce at large
// sizes within 5 % of its bound; and the errors for combinations that cannot run.
#include <fmt/format.h>

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "collective/engine.hpp"
#include "system/preset.hpp"
#include "system/system.hpp"

using namespace trn;
using namespace trn::collective;

namespace {

const system::Presets& presets() {
  static const system::Presets p = system::default_presets();
  return p;
}
const system::System& sys(const std::string& key) {
  static std::map<std::string, std::unique_ptr<system::System>> cache;
  auto& s = cache[key];
  if (!s) s = std::make_unique<system::System>(presets(), key);
  return *s;
}

struct Outcome {
  Result r;
  std::string error;  // the Error a combination that cannot run throws
  bool equal = false;
  std::string diff;
};

/// Run `c` with seeded data and compare every rank's output with the reference.
Outcome check(const system::System& s, Config c, std::uint64_t seed = 7) {
  Outcome o;
  try {
    Run run(s, c);
    run.fill(seed);
    std::vector<std::vector<std::uint32_t>> in;
    for (unsigned r = 0; r < run.ranks(); ++r) in.push_back(run.input(r));
    const Algo algo = run.config().algo;
    o.r = run.run();
    const auto want = reference(c.op, algo, c.elem, run.placement().levels, run.seg_elems(), in, run.placement().rings,
                                run.placement().stripes);
    o.equal = true;
    for (unsigned r = 0; r < run.ranks() && o.equal; ++r) {
      const auto got = run.output(r);
      if (got != want[r]) {
        o.equal = false;
        std::size_t i = 0;
        while (i < got.size() && i < want[r].size() && got[i] == want[r][i]) ++i;
        o.diff = fmt::format("rank {} element {}: got {:#x}, want {:#x}", r, i, i < got.size() ? got[i] : 0,
                             i < want[r].size() ? want[r][i] : 0);
      }
    }
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

}  // namespace

namespace {

/// Systems with short wires and HBM latency, so the cycle level runs them in seconds.
const system::System& short_wires(const std::string& key, const std::vector<std::string>& sets) {
  static std::map<std::string, std::unique_ptr<system::System>> cache;
  static std::vector<system::Presets> keep;
  const std::string id = fmt::format("{}{}", key, fmt::join(sets, ";"));
  auto& s = cache[id];
  if (!s) {
    keep.push_back(system::default_presets(sets, key));
    s = std::make_unique<system::System>(keep.back(), key);
  }
  return *s;
}

/// Trainium2 tori: a 2 x 2 of the intra-instance class, a 2 x 2 x 2 whose z links are the
/// inter-instance class (half the rate: its wires carry half a flit a cycle), and the 4 x 4 of
/// trn2-16.
const system::System& small_torus(bool three_d) {
  const std::string key = three_d ? "trn2-us64" : "trn2-16";
  return short_wires(key, {fmt::format("system.{}.topology.dims={}", key, three_d ? "[2,2,2]" : "[2,2]"),
                           "chip.trainium2.hbm_latency_ns=20", "chip.trainium2.links.intra_instance.latency_ns=5",
                           "chip.trainium2.links.inter_instance.latency_ns=10"});
}
const system::System& torus16() {
  return short_wires("trn2-16",
                     {"chip.trainium2.hbm_latency_ns=20", "chip.trainium2.links.intra_instance.latency_ns=5"});
}

/// Switched systems: Trn3's server switches and inter-server planes (2 servers of 2 chips), Trn4's
/// switch planes (4 chips).
const system::System& small_switched(bool trn4) {
  if (trn4)
    return short_wires(
        "trn4-us128", {"system.trn4-us128.topology.chips_per_ultraserver=4", "chip.trainium4.hbm_latency_ns=20",
                       "chip.trainium4.links.neuronlink.latency_ns=5", "system.trn4-us128.topology.switch_latency_ns=5",
                       // the link rate this cross-check was set up with (the preset's 640 GB/s makes a cycle 0.025 ns,
                       // and the mesh all-reduce's local reduce 1.20 times the flow level's: docs/collectives.md)
                       "chip.trainium4.links.neuronlink.gbps=176"});
  return short_wires(
      "trn3-us64",
      {"system.trn3-us64.topology.servers_per_rack=2", "system.trn3-us64.topology.chips_per_server=2",
       "system.trn3-us64.topology.switch_latency_ns=5", "chip.trainium3.hbm_latency_ns=20",
       "chip.trainium3.links.intra_server.latency_ns=5", "chip.trainium3.links.inter_server.latency_ns=10"});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(collectives)

namespace {
struct SysRanks {
  const system::System& s;
  unsigned ranks;
  unsigned chip_ranks = 1;  ///< ranks a chip holds (logical NeuronCores a chip)
};
/// Every algorithm x operation x {FP32, BF16} on each system: the data is the reference's, bit for
/// bit, with no ordering violation; a combination that cannot run says so (and only those documented).
void sweep(Fidelity f, std::initializer_list<SysRanks> systems, std::initializer_list<Elem> elems, unsigned min_ran) {
  unsigned ran = 0, refused = 0;
  for (const SysRanks& sy : systems)
    for (Op op : kOps)
      for (Algo a : kAlgos)
        for (Elem e : elems) {
          Config c;
          c.fidelity = f;
          c.op = op;
          c.algo = a;
          c.elem = e;
          c.ranks = sy.ranks;
          if (f == Fidelity::flow) c.chip_ranks = sy.chip_ranks;
          c.bytes = std::uint64_t{sy.ranks} * 96 * elem_bytes(e);  // 96 elements a segment
          c.chunk = 64 * elem_bytes(e);                            // two instances, the second short
          const Outcome o = check(sy.s, c);
          const std::string what =
              fmt::format("{} on {} ranks of {} ({} chips, {} a chip) by {} ({}, {} level)", op_name(op), sy.ranks,
                          sy.s.preset().key, sy.s.chips(), sy.chip_ranks, algo_name(a), elem_name(e), fidelity_name(f));
          if (!o.error.empty()) {
            ++refused;
            BOOST_TEST_MESSAGE(what << ": " << o.error);
            const bool documented =
                (op == Op::permute && a != Algo::mesh) ||
                (op == Op::all_to_all && (a == Algo::hier || a == Algo::rings)) ||
                (op == Op::all_to_all && a == Algo::rdh && (sy.ranks & (sy.ranks - 1))) ||
                (a == Algo::hier && (sy.ranks < 8 || sy.ranks % 4)) ||
                // striped hierarchies: every rank of a torus or NeuronSwitch system
                (a == Algo::hrings && (op == Op::all_to_all || sy.s.preset().topo.kind == system::TopoKind::planes ||
                                       sy.ranks != sy.s.chips() * sy.chip_ranks)) ||
                // KangaRing: pairs of a chip's ranks (the cycle level's ranks are chips)
                (a == Algo::kangaring &&
                 (op == Op::all_to_all || f == Fidelity::cycle || sy.chip_ranks % 2 || sy.ranks % 2));
            BOOST_TEST(documented, what << " refused: " << o.error);
            continue;
          }
          ++ran;
          BOOST_TEST(o.equal, what << ": " << o.diff);
          BOOST_TEST(o.r.violations.empty(), what);
          BOOST_TEST(o.r.time_ns > 0);
        }
  BOOST_TEST_MESSAGE(fidelity_name(f) << " level: ran " << ran << ", refused " << refused);
  BOOST_TEST(ran >= min_ran);
}
}  // namespace

BOOST_AUTO_TEST_CASE(data_flow_level) {
  sweep(Fidelity::flow,
        {{sys("trn2-16"), 2},
         {sys("trn2-16"), 3},
         {sys("trn2-16"), 4},
         {sys("trn2-16"), 8},
         {sys("trn2-16"), 16},
         {sys("trn3-us64"), 8},
         {sys("trn3-us64"), 64},
         {sys("trn1-16"), 32, 2},     // ranks as NeuronCores: 2 a Trainium chip
         {sys("trn2-16"), 64, 4},     // 4 logical NeuronCores a Trainium2 chip (LNC=2)
         {sys("trn2-16"), 6, 4},      // a chip and a half (KangaRing's pairs)
         {sys("trn3-us64"), 32, 4}},  // 8 chips' ranks
        {Elem::fp32, Elem::bf16}, 428);
}

// The cycle level: every operation by every algorithm compiled into programs and run on the
// cycle-exact chips, on tori of 2 to 16 chips and a switched system of 4 (FP32; BF16's arithmetic is
// the same DMA accumulate, and the cycle-level tests below run it). The 64-chip switch domain is
// left to the flow level: its cycle-level runs take minutes.
BOOST_AUTO_TEST_CASE(data_cycle_level) {
  sweep(Fidelity::cycle,
        {{small_torus(false), 2},
         {small_torus(false), 3},
         {small_torus(false), 4},
         {torus16(), 8},
         {torus16(), 16},
         {small_switched(false), 4}},
        {Elem::fp32}, 70);
}

namespace {
/// Records when each transfer's semaphore lands.
struct Landings : Sink {
  std::map<std::uint32_t, double> at;
  void read(std::uint32_t, std::uint64_t, std::uint64_t, std::uint8_t*) const override {}
  void landed(std::uint32_t, std::uint64_t, std::uint64_t, const std::uint8_t*, bool, double) override {}
  void signalled(std::uint32_t id, double ns) override { at[id] = ns; }
};
/// The flow level's transfers `ds` (one descriptor each) submitted at time 0, run to the end.
std::map<std::uint32_t, double> flow_landings(const std::vector<Desc>& ds, Config c = {}) {
  c.data = false;
  const FlowModel fm(sys("trn2-16"), c);
  auto be = make_flow_backend(fm, c);
  for (const Desc& d : ds) be->submit({d}, 0.0);
  Landings l;
  while (!be->idle()) be->step(l);
  return l.at;
}
}  // namespace

/// A chip's DMA queues to one peer land each in its own issue order and not in each other's: a
/// short transfer issued behind a long one on the same queue lands after it, on another queue
/// before it. The semaphore writes of transfers of one chip that finish together cross its NIC one
/// flit after another; another chip's do not wait for them.
BOOST_AUTO_TEST_CASE(flow_level_queues_and_semaphores) {
  const Desc big{0, 0, 1, 0, 0, 1 << 20, false, false, 0}, small{1, 0, 1, 0, 0, 1024, false, false, 0};
  Desc other = small;
  other.queue = 1;
  const auto same = flow_landings({big, small});
  BOOST_TEST(same.at(1) >= same.at(0));
  const auto apart = flow_landings({big, other});
  BOOST_TEST(apart.at(1) < apart.at(0) / 5);

  const Desc a{0, 0, 1, 0, 0, 4096, false, false, 0}, b{1, 0, 1, 0, 0, 4096, false, false, 1},
      c{2, 2, 3, 0, 0, 4096, false, false, 0}, d{3, 2, 3, 0, 0, 4096, false, false, 1};
  const auto t = flow_landings({a, b, c, d});
  const double flit_ns = 16.0 / 256.0;  // a 16-byte flit on trn2-16's 256 GB/s link (no NIC limit set)
  BOOST_TEST(t.at(1) - t.at(0) == flit_ns, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(t.at(2) == t.at(0), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(t.at(3) == t.at(1), boost::test_tools::tolerance(1e-12));
}

/// The HBM's latency spread at the flow level (Config::read_jitter, the cross-check's setting of the
/// cycle level's --jitter): each transfer draws its read latency uniformly in L (1 +- jitter/2) from
/// the seed; one seed gives one run, and without it every transfer waits the one latency L.
BOOST_AUTO_TEST_CASE(flow_level_read_jitter) {
  const Desc one{0, 0, 1, 0, 0, 64, false, false, 0};
  const double l = sys("trn2-16").design().hbm.at(0).latency_ns;
  Config c;
  const double fixed = flow_landings({one}, c).at(0);
  c.seed = 7;
  BOOST_TEST(flow_landings({one}, c).at(0) == fixed);  // no spread: the seed changes nothing
  c.read_jitter = 0.2;
  double lo = 1e300, hi = -1e300;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    c.seed = seed;
    const double t = flow_landings({one}, c).at(0);
    BOOST_TEST(flow_landings({one}, c).at(0) == t);  // reproducible
    lo = std::min(lo, t - fixed);
    hi = std::max(hi, t - fixed);
  }
  BOOST_TEST_MESSAGE(fmt::format("read latency {} ns, jitter 0.2: {:.2f} .. {:.2f} ns off it", l, lo, hi));
  // within L (1 +- 0.1), and 200 draws reach near both ends
  BOOST_TEST(lo >= -0.1 * l - 1e-9);
  BOOST_TEST(hi <= 0.1 * l + 1e-9);
  BOOST_TEST(lo < -0.09 * l);
  BOOST_TEST(hi > 0.09 * l);
  // transfers issued together draw apart: the four land at different times
  c.seed = 3;
  const auto t = flow_landings({{0, 0, 1, 0, 0, 64, false, false, 0},
                                {1, 2, 3, 0, 0, 64, false, false, 0},
                                {2, 4, 5, 0, 0, 64, false, false, 0},
                                {3, 6, 7, 0, 0, 64, false, false, 0}},
                               c);
  std::set<double> distinct;
  for (const auto& [id, at] : t) distinct.insert(at);
  BOOST_TEST(distinct.size() == 4u);
}

// The alpha-beta bound: on an uncongested ring (a snake through the 4 x 4 torus, one link each) at
// large messages the simulated ring all-reduce is within 5 % of it; it is never beaten by more
// than the pipelining of instances can explain.
BOOST_AUTO_TEST_CASE(ranks_are_logical_neuron_cores) {
  // A rank is a logical NeuronCore (the Neuron runtime's, nccom-test's): 2 a Trainium chip, 4 a
  // Trainium2 chip at its default LNC=2, 8 at LNC=1; consecutive ranks fill a chip, then the next
  // chip of the walk; a hierarchical schedule takes the chip as its first level.
  const system::System& t1 = sys("trn1-16");
  const system::System& t2 = sys("trn2-16");
  const Placement p1 = place(t1, 0, Algo::ring, 2);
  BOOST_TEST(p1.chip.size() == 32u);
  const Placement chips = place(t1, 0, Algo::ring);
  for (unsigned r = 0; r < 32; ++r) {
    BOOST_TEST(p1.chip[r] == chips.chip[r / 2]);
    BOOST_TEST(p1.core[r] == r % 2);
  }
  // hierarchical: the chip's ranks are the innermost level (core c0), then the system's group of
  // chips (trn2-16: an x ring of 4, chip c1 of it), then the groups (gi); rank (c0 4 + c1) 4 + gi.
  // With no group of chips (trn4-us128) the chip is the group, member l its core l
  const Placement h = place(t2, 0, Algo::hier, 4);
  BOOST_TEST(h.levels == (std::vector<unsigned>{4, 4, 4}));
  BOOST_TEST(h.level == "chip, x ring");
  for (unsigned c0 = 0; c0 < 4; ++c0)
    for (unsigned c1 = 0; c1 < 4; ++c1)
      for (unsigned gi = 0; gi < 4; ++gi) {
        const unsigned r = (c0 * 4 + c1) * 4 + gi;
        BOOST_TEST(h.core[r] == c0);
        BOOST_TEST(h.chip[r] == h.chip[c1 * 4 + gi]);  // the same chip for its 4 cores
        BOOST_TEST(h.chip[r] / 4 == gi);               // x ring gi: chips 4 gi .. 4 gi + 3
      }
  std::set<unsigned> chips16;
  for (unsigned r = 0; r < 64; ++r) chips16.insert(h.chip[r] * 4 + h.core[r]);
  BOOST_TEST(chips16.size() == 64u);  // every core of every chip once
  const Placement hc = place(sys("trn4-us128"), 0, Algo::hier, 12);
  BOOST_TEST(hc.levels == (std::vector<unsigned>{12, 128}));
  BOOST_TEST(hc.level == "chip");
  for (unsigned l = 0; l < 12; ++l)
    for (unsigned g = 0; g < 128; ++g) {
      BOOST_TEST(hc.chip[l * 128 + g] == g);  // member l of group g: core l of chip g
      BOOST_TEST(hc.core[l * 128 + g] == l);
    }
  for (const auto& [lnc, ranks] : {std::pair{0u, 64u}, std::pair{2u, 64u}, std::pair{1u, 128u}}) {
    Config c;
    c.bytes = 1 << 20;
    c.lnc = lnc;
    c.data = false;
    BOOST_TEST(Run(t2, c).ranks() == ranks, "--lnc " << lnc);
  }
  // the data of every operation, the intra-chip steps through HBM: every rank equals the reference
  for (Op op : {Op::all_reduce, Op::reduce_scatter, Op::all_gather, Op::all_to_all})
    for (Algo a : {Algo::ring, Algo::hier, Algo::mesh}) {
      if ((op == Op::all_to_all) != (a == Algo::mesh)) continue;
      Config c;
      c.op = op;
      c.algo = a;
      c.bytes = 32 * 1024;
      const Outcome o = check(t1, c);
      BOOST_TEST(o.error.empty(), op_name(op) << " by " << algo_name(a) << ": " << o.error);
      BOOST_TEST(o.equal, op_name(op) << " by " << algo_name(a) << ": " << o.diff);
      BOOST_TEST(o.r.ranks == 32u);
    }
  // two ranks on one chip: the transfers never leave it (its DMA or HBM is the busiest resource)
  Config c;
  c.ranks = 2;
  c.bytes = 64 << 20;
  c.data = false;
  const Result r = Run(t1, c).run();
  BOOST_TEST(
      (r.busiest.find("HBM of") == 0 || r.busiest.find("DMA of") == 0 || r.busiest.find("collective DMA of") == 0),
      r.busiest);
}

/// auto takes the fastest algorithm: at every size, on a torus and on switched systems, with ranks
/// as cores and a rank a chip, with and without the cost model, auto's time is the least of every
/// named algorithm's run alone, and the candidates it reports are those times; a candidate left out
/// for its latency floor is not faster, one stopped once past the best time is slower alone, and
/// mesh is left out beyond kMeshRanks ranks.
BOOST_AUTO_TEST_CASE(auto_takes_the_fastest) {
  struct Case {
    const char* preset;
    unsigned chip_ranks;
    bool cost;
  };
  unsigned pruned = 0, stopped = 0, cases = 0;
  std::set<Algo> taken;
  for (const Case& k : {Case{"trn1-16", 0, true}, Case{"trn2-16", 1, false}, Case{"trn2-16", 0, true},
                        Case{"trn2-us64", 1, true}, Case{"trn3-us144", 1, false}})
    for (Op op : {Op::all_reduce, Op::all_gather})
      for (std::uint64_t bytes : {std::uint64_t{4} << 10, std::uint64_t{1} << 20, std::uint64_t{64} << 20}) {
        const system::System& s = sys(k.preset);
        Config c;
        c.op = op;
        c.bytes = bytes;
        c.data = false;
        c.chip_ranks = k.chip_ranks;
        c.cost = k.cost;
        const Result a = Run(s, c).run();
        const std::string what =
            fmt::format("{} {} B on {} ({} a chip, cost {})", op_name(op), bytes, k.preset, k.chip_ranks, k.cost);
        BOOST_TEST_REQUIRE(a.candidates.size() == std::size(kAlgos), what);
        double best = 0;
        for (const Candidate& cd : a.candidates) {
          Config n = c;
          n.algo = cd.algo;
          double t = 0;
          try {
            Run r(s, n);
            if (r.ranks() > kMeshRanks && cd.algo == Algo::mesh && c.op != Op::permute) {
              BOOST_TEST(!cd.skipped.empty(), what << ": mesh over " << r.ranks() << " ranks");
              continue;
            }
            if (cd.algo == Algo::rings && s.preset().topo.kind != system::TopoKind::torus) {
              BOOST_TEST(!cd.skipped.empty(), what << ": rings on a switched system");
              continue;
            }
            t = r.run().time_ns;
          } catch (const Error&) {
            BOOST_TEST(cd.time_ns == 0.0, what << ": " << algo_name(cd.algo) << " refused alone but timed by auto");
            continue;
          }
          if (cd.time_ns > 0) {
            BOOST_TEST(cd.time_ns == t, what << ": " << algo_name(cd.algo) << " as auto timed it and alone");
          } else if (cd.skipped.find("stopped at") != std::string::npos) {
            ++stopped;  // stopped once its simulated time passed the best so far: slower alone too
            BOOST_TEST(t > a.time_ns, what << ": " << algo_name(cd.algo) << " stopped, but alone " << t << " ns");
          } else {
            ++pruned;  // left out for its latency floor: it cannot have been the fastest
            BOOST_TEST(cd.skipped.find("latency floor") != std::string::npos, what << ": " << cd.skipped);
            BOOST_TEST(t >= cd.floor_ns, what << ": " << algo_name(cd.algo) << " below its floor");
          }
          if (best == 0 || t < best) best = t;
        }
        BOOST_TEST(a.time_ns == best, what << ": auto took " << algo_name(a.algo) << " at " << a.time_ns
                                           << " ns, the fastest takes " << best << " ns");
        taken.insert(a.algo);
        ++cases;
      }
  BOOST_TEST_MESSAGE("auto: " << cases << " cases, " << pruned << " candidates left out for their floor, " << stopped
                              << " stopped past the best, " << taken.size() << " different algorithms taken");
  BOOST_TEST(stopped > 0u);
  BOOST_TEST(taken.size() >= 3u);  // the sizes and systems above need more than one answer
}

/// The flow level holds a link group as one resource only where a pair's routes over the keys take
/// its links alike: the check passes the system's own routes and refuses routes that ignore the key
/// (every key the one link of each group), naming the pair and the group.
BOOST_AUTO_TEST_CASE(uneven_routes_are_refused) {
  for (const char* key : {"trn3-us144", "trn4-us128"}) {
    const system::System& s = sys(key);
    Config c;
    c.routes = 0;  // every key, a group one resource
    const FlowModel own(s, c);
    BOOST_CHECK_NO_THROW(own.route_uses(0, 5));
    BOOST_CHECK_NO_THROW(own.route_uses(3, s.chips() - 1));
    const FlowModel one(s, c, [&s](unsigned a, unsigned b, unsigned) { return s.route(a, b, 0); });
    BOOST_CHECK_EXCEPTION(one.route_uses(0, 5), std::logic_error, [&](const std::logic_error& e) {
      const std::string w = e.what();
      BOOST_TEST_MESSAGE(key << ": " << w);
      return w.find("unevenly") != std::string::npos && w.find(s.nodes()[0].label) != std::string::npos;
    });
  }
}

BOOST_AUTO_TEST_CASE(ring_bound) {
  for (const std::uint64_t bytes : {std::uint64_t{64} << 20, std::uint64_t{1} << 30}) {
    Config c;
    c.op = Op::all_reduce;
    c.algo = Algo::ring;
    c.bytes = bytes;
    c.data = false;
    c.chip_ranks = 1;  // a rank a chip: the ring's transfers all on links
    c.cost = false;    // bandwidth and latency only: the bound's terms
    Run run(sys("trn2-16"), c);
    const Result r = run.run();
    const double ratio = r.time_ns / r.bound_ns();
    BOOST_TEST_MESSAGE(fmt::format(
        "ring all-reduce {} MiB on trn2-16: {:.1f} us, bound {:.1f} us (alpha {:.1f}, beta {:.1f}), "
        "ratio {:.4f}, busiest {}",
        bytes >> 20, r.time_ns / 1e3, r.bound_ns() / 1e3, r.alpha_ns / 1e3, r.beta_ns / 1e3, ratio, r.busiest));
    BOOST_TEST(std::abs(ratio - 1) < 0.05, bytes << " B: time/bound " << ratio);
  }
}

// Combinations that cannot run, and bad requests: one line naming what.
/// The latency term is the zero-load critical path: no instance beats it, nor the busiest
/// resource's time, on links of different classes (trn2-us64's ring crosses the slower
/// inter-instance links only on some rounds' paths), one instance or several in flight.
BOOST_AUTO_TEST_CASE(bound_terms_are_lower_bounds) {
  for (Algo a : {Algo::ring, Algo::rdh})
    for (std::uint64_t chunk : {std::uint64_t{0}, std::uint64_t{4096}}) {
      Config c;
      c.op = Op::all_reduce;
      c.algo = a;
      c.bytes = 1 << 20;
      c.chunk = chunk;
      c.data = false;
      Run run(sys("trn2-us64"), c);
      const Result r = run.run();
      BOOST_TEST_MESSAGE(fmt::format("{} chunk {}: {:.1f} us, alpha {:.1f}, beta {:.1f}", algo_name(a), chunk,
                                     r.time_ns / 1e3, r.alpha_ns / 1e3, r.beta_ns / 1e3));
      BOOST_TEST(r.alpha_ns > 0);
      BOOST_TEST(r.time_ns >= r.alpha_ns);
      BOOST_TEST(r.time_ns >= r.beta_ns);
    }
}

BOOST_AUTO_TEST_CASE(bad_requests) {
  auto error = [](const std::string& key, Config c) {
    try {
      Run run(sys(key), c);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Config c;
  c.bytes = 4096;
  c.op = Op::permute;
  c.algo = Algo::ring;
  BOOST_TEST(error("trn2-16", c).find("permute") != std::string::npos);
  c.op = Op::all_to_all;
  c.algo = Algo::rdh;
  c.ranks = 6;
  BOOST_TEST(error("trn2-16", c).find("power-of-two") != std::string::npos);
  c.algo = Algo::hier;
  c.op = Op::all_reduce;
  c.ranks = 6;
  BOOST_TEST(error("trn2-16", c).find("whole") != std::string::npos);
  c.algo = Algo::hier;
  c.ranks = 0;
  BOOST_TEST(error("trn4-us128", c).empty());  // ranks as logical cores: the chip is its first level
  c.chip_ranks = 1;
  BOOST_TEST(error("trn4-us128", c).find("no second level") != std::string::npos);
  c.algo = Algo::ring;
  c.ranks = 17;
  BOOST_TEST(error("trn2-16", c).find("has 16 chips") != std::string::npos);
  c.chip_ranks = 0;
  c.ranks = 65;  // Trainium2: 8 cores, LNC=2
  BOOST_TEST(error("trn2-16", c).find("has 64 ranks (16 chips of 4 logical NeuronCores)") != std::string::npos);
  c.ranks = 0;
  c.lnc = 3;
  BOOST_TEST(error("trn2-16", c).find("--lnc 3") != std::string::npos);
  c.lnc = 0;
  c.ranks = 1;
  BOOST_TEST(error("trn2-16", c).find("at least 2") != std::string::npos);
  c.ranks = 0;
  c.bytes = 6;
  BOOST_TEST(error("trn2-16", c).find("whole number") != std::string::npos);
}

// Striped rings on a torus: edge-disjoint Hamiltonian cycles, one per dimension, each both ways, so
// that the rings together take every link of the torus once in each direction (trn2-16's 4 x 4:
// 4 rings; trn2-us64's 4 x 4 x 4: 6); with bandwidth alone (a rank a chip) a 64 MiB all-reduce on
// trn2-16 goes at nearly twice the plain ring's busbw and the Z links bound trn2-us64's at 6 x 128 GB/s
// of payload.
BOOST_AUTO_TEST_CASE(rings_take_every_link) {
  for (const auto& [key, dims] : {std::pair<std::string, std::vector<unsigned>>{"trn2-16", {4, 4}},
                                  std::pair<std::string, std::vector<unsigned>>{"trn2-us64", {4, 4, 4}}}) {
    const Placement p = place(sys(key), 0, Algo::rings);
    unsigned n = 1;
    for (unsigned d : dims) n *= d;
    BOOST_TEST(p.rings.size() == 2 * dims.size(), key);
    auto coord = [&](unsigned c) {
      std::vector<unsigned> x;
      for (unsigned d : dims) x.push_back(c % d), c /= d;
      return x;
    };
    std::map<std::pair<unsigned, unsigned>, unsigned> used;  // directed chip pairs
    for (const auto& ring : p.rings) {
      BOOST_TEST_REQUIRE(ring.size() == n, key);
      std::set<unsigned> chips;
      for (unsigned i = 0; i < n; ++i) {
        const unsigned a = p.chip[ring[i]], b = p.chip[ring[(i + 1) % n]];
        chips.insert(a);
        const auto ca = coord(a), cb = coord(b);
        unsigned differ = 0;
        for (std::size_t d = 0; d < dims.size(); ++d)
          if (ca[d] != cb[d]) differ += (ca[d] + 1) % dims[d] == cb[d] || (cb[d] + 1) % dims[d] == ca[d] ? 1 : 2;
        BOOST_TEST(differ == 1u, key << ": chips " << a << " and " << b << " are not neighbours");
        ++used[{a, b}];
      }
      BOOST_TEST(chips.size() == n, key << ": a ring misses a chip");
    }
    BOOST_TEST(used.size() == n * 2 * dims.size(), key << ": every link both ways");
    for (const auto& [link, k] : used) BOOST_TEST(k == 1u, key << ": link " << link.first << "->" << link.second);
  }
  auto busbw = [](const std::string& key, Algo a, std::uint64_t bytes) {
    Config c;
    c.algo = a;
    c.bytes = bytes;
    c.chip_ranks = 1;
    c.cost = false;
    c.data = false;
    const Result r = Run(sys(key), c).run();
    return static_cast<double>(bytes) / r.time_ns * busbw_factor(Op::all_reduce, r.ranks);
  };
  const double ring = busbw("trn2-16", Algo::ring, 64u << 20), rings = busbw("trn2-16", Algo::rings, 64u << 20);
  BOOST_TEST(rings > 1.7 * ring, "trn2-16 64 MiB: rings " << rings << " GB/s against the ring's " << ring);
  const double z = busbw("trn2-us64", Algo::rings, 1u << 30);
  BOOST_TEST(z > 0.9 * 6 * 128 * 0.8, "trn2-us64 1 GiB: rings " << z << " GB/s");
  BOOST_TEST(z <= 6 * 128 * 0.8 * 1.001);
}

// Striped hierarchies (hrings) on trn2-us64's 4 x 4 x 4 torus, a rank a chip: a hierarchy for each
// dimension as the outer level, its inner torus's two disjoint cycles both ways; every level's ring
// steps between torus neighbours; the inner rings' weighted load on each link is proportional to
// the link's rate (X and Y at 256 GB/s, Z at 128: Z outermost carries 3 parts to the others' 1);
// the 1 GiB all-reduce passes 80 % of a chip's injection bound; and a reference whose stripes are
// taken in another order is told apart from the data.
BOOST_AUTO_TEST_CASE(hrings_balance_the_links) {
  const system::System& us = sys("trn2-us64");
  const std::vector<unsigned> dims{4, 4, 4};
  const Placement p = place(us, 0, Algo::hrings, 1);
  BOOST_TEST_REQUIRE(p.stripes.size() == 12u);
  auto coord = [&](unsigned c) {
    std::vector<unsigned> x;
    for (unsigned d : dims) x.push_back(c % d), c /= d;
    return x;
  };
  // the dimension two chips differ in, if they are neighbours (else 3)
  auto step_dim = [&](unsigned a, unsigned b) {
    const auto ca = coord(a), cb = coord(b);
    unsigned dim = 3, differ = 0;
    for (unsigned d = 0; d < 3; ++d)
      if (ca[d] != cb[d]) {
        ++differ;
        dim = (ca[d] + 1) % dims[d] == cb[d] || (cb[d] + 1) % dims[d] == ca[d] ? d : 3;
      }
    return differ == 1 ? dim : 3u;
  };
  const double rate[3] = {256, 256, 128};
  std::map<std::pair<unsigned, unsigned>, double> load;  // directed chip pairs: the inner rings' weight
  for (const Stripe& st : p.stripes) {
    BOOST_TEST_REQUIRE((st.levels == std::vector<unsigned>{16, 4}));
    std::set<unsigned> all(st.order.begin(), st.order.end());
    BOOST_TEST_REQUIRE(all.size() == 64u);
    // the outer ring (ids 4 g .. 4 g + 3): one dimension, the stripe's outer one
    const unsigned outer = step_dim(p.chip[st.order[0]], p.chip[st.order[1]]);
    BOOST_TEST_REQUIRE(outer < 3u);
    BOOST_TEST(st.weight == (outer == 2 ? 3u : 1u), "outer dimension " << outer << " weight " << st.weight);
    for (unsigned g = 0; g < 16; ++g)
      for (unsigned c = 0; c < 4; ++c)
        BOOST_TEST(step_dim(p.chip[st.order[g * 4 + c]], p.chip[st.order[g * 4 + (c + 1) % 4]]) == outer);
    // the inner rings (ids c, c + 4, ..., c + 60): neighbours in the other two dimensions
    for (unsigned c = 0; c < 4; ++c)
      for (unsigned i = 0; i < 16; ++i) {
        const unsigned a = p.chip[st.order[i * 4 + c]], b = p.chip[st.order[(i + 1) % 16 * 4 + c]];
        const unsigned d = step_dim(a, b);
        BOOST_TEST((d < 3 && d != outer), "chips " << a << " and " << b);
        load[{a, b}] += st.weight;
      }
  }
  BOOST_TEST(load.size() == 64u * 6, "every link both ways");
  double lo = 1e9, hi = 0;
  for (const auto& [l, w] : load) {
    const double x = w / rate[step_dim(l.first, l.second)];
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  BOOST_TEST(hi <= lo * 1.0001, "inner rings' load per GB/s from " << lo << " to " << hi);

  Config c;
  c.algo = Algo::hrings;
  c.bytes = 1u << 30;
  c.chip_ranks = 1;
  c.cost = false;
  c.data = false;
  const Result r = Run(us, c).run();
  const double busbw = static_cast<double>(c.bytes) / r.time_ns * busbw_factor(Op::all_reduce, r.ranks);
  const double bound = (4 * 256 + 2 * 128) * 0.8;
  BOOST_TEST(busbw >= 0.8 * bound, "trn2-us64 1 GiB hrings: " << busbw << " GB/s against " << bound);
  BOOST_TEST(busbw <= bound);

  // another order of the stripes' additions is another result (BF16 rounds every addition)
  Config d;
  d.algo = Algo::hrings;
  d.elem = Elem::bf16;
  d.bytes = 64 * 24 * 2;
  d.chip_ranks = 1;
  Run run(us, d);
  run.fill(3);
  std::vector<std::vector<std::uint32_t>> in;
  for (unsigned q = 0; q < run.ranks(); ++q) in.push_back(run.input(q));
  run.run();
  const auto& pl = run.placement();
  auto equal = [&](const std::vector<Stripe>& st) {
    const auto want = reference(Op::all_reduce, Algo::hrings, Elem::bf16, pl.levels, run.seg_elems(), in, {}, st);
    for (unsigned q = 0; q < run.ranks(); ++q)
      if (run.output(q) != want[q]) return false;
    return true;
  };
  BOOST_TEST(equal(pl.stripes));
  std::vector<Stripe> other = pl.stripes;
  std::swap(other[0].order, other[1].order);  // the first inner cycle's two directions
  BOOST_TEST(!equal(other), "a reference with the stripes' rings swapped is told apart");

  // trn3-us144 (NeuronSwitch: 4 chips a server, 18 servers a rack, 2 racks): a hierarchy for some
  // orders of the three levels, their weights twelfths; the stripes' phases of different round
  // counts (a level of 2 beside one of 18) run their rounds in parts, and the data is the
  // reference's for each operation
  const system::System& t3 = sys("trn3-us144");
  const Placement q = place(t3, 0, Algo::hrings, 1);
  unsigned twelfths = 0;
  for (const Stripe& st : q.stripes) {
    std::vector<unsigned> l = st.levels;
    std::sort(l.begin(), l.end());
    BOOST_TEST((l == std::vector<unsigned>{2, 4, 18}));
    twelfths += st.weight;
  }
  BOOST_TEST(q.stripes.size() >= 2u);
  BOOST_TEST(twelfths == 12u);
  for (Op op : {Op::all_reduce, Op::reduce_scatter, Op::all_gather}) {
    Config e;
    e.op = op;
    e.algo = Algo::hrings;
    e.elem = Elem::bf16;
    e.chip_ranks = 1;
    e.bytes = 144 * 12 * 8 * 2;
    const Outcome o = check(t3, e);
    BOOST_TEST(o.error.empty(), o.error);
    BOOST_TEST(o.equal, op_name(op) << ": " << o.diff);
  }
  // 1 GiB, a rank a chip, bandwidth alone: above hier's one level order by far
  Config h = c;
  const double hr = static_cast<double>(h.bytes) / Run(t3, h).run().time_ns * busbw_factor(Op::all_reduce, 144);
  h.algo = Algo::hier;
  const double hi1 = static_cast<double>(h.bytes) / Run(t3, h).run().time_ns * busbw_factor(Op::all_reduce, 144);
  BOOST_TEST(hr > 1.3 * hi1, "trn3-us144 1 GiB: hrings " << hr << " GB/s, hier " << hi1);
}

// Symmetry (docs/collectives.md): a hierarchy across the UltraServers of trn4-uc, timing only, runs
// two UltraServers for all of them; on 4 and 6 UltraServers (ranks as NeuronCores) the folded run's
// time, bound and counts equal the run of every rank, for each operation (all-reduce also without
// the cost model). No fold where it would not hold: with data, one route a pair, an odd count of
// UltraServers.
BOOST_AUTO_TEST_CASE(symmetry_fold_equals_full) {
  const system::System& uc = sys("trn4-uc");
  unsigned runs = 0;
  for (unsigned us : {4u, 6u})
    for (Op op : {Op::all_reduce, Op::reduce_scatter, Op::all_gather})
      for (bool cost : {true, false}) {
        if (!cost && op != Op::all_reduce) continue;
        Config c;
        c.op = op;
        c.algo = Algo::hier;
        c.ranks = us * 128 * 12;
        c.bytes = 24u << 20;
        c.cost = cost;
        c.data = false;
        Run folded(uc, c);
        BOOST_TEST_REQUIRE(folded.folded() == 2u);
        c.fold = false;
        Run full(uc, c);
        BOOST_TEST_REQUIRE(full.folded() == 0u);
        const Result a = folded.run(), b = full.run();
        const std::string what = fmt::format("{} UltraServers, {}, cost {}", us, op_name(op), cost);
        BOOST_TEST(a.time_ns == b.time_ns, what << ": " << a.time_ns << " against " << b.time_ns);
        BOOST_TEST(a.alpha_ns == b.alpha_ns, what);
        BOOST_TEST(a.beta_ns == b.beta_ns, what);
        BOOST_TEST(a.transfers == b.transfers, what);
        BOOST_TEST(a.descriptors == b.descriptors, what);
        BOOST_TEST(a.ranks == b.ranks, what);
        ++runs;
      }
  BOOST_TEST(runs == 8u);
  Config c;
  c.algo = Algo::hier;
  c.ranks = 4 * 128 * 12;
  c.bytes = 64u << 10;
  BOOST_TEST(Run(uc, c).folded() == 0u);  // data moves: every rank
  c.data = false;
  c.routes = 1;
  BOOST_TEST(Run(uc, c).folded() == 0u);  // one route a chip pair: the UltraServers differ
  c.routes = 0;
  c.ranks = 3 * 128 * 12;
  BOOST_TEST(Run(uc, c).folded() == 0u);  // an odd ring of UltraServers
}

// KangaRing (docs/collectives.md): pairs of a chip's ranks, the primaries (even ranks) alone on the
// ring; its reduce-scatter reads the secondary's block in the same transfer (src2), its all-gather
// writes the secondary from the same read (dst2); all-reduce takes n rounds where a ring takes
// 2(n - 1), and the flow level finds it faster than the ring until a rank's DMA bounds both (the
// Neuron docs: "better than Ring at all sizes"). Its data is the reference's in data_flow_level.
BOOST_AUTO_TEST_CASE(kangaring_pairs) {
  const unsigned n = 16, P = n / 2;
  const Schedule s = build(Op::all_reduce, Algo::kangaring, n);
  BOOST_TEST(s.rounds() == 2 * (P - 1) + 2);  // ring reduce-scatter, fold, ring all-gather, drop
  std::vector<Xfer> xs;
  for (unsigned t = 0; t < s.rounds(); ++t)
    for (unsigned r = 0; r < n; ++r) {
      xs.clear();
      s.sends(r, t, xs);
      const bool ring = t < P - 1 || (t > P - 1 && t < 2 * P - 1);
      const bool rs = t < P - 1;
      if (r % 2) {  // a secondary: only the fold, its block into its primary
        BOOST_TEST(xs.size() == (t == P - 1 ? 1u : 0u), "rank " << r << " round " << t);
        for (const Xfer& x : xs) BOOST_TEST((x.dst == r - 1 && x.reduce && x.src2 == kNoRank && x.dst2 == kNoRank));
        continue;
      }
      BOOST_TEST_REQUIRE(xs.size() == (t == P - 1 ? 0u : 1u), "rank " << r << " round " << t);
      if (xs.empty()) continue;
      const Xfer& x = xs[0];
      if (ring) {
        BOOST_TEST(x.dst == 2 * ((r / 2 + 1) % P));  // the next primary
        BOOST_TEST(x.reduce == rs);
        BOOST_TEST(x.src2 == (rs ? r + 1 : kNoRank));  // three reads, one write
        BOOST_TEST(x.dst2 == (rs ? kNoRank : r + 1));  // one read, two writes
        BOOST_TEST(x.pieces.size() == 1u);
        BOOST_TEST(x.pieces[0].count == 2u);  // a pair's block: its two segments
      } else {                                // the drop: the block received last, to the secondary
        BOOST_TEST(x.dst == r + 1);
        BOOST_TEST(x.pieces[0].src_seg == 2 * ((r / 2 + 1) % P));
      }
    }
  for (unsigned r = 0; r < n; ++r) BOOST_TEST(s.expect(r, 0) == (r % 2 ? 0u : 1u));
  BOOST_CHECK_THROW(build(Op::all_reduce, Algo::kangaring, 7), Error);
  BOOST_CHECK_THROW(build(Op::all_to_all, Algo::kangaring, 8), Error);
  // on trn2-16's 64 ranks (4 a chip): faster than the ring at 1 KiB and 1 MiB, not slower at 1 GiB
  auto time = [](Algo a, std::uint64_t bytes) {
    Config c;
    c.algo = a;
    c.bytes = bytes;
    c.data = false;
    return Run(sys("trn2-16"), c).run().time_ns;
  };
  for (std::uint64_t b : {std::uint64_t{1} << 10, std::uint64_t{1} << 20})
    BOOST_TEST(time(Algo::kangaring, b) < 0.8 * time(Algo::ring, b), b << " B");
  BOOST_TEST(time(Algo::kangaring, 1u << 30) <= 1.001 * time(Algo::ring, 1u << 30));
  // a chip of one rank has no pairs
  Config c;
  c.algo = Algo::kangaring;
  c.chip_ranks = 1;
  BOOST_CHECK_THROW(Run(sys("trn2-16"), c), Error);
}

// Groups out of step: with HBM latencies spread widely one group of a hierarchical schedule runs
// ahead, and its cross-group additions must still land after the receiver's own group has
// finished adding (the ready flags of the cross-group reduce-scatter), or the sums change order.
// On the cycle-exact chips of a 4 x 4 torus.
BOOST_AUTO_TEST_CASE(hier_groups_out_of_step) {
  for (const std::uint64_t seed : {1, 2, 3, 4}) {
    for (const Op op : {Op::all_reduce, Op::reduce_scatter}) {
      Config c;
      c.op = op;
      c.algo = Algo::hier;
      c.fidelity = Fidelity::cycle;
      c.ranks = 16;
      c.bytes = 16 * 512;
      c.hbm_jitter = 1.8;
      c.seed = seed;
      const Outcome o = check(torus16(), c, seed);
      BOOST_TEST(o.error.empty(), o.error);
      BOOST_TEST(o.equal, op_name(op) << " seed " << seed << ": " << o.diff);
    }
  }
}

// ---------------------------------------------------------------- the cycle level
/// The collectives on the cycle-exact chips: every rank's data is the reference's, bit for bit, FP32
/// and BF16, ring, recursive halving-doubling and mesh, on a 2 x 2 torus and a 2 x 2 x 2 with slower
/// z wires, and the time agrees with the flow level on the same chips within 15 % (25 % for the
/// all-to-all) at these small sizes (the cross-check at full scale is the benchmark's:
/// docs/collectives.md).
BOOST_AUTO_TEST_CASE(cycle_level_data_and_time) {
  unsigned ran = 0;
  for (const bool three_d : {false, true})
    for (const auto& [op, a] : {std::pair{Op::all_reduce, Algo::ring}, std::pair{Op::all_reduce, Algo::rdh},
                                std::pair{Op::reduce_scatter, Algo::ring}, std::pair{Op::all_gather, Algo::ring},
                                std::pair{Op::all_to_all, Algo::mesh}})
      for (const Elem e : {Elem::fp32, Elem::bf16}) {
        const system::System& s = small_torus(three_d);
        Config c;
        c.fidelity = Fidelity::cycle;
        c.op = op;
        c.algo = a;
        c.elem = e;
        c.bytes = std::uint64_t{s.chips()} * 4096;  // 4 KiB a segment
        const Outcome o = check(s, c);
        const std::string what =
            fmt::format("{} by {} on {} chips ({})", op_name(op), algo_name(a), s.chips(), elem_name(e));
        BOOST_TEST(o.error.empty(), what << ": " << o.error);
        BOOST_TEST(o.equal, what << ": " << o.diff);
        BOOST_TEST(o.r.cycles > 0u);
        BOOST_TEST(o.r.flow_ns > 0);
        const double ratio = o.r.time_ns / o.r.flow_ns;
        BOOST_TEST_MESSAGE(what << ": cycle " << o.r.time_ns << " ns, flow " << o.r.flow_ns << " ns");
        // the all-to-all's concurrent streams into one NIC cost the cycle level more than the flow
        // level's fair sharing of it (docs/collectives.md, "The cycle level")
        const double tol = op == Op::all_to_all ? 0.25 : 0.15;
        BOOST_TEST((ratio > 1 - tol && ratio < 1 + tol), what << ": cycle / flow = " << ratio);
        ++ran;
      }
  BOOST_TEST(ran == 20u);
}

/// The switched systems in small at the cycle level (trn::system::ChipNet: the chips on the
/// network of chip and switch routers): every rank's result is the reference's, and the flow level
/// on the same chips agrees within 20 %.
BOOST_AUTO_TEST_CASE(cycle_level_on_switched_systems) {
  unsigned ran = 0;
  for (const bool trn4 : {false, true})
    for (const auto& [op, a, e] :
         {std::tuple{Op::all_reduce, Algo::ring, Elem::fp32}, std::tuple{Op::all_reduce, Algo::rdh, Elem::bf16},
          std::tuple{Op::all_reduce, Algo::mesh, Elem::fp32}, std::tuple{Op::reduce_scatter, Algo::ring, Elem::fp32},
          std::tuple{Op::all_gather, Algo::ring, Elem::bf16}, std::tuple{Op::all_to_all, Algo::mesh, Elem::fp32},
          std::tuple{Op::permute, Algo::mesh, Elem::fp32}}) {
      const system::System& s = small_switched(trn4);
      Config c;
      c.fidelity = Fidelity::cycle;
      c.op = op;
      c.algo = a;
      c.elem = e;
      c.bytes = std::uint64_t{s.chips()} * 4096;
      const Outcome o = check(s, c);
      const std::string what = fmt::format("{} by {} on {} ({} chips, {})", op_name(op), algo_name(a), s.preset().key,
                                           s.chips(), elem_name(e));
      BOOST_TEST(o.error.empty(), what << ": " << o.error);
      BOOST_TEST(o.equal, what << ": " << o.diff);
      BOOST_TEST(o.r.cycle_system.find("(1 collective core each running a channel") != std::string::npos,
                 o.r.cycle_system);
      const double ratio = o.r.time_ns / o.r.flow_ns;
      BOOST_TEST_MESSAGE(what << ": cycle " << o.r.time_ns << " ns, flow " << o.r.flow_ns << " ns");
      // the all-to-all as on the torus above: its concurrent streams into one NIC cost the cycle
      // level more than the flow level's fair sharing of it (trn4-us128: 1.21 since the DMA
      // engine's writes take the slots in turn, docs/dma.md; 1.01 while the lowest slot went first
      // and one queue's writes at a time mostly went out)
      const double tol = op == Op::all_to_all ? 0.25 : 0.2;
      BOOST_TEST((ratio > 1 - tol && ratio < 1 + tol), what << ": cycle / flow = " << ratio);
      ++ran;
    }
  BOOST_TEST(ran == 14u);
}

/// Bit errors on every wire of the cycle-level system: the link layers replay and the data is exact.
BOOST_AUTO_TEST_CASE(cycle_level_bit_errors) {
  Config c;
  c.fidelity = Fidelity::cycle;
  c.op = Op::all_reduce;
  c.algo = Algo::ring;
  c.bytes = 4 * 4096;
  c.p_flip = 2e-3;
  for (const system::System* s : {&small_torus(false), &small_switched(false)}) {
    const Outcome o = check(*s, c);
    BOOST_TEST(o.error.empty(), o.error);
    BOOST_TEST(o.equal, o.diff);
    BOOST_TEST(o.r.flips > 0u);
    BOOST_TEST(o.r.replays > 0u);
  }
}

/// The cycle level's ordering checker (collective/cycle.cpp): on write-after-write queues without
/// the barrier a transfer's semaphore overtakes its data on the cycle-exact chips (HBM read latency
/// spread 1.9, 256-byte descriptors), and the checker names it; with the barrier, or with
/// strong-order-write queues, it never fires and the data is exact. By default a violation stops
/// the run with the checker's message.
BOOST_AUTO_TEST_CASE(cycle_level_ordering_checker) {
  const system::System& s = small_torus(false);
  Config c;
  c.fidelity = Fidelity::cycle;
  c.op = Op::all_reduce;
  c.algo = Algo::ring;
  c.bytes = 4 * 4096;
  c.desc_bytes = 256;
  c.hbm_jitter = 1.9;
  c.stop_on_violation = false;
  unsigned caught = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    Config k = c;
    k.seed = seed;
    k.strong = false;
    const Outcome waw = check(s, k);
    BOOST_TEST(waw.error.empty(), waw.error);
    caught += !waw.r.violations.empty();
    if (!waw.r.violations.empty()) BOOST_TEST_MESSAGE("cycle level, WAW: " << waw.r.violations.front().str());
    k.barrier = true;
    const Outcome fixed = check(s, k);
    BOOST_TEST(fixed.r.violations.empty());
    BOOST_TEST(fixed.equal, fixed.diff);
    k.barrier = false;
    k.strong = true;
    const Outcome strong = check(s, k);
    BOOST_TEST(strong.r.violations.empty());
    BOOST_TEST(strong.equal, strong.diff);
  }
  BOOST_TEST(caught > 0u, "write-after-write: no semaphore overtook its data in three seeds");
  Config stop = c;
  stop.strong = false;
  stop.stop_on_violation = true;
  bool stopped = false;
  for (std::uint64_t seed = 1; seed <= 3 && !stopped; ++seed) {
    stop.seed = seed;
    try {
      check(s, stop);
    } catch (const std::runtime_error& e) {
      stopped = std::string(e.what()).find("collective ordering checker") != std::string::npos;
    }
  }
  BOOST_TEST(stopped);
}

/// The routers' last-hop VC (docs/link.md) at the cycle level: rdh on 4 ranks of trn2-16 (a ring
/// of four; its two-hop rounds put a flow passing through and a flow ejecting on one input port)
/// loses its head-of-line blocking: with the configuration's routers it takes more than 1.1 times
/// the flow level's time, with the last-hop VC within 5 % of it, fewer cycles, every rank exact and
/// no semaphore before its data. The ring's flows go one hop, so its run is the same cycle for
/// cycle with either router.
BOOST_AUTO_TEST_CASE(cycle_level_last_hop_vc_removes_head_of_line_blocking) {
  const system::System& s = torus16();
  Config c;
  c.fidelity = Fidelity::cycle;
  c.op = Op::all_reduce;
  c.bytes = 64 * 1024;
  c.ranks = 4;
  c.hbm_jitter = 0;
  c.algo = Algo::rdh;
  const Outcome plain = check(s, c);
  c.last_hop_vc = true;
  const Outcome lh = check(s, c);
  BOOST_TEST_REQUIRE(plain.error.empty(), plain.error);
  BOOST_TEST_REQUIRE(lh.error.empty(), lh.error);
  BOOST_TEST(plain.equal, plain.diff);
  BOOST_TEST(lh.equal, lh.diff);
  BOOST_TEST(lh.r.violations.empty());
  BOOST_TEST(lh.r.cycle_system.find("with the last-hop VC") != std::string::npos, lh.r.cycle_system);
  BOOST_TEST(plain.r.time_ns > 1.1 * plain.r.flow_ns, plain.r.time_ns << " ns against " << plain.r.flow_ns);
  BOOST_TEST(std::abs(lh.r.time_ns / lh.r.flow_ns - 1) < 0.05, lh.r.time_ns << " ns against " << lh.r.flow_ns);
  BOOST_TEST(lh.r.cycles < plain.r.cycles);
  c.algo = Algo::ring;
  const Outcome ring_lh = check(s, c);
  c.last_hop_vc = false;
  const Outcome ring = check(s, c);
  BOOST_TEST(ring.equal, ring.diff);
  BOOST_TEST(ring_lh.equal, ring_lh.diff);
  BOOST_TEST(ring.r.cycles == ring_lh.r.cycles);
  // a switched preset has no torus router to give it
  Config sw = c;
  sw.last_hop_vc = true;
  sw.ranks = 0;
  BOOST_TEST(check(small_switched(false), sw).error.find("--last-hop-vc") != std::string::npos);
}

/// Channels (docs/collectives.md, "Channels"): the schedule on several collective cores of every
/// chip at once, each core its share of the instances. On a 2 x 2 torus with a 1,000 ns HBM
/// latency, one core keeps 256 reads in flight and moves 256 beats a latency (32 KiB of 128-byte
/// beats: 33 GB/s); four cores move four times as much, below the 256 GB/s links, and every result
/// is still the reference's. The ordering checker tells the
/// channels apart (a semaphore closes a transfer of the core it adds to): write-after-write queues
/// without the barrier are caught on three channels, strong order and the barrier are not.
BOOST_AUTO_TEST_CASE(cycle_level_channels) {
  const system::System& s =
      short_wires("trn2-16", {"system.trn2-16.topology.dims=[2,2]", "chip.trainium2.links.intra_instance.latency_ns=5",
                              "chip.trainium2.hbm_latency_ns=1000"});
  std::map<std::pair<Algo, unsigned>, double> took;
  for (const auto& [op, a] : {std::pair{Op::all_reduce, Algo::ring}, std::pair{Op::all_reduce, Algo::rdh},
                              std::pair{Op::all_to_all, Algo::mesh}})
    for (const unsigned ch : {1u, 4u}) {
      Config c;
      c.fidelity = Fidelity::cycle;
      c.op = op;
      c.algo = a;
      c.channels = ch;
      c.bytes = 8 * 65536;  // 128 KiB segments: four windows of one core
      const Outcome o = check(s, c);
      const std::string what = fmt::format("{} by {} on {} channel(s)", op_name(op), algo_name(a), ch);
      BOOST_TEST(o.error.empty(), what << ": " << o.error);
      BOOST_TEST(o.equal, what << ": " << o.diff);
      BOOST_TEST(o.r.cycle_system.find(fmt::format("({} collective core", ch)) != std::string::npos, o.r.cycle_system);
      BOOST_TEST(o.r.instances >= ch);
      BOOST_TEST_MESSAGE(what << ": " << o.r.cycles << " cycles, cycle / flow " << o.r.time_ns / o.r.flow_ns);
      took[{a, ch}] = o.r.time_ns;
    }
  for (const Algo a : {Algo::ring, Algo::rdh}) {
    const double four = took[std::pair{a, 4u}], one = took[std::pair{a, 1u}];
    BOOST_TEST(four < 0.6 * one, algo_name(a) << ": 4 channels " << four << " ns, 1 channel " << one << " ns");
  }
  // the ordering checker on three channels
  Config c;
  c.fidelity = Fidelity::cycle;
  c.op = Op::all_reduce;
  c.algo = Algo::ring;
  c.channels = 3;
  c.bytes = 4 * 3 * 4096;
  c.desc_bytes = 256;
  c.hbm_jitter = 1.9;
  c.stop_on_violation = false;
  const system::System& quick = small_torus(false);
  unsigned caught = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    Config k = c;
    k.seed = seed;
    k.strong = false;
    caught += !check(quick, k).r.violations.empty();
    k.barrier = true;
    const Outcome fixed = check(quick, k);
    BOOST_TEST((fixed.r.violations.empty() && fixed.equal), "barrier, seed " << seed << ": " << fixed.diff);
    k.barrier = false;
    k.strong = true;
    const Outcome strong = check(quick, k);
    BOOST_TEST((strong.r.violations.empty() && strong.equal), "strong order, seed " << seed << ": " << strong.diff);
  }
  BOOST_TEST(caught > 0u, "write-after-write on three channels: no semaphore overtook its data in three seeds");
}

/// A waiting collective core skips its ticks on unchanged inputs (model speed only): the same runs
/// with every tick give the same cycle counts, data and ordering violations. Runs with ready flags
/// (rdh), several channels and a violation under write-after-write.
BOOST_AUTO_TEST_CASE(cycle_level_skipping_changes_nothing) {
  const system::System& quick = small_torus(false);
  struct Case {
    Algo a;
    unsigned channels;
    bool strong;
    std::uint64_t seed;
  };
  std::size_t violations = 0;
  for (const Case& k : {Case{Algo::ring, 1, true, 2}, Case{Algo::rdh, 3, true, 2}, Case{Algo::ring, 3, false, 1},
                        Case{Algo::ring, 3, false, 2}, Case{Algo::ring, 3, false, 3}}) {
    Config c;
    c.fidelity = Fidelity::cycle;
    c.op = Op::all_reduce;
    c.algo = k.a;
    c.channels = k.channels;
    c.strong = k.strong;
    c.bytes = 4 * 3 * 4096;
    c.desc_bytes = 256;
    c.hbm_jitter = 1.9;
    c.seed = k.seed;
    c.stop_on_violation = false;
    const Outcome skip = check(quick, c);
    c.skip_quiet = false;
    const Outcome every = check(quick, c);
    const std::string what = fmt::format("{} on {} channel(s), {}, seed {}", algo_name(k.a), k.channels,
                                         k.strong ? "strong order" : "write-after-write", k.seed);
    BOOST_TEST_MESSAGE(what << ": " << skip.r.cycles << " cycles, " << skip.r.violations.size() << " violations");
    BOOST_TEST((skip.error.empty() && every.error.empty()), what);
    BOOST_TEST(skip.r.cycles == every.r.cycles, what);
    BOOST_TEST(skip.equal == every.equal, what);
    BOOST_TEST(skip.r.violations.size() == every.r.violations.size(), what);
    for (std::size_t v = 0; v < std::min(skip.r.violations.size(), every.r.violations.size()); ++v)
      BOOST_TEST(skip.r.violations[v].str() == every.r.violations[v].str(), what);
    if (k.strong) BOOST_TEST(skip.equal, what << ": " << skip.diff);
    violations += skip.r.violations.size();
  }
  BOOST_TEST(violations > 0u, "write-after-write: no semaphore overtook its data in three seeds");
}

/// Threads evaluating the chips change nothing: the same runs with one and with three threads (on a
/// torus and on a switched network, with bit errors and with write-after-write queues whose
/// violations depend on the exact cycle) give the same cycles, data, replays and violations.
BOOST_AUTO_TEST_CASE(cycle_level_threads_change_nothing) {
  for (const system::System* s : {&small_torus(false), &small_switched(false)})
    for (const bool strong : {true, false}) {
      Config c;
      c.fidelity = Fidelity::cycle;
      c.op = Op::all_reduce;
      c.algo = Algo::ring;
      c.channels = 2;
      c.strong = strong;
      c.bytes = std::uint64_t{s->chips()} * 2 * 4096;
      c.desc_bytes = 256;
      c.hbm_jitter = 1.9;
      c.p_flip = strong ? 1e-3 : 0;
      c.stop_on_violation = false;
      const Outcome one = check(*s, c);
      c.threads = 3;
      const Outcome three = check(*s, c);
      const std::string what =
          fmt::format("{}, {}", s->preset().key, strong ? "strong order, bit errors" : "write-after-write");
      BOOST_TEST_MESSAGE(what << ": " << one.r.cycles << " cycles, " << one.r.replays << " replays, "
                              << one.r.violations.size() << " violations");
      BOOST_TEST((one.error.empty() && three.error.empty()), what << ": " << one.error << three.error);
      BOOST_TEST(one.r.cycles == three.r.cycles, what);
      BOOST_TEST(one.equal == three.equal, what);
      BOOST_TEST(one.r.replays == three.r.replays, what);
      BOOST_TEST(one.r.flips == three.r.flips, what);
      BOOST_TEST(one.r.violations.size() == three.r.violations.size(), what);
      for (std::size_t v = 0; v < std::min(one.r.violations.size(), three.r.violations.size()); ++v)
        BOOST_TEST(one.r.violations[v].str() == three.r.violations[v].str(), what);
      if (strong) {
        BOOST_TEST(one.equal, what << ": " << one.diff);
        BOOST_TEST(one.r.replays > 0u, what << ": no replay to compare");
      }
    }
}

/// Windows (Config::windows): each chip runs the wires' latency of cycles alone, on its own
/// thread, between exchanges; the run is the lockstep's: cycles, data, violations in their order.
/// A 2 x 2 torus and a 2 x 2 x 2 (three wire latencies, the z wires half a flit a cycle), strong
/// order and write-after-write, HBM jitter, two and three threads.
BOOST_AUTO_TEST_CASE(cycle_level_windows_change_nothing) {
  for (const system::System* s : {&small_torus(false), &small_torus(true)})
    for (const bool strong : {true, false}) {
      Config c;
      c.fidelity = Fidelity::cycle;
      c.op = Op::all_reduce;
      c.algo = strong ? Algo::ring : Algo::rdh;
      c.channels = 2;
      c.strong = strong;
      c.bytes = std::uint64_t{s->chips()} * 2 * 4096;
      c.desc_bytes = 256;
      c.hbm_jitter = 1.9;
      c.stop_on_violation = false;
      c.windows = false;
      const Outcome lock = check(*s, c);
      c.windows = true;
      c.threads = strong ? 2 : 3;
      const Outcome win = check(*s, c);
      const std::string what =
          fmt::format("{} ({} chips), {}", s->preset().key, s->chips(), strong ? "strong order" : "write-after-write");
      BOOST_TEST_MESSAGE(what << ": " << lock.r.cycles << " cycles, windows of " << win.r.window << ", "
                              << lock.r.violations.size() << " violations");
      BOOST_TEST((lock.error.empty() && win.error.empty()), what << ": " << lock.error << win.error);
      BOOST_TEST(lock.r.window == 0u, what);
      BOOST_TEST(win.r.window > 1u, what << ": no windows to compare");
      BOOST_TEST(lock.r.cycles == win.r.cycles, what);
      BOOST_TEST(lock.equal == win.equal, what);
      BOOST_TEST(lock.r.violations.size() == win.r.violations.size(), what);
      for (std::size_t v = 0; v < std::min(lock.r.violations.size(), win.r.violations.size()); ++v)
        BOOST_TEST(lock.r.violations[v].str() == win.r.violations[v].str(), what);
      if (strong) BOOST_TEST(lock.equal, what << ": " << lock.diff);
      if (!strong) BOOST_TEST(!lock.r.violations.empty(), what << ": no violation to compare");
    }
}

/// What the cycle level refuses, in one line each.
BOOST_AUTO_TEST_CASE(cycle_level_refusals) {
  auto error = [](const system::System& s, Config c) {
    c.fidelity = Fidelity::cycle;
    try {
      Run r(s, c);
      r.run();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Config c;
  c.op = Op::all_reduce;
  c.bytes = 1024;
  BOOST_TEST(error(sys("trn4-uc"), c).find("at most 255") != std::string::npos);
  c.bytes = std::uint64_t{64} << 20;
  c.data = false;
  BOOST_TEST(error(sys("trn2-16"), c).find("local HBM address") != std::string::npos);
  c.bytes = 1024;
  c.cycle_config = "huge";
  BOOST_TEST(error(sys("trn2-16"), c).find("unknown configuration") != std::string::npos);
  c.cycle_config = "full";
  c.channels = 7;
  BOOST_TEST(error(sys("trn1-16"), c).find("has 6 collective cores") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
