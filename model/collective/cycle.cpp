// The cycle level (docs/collectives.md, "The cycle level"): the schedule compiled into collective-
// core programs (collective::emit) and run on the cycle-exact chips of the system
// (trn::system::ChipTorus of trn::chip::Chip, through trn::system::TorusRunner): every DMA, NIC,
// router and link layer of the run is the verified unit's model.
//
// The system: the preset's torus (its dimensions and each dimension's link class), of chips of an
// RTL configuration (Config::cycle_config) built with one collective core and no NeuronCore (the
// run uses no compute engine: the same classes, fewer instances). Time: a cycle is one flit (W bits
// of the configuration) on the preset's fastest link class, so that link carries its bandwidth;
// a slower class's wires carry gbps / fastest flits a cycle. Each class's latency is its wires'
// (in cycles), and the HBM's read latency is the preset's. Assumptions of a chip built for these
// wires (the RTL configurations' are sized for short ones): the routers' VC buffers, the link
// layer's replay buffer and timeout cover a link's round trip; the DMA has the 256 read slots its
// read id names.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "collective/engine.hpp"
#include "collective/program.hpp"
#include "common/clog2.hpp"
#include "dma/desc.hpp"
#include "isa/isa.hpp"
#include "system/runner.hpp"
#include "system/system.hpp"

