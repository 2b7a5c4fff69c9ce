// The reference interpreter's vector instructions: the RVV 1.0 subset of docs/gpsimd.md "The vector
// unit", written from the RISC-V "V" specification (vtype and vl, the instruction formats, the
// element and mask layout, each instruction's definition) and SPEC 4's FP32 rule.
#include <bit>
#include <cmath>
#include <cstring>

#include "gpsimd/reference.hpp"

namespace trn::gpsimd {

using sv::gpsimd_pkg::gp_err_e;

namespace {

constexpr std::uint32_t kCanonicalNaN = 0x7FC00000;  // SPEC 4: any NaN result
float f32(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t bits(float f) { return std::isnan(f) ? kCanonicalNaN : std::bit_cast<std::uint32_t>(f); }
bool is_nan(std::uint32_t b) { return (b & 0x7F800000) == 0x7F800000 && (b & 0x7FFFFF); }
/// IEEE 754-2019 minimumNumber / maximumNumber (vfmin, vfmax): a NaN operand gives the other; two
/// NaNs the canonical NaN; -0 is below +0.
std::uint32_t fminmax(std::uint32_t a, std::uint32_t b, bool max) {
  if (is_nan(a) && is_nan(b)) return kCanonicalNaN;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  const float x = f32(a), y = f32(b);
  if (x == y) return max ? (a & b) : (a | b);  // equal: zeros of two signs, max takes +0
  return (max ? x > y : x < y) ? a : b;
}
std::int64_t sx(std::uint32_t v, unsigned sew) {  // sign-extend an element
  const unsigned sh = 64 - sew;
  return static_cast<std::int64_t>(std::uint64_t{v} << sh) >> sh;
}
std::uint32_t trunc(std::uint64_t v, unsigned sew) {
  return static_cast<std::uint32_t>(v & ((std::uint64_t{1} << sew) - 1));
}

// The subset's rows of the RVV 1.0 instruction listing ("Vector Instruction Listing"): the funct6
// group (I: OPIVV/OPIVX/OPIVI, M: OPMVV/OPMVX, F: OPFVV/OPFVF), the operand forms it has there
// (V vector-vector, X vector-scalar, I vector-immediate), whether it writes a mask, and what it
// computes of a = vs2[i], b = vs1[i], x[rs1] or the immediate, and d = vd[i] (the
// "Vector Integer Arithmetic", "Vector Floating-Point" and compare chapters; FP32 as SPEC 4, every
// operation rounded on its own, NaN results canonical). vfmacc.vv: vd = (vs1 * vs2) + vd.
struct Listing {
  char group;
  unsigned f6;
  const char* forms;
  bool mask;
  std::uint32_t (*fn)(std::uint32_t a, std::uint32_t b, std::uint32_t d, unsigned sew);
};
using U = std::uint32_t;
const Listing kListing[] = {
    {'I', 0x00, "VXI", false, [](U a, U b, U, unsigned w) { return trunc(std::uint64_t{a} + b, w); }},  // vadd
    {'I', 0x02, "VX", false, [](U a, U b, U, unsigned w) { return trunc(std::uint64_t{a} - b, w); }},   // vsub
    {'I', 0x04, "VX", false, [](U a, U b, U, unsigned) { return a < b ? a : b; }},                      // vminu
    {'I', 0x05, "VX", false, [](U a, U b, U, unsigned w) { return sx(a, w) < sx(b, w) ? a : b; }},      // vmin
    {'I', 0x06, "VX", false, [](U a, U b, U, unsigned) { return a > b ? a : b; }},                      // vmaxu
    {'I', 0x07, "VX", false, [](U a, U b, U, unsigned w) { return sx(a, w) > sx(b, w) ? a : b; }},      // vmax
    {'I', 0x09, "VXI", false, [](U a, U b, U, unsigned) { return a & b; }},                             // vand
    {'I', 0x0A, "VXI", false, [](U a, U b, U, unsigned) { return a | b; }},                             // vor
    {'I', 0x0B, "VXI", false, [](U a, U b, U, unsigned) { return a ^ b; }},                             // vxor
    {'I', 0x18, "VXI", true, [](U a, U b, U, unsigned) { return U{a == b}; }},                          // vmseq
    {'I', 0x19, "VXI", true, [](U a, U b, U, unsigned) { return U{a != b}; }},                          // vmsne
    {'I', 0x1A, "VX", true, [](U a, U b, U, unsigned) { return U{a < b}; }},                            // vmsltu
    {'I', 0x1B, "VX", true, [](U a, U b, U, unsigned w) { return U{sx(a, w) < sx(b, w)}; }},            // vmslt
    // shifts: the low log2(SEW) bits of the shift amount
    {'I', 0x25, "VXI", false, [](U a, U b, U, unsigned w) { return trunc(std::uint64_t{a} << (b % w), w); }},  // vsll
    {'I', 0x28, "VXI", false, [](U a, U b, U, unsigned w) { return a >> (b % w); }},                           // vsrl
    {'I', 0x29, "VXI", false,
     [](U a, U b, U, unsigned w) { return trunc(static_cast<std::uint64_t>(sx(a, w) >> (b % w)), w); }},  // vsra
    {'M', 0x25, "VX", false, [](U a, U b, U, unsigned w) { return trunc(std::uint64_t{a} * b, w); }},     // vmul
    {'F', 0x00, "V", false, [](U a, U b, U, unsigned) { return bits(f32(a) + f32(b)); }},                 // vfadd
    {'F', 0x02, "V", false, [](U a, U b, U, unsigned) { return bits(f32(a) - f32(b)); }},                 // vfsub
    {'F', 0x04, "V", false, [](U a, U b, U, unsigned) { return fminmax(a, b, false); }},                  // vfmin
    {'F', 0x06, "V", false, [](U a, U b, U, unsigned) { return fminmax(a, b, true); }},                   // vfmax
    {'F', 0x18, "V", true, [](U a, U b, U, unsigned) { return U{f32(a) == f32(b)}; }},                    // vmfeq
    {'F', 0x19, "V", true, [](U a, U b, U, unsigned) { return U{f32(a) <= f32(b)}; }},                    // vmfle
    {'F', 0x1B, "V", true, [](U a, U b, U, unsigned) { return U{f32(a) < f32(b)}; }},                     // vmflt
    {'F', 0x24, "V", false, [](U a, U b, U, unsigned) { return bits(f32(a) * f32(b)); }},                 // vfmul
    {'F', 0x2C, "V", false,
     [](U a, U b, U d, unsigned) { return bits(f32(bits(f32(b) * f32(a))) + f32(d)); }},  // vfmacc: never fused
};
}  // namespace

std::uint32_t Reference::velem(unsigned reg, unsigned i, unsigned sew) const {
  const std::size_t at = std::size_t{reg} * vlenb_ + std::size_t{i} * sew / 8;
  std::uint32_t v = 0;
  for (unsigned b = 0; b < sew / 8; ++b) v |= std::uint32_t{v_[at + b]} << 8 * b;
  return v;
}
void Reference::vset(unsigned reg, unsigned i, unsigned sew, std::uint32_t v) {
  const std::size_t at = std::size_t{reg} * vlenb_ + std::size_t{i} * sew / 8;
  for (unsigned b = 0; b < sew / 8; ++b) v_[at + b] = static_cast<std::uint8_t>(v >> 8 * b);
}
bool Reference::vbit(unsigned reg, unsigned i) const { return v_[std::size_t{reg} * vlenb_ + i / 8] >> (i % 8) & 1; }
void Reference::vset_bit(unsigned reg, unsigned i, bool b) {
  std::uint8_t& byte = v_[std::size_t{reg} * vlenb_ + i / 8];
  byte = static_cast<std::uint8_t>((byte & ~(1u << (i % 8))) | unsigned{b} << (i % 8));
}
std::uint32_t Reference::vreg_word(unsigned reg, unsigned word) const { return velem(reg, word, 32); }

// vtype (vsew [5:3], vlmul [2:0], vta, vma; every other bit reserved): SEW 8, 16, 32 and LMUL 1, 2
// are supported, anything else sets vill and vl = 0.
void Reference::set_vtype(std::uint32_t vtype, std::uint64_t avl, bool keep_vl) {
  const unsigned vsew = (vtype >> 3) & 7, vlmul = vtype & 7;
  if ((vtype >> 8) != 0 || vsew > 2 || vlmul > 1) {
    vill_ = true, vl_ = 0;
    return;
  }
  vill_ = false;
  sew_ = 8u << vsew, lmul_ = 1u << vlmul;
  const std::uint32_t vlmax = lmul_ * vlen_ / sew_;
  vl_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(keep_vl ? vl_ : avl, vlmax));
}

std::optional<Reference::Retired> Reference::vector_step(std::uint32_t w, Retired r) {
  const unsigned opc = w & 0x7F, vd = (w >> 7) & 31, f3 = (w >> 12) & 7, vs1 = (w >> 15) & 31, vs2 = (w >> 20) & 31;
  const bool vm = (w >> 25) & 1;  // 1: unmasked
  const unsigned f6 = w >> 26;
  const auto illegal = [&] {
    fail(gp_err_e::GpErrIllegal);
    return std::nullopt;
  };
  // ---- configuration
  if (opc == 0x57 && f3 == 7) {
    std::uint64_t avl = 0;
    bool keep = false;
    std::uint32_t vtype = 0;
    if ((w >> 31) == 0) {  // vsetvli rd, rs1, vtypei
      vtype = (w >> 20) & 0x7FF;
      if (vs1 != 0)
        avl = x_[vs1];
      else if (vd != 0)
        avl = ~std::uint64_t{0};
      else
        keep = true;
    } else if ((w >> 30) == 3) {  // vsetivli rd, uimm, vtypei
      vtype = (w >> 20) & 0x3FF;
      avl = vs1;
    } else {
      return illegal();  // vsetvl: not in the subset
    }
    set_vtype(vtype, avl, keep);
    if (vd) x_[vd] = vl_, r.rd = vd, r.wdata = vl_;
    pc_ += 4;
    return r;
  }
  if (vill_) return illegal();
  const unsigned sew = sew_, lmul = lmul_, vlmax = lmul * vlen_ / sew;
  const auto group_ok = [&](unsigned reg) { return reg % lmul == 0; };
  const auto active = [&](unsigned i) { return vm || vbit(0, i); };
  // ---- loads and stores: unit-stride and strided, EEW = SEW, one field (nf 0, mew 0)
  if (opc == 0x07 || opc == 0x27) {
    const unsigned width = f3, mop = (w >> 26) & 3, nf = w >> 29, mew = (w >> 28) & 1;
    const unsigned eew = width == 0 ? 8 : width == 5 ? 16 : width == 6 ? 32 : 0;
    if (eew == 0 || eew != sew || nf || mew || (mop != 0 && mop != 2) || (mop == 0 && vs2 != 0) || !group_ok(vd) ||
        (!vm && vd == 0 && opc == 0x07))
      return illegal();
    const std::int64_t stride = mop == 2 ? static_cast<std::int32_t>(x_[vs2]) : eew / 8;
    for (unsigned i = 0; i < vl_; ++i) {
      if (!active(i)) continue;
      const std::uint64_t a = (std::uint64_t{x_[vs1]} + static_cast<std::uint64_t>(stride * i)) & 0xFFFFFFFFu;
      if (a % (eew / 8)) return fail(gp_err_e::GpErrMisaligned), std::nullopt;
      if (a + eew / 8 > mem_.size()) return fail(gp_err_e::GpErrAccess), std::nullopt;
      if (opc == 0x07) {
        std::uint32_t v = 0;
        for (unsigned b = 0; b < eew / 8; ++b) v |= std::uint32_t{mem_[a + b]} << 8 * b;
        vset(vd, i, sew, v);
      } else {
        const std::uint32_t v = velem(vd, i, sew);
        for (unsigned b = 0; b < eew / 8; ++b) mem_[a + b] = static_cast<std::uint8_t>(v >> 8 * b);
      }
    }
    pc_ += 4;
    return r;
  }
  if (opc != 0x57) return illegal();
  // ---- arithmetic: operand forms by funct3
  const bool ivv = f3 == 0, fvv = f3 == 1, mvv = f3 == 2, ivi = f3 == 3, ivx = f3 == 4, mvx = f3 == 6;
  if (f3 == 5) return illegal();  // OPFVF: a scalar FP register, which RV32IM has not
  // the scalar or immediate operand of .vx / .vi, as an element of width SEW
  const std::uint32_t scal = ivi ? trunc(static_cast<std::uint64_t>(sx(vs1, 5)), sew) : trunc(x_[vs1], sew);
  const auto op1 = [&](unsigned i) { return (ivv || fvv || mvv) ? velem(vs1, i, sew) : scal; };
  // vmv.x.s, vmv.s.x (VWXUNARY0 / VRXUNARY0)
  if (f6 == 0x10 && mvv && vs1 == 0) {
    if (!vm) return illegal();
    const auto v = static_cast<std::uint32_t>(sx(velem(vs2, 0, sew), sew));
    if (vd) x_[vd] = v, r.rd = vd, r.wdata = v;
    pc_ += 4;
    return r;
  }
  if (f6 == 0x10 && mvx && vs2 == 0) {
    if (!vm) return illegal();
    if (vl_ > 0) vset(vd, 0, sew, scal);
    pc_ += 4;
    return r;
  }
  // reductions: vd[0] = vs1[0] op the active vs2[i]; vd and vs1 single registers
  const bool redsum = mvv && f6 == 0x00, redmax = mvv && f6 == 0x07, fredosum = fvv && f6 == 0x03;
  if (redsum || redmax || fredosum) {
    if ((fredosum && sew != 32) || !group_ok(vs2)) return illegal();
    if (vl_ == 0) {
      pc_ += 4;
      return r;
    }
    std::uint32_t acc = velem(vs1, 0, sew);
    for (unsigned i = 0; i < vl_; ++i) {
      if (!active(i)) continue;
      const std::uint32_t e = velem(vs2, i, sew);
      if (redsum)
        acc = trunc(std::uint64_t{acc} + e, sew);
      else if (redmax)
        acc = sx(e, sew) > sx(acc, sew) ? e : acc;
      else
        acc = bits(f32(acc) + f32(e));
    }
    vset(vd, 0, sew, acc);
    pc_ += 4;
    return r;
  }
  // the listing's row of this instruction (kListing: its group, funct6 and operand form)
  const char form = ivv || mvv || fvv ? 'V' : ivx || mvx ? 'X' : 'I';
  const char group = ivv || ivx || ivi ? 'I' : mvv || mvx ? 'M' : 'F';
  const Listing* row = nullptr;
  for (const Listing& l : kListing)
    if (l.group == group && l.f6 == f6 && std::strchr(l.forms, form)) row = &l;
  // compares into a mask register (vd any register; masked-off and tail bits kept)
  if (row && row->mask) {
    // the mask may overlap a source group only as its first register (the elements it would
    // clobber are read first then)
    const auto clobbers = [&](unsigned g) { return vd != g && vd >= g && vd < g + lmul; };
    if ((group == 'F' && sew != 32) || !group_ok(vs2) || clobbers(vs2) ||
        (form == 'V' && (!group_ok(vs1) || clobbers(vs1))))
      return illegal();
    for (unsigned i = 0; i < vl_; ++i)
      if (active(i)) vset_bit(vd, i, row->fn(velem(vs2, i, sew), op1(i), 0, sew) != 0);
    pc_ += 4;
    return r;
  }
  // element-wise operations writing a register group vd
  if (!group_ok(vd) || !group_ok(vs2) || ((ivv || fvv || mvv) && !group_ok(vs1))) return illegal();
  if (!vm && vd == 0) return illegal();  // a masked op may not write v0 (its own mask)
  const auto overlaps = [&](unsigned a, unsigned b) { return a < b + lmul && b < a + lmul; };
  // vmerge / vmv.v.*: vm = 0 merges by v0, vm = 1 with vs2 = 0 moves
  if ((ivv || ivx || ivi) && f6 == 0x17) {
    if (vm && vs2 != 0) return illegal();
    for (unsigned i = 0; i < vl_; ++i) vset(vd, i, sew, vm || vbit(0, i) ? op1(i) : velem(vs2, i, sew));
    pc_ += 4;
    return r;
  }
  // slides: the offset from rs1 or the immediate (unsigned)
  if ((ivx || ivi) && (f6 == 0x0E || f6 == 0x0F)) {
    const std::uint64_t off = ivi ? vs1 : x_[vs1];
    if (f6 == 0x0E && overlaps(vd, vs2)) return illegal();  // vslideup may not overlap its source
    std::vector<std::uint32_t> src(vlmax);
    for (unsigned i = 0; i < vlmax; ++i) src[i] = velem(vs2, i, sew);
    for (unsigned i = 0; i < vl_; ++i) {
      if (!active(i)) continue;
      if (f6 == 0x0E) {
        if (i >= off) vset(vd, i, sew, src[i - off]);
      } else {
        vset(vd, i, sew, i + off < vlmax ? src[i + off] : 0);
      }
    }
    pc_ += 4;
    return r;
  }
  if (ivv && f6 == 0x0C) {  // vrgather.vv: vd may overlap neither source
    if (overlaps(vd, vs2) || overlaps(vd, vs1)) return illegal();
    for (unsigned i = 0; i < vl_; ++i) {
      if (!active(i)) continue;
      const std::uint32_t ix = velem(vs1, i, sew);
      vset(vd, i, sew, ix < vlmax ? velem(vs2, ix, sew) : 0);
    }
    pc_ += 4;
    return r;
  }
  // the rest: vd[i] = f(vs2[i], op1(i)) over the active elements, f the listing's
  if (!row || (group == 'F' && sew != 32)) return illegal();
  for (unsigned i = 0; i < vl_; ++i)
    if (active(i)) vset(vd, i, sew, row->fn(velem(vs2, i, sew), op1(i), velem(vd, i, sew), sew));
  pc_ += 4;
  return r;
}

// The custom instructions other than op.end (docs/gpsimd.md "Custom instructions"): R-type words of
// custom-0, funct3 1 sb.load vd, 2 sb.store vs3 (rs1 the partition, rs2 the byte offset; funct7 1:
// BF16 in SBUF, FP32 in the register), 3 sem.wait, 4 sem.add (rs1 the semaphore, rs2 the value;
// rd and funct7 0).
std::optional<Reference::Retired> Reference::custom_step(std::uint32_t w, Retired r) {
  const unsigned rd = (w >> 7) & 31, f3 = (w >> 12) & 7, f7 = w >> 25;
  const std::uint32_t a = x_[(w >> 15) & 31], b = x_[(w >> 20) & 31];
  if ((f3 == 3 || f3 == 4) && f7 == 0 && rd == 0) {
    if (a >= 32) return fail(gp_err_e::GpErrSem), std::nullopt;
    r.sem_op = f3 == 3 ? 1 : 2, r.sem_idx = a, r.sem_val = b;  // a wait retires once the value is there
    pc_ += 4;
    return r;
  }
  if (f3 != 1 && f3 != 2) return fail(gp_err_e::GpErrIllegal), std::nullopt;
  if (vill_ || f7 > 1 || (f7 == 1 && sew_ != 32) || rd % lmul_) return fail(gp_err_e::GpErrIllegal), std::nullopt;
  const unsigned eb = f7 ? 2 : sew_ / 8;  // bytes an element in SBUF
  if (vl_ > 0) {
    if (a < part_lo_ || a >= part_hi_ || !sbuf_ || a >= sbuf_->size())
      return fail(gp_err_e::GpErrPartition), std::nullopt;
    std::vector<std::uint8_t>& part = (*sbuf_)[a];
    if (b % eb) return fail(gp_err_e::GpErrMisaligned), std::nullopt;
    if (std::uint64_t{b} + std::uint64_t{vl_} * eb > part.size()) return fail(gp_err_e::GpErrAccess), std::nullopt;
    for (unsigned i = 0; i < vl_; ++i) {
      const std::size_t at = b + std::size_t{i} * eb;
      if (f3 == 1) {
        std::uint32_t v = 0;
        for (unsigned k = 0; k < eb; ++k) v |= std::uint32_t{part[at + k]} << 8 * k;
        vset(rd, i, sew_, f7 ? v << 16 : v);  // BF16 widened: its bits are FP32's upper half
      } else {
        std::uint32_t v = velem(rd, i, sew_);
        if (f7) {  // FP32 -> BF16, round to nearest even; a NaN gives the canonical 0x7FC0
          v = is_nan(v) ? 0x7FC0 : static_cast<std::uint32_t>((std::uint64_t{v} + 0x7FFF + ((v >> 16) & 1)) >> 16);
        }
        for (unsigned k = 0; k < eb; ++k) part[at + k] = static_cast<std::uint8_t>(v >> 8 * k);
      }
    }
  }
  pc_ += 4;
  return r;
}

}  // namespace trn::gpsimd
