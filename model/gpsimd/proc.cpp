#include "gpsimd/proc.hpp"

#include <stdexcept>

namespace trn::gpsimd {

namespace {
std::int32_t sext(std::uint32_t v, unsigned bits) {
  const std::uint32_t m = 1u << (bits - 1);
  return static_cast<std::int32_t>((v ^ m) - m);
}
std::uint32_t bits(std::uint32_t w, unsigned hi, unsigned lo) { return (w >> lo) & ((2u << (hi - lo)) - 1); }
}  // namespace

Proc::Proc(Params p)
    : p_(p), words_(p.tcm_bytes / 4), mem_q_(p.tcm_bytes / 4, 0), vrf_q_(std::size_t{32} * (p.vlen / 32), 0) {
  if (p_.tcm_bytes < 64 || (p_.tcm_bytes & (p_.tcm_bytes - 1)))
    throw std::invalid_argument("gpsimd::Proc: tcm_bytes must be a power of two, at least 64");
  if (p_.vlen < 64 || (p_.vlen & (p_.vlen - 1)) || p_.vlen > p_.tcm_bytes / 4)
    throw std::invalid_argument("gpsimd::Proc: vlen must be a power of two, at least 64, at most tcm_bytes / 4");
}

const Proc::Step& Proc::decided(const In& in) const {
  if (!step_valid_ || !(in == step_in_)) {
    step_ = decide(in);
    step_in_ = in;
    step_valid_ = true;
  }
  return step_;
}

void Proc::load(std::uint32_t addr, std::span<const std::uint8_t> bytes) {
  step_valid_ = false;
  if (addr > p_.tcm_bytes || bytes.size() > p_.tcm_bytes - addr)
    throw std::invalid_argument("gpsimd::Proc::load: past the local memory");
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::size_t a = addr + i;
    std::uint32_t& w = mem_q_[a / 4];
    const unsigned sh = 8 * (a % 4);
    w = (w & ~(0xFFu << sh)) | std::uint32_t{bytes[i]} << sh;
  }
}

Proc::Decoded Proc::decode(std::uint32_t w) {
  Decoded d;
  d.rd = bits(w, 11, 7), d.rs1 = bits(w, 19, 15), d.rs2 = bits(w, 24, 20), d.f3 = bits(w, 14, 12);
  const unsigned f7 = bits(w, 31, 25);
  const std::int32_t imm_i = sext(bits(w, 31, 20), 12);
  switch (bits(w, 6, 0)) {
    case 0x37:
      d.kind = Kind::lui, d.imm = static_cast<std::int32_t>(w & 0xFFFFF000u);
      break;
    case 0x17:
      d.kind = Kind::auipc, d.imm = static_cast<std::int32_t>(w & 0xFFFFF000u);
      break;
    case 0x6F:
      d.kind = Kind::jal;
      d.imm = sext(bits(w, 31, 31) << 20 | bits(w, 19, 12) << 12 | bits(w, 20, 20) << 11 | bits(w, 30, 21) << 1, 21);
      break;
    case 0x67:
      if (d.f3 == 0) d.kind = Kind::jalr, d.imm = imm_i;
      break;
    case 0x63:
      if (d.f3 != 2 && d.f3 != 3) {
        d.kind = Kind::branch;
        d.imm = sext(bits(w, 31, 31) << 12 | bits(w, 7, 7) << 11 | bits(w, 30, 25) << 5 | bits(w, 11, 8) << 1, 13);
      }
      break;
    case 0x03:
      if (d.f3 <= 2 || d.f3 == 4 || d.f3 == 5) d.kind = Kind::load, d.imm = imm_i;
      break;
    case 0x23:
      if (d.f3 <= 2) d.kind = Kind::store, d.imm = sext(bits(w, 31, 25) << 5 | bits(w, 11, 7), 12);
      break;
    case 0x13:
      d.imm = imm_i;
      if (d.f3 == 1 ? f7 == 0 : d.f3 == 5 ? (f7 == 0 || f7 == 0x20) : true)
        d.kind = Kind::alu_imm, d.alt = d.f3 == 5 && f7 == 0x20;
      break;
    case 0x33:
      if (f7 == 1)
        d.kind = d.f3 < 4 ? Kind::mul : Kind::div;
      else if (f7 == 0 || (f7 == 0x20 && (d.f3 == 0 || d.f3 == 5)))
        d.kind = Kind::alu, d.alt = f7 == 0x20;
      break;
    case 0x0F:
      if (d.f3 == 0) d.kind = Kind::fence;
      break;
    case 0x0B:  // custom-0: op.end is the word with every other field 0; sem.wait, sem.add have rs1, rs2
      if (w == 0x0B) d.kind = Kind::end;
      if ((d.f3 == 3 || d.f3 == 4) && f7 == 0 && d.rd == 0) d.kind = d.f3 == 3 ? Kind::sem_wait : Kind::sem_add;
      break;
    default:
      break;
  }
  return d;
}

