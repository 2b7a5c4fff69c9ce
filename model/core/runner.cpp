#include "core/runner.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace trn::core {

Runner::Runner(const Core::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, bool strong)
    : core_(p),
      hbm_(dma::Geometry::make(p.hbm_bytes, p.parts, p.sbuf_bytes, p.beat_bytes), mp, seed),
      in_(core_.make_in()),
      out_(core_.make_out()),
      beat_(p.beat_bytes) {
  in_.dma_cfg_strong_i = strong ? Bits::ones(p.nq()) : Bits(p.nq());
  in_.dma_cfg_max_outst_i = p.slots / p.dma_engines;
  // reset over two edges, then run
  in_.rst_ni = false;
  for (int i = 0; i < 2; ++i) {
    core_.eval(in_, out_);
    core_.tick(in_);
  }
  in_.rst_ni = true;
}

void Runner::step() {
  // this cycle's inputs: the queues' heads and the HBM port
  hbm_port_inputs(hbm_, beat_, in_);
  in_.te_cmd_valid_i = !te_q_.empty();
  if (!te_q_.empty()) in_.te_cmd_i = te_q_.front();
  in_.ve_cmd_valid_i = !ve_q_.empty();
  if (!ve_q_.empty()) in_.ve_cmd_i = ve_q_.front();
  in_.se_cmd_valid_i = !se_q_.empty();
  if (!se_q_.empty()) in_.se_cmd_i = se_q_.front();
  in_.dma_desc_valid_i = !dma_q_.empty();
  if (!dma_q_.empty()) {
    in_.dma_desc_engine_i = dma_q_.front().first / core_.params().queues;
    in_.dma_desc_queue_i = dma_q_.front().first % core_.params().queues;
    in_.dma_desc_i = dma_q_.front().second;
  }
  core_.eval(in_, out_);
  // the settled handshakes
  if (out_.te_cpl_o.err || out_.ve_cpl_o.err || out_.se_cpl_o.err || out_.dma_q_err_o.any())
    throw std::runtime_error(
        fmt::format("core model: cycle {}: an engine or DMA error (tensor {} vector {} scalar {} DMA queues {:#x})",
                    cycle_, static_cast<unsigned>(out_.te_cpl_o.code), static_cast<unsigned>(out_.ve_cpl_o.code),
                    static_cast<unsigned>(out_.se_cpl_o.code), out_.dma_q_err_o.to_u64()));
  if (in_.te_cmd_valid_i && out_.te_cmd_ready_o) te_q_.pop_front(), ++te_acc_;
  if (in_.ve_cmd_valid_i && out_.ve_cmd_ready_o) ve_q_.pop_front(), ++ve_acc_;
  if (in_.se_cmd_valid_i && out_.se_cmd_ready_o) se_q_.pop_front(), ++se_acc_;
  desc_taken_ = in_.dma_desc_valid_i && out_.dma_desc_ready_o;
  if (desc_taken_) dma_q_.pop_front();
  te_done_ += out_.te_cpl_o.ls_done + out_.te_cpl_o.mm_done;
  ve_done_ += out_.ve_cpl_o.done;
  se_done_ += out_.se_cpl_o.done;
  const std::optional<dma::ReadReq> rd = hbm_port_read(in_, out_);
  std::optional<dma::Write> wr;
  if (out_.hbm_wr_valid_o && in_.hbm_wr_ready_i) wr = Core::hbm_write(out_, beat_);
  hbm_.observe(cycle_, rd, wr, out_.hbm_r_ready_o);
  core_.tick(in_);
  ++cycle_;
  hbm_.advance(cycle_);
}

std::uint64_t Runner::drain(std::uint64_t limit) {
  const std::uint64_t c0 = cycle_;
  const unsigned te_want = te_acc_ + static_cast<unsigned>(te_q_.size());
  const unsigned ve_want = ve_acc_ + static_cast<unsigned>(ve_q_.size());
  const unsigned se_want = se_acc_ + static_cast<unsigned>(se_q_.size());
  for (;;) {
    step();
    // q_idle_o is this cycle's (before the edge): a descriptor taken at this edge is not in it yet
    const bool idle = te_q_.empty() && ve_q_.empty() && se_q_.empty() && dma_q_.empty() && !desc_taken_ &&
                      te_done_ >= te_want && ve_done_ >= ve_want && se_done_ >= se_want && out_.dma_q_idle_o.all();
    if (idle) return cycle_ - c0;
    if (cycle_ - c0 >= limit)
      throw std::runtime_error(
          fmt::format("core model: not done after {} cycles (tensor {}/{} vector {}/{} scalar {}/{} "
                      "done, {} descriptors waiting)",
                      limit, te_done_, te_want, ve_done_, ve_want, se_done_, se_want, dma_q_.size()));
  }
}

}  // namespace trn::core
