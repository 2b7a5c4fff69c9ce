// trn::Bits — a bit vector of any width, the value type of wide ports (payload buses, packed
// arrays) shared by the model and the harness. Bits above the width are always zero.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace trn {

class Bits {
 public:
  Bits() = default;
  explicit Bits(unsigned width, std::uint64_t value = 0) : width_(width), w_(words_for(width), 0) {
    if (!w_.empty()) w_[0] = value;
    trim();
  }

  static unsigned words_for(unsigned width) { return (width + 63) / 64; }

  unsigned width() const { return width_; }
  unsigned words() const { return static_cast<unsigned>(w_.size()); }
  std::uint64_t word(unsigned i) const { return i < w_.size() ? w_[i] : 0; }
  void set_word(unsigned i, std::uint64_t v) {
    w_.at(i) = v;
    if (i + 1 == w_.size()) trim();
  }
  /// The low 64 bits.
  std::uint64_t to_u64() const { return w_.empty() ? 0 : w_[0]; }
  bool any() const {
    return std::any_of(w_.begin(), w_.end(), [](std::uint64_t x) { return x != 0; });
  }

  /// n bits (n <= 64) starting at bit lsb.
  std::uint64_t slice(unsigned lsb, unsigned n) const {
    if (n == 0) return 0;
    unsigned i = lsb / 64, off = lsb % 64;
    std::uint64_t v = word(i) >> off;
    if (off != 0 && off + n > 64) v |= word(i + 1) << (64 - off);
    return n >= 64 ? v : v & ((std::uint64_t{1} << n) - 1);
  }
  /// Set n bits (n <= 64) from bit lsb to the low bits of v; bits at or above the width are dropped.
  void set_slice(unsigned lsb, unsigned n, std::uint64_t v) {
    if (n == 0) return;
    const std::uint64_t m = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    v &= m;
    const unsigned i = lsb / 64, off = lsb % 64;
    put(i, m << off, v << off);
    if (off != 0 && off + n > 64) put(i + 1, m >> (64 - off), v >> (64 - off));
    trim();
  }
  /// Copy n bits of src from bit `from` to this from bit `at`.
  void copy(unsigned at, const Bits& src, unsigned from, unsigned n) {
    for (unsigned k = 0; k < n; k += 64) {
      const unsigned c = std::min(64u, n - k);
      set_slice(at + k, c, src.slice(from + k, c));
    }
  }
  bool bit(unsigned i) const { return (word(i / 64) >> (i % 64)) & 1; }
  void set_bit(unsigned i, bool v) {
    if (i >= width_) return;
    std::uint64_t m = std::uint64_t{1} << (i % 64);
    if (v)
      w_[i / 64] |= m;
    else
      w_[i / 64] &= ~m;
  }
  void flip_bit(unsigned i) { set_bit(i, !bit(i)); }

  /// Hex digits, most significant first, as many as the width needs ("0x" not included).
  std::string hex() const {
    unsigned digits = std::max(1u, (width_ + 3) / 4);
    std::string s(digits, '0');
    for (unsigned d = 0; d < digits; ++d) {
      unsigned v = static_cast<unsigned>(slice(d * 4, 4));
      s[digits - 1 - d] = "0123456789abcdef"[v];
    }
    return s;
  }

  friend bool operator==(const Bits& a, const Bits& b) { return a.width_ == b.width_ && a.w_ == b.w_; }

 private:
  void put(unsigned i, std::uint64_t mask, std::uint64_t v) {
    if (i < w_.size()) w_[i] = (w_[i] & ~mask) | (v & mask);
  }
  void trim() {
    if (width_ % 64 != 0 && !w_.empty()) w_.back() &= (std::uint64_t{1} << (width_ % 64)) - 1;
  }
  unsigned width_ = 0;
  std::vector<std::uint64_t> w_;
};

}  // namespace trn

template <>
struct fmt::formatter<trn::Bits> : fmt::formatter<std::string> {
  auto format(const trn::Bits& b, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format("0x" + b.hex(), ctx);
  }
};
