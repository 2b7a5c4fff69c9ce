#include "vector/runner.hpp"

#include <stdexcept>

#include "mem/elements.hpp"

namespace trn::vector {

ModelRunner::ModelRunner(LaneEngine::Params p, Memory& mem, unsigned read_latency, Memory* psum)
    : eng_(p), mem_(mem), psum_(psum), lat_(read_latency) {
  if (mem_.size() != p.lanes) throw std::invalid_argument("ModelRunner: memory must have one row per lane");
  LaneEngine::In in = eng_.make_in();
  eng_.tick(in);  // reset
}

Memory& ModelRunner::space(bool psum) {
  if (!psum) return mem_;
  if (!psum_) throw std::invalid_argument("ModelRunner: an operand in PSUM, and no PSUM given");
  return *psum_;
}

ModelRunner::Result ModelRunner::run(const Instr& ins) {
  const unsigned L = eng_.params().lanes;
  LaneEngine::In in = eng_.make_in();
  LaneEngine::Out out = eng_.make_out();
  in.rst_ni = true;
  in.cmd_i = LaneEngine::encode(ins);
  in.cmd_valid_i = true;
  in.rd0_req_ready_i = in.rd1_req_ready_i = in.wr_ready_i = true;
  const std::uint64_t start = now_;
  bool accepted = false;
  for (;;) {
    std::array<bool*, 2> rv{&in.rd0_rsp_valid_i, &in.rd1_rsp_valid_i};
    std::array<Bits*, 2> rd{&in.rd0_rsp_data_i, &in.rd1_rsp_data_i};
    for (unsigned p = 0; p < 2; ++p) {
      *rv[p] = !q_[p].empty() && q_[p].front().first <= now_;
      if (*rv[p]) {
        const auto& r = q_[p].front().second;
        for (unsigned l = 0; l < L; ++l)
          rd[p]->set_slice(32 * l, 32, mem::load_elem(space(r.space)[l], r.idx, static_cast<unsigned>(r.esize)));
        q_[p].pop_front();
      }
    }
    eng_.eval(in, out);
    if (accepted && (out.cpl_o.done || out.cpl_o.err))
      return Result{out.cpl_o.err ? static_cast<Err>(out.cpl_o.code) : Err::none, now_ - start};
    if (out.cmd_ready_o && in.cmd_valid_i) accepted = true;
    if (out.rd0_req_valid_o) q_[0].emplace_back(now_ + lat_, out.rd0_req_o);
    if (out.rd1_req_valid_o) q_[1].emplace_back(now_ + lat_, out.rd1_req_o);
    if (out.wr_valid_o)
      for (unsigned l = 0; l < L; ++l)
        if (out.wr_mask_o.bit(l))
          mem::store_elem(space(out.wr_o.space)[l], out.wr_o.idx, static_cast<unsigned>(out.wr_o.esize),
                          static_cast<std::uint32_t>(out.wr_data_o.slice(32 * l, 32)));
    eng_.tick(in);
    in.cmd_valid_i = in.cmd_valid_i && !accepted;
    ++now_;
    if (now_ - start > 100'000'000) throw std::runtime_error("ModelRunner: instruction did not complete");
  }
}

}  // namespace trn::vector
