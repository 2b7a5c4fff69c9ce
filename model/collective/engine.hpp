// trn::collective::Run — a collective executed on a composed system (docs/collectives.md).
//
// Two fidelities:
//   flow: the collective cores of every chip walk the schedule (Run::Engine): at the start of a
//        round they turn each of the rank's transfers into DMA descriptors (the last carries the
//        semaphore write on the peer), and the round after waits until every transfer addressed to
//        the rank has signalled. The flow backend carries them: each transfer is a flow over its
//        route; links, the chips' DMA and HBM (and optionally a NIC limit) are shared max-min
//        fairly; the data lands after the route's latency.
//   cycle: the schedule compiled into collective-core programs (program.hpp) and run on the
//        system's cycle-exact chips (cycle.cpp): every DMA, NIC, router and link layer is the
//        verified unit's model.
// A checker on every receiver fails the run when a semaphore is seen before all its transfer's
// data has landed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collective/collective.hpp"
#include "dma/memsys.hpp"
#include "system/chip_net.hpp"
#include "system/chip_torus.hpp"
#include "system/system.hpp"

namespace trn::system {
class System;
}

namespace trn::collective {

/// The packet format the flow level counts on the wire (docs/collectives.md): a DMA write of up to
/// pkt_bytes is a head flit and ceil(bytes / 14) body flits of 128 bits; a semaphore write is one
/// flit. (The cycle level's chips send their own packets: rtl/chip/nic.sv.)
inline constexpr unsigned kFlitBytes = 16, kBodyBytes = 14;
/// Bytes on the wire for a run of `payload` bytes cut into packets of pkt_bytes (heads included),
/// a body flit carrying `body` payload bytes.
std::uint64_t wire_bytes(std::uint64_t payload, unsigned pkt_bytes, unsigned body = kBodyBytes);

struct Config {
  Op op = Op::all_reduce;
  Algo algo = Algo::automatic;
  Elem elem = Elem::fp32;
  std::uint64_t bytes = 0;  ///< message size (collective-benchmark convention)
  unsigned ranks = 0;       ///< 0: every rank there is (flow: every logical NeuronCore; cycle: every chip)
  /// flow: physical NeuronCores a rank takes, a logical NeuronCore (--lnc; 0: the chip's preset
  /// `lnc`); a chip holds cores / lnc ranks, and steps between the ranks of a chip go through its
  /// HBM. The cycle level's ranks are chips (a chip's collective cores run one rank's program).
  unsigned lnc = 0;
  /// ranks a chip holds (0: its cores / lnc at the flow level, 1 at the cycle level; the cycle
  /// level's flow-level equivalent sets 1)
  unsigned chip_ranks = 0;
  /// flow: what a collective costs beyond bandwidth and wire latency, the chip's [chip.X.collective]
  /// parameters (launch, a round's step, descriptor generation, a rank's DMA): docs/collectives.md,
  /// "The cost of synchronisation" (false: none, as the cycle level's cross-check needs)
  bool cost = true;
  Fidelity fidelity = Fidelity::flow;
  /// bytes of each rank's share per pipelined instance (0: whole segments); a striped schedule's
  /// share is its stripes' segments, each instance chunk / stripes of each (chunk_bytes())
  std::uint64_t chunk = 1 << 20;
  unsigned inflight = 4;     ///< instances in flight per rank
  unsigned pkt_bytes = 256;  ///< payload of a DMA write packet (a multiple of 4, at most 1024)
  /// payload bytes a body flit carries (the cycle level's cross-check: its chips' flits, nic.sv's
  /// body_bytes(W))
  unsigned body_bytes = kBodyBytes;
  std::uint32_t desc_bytes = 65536;  ///< longest DMA descriptor
  bool strong = true;                ///< strong-order-write DMA queues (false: write-after-write)
  bool barrier = false;              ///< the barrier flag on each transfer's last (semaphore) descriptor
  bool data = true;                  ///< move real data (false: timing only, for very large systems)
  /// flow, timing only: a hierarchical schedule across the UltraServers of a planes system, whose
  /// UltraServers are alike and whose transfers spread evenly over the spines, runs the ranks of
  /// two UltraServers, the ring across UltraServers closed between them, and takes their time for
  /// every one (docs/collectives.md, "Symmetry"; false: every rank, as the test that shows the two
  /// equal runs it)
  bool fold = true;
  /// flow: stop once the simulated time passes this (0: never); the result's time is then the time
  /// reached and Result::stopped is set (auto's evaluation: a candidate already slower than the best)
  double stop_after_ns = 0;
  std::uint64_t seed = 1;
  double hbm_jitter = 0.1;        ///< cycle: HBM read latency uniform in [L (1 - jitter/2), L (1 + jitter/2)]
  double p_flip = 0;              ///< cycle: chance per link and cycle of one inverted bit on the wire
  bool stop_on_violation = true;  ///< a semaphore before its data throws (false: recorded)
  // flow-level settings the cross-check sets to the cycle level's chips (cycle_equivalent)
  double link_gbps = 0;     ///< every link at this rate (0: each link class's own)
  double hop_ns = -1;       ///< latency of each link hop (< 0: the link classes' and switches')
  double base_ns = 0;       ///< added to every route's latency
  double hop_add_ns = 0;    ///< added to every hop's latency (with the link classes' own)
  double nic_gbps = 0;      ///< a chip's injection and ejection limit (0: none)
  double dma_gbps = 0;      ///< a chip's DMA (0: the chip's engines)
  double hbm_gbps = 0;      ///< a chip's HBM (0: the chip's stacks)
  bool flag_reads = false;  ///< a ready flag waits for an HBM read, as any DMA write (the cycle level's)
  /// each transfer's HBM read latency uniform in [L (1 - read_jitter/2), L (1 + read_jitter/2)],
  /// drawn per transfer from the seed: the cycle level's HBM, whose every read draws its latency so,
  /// starts a transfer's data with its first read (0: every transfer the one latency L)
  double read_jitter = 0;
  /// DMA queues a chip sends to one peer on: instance i's transfers on queue i mod dma_queues, each
  /// queue landing in issue order, the queues independent (the cycle level's channels: its
  /// collective cores' queues)
  unsigned dma_queues = 1;
  /// flow: the route keys (System::route) every transfer is striped over, evenly: 0, every key the
  /// system has (route_keys(): each link group a route chooses from used alike, held as one
  /// resource, System::spread_group); 1, the one route a chip pair has in the cycle level's tables;
  /// N, keys 0 to N - 1
  unsigned routes = 0;
  /// flow: a DMA queue sends its transfers one after another, as a DMA engine takes a queue's
  /// descriptors in order, the next one's HBM read overlapping the last one's data (false: all at
  /// once, sharing the links max-min fairly)
  bool queue_fifo = true;
  std::string cycle_config = "full";  ///< cycle: the RTL configuration of the chips
  /// cycle: collective cores of every chip that run the schedule at once, each its share of the
  /// instances (0: as many as cover the HBM read latency at the fastest link's rate, at most the
  /// chip's collective cores; docs/collectives.md, "Channels")
  unsigned channels = 0;
  /// cycle: the torus routers with the last-hop VC (a third VC a traffic class for the hops whose
  /// next router is the destination: docs/link.md, "The last-hop VC"); a torus preset's only
  bool last_hop_vc = false;
  /// cycle: a waiting collective core skips its ticks on unchanged inputs (model speed only; false
  /// runs every tick, to show the two equal)
  bool skip_quiet = true;
  /// cycle: threads evaluating the system's chips within a cycle (model speed only; the chips of a
  /// phase are independent, so any count gives the same run)
  unsigned threads = 1;
  /// cycle: on a torus whose links all have wires, each chip runs the wires' latency of cycles
  /// alone between exchanges (model speed only: the same run; false: the lockstep, to show it)
  bool windows = true;
  std::function<void(const std::string&)> progress;  ///< called about once a second on long runs
};

/// A semaphore seen before all its transfer's data.
struct Violation {
  double ns = 0;
  unsigned src = 0, dst = 0, instance = 0, round = 0;
  std::uint64_t landed = 0, bytes = 0;
  std::string str() const;
};

/// auto (Config::algo automatic): an algorithm the run could take and what became of it.
struct Candidate {
  Algo algo = Algo::ring;
  double time_ns = 0;   ///< its modelled time (0: not run)
  double floor_ns = 0;  ///< its latency floor: launch and each round's step, descriptor and HBM read
  std::string skipped;  ///< why it was not run (refused, too many transfers, its floor above the best)
};

struct Result {
  Algo algo = Algo::ring;
  bool stopped = false;               ///< Config::stop_after_ns passed before the end (time_ns: the time reached)
  std::vector<Candidate> candidates;  ///< auto: every algorithm considered, the fastest taken
  std::string describe, level;
  unsigned ranks = 0, rounds = 0, instances = 0;
  std::uint64_t chunk_bytes = 0;
  double time_ns = 0;
  std::uint64_t transfers = 0, descriptors = 0;
  // alpha-beta: the zero-load critical path of an instance through the rounds, plus the busiest
  // resource's bytes over its bandwidth
  double alpha_ns = 0, beta_ns = 0;
  std::string busiest;
  double bound_ns() const { return alpha_ns + beta_ns; }
  std::vector<Violation> violations;
  // cycle level
  std::uint64_t cycles = 0, flips = 0, replays = 0;
  unsigned window = 0;  ///< cycles each chip ran alone between exchanges (Config::windows; 0: the lockstep)
  double cycle_ns = 0;
  double flow_ns = 0;        ///< the flow level's time on the cycle level's equivalent (cycle_equivalent)
  std::string cycle_system;  ///< what the cycle level built (CycleSystem::describe)
  double wall_s = 0;         ///< seconds the run took
};

/// The resources and latencies of the flow level, also used for the bound of either fidelity.
class FlowModel {
 public:
  /// `route`: the routes of a chip pair by key (default the system's own; the evenness check's
  /// self-test gives others)
  FlowModel(const system::System& s, const Config& c, system::RouteFn route = {});
  const system::System& system() const { return s_; }
  unsigned resources() const { return static_cast<unsigned>(cap_.size()); }
  double capacity(unsigned r) const { return cap_[r]; }
  std::string resource_name(unsigned r) const;
  /// (resource, weight) pairs of a transfer of payload bytes from chip a to chip b: weight is bytes
  /// of the resource's traffic per payload byte. extra_hbm: further HBM accesses on chip a per
  /// payload byte (a second source read, a duplicated local write: Desc::extra_hbm).
  void uses(unsigned a, unsigned b, bool reduce, std::uint64_t payload, std::uint64_t wire,
            std::vector<std::pair<unsigned, double>>& out, unsigned src_core = 0, unsigned extra_hbm = 0) const;
  /// Zero-load latency from chip a to chip b (0 for a == b), without the DMA read: the longest of
  /// the routes its stripes take.
  double latency_ns(unsigned a, unsigned b) const;
  double read_ns() const { return read_ns_; }
  /// Wire bytes a ns through chip a's NIC toward chip b: the NIC limit, else the route's first link.
  double nic_gbps(unsigned a, unsigned b) const;
  /// The link resources of a transfer from a to b over its route keys: (resource, share of its
  /// bytes). Throws std::logic_error where the routes take a link group unevenly (then the group is
  /// not one resource).
  const std::vector<std::pair<unsigned, double>>& route_uses(unsigned a, unsigned b) const;
  /// Link resources (the first resources): channels, or link groups.
  unsigned link_resources() const { return chan_; }

