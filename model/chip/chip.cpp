#include "chip/chip.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "common/clog2.hpp"
#include "isa/isa.hpp"

namespace trn::chip {

namespace {
constexpr unsigned kMaxPasses = 8;
constexpr unsigned kPcBits = core::Control::kPcBits;

/// Assign v to dst; note whether it changed (in `part` and `changed`).
template <class T, class B>
void set(T& dst, T&& v, B&& part, bool& changed) {
  if (!(dst == v)) {
    dst = std::move(v);
    part = true;
    changed = true;
  }
}
}  // namespace

bool Chip::Dirty::any() const {
  auto some = [](const std::vector<bool>& v) { return std::find(v.begin(), v.end(), true) != v.end(); };
  return xbar || nic || router || some(core) || some(cc) || some(tx) || some(rx);
}
void Chip::Dirty::all(bool v) {
  std::fill(core.begin(), core.end(), v);
  std::fill(cc.begin(), cc.end(), v);
  std::fill(tx.begin(), tx.end(), v);
  std::fill(rx.begin(), rx.end(), v);
  xbar = nic = router = v;
}

Chip::Params Chip::Params::of(const cfg::Arch& a, unsigned chips, unsigned kx, unsigned ky, unsigned kz) {
  Params p;
  p.core = core::NeuronCore::Params::of(a);
  p.core.core.gp_procs = 0;  // the chip's NeuronCores are built without their GpSimd engine (rtl/chip/chip.sv)
  p.core.core.chips = chips;
  p.cores = a.cores_per_chip;
  p.cc_cores = a.cc_cores;
  p.chips = chips;
  p.w = a.link_flit_bits;
  p.v = a.link_vcs;
  p.d = a.link_vc_depth;
  p.rdepth = a.link_replay_depth;
  p.timeout = a.link_timeout;
  p.kx = kx;
  p.ky = ky;
  p.kz = kz;
  return p;
}

Chip::Params Chip::Params::switched(const cfg::Arch& a, unsigned chips) {
  Params p = of(a, chips, 1, 1, 1);
  p.topo = link::Topo::TopoSwitch;
  return p;
}

Chip::Params Chip::Params::on_network(const cfg::Arch& a, unsigned chips) {
  Params p = of(a, chips, 1, 1, 1);
  p.topo = link::Topo::TopoTable;
  return p;
}

Chip::Chip(Params p)
    : p_(p),
      vb_(p.v > 1 ? clog2(p.v) : 1),
      xbar_(ChipXbar::Params{p.units(), clog2(p.core.core.slots), p.core.core.beat_bytes}),
      nic_(Nic::Params{p.w, p.v, p.d, p.core.core.beat_bytes}) {
  if (routed())
    router_.emplace(link::Router::Params{.p = p_.link_ports() + 1,
                                         .v = p_.v,
                                         .d = p_.d,
                                         .w = p_.w,
                                         .topo = p_.topo,
                                         .kx = p_.kx,
                                         .ky = p_.ky,
                                         .kz = p_.kz,
                                         .last_hop = p_.last_hop,
                                         .table = nullptr});
  if (p_.rdepth < p_.v * p_.d) throw std::invalid_argument("chip::Chip: the link replay buffer must hold v * d flits");
  if (p_.units() > 31) throw std::invalid_argument("chip::Chip: at most 31 units (the semaphore address's unit field)");
  if (p_.core.core.chips != p_.chips) p_.core.core.chips = p_.chips;
  const auto& c = p_.core.core;
  cores_.reserve(p_.cores);  // built in place: a part is large, and never copied
  ccs_.reserve(p_.cc_cores);
  tx_.reserve(links());
  rx_.reserve(links());
  for (unsigned u = 0; u < p_.cores; ++u) {
    core::NeuronCore::Params np = p_.core;
    np.unit = u;
    cores_.emplace_back(np);
  }
  for (unsigned k = 0; k < p_.cc_cores; ++k)
    ccs_.emplace_back(CcCore::Params{.queues = c.queues,
                                     .slots = c.slots / c.dma_engines,
                                     .beat_bytes = c.beat_bytes,
                                     .hbm_bytes = c.hbm_bytes,
                                     .imem_depth = p_.core.imem_depth,
                                     .chips = p_.chips,
                                     .unit = p_.cores + k,
                                     .skip_quiet = p_.skip_quiet});
  sb_ = clog2(p_.rdepth) + 2;
  for (unsigned k = 0; k < links(); ++k) {
    tx_.emplace_back(link::LinkTx::Params{p_.w + vb_, p_.rdepth, p_.timeout});
    rx_.emplace_back(link::LinkRx::Params{p_.w + vb_, sb_, true});
  }
  dirty_.core.assign(p_.cores, true);
  dirty_.cc.assign(p_.cc_cores, true);
  dirty_.tx.assign(links(), true);
  dirty_.rx.assign(links(), true);
  for (const auto& n : cores_) {
    w_.core_in.push_back(n.make_in());
    w_.core_out.push_back(n.make_out());
  }
  for (const auto& k : ccs_) {
    w_.cc_in.push_back(k.make_in());
    w_.cc_out.push_back(k.make_out());
  }
  w_.xbar_in = xbar_.make_in();
  w_.xbar_out = xbar_.make_out();
  w_.nic_in = nic_.make_in();
  w_.nic_out = nic_.make_out();
  if (router_) {
    w_.router_in = router_->make_in();
    w_.router_out = router_->make_out();
  }
  for (unsigned k = 0; k < links(); ++k) {
    w_.tx_in.push_back(tx_[k].make_in());
    w_.tx_out.push_back(tx_[k].make_out());
    w_.rx_in.push_back(rx_[k].make_in());
    w_.rx_out.push_back(rx_[k].make_out());
  }
}

sv::ports::chip::Params Chip::sv_params() const {
  auto s = p_.sv_chip<sv::ports::chip::Params>();
  s.Chips = p_.chips, s.Topo = p_.topo, s.KX = p_.kx, s.KY = p_.ky, s.KZ = p_.kz;
  return s;
}

Chip::In Chip::make_in() const {
  const unsigned LP = p_.link_ports(), SB = sb();
  In in;
  in.im_data_i = Bits(isa::tbl::kInstBits);
  in.hbm_r_data_i = Bits(8 * p_.core.core.beat_bytes);
  in.lk_ack_valid_i = Bits(LP);
  in.lk_ack_seq_i = Bits(LP * SB);
  in.lk_nack_valid_i = Bits(LP);
  in.lk_nack_seq_i = Bits(LP * SB);
  in.lk_rx_valid_i = Bits(LP);
  in.lk_rx_seq_i = Bits(LP * SB);
  in.lk_rx_data_i = Bits(LP * lw());
  in.lk_rx_crc_i = Bits(LP * 16);
  in.lk_credit_i = Bits(LP);
  in.lk_credit_vc_i = Bits(LP * vb_);
  return in;
}

Chip::Out Chip::make_out() const {
  const unsigned U = p_.units(), LP = p_.link_ports(), SB = sb();
  Out o;
  o.err_code_o = Bits(U * sv::isa_pkg::ctl_err_e_width);
  o.err_detail_o = Bits(U * 3);
  o.err_stream_o = Bits(U * sv::isa_pkg::stream_e_width);
  o.err_pc_o = Bits(U * kPcBits);
  o.sem_o = Bits(U * core::Control::kSems * 32);
  o.hbm_wr_data_o = Bits(8 * p_.core.core.beat_bytes);
  o.lk_tx_valid_o = Bits(LP);
  o.lk_tx_seq_o = Bits(LP * SB);
  o.lk_tx_data_o = Bits(LP * lw());
  o.lk_tx_crc_o = Bits(LP * 16);
  o.lk_ack_valid_o = Bits(LP);
  o.lk_ack_seq_o = Bits(LP * SB);
  o.lk_nack_valid_o = Bits(LP);
  o.lk_nack_seq_o = Bits(LP * SB);
  o.lk_credit_o = Bits(LP);
  o.lk_credit_vc_o = Bits(LP * vb_);
  o.lk_tx_ready_o = Bits(LP);
  o.lk_crc_err_o = Bits(LP * 32);
  o.lk_replays_o = Bits(LP * 32);
  return o;
}

bool Chip::wire(const In& in) const {
  Wires& w = w_;
  const auto& c = p_.core.core;
  const unsigned LP = p_.link_ports(), SB = sb(), W = p_.w, VB = vb_, LW = lw(), DW = 8 * c.beat_bytes;
  const unsigned csw = clog2(c.slots / c.dma_engines);
  bool changed = false;
  const ChipXbar::Out& xo = w.xbar_out;
  auto bit = [](std::uint64_t v, unsigned i) { return ((v >> i) & 1) != 0; };

  // ---- the units: programs, starts, the fabric's readies, responses and semaphore additions
  for (unsigned u = 0; u < p_.cores; ++u) {
    core::NeuronCore::In k = w.core_in[u];
    k.rst_ni = in.rst_ni;
    k.start_i = bit(in.start_i, u);
    k.im_valid_i = in.im_valid_i && in.im_unit_i == u;
    k.im_stream_i = in.im_stream_i;
    k.im_addr_i = in.im_addr_i;
    k.im_data_i = in.im_data_i;
    k.dma_cfg_strong_i = bit(in.dma_strong_i, u) ? Bits::ones(c.nq()) : Bits(c.nq());
    k.dma_cfg_max_outst_i = c.slots / c.dma_engines;
    k.sem_ext_en_i = in.sem_ext_en_i;
    k.sem_add_valid_i = bit(xo.sem_valid_o, u);
    k.sem_add_idx_i = static_cast<unsigned>(xo.sem_idx_o);
    k.sem_add_val_i = xo.sem_val_o;
    k.hbm_ar_ready_i = bit(xo.u_ar_ready_o, u);
    k.hbm_r_valid_i = bit(xo.u_r_valid_o, u);
    k.hbm_r_id_i = xo.u_r_id_o;
    k.hbm_r_data_i = xo.u_r_data_o;
    k.hbm_wr_ready_i = bit(xo.u_wr_ready_o, u);
    set(w.core_in[u], std::move(k), dirty_.core[u], changed);
  }
  // Each part's input is wired in place (no copy of its ports a pass: the collective cores are
  // many and mostly waiting, the fabric holds a beat of every unit); a part is dirty when a field
  // of its input changed: took() says whether one did since the last took().
  bool moved = false;
  auto upd = [&moved](auto& field, const auto& v) {
    if (!(field == v)) {
      field = v;
      moved = true;
    }
  };
  auto upd_bit = [&moved](Bits& b, unsigned i, bool v) {
    if (b.bit(i) != v) {
      b.set_bit(i, v);
      moved = true;
    }
  };
  auto upd_slice = [&moved](Bits& b, unsigned lsb, unsigned n, std::uint64_t v) {
    if (n < 64) v &= (std::uint64_t{1} << n) - 1;
    if (b.slice(lsb, n) != v) {
      b.set_slice(lsb, n, v);
      moved = true;
    }
  };
  auto upd_copy = [&moved](Bits& b, unsigned at, const Bits& src, unsigned from, unsigned n) {
    if (b.update(at, src, from, n)) moved = true;
  };
  auto took = [&] {
    const bool m = moved;
    moved = false;
    changed = changed || m;
    return m;
  };

  for (unsigned j = 0; j < p_.cc_cores; ++j) {
    const unsigned u = p_.cores + j;
    CcCore::In& k = w.cc_in[j];
    upd(k.rst_ni, in.rst_ni);
    upd(k.start_i, bit(in.start_i, u));
    upd(k.im_valid_i, in.im_valid_i && in.im_unit_i == u);
    upd(k.im_stream_i, in.im_stream_i);
    upd(k.im_addr_i, in.im_addr_i);
    upd(k.im_data_i, in.im_data_i);
    upd(k.dma_cfg_strong_i, bit(in.dma_strong_i, u) ? (std::uint64_t{1} << c.queues) - 1 : std::uint64_t{0});
    upd(k.sem_ext_en_i, in.sem_ext_en_i);
    upd(k.sem_add_valid_i, bit(xo.sem_valid_o, u));
    upd(k.sem_add_idx_i, static_cast<unsigned>(xo.sem_idx_o));
    upd(k.sem_add_val_i, xo.sem_val_o);
    upd(k.hbm_ar_ready_i, bit(xo.u_ar_ready_o, u));
    upd(k.hbm_r_valid_i, bit(xo.u_r_valid_o, u));
    upd(k.hbm_r_id_i, xo.u_r_id_o & ((std::uint64_t{1} << csw) - 1));
    upd(k.hbm_r_data_i, xo.u_r_data_o);
    upd(k.hbm_wr_ready_i, bit(xo.u_wr_ready_o, u));
    if (took()) dirty_.cc[j] = true;
  }

  // ---- the fabric: the units' HBM ports, the NIC, the chip's HBM port
  {
    ChipXbar::In& x = w.xbar_in;
    upd(x.rst_ni, in.rst_ni);
    upd(x.id_i, in.id_i);
    std::uint64_t ar_valid = 0, r_ready = 0, wr_valid = 0;
    auto unit_port = [&](unsigned u, bool ar_v, const rd_req_t& ar, bool r_r, bool wr_v, const wr_req_t& wr,
                         const Bits& data, const wr_info_t& info) {
      if (ar_v) ar_valid |= 1ull << u;
      if (r_r) r_ready |= 1ull << u;
      if (wr_v) wr_valid |= 1ull << u;
      upd(x.u_ar_i[u], ar);
      upd(x.u_wr_i[u], wr);
      if (x.u_wr_data_i.update(u * DW, data, 0, DW)) moved = true;
      upd(x.u_wr_info_i[u], info);
    };
    for (unsigned u = 0; u < p_.cores; ++u) {
      const auto& o = w.core_out[u];
      unit_port(u, o.hbm_ar_valid_o, o.hbm_ar_o, o.hbm_r_ready_o, o.hbm_wr_valid_o, o.hbm_wr_o, o.hbm_wr_data_o,
                o.hbm_wr_info_o);
    }
    for (unsigned j = 0; j < p_.cc_cores; ++j) {
      const auto& o = w.cc_out[j];
      unit_port(p_.cores + j, o.hbm_ar_valid_o, o.hbm_ar_o, o.hbm_r_ready_o, o.hbm_wr_valid_o, o.hbm_wr_o,
                o.hbm_wr_data_o, o.hbm_wr_info_o);
    }
    upd(x.u_ar_valid_i, ar_valid);
    upd(x.u_r_ready_i, r_ready);
    upd(x.u_wr_valid_i, wr_valid);
    upd(x.rx_valid_i, w.nic_out.rx_valid_o);
    upd(x.rx_i, w.nic_out.rx_o);
    upd(x.rx_sem_i, w.nic_out.rx_sem_o);
    upd(x.rx_data_i, w.nic_out.rx_data_o);
    upd(x.tx_ready_i, w.nic_out.tx_ready_o);
    upd(x.hbm_ar_ready_i, in.hbm_ar_ready_i);
    upd(x.hbm_r_valid_i, in.hbm_r_valid_i);
    upd(x.hbm_r_id_i, in.hbm_r_id_i);
    upd(x.hbm_r_data_i, in.hbm_r_data_i);
    upd(x.hbm_wr_ready_i, in.hbm_wr_ready_i);
    if (took()) dirty_.xbar = true;
  }

  // ---- the NIC: the fabric's remote writes, the router's local port
  const link::Router::Out& ro = w.router_out;
  {
    Nic::In& n = w.nic_in;
    upd(n.rst_ni, in.rst_ni);
    upd(n.id_i, in.id_i);
    upd(n.tx_valid_i, xo.tx_valid_o);
    upd(n.tx_i, xo.tx_o);
    upd(n.tx_sem_i, xo.tx_sem_o);
    upd(n.tx_data_i, xo.tx_data_o);
    if (routed()) {
      upd(n.inj_credit_i, ro.in_credit_o.bit(0));
      upd(n.inj_credit_vc_i, ro.in_credit_vc_o.slice(0, VB));
      upd(n.ej_valid_i, ro.out_valid_o.bit(0));
      upd(n.ej_vc_i, ro.out_vc_o.slice(0, VB));
      upd_copy(n.ej_flit_i, 0, ro.out_flit_o, 0, W);
    } else {  // no router: the switch's (a network's) credits, link port 0's receiver (or the port)
      const Bits& d = links() ? w.rx_out[0].out_data_o : in.lk_rx_data_i;
      upd(n.inj_credit_i, in.lk_credit_i.bit(0));
      upd(n.inj_credit_vc_i, in.lk_credit_vc_i.slice(0, VB));
      upd(n.ej_valid_i, links() ? w.rx_out[0].out_valid_o : in.lk_rx_valid_i.bit(0));
      upd(n.ej_vc_i, d.slice(W, VB));
      upd_copy(n.ej_flit_i, 0, d, 0, W);
    }
    upd(n.rx_ready_i, xo.rx_ready_o);
    if (took()) dirty_.nic = true;
  }

  // the router: port 0 the NIC, port k + 1 link port k
  if (routed()) {
    link::Router::In& r = w.router_in;
    upd(r.rst_ni, in.rst_ni);
    upd(r.id_i, in.id_i);
    upd_bit(r.in_valid_i, 0, w.nic_out.inj_valid_o);
    upd_slice(r.in_vc_i, 0, VB, w.nic_out.inj_vc_o);
    upd_copy(r.in_flit_i, 0, w.nic_out.inj_flit_o, 0, W);
    upd_bit(r.out_credit_i, 0, w.nic_out.ej_credit_o);
    upd_slice(r.out_credit_vc_i, 0, VB, w.nic_out.ej_credit_vc_o);
    for (unsigned k = 0; k < LP; ++k) {
      const auto& x = w.rx_out[k];
      upd_bit(r.in_valid_i, k + 1, x.out_valid_o);
      upd_copy(r.in_flit_i, (k + 1) * W, x.out_data_o, 0, W);
      upd_slice(r.in_vc_i, (k + 1) * VB, VB, x.out_data_o.slice(W, VB));
      upd_bit(r.out_credit_i, k + 1, in.lk_credit_i.bit(k));
      upd_slice(r.out_credit_vc_i, (k + 1) * VB, VB, in.lk_credit_vc_i.slice(k * VB, VB));
    }
    if (took()) dirty_.router = true;
  }

  // the links
  for (unsigned k = 0; k < links(); ++k) {
    link::LinkTx::In& t = w.tx_in[k];
    upd(t.rst_ni, in.rst_ni);
    if (routed()) {
      upd(t.in_valid_i, ro.out_valid_o.bit(k + 1));
      upd_copy(t.in_data_i, 0, ro.out_flit_o, (k + 1) * W, W);
      upd_slice(t.in_data_i, W, VB, ro.out_vc_o.slice((k + 1) * VB, VB));
    } else {  // no router: the NIC's injection
      upd(t.in_valid_i, w.nic_out.inj_valid_o);
      upd_copy(t.in_data_i, 0, w.nic_out.inj_flit_o, 0, W);
      upd_slice(t.in_data_i, W, VB, w.nic_out.inj_vc_o);
    }
    upd(t.ack_valid_i, in.lk_ack_valid_i.bit(k));
    upd(t.ack_seq_i, in.lk_ack_seq_i.slice(k * SB, SB));
    upd(t.nack_valid_i, in.lk_nack_valid_i.bit(k));
    upd(t.nack_seq_i, in.lk_nack_seq_i.slice(k * SB, SB));
    if (took()) dirty_.tx[k] = true;
    link::LinkRx::In& x = w.rx_in[k];
    upd(x.rst_ni, in.rst_ni);
    upd(x.rx_valid_i, in.lk_rx_valid_i.bit(k));
    upd(x.rx_seq_i, in.lk_rx_seq_i.slice(k * SB, SB));
    upd_copy(x.rx_data_i, 0, in.lk_rx_data_i, k * LW, LW);
    upd(x.rx_crc_i, in.lk_rx_crc_i.slice(k * 16, 16));
    if (took()) dirty_.rx[k] = true;
  }
  return changed;
}

void Chip::settle(const In& in) const {
  Wires& w = w_;
  if (!evaluated_) {
    // after an edge every part's outputs are new: evaluate them all once, on the last inputs
    dirty_.all(true);
    evaluated_ = true;
  } else {
    // the same state: settled on these inputs already, the parts' ports hold; on others only the
    // parts whose inputs change are evaluated again
    if (in == settled_in_) return;
    dirty_.all(false);
    if (!wire(in)) {
      settled_in_ = in;
      return;
    }
  }
  for (unsigned pass = 0;; ++pass) {
    if (pass == kMaxPasses)
      throw std::logic_error(fmt::format("chip model: the parts' wiring does not settle in {} passes", kMaxPasses));
    if (pass > 0 && !dirty_.any()) {  // the inputs every part was evaluated with are the wired ones
      w.passes = pass;
      settled_in_ = in;
      return;
    }
    for (unsigned u = 0; u < p_.cores; ++u)
      if (dirty_.core[u]) cores_[u].eval(w.core_in[u], w.core_out[u]);
    for (unsigned j = 0; j < p_.cc_cores; ++j)
      if (dirty_.cc[j]) ccs_[j].eval(w.cc_in[j], w.cc_out[j]);
    if (dirty_.xbar) xbar_.eval(w.xbar_in, w.xbar_out);
    if (dirty_.nic) nic_.eval(w.nic_in, w.nic_out);
    if (dirty_.router && router_) router_->eval(w.router_in, w.router_out);
    for (unsigned k = 0; k < links(); ++k) {
      if (dirty_.tx[k]) tx_[k].eval(w.tx_in[k], w.tx_out[k]);
      if (dirty_.rx[k]) rx_[k].eval(w.rx_in[k], w.rx_out[k]);
    }
    dirty_.all(false);
    wire(in);
  }
}

void Chip::eval(const In& in, Out& out) const {
  settle(in);
  const Wires& w = w_;
  const unsigned U = p_.units(), SB = sb(), LW = lw();
  if (out.sem_o.width() != U * core::Control::kSems * 32) out = make_out();
  const unsigned cw = sv::isa_pkg::ctl_err_e_width, sw = sv::isa_pkg::stream_e_width;
  out.running_o = out.done_o = out.err_o = 0;
  auto unit = [&](unsigned u, bool running, bool done, bool err, unsigned code, unsigned detail, unsigned stream,
                  std::uint32_t pc, const std::array<std::uint32_t, core::Control::kSems>& sems) {
    out.running_o |= static_cast<std::uint64_t>(running) << u;
    out.done_o |= static_cast<std::uint64_t>(done) << u;
    out.err_o |= static_cast<std::uint64_t>(err) << u;
    out.err_code_o.set_slice(u * cw, cw, code);
    out.err_detail_o.set_slice(u * 3, 3, detail);
    out.err_stream_o.set_slice(u * sw, sw, stream);
    out.err_pc_o.set_slice(u * kPcBits, kPcBits, pc);
    static_assert(core::Control::kSems % 2 == 0);
    for (unsigned s = 0; s < core::Control::kSems; s += 2)  // two 32-bit semaphores a 64-bit word
      out.sem_o.set_slice((u * core::Control::kSems + s) * 32, 64,
                          sems[s] | static_cast<std::uint64_t>(sems[s + 1]) << 32);
  };
  for (unsigned u = 0; u < p_.cores; ++u) {
    const auto& o = w.core_out[u];
    unit(u, o.running_o, o.done_o, o.err_o, o.err_code_o, o.err_detail_o, o.err_stream_o, o.err_pc_o, o.sem_o);
  }
  for (unsigned j = 0; j < p_.cc_cores; ++j) {
    const auto& o = w.cc_out[j];
    unit(p_.cores + j, o.running_o, o.done_o, o.err_o, o.err_code_o, o.err_detail_o, o.err_stream_o, o.err_pc_o,
         o.sem_o);
  }
  const ChipXbar::Out& xo = w.xbar_out;
  out.sem_ext_valid_o = xo.sem_valid_o;
  out.sem_ext_idx_o = xo.sem_idx_o;
  out.sem_ext_val_o = xo.sem_val_o;
  out.hbm_ar_valid_o = xo.hbm_ar_valid_o;
  out.hbm_ar_o = xo.hbm_ar_o;
  out.hbm_ar_src_o = xo.hbm_ar_src_o;
  out.hbm_r_ready_o = xo.hbm_r_ready_o;
  out.hbm_wr_valid_o = xo.hbm_wr_valid_o;
  out.hbm_wr_o = xo.hbm_wr_o;
  out.hbm_wr_data_o = xo.hbm_wr_data_o;
  out.hbm_wr_info_o = xo.hbm_wr_info_o;
  out.hbm_wr_src_o = xo.hbm_wr_src_o;
  const link::Router::Out& ro = w.router_out;
  if (!links()) {  // on a network: the NIC's injection out of port 0, its ejection credits
    const Nic::Out& n = w.nic_out;
    out.lk_tx_valid_o.set_bit(0, n.inj_valid_o);
    out.lk_tx_data_o.copy(0, n.inj_flit_o, 0, p_.w);
    out.lk_tx_data_o.set_slice(p_.w, vb_, n.inj_vc_o);
    out.lk_credit_o.set_bit(0, n.ej_credit_o);
    out.lk_credit_vc_o.set_slice(0, vb_, n.ej_credit_vc_o);
    out.lk_tx_ready_o.set_bit(0, true);
  }
  for (unsigned k = 0; k < links(); ++k) {
    const auto& t = w.tx_out[k];
    const auto& x = w.rx_out[k];
    out.lk_tx_valid_o.set_bit(k, t.tx_valid_o);
    out.lk_tx_seq_o.set_slice(k * SB, SB, t.tx_seq_o);
    out.lk_tx_data_o.copy(k * LW, t.tx_data_o, 0, LW);
    out.lk_tx_crc_o.set_slice(k * 16, 16, t.tx_crc_o);
    out.lk_ack_valid_o.set_bit(k, x.ack_valid_o);
    out.lk_ack_seq_o.set_slice(k * SB, SB, x.ack_seq_o);
    out.lk_nack_valid_o.set_bit(k, x.nack_valid_o);
    out.lk_nack_seq_o.set_slice(k * SB, SB, x.nack_seq_o);
    if (routed()) {
      out.lk_credit_o.set_bit(k, ro.in_credit_o.bit(k + 1));
      out.lk_credit_vc_o.set_slice(k * vb_, vb_, ro.in_credit_vc_o.slice((k + 1) * vb_, vb_));
    } else {  // no router: the NIC's credits for its ejection
      out.lk_credit_o.set_bit(k, w.nic_out.ej_credit_o);
      out.lk_credit_vc_o.set_slice(k * vb_, vb_, w.nic_out.ej_credit_vc_o);
    }
    out.lk_tx_ready_o.set_bit(k, t.in_ready_o);
    out.lk_crc_err_o.set_slice(k * 32, 32, x.crc_errors_o);
    out.lk_replays_o.set_slice(k * 32, 32, t.replays_o);
  }
  out.bad_dst_o = routed() ? ro.bad_dst_o : 0;
  out.nic_drop_o = w.nic_out.drop_o;
  out.bad_sem_o = xo.bad_sem_o;
}

void Chip::write_imem(unsigned u, unsigned s, std::uint32_t addr, const Bits& word) {
  if (u < p_.cores || u >= p_.units())
    throw std::invalid_argument(fmt::format("chip::Chip::write_imem: unit {} is no collective core", u));
  ccs_[u - p_.cores].write_imem(s, addr, word);
  evaluated_ = false;
}

void Chip::tick(const In& in) {
  settle(in);
  evaluated_ = false;
  const Wires& w = w_;
  for (unsigned u = 0; u < p_.cores; ++u) cores_[u].tick(w.core_in[u]);
  for (unsigned j = 0; j < p_.cc_cores; ++j) ccs_[j].tick(w.cc_in[j]);
  xbar_.tick(w.xbar_in);
  nic_.tick(w.nic_in);
  if (router_) router_->tick(w.router_in);
  for (unsigned k = 0; k < links(); ++k) {
    tx_[k].tick(w.tx_in[k]);
    rx_[k].tick(w.rx_in[k]);
  }
}

}  // namespace trn::chip
