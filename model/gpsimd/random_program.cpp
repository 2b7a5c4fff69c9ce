#include "gpsimd/random_program.hpp"

#include <array>
#include <stdexcept>

#include "gpsimd/encode.hpp"

namespace trn::gpsimd {

namespace {

// registers the generator keeps for itself: the loop counter, jalr's base (and a vector stride),
// an address register, the two data pointers, a vector length or slide offset
constexpr unsigned kCount = 5, kBase = 6, kAddr = 7, kP0 = 8, kP1 = 9, kAvl = 31;
bool reserved(unsigned r) { return r == kCount || r == kBase || r == kAddr || r == kP0 || r == kP1 || r == kAvl; }

struct Gen {
  std::mt19937_64& rng;
  std::uint32_t mem, data_lo, data_hi;
  std::vector<std::uint32_t> w;
  std::vector<std::uint32_t> pads;  ///< far landing pads, from the top of the code region down
  unsigned vlen = 0;                ///< vector blocks too when not 0
  unsigned vsew = 0, vlmul = 0;     ///< the vtype the program has set

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
  // ---- vector blocks (vlen != 0): legal instructions of the subset at the current vtype
  unsigned sew() const { return 8u << vsew; }
  unsigned vlmax() const { return (vlen << vlmul) / sew(); }
  /// A register group at the current LMUL (an even register at LMUL 2); not v0 when `no_v0`.
  unsigned vreg(bool no_v0 = false) {
    for (;;) {
      const unsigned r = below(32) & (vlmul ? ~1u : ~0u);
      if (!(no_v0 && r == 0)) return r;
    }
  }
  void vset() {
    vsew = below(3), vlmul = below(2);
    const std::uint32_t vt = enc::vtype(vsew, vlmul, chance(50), chance(50));
    switch (below(3)) {
      case 0:
        w.push_back(enc::vsetivli(dst(), chance(20) ? 0 : below(32), vt));
        break;
      case 1:
        w.push_back(enc::vsetvli(dst(), 0, vt));
        break;  // vl = VLMAX (rd x0: kept)
      default:
        li(kAvl, below(2 * vlmax() + 2));
        w.push_back(enc::vsetvli(dst(), kAvl, vt));
        break;
    }
  }
  void vblock() {
    const unsigned k = below(100);
    const bool vm = chance(70);  // unmasked
    const unsigned n = sew() / 8, width = vsew == 0 ? 0 : vsew == 1 ? 5 : 6;
    if (k < 8) {
      vset();
    } else if (k < 24) {  // a load or store, unit-stride or strided, inside the data region
      const bool strided = chance(40), store = chance(45);
      const std::int32_t stride =
          strided ? static_cast<std::int32_t>(n * below(9)) - static_cast<std::int32_t>(4 * n) : 0;
      const std::uint32_t span = (strided ? static_cast<std::uint32_t>(std::abs(stride)) : n) * vlmax();
      const std::uint32_t lo = data_lo + (stride < 0 ? span : 0), hi = data_hi - (stride < 0 ? n : span);
      li(kAddr, (lo + below((hi - lo) / n)) / n * n);
      if (strided) li(kBase, static_cast<std::uint32_t>(stride));
      w.push_back(enc::vmem(store, width, store ? vreg() : vreg(!vm), kAddr, vm, strided ? 2 : 0, strided ? kBase : 0));
    } else if (k < 50) {  // element-wise (integer, or FP at SEW 32)
      static constexpr std::array<unsigned, 12> iv{0x00, 0x02, 0x04, 0x05, 0x06, 0x07,
                                                   0x09, 0x0A, 0x0B, 0x25, 0x28, 0x29};
      static constexpr std::array<unsigned, 6> fv{0x00, 0x02, 0x04, 0x06, 0x24, 0x2C};
      if (sew() == 32 && chance(40)) {
        w.push_back(enc::opv(fv[below(fv.size())], vm, vreg(), vreg(), 1, vreg(!vm)));
      } else if (chance(15)) {
        const bool vv = chance(50);  // vmul.vv or vmul.vx
        w.push_back(enc::opv(0x25, vm, vreg(), vv ? vreg() : src(), vv ? 2 : 6, vreg(!vm)));
      } else {
        const unsigned f6 = iv[below(iv.size())];
        const bool imm_ok = f6 == 0x00 || f6 == 0x09 || f6 == 0x0A || f6 == 0x0B || f6 >= 0x25;
        const unsigned form = imm_ok ? below(3) : below(2);  // vv, vx, vi
        const unsigned f3 = form == 0 ? 0 : form == 1 ? 4 : 3;
        w.push_back(enc::opv(f6, vm, vreg(), form == 0 ? vreg() : form == 1 ? src() : below(32), f3, vreg(!vm)));
      }
    } else if (k < 62) {  // a compare into a mask register (v0 often)
      static constexpr std::array<std::pair<unsigned, unsigned>, 7> cm{
          {{0x18, 0}, {0x19, 0}, {0x1A, 0}, {0x1B, 0}, {0x18, 1}, {0x19, 1}, {0x1B, 1}}};
      auto [f6, fp] = cm[below(cm.size())];
      if (fp && sew() != 32) fp = 0;
      const unsigned a = vreg(), b = vreg();
      unsigned d = chance(50) ? 0 : below(32);
      if (vlmul && (d == a + 1 || d == b + 1)) d = a;  // not a group's second register
      const unsigned f3 = fp ? 1 : chance(60) ? 0 : 4;
      w.push_back(enc::opv(f6, vm, a, f3 == 4 ? src() : b, f3, d));
    } else if (k < 70) {  // vmerge (masked) or vmv.v.*
      const unsigned form = below(3), f3 = form == 0 ? 0 : form == 1 ? 4 : 3;
      const unsigned s1 = form == 0 ? vreg() : form == 1 ? src() : below(32);
      if (chance(50))
        w.push_back(enc::opv(0x17, false, vreg(), s1, f3, vreg(true)));
      else
        w.push_back(enc::opv(0x17, true, 0, s1, f3, vreg()));
    } else if (k < 78) {  // a slide by x31 or an immediate
      const bool up = chance(50), imm = chance(50);
      if (!imm) li(kAvl, below(vlmax() + 2));
      unsigned d = vreg(!vm), s2 = vreg();
      while (up && (d == s2)) d = vreg(!vm), s2 = vreg();
      w.push_back(enc::opv(up ? 0x0E : 0x0F, vm, s2, imm ? below(32) : kAvl, imm ? 3 : 4, d));
    } else if (k < 83) {  // vrgather.vv through an index vector of small values
      unsigned d = vreg(!vm), s2 = vreg(), ix = vreg();
      while (d == s2 || d == ix) d = vreg(!vm), s2 = vreg(), ix = vreg();
      // indices 0 .. 15 (vand.vi), now and then one past VLMAX or VLMAX itself (vmv.s.x)
      w.push_back(enc::opv(0x09, true, ix, 15, 3, ix));
      if (chance(40)) {
        li(kAvl, vlmax() + below(2));
        w.push_back(enc::opv(0x10, true, 0, kAvl, 6, ix));
      }
      w.push_back(enc::opv(0x0C, vm, s2, ix, 0, d));
    } else if (k < 91) {  // a reduction
      const unsigned r = below(3);
      if (r == 2 && sew() != 32) return;
      w.push_back(enc::opv(r == 0 ? 0x00 : r == 1 ? 0x07 : 0x03, vm, vreg(), below(32), r == 2 ? 1 : 2, below(32)));
    } else if (k < 96) {  // vmv.x.s
      w.push_back(enc::opv(0x10, true, below(32), 0, 2, dst()));
    } else {  // vmv.s.x
      w.push_back(enc::opv(0x10, true, 0, src(), 6, below(32)));
    }
  }

