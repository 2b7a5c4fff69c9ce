// trn::dma::Feeder and ModelRunner. The feeder offers a program's descriptors to the engine's
// descriptor port (queues in rotation, seeded idle cycles); the runner runs the cycle model alone
// against the MemSystem environment and the ordering checker, at model speed (no RTL).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "dma/checker.hpp"
#include "dma/dma_engine.hpp"
#include "dma/memsys.hpp"
#include "dma/program.hpp"

namespace trn::dma {

class Feeder {
 public:
  Feeder(const Program& p, std::uint64_t seed, double p_idle = 0.0);
  /// The descriptor offered this cycle (queue, descriptor), if any.
  std::optional<std::pair<unsigned, const Desc*>> offer() const;
  /// The offer was (or was not) accepted this cycle; choose the next cycle's offer.
  void advance(bool accepted);
  bool done() const;

 private:
  const Program& p_;
  std::vector<std::size_t> next_;
  unsigned cur_ = 0;
  bool idle_ = false;
  double p_idle_;
  std::mt19937_64 rng_;
};

/// The model's output write channel as a Write (for the memory and the monitor).
Write write_of(const DmaEngine::Out& o, unsigned beat_bytes);

struct RunStats {
  std::uint64_t cycles = 0, bytes_written = 0;
  unsigned max_rob = 0, max_inflight = 0;
};

class ModelRunner {
 public:
  ModelRunner(const DmaEngine::Params& dp, const MemSystem::Params& mp, std::uint64_t seed);
  DmaEngine& engine() { return dma_; }
  MemSystem& mem() { return mem_; }
  /// Run the program to completion (every queue idle) within `limit` cycles; the checker, if
  /// given, sees every visible write.
  RunStats run(const Program& p, unsigned max_outst, std::uint64_t limit, OrderingChecker* checker = nullptr,
               double p_idle = 0.0);

 private:
  DmaEngine dma_;
  MemSystem mem_;
  std::uint64_t seed_;
  std::uint64_t cycle_ = 0;
};

}  // namespace trn::dma
