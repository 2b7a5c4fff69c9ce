// A GTKWave save file for a bench's FST: the top's ports grouped by interface (the name up to
// the first '_'), clock and reset first, and the primary marker at the first failure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/env.hpp"

namespace trn::tb {

/// The FST names of the top's ports ("TOP.push_data_i[15:0]").
std::string fst_name(const Signal& s);
void write_gtkw(const std::string& path, const std::string& fst, PortTable& ports, std::optional<std::uint64_t> marker_ps);

}  // namespace trn::tb
