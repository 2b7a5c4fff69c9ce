// trn::Bits — a bit vector of any width, the value type of wide ports (payload buses, packed
// arrays) shared by the model and the harness. Bits above the width are always zero.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace trn {

class Bits {
 public:
  Bits() = default;
  explicit Bits(unsigned width, std::uint64_t value = 0) : width_(width), n_(words_for(width)) {
    if (n_ > kInline) heap_ = new std::uint64_t[n_]();
    if (n_ != 0) data()[0] = value;
    trim();
  }
  Bits(const Bits& o) : width_(o.width_), n_(o.n_) {
    if (n_ > kInline) heap_ = new std::uint64_t[n_];
    copy_words(o);
  }
  Bits(Bits&& o) noexcept : width_(o.width_), n_(o.n_) {
    if (n_ > kInline) {
      heap_ = o.heap_;
      o.zero_inline();
      o.width_ = o.n_ = 0;
    } else {
      copy_words(o);
    }
  }
  Bits& operator=(const Bits& o) {
    if (this == &o) return *this;
    if (o.n_ != n_) {
      release();
      n_ = o.n_;
      if (n_ > kInline) heap_ = new std::uint64_t[n_];
    }
    width_ = o.width_;
    copy_words(o);
    return *this;
  }
  Bits& operator=(Bits&& o) noexcept {
    if (this == &o) return *this;
    if (o.n_ > kInline) {
      release();
      heap_ = o.heap_;
      o.zero_inline();
      width_ = o.width_;
      n_ = o.n_;
      o.width_ = o.n_ = 0;
      return *this;
    }
    return *this = static_cast<const Bits&>(o);
  }
  ~Bits() { release(); }

  static unsigned words_for(unsigned width) { return (width + 63) / 64; }
  /// width bits, every one set.
  static Bits ones(unsigned width) {
    Bits b(width);
    for (unsigned i = 0; i < b.n_; ++i) b.data()[i] = ~std::uint64_t{0};
    b.trim();
    return b;
  }
  /// Every bit of the width set.
  bool all() const { return *this == ones(width_); }

  unsigned width() const { return width_; }
  unsigned words() const { return n_; }
  std::uint64_t word(unsigned i) const { return i < n_ ? data()[i] : 0; }
  void set_word(unsigned i, std::uint64_t v) {
    if (i >= n_) throw std::out_of_range("Bits::set_word: word past the width");
    data()[i] = v;
    if (i + 1 == n_) trim();
  }
  /// The low 64 bits.
  std::uint64_t to_u64() const { return n_ == 0 ? 0 : data()[0]; }
  bool any() const {
    const std::uint64_t* d = data();
    return std::any_of(d, d + n_, [](std::uint64_t x) { return x != 0; });
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
    if (at % 64 == 0 && from % 64 == 0) {  // word-aligned: whole words move as they are
      const unsigned whole = n / 64, i0 = at / 64, j0 = from / 64;
      std::uint64_t* d = data();
      for (unsigned k = 0; k < whole && i0 + k < n_; ++k) d[i0 + k] = src.word(j0 + k);
      if (n % 64 != 0) set_slice(at + whole * 64, n % 64, src.word(j0 + whole));
      trim();
      return;
    }
    // else a word of src at a time, shifted into the two words it straddles
    std::uint64_t* d = data();
    const unsigned o = at % 64;
    const std::uint64_t low = (std::uint64_t{1} << o) - 1;  // (o != 0 here unless from is unaligned)
    unsigned i = at / 64, k = 0;
    for (; k + 64 <= n; k += 64, ++i) {
      const std::uint64_t v = src.slice(from + k, 64);
      if (o == 0) {
        if (i < n_) d[i] = v;
        continue;
      }
      if (i < n_) d[i] = (d[i] & low) | (v << o);
      if (i + 1 < n_) d[i + 1] = (d[i + 1] & ~low) | (v >> (64 - o));
    }
    if (k < n) set_slice(at + k, n - k, src.slice(from + k, n - k));
    trim();
  }
  /// copy(), and whether it changed any bit of this.
  bool update(unsigned at, const Bits& src, unsigned from, unsigned n) {
    bool changed = false;
    if (at % 64 == 0 && from % 64 == 0 && n % 64 == 0 && at + n <= width_) {  // whole words
      std::uint64_t* d = data() + at / 64;
      for (unsigned k = 0; k < n / 64; ++k) {
        const std::uint64_t v = src.word(from / 64 + k);
        changed |= d[k] != v;
        d[k] = v;
      }
      return changed;
    }
    for (unsigned k = 0; k < n && at + k < width_; k += 64) {  // (bits past the width are dropped)
      const unsigned c = std::min({64u, n - k, width_ - (at + k)});
      const std::uint64_t v = src.slice(from + k, c);
      if (slice(at + k, c) != v) {
        set_slice(at + k, c, v);
        changed = true;
      }
    }
    return changed;
  }
  bool bit(unsigned i) const { return (word(i / 64) >> (i % 64)) & 1; }
  void set_bit(unsigned i, bool v) {
    if (i >= width_) return;
    std::uint64_t m = std::uint64_t{1} << (i % 64);
    if (v)
      data()[i / 64] |= m;
    else
      data()[i / 64] &= ~m;
  }
  void flip_bit(unsigned i) { set_bit(i, !bit(i)); }
  /// Every bit zero, the width kept.
  void clear() { std::fill(data(), data() + n_, std::uint64_t{0}); }

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

  friend bool operator==(const Bits& a, const Bits& b) {
    if (a.width_ != b.width_) return false;
    if (a.n_ > kInline) return std::equal(a.heap_, a.heap_ + a.n_, b.heap_);
    for (unsigned i = 0; i < a.n_ && i < kInline; ++i)
      if (a.in_[i] != b.in_[i]) return false;
    return true;
  }

 private:
  /// Vectors of up to kInline words live in the object itself (no allocation: flits, lanes,
  /// descriptors); wider ones on the heap.
  static constexpr unsigned kInline = 2;
  std::uint64_t* data() { return n_ > kInline ? heap_ : in_; }
  const std::uint64_t* data() const { return n_ > kInline ? heap_ : in_; }
  void release() {
    if (n_ > kInline) {
      delete[] heap_;
      zero_inline();
    }
  }
  /// The inline words all zero (after the heap pointer that shared their storage is gone).
  void zero_inline() { std::fill(in_, in_ + kInline, std::uint64_t{0}); }
  /// The words of o, of the same word count.
  void copy_words(const Bits& o) {
    if (n_ > kInline)
      std::copy(o.heap_, o.heap_ + n_, heap_);
    else
      for (unsigned i = 0; i < kInline; ++i) in_[i] = o.in_[i];  // words past n_ are zero or never read
  }
  void put(unsigned i, std::uint64_t mask, std::uint64_t v) {
    if (i < n_) data()[i] = (data()[i] & ~mask) | (v & mask);
  }
  void trim() {
    if (width_ % 64 != 0 && n_ != 0) data()[n_ - 1] &= (std::uint64_t{1} << (width_ % 64)) - 1;
  }
  unsigned width_ = 0, n_ = 0;
  union {
    std::uint64_t in_[kInline] = {};
    std::uint64_t* heap_;
  };
};

}  // namespace trn

template <>
struct fmt::formatter<trn::Bits> : fmt::formatter<std::string> {
  auto format(const trn::Bits& b, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format("0x" + b.hex(), ctx);
  }
};