std::uint32_t Proc::alu(unsigned f3, bool alt, std::uint32_t x, std::uint32_t y) {
  const unsigned sh = y & 31;
  switch (f3) {
    case 0:
      return alt ? x - y : x + y;
    case 1:
      return x << sh;
    case 2:
      return static_cast<std::int32_t>(x) < static_cast<std::int32_t>(y);
    case 3:
      return x < y;
    case 4:
      return x ^ y;
    case 5:
      return alt ? static_cast<std::uint32_t>(static_cast<std::int32_t>(x) >> sh) : x >> sh;
    case 6:
      return x | y;
    default:
      return x & y;
  }
}

Proc::Step Proc::decide(const In& in) const {
  Step s;
  s.next = pc_q_ + 4;
  if (!run_q_) return s;
  if (fe_q_) {
    s.code = Err::GpErrFetch;
    return s;
  }
  if (const unsigned opc = ir_q_ & 0x7F; opc == 0x57 || opc == 0x07 || opc == 0x27) {
    decide_vector(ir_q_, in, s);
    return s;
  }
  if (const unsigned f3 = (ir_q_ >> 12) & 7; (ir_q_ & 0x7F) == 0x0B && (f3 == 1 || f3 == 2)) {
    decide_sbuf(ir_q_, in, s);
    return s;
  }
  const Decoded d = decode(ir_q_);
  const std::uint32_t a = x_q_[d.rs1], b = x_q_[d.rs2];
  const std::uint32_t ea = a + static_cast<std::uint32_t>(d.imm);
  const unsigned size = 1u << (d.f3 & 3);  // loads and stores: 1, 2 or 4 bytes
  const auto ret = [&](std::uint32_t v) { s.retire = s.wen = true, s.wv = v; };
  switch (d.kind) {
    case Kind::illegal:
      s.code = Err::GpErrIllegal;
      break;
    case Kind::lui:
      ret(static_cast<std::uint32_t>(d.imm));
      break;
    case Kind::auipc:
      ret(pc_q_ + static_cast<std::uint32_t>(d.imm));
      break;
    case Kind::jal:
    case Kind::jalr: {
      const std::uint32_t t = d.kind == Kind::jal ? pc_q_ + static_cast<std::uint32_t>(d.imm) : ea & ~1u;
      if (t % 4) {
        s.code = Err::GpErrMisaligned;
      } else {
        ret(pc_q_ + 4);
        s.next = t;
      }
      break;
    }
    case Kind::branch: {
      const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
      bool t = false;
      switch (d.f3) {
        case 0:
          t = a == b;
          break;
        case 1:
          t = a != b;
          break;
        case 4:
          t = sa < sb;
          break;
        case 5:
          t = sa >= sb;
          break;
        case 6:
          t = a < b;
          break;
        default:
          t = a >= b;
          break;
      }
      const std::uint32_t target = pc_q_ + static_cast<std::uint32_t>(d.imm);
      if (t && target % 4) {
        s.code = Err::GpErrMisaligned;
      } else {
        s.retire = true;
        if (t) s.next = target;
      }
      break;
    }
    case Kind::load:
    case Kind::store:
      if (ea % size) {
        s.code = Err::GpErrMisaligned;
      } else if (ea >= p_.tcm_bytes) {
        s.code = Err::GpErrAccess;
      } else if (d.kind == Kind::store) {
        s.retire = true;
        s.st_word = ea / 4;
        s.st_mask = ((1u << size) - 1) << (ea % 4);
        const std::uint32_t v = size == 4 ? b : b & ((1u << 8 * size) - 1);
        s.st_data = v << 8 * (ea % 4);
      } else if (!ld_q_) {
        s.load_go = true;
        s.ld_word = ea / 4;
      } else {
        const std::uint32_t v = dr_q_ >> 8 * (ea % 4);
        const bool sgn = d.f3 < 4;
        ret(size == 4 ? v
            : sgn     ? static_cast<std::uint32_t>(sext(v & ((1u << 8 * size) - 1), 8 * size))
                      : v & ((1u << 8 * size) - 1));
      }
      break;
    case Kind::alu:
    case Kind::alu_imm:
      ret(alu(d.f3, d.alt, a, d.kind == Kind::alu ? b : static_cast<std::uint32_t>(d.imm)));
      break;
    case Kind::mul: {
      const auto sa = static_cast<std::int64_t>(static_cast<std::int32_t>(a));
      const auto sb = static_cast<std::int64_t>(static_cast<std::int32_t>(b));
      const std::int64_t ub = b;
      std::uint64_t p = 0;
      switch (d.f3) {
        case 0:
          p = std::uint64_t{a} * b;
          break;
        case 1:
          p = static_cast<std::uint64_t>(sa * sb);
          break;
        case 2:
          p = static_cast<std::uint64_t>(sa * ub);
          break;
        default:
          p = std::uint64_t{a} * b;
          break;
      }
      ret(d.f3 == 0 ? static_cast<std::uint32_t>(p) : static_cast<std::uint32_t>(p >> 32));
      break;
    }
    case Kind::div: {
      if (div_n_ + 1 < sv::gpsimd_pkg::DivCycles) {
        s.div_go = true;
        break;
      }
      const bool sgn = d.f3 == 4 || d.f3 == 6, rem = d.f3 >= 6;
      const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
      std::uint32_t q = 0, r = 0;
      if (b == 0) {
        q = ~0u, r = a;
      } else if (sgn && sa == INT32_MIN && sb == -1) {
        q = a, r = 0;
      } else if (sgn) {
        q = static_cast<std::uint32_t>(sa / sb), r = static_cast<std::uint32_t>(sa % sb);
      } else {
        q = a / b, r = a % b;
      }
      ret(rem ? r : q);
      break;
    }
    case Kind::fence:
      s.retire = true;
      break;
    case Kind::end:
      s.retire = s.stop = true;
      break;
    case Kind::sem_wait:
    case Kind::sem_add:
      if (a >= kSems) {
        s.code = Err::GpErrSem;
      } else if (d.kind == Kind::sem_add) {
        s.retire = s.sem_add = true, s.sem_idx = a, s.sem_val = b;
      } else {
        s.retire = in.sem_i[a] >= b;  // waits until the semaphore holds the value
      }
      break;
  }
  return s;
}

