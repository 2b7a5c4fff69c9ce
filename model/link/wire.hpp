// trn::link::Wire — a link's wire with a latency and a rate (model only: the RTL tops' wires are
// direct), for the systems larger than the RTL's (system::ChipTorus, link::Net): the sender's flits
// {seq, crc, {vc, flit}} reach the receiver `latency` cycles after they leave, a wire slower than a
// flit a cycle serialising them (they queue on the wire, within the receiver's credits, which bound
// them), and the receiver's answers (acknowledgements, and the credits of the router behind it) come
// back as late. Each cycle: put() what the two ends drive now, then, the next cycle, arrive().
#pragma once

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <utility>

#include "common/bits.hpp"

namespace trn::link {

/// A link's wire word as the receiver sees it: {crc, seq, data} (the data bits [from, from + lw)
/// of `data`, then sb bits of seq, then 16 of crc) in w, with one bit inverted when the system's
/// flip input says so for link l (flip_i bit l; the bit index in flip_bit_i's fb-bit field l; a
/// bit past the wire flips nothing, as in the RTL tops).
inline void wire_word(Bits& w, const Bits& data, unsigned from, unsigned lw, unsigned sb, std::uint64_t seq,
                      std::uint64_t crc, const Bits& flip_i, const Bits& flip_bit_i, unsigned fb, unsigned l) {
  w.copy(0, data, from, lw);
  w.set_slice(lw, sb, seq);
  w.set_slice(lw + sb, 16, crc);
  if (flip_i.bit(l)) {
    const auto b = static_cast<unsigned>(flip_bit_i.slice(l * fb, fb));
    if (b < lw + sb + 16) w.flip_bit(b);
  }
}

class Wire {
 public:
  /// What the receiver's end sends back.
  struct Back {
    bool ack = false, nack = false, credit = false;
    std::uint64_t ack_seq = 0, nack_seq = 0, credit_vc = 0;
    bool any() const { return ack || nack || credit; }
  };
  struct Flit {
    std::uint64_t due = 0, seq = 0, crc = 0;
    Bits data;  ///< {vc, flit}
  };
  /// latency: cycles (at least 1); rate: flits a cycle in (0, 1]; width: bits of a flit's data.
  Wire(unsigned latency, double rate, unsigned width) : lat_(latency < 1 ? 1 : latency), rate_(rate) {
    if (!(rate > 0 && rate <= 1)) throw std::invalid_argument("link::Wire: a wire's rate is in (0, 1] flits a cycle");
    cur_.data = Bits(width);
  }
  /// Cycle `now`: the sender's flit (valid) and the receiver's answers go on the wire.
  void put(std::uint64_t now, bool valid, std::uint64_t seq, std::uint64_t crc, const Bits& data, unsigned from,
           const Back& back) {
    put_flit(now, valid, seq, crc, data, from);
    put_back(now, back);
  }
  /// Cycle `now` begins: what reaches each end.
  void arrive(std::uint64_t now) {
    arrive_flit(now);
    arrive_back(now);
  }
  /// The two ends' halves of put() and arrive(): the sender's end puts flits and takes answers,
  /// the receiver's end takes flits and puts answers.
  void put_flit(std::uint64_t now, bool valid, std::uint64_t seq, std::uint64_t crc, const Bits& data, unsigned from) {
    if (!valid) return;
    const double start = std::max(free_, static_cast<double>(now));
    free_ = start + 1.0 / rate_;
    Flit f;
    f.due = static_cast<std::uint64_t>(start) + lat_;
    f.seq = seq;
    f.crc = crc;
    f.data = Bits(cur_.data.width());
    f.data.copy(0, data, from, cur_.data.width());
    (staged_ ? sfwd_ : fwd_).push_back(std::move(f));
  }
  void put_back(std::uint64_t now, const Back& back) {
    if (back.any()) (staged_ ? sback_ : back_).emplace_back(now + lat_, back);
  }
  void arrive_flit(std::uint64_t now) {
    valid_ = !fwd_.empty() && fwd_.front().due <= now;
    if (valid_) {
      if (fwd_.front().due < now) throw std::logic_error("link::Wire: a flit missed its cycle");
      cur_ = std::move(fwd_.front());
      fwd_.pop_front();
    }
  }
  void arrive_back(std::uint64_t now) {
    side_ = Back{};
    if (!back_.empty() && back_.front().first == now) {
      side_ = back_.front().second;
      back_.pop_front();
    }
  }
  /// Windows (system::ChipTorus::run_window): the ends run apart, each on its own thread, for
  /// fewer cycles than the latency, so nothing put within a window is due before the window's
  /// last arrival (its last edge's, at the next window's first cycle). While staged, what the
  /// ends put is held apart from what they take; flush(next) ends the window and hands it to the
  /// wire (it throws if any of it was due by cycle `next`, whose arrival has been).
  void stage() { staged_ = true; }
  void flush(std::uint64_t next) {
    staged_ = false;
    for (Flit& f : sfwd_) {
      if (f.due <= next) throw std::logic_error("link::Wire: a window as long as the wire's latency");
      fwd_.push_back(std::move(f));
    }
    for (auto& b : sback_) {
      if (b.first <= next) throw std::logic_error("link::Wire: a window as long as the wire's latency");
      back_.push_back(b);
    }
    sfwd_.clear();
    sback_.clear();
  }
  unsigned latency() const { return lat_; }
  /// At the receiver this cycle: a flit (valid) and which.
  bool valid() const { return valid_; }
  const Flit& flit() const { return cur_; }
  /// At the sender this cycle.
  const Back& back() const { return side_; }

 private:
  unsigned lat_;
  double rate_, free_ = 0;
  std::deque<Flit> fwd_;
  std::deque<std::pair<std::uint64_t, Back>> back_;
  bool staged_ = false;
  std::deque<Flit> sfwd_;  ///< put while staged
  std::deque<std::pair<std::uint64_t, Back>> sback_;
  bool valid_ = false;
  Flit cur_;
  Back side_;
};

}  // namespace trn::link
