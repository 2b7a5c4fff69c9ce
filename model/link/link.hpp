// trn::link — the NeuronLink link layer (SPEC 5.6, docs/link.md): CRC-16 flit protection and
// go-back-N replay. Cycle-exact models of rtl/link/link_tx.sv, link_rx.sv and the simulation top
// link_pair.sv, written from docs/link.md.
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"

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
  };
  struct Out {
    bool in_ready_o = false, tx_valid_o = false;
    std::uint64_t tx_seq_o = 0;
    Bits tx_data_o;
    std::uint64_t tx_crc_o = 0, held_o = 0, replays_o = 0, timeouts_o = 0;
  };
  explicit LinkTx(Params p);
  unsigned sb() const { return sb_; }
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
  /// The top's ports are the sender's and the receiver's (rst_ni drives both: tx.rst_ni is the
  /// port, rx.rst_ni follows it); the receiver's ack/nack outputs are named rack_*/rnack_* on the top.
  struct In {
    LinkTx::In tx;
    LinkRx::In rx;
  };
  struct Out {
    LinkTx::Out tx;
    LinkRx::Out rx;
  };
  explicit LinkPair(Params p);
  const Params& params() const { return p_; }
  unsigned sb() const { return tx_.sb(); }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  template <class V>
  void visit_in(In& in, V&& v) const {
    const unsigned sb = tx_.sb();
    v("rst_ni", in.tx.rst_ni, 1);
    v("in_valid_i", in.tx.in_valid_i, 1);
    v("in_data_i", in.tx.in_data_i, p_.w);
    v("ack_valid_i", in.tx.ack_valid_i, 1);
    v("ack_seq_i", in.tx.ack_seq_i, sb);
    v("nack_valid_i", in.tx.nack_valid_i, 1);
    v("nack_seq_i", in.tx.nack_seq_i, sb);
    v("rx_valid_i", in.rx.rx_valid_i, 1);
    v("rx_seq_i", in.rx.rx_seq_i, sb);
    v("rx_data_i", in.rx.rx_data_i, p_.w);
    v("rx_crc_i", in.rx.rx_crc_i, 16);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    const unsigned sb = tx_.sb();
    v("in_ready_o", out.tx.in_ready_o, 1);
    v("tx_valid_o", out.tx.tx_valid_o, 1);
    v("tx_seq_o", out.tx.tx_seq_o, sb);
    v("tx_data_o", out.tx.tx_data_o, p_.w);
    v("tx_crc_o", out.tx.tx_crc_o, 16);
    v("held_o", out.tx.held_o, sb - 1);
    v("replays_o", out.tx.replays_o, 32);
    v("timeouts_o", out.tx.timeouts_o, 32);
    v("out_valid_o", out.rx.out_valid_o, 1);
    v("out_data_o", out.rx.out_data_o, p_.w);
    v("rack_valid_o", out.rx.ack_valid_o, 1);
    v("rack_seq_o", out.rx.ack_seq_o, sb);
    v("rnack_valid_o", out.rx.nack_valid_o, 1);
    v("rnack_seq_o", out.rx.nack_seq_o, sb);
    v("crc_errors_o", out.rx.crc_errors_o, 32);
    v("drops_o", out.rx.drops_o, 32);
  }

 private:
  static LinkRx::In rx_in(const In& in);
  Params p_;
  LinkTx tx_;
  LinkRx rx_;
};

}  // namespace trn::link
