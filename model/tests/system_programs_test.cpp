// Boost.Test units of the systems of chips run by the model alone (docs/system.md, "Systems in
// RTL"): trn::system::ChipTorus through trn::system::TorusRunner running the collective programs
// trn::collective::emit compiles (docs/collectives.md, "Programs for the RTL"), every chip's result
// against the plain reference; the emitter's refusals.
#include <fmt/format.h>

#include <boost/test/unit_test.hpp>
#include <functional>

#include "collective/program.hpp"
#include "system/runner.hpp"

using namespace trn;

namespace {

const cfg::Arch& tiny() { return cfg::find("tiny")->arch; }

struct Outcome {
  std::string diff;  ///< the first difference from the reference ("" none)
  std::uint64_t cycles = 0;
  bool per_sender = false;  ///< the programs count semaphores per sender
};

/// op by algo over every chip of system `prm` (placed by `place`), tiny chips with collective
/// cores only, run by Runner<Sys>.
template <class Sys>
Outcome run_on(const typename Sys::Params& prm, const collective::Placement& place, collective::Op op,
               collective::Algo algo, collective::Elem e, std::uint64_t bytes, bool strong, bool barrier,
               std::uint32_t desc, std::uint64_t seed, std::uint64_t chunk, bool preload = false,
               dma::MemSystem::Params mem = {4, 60, 2, 0.9, 0.9, 0}) {
  collective::EmitConfig ec;
  ec.op = op;
  ec.algo = algo;
  ec.elem = e;
  ec.bytes = bytes;
  ec.place = place;
  ec.unit = prm.chip.cores;
  ec.queues = prm.chip.core.core.queues;
  ec.base = 0x1000;
  ec.desc_bytes = desc;
  ec.chunk = chunk;
  ec.barrier = barrier;
  ec.hbm_bytes = prm.chip.core.core.hbm_bytes;
  const collective::Programs P = collective::emit(ec);
  system::Runner<Sys> r(prm, mem, seed, strong);
  const auto in = collective::seeded_inputs(P, e, seed);
  const unsigned n = P.schedule.ranks;
  std::vector<std::uint64_t> masks(prm.chips(), 0);
  for (unsigned k = 0; k < n; ++k) {
    const unsigned chip = ec.place.chip[k];
    const auto b = collective::to_bytes(in[k], e);
    std::copy(b.begin(), b.end(), r.hbm(chip).image().hbm.begin() + ec.base);
    const isa::Program prog = isa::assemble(P.text[k], "rank.s", isa::config_defines(tiny()));
    if (preload)
      r.preload(chip, ec.unit, prog);
    else
      r.load(chip, ec.unit, prog);
    masks[chip] = 1ull << ec.unit;
  }
  Outcome o;
  o.per_sender = P.per_sender;
  o.cycles = r.run(masks, 2000000);
  const auto want = collective::reference(op, algo, e, ec.place.levels,
                                          static_cast<unsigned>(P.seg_bytes / collective::elem_bytes(e)), in,
                                          ec.place.rings, ec.place.stripes);
  for (unsigned k = 0; k < n && o.diff.empty(); ++k) {
    const auto& h = r.hbm(ec.place.chip[k]).image().hbm;
    o.diff = collective::first_difference(
        k, collective::from_bytes(h.data() + P.output_addr(k, ec.base), P.output_bytes(), e), want[k]);
  }
  return o;
}

/// op by algo over every chip of a kx x ky torus of tiny chips with collective cores only.
Outcome run_collective(unsigned kx, unsigned ky, collective::Op op, collective::Algo algo, collective::Elem e,
                       std::uint64_t bytes, bool strong = true, bool barrier = false, std::uint32_t desc = 65536,
                       std::uint64_t seed = 1, std::uint64_t chunk = 0,
                       const std::function<void(system::ChipTorus::Params&)>& adjust = {}) {
  auto prm = system::ChipTorus::Params::of(tiny(), 0, kx, ky);
  if (adjust) adjust(prm);
  return run_on<system::ChipTorus>(prm, collective::place_torus({kx, ky}, 0, algo), op, algo, e, bytes, strong, barrier,
                                   desc, seed, chunk);
}

/// The same over the n chips of a switch (rank k on chip k).
Outcome run_switched(unsigned n, collective::Op op, collective::Algo algo, collective::Elem e, std::uint64_t bytes,
                     bool strong = true, bool barrier = false, std::uint32_t desc = 65536, std::uint64_t seed = 1) {
  return run_on<system::ChipSwitch>(system::ChipSwitch::Params::of(tiny(), 0, n), collective::place_torus({n}, 0, algo),
                                    op, algo, e, bytes, strong, barrier, desc, seed, 0);
}

/// Whether op by a has no schedule on a system of one level (collective::build's refusals).
bool no_schedule(collective::Op op, collective::Algo a, bool two_levels) {
  if (op == collective::Op::permute) return a != collective::Algo::mesh;
  if (a == collective::Algo::hier || a == collective::Algo::hrings)
    return !two_levels || op == collective::Op::all_to_all;
  if (a == collective::Algo::rings) return op == collective::Op::all_to_all;
  if (a == collective::Algo::kangaring) return true;  // pairs of a chip's ranks; these ranks are chips
  return false;
}

/// Every operation by every algorithm in FP32 and BF16 through `run`: each result equals the
/// reference, and only the schedules that do not exist (no_schedule) are refused; how many ran.
template <class Run>
unsigned every_collective(Run&& run, bool two_levels) {
  unsigned ran = 0;
  for (collective::Op op : collective::kOps)
    for (collective::Algo a : collective::kAlgos)
      for (collective::Elem e : {collective::Elem::fp32, collective::Elem::bf16}) {
        const bool none = no_schedule(op, a, two_levels);
        const std::string what =
            fmt::format("{} by {} ({})", collective::op_name(op), collective::algo_name(a), collective::elem_name(e));
        Outcome o;
        try {
          o = run(op, a, e);
        } catch (const collective::Error& err) {
          BOOST_TEST(none, what << " refused: " << err.what());
          continue;
        }
        BOOST_TEST(!none, what << " ran, but no such schedule should exist");
        BOOST_TEST(o.diff == "", what);
        ++ran;
      }
  return ran;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(system_programs)

/// Every operation by every algorithm the 4 x 2 torus (8 chips) runs, FP32 and BF16: every rank's
/// result equals the reference bit for bit. The only refusals are the schedules that do not exist
/// (all-to-all by hier, hrings and rings, a permute by anything but mesh, KangaRing, whose ranks are
/// pairs on a chip): 22 pairs of 35 run, in two types (rings: the two snakes of the 4 x 2 torus,
/// each both ways; hrings: each dimension outermost in turn, each both ways).
BOOST_AUTO_TEST_CASE(every_collective_on_a_4x2_torus_equals_the_reference) {
  BOOST_TEST(every_collective([](collective::Op op, collective::Algo a,
                                 collective::Elem e) { return run_collective(4, 2, op, a, e, 8 * 64); },
                              true) == 44u);
}

/// Every operation by every algorithm an all-to-all switch of 8 chips runs (one level: no hier),
/// FP32 and BF16: every rank's result equals the reference bit for bit;
/// 16 pairs of 25 run (a permute by mesh only, no all-to-all by rings), in two types.
BOOST_AUTO_TEST_CASE(every_collective_on_a_switch_of_8_equals_the_reference) {
  BOOST_TEST(every_collective([](collective::Op op, collective::Algo a,
                                 collective::Elem e) { return run_switched(8, op, a, e, 8 * 64); },
                              false) == 32u);
}

/// On a switch every pair of chips is two hops apart: mesh all-to-all sends every pair's segment at
/// once, and the switch carries them in parallel, so it is faster than the ring's 7 rounds.
/// Write-after-write without the barrier breaks a ring all-reduce there too; the barrier mends it.
BOOST_AUTO_TEST_CASE(switch_parallel_paths_and_write_after_write) {
  using collective::Algo;
  using collective::Op;
  const auto E = collective::Elem::fp32;
  const auto mesh = run_switched(8, Op::all_to_all, Algo::mesh, E, 8 * 256);
  const auto ring = run_switched(8, Op::all_to_all, Algo::ring, E, 8 * 256);
  BOOST_TEST(mesh.diff == "");
  BOOST_TEST(ring.diff == "");
  BOOST_TEST(mesh.cycles < ring.cycles, mesh.cycles << " vs " << ring.cycles);
  unsigned broken = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    broken += !run_switched(8, Op::all_reduce, Algo::ring, E, 8 * 128, false, false, 16, seed).diff.empty();
    BOOST_TEST(run_switched(8, Op::all_reduce, Algo::ring, E, 8 * 128, false, true, 16, seed).diff == "");
  }
  BOOST_TEST(broken > 0u);
}

/// Pipelined instances (a chunk of a segment each) on a ring of 4.
BOOST_AUTO_TEST_CASE(pipelined_instances_on_a_ring) {
  const auto o = run_collective(4, 1, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32,
                                4 * 256, true, false, 65536, 3, 64);
  BOOST_TEST(o.diff == "");
}

/// More instances x rounds than a collective core has semaphores (3 x 14 on a ring of 8): the
/// programs count each sender's transfers on one semaphore per (instance, sender), and the result
/// is still the reference's. With write-after-write queues, short descriptors and no barrier a
/// later transfer's semaphore can overtake an earlier one's data, which breaks the running count for
/// some seed; the barrier mends it.
BOOST_AUTO_TEST_CASE(running_counts_per_sender_when_rounds_do_not_fit) {
  const auto o = run_collective(4, 2, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32,
                                8 * 96, true, false, 65536, 1, 32);
  BOOST_TEST(o.per_sender);
  BOOST_TEST(o.diff == "");
  unsigned broken = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto w = run_collective(4, 2, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32,
                                  8 * 96, false, false, 16, seed, 32);
    broken += !w.diff.empty();
    const auto b = run_collective(4, 2, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32,
                                  8 * 96, false, true, 16, seed, 32);
    BOOST_TEST(b.diff == "");
  }
  BOOST_TEST(broken > 0u);
}

