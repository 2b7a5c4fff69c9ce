// trn::core::Timeline — the engine timeline of a NeuronCore run (docs/isa.md, "Timeline"): one
// slice per executed instruction on its stream's track (from issue to the unit's report, or the
// issue cycle for ops that complete when they issue), one slice per semaphore wait, one slice per
// DMA descriptor on its queue's track (from dma_start to its completion), and per-stream cycle
// counts. Written as Chrome/Perfetto trace-event JSON (one microsecond = one cycle): overlapping
// slices of one track (the tensor engine's pipelined commands) go to numbered sub-tracks, so every
// track nests properly.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/neuron_core.hpp"
#include "core/program_runner.hpp"
#include "isa/isa.hpp"

namespace trn::core {

class Timeline {
 public:
  struct Slice {
    unsigned track;            ///< 0..4 the streams, 5.. the DMA queues
    std::string name, cat;     ///< cat: "inst", "wait", "dma"
    std::uint64_t begin, end;  ///< cycles, end exclusive (at least begin + 1)
    unsigned stream;
    std::uint32_t pc;
  };
  /// Per-stream cycle counts over the run.
  struct Counts {
    std::uint64_t active = 0;  ///< cycles with an instruction of the stream in flight or issuing
    std::uint64_t wait = 0;    ///< the head waited on its semaphore
    std::uint64_t busy = 0;    ///< the head waited for its unit (not ready, no tag)
    std::uint64_t sbuf = 0;    ///< a request of the stream's unit to SBUF was refused (arbitration)
    std::uint64_t issued = 0;  ///< instructions issued
  };

  /// `queues` a DMA engine, `engines` engines: a track per queue of every engine (engine e's queue q
  /// at e * queues + q, as the core's per-queue ports).
  Timeline(const isa::Program& p, unsigned queues, unsigned engines = 1);
  /// Observe one cycle (ProgramRunner::on_cycle).
  void observe(const NeuronCore& nc, const NeuronCore::Out& o, std::uint64_t cycle);
  /// Close the open waits at the end of the run.
  void finish(std::uint64_t cycle);
  const std::vector<Slice>& slices() const { return slices_; }
  const std::array<Counts, Control::kStreams>& counts() const { return counts_; }
  /// The trace-event JSON; write_json writes it to `path` (through a temporary file).
  std::string json(const std::string& title) const;
  void write_json(const std::string& path, const std::string& title) const;

 private:
  std::string inst_name(unsigned s, std::uint32_t pc) const;
  const isa::Program& p_;
  std::array<std::vector<Bits>, Control::kStreams> words_;  ///< as loaded (a lone end for an empty stream)
  unsigned queues_;                                         ///< every engine's queues
  unsigned per_engine_;
  std::vector<Slice> slices_;
  std::array<Counts, Control::kStreams> counts_{};
  // instructions in flight per engine stream: tag -> (pc, issue cycle)
  std::array<std::array<std::pair<std::uint32_t, std::uint64_t>, Control::kTags>, 3> fly_{};
  std::pair<std::uint32_t, std::uint64_t> gp_fly_{};  ///< the gpsimd stream's operator: pc, issue cycle
  std::array<int, Control::kStreams> in_flight_{};
  std::array<std::int64_t, Control::kStreams> wait_from_{};  ///< -1: not waiting
  std::array<std::uint32_t, Control::kStreams> wait_pc_{};
  std::vector<std::deque<std::pair<std::uint32_t, std::uint64_t>>> dq_;  ///< per queue: (pc, start)
  std::vector<std::uint64_t> done_q_;
};

}  // namespace trn::core
