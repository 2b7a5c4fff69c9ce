// trn::link — the NeuronLink link layer (SPEC 5.6, docs/link.md): CRC-16 flit protection and
// go-back-N replay. Cycle-exact models of rtl/link/link_tx.sv, link_rx.sv and the simulation top
// link_pair.sv, written from docs/link.md.
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "sv/ports/link_pair.hpp"
#include "sv/ports/link_rx.hpp"
#include "sv/ports/link_tx.hpp"

namespace trn::link {

/// CRC-16/CCITT (0x1021, initial 0xFFFF, no reflection, no final xor) of the low n bits of x,
/// bit n-1 first.
std::uint16_t crc16(const Bits& x, unsigned n);
/// The CRC a flit carries: over {seq (sb bits), data (w bits)}, seq most significant.
std::uint16_t flit_crc(std::uint64_t seq, unsigned sb, const Bits& data);

/// The sender: replay buffer of `depth` flits, sequence numbers modulo 2^(log2(depth) + 2).
class LinkTx {
 public:
  struct Params {
    unsigned w = 128, depth = 16, timeout = 64;
  };
  struct In {
    bool rst_ni = false, in_valid_i = false;
    Bits in_data_i;
    bool ack_valid_i = false;
    std::uint64_t ack_seq_i = 0;
    bool nack_valid_i = false;
    std::uint64_t nack_seq_i = 0;
    bool operator==(const In&) const = default;
  };
  struct Out {
    bool in_ready_o = false, tx_valid_o = false;
    std::uint64_t tx_seq_o = 0;
    Bits tx_data_o;
    std::uint64_t tx_crc_o = 0, held_o = 0, replays_o = 0, timeouts_o = 0;
  };
  explicit LinkTx(Params p);
  unsigned sb() const { return sb_; }
  In make_in() const {
    In in;
    in.in_data_i = Bits(p_.w);
    return in;
  }
  Out make_out() const {
    Out o;
    o.tx_data_o = Bits(p_.w);
    return o;
  }
  /// The ports of rtl/link/link_tx.sv, generated from its header.
  sv::ports::link_tx::Params sv_params() const { return {.W = p_.w, .Depth = p_.depth, .Timeout = p_.timeout}; }
  TRN_MODULE_PORTS(link_tx)
  /// in_ready_o: out of reset and a free slot in the replay buffer.
  bool ready(bool rst_ni) const { return rst_ni && count() < p_.depth; }
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

 private:
  struct Next {
    std::uint64_t base, send;
    bool nack_ok, ack_ok, timeout, send_now;
  };
  Next next(const In& in) const;
  std::uint64_t mod(std::uint64_t x) const { return x & ((std::uint64_t{1} << sb_) - 1); }
  std::uint64_t count() const { return mod(next_ - base_); }
  Params p_;
  unsigned sb_;
  std::vector<Bits> buf_;
  std::uint64_t base_ = 0, next_ = 0, send_ = 0, timer_ = 0;
  bool v_ = false;
  std::uint64_t seq_ = 0, crc_ = 0, replays_ = 0, timeouts_ = 0;
  Bits data_;
};

/// The receiver: delivers the expected flit when its CRC matches, drops anything else.
class LinkRx {
 public:
  struct Params {
    unsigned w = 128, sb = 6;
    bool check_crc = true;
  };
  struct In {
    bool rst_ni = false, rx_valid_i = false;
    std::uint64_t rx_seq_i = 0;
    Bits rx_data_i;
    std::uint64_t rx_crc_i = 0;
    bool operator==(const In&) const = default;
  };
  struct Out {
    bool out_valid_o = false;
    Bits out_data_o;
    bool ack_valid_o = false;
    std::uint64_t ack_seq_o = 0;
    bool nack_valid_o = false;
    std::uint64_t nack_seq_o = 0, crc_errors_o = 0, drops_o = 0;
  };
  explicit LinkRx(Params p);
  In make_in() const {
    In in;
    in.rx_data_i = Bits(p_.w);
    return in;
  }
  Out make_out() const {
    Out o;
    o.out_data_o = Bits(p_.w);
    return o;
  }
  /// The ports of rtl/link/link_rx.sv, generated from its header.
  sv::ports::link_rx::Params sv_params() const { return {.W = p_.w, .SB = p_.sb, .CheckCrc = p_.check_crc}; }
  TRN_MODULE_PORTS(link_rx)
  void eval(const In& in, Out& out) const;
  void tick(const In& in);
  /// The outputs (all registers): what eval writes, without the copy.
  const Out& out() const { return q_; }

 private:
  Params p_;
  std::uint64_t exp_ = 0;
  bool nacked_ = false;
  Out q_;
};

/// rtl/link/link_pair.sv: a sender and a receiver whose channels the bench closes.
class LinkPair {
 public:
  struct Params {
    unsigned w = 128, depth = 16, timeout = 64;
    bool check_crc = true;
  };
  /// The top's ports: the sender's and the receiver's (rst_ni drives both; the receiver's ack/nack
  /// outputs are named rack_*/rnack_* on the top).
  struct In {
    bool rst_ni = false, in_valid_i = false;
    Bits in_data_i;
    bool ack_valid_i = false;
    std::uint64_t ack_seq_i = 0;
    bool nack_valid_i = false;
    std::uint64_t nack_seq_i = 0;
    bool rx_valid_i = false;
    std::uint64_t rx_seq_i = 0;
    Bits rx_data_i;
    std::uint64_t rx_crc_i = 0;
  };
  struct Out {
    bool in_ready_o = false, tx_valid_o = false;
    std::uint64_t tx_seq_o = 0;
    Bits tx_data_o;
    std::uint64_t tx_crc_o = 0, held_o = 0, replays_o = 0, timeouts_o = 0;
    bool out_valid_o = false;
    Bits out_data_o;
    bool rack_valid_o = false;
    std::uint64_t rack_seq_o = 0;
    bool rnack_valid_o = false;
    std::uint64_t rnack_seq_o = 0, crc_errors_o = 0, drops_o = 0;
  };
  explicit LinkPair(Params p);
  const Params& params() const { return p_; }
  unsigned sb() const { return tx_.sb(); }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/link/link_pair.sv, generated from its header.
  sv::ports::link_pair::Params sv_params() const {
    return {.W = p_.w, .Depth = p_.depth, .Timeout = p_.timeout, .CheckCrc = p_.check_crc};
  }
  TRN_MODULE_PORTS(link_pair)

 private:
  static LinkTx::In tx_in(const In& in);
  static LinkRx::In rx_in(const In& in);
  Params p_;
  LinkTx tx_;
  LinkRx rx_;
  mutable LinkTx::Out to_;
  mutable LinkRx::Out ro_;
};

}  // namespace trn::link
