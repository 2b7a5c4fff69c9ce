// trn::core::Roofline — where a NeuronCore run's time goes (docs/kernels.md, "Roofline"): per
// resource, the cycles it was busy and the cycles its work needs at its peak rate; the largest of
// the latter is the run's bound.
//
//   TE   busy: cycles a moving column reaches PSUM (partition 0 is written by every column); work at
//        peak: every multiply's K x M x N multiply-accumulates at R x C x its rate a cycle (SPEC 5.1:
//        1 << kpe K-rows a PE a cycle, FP32 a quarter, one-row MX a half), so a tile that leaves rows
//        or columns of the array empty needs more cycles than its work at peak; a command the
//        engine refuses (cpl_o.err) counts nothing;
//   VE, ACT  busy: cycles the vector / scalar engine holds an instruction (ve_busy_o, se_busy_o);
//        work at peak: per instruction, the accesses of its busiest port (two reads, a write: one
//        a cycle each at the engine's rate, docs/vector.md; a transpose's reads and writes one
//        after the other) plus the instruction's fixed cycles (overhead()), so the cycles an engine
//        waits for a port it shares (SBUF banks, PSUM's read port) count as busy but not as work;
//   PSUM the tensor engine's PSUM read port, which the vector and scalar engines share: reads;
//   DMA  the SBUF DMA ports: cycles a beat is written into SBUF or read out of it, whichever port
//        is busier; one beat a cycle each is the peak, so the work is the busier port's beats;
//   HBM  the core's HBM channels: read beats received and write beats taken, the busier channel.
// Observes every cycle like Timeline (ProgramRunner::on_cycle).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/neuron_core.hpp"

namespace trn::core {

class Roofline {
 public:
  enum Resource : unsigned { kTe, kVe, kAct, kPsum, kDma, kHbm, kResources };
  static constexpr std::array<const char*, kResources> kNames{"TE", "VE", "ACT", "PSUM", "DMA", "HBM"};
  /// A lane-engine instruction's fixed cycles in the core, from its acceptance to the cycle the
  /// next can be accepted, beyond one access a cycle on its busiest port (docs/vector.md, Timing):
  /// 5 for a streaming instruction, 3 without reads (iota, memset), the per-partition operands'
  /// reads + 1 more (tensor_scalar, activate), 1 for set_seed. control_test pins them to the
  /// engines' busy cycles.
  static unsigned overhead(const vector::Instr& in);

  explicit Roofline(const NeuronCore::Params& p);
  /// Observe one cycle.
  void observe(const NeuronCore& nc, const NeuronCore::Out& o, std::uint64_t cycle);

  std::uint64_t cycles() const { return cycles_; }
  /// Cycles the resource was busy.
  std::uint64_t busy(Resource r) const { return busy_[r]; }
  /// Cycles the resource's work needs at its peak rate.
  double work(Resource r) const;
  /// The resource whose work at peak is largest, and that work in cycles.
  Resource bound() const;
  std::uint64_t macs() const { return macs_; }
  /// The table as text (one line per resource, the bound and the run against it).
  std::string report() const;

 private:
  unsigned rows_, cols_;
  std::uint64_t cycles_ = 0;
  std::array<std::uint64_t, kResources> busy_{};
  std::uint64_t dma_in_ = 0, dma_out_ = 0, hbm_rd_ = 0, hbm_wr_ = 0;
  std::uint64_t macs_ = 0;
  double te_peak_cycles_ = 0;  ///< sum over multiplies of their MACs over the array's MACs a cycle
  struct Lane {                ///< a lane engine's work at peak: closed instructions, the open one's accesses
    std::uint64_t work = 0, rd0 = 0, rd1 = 0, wr = 0;
    unsigned fixed = 0;   ///< the open instruction's fixed cycles
    bool serial = false;  ///< the open instruction reads, then writes (transpose)
    bool open = false;
    void observe(const vector::LaneEngine::In& i, const vector::LaneEngine::Out& o);
    std::uint64_t total() const;
  };
  Lane ve_, act_;
  unsigned ls_k_ = 0, ls_m_ = 0;  ///< the weights the next multiply uses (the last LoadStationary taken)
  sv::te_pkg::te_cmd_t pend_{};   ///< the command the engine took last cycle (counted unless refused)
  bool pend_valid_ = false;
  void take(const sv::te_pkg::te_cmd_t& c);
};

}  // namespace trn::core
