#include "chip/nic.hpp"

#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::chip {

using sv::chip_pkg::pkt_hdr_t;
using sv::router_pkg::flit_kind_e;
using sv::router_pkg::head_t;
using sv::router_pkg::pkt_type_e;

namespace {

flit_kind_e kind_of(const Bits& f) { return static_cast<flit_kind_e>(f.slice(f.width() - 2, 2)); }
bool is_head(const Bits& f) {
  const flit_kind_e k = kind_of(f);
  return k == flit_kind_e::FlitHead || k == flit_kind_e::FlitSingle;
}

}  // namespace

Nic::Nic(Params p) : p_(p), credit_(common::CreditCounter::Params{p.d}), vc_arb_(common::RrArbiter::Params{p.v, 1}) {
  if (p_.w < sv::chip_pkg::HdrBits + 2)
    throw std::invalid_argument("chip::Nic: a head flit holds at least its kind, head_t and pkt_hdr_t");
  if (p_.beat_bytes > 255) throw std::invalid_argument("chip::Nic: a packet carries at most 255 bytes");
  for (unsigned v = 0; v < p_.v; ++v) fifo_.emplace_back(common::StreamFifo::Params{p_.w, p_.d});
  reset();
}

void Nic::reset() {
  tx_v_q_ = tx_sem_q_ = false;
  tx_req_q_ = wr_req_t{};
  tx_data_q_ = Bits(8 * p_.beat_bytes);
  tx_k_q_ = tx_len_q_ = 0;
  inj_v_q_ = false;
  inj_flit_q_ = Bits(p_.w);
  rx_st_q_ = Rx::idle;
  rx_vc_q_ = 0;
  rx_head_q_ = head_t{};
  rx_hdr_q_ = pkt_hdr_t{};
  rx_data_q_ = Bits(8 * p_.beat_bytes);
  rx_k_q_ = 0;
  drop_q_ = 0;
  cr_v_q_ = false;
  cr_vc_q_ = 0;
}

Nic::In Nic::make_in() const {
  In in;
  in.tx_data_i = Bits(8 * p_.beat_bytes);
  in.ej_flit_i = Bits(p_.w);
  return in;
}

Nic::Out Nic::make_out() const {
  Out o;
  o.inj_flit_o = Bits(p_.w);
  o.rx_data_o = Bits(8 * p_.beat_bytes);
  return o;
}

Bits Nic::tx_flit(const wr_req_t& r, bool sem, const Bits& data, unsigned k, unsigned len, unsigned id) const {
  Bits f(p_.w);
  flit_kind_e kind;
  if (k == 0) {
    const head_t h{.tc = 0,
                   .len = static_cast<std::uint8_t>(len),
                   .ptype = sem     ? pkt_type_e::PktSem
                            : r.acc ? pkt_type_e::PktAccWrite
                                    : pkt_type_e::PktWrite,
                   .src = static_cast<std::uint8_t>(id),
                   .dst = static_cast<std::uint8_t>((r.addr >> dma::kChipLsb) - 1)};
    const pkt_hdr_t p{.esize4 = r.esize == 4, .n = r.n, .addr = r.addr & dma::kLocalMask};
    h.pack(f);
    p.pack(f, head_t::kWidth);
    kind = len == 1 ? flit_kind_e::FlitSingle : flit_kind_e::FlitHead;
  } else {
    const unsigned b0 = (k - 1) * body_bytes();
    for (unsigned b = 0; b < body_bytes() && b0 + b < p_.beat_bytes; ++b)
      f.set_slice(8 * b, 8, data.slice(8 * (b0 + b), 8));
    kind = k + 1 == len ? flit_kind_e::FlitTail : flit_kind_e::FlitBody;
  }
  f.set_slice(p_.w - 2, 2, static_cast<unsigned>(kind));
  return f;
}

Nic::Comb Nic::comb(const In& in) const {
  Comb c;
  common::CreditCounter::Out co;
  credit_.eval(common::CreditCounter::In{.rst_ni = in.rst_ni}, co);
  c.send = tx_v_q_ && co.avail_o;
  c.send_last = c.send && tx_k_q_ + 1 == tx_len_q_;
  c.tx_ready = !tx_v_q_ || c.send_last;
  // the VCs whose front flit is a head, for the idle assembler
  c.arb_in = vc_arb_.make_in();
  c.arb_in.rst_ni = in.rst_ni;
  c.arb_in.gnt_ready_i = true;
  for (unsigned v = 0; v < p_.v; ++v) {
    common::StreamFifo::Out fo = fifo_[v].make_out();
    fifo_[v].eval(common::StreamFifo::In{in.rst_ni, false, Bits(p_.w), false}, fo);
    if (rx_st_q_ == Rx::idle && fo.pop_valid_o && is_head(fo.pop_data_o)) c.arb_in.req_valid_i |= std::uint64_t{1} << v;
  }
  c.arb_out = vc_arb_.make_out();
  vc_arb_.eval(c.arb_in, c.arb_out);
  return c;
}

void Nic::eval(const In& in, Out& out) const {
  if (out.inj_flit_o.width() != p_.w) out = make_out();
  if (!in.rst_ni) {  // asynchronous reset: the outputs of the reset state
    In r = in;
    r.rst_ni = true;
    Nic(p_).eval(r, out);
    return;
  }
  const Comb c = comb(in);
  out.tx_ready_o = c.tx_ready;
  out.inj_valid_o = inj_v_q_;
  out.inj_vc_o = 0;
  out.inj_flit_o = inj_flit_q_;
  out.ej_credit_o = cr_v_q_;
  out.ej_credit_vc_o = cr_vc_q_;
  out.rx_valid_o = rx_st_q_ == Rx::hold;
  out.rx_sem_o = rx_head_q_.ptype == pkt_type_e::PktSem;
  const bool acc = rx_head_q_.ptype == pkt_type_e::PktAccWrite;
  out.rx_o = wr_req_t{.space = false,
                      .col = false,
                      .esize = static_cast<std::uint8_t>(rx_hdr_q_.esize4 ? 4
                                                         : acc            ? 2
                                                                          : 1),
                      .addr = rx_hdr_q_.addr,
                      .n = rx_hdr_q_.n,
                      .acc = acc};
  out.rx_data_o = rx_data_q_;
  out.rx_src_o = rx_head_q_.src;
  out.drop_o = drop_q_;
}

