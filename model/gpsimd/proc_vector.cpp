// The vector unit of trn::gpsimd::Proc (docs/gpsimd.md "The vector unit"): one element a cycle of
// the instruction in the fetch register, as rtl/gpsimd/gpsimd_proc.sv does it.
//   - vsetvli, vsetivli, vmv.x.s, vmv.s.x: one cycle;
//   - loads: element i's read in cycle i, its register write in cycle i + 1: vl + 1 cycles;
//   - everything else: element i in cycle i, vl cycles (a reduction writes vd[0] in the last);
//   - vl = 0: one cycle, nothing written.
// A load or store stops at the first element whose address is misaligned or outside local
// memory, after the elements before it.
#include <bit>
#include <cmath>

#include "gpsimd/proc.hpp"
#include "numerics/format.hpp"

namespace trn::gpsimd {

namespace {

constexpr std::uint32_t kNaN = numerics::kCanonicalNaN;  // SPEC 4
float as_f(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t as_b(float f) { return std::isnan(f) ? kNaN : std::bit_cast<std::uint32_t>(f); }
bool nan(std::uint32_t b) { return std::isnan(as_f(b)); }
std::uint32_t mask_of(unsigned sew) { return sew == 32 ? ~0u : (1u << sew) - 1; }
std::int32_t sext(std::uint32_t v, unsigned sew) { return static_cast<std::int32_t>(v << (32 - sew)) >> (32 - sew); }

// the operations an element-wise instruction applies: (f3 class, funct6) -> op
enum class V : std::uint8_t {
  none,
  add,
  sub,
  minu,
  min,
  maxu,
  max,
  and_,
  or_,
  xor_,
  sll,
  srl,
  sra,
  mul,
  fadd,
  fsub,
  fmul,
  fmin,
  fmax,
  fmacc
};
V element_op(unsigned f3, unsigned f6) {
  const bool ivi = f3 == 3;
  if (f3 == 0 || f3 == 3 || f3 == 4) {
    switch (f6) {
      case 0x00:
        return V::add;
      case 0x02:
        return ivi ? V::none : V::sub;
      case 0x04:
        return ivi ? V::none : V::minu;
      case 0x05:
        return ivi ? V::none : V::min;
      case 0x06:
        return ivi ? V::none : V::maxu;
      case 0x07:
        return ivi ? V::none : V::max;
      case 0x09:
        return V::and_;
      case 0x0A:
        return V::or_;
      case 0x0B:
        return V::xor_;
      case 0x25:
        return V::sll;
      case 0x28:
        return V::srl;
      case 0x29:
        return V::sra;
      default:
        return V::none;
    }
  }
  if ((f3 == 2 || f3 == 6) && f6 == 0x25) return V::mul;
  if (f3 == 1) {
    switch (f6) {
      case 0x00:
        return V::fadd;
      case 0x02:
        return V::fsub;
      case 0x04:
        return V::fmin;
      case 0x06:
        return V::fmax;
      case 0x24:
        return V::fmul;
      case 0x2C:
        return V::fmacc;
      default:
        return V::none;
    }
  }
  return V::none;
}
std::uint32_t fmin_max(std::uint32_t a, std::uint32_t b, bool mx) {
  if (nan(a) && nan(b)) return kNaN;
  if (nan(a)) return b;
  if (nan(b)) return a;
  if (as_f(a) == as_f(b)) return mx ? a & b : a | b;
  return (mx ? as_f(a) > as_f(b) : as_f(a) < as_f(b)) ? a : b;
}

}  // namespace

std::uint32_t Proc::velem(unsigned reg, unsigned i, unsigned sew) const {
  const unsigned bit = i * sew, wpr = p_.vlen / 32;
  const unsigned r = reg + bit / p_.vlen, word = (bit % p_.vlen) / 32;
  return (vrf_q_[(r % 32) * wpr + word] >> (bit % 32)) & mask_of(sew);
}

void Proc::decide_vector(std::uint32_t w, [[maybe_unused]] const In& in, Step& s) const {
  const unsigned opc = w & 0x7F, rd = (w >> 7) & 31, f3 = (w >> 12) & 7, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31;
  const unsigned f6 = w >> 26;
  const bool vm = (w >> 25) & 1;
  const std::uint32_t a = x_q_[rs1], b = x_q_[rs2];
  s.vl = vl_q_, s.sew = sew_q_, s.lmul2 = lmul2_q_, s.vill = vill_q_, s.ve = ve_q_, s.acc = acc_q_, s.sbr = sbr_q_;
  const auto illegal = [&] { s.code = Err::GpErrIllegal; };
  // ---- configuration
  if (opc == 0x57 && f3 == 7) {
    if ((w >> 31) && (w >> 30) != 3) return illegal();  // vsetvl
    const bool imm = w >> 31;
    const std::uint32_t vtype = imm ? (w >> 20) & 0x3FF : (w >> 20) & 0x7FF;
    const unsigned vsew = (vtype >> 3) & 7, vlmul = vtype & 7;
    if ((vtype >> 8) || vsew > 2 || vlmul > 1) {
      s.vill = true, s.vl = 0;
    } else {
      s.vill = false, s.sew = 8u << vsew, s.lmul2 = vlmul == 1;
      const std::uint32_t mx = (p_.vlen << vlmul) / s.sew;
      const bool keep = !imm && rs1 == 0 && rd == 0;
      const std::uint32_t avl = imm ? rs1 : rs1 ? a : ~0u;
      s.vl = std::min(keep ? vl_q_ : avl, mx);
    }
    s.retire = s.wen = true, s.wv = s.vl;
    return;
  }
  if (vill_q_) return illegal();
  const unsigned sew = sew_q_, lm = lmul2_q_ ? 2 : 1, vlmax = lm * p_.vlen / sew;
  const bool ivv = f3 == 0, fvv = f3 == 1, mvv = f3 == 2, ivi = f3 == 3, ivx = f3 == 4, mvx = f3 == 6;
  const bool vec1 = ivv || fvv || mvv;  // vs1 is a vector
  const auto even = [&](unsigned r) { return lm == 1 || r % 2 == 0; };
  const std::uint32_t i = ve_q_;
  const bool act = vm || (vrf_q_[i / 32] >> (i % 32) & 1);  // v0's bit i (i < vlen)
  const bool last = i + 1 >= vl_q_;
  const auto write = [&](unsigned reg, unsigned i_, std::uint32_t v) {
    s.vw = true, s.vw_reg = reg + i_ * sew / p_.vlen, s.vw_off = i_ * sew % p_.vlen, s.vw_data = v & mask_of(sew);
  };
  const auto next = [&](bool done) {
    if (done)
      s.retire = true, s.ve = 0;
    else
      s.ve = i + 1;
  };
  // ---- loads and stores
  if (opc == 0x07 || opc == 0x27) {
    const unsigned mop = (w >> 26) & 3;
    const unsigned eew = f3 == 0 ? 8 : f3 == 5 ? 16 : f3 == 6 ? 32 : 0;
    if (eew != sew || (w >> 28) || (mop != 0 && mop != 2) || (mop == 0 && rs2) || !even(rd) ||
        (!vm && rd == 0 && opc == 0x07))
      return illegal();
    if (lp_q_) write(rd, i - 1, dr_q_ >> 8 * (acc_q_ % 4));  // the previous element's word is back
    const std::uint32_t addr = a + (mop == 2 ? b : sew / 8) * i;
    if (i < vl_q_ && act) {
      if (addr % (sew / 8)) return void(s.code = Err::GpErrMisaligned);
      if (addr >= p_.tcm_bytes) return void(s.code = Err::GpErrAccess);
      if (opc == 0x07) {
        s.v_load = true;
      } else {
        s.v_store = true;
        s.v_mask = ((1u << sew / 8) - 1) << addr % 4;
        s.v_data = velem(rd, i, sew) << 8 * (addr % 4);
      }
      s.v_word = addr / 4;
    }
    s.acc = addr;
    s.lp = s.v_load;
    next(opc == 0x07 ? i >= vl_q_ : last);
    return;
  }
  if (opc != 0x57 || f3 == 5) return illegal();
  const std::uint32_t scal = (ivi ? static_cast<std::uint32_t>(sext(rs1, 5)) : a) & mask_of(sew);
  const auto op1 = [&](std::uint32_t e) { return vec1 ? velem(rs1, e, sew) : scal; };
  // vmv.x.s, vmv.s.x
  if (f6 == 0x10 && mvv && rs1 == 0) {
    if (!vm) return illegal();
    s.retire = s.wen = true, s.wv = static_cast<std::uint32_t>(sext(velem(rs2, 0, sew), sew));
    return;
  }
  if (f6 == 0x10 && mvx && rs2 == 0) {
    if (!vm) return illegal();
    s.retire = true;
    if (vl_q_) write(rd, 0, scal);
    return;
  }
  // reductions
  const bool rsum = mvv && f6 == 0, rmax = mvv && f6 == 7, rfsum = fvv && f6 == 3;
  if (rsum || rmax || rfsum) {
    if ((rfsum && sew != 32) || !even(rs2)) return illegal();
    const std::uint32_t cur = i == 0 ? velem(rs1, 0, sew) : acc_q_, e = velem(rs2, i, sew);
    std::uint32_t nx = rsum   ? (cur + e) & mask_of(sew)
                       : rmax ? (sext(e, sew) > sext(cur, sew) ? e : cur)
                              : as_b(as_f(cur) + as_f(e));
    s.acc = act ? nx : cur;
    if (vl_q_ == 0 || last) {
      if (vl_q_) write(rd, 0, s.acc);
      next(true);
    } else {
      next(false);
    }
    return;
  }
  // compares into a mask
  int cmp = -1;
  if ((ivv || ivx || ivi) && f6 == 0x18) cmp = 0;
  if ((ivv || ivx || ivi) && f6 == 0x19) cmp = 1;
  if ((ivv || ivx) && f6 == 0x1A) cmp = 2;
  if ((ivv || ivx) && f6 == 0x1B) cmp = 3;
  if (fvv && f6 == 0x18) cmp = 4;
  if (fvv && f6 == 0x19) cmp = 5;
  if (fvv && f6 == 0x1B) cmp = 6;
  if (cmp >= 0) {
    const auto hits_upper = [&](unsigned g) { return lm == 2 && rd == g + 1; };  // the group's second register
    if ((cmp >= 4 && sew != 32) || !even(rs2) || hits_upper(rs2) || ((ivv || fvv) && (!even(rs1) || hits_upper(rs1))))
      return illegal();
    if (vl_q_ && act) {
      const std::uint32_t x = velem(rs2, i, sew), y = op1(i);
      bool t = false;
      switch (cmp) {
        case 0:
          t = x == y;
          break;
        case 1:
          t = x != y;
          break;
        case 2:
          t = x < y;
          break;
        case 3:
          t = sext(x, sew) < sext(y, sew);
          break;
        case 4:
          t = as_f(x) == as_f(y);
          break;
        case 5:
          t = as_f(x) <= as_f(y);
          break;
        default:
          t = as_f(x) < as_f(y);
          break;
      }
      s.vw = s.vw_bit = true, s.vw_reg = rd, s.vw_off = i, s.vw_data = t;
    }
    next(vl_q_ == 0 || last);
    return;
  }
  // merges, slides, gathers, element-wise
  const bool merge = (ivv || ivx || ivi) && f6 == 0x17, slide = (ivx || ivi) && (f6 == 0x0E || f6 == 0x0F);
  const bool gather = ivv && f6 == 0x0C;
  const V op = element_op(f3, f6);
  if (!merge && !slide && !gather && op == V::none) return illegal();
  const auto same_group = [&](unsigned x, unsigned y) { return lm == 2 ? x / 2 == y / 2 : x == y; };
  if (!even(rd) || !even(rs2) || (vec1 && !even(rs1)) || (!vm && rd == 0) || (merge && vm && rs2) ||
      (fvv && sew != 32) || (slide && f6 == 0x0E && same_group(rd, rs2)) ||
      (gather && (same_group(rd, rs2) || same_group(rd, rs1))))
    return illegal();
  if (vl_q_) {
    if (merge) {
      write(rd, i, vm || act ? op1(i) : velem(rs2, i, sew));
    } else if (slide) {
      const std::uint32_t off = ivi ? rs1 : a;
      if (act && f6 == 0x0E && i >= off) write(rd, i, velem(rs2, i - off, sew));
      if (act && f6 == 0x0F) write(rd, i, off < vlmax && i + off < vlmax ? velem(rs2, i + off, sew) : 0);
    } else if (gather) {
      const std::uint32_t ix = op1(i);
      if (act) write(rd, i, ix < vlmax ? velem(rs2, ix, sew) : 0);
    } else if (act) {
      const std::uint32_t x = velem(rs2, i, sew), y = op1(i), m = mask_of(sew), sh = y % sew;
      std::uint32_t r = 0;
      switch (op) {
        case V::add:
          r = x + y;
          break;
        case V::sub:
          r = x - y;
          break;
        case V::minu:
          r = std::min(x, y);
          break;
        case V::min:
          r = sext(x, sew) < sext(y, sew) ? x : y;
          break;
        case V::maxu:
          r = std::max(x, y);
          break;
        case V::max:
          r = sext(x, sew) > sext(y, sew) ? x : y;
          break;
        case V::and_:
          r = x & y;
          break;
        case V::or_:
          r = x | y;
          break;
        case V::xor_:
          r = x ^ y;
          break;
        case V::sll:
          r = x << sh;
          break;
        case V::srl:
          r = x >> sh;
          break;
        case V::sra:
          r = static_cast<std::uint32_t>(sext(x, sew) >> sh);
          break;
        case V::mul:
          r = x * y;
          break;
        case V::fadd:
          r = as_b(as_f(x) + as_f(y));
          break;
        case V::fsub:
          r = as_b(as_f(x) - as_f(y));
          break;
        case V::fmul:
          r = as_b(as_f(x) * as_f(y));
          break;
        case V::fmin:
          r = fmin_max(x, y, false);
          break;
        case V::fmax:
          r = fmin_max(x, y, true);
          break;
        case V::fmacc:
          r = as_b(as_f(as_b(as_f(y) * as_f(x))) + as_f(velem(rd, i, sew)));
          break;
        case V::none:
          break;
      }
      write(rd, i, r & m);
    }
  }
  next(vl_q_ == 0 || last);
}

// sb.load / sb.store (docs/gpsimd.md "Custom instructions"): element i requested (one SBUF word)
// when i requests have been granted, done when its word is back (a load) or granted (a store);
// checked first: the partition owned, the offset aligned, the last byte inside the partition.
void Proc::decide_sbuf(std::uint32_t w, const In& in, Step& s) const {
  s.vl = vl_q_, s.sew = sew_q_, s.lmul2 = lmul2_q_, s.vill = vill_q_, s.ve = ve_q_, s.acc = acc_q_, s.sbr = sbr_q_;
  const unsigned rd = (w >> 7) & 31, f3 = (w >> 12) & 7, f7 = w >> 25;
  const std::uint32_t part = x_q_[(w >> 15) & 31], off = x_q_[(w >> 20) & 31];
  const bool load = f3 == 1;
  if (vill_q_ || !(f7 == 0 || (f7 == 1 && sew_q_ == 32)) || (lmul2_q_ && rd % 2)) {
    s.code = Err::GpErrIllegal;
    return;
  }
  const unsigned eb = f7 ? 2 : sew_q_ / 8;
  if (vl_q_) {
    if (part < in.part_lo_i || part >= in.part_hi_i) return void(s.code = Err::GpErrPartition);
    if (off % eb) return void(s.code = Err::GpErrMisaligned);
    if (std::uint64_t{off} + std::uint64_t{vl_q_} * eb > p_.sbuf_bytes) return void(s.code = Err::GpErrAccess);
  }
  const std::uint32_t ea = off + sbr_q_ * eb;
  s.sb_req = sbr_q_ < vl_q_;
  s.sb_we = s.sb_req && !load;
  s.sb_part = part, s.sb_off = ea & ~3u;
  s.sb_mask = ((1u << eb) - 1) << (ea % 4);
  const std::uint32_t e = s.sb_req ? velem(rd, sbr_q_, sew_q_) : 0;
  s.sb_wdata = (f7 ? numerics::encode(numerics::Format::bf16, e) : e) << 8 * (ea % 4);
  const bool taken = s.sb_req && in.sb_gnt_i;
  if (taken) s.sbr = sbr_q_ + 1;
  if (load && in.sb_rvalid_i) {
    const std::uint32_t word = in.sb_rdata_i >> 8 * ((off + ve_q_ * eb) % 4);
    const unsigned i = ve_q_;
    s.vw = true, s.vw_reg = rd + i * sew_q_ / p_.vlen, s.vw_off = i * sew_q_ % p_.vlen;
    s.vw_data = (f7 ? (word & 0xFFFF) << 16 : word) & mask_of(sew_q_);
    s.ve = ve_q_ + 1;
  }
  if (!load && taken) s.ve = ve_q_ + 1;
  if (s.ve >= vl_q_) s.retire = true, s.ve = 0, s.sbr = 0;
}

}  // namespace trn::gpsimd
