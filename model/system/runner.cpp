#include "system/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "chip/runner.hpp"
#include "common/clog2.hpp"
#include "core/program_runner.hpp"
#include "dma/runner.hpp"

namespace trn::system {

namespace {

/// An HBM's read beat this cycle (zero unless a response is valid) into dst from bit `at`.
void put_beat(const dma::MemSystem::Ports& hp, unsigned beat, Bits& dst, unsigned at) {
  for (unsigned b = 0; b < beat; ++b) dst.set_slice(at + 8 * b, 8, hp.r_valid ? hp.r_data[b] : 0);
}

/// What run() says of a unit that stopped with an error: its status at index k of the error ports.
std::string unit_error(unsigned c, unsigned u, const Bits& code, const Bits& detail, const Bits& stream, const Bits& pc,
                       unsigned k) {
  return fmt::format("system model: chip {} unit {} stopped with error {} (detail {}) on stream {} at pc {}", c, u,
                     code.slice(k * sv::isa_pkg::ctl_err_e_width, sv::isa_pkg::ctl_err_e_width), detail.slice(k * 3, 3),
                     stream.slice(k * sv::isa_pkg::stream_e_width, sv::isa_pkg::stream_e_width),
                     pc.slice(k * sv::isa_pkg::PcBits, sv::isa_pkg::PcBits));
}

}  // namespace

template <class Sys>
Runner<Sys>::Runner(const typename Sys::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, bool strong)
    : sys_(p), in_(sys_.make_in()), out_(sys_.make_out()), id_bits_(clog2(p.chip.core.core.slots)) {
  const auto& c = p.chip.core.core;
  const unsigned U = p.chip.units();
  src_bits_ = U > 1 ? clog2(U) : 1;
  mp.keep_trace = false;  // nothing reads a system's writes back, and a long run makes many
  for (unsigned k = 0; k < sys_.chips(); ++k)
    hbm_.push_back(std::make_unique<dma::MemSystem>(
        dma::Geometry::make(c.hbm_bytes, c.parts, c.sbuf_bytes, c.beat_bytes), mp, seed + 0x9e3779b97f4a7c15ull * k));
  for (unsigned k = 0; k < sys_.chips() * U; ++k) in_.dma_strong_i.set_bit(k, strong);
  in_.sem_ext_en_i = true;
  in_.rst_ni = false;
  for (int i = 0; i < 2; ++i) {
    sys_.eval(in_, out_);
    sys_.tick(in_);
  }
  in_.rst_ni = true;
  for (auto& h : hbm_) h->advance(cycle_);
}

template <class Sys>
void Runner<Sys>::step() {
  const unsigned beat = sys_.params().chip.core.core.beat_bytes, N = sys_.chips();
  for (unsigned c = 0; c < N; ++c) hbm_answers(c);
  if (p_flip_ > 0) {
    in_.flip_i = Bits(sys_.links());
    for (unsigned l = 0; l < sys_.links(); ++l)
      if (std::uniform_real_distribution<double>(0, 1)(chan_) < p_flip_) {
        in_.flip_i.set_bit(l, true);
        in_.flip_bit_i.set_slice(l * sys_.fb(), sys_.fb(),
                                 std::uniform_int_distribution<unsigned>(0, sys_.wire_bits() - 1)(chan_));
        ++flips_;
      }
  }
  sys_.eval(in_, out_);
  if (observe_) observe_(cycle_);
  if (chip_observe_)
    for (unsigned c = 0; c < N; ++c) chip_observe_(c, cycle_);
  for (unsigned c = 0; c < N; ++c) {
    chip::observe_hbm_port(*hbm_[c], cycle_, beat, id_bits_, out_.hbm_ar_valid_o.bit(c) && in_.hbm_ar_ready_i.bit(c),
                           out_.hbm_ar_o[c], out_.hbm_ar_src_o.slice(c * src_bits_, src_bits_),
                           out_.hbm_wr_valid_o.bit(c) && in_.hbm_wr_ready_i.bit(c), out_.hbm_wr_o[c],
                           out_.hbm_wr_data_o, c * 8 * beat, out_.hbm_wr_info_o[c], out_.hbm_r_ready_o.bit(c));
  }
  sys_.tick(in_);
  ++cycle_;
  for (auto& h : hbm_) h->advance(cycle_);
}

template <class Sys>
void Runner<Sys>::hbm_answers(unsigned c) {
  const unsigned beat = sys_.params().chip.core.core.beat_bytes, idw = src_bits_ + id_bits_;
  const auto& hp = hbm_[c]->ports();
  in_.hbm_ar_ready_i.set_bit(c, hp.ar_ready);
  in_.hbm_wr_ready_i.set_bit(c, hp.wr_ready);
  in_.hbm_r_valid_i.set_bit(c, hp.r_valid);
  in_.hbm_r_id_i.set_slice(c * idw, idw, hp.r_id);
  put_beat(hp, beat, in_.hbm_r_data_i, c * beat * 8);
}

template <class Sys>
void Runner<Sys>::load(unsigned chip, unsigned u, const isa::Program& p) {
  const chip::Chip::Params& prm = sys_.params().chip;
  core::for_each_imem_word(p, prm.core.imem_depth, u >= prm.cores, [&](unsigned s, std::uint32_t a, const Bits& w) {
    in_.im_valid_i = true;
    in_.im_chip_i = chip;
    in_.im_unit_i = u;
    in_.im_stream_i = s;
    in_.im_addr_i = a;
    in_.im_data_i = w;
    step();
  });
  in_.im_valid_i = false;
}

template <class Sys>
void Runner<Sys>::preload(unsigned chip, unsigned u, const isa::Program& p) {
  const chip::Chip::Params& prm = sys_.params().chip;
  core::for_each_imem_word(p, prm.core.imem_depth, u >= prm.cores,
                           [&](unsigned s, std::uint32_t a, const Bits& w) { sys_.write_imem(chip, u, s, a, w); });
}

template <class Sys>
void Runner<Sys>::set_flips(double p, std::uint64_t seed) {
  p_flip_ = p;
  chan_.seed(seed);
}

template <class Sys>
std::uint64_t Runner<Sys>::replays() const {
  std::uint64_t n = 0;
  for (unsigned l = 0; l < sys_.links(); ++l) n += out_.link_replay_o.slice(l * 32, 32);
  return n;
}

template <class Sys>
std::uint64_t Runner<Sys>::run(const std::vector<std::uint64_t>& masks, std::uint64_t limit,
                               const std::function<void(std::uint64_t)>& progress) {
  const unsigned N = sys_.chips(), U = sys_.params().chip.units();
  for (unsigned c = 0; c < N; ++c) in_.start_i.set_slice(c * U, U, c < masks.size() ? masks[c] : 0);
  step();
  in_.start_i = Bits(N * U);
  const std::uint64_t c0 = cycle_;
  if constexpr (requires { sys_.lookahead(); }) {
    if (window_ > 0 && sys_.lookahead() > 0 && p_flip_ == 0 && !observe_)
      return run_windows(masks, limit, progress, c0);
  }
  std::vector<std::uint64_t> fin(N, 0);
  for (;;) {
    step();
    bool all = true;
    for (unsigned c = 0; c < N; ++c) {
      const std::uint64_t m = c < masks.size() ? masks[c] : 0;
      fin[c] |= out_.done_o.slice(c * U, U) & m;
      all = all && fin[c] == m;
      for (unsigned u = 0; u < U; ++u)
        if (out_.err_o.bit(c * U + u)) {
          throw std::runtime_error(
              unit_error(c, u, out_.err_code_o, out_.err_detail_o, out_.err_stream_o, out_.err_pc_o, c * U + u));
        }
    }
    if (all) return cycle_ - c0;
    if (progress && (cycle_ - c0) % 4096 == 0) progress(cycle_ - c0);
    if (cycle_ - c0 >= limit) throw std::runtime_error(still_running(masks, fin, limit));
  }
}

template <class Sys>
std::string Runner<Sys>::still_running(const std::vector<std::uint64_t>& masks, const std::vector<std::uint64_t>& fin,
                                       std::uint64_t limit) const {
  std::string running;
  for (unsigned c = 0; c < sys_.chips(); ++c)
    if (const std::uint64_t m = c < masks.size() ? masks[c] : 0; m & ~fin[c])
      running += fmt::format(" chip {} units {:#x}", c, m & ~fin[c]);
  return fmt::format("system model: not done after {} cycles; still running:{}", limit, running);
}

template <class Sys>
std::uint64_t Runner<Sys>::run_windows(const std::vector<std::uint64_t>& masks, std::uint64_t limit,
                                       const std::function<void(std::uint64_t)>& progress, std::uint64_t c0) {
  if constexpr (requires { sys_.lookahead(); }) {
    const unsigned N = sys_.chips(), U = sys_.params().chip.units(), W = std::min(window_, sys_.lookahead());
    const unsigned beat = sys_.params().chip.core.core.beat_bytes, idw = src_bits_ + id_bits_;
    auto low = [](unsigned n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; };
    // each chip's own record (its thread writes only its element): the units done, the cycle
    // after the one they all were, and the first error with what run() says of it
    std::vector<std::uint64_t> fin(N, 0), done_at(N, 0), err_at(N, 0);
    std::vector<std::string> err(N);
    typename Sys::Hooks h;
    h.own = [&](unsigned c, unsigned, chip::Chip::In& k) {
      const auto& hp = hbm_[c]->ports();
      k.hbm_ar_ready_i = hp.ar_ready;
      k.hbm_wr_ready_i = hp.wr_ready;
      k.hbm_r_valid_i = hp.r_valid;
      k.hbm_r_id_i = hp.r_id & low(idw);
      put_beat(hp, beat, k.hbm_r_data_i, 0);
    };
    h.seen = [&](unsigned c, unsigned i, const chip::Chip::Out& o) {
      const std::uint64_t cyc = cycle_ + i;
      const chip::Chip::In& k = sys_.chip_in(c);
      chip::observe_hbm_port(*hbm_[c], cyc, beat, id_bits_, o.hbm_ar_valid_o && k.hbm_ar_ready_i, o.hbm_ar_o,
                             o.hbm_ar_src_o & low(src_bits_), o.hbm_wr_valid_o && k.hbm_wr_ready_i, o.hbm_wr_o,
                             o.hbm_wr_data_o, 0, o.hbm_wr_info_o, o.hbm_r_ready_o);
      if (chip_observe_) chip_observe_(c, cyc);
      const std::uint64_t m = c < masks.size() ? masks[c] : 0;
      fin[c] |= o.done_o & m;
      if (!done_at[c] && fin[c] == m) done_at[c] = cyc + 1;
      if (!err_at[c] && (o.err_o & low(U))) {
        const auto u = static_cast<unsigned>(std::countr_zero(o.err_o & low(U)));
        err_at[c] = cyc + 1;
        err[c] = unit_error(c, u, o.err_code_o, o.err_detail_o, o.err_stream_o, o.err_pc_o, u);
      }
    };
    h.edge = [&](unsigned c, unsigned i) { hbm_[c]->advance(cycle_ + i + 1); };
    for (;;) {
      sys_.run_window(W, in_, h);
      cycle_ += W;
      // as the lockstep ends: at the first cycle with an error (the lowest chip's), or the first
      // with every unit done, whichever comes first
      unsigned e = N;
      for (unsigned c = 0; c < N; ++c)
        if (err_at[c] && (e == N || err_at[c] < err_at[e])) e = c;
      const bool all = std::find(done_at.begin(), done_at.end(), 0) == done_at.end();
      const std::uint64_t d = all ? *std::max_element(done_at.begin(), done_at.end()) : 0;
      if (e < N || all) {
        for (unsigned c = 0; c < N; ++c) hbm_answers(c);
        sys_.eval(in_, out_);  // the system's outputs (replays, semaphores) of its state now
      }
      if (e < N && (!all || err_at[e] <= d)) throw std::runtime_error(err[e]);
      if (all) return d - c0;
      if (progress && (cycle_ - c0) / 4096 > (cycle_ - W - c0) / 4096) progress((cycle_ - c0) / 4096 * 4096);
      if (cycle_ - c0 >= limit) throw std::runtime_error(still_running(masks, fin, limit));
    }
  }
  throw std::logic_error("system model: windows on a system without wires");
}

template <class Sys>
std::uint32_t Runner<Sys>::sem(unsigned chip, unsigned u, unsigned s) const {
  const unsigned U = sys_.params().chip.units();
  return static_cast<std::uint32_t>(out_.sem_o.slice(((chip * U + u) * core::Control::kSems + s) * 32, 32));
}

template class Runner<ChipTorus>;
template class Runner<ChipSwitch>;
template class Runner<ChipNet>;

}  // namespace trn::system
