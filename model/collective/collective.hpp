// trn::collective — collectives on a composed system (SPEC 5.7, docs/collectives.md).
//
// A collective is a schedule: rounds of transfers between ranks (chips). A transfer moves whole
// segments of a rank's buffer to a peer, copying or reducing (read-add-write, FP32 or BF16 as the
// DMA's accumulate) into the peer's buffer, and then writes a semaphore on the peer by the same
// path. Round t + 1 of a rank starts when every transfer of round t addressed to it has signalled.
// The message is cut into instances (a chunk of every segment each) that run the same schedule,
// up to `inflight` at a time per rank, so transfers pipeline.
//
// The schedules are generated here (ring, mesh/direct, recursive halving-doubling, hierarchical),
// the plain reference that the tests check results against is in reference.cpp, the engine that
// runs a schedule at the flow level is engine.hpp, and the cycle level (the schedule compiled into
// programs for the cycle-exact chips) is cycle.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trn::system {
class System;
}

namespace trn::collective {

enum class Op : unsigned { all_reduce, reduce_scatter, all_gather, all_to_all, permute };
enum class Algo : unsigned { automatic, ring, mesh, rdh, hier, rings, kangaring, hrings };
enum class Elem : unsigned { fp32, bf16 };
enum class Fidelity : unsigned { flow, cycle };

inline constexpr Op kOps[] = {Op::all_reduce, Op::reduce_scatter, Op::all_gather, Op::all_to_all, Op::permute};
inline constexpr Algo kAlgos[] = {Algo::ring,  Algo::mesh,      Algo::rdh,   Algo::hier,
                                  Algo::rings, Algo::kangaring, Algo::hrings};

const char* op_name(Op o);
const char* algo_name(Algo a);
const char* elem_name(Elem e);
const char* fidelity_name(Fidelity f);
std::optional<Op> parse_op(std::string_view s);
std::optional<Algo> parse_algo(std::string_view s);
std::optional<Elem> parse_elem(std::string_view s);
std::optional<Fidelity> parse_fidelity(std::string_view s);
inline unsigned elem_bytes(Elem e) { return e == Elem::fp32 ? 4 : 2; }
/// Collective-benchmark bus-bandwidth factor: 2(n-1)/n, (n-1)/n or 1.
double busbw_factor(Op o, unsigned n);

/// A request the model cannot run (unknown rank count, an algorithm the topology cannot run...):
/// one line naming what and why.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One hierarchy of a striped hierarchy (hrings): a hierarchical schedule (levels, innermost first,
/// as Placement::levels) over the ranks renumbered: member id of it is rank order[id]. It carries
/// `weight` of the parts of every segment (Schedule::stripes, the sum of the weights): its ring at
/// each level is the order its ids take, so one renumbering picks the cycle and the direction of
/// every level's ring.
struct Stripe {
  std::vector<unsigned> order;
  std::vector<unsigned> levels;
  unsigned weight = 1;
};

/// Where the ranks sit: rank r on chip chip[r]. Consecutive ranks are neighbours where the
/// topology allows (a snake through a torus). Hierarchical schedules: `levels` of groups, the
/// innermost first (a chip's ranks, a group's chips, the groups); rank r = sum of c_i N_i is member
/// c_i of its level-i group, N_i the product of the later levels' sizes (the members of a group are
/// strided, so that reduce-scatter's segment r lands on rank r and every level's block is a
/// contiguous range of segments).
struct Placement {
  std::vector<unsigned> chip;
  std::vector<unsigned> core;    ///< rank r is (logical) core core[r] of its chip
  unsigned per_chip = 1;         ///< ranks a chip holds
  std::vector<unsigned> levels;  ///< hierarchical: each level's group size, innermost first (empty: none)
  std::string level;  ///< what the groups are ("chip", "instance", "server", "UltraServer", "x ring", "chip, server")
  /// rings (striped rings): the ranks in the order of each ring that runs at once. A walk through
  /// the chips visiting each chip's ranks in turn, and the same walk backwards; on a torus one walk
  /// for each dimension taken first (a snake, consecutive chips neighbours), each both ways.
  std::vector<std::vector<unsigned>> rings;
  /// hrings: the hierarchies that run at once, each on its share of every segment.
  std::vector<Stripe> stripes;
};
/// The placement of `ranks` ranks (0: every one there is) for algorithm `a` on system `s`, each
/// chip holding `per_chip` of them (its logical NeuronCores): consecutive ranks fill a chip, then
/// the next along the walk; hierarchical schedules with per_chip > 1 take a chip as the innermost
/// group (the intra-chip level first), then the system's group of chips where it has one.
Placement place(const system::System& s, unsigned ranks, Algo a, unsigned per_chip = 1);
/// The same on a torus of `dims` chips (first dimension fastest; chip ids as the routers number
/// them): a snake through it, or for hier groups of its rings in all but the last dimension.
Placement place_torus(const std::vector<unsigned>& dims, unsigned ranks, Algo a);
/// The group size hierarchical schedules use on `s` (0: none), and its name.
unsigned hier_group(const system::System& s, std::string* level = nullptr);

// ---------------------------------------------------------------- schedules
enum class Region : std::uint8_t { data = 0, out = 1, scratch = 2 };
/// `count` consecutive segments from src_seg (source region) to dst_seg (destination region).
struct Piece {
  unsigned src_seg = 0, dst_seg = 0, count = 1;
};
inline constexpr unsigned kNoRank = ~0u;
struct Xfer {
  unsigned src = 0, dst = 0;  ///< ranks (src == dst: a local DMA transfer)
  bool reduce = false;
  Region src_reg = Region::data, dst_reg = Region::data;
  std::vector<Piece> pieces;
  /// A rank on the sender's chip whose same segments the DMA reads too and adds to the sender's
  /// before they leave (KangaRing's reduce-scatter: one transfer reads three blocks, SPEC 5.5's
  /// accumulate on the way; kNoRank: none).
  unsigned src2 = kNoRank;
  /// A second destination on the sender's chip that receives the same bytes, read once (the DMA's
  /// duplicated write, KangaRing's 1-read/2-write all-gather; kNoRank: none). Data regions only.
  unsigned dst2 = kNoRank;
};

/// A part of a schedule: `rounds()` rounds; what each rank sends in each of them, and how many
/// transfers each rank receives in each of them.
class Phase {
 public:
  virtual ~Phase() = default;
  virtual unsigned rounds() const = 0;
  virtual void sends(unsigned rank, unsigned round, std::vector<Xfer>& out) const = 0;
  virtual unsigned expect(unsigned rank, unsigned round) const = 0;
  /// Rounds whose transfers add into a rank's segments from a different partner than the round
  /// before (recursive halving): a sender waits for the receiver's ready flag, written when the
  /// receiver has entered the round, so the additions happen in the schedule's order.
  virtual bool needs_ready() const { return false; }
  /// The receiver's flag at the phase's first round gates every round of the phase (a ring: after
  /// the first round, its own order holds), instead of one flag a round.
  virtual bool ready_once() const { return false; }
  /// The ranks that send to `rank` in `round` (where needs_ready()).
  virtual void senders(unsigned, unsigned, std::vector<unsigned>&) const {}
};

class Schedule {
 public:
  Op op = Op::all_reduce;
  Algo algo = Algo::ring;
  unsigned ranks = 0;
  /// Segments a rank's region is cut into: ranks x stripes, rank r's share (its reduce-scatter
  /// result, its all-gather contribution) segments r x stripes .. r x stripes + stripes - 1; stripe
  /// j of every share travels ring j (rings; 1 elsewhere).
  unsigned stripes = 1;
  unsigned segments() const { return ranks * stripes; }
  bool uses_out = false, uses_scratch = false;
  std::string describe;  ///< one line: the phases

