// trn::tb replay — the speed of the model alone against the RTL alone, on the same test and seed
// (`make bench`; BENCH_REPLAY=1 with the lockstep on).
//
// While the lockstep compares, it records every cycle's inputs twice: the DUT's input ports as raw
// storage, and the model's In as the lockstep built it. It also keeps a copy of the model as it was
// before the first recorded edge. After the tests, the bench replays the recording:
//   - RTL alone: a fresh Verilated top, each cycle's inputs copied into its ports, the clock low,
//     eval, the clock high, eval — what any driver of the top must do, and nothing else;
//   - model alone: the copy of the model, eval and tick with each cycle's In.
// Neither replay runs the test, the scheduler, the scoreboards or the lockstep, so the two times
// are the simulators' own. Each replay ends by comparing its outputs at the last recorded cycle
// with what the recording saw there, so a replay that diverged (a top whose state a fresh build
// does not reproduce) is reported, not quoted. Prints one line for scripts/bench:
//   bench: replay cycles=<n> rtl_s=<s> model_s=<s> rtl_cycles_per_s=<r> model_cycles_per_s=<r>
//          model_over_rtl=<x> rtl_replay=same|DIFFERENT model_replay=same|DIFFERENT
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/signal.hpp"

namespace trn::tb {

class Bench;
class PortTable;

struct ReplayLog {
  std::string clock;                 ///< the clock port (driven by the replay itself)
  std::vector<std::string> inputs;   ///< the recorded input ports, in frame order
  std::vector<std::string> outputs;  ///< the compared output ports, in frame order
  std::vector<unsigned> in_bytes, out_bytes;
  std::vector<const Signal*> in_sig, out_sig;  ///< the recorded top's ports, while it records
  std::vector<std::uint8_t> frames;            ///< one frame of every input's storage per cycle
  std::vector<std::uint8_t> last_outputs;      ///< the outputs settled before the last recorded edge
  std::uint64_t cycles = 0;
  /// Runs the model alone over the recorded cycles; returns seconds and whether its last outputs
  /// were those recorded.
  std::function<std::pair<double, bool>()> model_replay;

  void clear() { *this = ReplayLog{}; }
  /// Start recording the top's ports (all inputs but the clock, all outputs but probes').
  void begin(PortTable& ports, const Signal& clk);
  /// One cycle: every input's storage, and the outputs (kept for the last cycle only).
  void record();
};

/// The recording of this run (one, from the lockstep that started last).
ReplayLog& replay_log();

struct ReplayResult {
  std::uint64_t cycles = 0;
  double rtl_s = 0, model_s = 0;
  bool rtl_same = false, model_same = false;  ///< each replay ended on the recorded outputs
};

/// Replay the recording on `fresh` (a new top, never evaluated) and on the model; nullopt when
/// nothing was recorded (no lockstep ran, or its model cannot be copied).
std::optional<ReplayResult> run_replay(Bench& fresh);
/// The bench line scripts/bench reads.
void print_replay(const std::optional<ReplayResult>& r);

}  // namespace trn::tb
