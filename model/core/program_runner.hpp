// trn::core::ProgramRunner — a NeuronCore program on the model alone (trn::core::NeuronCore, no
// RTL): the program loaded through the instruction-memory port, the HBM port served by
// trn::dma::MemSystem, `start`, and one cycle per step() until the core is done or stops on an
// error. The fast path for kernels at sizes the RTL cannot simulate (the full configuration).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/neuron_core.hpp"
#include "dma/memsys.hpp"
#include "isa/isa.hpp"

namespace trn::core {

/// How a run ended.
struct RunResult {
  std::uint64_t cycles = 0;  ///< from start to done or to the error
  bool ok = false;
  unsigned code = 0, detail = 0, stream = 0;
  std::uint32_t pc = 0;
  std::string what;  ///< one line: the error, its stream, pc (and label) and each stream's state
};

/// The instruction words each stream's memory gets: the program's, or a lone `end` for a stream it
/// leaves empty. Throws isa::Error when a stream does not fit in `imem_depth` words.
std::array<std::vector<Bits>, Control::kStreams> imem_words(const isa::Program& p, unsigned imem_depth);
/// Each word a unit's instruction memories get, in load order: fn(stream, address, word). A
/// collective core (sync_only) takes its sync stream alone.
template <class F>
void for_each_imem_word(const isa::Program& p, unsigned imem_depth, bool sync_only, F&& fn) {
  const auto words = imem_words(p, imem_depth);
  for (unsigned s = 0; s < Control::kStreams; ++s) {
    if (sync_only && s != Control::sync) continue;
    for (std::size_t a = 0; a < words[s].size(); ++a) fn(s, static_cast<std::uint32_t>(a), words[s][a]);
  }
}
/// A one-line description of the core's error state (code, detail, stream, pc with label) and of
/// every stream's status.
std::string describe(const isa::Program& p, bool err, unsigned code, unsigned detail, unsigned stream, std::uint32_t pc,
                     const std::array<Control::StreamStatus, Control::kStreams>& st);

class ProgramRunner {
 public:
  ProgramRunner(const NeuronCore::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, bool strong = true);
  NeuronCore& nc() { return nc_; }
  dma::MemSystem& hbm() { return hbm_; }
  std::uint64_t cycle() const { return cycle_; }
  const NeuronCore::Out& out() const { return out_; }

  /// Write the program's words into the instruction memories (one per cycle).
  void load(const isa::Program& p);
  /// Write `bytes` into GpSimd processor `proc`'s local memory at byte `addr` (every processor's
  /// when proc < 0) through the gp_host port, one word a cycle. Throws std::invalid_argument when
  /// the core has no GpSimd engine, or the bytes do not fit.
  void load_gpsimd(int proc, std::uint32_t addr, const std::vector<std::uint8_t>& bytes);
  /// Start and step until done or an error, or `limit` cycles (then the result says so).
  RunResult run(std::uint64_t limit = 50'000'000);
  /// One clock cycle.
  void step();
  /// Called after each step's evaluation, before the edge (traces, counters).
  std::function<void(const NeuronCore&, const NeuronCore::Out&, std::uint64_t cycle)> on_cycle;

 private:
  NeuronCore nc_;
  dma::MemSystem hbm_;
  NeuronCore::In in_;
  NeuronCore::Out out_;
  isa::Program prog_;
  std::uint64_t cycle_ = 0;
  unsigned beat_;
};

}  // namespace trn::core
