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

/// An operator on SBUF (kernels/gpsimd/sbuf_*.c, docs/gpsimd.md "In the NeuronCore"): one local
/// memory image for every processor (its code and argument block), the SBUF rows it reads, and
/// SBUF after its host build ran as each processor (each takes the partitions it owns).
struct SbufCase {
  std::string name;
  std::vector<std::uint8_t> image;  ///< every processor's local memory
  std::uint32_t args = 0;           ///< the argument block (a1)
  unsigned parts = 0, procs = 0;
  std::uint32_t part_bytes = 0;
  std::uint32_t in = 0, out = 0, bytes = 0;  ///< each partition's input and output: byte offsets, length
  unsigned sem = 0;                          ///< the semaphore each processor adds 1 to when done
  std::uint32_t elements = 0;                ///< the elements it works on, every partition's
  std::vector<std::uint8_t> sbuf;            ///< parts x part_bytes, partition p from p * part_bytes
  std::vector<std::uint8_t> expected;        ///< ... after the host build
};
/// The SBUF operators kernels/gpsimd holds, by name.
const std::vector<std::string>& sbuf_operator_names();
/// A case of SBUF operator `name` for `procs` processors of `tcm_bytes` on `parts` partitions of
/// `part_bytes`, with random inputs from `rng` (at most `max_elements` a partition) and `sem` the
/// semaphore the processors add to. Throws std::invalid_argument naming an unknown operator, or
/// one that does not fit.
SbufCase sbuf_operator_case(const std::string& name, std::uint32_t tcm_bytes, unsigned parts, std::uint32_t part_bytes,
                            unsigned procs, std::mt19937_64& rng, std::uint32_t max_elements, unsigned sem);
/// The NeuronCore program (docs/isa.md) of an SBUF case: the sync stream brings each partition's
/// input rows from HBM (at hx + p * bytes) into SBUF, the gpsimd stream runs the operator (entry 0)
/// once they are in, and the sync stream takes the output rows back to HBM (at hy + p * bytes)
/// once it is done. Its semaphores: x_in, ops (index 1: the case's sem must be 1), g, out.
std::string sbuf_program(const SbufCase& c, std::uint32_t hx, std::uint32_t hy);

}  // namespace trn::gpsimd
