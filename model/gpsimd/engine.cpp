#include "gpsimd/engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::gpsimd {

// the read FIFO holds a processor's index: as the RTL's PW, Procs > 1 ? $clog2(Procs) : 1 bits
Engine::Engine(Params p) : p_(p), arb_({p.procs, kReqW}), reads_({std::max(1u, clog2(p.procs)), p.read_depth}) {
  if (p_.procs < 1 || p_.procs > 64 || p_.parts % p_.procs)
    throw std::invalid_argument("gpsimd::Engine: procs must be 1 .. 64 and divide parts");
  for (unsigned i = 0; i < p_.procs; ++i) procs_.emplace_back(Proc::Params{p_.tcm_bytes, p_.vlen, p_.sbuf_bytes});
}

Engine::Out Engine::make_out() const {
  Out o;
  o.sem_idx_o = Bits(5 * p_.procs);
  o.sem_val_o = Bits(32 * p_.procs);
  return o;
}

void Engine::settle(const In& in, Wires& w) const {
  const unsigned n = p_.procs, per = p_.parts / n;
  w.pin.resize(n);
  w.pout.resize(n);
  if (w.ain.req_data_i.width() != n * kReqW) w.ain = arb_.make_in(), w.aout = arb_.make_out();
  if (w.fin.push_data_i.width() != reads_.params().width) w.fin = reads_.make_in(), w.fout = reads_.make_out();
  // the processors' requests (which do not depend on their grants and answers)
  bool busy = false;
  for (unsigned i = 0; i < n; ++i) busy = busy || procs_[i].busy();
  for (unsigned i = 0; i < n; ++i) {
    Proc::In& pi = w.pin[i];
    pi = Proc::In{};
    pi.rst_ni = in.rst_ni;
    pi.start_i = in.start_i && !busy;
    pi.entry_i = in.entry_i, pi.arg0_i = i, pi.arg1_i = in.args_i;
    pi.host_we_i = in.host_we_i && (in.host_all_i || in.host_proc_i == i);
    pi.host_re_i = in.host_re_i && in.host_proc_i == i;
    pi.host_addr_i = in.host_addr_i, pi.host_wdata_i = in.host_wdata_i;
    pi.part_lo_i = i * per, pi.part_hi_i = (i + 1) * per;
    pi.sb_rdata_i = in.sb_rdata_i;
    pi.sem_i = in.sem_i;
    procs_[i].eval(pi, w.pout[i]);
  }
  // the arbiter, on the reads' FIFO's room
  w.fin.rst_ni = in.rst_ni, w.fin.push_valid_i = false, w.fin.pop_ready_i = in.sb_rvalid_i;
  reads_.eval(w.fin, w.fout);
  w.ain.rst_ni = in.rst_ni;
  w.ain.req_valid_i = 0;
  for (unsigned i = 0; i < n; ++i) {
    const Proc::Out& po = w.pout[i];
    w.ain.req_valid_i |= std::uint64_t{po.sb_req_o} << i;
    const unsigned at = i * kReqW;
    w.ain.req_data_i.set_slice(at, 32, po.sb_wdata_o);
    w.ain.req_data_i.set_slice(at + 32, 4, po.sb_mask_o);
    w.ain.req_data_i.set_slice(at + 36, 32, po.sb_off_o);
    w.ain.req_data_i.set_slice(at + 68, 16, po.sb_part_o);
    w.ain.req_data_i.set_slice(at + 84, 1, po.sb_we_o);
  }
  arb_.eval(w.ain, w.aout);  // the pick does not depend on the ready
  const bool we = w.aout.gnt_data_o.bit(kReqW - 1);
  w.ain.gnt_ready_i = in.sb_gnt_i && (we || w.fout.push_ready_o);
  arb_.eval(w.ain, w.aout);
  w.fin.push_valid_i = w.aout.gnt_valid_o && w.ain.gnt_ready_i && !we;
  w.fin.push_data_i.set_slice(0, reads_.params().width, w.aout.gnt_idx_o);
  reads_.eval(w.fin, w.fout);
  // each processor's grant and answer
  const auto head = static_cast<unsigned>(w.fout.pop_data_o.to_u64());
  for (unsigned i = 0; i < n; ++i) {
    w.pin[i].sb_gnt_i = w.aout.req_ready_o >> i & 1;
    w.pin[i].sb_rvalid_i = in.sb_rvalid_i && w.fout.pop_valid_o && head == i;
    procs_[i].eval(w.pin[i], w.pout[i]);
  }
}

void Engine::eval(const In& in, Out& o) const {
  settle(in, w_);
  w_in_ = in, w_valid_ = true;
  const unsigned n = p_.procs;
  if (o.sem_idx_o.width() != 5 * n) o = make_out();
  o.busy_o = o.done_o = o.err_o = false;
  o.done_o = true;
  o.err_proc_o = 0, o.err_code_o = Err::GpErrNone, o.err_pc_o = 0;
  bool found = false;
  o.sem_add_o = 0;
  for (unsigned i = 0; i < n; ++i) {
    const Proc::Out& po = w_.pout[i];
    o.busy_o = o.busy_o || po.busy_o;
    o.done_o = o.done_o && po.done_o;
    if (po.err_o && !found) found = true, o.err_proc_o = i, o.err_code_o = po.err_code_o, o.err_pc_o = po.err_pc_o;
    o.sem_add_o |= std::uint64_t{po.sem_add_o} << i;
    o.sem_idx_o.set_slice(5 * i, 5, po.sem_idx_o);
    o.sem_val_o.set_slice(32 * i, 32, po.sem_val_o);
  }
  o.err_o = found;
  o.host_rdata_o = w_.pout[host_q_ % n].host_rdata_o;
  const bool req = w_.aout.gnt_valid_o && (w_.aout.gnt_data_o.bit(kReqW - 1) || w_.fout.push_ready_o);
  o.sb_req_o = req;
  const Bits& d = w_.aout.gnt_data_o;
  o.sb_we_o = req && d.bit(kReqW - 1);
  o.sb_part_o = req ? static_cast<std::uint32_t>(d.slice(68, 16)) : 0;
  o.sb_off_o = req ? static_cast<std::uint32_t>(d.slice(36, 32)) : 0;
  o.sb_mask_o = req ? static_cast<std::uint32_t>(d.slice(32, 4)) : 0;
  o.sb_wdata_o = req ? static_cast<std::uint32_t>(d.slice(0, 32)) : 0;
}

void Engine::tick(const In& in) {
  if (!w_valid_ || !(in == w_in_)) settle(in, w_);
  w_valid_ = false;
  for (unsigned i = 0; i < p_.procs; ++i) procs_[i].tick(w_.pin[i]);
  arb_.tick(w_.ain);
  reads_.tick(w_.fin);
  if (!in.rst_ni)
    host_q_ = 0;
  else if (in.host_re_i)
    host_q_ = in.host_proc_i;
}

}  // namespace trn::gpsimd
