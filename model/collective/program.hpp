// trn::collective::emit — a collective schedule compiled into programs for the chips' collective
// cores (docs/collectives.md, "Programs for the RTL"): what the engine's collective cores do at run
// time, written out as instructions a collective core of rtl/chip/chip.sv runs.
//
// Rank r's program (the sync stream of its chip's collective core) walks the schedule round by
// round, each round for every pipelined instance in turn:
//   - it waits (sem_wait) until every transfer addressed to it in the round before has signalled
//     semaphore S(instance, round - 1) of its collective core;
//   - where the phase needs ready flags, it sends one to each rank that adds into it from this
//     round on: a 4-byte DMA write to that rank's flag word whose completion adds 1 to the
//     sender's semaphore F(instance, round); before a transfer of a gated round it waits for the
//     flags it is owed;
//   - each transfer becomes DMA descriptors (contiguous runs, at most desc_bytes each, accumulating
//     for reductions) on the queue of its destination chip (chip mod queues, as the engine's DMA:
//     additions into one rank land in the order they were issued); the last one's completion adds 1 to
//     semaphore S(instance, round) of the receiver's collective core, on its chip (remote
//     destinations carry the receiver's chip in the HBM address, docs/chip.md), with the barrier
//     flag when asked;
//   - at the end it waits for the last round's transfers.
// Channels: with channels = k > 1, k collective cores of every chip (units unit .. unit + k - 1)
// run the schedule at once, core j the instances i with i mod k = j (each a slice of every
// segment), as a collective library runs several rings on its DMA engines: every core has its own
// DMA queues, read slots and semaphores, and its transfers signal the same core on the receiver.
// Every (instance, round) has its own semaphore where instances x (rounds + gated rounds) fit in the
// unit's 32, so a count never mixes rounds or instances. Longer schedules (a ring of more than 16
// ranks) give every (instance, sender) a semaphore instead: the sender's transfers to a rank add to
// it in order (a strong-order-write queue, or the barrier flag), and the rank waits after round t
// for the running count of each sender's transfers through round t.
//
// Memory of a rank, in its chip's HBM from `base`: the data region (segment s at s * seg_bytes),
// then the output and scratch regions where the schedule uses them, each ranks x seg_bytes, then
// the flag word of every channel (16 bytes each: a beat of the narrowest configuration).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collective/collective.hpp"

namespace trn::collective {

struct EmitConfig {
  Op op = Op::all_reduce;
  Algo algo = Algo::ring;  ///< not automatic
  Elem elem = Elem::fp32;
  std::uint64_t bytes = 0;  ///< message size (as Config::bytes)
  Placement place;          ///< rank r on chip place.chip[r]; place.levels for hier
  std::uint64_t chunk = 0;  ///< bytes of a rank's share per instance, as Config::chunk (0: whole segments)
  std::uint32_t desc_bytes = 65536;
  bool barrier = false;         ///< the barrier flag on each transfer's semaphore descriptor
  unsigned unit = 0;            ///< the collective core's unit index on every chip (the chip's cores)
  unsigned channels = 1;        ///< collective cores running the schedule: instance i on unit + i % channels
  unsigned queues = 2;          ///< queues of its DMA engine
  std::uint32_t base = 0;       ///< HBM address of the data region on every chip
  std::uint64_t hbm_bytes = 0;  ///< a chip's HBM (the memory must fit below it; 0: no limit)
};

struct Programs {
  Schedule schedule;
  std::vector<std::string> text;  ///< per rank r and channel k, at r * channels + k: its program (assembly)
  unsigned channels = 1;
  std::uint64_t seg_bytes = 0, region_bytes = 0, chunk_bytes = 0;
  unsigned instances = 0, semaphores = 0, regions = 1;
  bool per_sender = false;  ///< semaphores per (instance, sender) with running counts, not per (instance, round)
  std::uint64_t transfers = 0, descriptors = 0;
  std::uint32_t flag_addr = 0;  ///< every chip's flag word (channel k's at flag_addr + 16 k)
  /// What a rank's program sends to another chip, in program order (for the cycle level's ordering
  /// checker): a transfer's descriptors or a ready flag, each ending on a semaphore of the receiver.
  struct Send {
    unsigned dst_chip = 0, inst = 0, round = 0, channel = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  ///< (HBM address there, bytes)
    std::uint64_t bytes = 0;
  };
  std::vector<std::vector<Send>> sends;  ///< per rank (every channel's, each in its program order)
  const std::string& program(unsigned rank, unsigned channel) const { return text.at(rank * channels + channel); }
  /// HBM address of region g (0 data, 1 out, 2 scratch) on every chip.
  std::uint32_t region_addr(Region g, std::uint32_t base) const {
    return base + static_cast<std::uint32_t>(static_cast<std::uint64_t>(g) * region_bytes);
  }
  /// Where the operation's result is (reference()'s layout): its address and bytes on rank r.
  std::uint32_t output_addr(unsigned rank, std::uint32_t base) const;
  std::uint64_t output_bytes() const;
};

/// Seeded inputs as Run::fill makes them (normal values): per rank, ranks x seg_elems element codes.
std::vector<std::vector<std::uint32_t>> seeded_inputs(const Programs& p, Elem e, std::uint64_t seed);
/// Element codes as little-endian bytes (elem_bytes each), and back.
std::vector<std::uint8_t> to_bytes(const std::vector<std::uint32_t>& codes, Elem e);
std::vector<std::uint32_t> from_bytes(const std::uint8_t* bytes, std::uint64_t n_bytes, Elem e);
/// The first element where rank `rank`'s output differs from the reference ("" when none).
std::string first_difference(unsigned rank, const std::vector<std::uint32_t>& got,
                             const std::vector<std::uint32_t>& want);

/// Compile the collective; throws Error for one that cannot be emitted (too many semaphores, a
/// memory beyond the HBM, a size that is not whole elements).
Programs emit(const EmitConfig& c);

}  // namespace trn::collective
