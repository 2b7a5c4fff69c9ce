// A GTKWave save file for a bench's FST: the top's ports grouped by interface (the name up to
// the first '_'), clock and reset first. After a failure it opens on the failure: the primary
// marker at it, the view zoomed to a few dozen cycles around it, and at the top the mismatch flag,
// then the failing port as the model expected it, as the lockstep sampled it and as the DUT drove
// it, with the rest of its interface; the model's other outputs in a closed group at the end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/env.hpp"

namespace trn::tb {

/// Where a save file opens: the first failure.
struct WaveFocus {
  std::uint64_t marker_ps;
  std::string port;             ///< the signal of the first lockstep mismatch, a port or a field of one ("" if none)
  std::uint64_t period_ps = 0;  ///< the clock period, for the window (0: 10 ns)
  std::uint64_t end_ps = 0;     ///< the waveform's last time (GTKWave shows from 0 a view that passes it)
                                ///< (the runner holds a failing run's last values 4 cycles)
};

/// The FST names of the top's ports ("TOP.push_data_i[15:0]").
std::string fst_name(const Signal& s);
void write_gtkw(const std::string& path, const std::string& fst, PortTable& ports,
                const std::optional<WaveFocus>& focus);

}  // namespace trn::tb
