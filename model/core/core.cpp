#include "core/core.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/clog2.hpp"
#include "dma/runner.hpp"
#include "mem/elements.hpp"

namespace trn::core {

namespace {
constexpr unsigned kPwrIdx = 24;  // the PSUM write arbiter's payload: {idx, mask, data}, idx on top
constexpr unsigned kMaxPasses = 8;
constexpr unsigned kHbm = 0, kSbuf = 1;  // the DMA channels by space (dma_pkg's SpaceHbm, SpaceSbuf)

// The write arbiter's payload, as core.sv's dwr_t: {wr (top), data, info (bottom)}.
unsigned dwr_width(unsigned beat_bytes) {
  return sv::dma_pkg::wr_req_t::kWidth + 8 * beat_bytes + sv::dma_pkg::wr_info_t::kWidth;
}
}  // namespace

dma::DmaEngine::Params Core::dma_params(const Params& p) {
  dma::DmaEngine::Params d;
  d.queues = p.queues;
  d.qdepth = 4;
  d.slots = p.slots / p.dma_engines;
  d.geo = dma::Geometry::make(p.hbm_bytes, p.parts, p.sbuf_bytes, p.beat_bytes);
  d.geo.chips = p.chips;
  return d;
}

Core::Params Core::Params::of(const cfg::Arch& a) {
  if (a.partitions != a.te_cols)
    throw std::invalid_argument(
        fmt::format("core: partitions ({}) and te_cols ({}) must be equal", a.partitions, a.te_cols));
  Params p;
  p.parts = a.partitions;
  p.sbuf_bytes = a.sbuf_bytes_per_partition;
  p.sbuf_banks = a.sbuf_banks;
  p.psum_banks = a.psum_banks;
  p.psum_bank_bytes = a.psum_bank_bytes;
  p.max_n = a.max_moving_n;
  p.queues = a.dma_queues;
  p.slots = a.dma_slots;
  p.beat_bytes = a.dma_beat_bytes;
  p.hbm_bytes = a.hbm_bytes;
  p.dma_engines = a.dma_engines;
  return p;
}

gpsimd::Engine::Params Core::gp_params(const Params& p) {
  return {.procs = p.gp_procs,
          .tcm_bytes = p.gp_tcm_bytes,
          .vlen = p.gp_vlen,
          .parts = p.parts,
          .sbuf_bytes = p.sbuf_bytes,
          .read_depth = 4};
}

mem::Sbuf::Params Core::sb_params(const Params& p) {
  mem::Sbuf::Params s;
  s.parts = p.parts;
  s.part_bytes = p.sbuf_bytes;
  s.beat_bytes = p.beat_bytes;
  s.banks = p.sbuf_banks;
  s.eports = eports(p);
  return s;
}
tensor::TensorEngine::Params Core::te_params(const Params& p) {
  tensor::TensorEngine::Params t;
  t.rows = t.cols = p.parts;
  t.max_n = p.max_n;
  t.banks = p.psum_banks;
  t.depth = p.psum_bank_bytes / 4;
  t.sbuf_bytes = p.sbuf_bytes;
  t.sbuf_banks = p.sbuf_banks;
  t.sbuf_line_bytes = p.beat_bytes;
  return t;
}
vector::LaneEngine::Params Core::le_params(const Params& p, vector::Engine e) {
  vector::LaneEngine::Params l;
  l.engine = e;
  l.lanes = p.parts;
  l.sbuf_bytes = p.sbuf_bytes;
  l.psum_bytes = p.psum_banks * p.psum_bank_bytes;
  return l;
}
Core::Core(Params p)
    : p_(p),
      depth_(p.psum_bank_bytes / 4),
      ow_(clog2(p.psum_bank_bytes / 4)),
      te_(te_params(p)),
      ve_(le_params(p, vector::Engine::vector)),
      se_(le_params(p, vector::Engine::scalar)),
      sb_(sb_params(p)),
      prd_(common::RrArbiter::Params{4, 24}),
      pwr_(common::RrArbiter::Params{2, kPwrIdx + p.parts + 32 * p.parts}),
      ar_arb_(2, common::RrArbiter(common::RrArbiter::Params{p.dma_engines, sv::dma_pkg::rd_req_t::kWidth})),
      wr_arb_(2, common::RrArbiter(common::RrArbiter::Params{p.dma_engines, dwr_width(p.beat_bytes)})),
      esw_(0) {
  if (depth_ < 2 || (1u << ow_) != depth_)
    throw std::invalid_argument(fmt::format("core: PSUM bank depth ({}) must be a power of two", depth_));
  if (p.slots > 256) throw std::invalid_argument("core: at most 256 DMA read slots (SBUF's read id is 8 bits)");
  if (p.dma_engines < 1 || p.dma_engines > 16 || p.slots % p.dma_engines != 0 ||
      (1u << clog2(p.slots / p.dma_engines)) != p.slots / p.dma_engines)
    throw std::invalid_argument(fmt::format(
        "core: {} DMA engines do not divide {} read slots into a power of two per engine", p.dma_engines, p.slots));
  esw_ = clog2(p.slots / p.dma_engines);
  id_mask_ = (1ull << clog2(p.slots)) - 1;
  for (unsigned e = 0; e < p.dma_engines; ++e) dma_.emplace_back(dma_params(p));
  if (p.gp_procs > 0) {
    gp_.emplace(gp_params(p));
    w_.gp_in = gp_->make_in();
    w_.gp_out = gp_->make_out();
  }
  w_.te_in = te_.make_in();
  w_.te_out = te_.make_out();
  w_.ve_in = ve_.make_in();
  w_.se_in = se_.make_in();
  w_.ve_out = ve_.make_out();
  w_.se_out = se_.make_out();
  for (const auto& d : dma_) {
    w_.dma_in.push_back(d.make_in());
    w_.dma_out.push_back(d.make_out());
  }
  for (unsigned sp = 0; sp < 2; ++sp) {
    w_.ar_in.push_back(ar_arb_[sp].make_in());
    w_.ar_out.push_back(ar_arb_[sp].make_out());
    w_.wr_in.push_back(wr_arb_[sp].make_in());
    w_.wr_out.push_back(wr_arb_[sp].make_out());
  }
  w_.sb_in = sb_.make_in();
  w_.sb_out = sb_.make_out();
  w_.prd_in = prd_.make_in();
  w_.prd_out = prd_.make_out();
  w_.pwr_in = pwr_.make_in();
  w_.pwr_out = pwr_.make_out();
}

Core::In Core::make_in() const {
  In in;
  in.dma_cfg_strong_i = Bits(p_.nq());
  in.dma_q_clr_i = Bits(p_.nq());
  in.hbm_r_data_i = Bits(8 * p_.beat_bytes);
  return in;
}

Core::Out Core::make_out() const {
  Out o;
  o.se_acc_o = Bits(32 * p_.parts);
  o.dma_q_idle_o = Bits(p_.nq());
  o.dma_q_err_o = Bits(p_.nq());
  o.dma_q_code_o = Bits(sv::dma_pkg::err_e_width * p_.nq());
  o.dma_q_done_o = Bits(16 * p_.nq());
  o.hbm_wr_data_o = Bits(8 * p_.beat_bytes);
  const unsigned gpn = p_.gp_procs > 0 ? p_.gp_procs : 1;
  o.gp_sem_idx_o = Bits(5 * gpn);
  o.gp_sem_val_o = Bits(32 * gpn);
  return o;
}

bool Core::wire(const In& in) const {
  Wires& w = w_;
  const unsigned P = p_.parts, LW = 32 * P;
  bool changed = false;
  auto set = [&](auto& dst, const auto& v) {
    if (!(dst == v)) {
      dst = v;
      changed = true;
    }
  };
  const vector::LaneEngine::Out* le_out[2] = {&w.ve_out, &w.se_out};
  vector::LaneEngine::In* le_in[2] = {&w.ve_in, &w.se_in};
  const unsigned rd_port[2][2] = {{kVeRd0, kVeRd1}, {kSeRd0, kSeRd1}};
  const unsigned wr_port[2] = {kVeWr, kSeWr};

  // ---- SBUF engine ports
  {
    mem::Sbuf::In s = w.sb_in;
    s.rst_ni = in.rst_ni;
    s.e_valid_i = 0;
    const unsigned ne = eports(p_);
    s.e_mask_i = Bits(ne * P);
    s.e_wdata_i = Bits(ne * LW);
    auto put = [&](unsigned port, bool valid, const mem::Sbuf::e_req_t& r) {
      if (valid) s.e_valid_i |= 1ull << port;
      s.e_i[port] = r;
    };
    put(kTeSt, w.te_out.st_req_valid_o, w.te_out.st_req_o);
    put(kTeMv, w.te_out.mv_req_valid_o, w.te_out.mv_req_o);
    put(kTeSx, w.te_out.sx_req_valid_o, w.te_out.sx_req_o);
    for (unsigned k = 0; k < 2; ++k) {
      const auto& o = *le_out[k];
      put(rd_port[k][0], o.rd0_req_valid_o && !o.rd0_req_o.space, o.rd0_req_o);
      put(rd_port[k][1], o.rd1_req_valid_o && !o.rd1_req_o.space, o.rd1_req_o);
      put(wr_port[k], o.wr_valid_o && !o.wr_o.space, o.wr_o);
      s.e_mask_i.copy(wr_port[k] * P, o.wr_mask_o, 0, P);
      s.e_wdata_i.copy(wr_port[k] * LW, o.wr_data_o, 0, LW);
    }
    if (gp_) {
      // the GpSimd word: a whole word, or the 2- or 1-byte element its write mask names
      const auto& g = w.gp_out;
      mem::Sbuf::e_req_t r{};
      r.we = g.sb_we_o;
      const unsigned m = g.sb_mask_o, k = m & 1 ? 0 : m & 2 ? 1 : m & 4 ? 2 : 3;
      using ES = sv::sbuf_pkg::esize_e;
      if (!g.sb_we_o || m == 0xF) {
        r.esize = ES::ESize4;
        r.idx = g.sb_off_o >> 2;
      } else if (m == (3u << k)) {
        r.esize = ES::ESize2;
        r.idx = (g.sb_off_o + k) >> 1;
      } else {
        r.esize = ES::ESize1;
        r.idx = g.sb_off_o + k;
      }
      r.idx &= 0xFFFFFF;
      put(kGp, g.sb_req_o, r);
      if (g.sb_part_o < P) s.e_mask_i.set_bit(kGp * P + g.sb_part_o, true);
      for (unsigned p = 0; p < P; ++p) s.e_wdata_i.set_slice(kGp * LW + 32 * p, 32, g.sb_wdata_o >> (8 * k));
    }
    // SBUF's DMA ports: the grants of the engines' SBUF arbiters
    const auto& ao = w.ar_out[kSbuf];
    const auto& wo = w.wr_out[kSbuf];
    s.dw_valid_i = wo.gnt_valid_o;
    s.dw_i = sv::dma_pkg::wr_req_t::unpack(wo.gnt_data_o, dwr_wr_lsb());
    s.dw_data_i.copy(0, wo.gnt_data_o, sv::dma_pkg::wr_info_t::kWidth, 8 * p_.beat_bytes);
    s.dr_valid_i = ao.gnt_valid_o;
    s.dr_i = sv::dma_pkg::rd_req_t::unpack(ao.gnt_data_o);
    set(w.sb_in, s);
  }

  // ---- PSUM arbiters
  {
    common::RrArbiter::In a = w.prd_in;
    a.rst_ni = in.rst_ni;
    a.req_valid_i = 0;
    a.req_data_i = Bits(4 * 24);
    for (unsigned k = 0; k < 2; ++k) {
      const auto& o = *le_out[k];
      if (o.rd0_req_valid_o && o.rd0_req_o.space) a.req_valid_i |= 1ull << (2 * k);
      if (o.rd1_req_valid_o && o.rd1_req_o.space) a.req_valid_i |= 1ull << (2 * k + 1);
      a.req_data_i.set_slice(24 * (2 * k), 24, o.rd0_req_o.idx);
      a.req_data_i.set_slice(24 * (2 * k + 1), 24, o.rd1_req_o.idx);
    }
    a.gnt_ready_i = true;
    set(w.prd_in, a);
  }
  const unsigned pw_w = kPwrIdx + P + LW;
  {
    common::RrArbiter::In a = w.pwr_in;
    a.rst_ni = in.rst_ni;
    a.req_valid_i = 0;
    a.req_data_i = Bits(2 * pw_w);
    for (unsigned k = 0; k < 2; ++k) {
      const auto& o = *le_out[k];
      if (o.wr_valid_o && o.wr_o.space) a.req_valid_i |= 1ull << k;
      // {idx, mask, data}: data in the low bits
      a.req_data_i.copy(k * pw_w, o.wr_data_o, 0, LW);
      a.req_data_i.copy(k * pw_w + LW, o.wr_mask_o, 0, P);
      a.req_data_i.set_slice(k * pw_w + LW + P, kPwrIdx, o.wr_o.idx);
    }
    a.gnt_ready_i = w.te_out.pe_ready_o;
    set(w.pwr_in, a);
  }

  // ---- tensor engine
  {
    tensor::TensorEngine::In t = w.te_in;
    t.rst_ni = in.rst_ni;
    t.cmd_valid_i = in.te_cmd_valid_i;
    t.cmd_i = in.te_cmd_i;
    t.gen_i = static_cast<sv::te_pkg::te_gen_e>(p_.te_gen);
    t.st_req_ready_i = (w.sb_out.e_ready_o >> kTeSt) & 1;
    t.st_rsp_valid_i = (w.sb_out.e_rvalid_o >> kTeSt) & 1;
    t.st_rsp_data_i.copy(0, w.sb_out.e_rdata_o, kTeSt * LW, LW);
    t.mv_req_ready_i = (w.sb_out.e_ready_o >> kTeMv) & 1;
    t.mv_rsp_valid_i = (w.sb_out.e_rvalid_o >> kTeMv) & 1;
    t.mv_rsp_data_i.copy(0, w.sb_out.e_rdata_o, kTeMv * LW, LW);
    t.sx_req_ready_i = (w.sb_out.e_ready_o >> kTeSx) & 1;
    t.sx_rsp_valid_i = (w.sb_out.e_rvalid_o >> kTeSx) & 1;
    t.sx_rsp_data_i.copy(0, w.sb_out.e_rdata_o, kTeSx * LW, LW);
    const std::uint64_t pr_idx = w.prd_out.gnt_data_o.to_u64();
    t.pr_valid_i = w.prd_out.gnt_valid_o;
    t.pr_i.bank = static_cast<std::uint8_t>((pr_idx >> ow_) & 0xF);
    t.pr_i.off = static_cast<std::uint16_t>(pr_idx & (depth_ - 1));
    const std::uint64_t pe_idx = w.pwr_out.gnt_data_o.slice(LW + P, kPwrIdx);
    t.pe_valid_i = w.pwr_out.gnt_valid_o;
    t.pe_i.bank = static_cast<std::uint8_t>((pe_idx >> ow_) & 0xF);
    t.pe_i.off = static_cast<std::uint16_t>(pe_idx & (depth_ - 1));
    t.pe_mask_i.copy(0, w.pwr_out.gnt_data_o, LW, P);
    t.pe_data_i.copy(0, w.pwr_out.gnt_data_o, 0, LW);
    set(w.te_in, t);
  }

  // ---- vector and scalar engines
  for (unsigned k = 0; k < 2; ++k) {
    const auto& o = *le_out[k];
    vector::LaneEngine::In l = *le_in[k];
    l.rst_ni = in.rst_ni;
    l.cmd_valid_i = k == 0 ? in.ve_cmd_valid_i : in.se_cmd_valid_i;
    l.cmd_i = k == 0 ? in.ve_cmd_i : in.se_cmd_i;
    auto sb_ready = [&](unsigned port) { return ((w.sb_out.e_ready_o >> port) & 1) != 0; };
    auto sb_rvalid = [&](unsigned port) { return ((w.sb_out.e_rvalid_o >> port) & 1) != 0; };
    l.rd0_req_ready_i = o.rd0_req_o.space ? ((w.prd_out.req_ready_o >> (2 * k)) & 1) != 0 : sb_ready(rd_port[k][0]);
    l.rd1_req_ready_i = o.rd1_req_o.space ? ((w.prd_out.req_ready_o >> (2 * k + 1)) & 1) != 0 : sb_ready(rd_port[k][1]);
    l.wr_ready_i = o.wr_o.space ? ((w.pwr_out.req_ready_o >> k) & 1) != 0 : sb_ready(wr_port[k]);
    const bool p0 = prv_q_ && prp_q_ == 2 * k, p1 = prv_q_ && prp_q_ == 2 * k + 1;
    l.rd0_rsp_valid_i = sb_rvalid(rd_port[k][0]) || p0;
    l.rd1_rsp_valid_i = sb_rvalid(rd_port[k][1]) || p1;
    if (p0)
      l.rd0_rsp_data_i = w.te_out.pr_data_o;
    else
      l.rd0_rsp_data_i.copy(0, w.sb_out.e_rdata_o, rd_port[k][0] * LW, LW);
    if (p1)
      l.rd1_rsp_data_i = w.te_out.pr_data_o;
    else
      l.rd1_rsp_data_i.copy(0, w.sb_out.e_rdata_o, rd_port[k][1] * LW, LW);
    set(*le_in[k], l);
  }

  // ---- the GpSimd engine
  if (gp_) {
    gpsimd::Engine::In g = w.gp_in;
    g.rst_ni = in.rst_ni;
    g.start_i = in.gp_start_i;
    g.entry_i = in.gp_entry_i;
    g.args_i = in.gp_args_i;
    g.host_we_i = in.gp_host_we_i;
    g.host_re_i = in.gp_host_re_i;
    g.host_all_i = in.gp_host_all_i;
    g.host_proc_i = in.gp_host_proc_i;
    g.host_addr_i = in.gp_host_addr_i;
    g.host_wdata_i = in.gp_host_wdata_i;
    g.sb_gnt_i = ((w.sb_out.e_ready_o >> kGp) & 1) != 0;
    g.sb_rvalid_i = ((w.sb_out.e_rvalid_o >> kGp) & 1) != 0;
    g.sb_rdata_i = static_cast<std::uint32_t>(w.sb_out.e_rdata_o.slice(kGp * LW + 32 * gp_rpart_q_, 32));
    g.sem_i = in.gp_sem_i;
    set(w.gp_in, g);
  }

  // ---- DMA engines: the arbiters onto the core's channels (readies by the granted request's
  // space), the read responses merged (SBUF's first) and returned to the engine of their id
  const unsigned E = p_.dma_engines, Q = p_.queues, DW = 8 * p_.beat_bytes;
  const unsigned info_w = sv::dma_pkg::wr_info_t::kWidth, dwr_w = dwr_width(p_.beat_bytes);
  for (unsigned sp = 0; sp < 2; ++sp) {
    common::RrArbiter::In a = w.ar_in[sp];
    a.rst_ni = in.rst_ni;
    a.req_valid_i = 0;
    for (unsigned e = 0; e < E; ++e) {
      const auto& o = w.dma_out[e];
      // an SBUF read takes part only while its banks are free for it (SBUF's dr_busy_o)
      const bool free =
          sp != kSbuf || (mem::row_banks(dma_[e].params().geo.off_of(static_cast<std::uint32_t>(o.ar_o.addr)),
                                         o.ar_o.bytes, p_.beat_bytes, p_.sbuf_banks) &
                          w.sb_out.dr_busy_o) == 0;
      if (o.ar_valid_o && o.ar_o.space == (sp == kSbuf) && free) a.req_valid_i |= 1ull << e;
      auto r = o.ar_o;
      r.id = static_cast<std::uint8_t>((e << esw_) | r.id);
      r.pack(a.req_data_i, e * sv::dma_pkg::rd_req_t::kWidth);
    }
    a.gnt_ready_i = sp == kSbuf ? w.sb_out.dr_ready_o : in.hbm_ar_ready_i;
    set(w.ar_in[sp], a);
  }
  for (unsigned sp = 0; sp < 2; ++sp) {
    common::RrArbiter::In a = w.wr_in[sp];
    a.rst_ni = in.rst_ni;
    a.req_valid_i = 0;
    for (unsigned e = 0; e < E; ++e) {
      const auto& o = w.dma_out[e];
      if (o.wr_valid_o && o.wr_o.space == (sp == kSbuf)) a.req_valid_i |= 1ull << e;
      auto info = o.wr_info_o;
      info.qid = static_cast<std::uint8_t>(e * Q + info.qid);
      info.pack(a.req_data_i, e * dwr_w);
      a.req_data_i.copy(e * dwr_w + info_w, o.wr_data_o, 0, DW);
      o.wr_o.pack(a.req_data_i, e * dwr_w + dwr_wr_lsb());
    }
    a.gnt_ready_i = sp == kSbuf ? w.sb_out.dw_ready_o : in.hbm_wr_ready_i;
    set(w.wr_in[sp], a);
  }
  // read responses to the engine of their id: SBUF's first where both name one engine
  const bool sr = w.sb_out.dr_rvalid_o;
  const std::uint64_t s_id = w.sb_out.dr_rid_o & id_mask_, h_id = in.hbm_r_id_i;
  for (unsigned e = 0; e < E; ++e) {
    dma::DmaEngine::In d = w.dma_in[e];
    d.rst_ni = in.rst_ni;
    d.desc_valid_i = in.dma_desc_valid_i && in.dma_desc_engine_i == e;
    d.desc_queue_i = in.dma_desc_queue_i;
    d.desc_i = in.dma_desc_i;
    d.cfg_strong_i = in.dma_cfg_strong_i.slice(e * Q, Q);
    d.cfg_max_outst_i = in.dma_cfg_max_outst_i;
    d.q_clr_i = in.dma_q_clr_i.slice(e * Q, Q);
    d.ar_ready_i = (((w.ar_out[0].req_ready_o | w.ar_out[1].req_ready_o) >> e) & 1) != 0;
    d.wr_ready_i = (((w.wr_out[0].req_ready_o | w.wr_out[1].req_ready_o) >> e) & 1) != 0;
    const bool r_sb = sr && (s_id >> esw_) == e;
    d.r_valid_i = r_sb || (in.hbm_r_valid_i && (h_id >> esw_) == e);
    d.r_id_i = (r_sb ? s_id : h_id) & ((1ull << esw_) - 1);
    d.r_data_i = r_sb ? w.sb_out.dr_rdata_o : in.hbm_r_data_i;
    set(w.dma_in[e], d);
  }
  return changed;
}

void Core::settle(const In& in) const {
  Wires& w = w_;
  for (unsigned pass = 0;; ++pass) {
    if (pass == kMaxPasses)
      throw std::logic_error(fmt::format("core model: the units' wiring does not settle in {} passes", kMaxPasses));
    te_.eval(w.te_in, w.te_out);
    ve_.eval(w.ve_in, w.ve_out);
    se_.eval(w.se_in, w.se_out);
    for (unsigned e = 0; e < p_.dma_engines; ++e) dma_[e].eval(w.dma_in[e], w.dma_out[e]);
    for (unsigned sp = 0; sp < 2; ++sp) {
      ar_arb_[sp].eval(w.ar_in[sp], w.ar_out[sp]);
      wr_arb_[sp].eval(w.wr_in[sp], w.wr_out[sp]);
    }
    sb_.eval(w.sb_in, w.sb_out);
    prd_.eval(w.prd_in, w.prd_out);
    pwr_.eval(w.pwr_in, w.pwr_out);
    if (gp_) gp_->eval(w.gp_in, w.gp_out);
    if (!wire(in)) {  // the inputs the units were evaluated with are the wired ones
      w.passes = pass + 1;
      return;
    }
  }
}

void Core::eval(const In& in, Out& out) const {
  settle(in);
  const Wires& w = w_;
  out.te_cmd_ready_o = w.te_out.cmd_ready_o;
  out.te_cpl_o = w.te_out.cpl_o;
  out.ve_cmd_ready_o = w.ve_out.cmd_ready_o;
  out.ve_cpl_o = w.ve_out.cpl_o;
  out.ve_busy_o = w.ve_out.busy_o;
  out.se_cmd_ready_o = w.se_out.cmd_ready_o;
  out.se_cpl_o = w.se_out.cpl_o;
  out.se_busy_o = w.se_out.busy_o;
  out.se_acc_o = w.se_out.acc_o;
  const unsigned Q = p_.queues, cw = sv::dma_pkg::err_e_width;
  out.dma_desc_ready_o = in.dma_desc_engine_i < p_.dma_engines && w.dma_out[in.dma_desc_engine_i].desc_ready_o;
  if (out.dma_q_idle_o.width() != p_.nq()) out = make_out();
  for (unsigned e = 0; e < p_.dma_engines; ++e) {
    const auto& o = w.dma_out[e];
    out.dma_q_idle_o.set_slice(e * Q, Q, o.q_idle_o);
    out.dma_q_err_o.set_slice(e * Q, Q, o.q_err_o);
    out.dma_q_code_o.copy(e * Q * cw, o.q_code_o, 0, Q * cw);
    out.dma_q_done_o.copy(e * Q * 16, o.q_done_o, 0, Q * 16);
  }
  const auto& ao = w.ar_out[kHbm];
  const auto& wo = w.wr_out[kHbm];
  out.hbm_ar_valid_o = ao.gnt_valid_o;
  out.hbm_ar_o = sv::dma_pkg::rd_req_t::unpack(ao.gnt_data_o);
  out.hbm_r_ready_o = !(w.sb_out.dr_rvalid_o && ((w.sb_out.dr_rid_o & id_mask_) >> esw_) == (in.hbm_r_id_i >> esw_));
  out.hbm_wr_valid_o = wo.gnt_valid_o;
  out.hbm_wr_o = sv::dma_pkg::wr_req_t::unpack(wo.gnt_data_o, dwr_wr_lsb());
  out.hbm_wr_data_o.copy(0, wo.gnt_data_o, sv::dma_pkg::wr_info_t::kWidth, 8 * p_.beat_bytes);
  out.hbm_wr_info_o = sv::dma_pkg::wr_info_t::unpack(wo.gnt_data_o);
  if (gp_) {
    const auto& g = w.gp_out;
    out.gp_busy_o = g.busy_o;
    out.gp_done_o = g.done_o;
    out.gp_err_o = g.err_o;
    out.gp_err_proc_o = g.err_proc_o;
    out.gp_err_code_o = g.err_code_o;
    out.gp_err_pc_o = g.err_pc_o;
    out.gp_host_rdata_o = g.host_rdata_o;
    out.gp_sem_add_o = g.sem_add_o;
    out.gp_sem_idx_o = g.sem_idx_o;
    out.gp_sem_val_o = g.sem_val_o;
  }
}

dma::Write Core::hbm_write(const Out& o, unsigned beat_bytes) {
  dma::DmaEngine::Out d;
  d.wr_valid_o = o.hbm_wr_valid_o;
  d.wr_o = o.hbm_wr_o;
  d.wr_data_o = o.hbm_wr_data_o;
  d.wr_info_o = o.hbm_wr_info_o;
  return dma::write_of(d, beat_bytes);
}

void Core::tick(const In& in) {
  settle(in);
  // every unit takes the edge with its settled inputs (w_ holds them; no unit's tick changes it)
  const Wires& s = w_;
  te_.tick(s.te_in);
  ve_.tick(s.ve_in);
  se_.tick(s.se_in);
  for (unsigned e = 0; e < p_.dma_engines; ++e) dma_[e].tick(s.dma_in[e]);
  for (unsigned sp = 0; sp < 2; ++sp) {
    ar_arb_[sp].tick(s.ar_in[sp]);
    wr_arb_[sp].tick(s.wr_in[sp]);
  }
  sb_.tick(s.sb_in);
  prd_.tick(s.prd_in);
  pwr_.tick(s.pwr_in);
  if (gp_) gp_->tick(s.gp_in);
  if (!in.rst_ni) {
    prv_q_ = false;
    prp_q_ = 0;
    gp_rpart_q_ = 0;
  } else {
    prv_q_ = s.prd_out.gnt_valid_o;
    prp_q_ = static_cast<unsigned>(s.prd_out.gnt_idx_o);
    const auto& g = s.gp_out;
    if (gp_ && g.sb_req_o && ((s.sb_out.e_ready_o >> kGp) & 1) && !g.sb_we_o) gp_rpart_q_ = g.sb_part_o;
  }
}

}  // namespace trn::core
