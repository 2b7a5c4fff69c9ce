#include "core/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "numerics/format.hpp"

namespace trn::core {

Roofline::Roofline(const NeuronCore::Params& p) : rows_(p.core.parts), cols_(p.core.parts) {}

void Roofline::observe(const NeuronCore& nc, const NeuronCore::Out& o, std::uint64_t) {
  if (!nc.ctl_out().running_o) return;
  ++cycles_;
  const Core::Wires& w = nc.core().wires();
  const Core::In& ki = nc.core_in();
  const Core::Out& ko = nc.core_out();
  busy_[kTe] += w.te_out.pw_valid_o.bit(0);
  busy_[kVe] += o.ve_busy_o;
  busy_[kAct] += o.se_busy_o;
  ve_.observe(w.ve_in, w.ve_out);
  act_.observe(w.se_in, w.se_out);
  busy_[kPsum] += w.prd_out.gnt_valid_o;
  const bool in = w.sb_in.dw_valid_i && w.sb_out.dw_ready_o, out = w.sb_in.dr_valid_i && w.sb_out.dr_ready_o;
  dma_in_ += in;
  dma_out_ += out;
  busy_[kDma] += in || out;
  const bool rd = ki.hbm_r_valid_i && ko.hbm_r_ready_o, wr = ko.hbm_wr_valid_o && ki.hbm_wr_ready_i;
  hbm_rd_ += rd;
  hbm_wr_ += wr;
  busy_[kHbm] += rd || wr;
  // the tensor engine's commands as it takes them, each counted the cycle after, when a refusal
  // would show (cpl_o.err): a refused command multiplies nothing and loads no weights (a refusal
  // stops the core, so nothing is counted after it; a sparse load dropped later for its
  // metadata stops it too)
  const auto& cpl = w.te_out.cpl_o;
  if (pend_valid_ && !(cpl.err && cpl.err_tag == pend_.tag)) take(pend_);
  pend_valid_ = ki.te_cmd_valid_i && ko.te_cmd_ready_o;
  if (pend_valid_) pend_ = ki.te_cmd_i;
}

void Roofline::take(const sv::te_pkg::te_cmd_t& c) {
  // a multiply uses the last load's K x M weights
  if (c.op == sv::te_pkg::te_op_e::TeLoadStationary) {
    ls_k_ = c.k;
    ls_m_ = c.m;
  } else if (!c.tr) {
    // (row groups: 1 << rg matmuls of K rows each in one multiply)
    const std::uint64_t macs = (std::uint64_t{ls_k_} << c.rg) * ls_m_ * c.n;
    // the type's rate (docs/tensor.md, Rates): K-rows a PE a cycle, 1 << kpe; FP32 a column every
    // fourth cycle; MX with one row per PE two reads a column (its scales, then its elements)
    const double rate = c.fmt == static_cast<unsigned>(numerics::Format::fp32) ? 0.25
                        : c.mx && c.kpe != 2                                   ? 0.5
                                                                               : double(1u << c.kpe);
    macs_ += macs;
    te_peak_cycles_ += static_cast<double>(macs) / (static_cast<double>(rows_) * cols_ * rate);
  }
}

void Roofline::Lane::observe(const vector::LaneEngine::In& i, const vector::LaneEngine::Out& o) {
  if (i.cmd_valid_i && o.cmd_ready_o) {  // an instruction taken: the last one's work is closed
    work = total();
    rd0 = rd1 = wr = 0;
    const vector::Instr ins = vector::LaneEngine::decode(i.cmd_i);
    fixed = overhead(ins);
    serial = ins.op == vector::Op::transpose;
    open = true;
  }
  rd0 += o.rd0_req_valid_o && i.rd0_req_ready_i;
  rd1 += o.rd1_req_valid_o && i.rd1_req_ready_i;
  wr += o.wr_valid_o && i.wr_ready_i;
}

std::uint64_t Roofline::Lane::total() const {
  if (!open) return work;
  return work + (serial ? rd0 + wr : std::max({rd0, rd1, wr})) + fixed;
}

unsigned Roofline::overhead(const vector::Instr& in) {
  switch (in.op) {
    case vector::Op::set_seed:  // answered the next cycle
      return 1;
    case vector::Op::iota:  // no reads: dispatch, the output register, the write, done
    case vector::Op::memset:
      return 3;
    default: {  // dispatch, the read's latency, the FIFO, the output register, done; the prologue
                // (per-partition operands) reads each operand, then waits for the last to arrive
      const unsigned pro = vector::prologue_reads(in);
      return 5 + (pro > 0 ? pro + 1 : 0);
    }
  }
}

double Roofline::work(Resource r) const {
  switch (r) {
    case kTe:
      return te_peak_cycles_;
    case kVe:
      return static_cast<double>(ve_.total());
    case kAct:
      return static_cast<double>(act_.total());
    case kDma:
      return static_cast<double>(std::max(dma_in_, dma_out_));
    case kHbm:
      return static_cast<double>(std::max(hbm_rd_, hbm_wr_));
    default:
      return static_cast<double>(busy_[r]);
  }
}

Roofline::Resource Roofline::bound() const {
  Resource b = kTe;
  for (unsigned r = 0; r < kResources; ++r)
    if (work(static_cast<Resource>(r)) > work(b)) b = static_cast<Resource>(r);
  return b;
}

std::string Roofline::report() const {
  const double run = static_cast<double>(std::max<std::uint64_t>(cycles_, 1));
  std::string s = "roofline: resource, busy share of the run, its work at peak (cycles)\n";
  for (unsigned r = 0; r < kResources; ++r) {
    const auto res = static_cast<Resource>(r);
    std::string what;
    if (res == kTe) what = fmt::format("  ({} multiply-accumulates at {} x {} x the type's rate)", macs_, rows_, cols_);
    if (res == kDma) what = fmt::format("  (SBUF DMA ports: {} beats in, {} out)", dma_in_, dma_out_);
    if (res == kHbm) what = fmt::format("  ({} read beats, {} write beats)", hbm_rd_, hbm_wr_);
    if (res == kPsum) what = "  (the vector and scalar engines' shared read port: reads)";
    if (res == kVe || res == kAct) what = "  (each instruction's busiest port, a cycle an access, + its fixed cycles)";
    s += fmt::format("  {:<4} {:5.1f} %  {:>12.0f}{}\n", kNames[r], 100.0 * static_cast<double>(busy_[r]) / run,
                     work(res), what);
  }
  const Resource b = bound();
  s += fmt::format("  bound: {} ({:.0f} cycles); the run took {} cycles, {:.2f} x the bound ({:.1f} % of it)\n",
                   kNames[b], work(b), cycles_, run / std::max(work(b), 1.0), 100.0 * work(b) / run);
  return s;
}

}  // namespace trn::core