/// The model's wires: links of 40 cycles (with buffers covering the round trip) add about the
/// latency of each round's hop to a latency-bound collective, and links of half rate make a
/// bandwidth-bound one up to twice as long (less: at full rate the tiny chip's DMA, not the link, is
/// the busiest, at 3.1 of the link's 8 bytes a cycle); the data is exact either way.
BOOST_AUTO_TEST_CASE(wire_latency_and_rate) {
  using collective::Algo;
  using collective::Op;
  const auto E = collective::Elem::fp32;
  auto deep = [](system::ChipTorus::Params& p) {
    p.chip.core.core.hbm_bytes = 1 << 20;
    p.chip.d = 128;
    p.chip.rdepth = 256;
    p.chip.timeout = 512;
  };
  const auto base = run_collective(4, 1, Op::all_reduce, Algo::ring, E, 4 * 64, true, false, 65536, 1, 0, deep);
  const auto slow = run_collective(4, 1, Op::all_reduce, Algo::ring, E, 4 * 64, true, false, 65536, 1, 0,
                                   [&](system::ChipTorus::Params& p) {
                                     deep(p);
                                     p.wire[0].latency = 40;
                                   });
  BOOST_TEST(base.diff == "");
  BOOST_TEST(slow.diff == "");
  // 6 rounds, each a hop out and a semaphore back's worth of waiting on the 40-cycle wire at least
  BOOST_TEST(slow.cycles >= base.cycles + 6 * 40, base.cycles << " -> " << slow.cycles);
  BOOST_TEST(slow.cycles <= base.cycles + 6 * 2 * 40 + 200, base.cycles << " -> " << slow.cycles);
  const auto wide = run_collective(4, 1, Op::all_gather, Algo::ring, E, 4 * 65536, true, false, 65536, 1, 0, deep);
  const auto half = run_collective(4, 1, Op::all_gather, Algo::ring, E, 4 * 65536, true, false, 65536, 1, 0,
                                   [&](system::ChipTorus::Params& p) {
                                     deep(p);
                                     p.wire[0].rate = 0.5;
                                   });
  BOOST_TEST(wide.diff == "");
  BOOST_TEST(half.diff == "");
  const double ratio = static_cast<double>(half.cycles) / static_cast<double>(wide.cycles);
  BOOST_TEST(ratio > 1.4, wide.cycles << " -> " << half.cycles);
  BOOST_TEST(ratio < 2.2, wide.cycles << " -> " << half.cycles);
}