  void block() {
    if (vlen && chance(45)) return vblock();
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

RandomProgram random_program(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned blocks, unsigned vlen) {
  if (mem_bytes < 1024) throw std::invalid_argument("random_program: local memory under 1 KiB");
  Gen g{rng, mem_bytes, mem_bytes / 2, mem_bytes, {}, {}, vlen, 0, 0};
  // every free register a value; the pointers inside the middle half of the data region
  for (unsigned r = 1; r < 32; ++r)
    if (!reserved(r)) g.li(r, g.value());
  const std::uint32_t reach = g.reach(), room = (g.data_hi - g.data_lo - 2 * reach) / 4;
  g.li(kP0, g.data_lo + reach + 4 * g.below(room));
  g.li(kP1, g.data_lo + reach + 4 * g.below(room));
  if (vlen) {  // the vector registers from the data region, at SEW 32 and LMUL 2 (v0 .. v31)
    g.vsew = 2, g.vlmul = 1;
    g.w.push_back(enc::vsetvli(kAvl, 0, enc::vtype(2, 1)));  // vl = VLMAX
    for (unsigned r = 0; r < 32; r += 2) {
      g.li(kAddr, g.data_lo + 4 * g.below((g.data_hi - g.data_lo) / 4 - 2 * vlen / 32));
      g.w.push_back(enc::vmem(false, 6, r, kAddr, true));
    }
    g.vset();
  }
  // words of code: a block takes at most 22 (a loop of six accesses through x7), the pads one each
  const std::size_t words = g.data_lo / 4;
  for (unsigned i = 0; i < blocks && g.w.size() + g.pads.size() + 24 < words; ++i) g.block();
  g.w.push_back(enc::op_end());
  RandomProgram p;
  p.words.assign(words, 0);  // between the code and the pads: word 0, illegal, never reached
  std::copy(g.w.begin(), g.w.end(), p.words.begin());
  for (std::size_t i = 0; i < g.pads.size(); ++i) p.words[words - 1 - i] = g.pads[i];
  p.data_lo = g.data_lo, p.data_hi = g.data_hi;
  // the data: random words, FP32 values with every class (zeros of both signs, subnormals,
  // infinities, NaNs, equal values), and small integers (equal elements, small shift amounts)
  static constexpr std::array<std::uint32_t, 14> fp{0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x7F800000,
                                                    0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x3F800000,
                                                    0xBF800000, 0x7F7FFFFF, 0x00800000, 0xC0490FDB};
  p.data.resize(g.data_hi - g.data_lo);
  for (std::size_t i = 0; i + 4 <= p.data.size(); i += 4) {
    const unsigned k = g.below(10);
    const std::uint32_t v = k < 6   ? static_cast<std::uint32_t>(rng())
                            : k < 8 ? fp[g.below(fp.size())]
                                    : g.below(4) * 0x01010101u;  // small in every element width
    for (unsigned b = 0; b < 4; ++b) p.data[i + b] = static_cast<std::uint8_t>(v >> 8 * b);
  }
  return p;
}

RandomProgram random_vector_word(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned vlen, unsigned k) {
  Gen g{rng, mem_bytes, mem_bytes / 2, mem_bytes, {}, {}, vlen, 0, 0};
  // v0 .. v31 from the data region (SEW 32, LMUL 2), then the scalar registers
  g.w.push_back(enc::vsetvli(kAvl, 0, enc::vtype(2, 1)));
  for (unsigned r = 0; r < 32; r += 2) {
    g.li(kAddr, g.data_lo + 4 * g.below((g.data_hi - g.data_lo) / 4 - 2 * vlen / 32));
    g.w.push_back(enc::vmem(false, 6, r, kAddr, true));
  }
  for (unsigned r = 1; r < 32; ++r) {
    std::uint32_t v = 0;
    switch (g.below(4)) {
      case 0:
        v = g.data_lo + g.below((g.data_hi - g.data_lo) * 3 / 4);
        break;  // an address, any alignment
      case 1:
        v = g.below(2) ? g.below(8) : static_cast<std::uint32_t>(-static_cast<std::int32_t>(g.below(8)));
        break;  // a small stride, offset or length
      case 2:
        v = mem_bytes - g.below(64);
        break;  // near the end of local memory
      default:
        v = static_cast<std::uint32_t>(rng());
        break;
    }
    g.li(r, v);
  }
  // the vtype: supported (SEW 8, 16, 32, LMUL 1, 2), or now and then any 11 bits
  const std::uint32_t vt = g.chance(90) ? enc::vtype(g.below(3), g.below(2), g.chance(50), g.chance(50))
                                        : static_cast<std::uint32_t>(rng()) & 0x7FF;
  // (rd records the vl it sets, so an unsupported vtype shows at once)
  g.w.push_back(g.chance(50) ? enc::vsetvli(g.dst(), 1 + g.below(31), vt) : enc::vsetivli(g.dst(), g.below(32), vt));
  std::uint32_t w = static_cast<std::uint32_t>(rng()) & ~0x7Fu;
  if (k < 1536) {
    w = (w & ~(0x3Fu << 26) & ~(7u << 12)) | (k / 8 % 64) << 26 | (k % 8) << 12 | enc::kOpV;
  } else if (k < 2048) {
    static constexpr std::array<unsigned, 4> widths{0, 5, 6, 7};
    w = (w & ~(7u << 12) & ~(0xFu << 28)) | widths[g.below(4)] << 12 | (g.chance(80) ? 0 : g.below(16)) << 28 |
        (k % 2 ? enc::kVStore : enc::kVLoad);
    if (g.chance(60)) w &= ~(31u << 20);  // lumop 0 (or a stride register for mop 2)
  } else {
    static constexpr std::array<std::uint32_t, 3> opcs{enc::kOpV, enc::kVLoad, enc::kVStore};
    w |= opcs[g.below(3)];
  }
  // register fields made to meet now and then: a source equal to the destination (overlaps), or
  // v0 (masks)
  const unsigned vd = (w >> 7) & 31;
  if (g.chance(25)) w = (w & ~(31u << 20)) | vd << 20;
  if (g.chance(25)) w = (w & ~(31u << 15)) | vd << 15;
  if (g.chance(15)) w &= ~(31u << 7);
  if (g.chance(15)) w &= ~(31u << 20);
  g.w.push_back(w);
  g.w.push_back(enc::op_end());
  RandomProgram p;
  p.words.assign(g.data_lo / 4, 0);
  std::copy(g.w.begin(), g.w.end(), p.words.begin());
  p.data_lo = g.data_lo, p.data_hi = g.data_hi;
  p.data.resize(g.data_hi - g.data_lo);
  for (auto& b : p.data) b = static_cast<std::uint8_t>(rng());
  return p;
}

RandomProgram fp_corners(std::uint32_t mem_bytes, bool separate) {
  static constexpr std::array<std::uint32_t, 12> v{0x00000000, 0x80000000, 0x00000001, 0x807FFFFF,
                                                   0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
                                                   0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xC0490FDB};
  constexpr unsigned n = v.size() * v.size(), ops = 9;
  const std::uint32_t lo = mem_bytes / 2, a = lo, b = lo + 4 * n, out = lo + 8 * n;
  if (out + (separate ? ops : 1) * 4 * n > mem_bytes)
    throw std::invalid_argument("fp_corners: local memory too small for the arrays");
  std::vector<std::uint32_t> w;
  const auto li = [&](unsigned rd, std::uint32_t x) {
    const enc::Li p = enc::li(rd, x);
    w.push_back(p.hi), w.push_back(p.lo);
  };
  li(10, a), li(11, b), li(12, out), li(13, n);
  const std::size_t top = w.size();
  w.push_back(enc::vsetvli(14, 13, enc::vtype(2, 1)));
  w.push_back(enc::vmem(false, 6, 2, 10, true));
  w.push_back(enc::vmem(false, 6, 4, 11, true));
  const auto store = [&](unsigned vreg, unsigned k) {  // to op k's array (or the one array)
    li(16, separate ? k * 4 * n : 0);
    w.push_back(enc::r_type(enc::kOp, 0, 0, 16, 16, 12));
    w.push_back(enc::vmem(true, 6, vreg, 16, true));
  };
  static constexpr std::array<unsigned, 5> arith{0x00, 0x02, 0x24, 0x04, 0x06};  // vfadd vfsub vfmul vfmin vfmax
  unsigned k = 0;
  for (const unsigned f6 : arith) {
    w.push_back(enc::opv(f6, true, 2, 4, 1, 6));
    store(6, k++);
  }
  w.push_back(enc::opv(0x17, true, 0, 2, 0, 8));  // vmv.v.v v8, v2
  w.push_back(enc::opv(0x2C, true, 4, 2, 1, 8));  // vfmacc.vv v8, v2, v4: v8 = v2 * v4 + v8
  store(8, k++);
  for (const unsigned f6 : {0x18u, 0x19u, 0x1Bu}) {  // vmfeq, vmfle, vmflt into v0, then 0 / 1 elements
    w.push_back(enc::opv(f6, true, 2, 4, 1, 0));
    w.push_back(enc::opv(0x17, true, 0, 0, 3, 6));   // vmv.v.i v6, 0
    w.push_back(enc::opv(0x17, false, 6, 1, 3, 6));  // vmerge.vim v6, v6, 1, v0
    store(6, k++);
  }
  w.push_back(enc::i_type(enc::kOpImm, 1, 15, 14, 2));  // the bytes done: vl * 4
  for (const unsigned r : {10u, 11u, 12u}) w.push_back(enc::r_type(enc::kOp, 0, 0, r, r, 15));
  w.push_back(enc::r_type(enc::kOp, 0, 0x20, 13, 13, 14));
  w.push_back(enc::bne(13, 0, -4 * static_cast<std::int32_t>(w.size() - top)));
  w.push_back(enc::op_end());
  RandomProgram p;
  p.words.assign(lo / 4, 0);
  std::copy(w.begin(), w.end(), p.words.begin());
  p.data_lo = lo, p.data_hi = mem_bytes;
  p.data.assign(mem_bytes - lo, 0);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned byte = 0; byte < 4; ++byte) {
      p.data[4 * i + byte] = static_cast<std::uint8_t>(v[i / v.size()] >> 8 * byte);
      p.data[4 * n + 4 * i + byte] = static_cast<std::uint8_t>(v[i % v.size()] >> 8 * byte);
    }
  return p;
}

RandomProgram sbuf_program(std::mt19937_64& rng, std::uint32_t mem_bytes, unsigned vlen, std::uint32_t sbuf_bytes,
                           unsigned lo, unsigned hi, unsigned count) {
  Gen g{rng, mem_bytes, mem_bytes / 2, mem_bytes, {}, {}, vlen, 0, 0};
  // v0 .. v31 from the data region (so stores of them are not all zeros)
  g.w.push_back(enc::vsetvli(kAvl, 0, enc::vtype(2, 1)));
  for (unsigned r = 0; r < 32; r += 2) {
    g.li(kAddr, g.data_lo + 4 * g.below((g.data_hi - g.data_lo) / 4 - 2 * vlen / 32));
    g.w.push_back(enc::vmem(false, 6, r, kAddr, true));
  }
  for (unsigned k = 0; k < count; ++k) {
    g.vset();
    const bool bf16 = g.sew() == 32 && g.chance(40);
    const unsigned eb = bf16 ? 2 : g.sew() / 8;
    const unsigned part = g.chance(97) ? lo + g.below(hi - lo) : g.chance(50) ? lo - 1 : hi;
    std::uint32_t off = g.below(sbuf_bytes / eb) * eb;
    if (g.chance(3)) off = sbuf_bytes - eb * g.below(4);  // running past the end now and then
    if (g.chance(2))
      off += 1;  // misaligned (for elements of 2 or 4 bytes)
    else if (off + eb * g.vlmax() > sbuf_bytes && g.chance(80))
      off = g.below(sbuf_bytes / 4 / eb) * eb;
    g.li(kAddr, part);
    g.li(kBase, off);
    g.w.push_back(g.chance(50) ? enc::sb_load(g.vreg(), kAddr, kBase, bf16)
                               : enc::sb_store(g.vreg(), kAddr, kBase, bf16));
    if (g.chance(40)) g.vblock();
  }
  g.w.push_back(enc::op_end());
  RandomProgram p;
  p.words.assign(g.data_lo / 4, 0);
  if (g.w.size() > p.words.size()) throw std::invalid_argument("sbuf_program: too many transfers for the code region");
  std::copy(g.w.begin(), g.w.end(), p.words.begin());
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
