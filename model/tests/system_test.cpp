// Boost.Test units of model/system: every preset composes; totals against arithmetic from SPEC
// section 2 done here by hand; hop counts and bisection of the tori and switch domains against
// their closed forms; every pair of chips routed and the channel-dependency graph acyclic (and the
// check catching a torus without datelines); the 64- and 144-chip systems carrying traffic end to
// end at the flit level; bad preset files and bad --set values giving the documented errors.
#include "system/system.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <set>
#include <string>

#include "link/net_runner.hpp"
#include "system/preset.hpp"
#include "system/report.hpp"

using namespace trn;
using namespace trn::system;

namespace {

const Presets& presets() {
  static const Presets p = default_presets();
  return p;
}

double tflops(const Totals& t, DType d) { return t.tflops[static_cast<unsigned>(d)]; }

/// The message of the PresetError that parsing `text` with `sets` throws ("" if none).
std::string preset_error(const std::string& text, const std::vector<std::string>& sets = {},
                         const std::string& focus = "") {
  try {
    parse_presets(text, "bad.toml", sets, focus);
  } catch (const PresetError& e) {
    return e.what();
  }
  return "";
}
std::string set_error(const std::vector<std::string>& sets, const std::string& focus = "") {
  try {
    default_presets(sets, focus);
  } catch (const PresetError& e) {
    return e.what();
  }
  return "";
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(system_presets)

BOOST_AUTO_TEST_CASE(every_preset_composes_routes_and_has_a_bisection) {
  const std::vector<std::string> keys{"trn1-16",    "trn2-16",    "trn2-us64", "trn3-us64",
                                      "trn3-us144", "trn4-us128", "trn4-uc"};
  BOOST_REQUIRE_EQUAL(presets().systems.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    BOOST_TEST_CONTEXT(keys[i]) {
      BOOST_CHECK_EQUAL(presets().systems[i].key, keys[i]);  // file order
      const System s(presets(), keys[i]);
      const RouteStats r = route_stats(s);
      BOOST_CHECK(r.deadlock_free);
      BOOST_CHECK_GT(r.pairs, 0u);
      BOOST_CHECK_GT(bisection(s).gbps, 0);
      BOOST_CHECK_GT(totals(s).tflops[static_cast<unsigned>(DType::bf16)], 0);
    }
  }
}

/// The chip design is the cycle-level chip model's own parameters: a trn::chip::Chip built from it
/// (every core's units at full size) holds the cores, tensor engines, SBUF and DMA engines that the
/// totals count, so the totals are a walk over what that run instantiates.
BOOST_AUTO_TEST_CASE(presets_build_from_the_unit_models) {
  const System s(presets(), "trn1-16");
  const ChipDesign& d = s.design();
  const chip::Chip c(d.unit);
  BOOST_CHECK_EQUAL(c.params().cores, 2u);
  BOOST_CHECK_EQUAL(c.params().cc_cores, 6u);
  BOOST_CHECK_EQUAL(c.params().chips, 16u);
  BOOST_CHECK_EQUAL(c.params().kx * c.params().ky, 16u);
  const CoreGen& g = *d.core_gen;
  double bf16 = 0, sbuf_mib = 0;
  unsigned engines = 0, queues = 0;
  for (unsigned i = 0; i < c.params().cores; ++i) {
    const core::Core& k = c.core(i).core();
    const auto& te = k.te().params();
    bf16 += 2.0 * te.rows * te.cols * g.tensor_ghz * g.rate[static_cast<unsigned>(DType::bf16)] / 1e3;
    sbuf_mib += static_cast<double>(k.sbuf().params().parts) * k.sbuf().params().part_bytes / (1024.0 * 1024.0);
    for (unsigned e = 0; e < k.params().dma_engines; ++e) {
      ++engines;
      queues += k.dma(e).params().queues;
    }
    BOOST_CHECK_EQUAL(k.ve().params().lanes, 128u);
  }
  const Totals t = chip_totals(d);
  BOOST_CHECK_EQUAL(t.cores, c.params().cores);
  BOOST_CHECK_CLOSE(tflops(t, DType::bf16), bf16, 1e-9);
  BOOST_CHECK_CLOSE(t.sbuf_mib, sbuf_mib, 1e-9);
  BOOST_CHECK_CLOSE(t.sbuf_mib, 2 * 24.0, 1e-9);  // 128 partitions x 192 KiB a core
  BOOST_CHECK_EQUAL(t.dma_engines, engines);
  BOOST_CHECK_EQUAL(t.dma_queues, queues);
  BOOST_CHECK_EQUAL(t.collective_cores, c.params().cc_cores);
  // every generation's design builds the same way, its sizes the preset's
  for (const ChipGen& cg : presets().chips) {
    const ChipDesign x(presets(), cg);
    const CoreGen& k = presets().core(cg.core);
    BOOST_CHECK_EQUAL(x.cores(), cg.cores);
    BOOST_CHECK_EQUAL(x.tensor().rows, k.tensor_rows);
    BOOST_CHECK_EQUAL(x.sbuf().part_bytes, k.sbuf_kib_per_partition * 1024u);
    BOOST_CHECK_EQUAL(x.dma_engines(), k.dma_engines);
    BOOST_CHECK_EQUAL(x.dma().queues, k.dma_queues);
  }
  // a core generation the core model cannot build is refused, naming it
  Presets bad = presets();
  for (CoreGen& k : bad.cores)
    if (k.key == "v2") k.tensor_cols = 64;
  try {
    const ChipDesign x(bad, bad.chip("trainium"));
    BOOST_ERROR("a core of 128 rows and 64 columns was built");
  } catch (const PresetError& e) {
    BOOST_CHECK(std::string(e.what()).find("core.v2: the core model has one partition count") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(trainium_totals_by_hand) {
  // trn1-16: 16 chips x 2 NeuronCore-v2; a core's tensor engine does 128 x 128 MACs a cycle at
  // 2.8 GHz, 2 FLOPs a MAC: 91.75 TFLOPS BF16; FP32 a quarter.
  const System s(presets(), "trn1-16");
  const Totals t = totals(s);
  const double core_bf16 = 128.0 * 128 * 2 * 2.8e9 / 1e12;  // 91.7504
  BOOST_CHECK_CLOSE(tflops(chip_totals(s.design()), DType::bf16), 2 * core_bf16, 1e-9);
  BOOST_CHECK_CLOSE(tflops(t, DType::bf16), 16 * 2 * core_bf16, 1e-9);
  BOOST_CHECK_CLOSE(tflops(t, DType::fp32), 16 * 2 * core_bf16 / 4, 1e-9);
  BOOST_CHECK_CLOSE(tflops(t, DType::fp8), 16 * 2 * core_bf16, 1e-9);  // cFP8 at the BF16 rate on v2
  BOOST_CHECK_EQUAL(tflops(t, DType::mxfp8), 0);
  BOOST_CHECK_CLOSE(t.hbm_gib, 16 * 32.0, 1e-9);     // 2 stacks of 16 GiB a chip
  BOOST_CHECK_CLOSE(t.hbm_gbps, 16 * 820.0, 1e-9);   // 0.82 TB/s a chip
  BOOST_CHECK_CLOSE(t.sbuf_mib, 16 * 48.0, 1e-9);    // 2 x 128 x 192 KiB = 48 MiB a chip
  BOOST_CHECK_CLOSE(t.dma_gbps, 16 * 1000.0, 1e-9);  // 32 engines x 31.25 GB/s
  BOOST_CHECK_EQUAL(t.dma_engines, 16u * 2 * 16);
  BOOST_CHECK_CLOSE(t.port_gbps_per_chip, 384.0, 1e-9);  // 4 links x 96 GB/s (SPEC 5.7)
  BOOST_CHECK_CLOSE(t.connected_gbps_per_chip, 384.0, 1e-9);
}

BOOST_AUTO_TEST_CASE(trn3_ultraserver_reproduces_the_seed_figures) {
  // SPEC 2: a 144-chip Trn3 UltraServer has 362 FP8 PFLOPs, 20.7 TB of HBM and 706 TB/s.
  // 144 chips x 8 cores x 128 x 128 x 2 x 2.4 GHz x 4 (MXFP8) = 362,387.9 TFLOPS;
  // 144 x 4 stacks x 36 GiB = 20,736 GiB; 144 x 4.9 TB/s = 705.6 TB/s.
  const System s(presets(), "trn3-us144");
  const Totals t = totals(s);
  BOOST_CHECK_EQUAL(s.chips(), 144u);
  BOOST_CHECK_EQUAL(t.cores, 1152u);
  BOOST_CHECK_CLOSE(tflops(t, DType::mxfp8), 144.0 * 8 * 128 * 128 * 2 * 2.4e9 * 4 / 1e12, 1e-9);
  BOOST_CHECK_CLOSE(tflops(t, DType::mxfp8) / 362000, 1.0, 0.2);
  BOOST_CHECK_CLOSE(t.hbm_gib, 20736.0, 1e-9);
  BOOST_CHECK_CLOSE(t.hbm_gbps, 705600.0, 1e-9);
  BOOST_CHECK_CLOSE(t.sbuf_mib, 144.0 * 256, 1e-9);
  // per chip: 4 + 5 + 2 links (SPEC 5.7) of the published 2,560 GB/s over 11, all wired
  BOOST_CHECK_CLOSE(t.port_gbps_per_chip, 2560.0, 1e-9);
  BOOST_CHECK_CLOSE(t.connected_gbps_per_chip, 2560.0, 1e-9);
  // against the Trn2 UltraServer: 64 x 8 x 128 x 128 x 2 x 2.4 GHz x 2 (FP8) = 80,530.6 TFLOPS,
  // so 4.50x (the announcement says 4.4x); HBM 705.6 / (64 x 2.9) = 3.80x (it says 3.9x)
  const Summary sm = summarize(s, presets());
  BOOST_REQUIRE_EQUAL(sm.claims.size(), 2u);
  BOOST_CHECK_CLOSE(sm.claims[0].composed, (144.0 * 4) / (64.0 * 2), 1e-9);
  BOOST_CHECK(sm.claims[0].miss());  // 2.3 % over the claim: reported, not hidden
  BOOST_CHECK_CLOSE(sm.claims[1].composed, 705600.0 / (64 * 2900.0), 1e-9);
  // the published comparisons: MXFP8 and HBM within 2 %, BF16 per chip (629 vs 671) a miss
  bool bf16_miss = false, hbm_ok = false;
  for (const Comparison& c : sm.published) {
    if (c.scope == "chip" && c.metric == "bf16_tflops") bf16_miss = c.miss();
    if (c.scope == "system" && c.metric == "hbm_gib") hbm_ok = !c.miss();
  }
  BOOST_CHECK(bf16_miss);
  BOOST_CHECK(hbm_ok);
}

BOOST_AUTO_TEST_CASE(trainium4_ultracluster_size) {
  // 256 UltraServers x 128 chips; 24 cores a chip (assumed): 786,432 cores; 6x Trainium3's FP4:
  // 24 x 128 x 128 x 2 x 2.4 GHz x 8 = 15,099 TFLOPS a chip against 6 x 2,517 = 15,102.
  const System s(presets(), "trn4-uc");
  const Totals t = totals(s);
  BOOST_CHECK_EQUAL(s.chips(), 32768u);
  BOOST_CHECK_EQUAL(t.cores, 786432u);
  BOOST_CHECK_CLOSE(tflops(chip_totals(s.design()), DType::mxfp4), 24 * 128.0 * 128 * 2 * 2.4e9 * 8 / 1e12, 1e-9);
  BOOST_CHECK_CLOSE(t.scale_out_gbps_per_chip, 100.0, 1e-9);  // not NeuronLink
  BOOST_CHECK_CLOSE(t.port_gbps_per_chip, 16 * 640.0, 1e-9);
}

BOOST_AUTO_TEST_CASE(hop_counts_and_bisection_against_closed_forms) {
  // A k-ring's distances from a node are 0, 1, ..., k/2, ..., 1: for k = 4 they sum to 4, so over
  // the N - 1 other chips of a 4^d torus the mean is d * 4 * N / 4 / (N - 1) and the diameter 2d.
  // Bisection of a torus cut across dimension d: 2 links per ring, N / k_d rings.
  {
    const System s(presets(), "trn2-16");  // 4 x 4, 256 GB/s links
    const RouteStats r = route_stats(s);
    BOOST_CHECK_EQUAL(r.keys, 2u);  // a destination half way round either way
    BOOST_CHECK_EQUAL(r.pairs, 16u * 15 * 2);
    BOOST_CHECK_CLOSE(r.mean_links, 2.0 * 4 * 16 / 4 / 15, 1e-9);  // 32 / 15
    BOOST_CHECK_EQUAL(r.diameter, 4u);
    BOOST_CHECK_EQUAL(r.mean_switches, 0);
    BOOST_CHECK_CLOSE(bisection(s).gbps, 2 * 4 * 256.0, 1e-9);
  }
  {
    const System s(presets(), "trn2-us64");  // 4 x 4 x 4; z links (inter-instance) at 128 GB/s
    const RouteStats r = route_stats(s);
    BOOST_CHECK_CLOSE(r.mean_links, 3.0 * 4 * 64 / 4 / 63, 1e-9);  // 192 / 63
    BOOST_CHECK_EQUAL(r.diameter, 6u);
    const Bisection b = bisection(s);
    BOOST_CHECK_CLOSE(b.gbps, 2 * 16 * 128.0, 1e-9);  // the z cut: min(2 x 16 x 256, 2 x 16 x 128)
    BOOST_CHECK(has(b.cut, "z"));
  }
  {
    // one switch domain of N chips through P planes: every route chip -> plane -> chip; the
    // bisection is half the chips' plane ports: N / 2 x P x gbps
    const System s(presets(), "trn4-us128");
    const RouteStats r = route_stats(s);
    BOOST_CHECK_EQUAL(r.diameter, 2u);
    BOOST_CHECK_CLOSE(r.mean_links, 2.0, 1e-9);
    BOOST_CHECK_CLOSE(r.mean_switches, 1.0, 1e-9);
    BOOST_CHECK_CLOSE(bisection(s).gbps, 64 * 16 * 640.0, 1e-9);
  }
  {
    // 1 rack x 16 servers x 4 chips: every route one switch (server's or a rack plane); the
    // bisection splits the servers: 32 chips x 5 plane links x 2,560 / 11 GB/s
    const System s(presets(), "trn3-us64");
    const RouteStats r = route_stats(s);
    BOOST_CHECK_EQUAL(r.diameter, 2u);
    BOOST_CHECK_CLOSE(r.mean_links, 2.0, 1e-9);
    BOOST_CHECK_CLOSE(bisection(s).gbps, 32 * 5 * (2560.0 / 11), 1e-9);
  }
  {
    // 2 racks x 18 x 4: from a chip, 3 in its server and 68 in its rack take 2 links, its peer in
    // the other rack 1, the other 71 there 3: (6 + 136 + 1 + 213) / 143; the racks are joined by
    // 72 chips x 2 links of 2,560 / 11 GB/s
    const System s(presets(), "trn3-us144");
    const RouteStats r = route_stats(s);
    BOOST_CHECK_EQUAL(r.diameter, 3u);
    BOOST_CHECK_CLOSE(r.mean_links, 356.0 / 143, 1e-9);
    const Bisection b = bisection(s);
    BOOST_CHECK_CLOSE(b.gbps, 72 * 2 * (2560.0 / 11), 1e-9);
    BOOST_CHECK(has(b.cut, "rack"));
  }
}

BOOST_AUTO_TEST_CASE(every_pair_routed_deadlock_free_at_reduced_ultracluster_size) {
  // trn4-uc's all-pairs check would walk 10^9 routes; the same topology with 8 UltraServers
  // (1,024 chips) is walked whole, and the full size from 64 sources.
  const Presets p = default_presets({"system.trn4-uc.topology.ultraservers=8"});
  const System s(p, "trn4-uc");
  BOOST_REQUIRE_EQUAL(s.chips(), 1024u);
  const RouteStats r = route_stats(s, 1024);
  BOOST_CHECK(!r.sampled);
  BOOST_CHECK_EQUAL(r.pairs, 1024u * 1023 * s.route_keys());
  BOOST_CHECK(r.deadlock_free);
  BOOST_CHECK_EQUAL(r.diameter, 4u);  // chip, leaf, spine, leaf, chip
  const System full(presets(), "trn4-uc");
  const RouteStats rf = route_stats(full);
  BOOST_CHECK(rf.sampled);
  BOOST_CHECK(rf.deadlock_free);
  // bisection: half the UltraServers reach the other half through their chips' scale-out ports
  BOOST_CHECK_CLOSE(bisection(full).gbps, 16384 * 100.0, 1e-9);
}

BOOST_AUTO_TEST_CASE(routes_spread_over_every_link_of_a_group) {
  // A chip pair's route keys reach every link the pair may use: on the planes all P planes; on the
  // NeuronSwitch systems the 4 server links and 5 rack planes within a server, the 5 planes across
  // servers, both inter-rack links across racks; on a torus a destination half way round both ways.
  // Over an all-to-all (every destination, every key) every link of every chip carries traffic both
  // ways, and the dependency graph of all the keys' routes stays acyclic (route_stats).
  auto first_hops = [](const System& s, unsigned a, unsigned b) {
    std::set<unsigned> chs;
    for (unsigned key = 0; key < s.route_keys(); ++key) chs.insert(s.route(a, b, key).front().channel);
    return chs.size();
  };
  {
    const System s(presets(), "trn4-us128");
    BOOST_CHECK_EQUAL(s.route_keys(), 16u);
    for (unsigned b : {1u, 17u, 127u}) BOOST_CHECK_EQUAL(first_hops(s, 0, b), 16u);
  }
  {
    const System s(presets(), "trn3-us144");  // chip (rack, server, chip) = 72 r + 4 s + c
    BOOST_CHECK_EQUAL(s.route_keys(), 90u);   // lcm(4 + 5, 5, 2)
    BOOST_CHECK_EQUAL(first_hops(s, 0, 3), 9u);
    BOOST_CHECK_EQUAL(first_hops(s, 0, 4), 5u);
    BOOST_CHECK_EQUAL(first_hops(s, 0, 72), 2u);
    BOOST_CHECK_EQUAL(first_hops(s, 0, 143), 2u);
    // key 0 is the one route the cycle level's tables hold
    for (unsigned b : {3u, 4u, 72u, 143u})
      BOOST_CHECK(s.route(0, b, 0).front().channel == s.route(0, b).front().channel);
  }
  {
    const System s(presets(), "trn2-16");  // 4 x 4: chip 2 is half way round chip 0's x ring
    BOOST_CHECK_EQUAL(s.route_keys(), 2u);
    BOOST_CHECK_EQUAL(first_hops(s, 0, 2), 2u);
    BOOST_CHECK_EQUAL(first_hops(s, 0, 1), 1u);
  }
  for (const char* key : {"trn1-16", "trn2-us64", "trn3-us64", "trn3-us144", "trn4-us128"}) {
    BOOST_TEST_CONTEXT(key) {
      const System s(presets(), key);
      std::vector<bool> carried(2 * s.links().size(), false);
      for (unsigned a = 0; a < s.chips(); ++a)
        for (unsigned b = 0; b < s.chips(); ++b)
          for (unsigned k = 0; a != b && k < s.route_keys(); ++k)
            for (const Hop& h : s.route(a, b, k)) carried[h.channel] = true;
      BOOST_CHECK_EQUAL(std::count(carried.begin(), carried.end(), false), 0);
      const RouteStats r = route_stats(s);
      BOOST_CHECK_EQUAL(r.keys, s.route_keys());
      BOOST_CHECK(r.deadlock_free);
    }
  }
}

BOOST_AUTO_TEST_CASE(dependency_check_catches_a_torus_without_datelines) {
  // The same dimension-order routes with every hop in VC class 0: each ring's channels then depend
  // on each other in a circle, and the check must say so.
  const System s(presets(), "trn2-16");
  const RouteFn flat = [&](unsigned a, unsigned b, unsigned key) {
    std::vector<Hop> r = s.route(a, b, key);
    for (Hop& h : r) h.vc_class = 0;
    return r;
  };
  const RouteStats r = route_stats(s, 1024, 64, flat);
  BOOST_CHECK(!r.deadlock_free);
  BOOST_CHECK(!r.cycle.empty());
  BOOST_TEST_MESSAGE("cycle found: " << r.cycle);
  BOOST_CHECK(route_stats(s).deadlock_free);  // with the datelines it is acyclic
}

BOOST_AUTO_TEST_CASE(route_checks_catch_a_broken_route) {
  // A route that ends anywhere but at its destination must not pass: System::route throws when the
  // tables send a packet out of the network or round in circles.
  const System s(presets(), "trn3-us144");
  BOOST_CHECK_THROW(s.next_hop(s.chips() + 0 /* r0.s00 switch */, 143, 1, 0), std::logic_error);
  BOOST_CHECK_NO_THROW(s.route(0, 143));
}

BOOST_AUTO_TEST_CASE(what_if_six_intra_server_links) {
  // "What if NeuronLink-v4 had 6 intra-server links?": 2 more 232.7 GB/s ports a chip; each server
  // switch takes 4 chips x 6 links.
  const Presets p = default_presets({"links.intra_server.count=6"}, "trn3-us144");
  const System s(p, "trn3-us144");
  BOOST_CHECK_CLOSE(totals(s).port_gbps_per_chip, 13 * (2560.0 / 11), 1e-9);
  BOOST_CHECK_EQUAL(s.nodes()[s.chips()].ports, 24u);
  BOOST_CHECK(route_stats(s).deadlock_free);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(system_flit_level)

BOOST_AUTO_TEST_CASE(ultraservers_of_64_and_144_chips_deliver_uniform_traffic) {
  // The composed networks handed to the flit-level model (routers at every chip and switch, the
  // link layer on every link): uniform random packets for a while, then stopped; the scoreboard
  // throws on any packet lost, duplicated, corrupted or out of order, and everything must drain.
  for (const char* key : {"trn2-us64", "trn3-us64", "trn3-us144", "trn4-us128"}) {
    BOOST_TEST_CONTEXT(key) {
      const System s(presets(), key);
      BOOST_REQUIRE(s.flit_net_fits());
      link::NetRunner run(s.flit_net(), 7);
      BOOST_REQUIRE_EQUAL(run.net().endpoints(), s.chips());
      run.run(300, 0.3);
      const auto took = run.drain(20000);
      BOOST_REQUIRE(took.has_value());
      BOOST_CHECK_GT(run.traffic().created(), s.chips() * 300 * 0.3 / 2.5 / 2);
      BOOST_CHECK_EQUAL(run.traffic().delivered(), run.traffic().created());
      // the flit-level paths are the system's routes
      for (unsigned d : {1u, s.chips() / 2, s.chips() - 1})
        BOOST_CHECK_EQUAL(run.net().links_on_path(0, d), s.route(0, d).size());
      BOOST_TEST_MESSAGE(key << ": " << run.traffic().created() << " packets, drained " << *took << " cycles after");
    }
  }
}

BOOST_AUTO_TEST_CASE(flit_level_refuses_systems_beyond_8_bit_chip_ids) {
  const System s(presets(), "trn4-uc");
  BOOST_CHECK(!s.flit_net_fits());
  BOOST_CHECK_THROW(s.flit_net(), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(system_preset_errors)

BOOST_AUTO_TEST_CASE(bad_files_name_file_line_and_what) {
  const std::string good(default_presets_text());
  // a TOML syntax error: file, line and column from the parser
  BOOST_CHECK(has(preset_error("[core.v2\ntitle = 1\n"), "bad.toml:1:"));
  // the error of the built-in file with its first `from` replaced by `to`
  auto edited = [&good](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return preset_error(t);
  };
  // an unknown key, on its line
  const std::string e1 = edited("tensor_rows = 128", "tensor_rowz = 128");
  BOOST_CHECK(has(e1, "core.v2.tensor_rowz: unknown key"));
  BOOST_CHECK(has(e1, "bad.toml:"));
  // a value of the wrong type and one out of range
  BOOST_CHECK(has(edited("cores = 2", "cores = \"two\""), "chip.trainium.cores: must be an integer"));
  BOOST_CHECK(has(edited("cores = 8", "cores = 0"), "chip.trainium2.cores: 0 is out of range"));
  // a reference to nothing
  BOOST_CHECK(has(edited("core = \"v3\"", "core = \"v9\""), "no core generation 'v9'"));
  // a missing key names its table
  BOOST_CHECK(has(edited("hbm_latency_ns = 500", ""), "chip.trainium: 'hbm_latency_ns' is missing"));
  // the collective cost and the published tables are checked as the rest
  BOOST_CHECK(has(edited("launch_us = 49.4,", "launch_uz = 49.4,"), "chip.trainium.collective.launch_uz: unknown key"));
  BOOST_CHECK(has(edited("rows = [[33554432, 768]]", "rows = [[33554432, 768, 1]]"),
                  "system.trn1-16.measured[1].rows[0][2]: must be the algorithm the run reported"));
  BOOST_CHECK(
      has(edited("rows = [[33554432, 768]]", "rows = [[33554432, 768, \"ring\", 4]]"),
          "system.trn1-16.measured[1].rows[0]: must be [bytes, microseconds] or [bytes, microseconds, algorithm]"));
  BOOST_CHECK(
      has(edited("rows = [[33554432, 768]]", "rows = []"), "system.trn1-16.measured[1].rows: must be a non-empty"));
  // a published row's algorithm, where the run reported one (trn2-16's --show-algorithm table)
  for (const auto& sp : presets().systems)
    for (const auto& m : sp.measured) {
      BOOST_TEST(m.algos.size() == m.rows.size());
      if (sp.key == "trn2-16")
        BOOST_TEST(m.algos ==
                   (std::vector<std::string>{"mesh", "mesh", "mesh", "mesh", "mesh", "rdh", "kangaring", "kangaring"}));
      if (sp.key == "trn1-16") BOOST_TEST(m.algos[0].empty());
    }
  BOOST_CHECK(has(edited("lnc = 2", "lnc = 3"), "chip.trainium2.lnc: must divide the chip's 8 cores"));
  // the line number is the offending line's
  const auto at = good.find("tensor_ghz = 2.4");
  const auto line = 1 + std::count(good.begin(), good.begin() + static_cast<long>(at), '\n');
  BOOST_CHECK(has(edited("tensor_ghz = 2.4", "tensor_ghz = -1.0"), fmt::format("bad.toml:{}:", line)));
}

BOOST_AUTO_TEST_CASE(topologies_that_do_not_fit_are_refused) {
  // a torus ring takes two ports of its class on every chip: trn2's 2 inter-instance ports cannot
  // serve both x and y
  BOOST_CHECK(has(set_error({"system.trn2-16.topology.classes=[\"inter_instance\", \"inter_instance\"]"}),
                  "the torus takes 4 ports of class 'inter_instance' per chip but chip 'trainium2' has 2"));
  BOOST_CHECK(has(set_error({"system.trn2-16.topology.dims=[4]"}), "must be an array of 2 or 3 integers"));
  BOOST_CHECK(has(set_error({"system.trn3-us144.topology.racks=3"}), "3 is out of range (1..2)"));
  BOOST_CHECK(has(set_error({"system.trn3-us144.topology.kind=\"ring\""}), "unknown topology 'ring'"));
  BOOST_CHECK(
      has(set_error({"system.trn4-us128.chip=\"trainium3\""}), "chip 'trainium3' has no link class 'neuronlink'"));
}

BOOST_AUTO_TEST_CASE(bad_set_values_are_refused) {
  BOOST_CHECK(has(set_error({"chip.trainium3.corez=4"}), "--set chip.trainium3.corez: no such key"));
  BOOST_CHECK(has(set_error({"cores=4"}), "--set cores: no such key"));
  BOOST_CHECK(has(set_error({"chip.trainium3.cores=abc"}), "'abc' is a string, the preset holds an integer"));
  BOOST_CHECK(has(set_error({"chip.trainium3.cores=0"}),
                  "--set chip.trainium3.cores=0: chip.trainium3.cores: 0 is out of range"));
  BOOST_CHECK(has(set_error({"chip.trainium3.cores=2.5"}), "must be an integer"));
  BOOST_CHECK(has(set_error({"chip.trainium3"}), "expected KEY=VALUE"));
  BOOST_CHECK(has(set_error({"chip.trainium3=1"}), "names a table"));
  BOOST_CHECK(has(set_error({"tensor_ghz=3"}, "trn9"), "unknown preset 'trn9'"));
  // relative keys resolve under the preset, its chip, its core
  const Presets p = default_presets({"tensor_ghz=3", "cores=4"}, "trn3-us144");
  BOOST_CHECK_EQUAL(p.core("v4").tensor_ghz, 3.0);
  BOOST_CHECK_EQUAL(p.chip("trainium3").cores, 4u);
  BOOST_CHECK_EQUAL(p.chip("trainium2").cores, 8u);  // the others untouched
}

BOOST_AUTO_TEST_SUITE_END()
