#include "chip/runner.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/clog2.hpp"
#include "core/program_runner.hpp"
#include "dma/runner.hpp"

namespace trn::chip {

void observe_hbm_port(dma::MemSystem& m, std::uint64_t cycle, unsigned beat, unsigned id_bits, bool ar,
                      const sv::dma_pkg::rd_req_t& req, std::uint64_t src, bool wr, const sv::dma_pkg::wr_req_t& w,
                      const Bits& data, unsigned data_at, const sv::dma_pkg::wr_info_t& info, bool r_ready) {
  std::optional<dma::ReadReq> rd;
  if (ar) rd = dma::ReadReq{dma::Space::hbm, req.addr, req.bytes, static_cast<unsigned>(req.id | src << id_bits)};
  std::optional<dma::Write> wq;
  if (wr) {
    dma::DmaEngine::Out d;
    d.wr_valid_o = true;
    d.wr_o = w;
    d.wr_data_o = Bits(8 * beat);
    d.wr_data_o.copy(0, data, data_at, 8 * beat);
    d.wr_info_o = info;
    wq = dma::write_of(d, beat);
  }
  m.observe(cycle, rd, wq, r_ready);
}

ChipRunner::ChipRunner(const Chip::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, unsigned id)
    : chip_(p),
      hbm_(
          dma::Geometry::make(p.core.core.hbm_bytes, p.core.core.parts, p.core.core.sbuf_bytes, p.core.core.beat_bytes),
          mp, seed),
      in_(chip_.make_in()),
      out_(chip_.make_out()),
      id_bits_(clog2(p.core.core.slots)) {
  in_.id_i = id;
  in_.dma_strong_i = (1ull << p.units()) - 1;
  in_.rst_ni = false;
  for (int i = 0; i < 2; ++i) {
    chip_.eval(in_, out_);
    chip_.tick(in_);
  }
  in_.rst_ni = true;
  hbm_.advance(cycle_);
}

void ChipRunner::step() {
  const auto& hp = hbm_.ports();
  const unsigned beat = chip_.params().core.core.beat_bytes;
  in_.hbm_ar_ready_i = hp.ar_ready;
  in_.hbm_wr_ready_i = hp.wr_ready;
  in_.hbm_r_valid_i = hp.r_valid;
  in_.hbm_r_id_i = hp.r_id;
  in_.hbm_r_data_i = Bits(8 * beat);
  if (hp.r_valid)
    for (unsigned b = 0; b < beat; ++b) in_.hbm_r_data_i.set_slice(8 * b, 8, hp.r_data[b]);
  chip_.eval(in_, out_);
  observe_hbm_port(hbm_, cycle_, beat, id_bits_, out_.hbm_ar_valid_o && in_.hbm_ar_ready_i, out_.hbm_ar_o,
                   out_.hbm_ar_src_o, out_.hbm_wr_valid_o && in_.hbm_wr_ready_i, out_.hbm_wr_o, out_.hbm_wr_data_o, 0,
                   out_.hbm_wr_info_o, out_.hbm_r_ready_o);
  chip_.tick(in_);
  ++cycle_;
  hbm_.advance(cycle_);
}

void ChipRunner::load(unsigned u, const isa::Program& p) {
  const Chip::Params& prm = chip_.params();
  core::for_each_imem_word(p, prm.core.imem_depth, u >= prm.cores, [&](unsigned s, std::uint32_t a, const Bits& w) {
    in_.im_valid_i = true;
    in_.im_unit_i = u;
    in_.im_stream_i = s;
    in_.im_addr_i = a;
    in_.im_data_i = w;
    step();
  });
  in_.im_valid_i = false;
}

std::uint64_t ChipRunner::run(std::uint64_t mask, std::uint64_t limit) {
  in_.start_i = mask;
  step();
  in_.start_i = 0;
  const std::uint64_t c0 = cycle_;
  std::uint64_t finished = 0;
  for (;;) {
    step();
    finished |= out_.done_o & mask;
    if (const std::uint64_t e = out_.err_o & mask) {
      const unsigned u = static_cast<unsigned>(__builtin_ctzll(e));
      throw std::runtime_error(
          fmt::format("chip model: unit {} stopped with error {} (detail {}) at pc {}", u,
                      out_.err_code_o.slice(u * sv::isa_pkg::ctl_err_e_width, sv::isa_pkg::ctl_err_e_width),
                      out_.err_detail_o.slice(u * 3, 3), out_.err_pc_o.slice(u * 16, 16)));
    }
    if (finished == mask) return cycle_ - c0;
    if (cycle_ - c0 >= limit)
      throw std::runtime_error(
          fmt::format("chip model: units {:#x} not done after {} cycles", mask & ~finished, limit));
  }
}

std::uint32_t ChipRunner::sem(unsigned u, unsigned s) const {
  return static_cast<std::uint32_t>(out_.sem_o.slice((u * core::Control::kSems + s) * 32, 32));
}

}  // namespace trn::chip
