// The GpSimd operators of kernels/gpsimd (docs/gpsimd.md "Operators") as runnable cases: a local
// memory image (the operator's code, its inputs and argument block), the regions its outputs take,
// and what the same C built for the host leaves there (the reference, bit for bit).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace trn::gpsimd {

struct OperatorCase {
  std::string name;
  std::uint32_t tcm_bytes = 0;
  std::vector<std::uint8_t> image;  ///< local memory from 0: code, then inputs and arguments, zeros
  std::uint32_t args = 0;           ///< the argument block (a1)
  std::uint32_t elements = 0;       ///< the elements it works on (cycles per element)
  struct Region {
    const char* what;
    std::uint32_t addr, bytes;
  };
  std::vector<Region> outputs;         ///< where its results are
  std::vector<std::uint8_t> expected;  ///< local memory after the host build ran on the image
};

/// The operators kernels/gpsimd holds, by name.
const std::vector<std::string>& operator_names();
/// The image built for `tcm_bytes` of local memory (<build>/gpsimd/<config>/<name>.bin, the
/// configuration whose gpsimd_tcm_bytes it is), read from disk.
std::vector<std::uint8_t> operator_code(const std::string& name, std::uint32_t tcm_bytes);
/// A case of operator `name` with random inputs from `rng`, as large as local memory allows (at
/// most `max_elements`), the host build run on it. Throws std::invalid_argument naming an unknown
/// operator, or one that does not fit.
OperatorCase operator_case(const std::string& name, std::uint32_t tcm_bytes, std::mt19937_64& rng,
                           std::uint32_t max_elements = 4096);

}  // namespace trn::gpsimd
