// trn::kernels — the kernels of kernels/ as test cases: for each, the assembly source, a data
// generator (seeded HBM inputs for a configuration) and its expected HBM outputs from a plain C++
// reference that follows the kernel's order of operations (the units' functional references,
// chained as the program chains the engines). The control's tests, the NeuronCore RTL bench and
// the benchmarks run the same cases (docs/kernels.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isa/isa.hpp"
#include "trn_config.hpp"

namespace trn::kernels {

/// A block of HBM bytes at an address.
struct Block {
  std::string name;
  std::uint32_t addr = 0;
  std::vector<std::uint8_t> bytes;
};

/// Constants for the assembler (a kernel's sizes: its `.default` constants).
using Defines = std::map<std::string, std::int64_t>;

/// An output's elements against a double-precision reference: |got - want[i]| <= tol[i].
struct Bound {
  std::string output;  ///< the name of one of the case's outputs
  unsigned fmt = 0;    ///< its element type: isa dtype fp32 (0) or bf16 (2)
  std::vector<double> want, tol;
  std::string rule;  ///< how tol is made, one line (docs/kernels.md)
};

/// One run of a kernel: its inputs and what it must leave behind.
struct Case {
  Defines defines;                         ///< the sizes the reference used, for the assembler
  std::vector<Block> inputs;               ///< written to HBM before start
  std::vector<Block> outputs;              ///< HBM after done, bit-exact
  std::map<unsigned, std::uint32_t> sems;  ///< semaphores' final values
  std::vector<Bound> bounds;               ///< outputs against double precision
  std::uint64_t macs = 0;                  ///< tensor-engine multiply-accumulates (figures)
  unsigned te_rate = 1;  ///< K-rows a PE takes a cycle in the kernel's matmuls (its type's rate, docs/tensor.md)
};

struct Kernel {
  const char* name;
  const char* file;  ///< in kernels/
  const char* doc;
  /// The case for a configuration and seed; `sizes` overrides the kernel's default sizes (the
  /// names of its `.default` constants; throws std::invalid_argument on an unknown or bad one).
  Case (*make)(const cfg::Arch& arch, std::uint64_t seed, const Defines& sizes);
};

/// Every kernel, in the order docs/kernels.md lists them.
std::span<const Kernel> all();
/// The kernel called `name`, or nullptr.
const Kernel* find(std::string_view name);
/// kernels/<file>'s text (throws std::runtime_error naming the path when it cannot be read).
std::string source(const Kernel& k);
/// The directory of the kernel sources.
std::string kernels_dir();
/// The kernel assembled for `arch` with the case's sizes (throws isa::Error).
isa::Program assemble(const Kernel& k, const Case& c, const cfg::Arch& arch);
/// Move a case and its program to HBM address `base`: every input and output block, and every
/// dma_start's HBM source and destination address (a chip's second core runs a kernel beside the
/// first in another part of the chip's HBM). Throws std::invalid_argument when an address would
/// pass the 24-bit byte address of a chip's HBM, or the program loads registers (reg_load: its
/// addresses come from memory at run time, so its argument block is what places it).
void relocate(Case& c, isa::Program& p, std::uint32_t base);
/// The first differences between the case's outputs and `hbm` (one line each, at most `max`), or
/// "" when every output byte matches.
std::string compare(const Case& c, std::span<const std::uint8_t> hbm, unsigned max = 5);
/// The outputs in `hbm` against the case's double-precision bounds.
struct Accuracy {
  double worst = 0;  ///< the largest |got - want| / tol over every bound's elements
  std::string fail;  ///< "" when every element is within its bound, else the first few that are not
};
Accuracy accuracy(const Case& c, std::span<const std::uint8_t> hbm, unsigned max = 5);

/// What a control program of kernels/programs/ must end with, from its `; expect:` lines:
///   ; expect: done | error=NAME stream=NAME pc=V [detail=V] [hbm-writes=V]
///   ; expect-sem: SEM=V ...
/// V is a number or one of the configuration's constants (isa::config_defines).
struct Expect {
  bool done = true;
  unsigned code = 0, stream = 0;
  std::uint32_t pc = 0;
  std::optional<unsigned> detail;
  std::optional<std::uint64_t> hbm_writes;
  std::map<std::string, std::uint32_t> sems;  ///< by the program's semaphore names
};
struct ProgramCase {
  std::string name;  ///< the file's stem
  std::string path, text;
  Expect expect;
};
/// How a run ended, as the expectation sees it.
struct Outcome {
  bool done = false;
  unsigned code = 0, detail = 0, stream = 0;
  std::uint32_t pc = 0;
  std::vector<std::uint32_t> sems;  ///< every semaphore
  std::uint64_t hbm_writes = 0;     ///< writes that reached the HBM port
};
/// "" when `o` is what `e` expects of program `p` (semaphores by p's names), else what differs.
std::string judge(const Expect& e, const isa::Program& p, const Outcome& o);

/// Every program of kernels/programs/, by name; throws std::runtime_error naming file:line for a
/// malformed expect line.
std::vector<ProgramCase> programs(const cfg::Arch& arch);

}  // namespace trn::kernels