 private:
  const system::System& s_;
  Config c_;
  std::vector<double> cap_;  // link resources, then per chip: dma, hbm, nic out, nic in; then per rank slot: its DMA
  unsigned rank_dma_ = 0;    // the first rank-slot resource (0: none)
  unsigned per_chip_ = 1;
  unsigned chan_ = 0, keys_ = 1;
  std::vector<unsigned> res_of_, members_, first_;  // per channel its resource; per resource its channels, the first
  double read_ns_ = 0;
  system::RouteFn route_;
  mutable std::unordered_map<std::uint64_t, std::vector<std::pair<unsigned, double>>> routes_;
  mutable std::unordered_map<std::uint64_t, double> lat_, nic_;  // per chip pair
};

/// A DMA descriptor of a transfer as the backends see it (chips and byte offsets in the ranks'
/// memories).
struct Desc {
  std::uint32_t send = 0;
  unsigned src_chip = 0, dst_chip = 0;
  std::uint64_t src_off = 0, dst_off = 0, bytes = 0;
  bool reduce = false;
  bool flag = false;      ///< a ready flag: a semaphore write alone, no data (an HBM read only with flag_reads)
  unsigned queue = 0;     ///< the sending chip's DMA queue to dst_chip (Config::dma_queues; per core pair)
  unsigned src_core = 0;  ///< the sending rank's core slot on its chip (its DMA, Config::cost)
  /// HBM accesses on the sending chip beyond the transfer's own, per byte: KangaRing's second source
  /// read (Xfer::src2) and duplicated local write (Xfer::dst2), one each
  unsigned extra_hbm = 0;
};

/// What a backend reports to the engine.
class Sink {
 public:
  virtual ~Sink() = default;
  /// Copy `bytes` of the sending rank's memory at off (a DMA read of transfer `send`).
  virtual void read(std::uint32_t send, std::uint64_t off, std::uint64_t bytes, std::uint8_t* to) const = 0;
  /// Data of transfer `send` landed at its destination (data: nullptr when the run moves none).
  virtual void landed(std::uint32_t send, std::uint64_t dst_off, std::uint64_t bytes, const std::uint8_t* data,
                      bool reduce, double ns) = 0;
  /// Transfer `send`'s semaphore write landed on its destination.
  virtual void signalled(std::uint32_t send, double ns) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// Start a transfer's descriptors at time `now`.
  virtual void submit(const std::vector<Desc>& d, double now) = 0;
  /// Nothing in flight.
  virtual bool idle() const = 0;
  /// Advance to the next event and report what happened; returns the new time (ns).
  virtual double step(Sink& sink) = 0;
  virtual void finish(Result&) const {}
};
std::unique_ptr<Backend> make_flow_backend(const FlowModel& m, const Config& c);

/// The cycle level's system for a run of `s` (collective/cycle.cpp): chips of configuration
/// c.cycle_config on its torus, its wires, buffers and HBM, and a cycle's length.
struct CycleSystem {
  system::ChipTorus::Params prm;  ///< a torus (prm.chip: every chip's, on either kind)
  /// A switched system: its chips on its network of chip and switch routers (wires per link).
  std::optional<system::ChipNet::Params> net;
  dma::MemSystem::Params mem;
  const cfg::Arch* arch = nullptr;
  double cycle_ns = 0;
  unsigned channels = 1;  ///< collective cores a chip runs the schedule on (prm.chip.cc_cores)
  std::string describe;
};
/// Throws Error for a system the cycle level cannot build (more than 255 chips or 255 ports a
/// router, an HBM need beyond the local address, an unknown configuration).
CycleSystem cycle_system(const system::System& s, const Config& c, std::uint64_t hbm_need);
/// The flow-level settings that model the cycle level's chips: its NIC's flit a cycle, its DMA's
/// and HBM port's beat a cycle, packets of a beat, and the latencies the cycle level adds to the
/// wires' and the HBM's, measured by sending one beat over one and over two hops of a ring of its
/// chips (docs/collectives.md, "The cycle level").
Config cycle_equivalent(const system::System& s, const Config& c, const CycleSystem& cs);

/// Ranks a chip of `s` holds for a run of `c` (Config::chip_ranks, else its cores / LNC at the
/// flow level, one at the cycle level). Throws Error for an LNC or a count the chip cannot have.
unsigned chip_ranks(const system::System& s, const Config& c);

/// auto: every algorithm of kAlgos for the run of `c` on `s`, each that can run timed at the flow
/// level without data (with c's settings, ranks a chip as c.chip_ranks or chip_ranks(s, c)), in
/// the order of their latency floors; one whose floor is already above the best time found is not
/// run, nor mesh beyond kMeshRanks ranks but for a permute: its n (n - 1) transfers at once are more
/// than the flow level runs in reasonable time at large sizes (256 ranks, 16 MiB: minutes); nor
/// rings on a switched system, where the ring's transfers already spread over every link of their
/// groups both ways and the second ring only adds transfers (trn3-us144, 1 GiB: 81 against 105
/// GB/s busbw, and 26 s of model time against 0.5).
/// The fastest is the one with the least time (ties: kAlgos order). Throws Error when none can run.
inline constexpr unsigned kMeshRanks = 64;
std::vector<Candidate> evaluate(const system::System& s, const Config& c);

/// One collective on one system.
class Run {
 public:
  Run(const system::System& s, Config c);
  ~Run();
  const Config& config() const { return c_; }
  const Schedule& schedule() const { return sched_; }
  const Placement& placement() const { return place_; }
  unsigned ranks() const { return sched_.ranks; }
  /// The outermost level's groups that run for all of them (Config::fold; 0: every rank runs).
  unsigned folded() const { return fold_; }
  /// Stop the run once its simulated time passes ns (Config::stop_after_ns; 0: never).
  void stop_after(double ns) { c_.stop_after_ns = ns; }
  /// Ranks that run (all, or with the fold those of the UltraServers that run for the rest).
  unsigned running_ranks() const { return fold_ ? ranks() / place_.levels.back() * fold_ : ranks(); }
  /// Whether rank r runs (with the fold: members 0 .. folded() - 1 of the outermost ring, rank r
  /// being member r mod levels.back() of it).
  bool runs_rank(unsigned r) const { return fold_ == 0 || r % place_.levels.back() < fold_; }
  /// The rank that stands in for rank r: r, or with the fold the running member its outermost
  /// member number comes to modulo folded() (the outermost ring's other members are alike).
  unsigned stand_in(unsigned r) const {
    if (fold_ == 0) return r;
    const unsigned G = place_.levels.back();
    return r - r % G + r % G % fold_;
  }
  unsigned seg_elems() const { return static_cast<unsigned>(seg_bytes_ / elem_bytes(c_.elem)); }
  /// Fill every rank's data region with seeded random values (needs data).
  void fill(std::uint64_t seed);
  /// A rank's data region as element codes; set it before run().
  std::vector<std::uint32_t> input(unsigned rank) const;
  void set_input(unsigned rank, const std::vector<std::uint32_t>& codes);
  /// The region the operation defines as the output (see reference()).
  std::vector<std::uint32_t> output(unsigned rank) const;
  Result run();

 private:
  class Engine;
  void ensure_memory();
  Result run_cycle();
  /// The cycle level: a chip's HBM the run needs (its regions and the channels' flag words), and
  /// the bytes of each segment an instance takes: the run's chunk of a share, or smaller, so that every one of
  /// `channels` channels has an instance.
  std::uint64_t cycle_hbm_need() const { return seg_bytes_ * sched_.segments() * regions_ + 16 * 32; }
  std::uint64_t cycle_chunk(unsigned channels) const;
  const system::System& s_;
  Config c_;
  std::vector<Candidate> candidates_;  // auto's evaluation
  Placement place_;
  Schedule sched_;
  unsigned fold_ = 0;  // the groups of the outermost level that run (0: every rank; Config::fold)
  std::uint64_t seg_bytes_ = 0;
  unsigned regions_ = 1;
  std::vector<std::vector<std::uint8_t>>
      mem_;  // allocated when data first moves  // per rank: data, out, scratch regions
};

}  // namespace trn::collective