void Nic::tick(const In& in) {
  if (!in.rst_ni) {
    reset();
    credit_.tick(common::CreditCounter::In{.rst_ni = false});
    for (auto& f : fifo_) f.tick(common::StreamFifo::In{false, false, Bits(p_.w), false});
    vc_arb_.tick(vc_arb_.make_in());
    return;
  }
  const Comb c = comb(in);
  const unsigned bb = body_bytes();

  // ---- receive: the assembler reads at most one flit
  std::vector<bool> pop(p_.v, false);
  Rx st = rx_st_q_;
  unsigned vc = rx_vc_q_;
  head_t head = rx_head_q_;
  pkt_hdr_t hdr = rx_hdr_q_;
  Bits data = rx_data_q_;
  unsigned k = rx_k_q_;
  std::uint16_t drop = drop_q_;
  auto front = [&](unsigned v) {
    common::StreamFifo::Out fo = fifo_[v].make_out();
    fifo_[v].eval(common::StreamFifo::In{true, false, Bits(p_.w), false}, fo);
    return fo;
  };
  switch (rx_st_q_) {
    case Rx::idle:
      if (c.arb_out.gnt_valid_o) {
        const unsigned v = static_cast<unsigned>(c.arb_out.gnt_idx_o);
        const Bits fl = front(v).pop_data_o;
        const flit_kind_e fk = kind_of(fl);
        const head_t fh = head_t::unpack(fl);
        pop[v] = true;
        vc = v;
        head = fh;
        hdr = pkt_hdr_t::unpack(fl, head_t::kWidth);
        data = Bits(8 * p_.beat_bytes);
        k = 0;
        const bool taken =
            fh.ptype == pkt_type_e::PktWrite || fh.ptype == pkt_type_e::PktAccWrite || fh.ptype == pkt_type_e::PktSem;
        if (fh.dst != in.id_i || !taken) {
          ++drop;
          st = fk == flit_kind_e::FlitSingle ? Rx::idle : Rx::drop;
        } else {
          st = fk == flit_kind_e::FlitSingle ? Rx::hold : Rx::collect;
        }
      }
      break;
    case Rx::collect: {
      const auto fo = front(rx_vc_q_);
      if (fo.pop_valid_o) {
        pop[rx_vc_q_] = true;
        for (unsigned b = 0; b < bb && rx_k_q_ * bb + b < p_.beat_bytes; ++b)
          data.set_slice(8 * (rx_k_q_ * bb + b), 8, fo.pop_data_o.slice(8 * b, 8));
        k = rx_k_q_ + 1;
        if (kind_of(fo.pop_data_o) == flit_kind_e::FlitTail) st = Rx::hold;
      }
      break;
    }
    case Rx::hold:
      if (in.rx_ready_i) st = Rx::idle;
      break;
    case Rx::drop: {
      const auto fo = front(rx_vc_q_);
      if (fo.pop_valid_o) {
        pop[rx_vc_q_] = true;
        if (kind_of(fo.pop_data_o) == flit_kind_e::FlitTail) st = Rx::idle;
      }
      break;
    }
  }
  bool any_pop = false;
  for (bool p : pop) any_pop = any_pop || p;
  const unsigned cr_vc = rx_st_q_ == Rx::idle ? static_cast<unsigned>(c.arb_out.gnt_idx_o) : rx_vc_q_;

  // ---- the parts' edges
  credit_.tick(common::CreditCounter::In{
      .rst_ni = true, .take_i = c.send, .give_i = in.inj_credit_i && in.inj_credit_vc_i == 0});
  for (unsigned v = 0; v < p_.v; ++v)
    fifo_[v].tick(common::StreamFifo::In{true, in.ej_valid_i && in.ej_vc_i == v, in.ej_flit_i, pop[v]});
  vc_arb_.tick(c.arb_in);

  // ---- send
  Bits flit = c.send ? tx_flit(tx_req_q_, tx_sem_q_, tx_data_q_, tx_k_q_, tx_len_q_, static_cast<unsigned>(in.id_i))
                     : inj_flit_q_;
  bool tx_v = tx_v_q_;
  unsigned tx_k = tx_k_q_;
  if (c.send) ++tx_k;
  if (c.send_last) tx_v = false;
  if (in.tx_valid_i && c.tx_ready) {
    tx_v = true;
    tx_sem_q_ = in.tx_sem_i;
    tx_req_q_ = in.tx_i;
    tx_data_q_ = in.tx_data_i;
    tx_k = 0;
    tx_len_q_ = packet_flits(in.tx_i.n);
  }
  tx_v_q_ = tx_v;
  tx_k_q_ = tx_k;
  inj_v_q_ = c.send;
  inj_flit_q_ = std::move(flit);

  rx_st_q_ = st;
  rx_vc_q_ = vc;
  rx_head_q_ = head;
  rx_hdr_q_ = hdr;
  rx_data_q_ = std::move(data);
  rx_k_q_ = k;
  drop_q_ = drop;
  cr_v_q_ = any_pop;
  cr_vc_q_ = cr_vc;
}

}  // namespace trn::chip