namespace trn::collective {

namespace {

std::uint64_t pow2_at_least(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

}  // namespace

CycleSystem cycle_system(const system::System& s, const Config& c, std::uint64_t hbm_need) {
  const auto& t = s.preset().topo;
  if (t.kind != system::TopoKind::torus)
    throw Error(
        fmt::format("--fidelity cycle: {} is a switched system; the cycle level builds tori of chips", s.preset().key));
  if (s.chips() > 255)
    throw Error(
        fmt::format("--fidelity cycle: {} has {} chips; a chip address names at most 255", s.preset().key, s.chips()));
  const cfg::Config* cf = cfg::find(c.cycle_config);
  if (!cf) throw Error(fmt::format("--fidelity cycle: unknown configuration '{}'", c.cycle_config));
  const cfg::Arch& a = cf->arch;
  CycleSystem cs;
  cs.arch = &a;
  const unsigned kx = t.dims.at(0), ky = t.dims.size() > 1 ? t.dims[1] : 1, kz = t.dims.size() > 2 ? t.dims[2] : 1;
  cs.prm = system::ChipTorus::Params::of(a, 0, kx, ky, kz);
  chip::Chip::Params& p = cs.prm.chip;
  p.cc_cores = 1;
  // the classes of the dimensions, the fastest one's flit a cycle
  std::vector<const system::LinkClassInfo*> cls;
  double gmax = 0;
  for (std::size_t d = 0; d < t.dims.size(); ++d) {
    const auto& v = s.link_classes();
    const auto it = std::find_if(v.begin(), v.end(), [&](const auto& k) { return k.name == t.classes.at(d); });
    if (it == v.end()) throw std::logic_error("cycle level: a torus dimension's link class is unknown");
    cls.push_back(&*it);
    gmax = std::max(gmax, it->gbps);
  }
  cs.cycle_ns = p.w / 8.0 / gmax;
  unsigned rtt = 0;
  double slowest = 1;
  for (std::size_t d = 0; d < cls.size(); ++d) {
    auto& w = cs.prm.wire[d];
    w.latency = static_cast<unsigned>(std::lround(cls[d]->latency_ns / cs.cycle_ns));
    w.rate = cls[d]->gbps / gmax;
    slowest = std::min(slowest, w.rate);
    rtt = std::max(rtt, 2 * std::max(1u, w.latency) + 16);
  }
  // buffers for the round trip (ASSUMPTION): a VC's credits cover it, the replay buffer holds a round
  // trip of flits, and a flit waits for its acknowledgement longer than a full VC set takes to drain
  // through the slowest wire
  p.d = std::max(p.d, rtt);
  p.rdepth = static_cast<unsigned>(pow2_at_least(std::max<unsigned>({p.rdepth, rtt, p.v * p.d})));
  p.timeout = std::max(p.timeout, static_cast<unsigned>(2 * rtt + p.v * p.d / slowest));
  // HBM: the preset's read latency; as many read slots as a read request's id names (the RTL's 256:
  // with a latency of L cycles one stream of reads sustains 256 beats per L cycles)
  const double lat_ns = s.design().hbm.empty() ? 0 : s.design().hbm[0].latency_ns;
  const double lat = lat_ns / cs.cycle_ns;
  cs.mem.hbm_lat_min = std::max(1u, static_cast<unsigned>(std::lround(lat * (1 - c.hbm_jitter / 2))));
  cs.mem.hbm_lat_max = std::max(cs.mem.hbm_lat_min, static_cast<unsigned>(std::lround(lat * (1 + c.hbm_jitter / 2))));
  cs.mem.sbuf_lat = 2;
  p.core.core.slots = (1u << dma::kReadIdBits) * p.core.core.dma_engines;  // a collective core has slots / engines
  // a chip's HBM: what the run needs, within the local address
  if (hbm_need > (std::uint64_t{1} << dma::kLocalBits))
    throw Error(fmt::format("--fidelity cycle: {} B a rank is beyond the {} MiB a chip's local HBM address reaches",
                            hbm_need, (1u << dma::kLocalBits) >> 20));
  p.core.core.hbm_bytes =
      static_cast<unsigned>(std::max<std::uint64_t>(p.core.core.hbm_bytes, pow2_at_least(hbm_need)));
  std::string wires;
  for (std::size_t d = 0; d < cls.size(); ++d)
    wires += fmt::format("{}{} {} cycles{}", d ? ", " : "", cls[d]->name, cs.prm.wire[d].latency,
                         cs.prm.wire[d].rate < 1 ? fmt::format(" at {:.2g} flit a cycle", cs.prm.wire[d].rate) : "");
  cs.describe = fmt::format(
      "{} chips of configuration {} (a collective core each, no NeuronCore); a cycle is {:.4g} ns (a {}-bit flit "
      "at {:g} GB/s); wires: {}; HBM read {}-{} cycles; VC buffers {} flits, replay {}, timeout {}",
      s.chips(), c.cycle_config, cs.cycle_ns, p.w, gmax, wires, cs.mem.hbm_lat_min, cs.mem.hbm_lat_max, p.d, p.rdepth,
      p.timeout);
  return cs;
}

namespace {

/// Cycles from the start of a transfer of `bytes` from chip 0 of a ring of 4 such chips (the wires
/// of the system's first dimension) to its semaphore ending the program of chip `to`.
std::uint64_t probe_cycles(const CycleSystem& cs, unsigned to, unsigned bytes) {
  system::ChipTorus::Params p = cs.prm;
  p.chip.kx = 4;
  p.chip.ky = p.chip.kz = 1;
  p.chip.chips = p.chip.core.core.chips = 4;
  p.wire = {cs.prm.wire[0], {}, {}};
  system::TorusRunner tr(p, cs.mem, 1, true);
  const unsigned unit = p.chip.cores;
  const auto defs = isa::config_defines(*cs.arch);
  tr.load(0, unit,
          isa::assemble(fmt::format(".stream sync\n    dma_start queue=0 src=hbm:0x0 dst=hbm:{:#x} len={} stype=bytes "
                                    "dtype=bytes dsem=0+=1 dsem.unit={} dsem.chip={}\n    end\n",
                                    std::uint64_t{to + 1} << dma::kChipLsb, bytes, unit + 1, to + 1),
                        "probe_send.s", defs));
  tr.load(to, unit, isa::assemble(".stream sync\n    sem_wait wait=0>=1\n    end\n", "probe_wait.s", defs));
  std::vector<std::uint64_t> masks(4, 0);
  masks[0] = masks[to] = std::uint64_t{1} << unit;
  return tr.run(masks, 2000000);
}

}  // namespace

Config cycle_equivalent(const system::System& s, const Config& c, const CycleSystem& cs) {
  Config f = c;
  f.fidelity = Fidelity::flow;
  f.data = false;
  const double beat_gbps = cs.prm.chip.core.core.beat_bytes / cs.cycle_ns;
  // the chip's one NIC injects and ejects a flit a cycle; its DMA reads a beat a cycle; its HBM port
  // reads a beat and writes a beat a cycle; a packet carries a write of a beat
  f.nic_gbps = cs.prm.chip.w / 8.0 / cs.cycle_ns;
  f.dma_gbps = beat_gbps;
  f.hbm_gbps = 2 * beat_gbps;
  f.pkt_bytes = cs.prm.chip.core.core.beat_bytes;
  f.desc_bytes = std::max(c.desc_bytes / f.pkt_bytes * f.pkt_bytes, f.pkt_bytes);
  f.inflight = 64;  // the programs issue every instance's round before the next round's waits
  // latencies: a hop beyond its wire (router, link layer), and a transfer beyond its route and the
  // HBM read (the program's issue, the DMA, the NIC both ways, the semaphore)
  const unsigned beat = cs.prm.chip.core.core.beat_bytes;
  const double one = static_cast<double>(probe_cycles(cs, 1, beat)),
               two = static_cast<double>(probe_cycles(cs, 2, beat));
  // the rate of one stream of writes (beats), chip to chip: what a chip's DMA, NIC and fabric
  // sustain together; the flow level's NIC limit (it counts the packets' wire bytes)
  const unsigned many = std::min(32768u, cs.prm.chip.core.core.hbm_bytes / 2) / beat * beat;
  const double stream = static_cast<double>(probe_cycles(cs, 1, many)) - one;
  const double rate = (many - beat) / stream;  // payload bytes a cycle
  const double wf = static_cast<double>(wire_bytes(beat, beat)) / beat;
  f.nic_gbps = std::min(f.nic_gbps, rate * wf / cs.cycle_ns);
  const double hop = two - one;
  const double wire = std::max(1u, cs.prm.wire[0].latency);
  const double read = s.design().hbm.empty() ? 0 : s.design().hbm[0].latency_ns;
  f.hop_add_ns = (hop - wire) * cs.cycle_ns;
  f.base_ns = std::max(0.0, one * cs.cycle_ns - read - hop * cs.cycle_ns);
  return f;
}

Result Run::run_cycle() {
  const auto t0 = std::chrono::steady_clock::now();
  const unsigned n = ranks();
  EmitConfig ec;
  ec.op = c_.op;
  ec.algo = c_.algo;
  ec.elem = c_.elem;
  ec.bytes = c_.bytes;
  ec.place = place_;
  ec.chunk = c_.chunk;
  ec.desc_bytes = c_.desc_bytes;
  ec.barrier = c_.barrier;
  ec.base = 0;
  const std::uint64_t need = seg_bytes_ * n * regions_ + 16;
  CycleSystem cs = cycle_system(s_, c_, need);
  const chip::Chip::Params& cp = cs.prm.chip;
  ec.unit = cp.cores;
  ec.queues = cp.core.core.queues;
  ec.hbm_bytes = cp.core.core.hbm_bytes;
  const Programs P = emit(ec);

  // the flow level on the same system's equivalent: the bound, and the cross-check's other side
  Config fc = cycle_equivalent(s_, c_, cs);
  Run flow(s_, fc);
  const Result fr = flow.run();

  system::TorusRunner tr(cs.prm, cs.mem, c_.seed, c_.strong);
  std::vector<std::uint64_t> masks(s_.chips(), 0);
  const auto defs = isa::config_defines(*cs.arch);
  for (unsigned r = 0; r < n; ++r) {
    const unsigned chip = place_.chip[r];
    if (c_.data) std::copy(mem_.at(r).begin(), mem_.at(r).end(), tr.hbm(chip).image().hbm.begin() + ec.base);
    tr.load(chip, ec.unit, isa::assemble(P.text[r], fmt::format("rank{}.s", r), defs));
    masks[chip] = std::uint64_t{1} << ec.unit;
  }
  if (c_.p_flip > 0) tr.set_flips(c_.p_flip, c_.seed ^ 0x5bd1e995u);
  auto last = t0;
  // a run that takes 50 times the flow level's time (and at least a million cycles) is stuck: it
  // stops naming the chips still running
  const auto limit = std::max<std::uint64_t>(1000000, static_cast<std::uint64_t>(50 * fr.time_ns / cs.cycle_ns));
  const std::uint64_t cycles = tr.run(masks, limit, [&](std::uint64_t cyc) {
    if (!c_.progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::seconds(1)) return;
    last = now;
    c_.progress(fmt::format("cycle {} ({:.1f} us simulated; the flow level takes {:.1f} us)", cyc,
                            static_cast<double>(cyc) * cs.cycle_ns / 1000, fr.time_ns / 1000));
  });
  if (c_.data)
    for (unsigned r = 0; r < n; ++r) {
      const auto& h = tr.hbm(place_.chip[r]).image().hbm;
      std::copy(h.begin() + ec.base, h.begin() + ec.base + static_cast<std::ptrdiff_t>(mem_[r].size()),
                mem_[r].begin());
    }
  Result res;
  res.algo = c_.algo;
  res.describe = sched_.describe;
  res.level = place_.level;
  res.cycle_system = cs.describe;
  res.ranks = n;
  res.rounds = sched_.rounds();
  res.instances = P.instances;
  res.chunk_bytes = P.chunk_bytes;
  res.cycles = cycles;
  res.cycle_ns = cs.cycle_ns;
  res.time_ns = static_cast<double>(cycles) * cs.cycle_ns;
  res.transfers = P.transfers;
  res.descriptors = P.descriptors;
  res.alpha_ns = fr.alpha_ns;
  res.beta_ns = fr.beta_ns;
  res.busiest = fr.busiest;
  res.flow_ns = fr.time_ns;
  res.flips = tr.flips();
  res.replays = tr.replays();
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace trn::collective
