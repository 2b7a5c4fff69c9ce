#include "link/link.hpp"

#include <stdexcept>

#include "common/clog2.hpp"

namespace trn::link {

namespace {
/// CRC-16/CCITT of one byte, most significant bit first, from a zero register.
struct CrcTable {
  std::uint16_t t[256];
  CrcTable() {
    for (unsigned b = 0; b < 256; ++b) {
      std::uint16_t c = static_cast<std::uint16_t>(b << 8);
      for (int k = 0; k < 8; ++k) c = static_cast<std::uint16_t>((c << 1) ^ ((c & 0x8000) ? 0x1021 : 0));
      t[b] = c;
    }
  }
};
const CrcTable kCrc;
}  // namespace

namespace {
/// Shift bits n-1 .. 0 of v into the register, most significant first.
std::uint16_t crc_bits(std::uint16_t c, std::uint64_t v, unsigned n) {
  for (unsigned i = n; i > 0; --i) {
    const bool fb = ((c >> 15) & 1) != ((v >> (i - 1)) & 1);
    c = static_cast<std::uint16_t>((c << 1) ^ (fb ? 0x1021 : 0));
  }
  return c;
}
/// Shift bits n-1 .. 0 of x into the register: the bits above the last whole byte one at a time,
/// then a byte at a time (a byte never straddles two words: its lowest bit is a multiple of 8).
std::uint16_t crc_vector(std::uint16_t c, const Bits& x, unsigned n) {
  unsigned i = n;
  if (i % 8 != 0) {
    c = crc_bits(c, x.slice(i - i % 8, i % 8), i % 8);
    i -= i % 8;
  }
  for (; i >= 8; i -= 8) {
    const unsigned byte = static_cast<unsigned>((x.word((i - 8) / 64) >> ((i - 8) % 64)) & 0xFF);
    c = static_cast<std::uint16_t>((c << 8) ^ kCrc.t[((c >> 8) ^ byte) & 0xFF]);
  }
  return c;
}
}  // namespace

std::uint16_t crc16(const Bits& x, unsigned n) { return crc_vector(0xFFFF, x, n); }

std::uint16_t flit_crc(std::uint64_t seq, unsigned sb, const Bits& data) {
  // the CRC of {seq, data}: the register takes seq's bits first, then data's
  return crc_vector(crc_bits(0xFFFF, seq, sb), data, data.width());
}

// ---- LinkTx ----

LinkTx::LinkTx(Params p) : p_(p), sb_(clog2(p.depth) + 2), buf_(p.depth, Bits(p.w)), data_(p.w) {
  if (p_.depth < 2 || (p_.depth & (p_.depth - 1)) != 0)
    throw std::invalid_argument("link: depth must be a power of two >= 2");
  if (p_.timeout < 1) throw std::invalid_argument("link: timeout must be at least 1");
}

LinkTx::Next LinkTx::next(const In& in) const {
  Next n{base_, send_, false, false, false, false};
  const std::uint64_t cnt = count();
  n.nack_ok = in.nack_valid_i && mod(in.nack_seq_i - base_) <= cnt;
  const std::uint64_t d = mod(in.ack_seq_i + 1 - base_);
  n.ack_ok = !n.nack_ok && in.ack_valid_i && d != 0 && d <= cnt;
  if (n.nack_ok) {
    n.base = n.send = in.nack_seq_i;
  } else if (n.ack_ok) {
    n.base = mod(in.ack_seq_i + 1);
    if (mod(send_ - n.base) > mod(next_ - n.base)) n.send = n.base;
  }
  n.timeout = !n.nack_ok && !n.ack_ok && cnt != 0 && timer_ == p_.timeout - 1;
  if (n.timeout) n.send = n.base;
  n.send_now = n.send != next_;
  return n;
}

void LinkTx::eval(const In& in, Out& out) const {
  out.in_ready_o = ready(in.rst_ni);
  out.tx_valid_o = v_;
  out.tx_seq_o = seq_;
  out.tx_data_o = data_;
  out.tx_crc_o = crc_;
  out.held_o = count();
  out.replays_o = replays_;
  out.timeouts_o = timeouts_;
}

void LinkTx::tick(const In& in) {
  if (!in.rst_ni) {
    base_ = next_ = send_ = timer_ = 0;
    v_ = false;
    seq_ = crc_ = replays_ = timeouts_ = 0;
    data_ = Bits(p_.w);
    return;
  }
  const Next n = next(in);
  const bool accept = in.in_valid_i && count() < p_.depth;
  const std::uint64_t cnt = count();
  v_ = n.send_now;
  if (n.send_now) {
    seq_ = n.send;
    data_ = buf_[n.send % p_.depth];
    crc_ = flit_crc(seq_, sb_, data_);
  }
  timer_ = (n.nack_ok || n.ack_ok || n.timeout || cnt == 0) ? 0 : timer_ + 1;
  replays_ += n.nack_ok;
  timeouts_ += n.timeout;
  base_ = n.base;
  send_ = mod(n.send_now ? n.send + 1 : n.send);
  if (accept) {
    buf_[next_ % p_.depth] = in.in_data_i;
    next_ = mod(next_ + 1);
  }
}

// ---- LinkRx ----

LinkRx::LinkRx(Params p) : p_(p) { q_.out_data_o = Bits(p.w); }

void LinkRx::eval(const In&, Out& out) const { out = q_; }

void LinkRx::tick(const In& in) {
  if (!in.rst_ni) {
    exp_ = 0;
    nacked_ = false;
    q_ = Out{};
    q_.out_data_o = Bits(p_.w);
    return;
  }
  const std::uint64_t m = (std::uint64_t{1} << p_.sb) - 1;
  // (the CRC matters only for a flit on the wire: an idle cycle computes none)
  const bool good = !in.rx_valid_i || !p_.check_crc || flit_crc(in.rx_seq_i, p_.sb, in.rx_data_i) == in.rx_crc_i;
  const bool take = in.rx_valid_i && good && in.rx_seq_i == exp_;
  q_.out_valid_o = take;
  q_.ack_valid_o = q_.nack_valid_o = false;
  if (take) {
    q_.out_data_o = in.rx_data_i;
    q_.ack_valid_o = true;
    q_.ack_seq_o = exp_;
    exp_ = (exp_ + 1) & m;
    nacked_ = false;
  } else if (in.rx_valid_i) {
    ++(good ? q_.drops_o : q_.crc_errors_o);
    if (!nacked_) {
      nacked_ = true;
      q_.nack_valid_o = true;
      q_.nack_seq_o = exp_;
    } else if (good) {
      q_.ack_valid_o = true;
      q_.ack_seq_o = (exp_ - 1) & m;
    }
  }
}

// ---- LinkPair ----

LinkPair::LinkPair(Params p)
    : p_(p), tx_(LinkTx::Params{p.w, p.depth, p.timeout}), rx_(LinkRx::Params{p.w, tx_.sb(), p.check_crc}) {}

LinkPair::In LinkPair::make_in() const {
  In in;
  in.in_data_i = Bits(p_.w);
  in.rx_data_i = Bits(p_.w);
  return in;
}

LinkPair::Out LinkPair::make_out() const {
  Out o;
  o.tx_data_o = Bits(p_.w);
  o.out_data_o = Bits(p_.w);
  return o;
}

LinkTx::In LinkPair::tx_in(const In& in) {
  return LinkTx::In{.rst_ni = in.rst_ni,
                    .in_valid_i = in.in_valid_i,
                    .in_data_i = in.in_data_i,
                    .ack_valid_i = in.ack_valid_i,
                    .ack_seq_i = in.ack_seq_i,
                    .nack_valid_i = in.nack_valid_i,
                    .nack_seq_i = in.nack_seq_i};
}

LinkRx::In LinkPair::rx_in(const In& in) {
  return LinkRx::In{.rst_ni = in.rst_ni,  // one reset port
                    .rx_valid_i = in.rx_valid_i,
                    .rx_seq_i = in.rx_seq_i,
                    .rx_data_i = in.rx_data_i,
                    .rx_crc_i = in.rx_crc_i};
}

void LinkPair::eval(const In& in, Out& out) const {
  if (to_.tx_data_o.width() != p_.w) {
    to_.tx_data_o = Bits(p_.w);
    ro_.out_data_o = Bits(p_.w);
  }
  tx_.eval(tx_in(in), to_);
  rx_.eval(rx_in(in), ro_);
  out.in_ready_o = to_.in_ready_o;
  out.tx_valid_o = to_.tx_valid_o;
  out.tx_seq_o = to_.tx_seq_o;
  out.tx_data_o = to_.tx_data_o;
  out.tx_crc_o = to_.tx_crc_o;
  out.held_o = to_.held_o;
  out.replays_o = to_.replays_o;
  out.timeouts_o = to_.timeouts_o;
  out.out_valid_o = ro_.out_valid_o;
  out.out_data_o = ro_.out_data_o;
  out.rack_valid_o = ro_.ack_valid_o;
  out.rack_seq_o = ro_.ack_seq_o;
  out.rnack_valid_o = ro_.nack_valid_o;
  out.rnack_seq_o = ro_.nack_seq_o;
  out.crc_errors_o = ro_.crc_errors_o;
  out.drops_o = ro_.drops_o;
}

void LinkPair::tick(const In& in) {
  tx_.tick(tx_in(in));
  rx_.tick(rx_in(in));
}

}  // namespace trn::link
