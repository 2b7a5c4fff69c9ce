#include "gpsimd/random_program.hpp"

#include <array>
#include <stdexcept>

#include "gpsimd/encode.hpp"

namespace trn::gpsimd {

namespace {

// registers the generator keeps for itself: the loop counter, jalr's base, an address register,
// the two data pointers
constexpr unsigned kCount = 5, kBase = 6, kAddr = 7, kP0 = 8, kP1 = 9;
bool reserved(unsigned r) { return r == kCount || r == kBase || r == kAddr || r == kP0 || r == kP1; }

struct Gen {
  std::mt19937_64& rng;
  std::uint32_t mem, data_lo, data_hi;
  std::vector<std::uint32_t> w;
  std::vector<std::uint32_t> pads;  ///< far landing pads, from the top of the code region down

  unsigned below(unsigned n) { return static_cast<unsigned>(rng() % n); }
  bool chance(unsigned pct) { return below(100) < pct; }
  /// A destination: any register but the reserved ones (x0 now and then).
  unsigned dst() {
    if (chance(4)) return 0;
    for (;;)
      if (const unsigned r = 1 + below(31); !reserved(r)) return r;
  }
  unsigned src() { return below(32); }
  std::uint32_t value() {
    static constexpr std::array<std::uint32_t, 10> edge{0,          1,          0xFFFFFFFF, 0x80000000, 0x7FFFFFFF,
                                                        0x80000001, 0xFFFFFFFE, 0x000000FF, 0x00008000, 31};
    switch (below(4)) {
      case 0:
        return edge[below(edge.size())];
      case 1:
        return static_cast<std::uint32_t>(static_cast<std::int32_t>(below(64)) - 32);
      default:
        return static_cast<std::uint32_t>(rng());
    }
  }
  std::int32_t imm12() {
    static constexpr std::array<std::int32_t, 6> edge{0, 1, -1, 2047, -2048, 31};
    return chance(30) ? edge[below(edge.size())] : static_cast<std::int32_t>(below(4096)) - 2048;
  }
  void li(unsigned rd, std::uint32_t v) {
    const enc::Li p = enc::li(rd, v);
    w.push_back(p.hi);
    w.push_back(p.lo);
  }
  /// One instruction that neither branches nor writes a reserved register.
  void plain() {
    const unsigned k = below(100);
    if (k < 30) {  // OP: base and M
      static constexpr std::array<std::pair<unsigned, unsigned>, 18> ops{{{0, 0},
                                                                          {0, 0x20},
                                                                          {1, 0},
                                                                          {2, 0},
                                                                          {3, 0},
                                                                          {4, 0},
                                                                          {5, 0},
                                                                          {5, 0x20},
                                                                          {6, 0},
                                                                          {7, 0},
                                                                          {0, 1},
                                                                          {1, 1},
                                                                          {2, 1},
                                                                          {3, 1},
                                                                          {4, 1},
                                                                          {5, 1},
                                                                          {6, 1},
                                                                          {7, 1}}};
      const auto [f3, f7] = ops[below(ops.size())];
      w.push_back(enc::r_type(enc::kOp, f3, f7, dst(), src(), src()));
    } else if (k < 55) {  // OP-IMM
      const unsigned f3 = below(8);
      if (f3 == 1 || f3 == 5)
        w.push_back(enc::i_type(enc::kOpImm, f3, dst(), src(),
                                static_cast<std::int32_t>(below(32) | (f3 == 5 && chance(50) ? 0x400 : 0))));
      else
        w.push_back(enc::i_type(enc::kOpImm, f3, dst(), src(), imm12()));
    } else if (k < 62) {
      w.push_back(chance(50) ? enc::lui(dst(), value() >> 12) : enc::auipc(dst(), value() >> 12));
    } else if (k < 80) {  // a load of 1, 2 or 4 bytes, aligned
      static constexpr std::array<unsigned, 5> f3s{0, 1, 2, 4, 5};
      const unsigned f3 = f3s[below(f3s.size())], n = 1u << (f3 & 3);
      const auto [base, imm] = address(n);
      w.push_back(enc::i_type(enc::kLoad, f3, dst(), base, imm));
    } else if (k < 97) {
      const unsigned f3 = below(3), n = 1u << f3;
      const auto [base, imm] = address(n);
      w.push_back(enc::s_type(f3, base, src(), imm));
    } else {
      w.push_back(enc::i_type(0x0F, 0, 0, 0, chance(50) ? 0x0FF : 0));  // fence
    }
  }
  /// How far an offset reaches from a pointer: both pointers are 4-aligned and at least this far
  /// inside the data region.
  std::uint32_t reach() const { return std::min<std::uint32_t>((data_hi - data_lo) / 4, 2044); }
  /// An offset from either pointer in (-reach, reach), a multiple of n.
  std::int32_t offset(unsigned n) {
    const auto r = static_cast<std::int32_t>(reach());
    return (static_cast<std::int32_t>(below(2 * static_cast<unsigned>(r))) - r) / static_cast<std::int32_t>(n) *
           static_cast<std::int32_t>(n);
  }
  /// A base register and an immediate for an access of n bytes inside the data region: mostly
  /// a data pointer and a near offset; else x7 set (lui, addi) so that any 12-bit immediate reaches
  /// a random aligned address.
  std::pair<unsigned, std::int32_t> address(unsigned n) {
    if (chance(70)) return {chance(50) ? kP0 : kP1, offset(n)};
    const std::uint32_t target = data_lo + below((data_hi - data_lo) / n) * n;
    const std::int32_t imm = static_cast<std::int32_t>(below(4096)) - 2048;
    li(kAddr, target - static_cast<std::uint32_t>(imm));
    return {kAddr, imm};
  }
  /// `n` placeholder words, then 0 .. 3 plain instructions; returns the first placeholder's index
  /// (the caller writes the jump over them, to w.size()).
  std::size_t skip_over(unsigned n) {
    const std::size_t at = w.size();
    w.resize(at + n, 0);
    for (unsigned i = below(4); i > 0; --i) plain();
    return at;
  }
  void block() {
    const unsigned k = below(100);
    if (k < 70) {
      plain();
    } else if (k < 82) {  // a forward branch over 0 .. 3 plain instructions (taken or not)
      static constexpr std::array<unsigned, 6> f3s{0, 1, 4, 5, 6, 7};
      const unsigned f3 = f3s[below(f3s.size())], a = src(), b = src();
      const std::size_t at = skip_over(1);
      w[at] = enc::b_type(f3, a, b, static_cast<std::int32_t>(4 * (w.size() - at)));
    } else if (k < 88) {  // jal over 0 .. 3
      const unsigned rd = dst();
      const std::size_t at = skip_over(1);
      w[at] = enc::jal(rd, static_cast<std::int32_t>(4 * (w.size() - at)));
    } else if (k < 93) {  // auipc, then jalr over 0 .. 3 (an odd offset now and then: jalr clears bit 0)
      const unsigned rd = dst(), odd = below(2);
      const std::size_t at = skip_over(2);
      w[at] = enc::auipc(kBase, 0);
      w[at + 1] = enc::jalr(rd, kBase, static_cast<std::int32_t>(4 * (w.size() - at) + odd));
    } else if (k < 96) {  // far away and back: a jump or taken branch to a pad at the top, which jumps back
      const auto here = static_cast<std::int32_t>(4 * w.size());
      const auto pad = static_cast<std::int32_t>(data_lo - 4 * (pads.size() + 1));
      if (chance(50) && pad - here < 4096)
        w.push_back(enc::b_type(chance(50) ? 0 : 7, 0, 0, pad - here));  // beq / bgeu x0, x0: taken
      else
        w.push_back(enc::jal(dst(), pad - here));
      pads.push_back(enc::jal(dst(), here + 4 - pad));
    } else {  // a loop of 1 .. 4 passes over 1 .. 6 instructions
      w.push_back(enc::addi(kCount, 0, static_cast<std::int32_t>(1 + below(4))));
      const std::size_t top = w.size();
      const unsigned body = 1 + below(6);
      for (unsigned i = 0; i < body; ++i) plain();
      w.push_back(enc::addi(kCount, kCount, -1));
      w.push_back(enc::bne(kCount, 0, -4 * static_cast<std::int32_t>(w.size() - top)));
    }
  }
};

}  // namespace

RandomProgram random_program(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned blocks) {
  if (mem_bytes < 1024) throw std::invalid_argument("random_program: local memory under 1 KiB");
  Gen g{rng, mem_bytes, mem_bytes / 2, mem_bytes, {}, {}};
  // every free register a value; the pointers inside the middle half of the data region
  for (unsigned r = 1; r < 32; ++r)
    if (!reserved(r)) g.li(r, g.value());
  const std::uint32_t reach = g.reach(), room = (g.data_hi - g.data_lo - 2 * reach) / 4;
  g.li(kP0, g.data_lo + reach + 4 * g.below(room));
  g.li(kP1, g.data_lo + reach + 4 * g.below(room));
  // words of code: a block takes at most 22 (a loop of six accesses through x7), the pads one each
  const std::size_t words = g.data_lo / 4;
  for (unsigned i = 0; i < blocks && g.w.size() + g.pads.size() + 24 < words; ++i) g.block();
  g.w.push_back(enc::op_end());
  RandomProgram p;
  p.words.assign(words, 0);  // between the code and the pads: word 0, illegal, never reached
  std::copy(g.w.begin(), g.w.end(), p.words.begin());
  for (std::size_t i = 0; i < g.pads.size(); ++i) p.words[words - 1 - i] = g.pads[i];
  p.data_lo = g.data_lo, p.data_hi = g.data_hi;
  p.data.resize(g.data_hi - g.data_lo);
  for (auto& b : p.data) b = static_cast<std::uint8_t>(rng());
  return p;
}

std::vector<std::uint32_t> mul_div_corners() {
  static constexpr std::array<std::uint32_t, 6> v{0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFF9};
  std::vector<std::uint32_t> w;
  for (unsigned i = 0; i < v.size(); ++i) {  // x1 .. x6
    const enc::Li p = enc::li(1 + i, v[i]);
    w.push_back(p.hi);
    w.push_back(p.lo);
  }
  for (unsigned a = 1; a <= v.size(); ++a)
    for (unsigned b = 1; b <= v.size(); ++b)
      for (unsigned f3 = 0; f3 < 8; ++f3) w.push_back(enc::r_type(enc::kOp, f3, 1, 10 + f3, a, b));
  w.push_back(enc::op_end());
  return w;
}

}  // namespace trn::gpsimd
