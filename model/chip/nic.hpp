// trn::chip::Nic — cycle-exact model of rtl/chip/nic.sv, the chip's NeuronLink endpoint, written
// from docs/chip.md ("The NIC"): remote writes and semaphore writes into packets on the router's
// local port; ejected packets into this chip's HBM writes and semaphore additions.
//
// Parts, as in the RTL: a credit_counter for VC 0 of the router's local port (u_credit), a
// stream_fifo of D flits per VC for what the router ejects (g_vc[v].u_fifo), an rr_arbiter that
// picks the VC whose front flit is a head when the assembler is idle (u_vc_arb).
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/credit_counter.hpp"
#include "common/ports.hpp"
#include "common/rr_arbiter.hpp"
#include "common/stream_fifo.hpp"
#include "dma/desc.hpp"
#include "sv/chip_pkg.hpp"
#include "sv/dma_pkg.hpp"
#include "sv/ports/nic.hpp"
#include "sv/router_pkg.hpp"

namespace trn::chip {

class Nic {
 public:
  struct Params {
    unsigned w = 64;           ///< flit bits
    unsigned v = 2;            ///< VCs of the router's local port
    unsigned d = 4;            ///< flits per VC buffer
    unsigned beat_bytes = 16;  ///< bytes of a write's data
  };
  using wr_req_t = sv::dma_pkg::wr_req_t;
  struct In {
    bool rst_ni = false;
    std::uint64_t id_i = 0;
    bool tx_valid_i = false;
    wr_req_t tx_i;
    bool tx_sem_i = false;
    Bits tx_data_i;
    bool inj_credit_i = false;
    std::uint64_t inj_credit_vc_i = 0;
    bool ej_valid_i = false;
    std::uint64_t ej_vc_i = 0;
    Bits ej_flit_i;
    bool rx_ready_i = false;

    bool operator==(const In&) const = default;
  };
  struct Out {
    bool tx_ready_o = false;
    bool inj_valid_o = false;
    std::uint64_t inj_vc_o = 0;
    Bits inj_flit_o;
    bool ej_credit_o = false;
    std::uint64_t ej_credit_vc_o = 0;
    bool rx_valid_o = false;
    wr_req_t rx_o;
    bool rx_sem_o = false;
    Bits rx_data_o;
    std::uint64_t rx_src_o = 0;
    std::uint64_t drop_o = 0;
  };

  explicit Nic(Params p);
  const Params& params() const { return p_; }
  /// Payload bytes of a body flit, and the flits of a packet carrying n bytes.
  /// Payload bytes of a body flit of w bits (its top two bits are the flit kind: chip_pkg::body_bytes).
  static constexpr unsigned body_bytes(unsigned w) { return (w - 2) / 8; }
  unsigned body_bytes() const { return body_bytes(p_.w); }
  unsigned packet_flits(unsigned n) const { return 1 + (n + body_bytes() - 1) / body_bytes(); }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/chip/nic.sv, generated from its header.
  sv::ports::nic::Params sv_params() const { return {.W = p_.w, .V = p_.v, .D = p_.d, .BeatBytes = p_.beat_bytes}; }
  TRN_MODULE_PORTS(nic)

  /// Flit k of a packet carrying request r (the send side's encoding, for tests and checkers).
  Bits tx_flit(const wr_req_t& r, bool sem, const Bits& data, unsigned k, unsigned len, unsigned id) const;

 private:
  enum class Rx : std::uint8_t { idle, collect, hold, drop };
  /// This cycle's decisions (the RTL's always_comb blocks).
  struct Comb {
    bool send = false, send_last = false, tx_ready = false;
    std::vector<bool> pop;
    common::RrArbiter::In arb_in;
    common::RrArbiter::Out arb_out;
  };
  Comb comb(const In& in) const;
  void reset();

  Params p_;
  // send
  bool tx_v_q_ = false, tx_sem_q_ = false;
  wr_req_t tx_req_q_;
  Bits tx_data_q_;
  unsigned tx_k_q_ = 0, tx_len_q_ = 0;
  bool inj_v_q_ = false;
  Bits inj_flit_q_;
  common::CreditCounter credit_;  ///< u_credit
  // receive
  std::vector<common::StreamFifo> fifo_;  ///< g_vc[v].u_fifo
  common::RrArbiter vc_arb_;              ///< u_vc_arb
  Rx rx_st_q_ = Rx::idle;
  unsigned rx_vc_q_ = 0;
  sv::router_pkg::head_t rx_head_q_;
  sv::chip_pkg::pkt_hdr_t rx_hdr_q_;
  Bits rx_data_q_;
  unsigned rx_k_q_ = 0;
  std::uint16_t drop_q_ = 0;
  bool cr_v_q_ = false;
  unsigned cr_vc_q_ = 0;
};

}  // namespace trn::chip
