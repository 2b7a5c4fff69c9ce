// trn::tb::Signal — a handle on one port of a Verilated top (or of any C++ model that keeps its
// ports in plain integers), and Field, a bit range of one.
//
// Storage follows Verilator: width <= 8 in uint8_t, <= 16 uint16_t, <= 32 uint32_t, <= 64
// uint64_t, wider in 32-bit words, least significant first. Writes take effect at the next
// evaluation of the model; writing in the ReadOnly phase is an error, as in cocotb.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/bits.hpp"
#include "harness/errors.hpp"

namespace trn::tb {

enum class Dir { In, Out };

class Signal {
 public:
  Signal() = default;
  Signal(std::string name, Dir dir, unsigned width, void* storage)
      : name_(std::move(name)), dir_(dir), width_(width), p_(storage) {
    if (width_ == 0 || storage == nullptr) throw HarnessError("Signal " + name_ + ": no storage or zero width");
  }

  const std::string& name() const { return name_; }
  Dir dir() const { return dir_; }
  unsigned width() const { return width_; }
  bool wide() const { return width_ > 64; }

  /// The low 64 bits.
  std::uint64_t get() const {
    if (width_ <= 8) return *static_cast<const std::uint8_t*>(p_);
    if (width_ <= 16) return *static_cast<const std::uint16_t*>(p_);
    if (width_ <= 32) return *static_cast<const std::uint32_t*>(p_);
    if (width_ <= 64) return *static_cast<const std::uint64_t*>(p_);
    const auto* w = static_cast<const std::uint32_t*>(p_);
    return std::uint64_t{w[0]} | (std::uint64_t{w[1]} << 32);
  }
  void get(Bits& out) const {
    if (out.width() != width_) out = Bits(width_);
    if (!wide()) {
      out.set_word(0, get());
      return;
    }
    const auto* w = static_cast<const std::uint32_t*>(p_);
    const unsigned n32 = (width_ + 31) / 32;
    for (unsigned i = 0; i < out.words(); ++i) {
      std::uint64_t lo = w[2 * i], hi = (2 * i + 1 < n32) ? w[2 * i + 1] : 0;
      out.set_word(i, lo | (hi << 32));
    }
  }
  Bits bits() const {
    Bits b(width_);
    get(b);
    return b;
  }
  /// Does the port hold `b` (of the port's width)? Reads the storage in place.
  bool equals(const Bits& b) const {
    if (b.width() != width_) return false;
    if (!wide()) return get() == b.to_u64();
    const auto* w = static_cast<const std::uint32_t*>(p_);
    const unsigned n32 = (width_ + 31) / 32;
    for (unsigned i = 0; i < n32; ++i)
      if (w[i] != static_cast<std::uint32_t>(b.word(i / 2) >> (i % 2 ? 32 : 0))) return false;
    return true;
  }
  /// n bits (n <= 64) from bit lsb, read from the storage directly.
  std::uint64_t get_slice(unsigned lsb, unsigned n) const {
    if (!wide()) {
      const std::uint64_t v = get() >> lsb;
      return n >= 64 ? v : v & ((std::uint64_t{1} << n) - 1);
    }
    const auto* w = static_cast<const std::uint32_t*>(p_);
    const unsigned n32 = (width_ + 31) / 32, i = lsb / 32, off = lsb % 32;
    auto word = [&](unsigned k) { return k < n32 ? std::uint64_t{w[k]} : std::uint64_t{0}; };
    std::uint64_t v = (word(i) | (word(i + 1) << 32)) >> off;
    if (off != 0) v |= word(i + 2) << (64 - off);
    return n >= 64 ? v : v & ((std::uint64_t{1} << n) - 1);
  }