void Proc::eval(const In& in, Out& o) const {
  o = Out{};
  if (!in.rst_ni) return;
  const Step s = decided(in);
  o.busy_o = run_q_, o.done_o = done_q_, o.err_o = err_q_;
  o.err_code_o = code_q_, o.err_pc_o = err_pc_q_, o.host_rdata_o = dr_q_;
  if (s.vw) {
    o.vw_o = true, o.vw_reg_o = s.vw_reg, o.vw_off_o = s.vw_off, o.vw_bit_o = s.vw_bit;
    o.vw_data_o = s.vw_data;
  }
  if (s.sb_req) {
    o.sb_req_o = true, o.sb_we_o = s.sb_we, o.sb_part_o = s.sb_part & 0xFFFF, o.sb_off_o = s.sb_off;
    o.sb_mask_o = s.sb_mask, o.sb_wdata_o = s.sb_we ? s.sb_wdata : 0;
  }
  if (s.sem_add) o.sem_add_o = true, o.sem_idx_o = s.sem_idx % 32, o.sem_val_o = s.sem_val;
  if (s.retire) {
    const Decoded d = decode(ir_q_);
    o.ret_o = true;
    o.ret_pc_o = pc_q_, o.ret_insn_o = ir_q_;
    o.ret_rd_o = s.wen ? d.rd : 0;
    o.ret_wdata_o = s.wen && d.rd ? s.wv : 0;
    o.ret_st_mask_o = s.st_mask;
    o.ret_st_addr_o = s.st_mask ? 4 * s.st_word : 0;
    o.ret_st_data_o = s.st_data;
  }
}

