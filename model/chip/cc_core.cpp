#include "chip/cc_core.hpp"

#include <stdexcept>

#include "common/clog2.hpp"
#include "isa/isa.hpp"

namespace trn::chip {

namespace {

core::Control::Params ctl_params(const CcCore::Params& p) {
  core::Control::Params c;  // parts, SBUF and PSUM sizes as the RTL's defaults: no lane stream is built
  c.queues = p.queues;
  c.hbm_bytes = p.hbm_bytes;
  c.imem_depth = p.imem_depth;
  c.chips = p.chips;
  c.dma_parts = 0;
  c.streams_on = 1u << core::Control::sync;
  return c;
}

dma::DmaEngine::Params dma_params(const CcCore::Params& p) {
  dma::DmaEngine::Params d;
  d.queues = p.queues;
  d.qdepth = 4;
  d.slots = p.slots;
  d.geo = dma::Geometry::make(p.hbm_bytes, 0, p.beat_bytes, p.beat_bytes);
  d.geo.chips = p.chips;
  return d;
}

}  // namespace

CcCore::CcCore(Params p)
    : p_(p),
      ctl_(ctl_params(p)),
      dma_(dma_params(p)),
      tap_(core::SemTap::Params{p.unit, p.beat_bytes}),
      ci_(ctl_.make_in()),
      cn_(ctl_.make_in()),
      co_(ctl_.make_out()),
      di_(dma_.make_in()),
      do_(dma_.make_out()),
      ti_(tap_.make_in()),
      to_(tap_.make_out()) {}

CcCore::In CcCore::make_in() const {
  In in;
  in.im_data_i = Bits(isa::tbl::kInstBits);
  in.hbm_r_data_i = Bits(8 * p_.beat_bytes);
  return in;
}

CcCore::Out CcCore::make_out() const {
  Out o;
  o.dma_q_code_o = Bits(sv::dma_pkg::err_e_width * p_.queues);
  o.dma_q_done_o = Bits(16 * p_.queues);
  o.hbm_wr_data_o = Bits(8 * p_.beat_bytes);
  return o;
}

void CcCore::settle(const In& in) const {
  // the parts' ports are a function of the state and `in`: settled once for them, they hold
  if (settled_ && in == settled_in_) return;
  settled_ = false;
  const unsigned qmask = (1u << clog2(p_.queues)) - 1;
  for (unsigned pass = 0;; ++pass) {
    if (pass == 8) throw std::logic_error("collective core model: the wiring did not settle in 8 passes");
    // the control: the top's inputs, the DMA's ready and idle flags, the tap's own completions
    // (built in cn_, the last pass's spare: its instruction word is wide, and no pass allocates)
    // (the first pass starts from the DMA's and the tap's outputs of the last evaluation: the
    // wiring has one solution, as the RTL's has no combinational loop, so where they hold the
    // parts are evaluated once)
    core::Control::In& c = cn_;
    core::Control::from_top(c, in);
    c.dma_desc_ready_i = do_.desc_ready_o;
    c.dma_q_idle_i = Bits(p_.queues, do_.q_idle_o);
    c.sem_add_valid_i = to_.sem_valid_o;
    c.sem_add_idx_i = static_cast<unsigned>(to_.sem_idx_o);
    c.sem_add_val_i = to_.sem_val_o;
    c.sem_add_reg_i = to_.sem_reg_o;
    c.sem_add_stream_i = static_cast<unsigned>(to_.sem_stream_o);
    if (pass > 0 && c == ci_ && di_.wr_ready_i == to_.in_ready_o) {
      settled_in_ = in;
      settled_ = true;
      return;
    }
    if (pass > 0 || ctl_moved_ || !(c == ci_)) {  // else the control's outputs of its last eval hold
      std::swap(ci_, cn_);
      ctl_.eval(ci_, co_);
      ctl_moved_ = false;
    }
    // the DMA: the control's descriptors, the top's HBM port, the tap's ready (every field, in place)
    dma::DmaEngine::In& d = di_;
    d.rst_ni = in.rst_ni;
    d.desc_valid_i = co_.dma_desc_valid_o;
    d.desc_queue_i = co_.dma_desc_queue_o & qmask;
    d.desc_i = co_.dma_desc_o;
    d.cfg_strong_i = in.dma_cfg_strong_i;
    d.cfg_max_outst_i = p_.slots;
    d.q_clr_i = 0;
    d.ar_ready_i = in.hbm_ar_ready_i;
    d.r_valid_i = in.hbm_r_valid_i;
    d.r_id_i = in.hbm_r_id_i;
    d.r_data_i = in.hbm_r_data_i;
    d.wr_ready_i = to_.in_ready_o;
    dma_.eval(di_, do_);
    ti_.in_valid_i = do_.wr_valid_o;
    ti_.in_i = do_.wr_o;
    ti_.in_data_i = do_.wr_data_o;
    ti_.in_info_i = do_.wr_info_o;
    ti_.out_ready_i = in.hbm_wr_ready_i;
    tap_.eval(ti_, to_);
  }
}

void CcCore::eval(const In& in, Out& out) const {
  settle(in);
  core::Control::to_top(co_, out);
  out.dma_q_idle_o = do_.q_idle_o;
  out.dma_q_err_o = do_.q_err_o;
  out.dma_q_code_o = do_.q_code_o;
  out.dma_q_done_o = do_.q_done_o;
  out.hbm_ar_valid_o = do_.ar_valid_o;
  out.hbm_ar_o = do_.ar_o;
  out.hbm_r_ready_o = true;
  out.hbm_wr_valid_o = to_.out_valid_o;
  out.hbm_wr_o = to_.out_o;
  out.hbm_wr_data_o = to_.out_data_o;
  out.hbm_wr_info_o = to_.out_info_o;
}

void CcCore::tick(const In& in) {
  settle(in);
  // A waiting core (its control blocked with nothing to fetch, issue or add, its DMA idle, no
  // instruction write, start, semaphore addition or read response coming in) is a fixed point once
  // it has ticked on these inputs: the later ticks on the same inputs are skipped. (The first such
  // tick still runs: it clears what an idle tick clears, such as the DMA arbiter's lock.)
  const bool quiet = in.rst_ni && !in.im_valid_i && !in.start_i && !in.sem_add_valid_i && !in.hbm_r_valid_i &&
                     !ci_.sem_add_valid_i && !di_.desc_valid_i && ctl_.quiet() && dma_.idle();
  if (p_.skip_quiet && quiet && was_quiet_ && in == quiet_in_) return;
  was_quiet_ = quiet;
  if (quiet) quiet_in_ = in;
  if (ctl_.tick(ci_)) ctl_moved_ = true;
  dma_.tick(di_);
  settled_ = false;  // a new state
}

}  // namespace trn::chip