  void set(std::uint64_t v) {
    check_write();
    if (width_ < 64) v &= (std::uint64_t{1} << width_) - 1;
    if (width_ <= 8)
      *static_cast<std::uint8_t*>(p_) = static_cast<std::uint8_t>(v);
    else if (width_ <= 16)
      *static_cast<std::uint16_t*>(p_) = static_cast<std::uint16_t>(v);
    else if (width_ <= 32)
      *static_cast<std::uint32_t*>(p_) = static_cast<std::uint32_t>(v);
    else if (width_ <= 64)
      *static_cast<std::uint64_t*>(p_) = v;
    else {
      Bits b(width_, v);
      set(b);
    }
  }
  void set(const Bits& v) {
    check_write();
    if (!wide()) {
      set(v.to_u64());
      return;
    }
    auto* w = static_cast<std::uint32_t*>(p_);
    const unsigned n32 = (width_ + 31) / 32;
    for (unsigned i = 0; i < n32; ++i) {
      std::uint64_t word = v.word(i / 2);
      w[i] = static_cast<std::uint32_t>(i % 2 ? word >> 32 : word);
    }
    if (width_ % 32) w[n32 - 1] &= (std::uint32_t{1} << (width_ % 32)) - 1;
  }

  /// The storage itself and its size in bytes (a replay copies a port's raw value in and out).
  void* storage() const { return p_; }
  unsigned bytes() const {
    return width_ <= 8 ? 1 : width_ <= 16 ? 2 : width_ <= 32 ? 4 : width_ <= 64 ? 8 : 4 * ((width_ + 31) / 32);
  }

  /// Set by the scheduler while it is in the ReadOnly phase.
  static inline bool readonly_phase = false;
  /// Set by every write, cleared by the scheduler when it evaluates the DUT: with no input
  /// written since the last evaluation, another one cannot change any signal and is skipped.
  static inline bool written = true;

 private:
  void check_write() const {
    if (readonly_phase) throw HarnessError("write to " + name_ + " in the ReadOnly phase");
    written = true;
  }
  std::string name_;
  Dir dir_ = Dir::In;
  unsigned width_ = 0;
  void* p_ = nullptr;
};

/// A bit range [lsb, lsb + width) of a signal, such as one requester's lane of a packed bus.
class Field {
 public:
  Field() = default;
  Field(Signal* s) : s_(s), lsb_(0), width_(s->width()) {}  // NOLINT: whole signal
  Field(Signal* s, unsigned lsb, unsigned width) : s_(s), lsb_(lsb), width_(width) {
    if (lsb + width > s->width()) throw HarnessError("field past the end of " + s->name());
  }
  unsigned width() const { return width_; }
  unsigned lsb() const { return lsb_; }
  const Signal& signal() const { return *s_; }
  bool whole() const { return lsb_ == 0 && width_ == s_->width(); }

  /// The low 64 bits.
  std::uint64_t get() const { return s_->get_slice(lsb_, std::min(width_, 64u)); }
  void get(Bits& out) const {
    if (whole()) return s_->get(out);
    if (out.width() != width_) out = Bits(width_);
    for (unsigned k = 0; k < width_; k += 64)
      out.set_slice(k, std::min(64u, width_ - k), s_->get_slice(lsb_ + k, std::min(64u, width_ - k)));
  }
  /// Does the field hold `b` (of the field's width)? Reads the storage in place.
  bool equals(const Bits& b) const {
    if (b.width() != width_) return false;
    if (whole()) return s_->equals(b);
    for (unsigned k = 0; k < width_; k += 64) {
      const unsigned c = std::min(64u, width_ - k);
      if (s_->get_slice(lsb_ + k, c) != b.slice(k, c)) return false;
    }
    return true;
  }
  Bits bits() const {
    if (whole()) return s_->bits();
    Bits b(width_);
    get(b);
    return b;
  }
  void set(std::uint64_t v) {
    if (whole()) {
      s_->set(v);
      return;
    }
    Bits all = s_->bits();
    all.set_slice(lsb_, width_, v);
    s_->set(all);
  }
  void set(const Bits& v) {
    if (whole()) {
      s_->set(v);
      return;
    }
    Bits all = s_->bits();
    for (unsigned i = 0; i < width_; ++i) all.set_bit(lsb_ + i, v.bit(i));
    s_->set(all);
  }

 private:
  Signal* s_ = nullptr;
  unsigned lsb_ = 0, width_ = 0;
};

}  // namespace trn::tb