void Proc::tick(const In& in) {
  struct Invalidate {  // the state changes below: the remembered step no longer holds
    bool& v;
    ~Invalidate() { v = false; }
  } invalidate{step_valid_};
  if (!in.rst_ni) {
    run_q_ = done_q_ = err_q_ = fe_q_ = ld_q_ = false;
    code_q_ = Err::GpErrNone;
    err_pc_q_ = ir_q_ = pc_q_ = dr_q_ = 0;
    div_n_ = 0;
    x_q_.fill(0);
    std::fill(vrf_q_.begin(), vrf_q_.end(), 0);
    vl_q_ = 0, sew_q_ = 8, ve_q_ = 0, acc_q_ = 0, sbr_q_ = 0;
    lmul2_q_ = false, vill_q_ = true, lp_q_ = false;
    return;
  }
  const Step s = decided(in);
  const Decoded d = decode(ir_q_);  // before the fetch replaces the word
  const bool start = in.start_i && !run_q_;
  const std::uint32_t host_word = in.host_addr_i % words_;
  // the data port's read (a load's first cycle, or the host's while idle)
  if (s.load_go || s.v_load)
    dr_q_ = mem_q_[s.load_go ? s.ld_word : s.v_word];
  else if (!run_q_ && in.host_re_i)
    dr_q_ = mem_q_[host_word];
  if (!run_q_ && in.host_vre_i) {  // a vector register's word: register addr / (vlen / 32)
    const unsigned wpr = p_.vlen / 32;
    dr_q_ = vrf_q_[(host_word / wpr % 32) * wpr + host_word % wpr];
  }
  // the vector unit's register write, and its state
  if (s.vw) {
    std::uint32_t& word = vrf_q_[(s.vw_reg % 32) * (p_.vlen / 32) + s.vw_off / 32];
    const std::uint32_t m = (s.vw_bit ? 1u : s.sew == 32 ? ~0u : (1u << s.sew) - 1) << (s.vw_off % 32);
    word = (word & ~m) | (s.vw_data << (s.vw_off % 32) & m);
  }
  const unsigned opc = ir_q_ & 0x7F, cf3 = (ir_q_ >> 12) & 7;
  const bool vec = opc == 0x57 || opc == 0x07 || opc == 0x27 || (opc == 0x0B && (cf3 == 1 || cf3 == 2));
  if (run_q_ && vec && !fe_q_ && s.code == Err::GpErrNone) {
    vl_q_ = s.vl, sew_q_ = s.sew, lmul2_q_ = s.lmul2, vill_q_ = s.vill;
    ve_q_ = s.ve, acc_q_ = s.acc, sbr_q_ = s.sbr;
  } else if (s.code != Err::GpErrNone) {
    ve_q_ = 0, sbr_q_ = 0;
  }
  lp_q_ = s.lp;
  ld_q_ = s.load_go;
  div_n_ = s.div_go ? div_n_ + 1 : 0;
  // the fetch, before the store of this edge
  if (start || (s.retire && !s.stop)) {
    const std::uint32_t fa = start ? in.entry_i : s.next;
    pc_q_ = fa;
    fe_q_ = fa % 4 != 0 || fa >= p_.tcm_bytes;
    if (!fe_q_) ir_q_ = mem_q_[fa / 4];
  }
  if ((s.retire && s.st_mask) || s.v_store) {
    const std::uint32_t wd = s.v_store ? s.v_word : s.st_word, mk = s.v_store ? s.v_mask : s.st_mask;
    const std::uint32_t data = s.v_store ? s.v_data : s.st_data;
    for (unsigned l = 0; l < 4; ++l)
      if (mk >> l & 1) mem_q_[wd] = (mem_q_[wd] & ~(0xFFu << 8 * l)) | (data & 0xFFu << 8 * l);
  } else if (!run_q_ && in.host_we_i) {
    mem_q_[host_word] = in.host_wdata_i;
  }
  if (s.retire && s.wen && d.rd) x_q_[d.rd] = s.wv;
  if (start) {
    x_q_.fill(0);
    std::fill(vrf_q_.begin(), vrf_q_.end(), 0);
    vl_q_ = 0, sew_q_ = 8, ve_q_ = 0, acc_q_ = 0, sbr_q_ = 0;
    lmul2_q_ = false, vill_q_ = true, lp_q_ = false;
    x_q_[10] = in.arg0_i, x_q_[11] = in.arg1_i;
    run_q_ = true, done_q_ = err_q_ = false;
    code_q_ = Err::GpErrNone, err_pc_q_ = 0;
  } else if (s.code != Err::GpErrNone) {
    run_q_ = false, err_q_ = true;
    code_q_ = s.code, err_pc_q_ = pc_q_;
  } else if (s.stop) {
    run_q_ = false, done_q_ = true;
  }
}

}  // namespace trn::gpsimd
