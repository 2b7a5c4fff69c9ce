// The cycle level (docs/collectives.md, "The cycle level"): the schedule compiled into collective-
// core programs (collective::emit) and run on the cycle-exact chips of the system: every DMA, NIC,
// router and link layer of the run is the verified unit's model.
//
// The system: on a torus preset, its torus (trn::system::ChipTorus: its dimensions, each
// dimension's link class on its wires); on a switched preset, its network of chip and switch
// routers (trn::system::ChipNet on the system's link::Net, System::flit_net: every link a link
// layer, its wire its class's, a switch's latency on the links entering it). The chips are of an
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
#include <deque>
#include <map>
#include <tuple>

#include "chip/nic.hpp"
#include "collective/engine.hpp"
#include "collective/program.hpp"
#include "common/clog2.hpp"
#include "dma/desc.hpp"
#include "isa/isa.hpp"
#include "link/router.hpp"
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
  const bool torus = t.kind == system::TopoKind::torus;
  if (s.chips() > 255 || (!torus && !s.flit_net_fits()))
    throw Error(
        fmt::format("--fidelity cycle: {} has {} chips; a chip address names at most 255 (and a router "
                    "has at most 255 ports)",
                    s.preset().key, s.chips()));
  const cfg::Config* cf = cfg::find(c.cycle_config);
  if (!cf) throw Error(fmt::format("--fidelity cycle: unknown configuration '{}'", c.cycle_config));
  const cfg::Arch& a = cf->arch;
  CycleSystem cs;
  cs.arch = &a;
  if (torus) {
    const unsigned kx = t.dims.at(0), ky = t.dims.size() > 1 ? t.dims[1] : 1, kz = t.dims.size() > 2 ? t.dims[2] : 1;
    cs.prm = system::ChipTorus::Params::of(a, 0, kx, ky, kz);
  } else {
    cs.prm.chip = chip::Chip::Params::on_network(a, s.chips());
    cs.prm.chip.cores = 0;
  }
  chip::Chip::Params& p = cs.prm.chip;
  if (c.last_hop_vc) {  // the configuration's traffic classes, with a last-hop VC each
    if (!torus)
      throw Error(fmt::format("--last-hop-vc: {} is switched; the last-hop VC is a torus router's", s.preset().key));
    p.v = p.v / link::class_vcs(false) * link::class_vcs(true);
    p.last_hop = true;
  }
  // the link classes the chips' links use (a torus: its dimensions'; a switched system: every link's),
  // the fastest one's flit a cycle
  std::vector<const system::LinkClassInfo*> cls;
  const auto& v = s.link_classes();
  if (torus)
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      const auto it = std::find_if(v.begin(), v.end(), [&](const auto& k) { return k.name == t.classes.at(d); });
      if (it == v.end()) throw std::logic_error("cycle level: a torus dimension's link class is unknown");
      cls.push_back(&*it);
    }
  else
    for (const auto& l : s.links()) cls.push_back(&v.at(l.cls));
  double gmax = 0;
  for (const auto* k : cls) gmax = std::max(gmax, k->gbps);
  cs.cycle_ns = p.w / 8.0 / gmax;
  unsigned rtt = 0;
  double slowest = 1;
  auto wire_of = [&](double latency_ns, double gbps) {
    const unsigned lat = static_cast<unsigned>(std::lround(latency_ns / cs.cycle_ns));
    const double rate = gbps / gmax;
    slowest = std::min(slowest, rate);
    rtt = std::max(rtt, 2 * std::max(1u, lat) + 16);
    return std::pair{lat, rate};
  };
  if (torus)
    for (std::size_t d = 0; d < cls.size(); ++d) {
      auto& w = cs.prm.wire[d];
      std::tie(w.latency, w.rate) = wire_of(cls[d]->latency_ns, cls[d]->gbps);
    }
  std::vector<link::Net::Params::Wire> net_wires;
  // directed link 2 l + k of the network is link l of the system (k = 0: a to b); a switch's latency
  // on the links that enter it, as the system's route latency counts it
  if (!torus)
    for (std::size_t l = 0; l < s.links().size(); ++l)
      for (unsigned k = 0; k < 2; ++k) {
        const auto& lk = s.links()[l];
        const bool into_switch = !s.nodes().at(k ? lk.a : lk.b).chip();
        const auto [lat, rate] =
            wire_of(cls[l]->latency_ns + (into_switch ? s.preset().topo.switch_latency_ns : 0), cls[l]->gbps);
        net_wires.push_back(link::Net::Params::Wire{lat, rate});
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
  // channels: a collective core keeps 256 reads of a beat in flight, so against the HBM latency
  // one core moves 256 beats per latency; enough cores to keep the fastest link busy with payload
  // (a write of a beat is a head flit and a body flit per (W - 2) / 8 bytes, chip_pkg), at most the
  // chip's collective cores (and the units a semaphore address names)
  const unsigned most = std::min(s.design().collective_cores(), ((1u << dma::kUnitBits) - 1) - p.cores);
  if (c.channels > most)
    throw Error(fmt::format("--channels {}: a chip of {} has {} collective cores", c.channels, s.preset().key, most));
  const double window = double{1u << dma::kReadIdBits} * p.core.core.beat_bytes;
  const unsigned body = chip::Nic::body_bytes(p.w), beat = p.core.core.beat_bytes;
  const double payload = static_cast<double>(beat) / (1 + (beat + body - 1) / body);  // bytes a cycle
  const auto need = static_cast<unsigned>(std::ceil(payload * cs.mem.hbm_lat_max / window));
  cs.channels = c.channels ? c.channels : std::clamp(need, 1u, std::max(1u, most));
  p.cc_cores = cs.channels;
  p.skip_quiet = c.skip_quiet;
  cs.prm.threads = std::max(1u, c.threads);
  // a chip's HBM: what the run needs, within the local address
  if (hbm_need > (std::uint64_t{1} << dma::kLocalBits))
    throw Error(fmt::format("--fidelity cycle: {} B a rank is beyond the {} MiB a chip's local HBM address reaches",
                            hbm_need, (1u << dma::kLocalBits) >> 20));
  p.core.core.hbm_bytes =
      static_cast<unsigned>(std::max<std::uint64_t>(p.core.core.hbm_bytes, pow2_at_least(hbm_need)));
  std::string wires;
  auto describe_wire = [&](const std::string& name, unsigned lat, double rate) {
    wires += fmt::format("{}{} {} cycles{}", wires.empty() ? "" : ", ", name, lat,
                         rate < 1 ? fmt::format(" at {:.2g} flit a cycle", rate) : "");
  };
  if (torus)
    for (std::size_t d = 0; d < cls.size(); ++d)
      describe_wire(cls[d]->name, cs.prm.wire[d].latency, cs.prm.wire[d].rate);
  else {
    std::vector<bool> said(v.size(), false);
    for (std::size_t l = 0; l < s.links().size(); ++l)
      if (!said[s.links()[l].cls]) {
        said[s.links()[l].cls] = true;
        describe_wire(cls[l]->name, static_cast<unsigned>(std::lround(cls[l]->latency_ns / cs.cycle_ns)),
                      net_wires[2 * l].rate);
      }
    if (s.preset().topo.switch_latency_ns > 0)
      wires += fmt::format(" (and {} cycles a switch)", std::lround(s.preset().topo.switch_latency_ns / cs.cycle_ns));
    system::ChipNet::Params np;
    np.chip = p;
    np.net = s.flit_net(p.v, p.d, p.w);
    np.net.rdepth = p.rdepth;
    np.net.timeout = p.timeout;
    np.net.wires = std::move(net_wires);
    np.threads = cs.prm.threads;
    cs.net = std::move(np);
  }
  cs.describe = fmt::format(
      "{} chips of configuration {} ({} collective core{} each running a channel, no NeuronCore); a cycle is {:.4g} "
      "ns (a {}-bit flit at {:g} GB/s); wires: {}; HBM read {}-{} cycles; {} VCs{}, buffers of {} flits, replay {}, "
      "timeout {}",
      s.chips(), c.cycle_config, cs.channels, cs.channels == 1 ? "" : "s", cs.cycle_ns, p.w, gmax, wires,
      cs.mem.hbm_lat_min, cs.mem.hbm_lat_max, p.v, p.last_hop ? " (with the last-hop VC)" : "", p.d, p.rdepth,
      p.timeout);
  return cs;
}

