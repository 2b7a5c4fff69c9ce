#include "dma/runner.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace trn::dma {

Feeder::Feeder(const Program& p, std::uint64_t seed, double p_idle)
    : p_(p), next_(p.queues.size(), 0), p_idle_(p_idle), rng_(seed) {
  advance(false);
}

std::optional<std::pair<unsigned, const Desc*>> Feeder::offer() const {
  if (idle_ || cur_ >= p_.queues.size() || next_[cur_] >= p_.queues[cur_].size()) return std::nullopt;
  return std::make_pair(cur_, &p_.queues[cur_][next_[cur_]]);
}

void Feeder::advance(bool accepted) {
  if (accepted) ++next_[cur_];
  idle_ = p_idle_ > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < p_idle_;
  const unsigned n = static_cast<unsigned>(p_.queues.size());
  for (unsigned k = 1; k <= n; ++k) {
    const unsigned q = (cur_ + k) % n;
    if (next_[q] < p_.queues[q].size()) {
      cur_ = q;
      return;
    }
  }
}

bool Feeder::done() const {
  for (std::size_t q = 0; q < next_.size(); ++q)
    if (next_[q] < p_.queues[q].size()) return false;
  return true;
}

Write write_of(const DmaEngine::Out& o, unsigned beat_bytes) {
  Write w;
  w.space = o.wr_o.space ? Space::sbuf : Space::hbm;
  w.col = o.wr_o.col;
  w.esize = o.wr_o.esize;
  w.addr = o.wr_o.addr;
  w.n = o.wr_o.n;
  w.acc = o.wr_o.acc;
  w.data.resize(beat_bytes);
  for (unsigned b = 0; b < beat_bytes; ++b) w.data[b] = static_cast<std::uint8_t>(o.wr_data_o.slice(8 * b, 8));
  w.queue = o.wr_info_o.qid;
  w.desc = o.wr_info_o.desc;
  w.elem = o.wr_info_o.elem;
  w.sem = o.wr_info_o.sem;
  return w;
}

ModelRunner::ModelRunner(const DmaEngine::Params& dp, const MemSystem::Params& mp, std::uint64_t seed)
    : dma_(dp), mem_(dp.geo, mp, seed), seed_(seed) {}

RunStats ModelRunner::run(const Program& p, unsigned max_outst, std::uint64_t limit, OrderingChecker* checker,
                          double p_idle) {
  RunStats st;
  Feeder feed(p, seed_ ^ 0xFEEDu, p_idle);
  DmaEngine::In in = dma_.make_in();
  DmaEngine::Out out = dma_.make_out();
  const unsigned W = dma_.params().geo.beat_bytes;
  for (unsigned q = 0; q < p.queues.size(); ++q)
    if (p.strong[q]) in.cfg_strong_i |= std::uint64_t{1} << q;
  in.cfg_max_outst_i = max_outst;
  if (cycle_ == 0) {  // reset
    in.rst_ni = false;
    dma_.tick(in);
  }
  in.rst_ni = true;
  mem_.advance(cycle_);
  const std::uint64_t c0 = cycle_;
  const std::uint64_t all_idle = (p.queues.size() >= 64 ? ~0ull : (1ull << p.queues.size()) - 1);
  for (;;) {
    if (cycle_ - c0 > limit) throw std::runtime_error(fmt::format("dma model run: not done after {} cycles", limit));
    const auto& pt = mem_.ports();
    in.ar_ready_i = pt.ar_ready;
    in.r_valid_i = pt.r_valid;
    in.r_id_i = pt.r_id;
    for (unsigned b = 0; b < W; ++b) in.r_data_i.set_slice(8 * b, 8, pt.r_valid ? pt.r_data[b] : 0);
    in.wr_ready_i = pt.wr_ready;
    const auto o = feed.offer();
    in.desc_valid_i = o.has_value();
    if (o) {
      in.desc_queue_i = o->first;
      in.desc_i = DmaEngine::encode(*o->second);
    }
    dma_.eval(in, out);
    if ((out.q_idle_o & all_idle) == all_idle && feed.done() && !out.wr_valid_o && !o) break;
    std::optional<ReadReq> rd;
    if (out.ar_valid_o && in.ar_ready_i)
      rd = ReadReq{out.ar_o.space ? Space::sbuf : Space::hbm, out.ar_o.addr, out.ar_o.bytes, out.ar_o.id};
    std::optional<Write> wr;
    if (out.wr_valid_o && in.wr_ready_i) wr = write_of(out, W);
    mem_.observe(cycle_, rd, wr);
    if (wr) {
      st.bytes_written += wr->col ? wr->n * wr->esize : wr->n;
      if (checker) checker->on_write(mem_.trace().back());
    }
    st.max_rob = std::max(st.max_rob, static_cast<unsigned>(out.rob_o));
    st.max_inflight = std::max(st.max_inflight, static_cast<unsigned>(out.inflight_o));
    const bool accepted = o && out.desc_ready_o;
    dma_.tick(in);
    feed.advance(accepted);
    ++cycle_;
    mem_.advance(cycle_);
  }
  st.cycles = cycle_ - c0;
  return st;
}

}  // namespace trn::dma
