#include "core/neuron_core.hpp"

#include <stdexcept>

#include "common/clog2.hpp"
#include "isa/isa.hpp"

namespace trn::core {

NeuronCore::Params NeuronCore::Params::of(const cfg::Arch& a) {
  Params p;
  p.core = Core::Params::of(a);
  p.core.gp_procs = a.gpsimd_procs;
  p.core.gp_tcm_bytes = a.gpsimd_tcm_bytes;
  p.core.gp_vlen = a.gpsimd_vlen;
  p.imem_depth = a.imem_depth;
  return p;
}

namespace {
Control::Params ctl_params(const NeuronCore::Params& p) {
  Control::Params c;
  c.parts = p.core.parts;
  c.sbuf_bytes = p.core.sbuf_bytes;
  c.psum_bytes = p.core.psum_banks * p.core.psum_bank_bytes;
  c.queues = p.core.queues;
  c.hbm_bytes = p.core.hbm_bytes;
  c.imem_depth = p.imem_depth;
  c.dma_engines = p.core.dma_engines;
  c.chips = p.core.chips;
  c.gp_procs = p.core.gp_procs > 0 ? p.core.gp_procs : 1;
  c.streams_on = p.core.gp_procs > 0 ? 0x1Fu : 0x1Fu & ~(1u << Control::gpsimd);
  return c;
}
}  // namespace

NeuronCore::NeuronCore(Params p)
    : p_(p),
      ctl_(ctl_params(p)),
      core_(p.core),
      tap_(SemTap::Params{p.unit, p.core.beat_bytes}),
      ci_(ctl_.make_in()),
      co_(ctl_.make_out()),
      ki_(core_.make_in()),
      ko_(core_.make_out()),
      ti_(tap_.make_in()),
      to_(tap_.make_out()) {}

NeuronCore::In NeuronCore::make_in() const {
  In in;
  in.im_data_i = Bits(isa::tbl::kInstBits);
  in.dma_cfg_strong_i = Bits(p_.core.nq());
  in.hbm_r_data_i = Bits(8 * p_.core.beat_bytes);
  return in;
}

NeuronCore::Out NeuronCore::make_out() const {
  Out o;
  o.hbm_wr_data_o = Bits(8 * p_.core.beat_bytes);
  o.dma_q_idle_o = Bits(p_.core.nq());
  o.dma_q_err_o = Bits(p_.core.nq());
  o.dma_q_code_o = Bits(sv::dma_pkg::err_e_width * p_.core.nq());
  o.dma_q_done_o = Bits(16 * p_.core.nq());
  return o;
}

void NeuronCore::settle(const In& in) const {
  const unsigned qmask = (1u << clog2(p_.core.queues)) - 1;
  const unsigned emask = (1u << clog2(p_.core.dma_engines)) - 1;
  bool first = true;
  for (unsigned pass = 0;; ++pass) {
    if (pass == 8) throw std::logic_error("neuron core model: the wiring did not settle in 8 passes");
    // the control's inputs: the top's, and the core's outputs
    Control::In c = ctl_.make_in();
    Control::from_top(c, in);
    if (!first) {
      c.te_cmd_ready_i = ko_.te_cmd_ready_o;
      c.te_cpl_i = ko_.te_cpl_o;
      c.ve_cmd_ready_i = ko_.ve_cmd_ready_o;
      c.ve_cpl_i = ko_.ve_cpl_o;
      c.se_cmd_ready_i = ko_.se_cmd_ready_o;
      c.se_cpl_i = ko_.se_cpl_o;
      c.dma_desc_ready_i = ko_.dma_desc_ready_o;
      c.dma_q_idle_i = ko_.dma_q_idle_o;
      c.sem_add_valid_i = to_.sem_valid_o;
      c.sem_add_idx_i = static_cast<unsigned>(to_.sem_idx_o);
      c.sem_add_val_i = to_.sem_val_o;
      c.sem_add_reg_i = to_.sem_reg_o;
      c.sem_add_stream_i = static_cast<unsigned>(to_.sem_stream_o);
      c.gp_ready_i = !ko_.gp_busy_o;
      c.gp_done_i = ko_.gp_done_o;
      c.gp_err_i = ko_.gp_err_o;
      c.gp_code_i = ko_.gp_err_code_o;
      c.gp_sem_add_i = ko_.gp_sem_add_o;
      c.gp_sem_idx_i = ko_.gp_sem_idx_o;
      c.gp_sem_val_i = ko_.gp_sem_val_o;
    }
    const bool ctl_same = !first && c == ci_;
    if (!ctl_same) {
      ci_ = std::move(c);
      ctl_.eval(ci_, co_);
    }
    // the core's inputs: the control's commands and the top's
    Core::In k = core_.make_in();
    k.rst_ni = in.rst_ni;
    k.te_cmd_valid_i = co_.te_cmd_valid_o;
    k.te_cmd_i = co_.te_cmd_o;
    k.ve_cmd_valid_i = co_.ve_cmd_valid_o;
    k.ve_cmd_i = co_.ve_cmd_o;
    k.se_cmd_valid_i = co_.se_cmd_valid_o;
    k.se_cmd_i = co_.se_cmd_o;
    k.dma_desc_valid_i = co_.dma_desc_valid_o;
    k.dma_desc_engine_i = co_.dma_desc_engine_o & emask;
    k.dma_desc_queue_i = co_.dma_desc_queue_o & qmask;
    k.dma_desc_i = co_.dma_desc_o;
    k.dma_cfg_strong_i = in.dma_cfg_strong_i;
    k.dma_cfg_max_outst_i = in.dma_cfg_max_outst_i;
    k.dma_q_clr_i = Bits(p_.core.nq());
    k.hbm_ar_ready_i = in.hbm_ar_ready_i;
    k.hbm_r_valid_i = in.hbm_r_valid_i;
    k.hbm_r_id_i = in.hbm_r_id_i;
    k.hbm_r_data_i = in.hbm_r_data_i;
    k.hbm_wr_ready_i = first ? in.hbm_wr_ready_i : to_.in_ready_o;
    k.gp_start_i = co_.gp_start_o;
    k.gp_entry_i = co_.gp_entry_o;
    k.gp_args_i = co_.gp_args_o;
    k.gp_host_we_i = in.gp_host_we_i;
    k.gp_host_re_i = in.gp_host_re_i;
    k.gp_host_all_i = in.gp_host_all_i;
    k.gp_host_proc_i = in.gp_host_proc_i;
    k.gp_host_addr_i = in.gp_host_addr_i;
    k.gp_host_wdata_i = in.gp_host_wdata_i;
    k.gp_sem_i = co_.sem_o;
    const bool core_same = !first && k == ki_;
    if (ctl_same && core_same) return;
    if (!core_same) {
      ki_ = std::move(k);
      core_.eval(ki_, ko_);
    }
    // the core's HBM write channel through the tap
    ti_.in_valid_i = ko_.hbm_wr_valid_o;
    ti_.in_i = ko_.hbm_wr_o;
    ti_.in_data_i = ko_.hbm_wr_data_o;
    ti_.in_info_i = ko_.hbm_wr_info_o;
    ti_.out_ready_i = in.hbm_wr_ready_i;
    tap_.eval(ti_, to_);
    first = false;
  }
}

void NeuronCore::eval(const In& in, Out& out) const {
  settle(in);
  Control::to_top(co_, out);
  out.dma_q_idle_o = ko_.dma_q_idle_o;
  out.dma_q_err_o = ko_.dma_q_err_o;
  out.dma_q_code_o = ko_.dma_q_code_o;
  out.dma_q_done_o = ko_.dma_q_done_o;
  out.ve_busy_o = ko_.ve_busy_o;
  out.se_busy_o = ko_.se_busy_o;
  out.hbm_ar_valid_o = ko_.hbm_ar_valid_o;
  out.hbm_ar_o = ko_.hbm_ar_o;
  out.hbm_r_ready_o = ko_.hbm_r_ready_o;
  out.hbm_wr_valid_o = to_.out_valid_o;
  out.hbm_wr_o = to_.out_o;
  out.hbm_wr_data_o = to_.out_data_o;
  out.hbm_wr_info_o = to_.out_info_o;
  out.gp_err_proc_o = ko_.gp_err_proc_o;
  out.gp_err_pc_o = ko_.gp_err_pc_o;
  out.gp_host_rdata_o = ko_.gp_host_rdata_o;
}

void NeuronCore::tick(const In& in) {
  settle(in);
  const Control::In c = ci_;
  const Core::In k = ki_;
  ctl_.tick(c);
  core_.tick(k);
}

}  // namespace trn::core