/// Write-after-write queues without the barrier, transfers cut into short descriptors: a
/// semaphore overtakes its data and some rank computes on data not yet there, so the result
/// differs from the reference for some seed; with the barrier it never does.
BOOST_AUTO_TEST_CASE(waw_without_barrier_breaks_a_collective_and_the_barrier_mends_it) {
  unsigned broken = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto o = run_collective(4, 1, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32,
                                  4 * 512, false, false, 16, seed);
    broken += !o.diff.empty();
    const auto b = run_collective(4, 1, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32,
                                  4 * 512, false, true, 16, seed);
    BOOST_TEST(b.diff == "");
  }
  BOOST_TEST(broken > 0u);
}

/// What the emitter refuses, each in one line.
BOOST_AUTO_TEST_CASE(the_emitter_refuses_what_cannot_run) {
  collective::EmitConfig ec;
  ec.place = collective::place_torus({4, 1}, 0, collective::Algo::ring);
  ec.bytes = 4 * 1024;
  ec.chunk = 16;  // 64 instances x 6 rounds
  BOOST_CHECK_THROW(collective::emit(ec), collective::Error);
  ec.chunk = 0;
  ec.hbm_bytes = 4096;  // the regions do not fit
  BOOST_CHECK_THROW(collective::emit(ec), collective::Error);
  ec.hbm_bytes = 0;
  ec.bytes = 6;  // not whole FP32 elements
  BOOST_CHECK_THROW(collective::emit(ec), collective::Error);
}

