// trn::system presets — the generation presets of SPEC section 2 as data (model/system/presets.toml,
// docs/system.md): NeuronCore generations, chips and systems, read and checked here. Every error
// names the file, line and column (or the --set that caused it) and what was expected; nothing
// here computes a total: System (system.hpp) composes them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trn::system {

/// Operand types with a peak tensor-engine rate (SPEC 2); `sparse`: structured-sparse matmuls,
/// counted as the dense matmul they stand for (SPEC 5.1: FP8 4:16 weights, four K-rows a PE a cycle).
enum class DType : unsigned { fp32, tf32, bf16, fp16, fp8, mxfp8, mxfp4, int8, sparse };
inline constexpr std::array<DType, 9> kDTypes = {DType::fp32,  DType::tf32,  DType::bf16, DType::fp16,  DType::fp8,
                                                 DType::mxfp8, DType::mxfp4, DType::int8, DType::sparse};
const char* dtype_name(DType t);

/// A user's error in a preset file or a --set: one line, naming where.
struct PresetError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CoreGen {
  std::string key, title;
  unsigned tensor_rows = 0, tensor_cols = 0;
  double tensor_ghz = 0, vector_ghz = 0, scalar_ghz = 0;
  unsigned sbuf_partitions = 0, sbuf_kib_per_partition = 0;
  unsigned psum_banks = 0, psum_bank_bytes = 0;
  unsigned dma_engines = 0, dma_queues = 0, dma_qos_classes = 0;
  double dma_engine_gbps = 0;
  std::array<double, kDTypes.size()> rate{};  ///< MACs per PE per cycle relative to BF16 (0: none)
};

/// Ports of one class on a chip: `count` ports of `gbps` per direction each; NeuronLink, or a
/// scale-out port (scale_out = true) outside the NeuronLink totals.
struct LinkClass {
  std::string name;
  unsigned count = 0;
  double gbps = 0, latency_ns = 0;
  bool scale_out = false;
};

/// Published totals (metric name -> value), compared with the composition, in file order.
using Published = std::vector<std::pair<std::string, double>>;

/// What a collective costs beyond its data's bandwidth (docs/collectives.md, "The cost of
/// synchronisation"): the flow level's parameters of a chip generation.
struct CollectiveCost {
  double launch_us = 0;      ///< the runtime starting a collective on the collective cores, once
  double step_us = 0;        ///< a collective core's round: its semaphore wait seen, the next round's DMA started
  double dge_ns = 0;         ///< descriptor generation of a transfer (a DGE instruction), one after another a rank
  double rank_dma_gbps = 0;  ///< DMA a rank's collective cores drive (their DMA rings; 0: the chip's DMA only)
};

struct ChipGen {
  std::string key, title, core, neuronlink;
  unsigned cores = 0, hbm_stacks = 0, collective_cores = 0;
  unsigned lnc = 1;  ///< physical cores of a logical NeuronCore by default (a collective's rank)
  CollectiveCost cc;
  double hbm_stack_gib = 0, hbm_stack_gbps = 0, hbm_latency_ns = 0;
  std::vector<LinkClass> links;
  Published published;
  const LinkClass* link_class(std::string_view name) const;
};

enum class TopoKind { torus, neuronswitch, planes };
const char* topo_name(TopoKind k);

struct Topology {
  TopoKind kind = TopoKind::torus;
  // torus
  std::vector<unsigned> dims;
  std::vector<std::string> classes;  ///< link class of each dimension
  // neuronswitch
  unsigned racks = 0, servers_per_rack = 0, chips_per_server = 0;
  std::string server_links, rack_links, cross_rack_links;
  // planes
  unsigned ultraservers = 0, chips_per_ultraserver = 0, spines = 0;
  std::string links, scale_out_links;
  double spine_gbps = 0, spine_latency_ns = 0;
  double switch_latency_ns = 0;
};

/// "metric of this system is `ratio` times against_metric of system `against`".
struct Claim {
  std::string against, metric, against_metric;
  double ratio = 0;
};

/// A published collective benchmark table (nccom-test) measured on this system's hardware: the
/// operation, ranks and type it ran with, where it is published, and (bytes, microseconds) rows,
/// each with the algorithm the run reported where it did (nccom-test --show-algorithm).
struct Measured {
  std::string op, dtype, source, note;
  unsigned ranks = 0;
  bool fit = false;  ///< the cost parameters were fitted to it (else it is held out)
  std::vector<std::pair<std::uint64_t, double>> rows;
  std::vector<std::string> algos;  ///< per row: the published algorithm ("" where not given)
};

struct SystemPreset {
  std::string key, title, chip;
  Topology topo;
  Published published;
  std::vector<Claim> claims;
  std::vector<Measured> measured;
};

struct Presets {
  std::string source;  ///< file the presets came from (for messages)
  std::vector<CoreGen> cores;
  std::vector<ChipGen> chips;
  std::vector<SystemPreset> systems;  ///< in file order
  const CoreGen& core(std::string_view key) const;
  const ChipGen& chip(std::string_view key) const;
  /// Throws PresetError naming the presets that exist.
  const SystemPreset& system(std::string_view key) const;
  bool has_system(std::string_view key) const;
};

/// Metrics a published table or a claim may name: `<type>_tflops` for every DType, hbm_gib,
/// hbm_gbps, sbuf_mib, dma_gbps, link_gbps, collective_cores.
bool known_metric(std::string_view m);

/// Parse and check preset text. `sets` are KEY=VALUE overrides applied before the check: KEY is a
/// dotted path to an existing value (core.v4.tensor_ghz) or, with `focus` naming a system, a path
/// under that system, its chip or its core (links.intra_server.count); VALUE is TOML (6, 2.5,
/// "x", [4, 4]) or a bare word taken as a string. Throws PresetError.
Presets parse_presets(std::string_view text, const std::string& source, const std::vector<std::string>& sets = {},
                      const std::string& focus = "");
/// Read a preset file (PresetError if it cannot be read).
Presets load_presets(const std::string& path, const std::vector<std::string>& sets = {}, const std::string& focus = "");
/// The presets built into the model (model/system/presets.toml at build time).
Presets default_presets(const std::vector<std::string>& sets = {}, const std::string& focus = "");
/// The built-in preset file's text and its path in the source tree.
std::string_view default_presets_text();
const char* default_presets_path();

}  // namespace trn::system