namespace {

/// Cycles from the start of a transfer of `bytes` from chip 0 to its semaphore ending the program
/// of chip `to`, on runner r's system of n chips.
template <class R>
std::uint64_t probe_run(R& r, const CycleSystem& cs, unsigned n, unsigned to, unsigned bytes) {
  const unsigned unit = cs.prm.chip.cores;
  const auto defs = isa::config_defines(*cs.arch);
  r.load(0, unit,
         isa::assemble(fmt::format(".stream sync\n    dma_start queue=0 src=hbm:0x0 dst=hbm:{:#x} len={} stype=bytes "
                                   "dtype=bytes dsem=0+=1 dsem.unit={} dsem.chip={}\n    end\n",
                                   std::uint64_t{to + 1} << dma::kChipLsb, bytes, unit + 1, to + 1),
                       "probe_send.s", defs));
  r.load(to, unit, isa::assemble(".stream sync\n    sem_wait wait=0>=1\n    end\n", "probe_wait.s", defs));
  std::vector<std::uint64_t> masks(n, 0);
  masks[0] = masks[to] = std::uint64_t{1} << unit;
  return r.run(masks, 2000000);
}

/// Cycles a copy of `bytes` within chip 0's HBM takes, from its start to its semaphore ending the
/// program, on runner r.
template <class R>
std::uint64_t probe_local(R& r, const CycleSystem& cs, unsigned n, unsigned bytes) {
  const unsigned unit = cs.prm.chip.cores;
  r.load(0, unit,
         isa::assemble(fmt::format(".stream sync\n    dma_start queue=0 src=hbm:0x0 dst=hbm:{:#x} len={} stype=bytes "
                                   "dtype=bytes dsem=0+=1\n    sem_wait wait=0>=1\n    end\n",
                                   bytes, bytes),
                       "probe_copy.s", isa::config_defines(*cs.arch)));
  std::vector<std::uint64_t> masks(n, 0);
  masks[0] = std::uint64_t{1} << unit;
  return r.run(masks, 2000000);
}

/// The same on the cycle level's chips (one collective core each; `mem`: their HBM): a switched
/// system's own network, or a ring of 4 of a torus's chips on the wires of its first dimension.
/// (to = 0: a copy within chip 0).
std::uint64_t probe_cycles(const CycleSystem& cs, const dma::MemSystem::Params& mem, unsigned to, unsigned bytes) {
  if (cs.net) {
    system::ChipNet::Params np = *cs.net;
    np.chip.cc_cores = 1;
    system::NetRunner r(np, mem, 1, true);
    return to ? probe_run(r, cs, cs.net->chips(), to, bytes) : probe_local(r, cs, cs.net->chips(), bytes);
  }
  system::ChipTorus::Params p = cs.prm;
  p.chip.cc_cores = 1;
  p.chip.kx = 4;
  p.chip.ky = p.chip.kz = 1;
  p.chip.chips = p.chip.core.core.chips = 4;
  p.wire = {cs.prm.wire[0], {}, {}};
  system::TorusRunner r(p, mem, 1, true);
  return to ? probe_run(r, cs, 4, to, bytes) : probe_local(r, cs, 4, bytes);
}

/// The ordering checker of the cycle level: every write and semaphore addition a chip's NIC hands
/// its fabric, against what the senders' programs send (Programs::sends). A sender's writes and
/// semaphores to one chip from one channel (collective core) leave on one DMA queue in program
/// order; each write counts for the first of that sender's unfinished transfers to the chip whose
/// ranges hold it (the channels' ranges are disjoint), and a semaphore closes the oldest one of its
/// channel (the unit it adds to), which must have all its bytes by then, or the semaphore overtook
/// its data (SPEC 5.5: write-after-write queues without the barrier).
class CycleOrder {
 public:
  CycleOrder(const Programs& P, const Placement& place, unsigned unit, double cycle_ns)
      : cycle_ns_(cycle_ns), unit_(unit), channels_(P.channels) {
    for (unsigned r = 0; r < P.sends.size(); ++r)
      for (const Programs::Send& sd : P.sends[r]) q_[{sd.dst_chip, place.chip[r], sd.channel}].push_back(Pending{&sd});
    for (unsigned r = 0; r < place.chip.size(); ++r) rank_[place.chip[r]] = r;
  }
  /// Cycle `cycle` of chip c: what its NIC hands the fabric (if anything).
  template <class ChipT>
  void observe(const ChipT& chip, unsigned c, std::uint64_t cycle, bool stop, std::vector<Violation>& out) {
    const auto& w = chip.wires();
    if (!w.nic_out.rx_valid_o || !w.xbar_out.rx_ready_o) return;
    const unsigned src = static_cast<unsigned>(w.nic_out.rx_src_o);
    const std::uint32_t a = w.nic_out.rx_o.addr;
    if (w.nic_out.rx_sem_o) {
      const unsigned ch = dma::unit_of(a) - 1 - unit_;
      auto it = q_.find({c, src, ch});
      if (it == q_.end() || it->second.empty())
        throw std::logic_error(fmt::format(
            "cycle level: chip {} got a semaphore from chip {} for unit {} that no program sends", c, src, unit_ + ch));
      auto& q = it->second;
      // the oldest transfer still open (closed ones stay while their late bytes may come)
      auto open = std::find_if(q.begin(), q.end(), [](const Pending& p) { return !p.closed; });
      if (open == q.end())
        throw std::logic_error(
            fmt::format("cycle level: chip {} got a semaphore from chip {} that no program sends", c, src));
      open->closed = true;
      const Pending p = *open;
      while (!q.empty() && q.front().closed && q.front().landed >= q.front().send->bytes) q.pop_front();
      if (p.landed < p.send->bytes) {
        Violation v{static_cast<double>(cycle) * cycle_ns_,
                    rank_.at(src),
                    rank_.at(c),
                    p.send->inst,
                    p.send->round,
                    p.landed,
                    p.send->bytes};
        if (stop) throw std::runtime_error("collective ordering checker: " + v.str());
        out.push_back(v);
      }
      return;
    }
    for (unsigned ch = 0; ch < channels_; ++ch) {
      auto it = q_.find({c, src, ch});
      if (it == q_.end()) continue;
      auto& q = it->second;
      for (Pending& p : q) {
        if (p.landed >= p.send->bytes) continue;
        for (const auto& [at, n] : p.send->ranges)
          if (a >= at && a < at + n) {
            p.landed += w.nic_out.rx_o.n;
            while (!q.empty() && q.front().closed && q.front().landed >= q.front().send->bytes) q.pop_front();
            return;
          }
      }
    }
    throw std::logic_error(fmt::format(
        "cycle level: chip {} got a write at {:#x} from chip {} that no pending transfer holds", c, a, src));
  }