/// Programs written straight into the collective cores' instruction memories (Runner::preload)
/// run as the ones loaded through the instruction port: the same cycles and results, on a torus
/// and on a switch, with an HBM whose draws do not follow the cycle count (its readies always
/// up, as the cycle level's; its latencies drawn per read); a unit that is no collective core is
/// refused.
BOOST_AUTO_TEST_CASE(preloaded_programs_run_as_loaded_ones) {
  using collective::Algo;
  using collective::Elem;
  using collective::Op;
  const auto torus = system::ChipTorus::Params::of(tiny(), 0, 2, 2);
  const auto sw = system::ChipSwitch::Params::of(tiny(), 0, 4);
  const dma::MemSystem::Params mem{4, 60, 2, 1.0, 1.0, 0};
  auto both = [](auto run, const char* what) {
    const Outcome port = run(false), direct = run(true);
    BOOST_TEST(port.diff.empty(), what << ": " << port.diff);
    BOOST_TEST(direct.diff.empty(), what << ": " << direct.diff);
    BOOST_TEST(port.cycles == direct.cycles, what << ": " << port.cycles << " and " << direct.cycles << " cycles");
    BOOST_TEST(port.cycles > 0u, what);
  };
  both(
      [&](bool pre) {
        return run_on<system::ChipTorus>(torus, collective::place_torus({2, 2}, 0, Algo::ring), Op::all_reduce,
                                         Algo::ring, Elem::fp32, 4 * 256, true, false, 65536, 3, 0, pre, mem);
      },
      "ring all-reduce on a 2 x 2 torus");
  both(
      [&](bool pre) {
        return run_on<system::ChipSwitch>(sw, collective::place_torus({4}, 0, Algo::mesh), Op::all_to_all, Algo::mesh,
                                          Elem::bf16, 4 * 256, true, false, 65536, 5, 0, pre, mem);
      },
      "mesh all-to-all on a switch of 4");
  auto prm = system::ChipTorus::Params::of(tiny(), 1, 2, 2);
  system::Runner<system::ChipTorus> r(prm, dma::MemSystem::Params{4, 60, 2, 0.9, 0.9, 0}, 1, true);
  BOOST_CHECK_THROW(r.preload(0, 0, isa::assemble(".stream sync\n    end\n", "end.s", isa::config_defines(tiny()))),
                    std::invalid_argument);
}

/// A core error on one chip of a torus with wires ends a run in windows (Runner::set_window) as it
/// ends the lockstep's: the same one line naming the chip, the unit, the stream and the pc (the
/// other chips wait on a semaphore that never comes, so only the error can end the run).
BOOST_AUTO_TEST_CASE(a_core_error_ends_a_run_in_windows_as_in_the_lockstep) {
  auto prm = system::ChipTorus::Params::of(tiny(), 0, 2, 2);
  prm.chip.d = 128;
  prm.chip.rdepth = 256;
  prm.chip.timeout = 512;
  prm.wire[0].latency = prm.wire[1].latency = 40;
  const unsigned unit = prm.chip.cores;
  const auto defs = isa::config_defines(tiny());
  const isa::Program wait = isa::assemble(".sem s\n.stream sync\n sem_wait wait=s>=1\n end\n", "wait.s", defs);
  isa::Program bad = isa::assemble(
      ".sem s\n.stream sync\n sem_add post=s+=1\n sem_add post=s+=1\n sem_add post=s+=1\n end\n", "bad.s", defs);
  isa::set(bad.streams[3][2], isa::tbl::kF_k, 3);  // a field sem_add does not use
  auto error = [&](unsigned window) {
    system::Runner<system::ChipTorus> r(prm, dma::MemSystem::Params{4, 60, 2, 0.9, 0.9, 0}, 1, true);
    r.set_window(window);
    std::vector<std::uint64_t> masks(prm.chips(), 1ull << unit);
    for (unsigned c = 0; c < prm.chips(); ++c) r.load(c, unit, c == 2 ? bad : wait);
    try {
      r.run(masks, 100000);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string lock = error(0), win = error(39);
  BOOST_TEST(lock.find(fmt::format("system model: chip 2 unit {} stopped with error 1", unit)) == 0u, lock);
  BOOST_TEST(lock.find("at pc 2") != std::string::npos, lock);
  BOOST_TEST(win == lock);
}

BOOST_AUTO_TEST_SUITE_END()