  void add(std::unique_ptr<Phase> p);
  unsigned rounds() const { return rounds_; }
  /// Transfers rank `rank` starts in round `round`, in issue order.
  void sends(unsigned rank, unsigned round, std::vector<Xfer>& out) const;
  /// Transfers addressed to rank `rank` in round `round`.
  unsigned expect(unsigned rank, unsigned round) const;
  /// The round whose ready flag gates the transfers of `round` (-1: none); once: that flag gates
  /// every round of the phase.
  int gate(unsigned round, bool& once) const;
  void senders(unsigned rank, unsigned round, std::vector<unsigned>& out) const;
  std::size_t phases() const { return phases_.size(); }
  const Phase& phase(std::size_t i) const { return *phases_.at(i); }

 private:
  const Phase& at(unsigned round, unsigned& local) const;
  std::vector<std::unique_ptr<Phase>> phases_;
  std::vector<unsigned> first_;  // first round of each phase
  unsigned rounds_ = 0;
};

/// The schedule of `op` by `algo` (not automatic) over `ranks` ranks (`levels`: a hierarchical
/// schedule's group sizes, Placement::levels; `rings`: the rank orders of striped rings,
/// Placement::rings). Throws Error for a combination that cannot run.
Schedule build(Op op, Algo algo, unsigned ranks, const std::vector<unsigned>& levels = {},
               const std::vector<std::vector<unsigned>>& rings = {}, const std::vector<Stripe>& stripes = {});

/// Striped rings where no placement gives them: ranks 0 .. n - 1 in order, and backwards.
std::vector<std::vector<unsigned>> default_rings(unsigned n);

/// Throws Error unless `bytes` of `what` (a message's size, a chunk) are a whole number of elements
/// of type e, at least one (zero_ok: or 0, which names a chunk of whole segments).
void check_elements(const char* what, std::uint64_t bytes, Elem e, bool zero_ok = false);

/// Bytes of each segment an instance takes: `chunk` bytes of a rank's share, which is `stripes`
/// segments (Schedule::stripes), so chunk / stripes of each in whole elements of es bytes (0: the
/// whole segment of seg bytes), at least an element and at most the segment.
inline std::uint64_t chunk_bytes(std::uint64_t chunk, unsigned es, std::uint64_t seg, unsigned stripes = 1) {
  return chunk ? std::min(seg, std::max<std::uint64_t>(es, chunk / stripes / es * es)) : seg;
}

/// permute: the rank that rank r sends to.
inline unsigned permute_peer(unsigned r, unsigned n) { return (r + 1) % n; }

// ---------------------------------------------------------------- the plain reference
/// Element values (codes: FP32 bits, or BF16 in the low 16 bits) of every rank's data region in,
/// and the region the operation defines out: all-reduce and all-gather the data region, reduce-scatter
/// rank r's segment r of it, all-to-all and permute the output region. Sums are taken in the order the
/// algorithm defines (docs/collectives.md), by the DMA's accumulate (FP32 addition; BF16: the FP32 sum
/// rounded to BF16), written directly from the algorithm's definition, not from the schedule.
/// `seg_elems`: elements per segment; `rings`: striped rings' rank orders (Placement::rings), whose
/// count is the stripes of a rank's share. Returns per rank the expected output (same layout as in).
std::vector<std::vector<std::uint32_t>> reference(Op op, Algo algo, Elem e, const std::vector<unsigned>& levels,
                                                  unsigned seg_elems, const std::vector<std::vector<std::uint32_t>>& in,
                                                  const std::vector<std::vector<unsigned>>& rings = {},
                                                  const std::vector<Stripe>& stripes = {});

}  // namespace trn::collective