 private:
  struct Pending {
    const Programs::Send* send;
    std::uint64_t landed = 0;
    bool closed = false;  // its semaphore came
  };
  double cycle_ns_;
  unsigned unit_, channels_;
  std::map<std::tuple<unsigned, unsigned, unsigned>, std::deque<Pending>>
      q_;                              // (receiving chip, sending chip, channel)
  std::map<unsigned, unsigned> rank_;  // chip -> rank
};

}  // namespace

Config cycle_equivalent(const system::System& s, const Config& c, const CycleSystem& cs) {
  Config f = c;
  f.fidelity = Fidelity::flow;
  f.data = false;
  const unsigned beat = cs.prm.chip.core.core.beat_bytes;
  const double beat_gbps = beat / cs.cycle_ns;
  // the chip's HBM port reads a beat and writes a beat a cycle; a packet carries a write of a beat
  f.hbm_gbps = 2 * beat_gbps;
  f.pkt_bytes = beat;
  f.body_bytes = chip::Nic::body_bytes(cs.prm.chip.w);  // the chips' body flits
  f.desc_bytes = std::max(c.desc_bytes / f.pkt_bytes * f.pkt_bytes, f.pkt_bytes);
  f.inflight = 64;               // the programs issue every instance's round before the next round's waits
  f.flag_reads = true;           // a collective core sends a ready flag as a 4-byte DMA write from its HBM
  f.read_jitter = c.hbm_jitter;  // the HBM's latency spread: a transfer's data starts with its first read
  f.dma_queues = cs.channels;    // each channel its collective core's own queues
  f.routes = 1;                  // the chips' routers: one route a chip pair (their tables)
  f.chip_ranks = 1;              // a rank a chip, as the cycle level's
  f.cost = false;                // the chips' own collective cores and DMA take their time
  // the chips' DMA queues as the flow level's sharing flows, not one transfer after another: the
  // cycle level measures 1.3 to 1.5 times the FIFO queues' time on the 4-chip cross-check rows
  // (docs/collectives.md, "The cycle level")
  f.queue_fifo = false;
  // latencies: a hop beyond its wire (router, link layer), and a transfer beyond its route and the
  // HBM read (the program's issue, the DMA, the NIC both ways, the semaphore)
  // the probes' destinations: the nearest chip and the nearest farther one (a ring of 4: 1 and 2),
  // their hops and their wires' latencies (cycles)
  unsigned b1 = 1, b2 = 2, h1 = 1, h2 = 2;
  double l1 = std::max(1u, cs.prm.wire[0].latency), l2 = 2 * l1;
  if (cs.net) {
    auto hops = [&](unsigned b) { return static_cast<unsigned>(s.route(0, b).size()); };
    auto wires = [&](unsigned b) {
      double l = 0;
      for (const auto& h : s.route(0, b)) l += std::max(1u, cs.net->net.wires.at(h.channel).latency);
      return l;
    };
    b1 = 0, b2 = 0;
    for (unsigned b = 1; b < s.chips(); ++b)
      if (!b1 || hops(b) < hops(b1)) b1 = b;
    for (unsigned b = 1; b < s.chips(); ++b)
      if (hops(b) > hops(b1) && (!b2 || hops(b) < hops(b2))) b2 = b;
    h1 = hops(b1), l1 = wires(b1);
    if (b2) h2 = hops(b2), l2 = wires(b2);
  }
  const double one = static_cast<double>(probe_cycles(cs, cs.mem, b1, beat));
  const double two = b2 ? static_cast<double>(probe_cycles(cs, cs.mem, b2, beat)) : 0;
  // Rates, payload bytes a cycle, from the time two streams of writes of different lengths take
  // (their difference: what one more byte costs once the stream runs):
  //  - the NIC and fabric: one stream from chip to chip with a short HBM latency, so that the
  //    DMA's reads in flight do not limit it: the flow level's NIC limit (it counts the packets'
  //    wire bytes);
  //  - one collective core's DMA against the HBM latency: a copy within a chip at the run's
  //    latency, limited by the 256 reads a core keeps in flight (256 beats per latency) and by the
  //    HBM port's beat a cycle; the chip's channels run one core each: the flow level's DMA
  //    bandwidth of a chip.
  const unsigned window = (1u << dma::kReadIdBits) * beat;
  // (one descriptor each: at most a descriptor's longest length, two windows of 128-byte beats)
  const unsigned longest =
      std::min({4 * window, cs.prm.chip.core.core.hbm_bytes / 2, dma::Geometry{}.max_len}) / beat * beat;
  const unsigned shorter = std::max(beat, longest / 2 / beat * beat);
  auto stream_rate = [&](const dma::MemSystem::Params& mem, unsigned to) {
    const double t_long = static_cast<double>(probe_cycles(cs, mem, to, longest));
    const double t_short = static_cast<double>(probe_cycles(cs, mem, to, shorter));
    return (longest - shorter) / std::max(1.0, t_long - t_short);
  };
  dma::MemSystem::Params quick = cs.mem;
  quick.hbm_lat_min = quick.hbm_lat_max = 8;
  const double nic_rate = stream_rate(quick, b1);
  const double core_rate = stream_rate(cs.mem, 0);
  const double wf = static_cast<double>(wire_bytes(beat, beat, f.body_bytes)) / beat;
  f.nic_gbps = std::min(cs.prm.chip.w / 8.0, nic_rate * wf) / cs.cycle_ns;
  f.dma_gbps = std::min(static_cast<double>(beat) * cs.channels, core_rate * cs.channels) / cs.cycle_ns;
  // a hop's cycles beyond its wire, from the two probes (0 where every chip is as far: one switch)
  const double hop_add = b2 ? ((two - l2) - (one - l1)) / (h2 - h1) : 0;
  const double read = s.design().hbm.empty() ? 0 : s.design().hbm[0].latency_ns;
  f.hop_add_ns = hop_add * cs.cycle_ns;
  f.base_ns = std::max(0.0, (one - l1 - h1 * hop_add) * cs.cycle_ns - read);
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
  ec.desc_bytes = c_.desc_bytes;
  ec.barrier = c_.barrier;
  ec.base = 0;
  CycleSystem cs = cycle_system(s_, c_, cycle_hbm_need());
  const chip::Chip::Params& cp = cs.prm.chip;
  ec.unit = cp.cores;
  ec.channels = cs.channels;
  ec.chunk = cycle_chunk(cs.channels) * sched_.stripes;  // a share's bytes: its stripes' segments
  ec.queues = cp.core.core.queues;
  ec.hbm_bytes = cp.core.core.hbm_bytes;
  const Programs P = emit(ec);

  // the flow level on the same system's equivalent: the bound, and the cross-check's other side
  Config fc = cycle_equivalent(s_, c_, cs);
  fc.chunk = ec.chunk;  // the same instances
  Run flow(s_, fc);
  const Result fr = flow.run();

  // the run on the system's chips (a runner of either kind)
  auto finish = [&](auto& tr) {
    std::vector<std::uint64_t> masks(s_.chips(), 0);
    const auto defs = isa::config_defines(*cs.arch);
    for (unsigned r = 0; r < n; ++r) {
      const unsigned chip = place_.chip[r];
      if (c_.data) std::copy(mem_.at(r).begin(), mem_.at(r).end(), tr.hbm(chip).image().hbm.begin() + ec.base);
      for (unsigned k = 0; k < ec.channels; ++k) {
        tr.preload(chip, ec.unit + k,
                   isa::assemble(P.program(r, k),
                                 fmt::format("rank{}{}.s", r, ec.channels > 1 ? fmt::format("_ch{}", k) : ""), defs));
        masks[chip] |= std::uint64_t{1} << (ec.unit + k);
      }
    }
    if (c_.p_flip > 0) tr.set_flips(c_.p_flip, c_.seed ^ 0x5bd1e995u);
    CycleOrder order(P, place_, ec.unit, cs.cycle_ns);
    // each chip's violations apart (a window runs the chips on their own threads), then in the
    // lockstep's order: by cycle, then chip
    std::vector<std::vector<std::pair<std::uint64_t, Violation>>> seen(s_.chips());
    tr.set_chip_observer([&](unsigned c, std::uint64_t cyc) {
      std::vector<Violation> v;
      order.observe(tr.system().chip(c), c, cyc, c_.stop_on_violation, v);
      for (Violation& x : v) seen[c].emplace_back(cyc, std::move(x));
    });
    // windows of the wires' latency where nothing needs the lockstep (a violation that stops the
    // run is the first in the lockstep's order only there)
    unsigned window = 0;
    if constexpr (requires { tr.system().lookahead(); })
      if (c_.windows && !c_.stop_on_violation && c_.p_flip == 0) window = tr.system().lookahead();
    tr.set_window(window);
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
    std::vector<std::tuple<std::uint64_t, unsigned, Violation>> all;
    for (unsigned c = 0; c < s_.chips(); ++c)
      for (auto& [cyc, v] : seen[c]) all.emplace_back(cyc, c, std::move(v));
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
    });
    std::vector<Violation> violations;
    for (auto& x : all) violations.push_back(std::move(std::get<2>(x)));
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
    res.window = window;
    res.cycle_ns = cs.cycle_ns;
    res.time_ns = static_cast<double>(cycles) * cs.cycle_ns;
    res.transfers = P.transfers;
    res.descriptors = P.descriptors;
    res.alpha_ns = fr.alpha_ns;
    res.beta_ns = fr.beta_ns;
    res.busiest = fr.busiest;
    res.flow_ns = fr.time_ns;
    res.violations = std::move(violations);
    res.flips = tr.flips();
    res.replays = tr.replays();
    res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  if (cs.net) {
    system::NetRunner r(*cs.net, cs.mem, c_.seed, c_.strong);
    return finish(r);
  }
  system::TorusRunner r(cs.prm, cs.mem, c_.seed, c_.strong);
  return finish(r);
}

}  // namespace trn::collective
