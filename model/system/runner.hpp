// trn::system::Runner — a system of chips (trn::system::ChipTorus: TorusRunner; ChipSwitch:
// SwitchRunner; ChipNet: NetRunner) run by the model alone, no RTL: each chip's HBM port served by
// its own trn::dma::MemSystem (as the system bench's HbmPorts serve the RTL's), programs loaded
// through the system's im_ port, units started and run to their end. The model's path for running
// emitted collective programs (collective/program.hpp) and the system's unit tests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dma/memsys.hpp"
#include "isa/isa.hpp"
#include "system/chip_net.hpp"
#include "system/chip_switch.hpp"
#include "system/chip_torus.hpp"

namespace trn::system {

template <class Sys>
class Runner {
 public:
  /// `strong`: every unit's DMA queues strong-order-write (else write-after-write).
  Runner(const typename Sys::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, bool strong = true);
  const Sys& system() const { return sys_; }
  dma::MemSystem& hbm(unsigned chip) { return *hbm_.at(chip); }
  std::uint64_t cycle() const { return cycle_; }

  /// Load unit u of chip `chip` (a collective core: its sync stream).
  void load(unsigned chip, unsigned u, const isa::Program& p);
  /// The same, without its cycles: the words written straight into the collective core's
  /// instruction memory (the chips' state load() leaves; for long programs on many chips, whose
  /// loading through the one instruction port would take a system cycle a word). The runs are the
  /// same where the HBM's draws do not follow the cycle count (readies always up, no stall
  /// bursts, as the cycle level's HBM; system_programs/preloaded_programs_run_as_loaded_ones).
  void preload(unsigned chip, unsigned u, const isa::Program& p);
  /// Start units (masks[c]: chip c's) and run until each is done; the cycles taken. Throws
  /// std::runtime_error naming the chip, unit, error and pc of the first unit that stops on an
  /// error, or after `limit` cycles naming the units still running.
  /// `progress` (if set) is called with the cycles run every 4096 cycles.
  std::uint64_t run(const std::vector<std::uint64_t>& masks, std::uint64_t limit = 10000000,
                    const std::function<void(std::uint64_t)>& progress = {});
  /// Bit errors: each cycle, each link's wire has one bit inverted with chance p (seeded).
  void set_flips(double p, std::uint64_t seed);
  std::uint64_t flips() const { return flips_; }
  /// Replays of every link so far.
  std::uint64_t replays() const;
  /// Chip c's unit u's semaphore s.
  std::uint32_t sem(unsigned chip, unsigned u, unsigned s) const;

  /// Called every cycle after the system's evaluation (the parts' wired ports are this cycle's),
  /// with the cycle.
  void set_observer(std::function<void(std::uint64_t)> f) { observe_ = std::move(f); }
  /// Called every cycle for each chip after its evaluation, with the chip and the cycle: in chip
  /// order each cycle, or within a window (set_window) from the chip's own thread, so it may touch
  /// only what belongs to that chip.
  void set_chip_observer(std::function<void(unsigned, std::uint64_t)> f) { chip_observe_ = std::move(f); }
  /// Windows (model speed only; a torus whose every link has a wire): run() runs every chip up to
  /// w cycles alone between exchanges (ChipTorus::run_window, at most its lookahead), with the same
  /// cycles, data and errors as the lockstep (collectives/cycle_level_windows_change_nothing). 0 (the
  /// default): lockstep. Bit errors (set_flips) and a system observer (set_observer) keep the
  /// lockstep.
  void set_window(unsigned w) { window_ = w; }

  /// One clock cycle.
  void step();

 private:
  Sys sys_;
  std::vector<std::unique_ptr<dma::MemSystem>> hbm_;
  typename Sys::In in_;
  typename Sys::Out out_;
  unsigned id_bits_, src_bits_;
  std::uint64_t cycle_ = 0;
  double p_flip_ = 0;
  std::mt19937_64 chan_;
  std::uint64_t flips_ = 0;
  std::function<void(std::uint64_t)> observe_;
  std::function<void(unsigned, std::uint64_t)> chip_observe_;
  unsigned window_ = 0;
  /// Chip c's HBM answers this cycle into the system's inputs.
  void hbm_answers(unsigned c);
  /// run() in windows (a torus of wires); the cycles taken since cycle c0.
  std::uint64_t run_windows(const std::vector<std::uint64_t>& masks, std::uint64_t limit,
                            const std::function<void(std::uint64_t)>& progress, std::uint64_t c0);
  /// What run() says of units still running after `limit` cycles.
  std::string still_running(const std::vector<std::uint64_t>& masks, const std::vector<std::uint64_t>& fin,
                            std::uint64_t limit) const;
};

extern template class Runner<ChipTorus>;
extern template class Runner<ChipSwitch>;
extern template class Runner<ChipNet>;
using TorusRunner = Runner<ChipTorus>;
using SwitchRunner = Runner<ChipSwitch>;
using NetRunner = Runner<ChipNet>;

}  // namespace trn::system
