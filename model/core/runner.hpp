// trn::core::Runner — the composed NeuronCore model alone, without RTL (the fast path for
// questions too large for RTL simulation, e.g. the full configuration): per-engine command queues
// and the DMA's descriptor queue offered in order, the HBM port served by trn::dma::MemSystem, one
// cycle per step(). The same environment as the core bench, driven through the model's ports.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

#include "core/core.hpp"
#include "dma/memsys.hpp"

namespace trn::core {

/// A core top's HBM port served by trn::dma::MemSystem (Runner, ProgramRunner): this cycle's port
/// inputs from the memory, and the read it accepts.
template <class In>
void hbm_port_inputs(const dma::MemSystem& m, unsigned beat, In& in) {
  const auto& hp = m.ports();
  in.hbm_ar_ready_i = hp.ar_ready;
  in.hbm_wr_ready_i = hp.wr_ready;
  in.hbm_r_valid_i = hp.r_valid;
  in.hbm_r_id_i = hp.r_id;
  in.hbm_r_data_i = Bits(8 * beat);
  if (hp.r_valid)
    for (unsigned b = 0; b < beat; ++b) in.hbm_r_data_i.set_slice(8 * b, 8, hp.r_data[b]);
}
template <class In, class Out>
std::optional<dma::ReadReq> hbm_port_read(const In& in, const Out& o) {
  if (!(o.hbm_ar_valid_o && in.hbm_ar_ready_i)) return std::nullopt;
  return dma::ReadReq{dma::Space::hbm, o.hbm_ar_o.addr, o.hbm_ar_o.bytes, o.hbm_ar_o.id};
}

class Runner {
 public:
  Runner(const Core::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, bool strong = true);
  Core& core() { return core_; }
  dma::MemSystem& hbm() { return hbm_; }
  std::uint64_t cycle() const { return cycle_; }

  void te(const Core::te_cmd_t& c) { te_q_.push_back(c); }
  void ve(const Core::instr_t& c) { ve_q_.push_back(c); }
  void se(const Core::instr_t& c) { se_q_.push_back(c); }
  /// A descriptor for queue `queue` of every engine's queues (engine queue / queues, queue queue % queues).
  void dma(unsigned queue, const Core::desc_t& d) { dma_q_.emplace_back(queue, d); }

  /// One clock cycle.
  void step();
  /// Step until every command and descriptor given so far is accepted and finished (engines done,
  /// DMA queues idle); the cycles taken. Throws std::runtime_error naming what is left after
  /// `limit` cycles, and on any engine or DMA error.
  std::uint64_t drain(std::uint64_t limit = 10'000'000);

 private:
  Core core_;
  dma::MemSystem hbm_;
  Core::In in_;
  Core::Out out_;
  std::deque<Core::te_cmd_t> te_q_;
  std::deque<Core::instr_t> ve_q_, se_q_;
  std::deque<std::pair<unsigned, Core::desc_t>> dma_q_;
  std::uint64_t cycle_ = 0;
  unsigned te_acc_ = 0, ve_acc_ = 0, se_acc_ = 0, te_done_ = 0, ve_done_ = 0, se_done_ = 0;
  bool desc_taken_ = false;  ///< the last step's edge took a descriptor
  unsigned beat_;
};

}  // namespace trn::core
