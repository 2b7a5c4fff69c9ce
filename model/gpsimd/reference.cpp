#include "gpsimd/reference.hpp"

#include <stdexcept>

namespace trn::gpsimd {

using sv::gpsimd_pkg::gp_err_e;

namespace {

// The instruction-set listing: an instruction is the word w with (w & mask) == match.
enum class I : std::uint8_t {
  lui,
  auipc,
  jal,
  jalr,
  beq,
  bne,
  blt,
  bge,
  bltu,
  bgeu,
  lb,
  lh,
  lw,
  lbu,
  lhu,
  sb,
  sh,
  sw,
  addi,
  slti,
  sltiu,
  xori,
  ori,
  andi,
  slli,
  srli,
  srai,
  add,
  sub,
  sll,
  slt,
  sltu,
  xor_,
  srl,
  sra,
  or_,
  and_,
  fence,
  mul,
  mulh,
  mulhsu,
  mulhu,
  div,
  divu,
  rem,
  remu,
  op_end
};
struct Entry {
  I id;
  const char* name;
  std::uint32_t mask, match;
};
constexpr Entry kListing[] = {
    {I::lui, "lui", 0x7F, 0x37},
    {I::auipc, "auipc", 0x7F, 0x17},
    {I::jal, "jal", 0x7F, 0x6F},
    {I::jalr, "jalr", 0x707F, 0x67},
    {I::beq, "beq", 0x707F, 0x63},
    {I::bne, "bne", 0x707F, 0x1063},
    {I::blt, "blt", 0x707F, 0x4063},
    {I::bge, "bge", 0x707F, 0x5063},
    {I::bltu, "bltu", 0x707F, 0x6063},
    {I::bgeu, "bgeu", 0x707F, 0x7063},
    {I::lb, "lb", 0x707F, 0x03},
    {I::lh, "lh", 0x707F, 0x1003},
    {I::lw, "lw", 0x707F, 0x2003},
    {I::lbu, "lbu", 0x707F, 0x4003},
    {I::lhu, "lhu", 0x707F, 0x5003},
    {I::sb, "sb", 0x707F, 0x23},
    {I::sh, "sh", 0x707F, 0x1023},
    {I::sw, "sw", 0x707F, 0x2023},
    {I::addi, "addi", 0x707F, 0x13},
    {I::slti, "slti", 0x707F, 0x2013},
    {I::sltiu, "sltiu", 0x707F, 0x3013},
    {I::xori, "xori", 0x707F, 0x4013},
    {I::ori, "ori", 0x707F, 0x6013},
    {I::andi, "andi", 0x707F, 0x7013},
    {I::slli, "slli", 0xFE00707F, 0x1013},
    {I::srli, "srli", 0xFE00707F, 0x5013},
    {I::srai, "srai", 0xFE00707F, 0x40005013},
    {I::add, "add", 0xFE00707F, 0x33},
    {I::sub, "sub", 0xFE00707F, 0x40000033},
    {I::sll, "sll", 0xFE00707F, 0x1033},
    {I::slt, "slt", 0xFE00707F, 0x2033},
    {I::sltu, "sltu", 0xFE00707F, 0x3033},
    {I::xor_, "xor", 0xFE00707F, 0x4033},
    {I::srl, "srl", 0xFE00707F, 0x5033},
    {I::sra, "sra", 0xFE00707F, 0x40005033},
    {I::or_, "or", 0xFE00707F, 0x6033},
    {I::and_, "and", 0xFE00707F, 0x7033},
    {I::fence, "fence", 0x707F, 0x0F},
    {I::mul, "mul", 0xFE00707F, 0x02000033},
    {I::mulh, "mulh", 0xFE00707F, 0x02001033},
    {I::mulhsu, "mulhsu", 0xFE00707F, 0x02002033},
    {I::mulhu, "mulhu", 0xFE00707F, 0x02003033},
    {I::div, "div", 0xFE00707F, 0x02004033},
    {I::divu, "divu", 0xFE00707F, 0x02005033},
    {I::rem, "rem", 0xFE00707F, 0x02006033},
    {I::remu, "remu", 0xFE00707F, 0x02007033},
    {I::op_end, "op.end", 0xFFFFFFFF, 0x0000000B},  // custom-0, docs/gpsimd.md
};
const Entry* lookup(std::uint32_t w) {
  for (const Entry& e : kListing)
    if ((w & e.mask) == e.match) return &e;
  return nullptr;
}

// The immediates of the I, S, B, U and J formats (the specification's figure of immediate types).
std::int64_t imm_i(std::uint32_t w) { return static_cast<std::int32_t>(w) >> 20; }
std::int64_t imm_s(std::uint32_t w) { return (static_cast<std::int32_t>(w) >> 25) * 32 + ((w >> 7) & 0x1F); }
std::int64_t imm_b(std::uint32_t w) {
  return (static_cast<std::int32_t>(w) >> 31) * 4096 + ((w >> 7) & 1) * 2048 + ((w >> 25) & 0x3F) * 32 +
         ((w >> 8) & 0xF) * 2;
}
std::int64_t imm_u(std::uint32_t w) { return static_cast<std::int32_t>(w & 0xFFFFF000u); }
std::int64_t imm_j(std::uint32_t w) {
  return (static_cast<std::int32_t>(w) >> 31) * (1 << 20) + ((w >> 12) & 0xFF) * (1 << 12) + ((w >> 20) & 1) * 2048 +
         ((w >> 21) & 0x3FF) * 2;
}
std::int64_t s32(std::uint32_t v) { return static_cast<std::int32_t>(v); }
std::uint32_t low32(std::int64_t v) { return static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)); }

}  // namespace

Reference::Reference(std::uint32_t mem_bytes, unsigned vlen)
    : mem_(mem_bytes, 0), vlen_(vlen), vlenb_(vlen / 8), v_(std::size_t{32} * (vlen / 8), 0) {
  if (vlen < 64 || vlen % 32 || (vlen & (vlen - 1)))
    throw std::invalid_argument("gpsimd::Reference: vlen must be a power of two >= 64");
}

void Reference::load(std::uint32_t addr, std::span<const std::uint8_t> bytes) {
  if (std::uint64_t{addr} + bytes.size() > mem_.size())
    throw std::invalid_argument("gpsimd::Reference::load: past the local memory");
  std::copy(bytes.begin(), bytes.end(), mem_.begin() + addr);
}

void Reference::start(std::uint32_t entry, std::uint32_t arg0, std::uint32_t arg1) {
  x_.fill(0);
  std::fill(v_.begin(), v_.end(), 0);
  vl_ = 0, sew_ = 8, lmul_ = 1, vill_ = true;  // no vector instruction before a vsetvli
  x_[10] = arg0;
  x_[11] = arg1;
  pc_ = entry;
  running_ = true;
  stop_ = {};
}

void Reference::fail(gp_err_e code) {
  running_ = false;
  stop_ = {code, pc_};
}

std::string Reference::name_of(std::uint32_t insn) {
  const Entry* e = lookup(insn);
  return e ? e->name : "";
}

std::optional<Reference::Retired> Reference::step() {
  if (!running_) return std::nullopt;
  if (pc_ % 4 != 0 || std::uint64_t{pc_} + 4 > mem_.size()) {
    fail(gp_err_e::GpErrFetch);
    return std::nullopt;
  }
  const std::uint32_t w = mem_[pc_] | mem_[pc_ + 1] << 8 | mem_[pc_ + 2] << 16 | std::uint32_t{mem_[pc_ + 3]} << 24;
  if (const unsigned opc = w & 0x7F; opc == 0x57 || opc == 0x07 || opc == 0x27) {
    Retired r;
    r.pc = pc_, r.insn = w;
    return vector_step(w, r);
  }
  if ((w & 0x7F) == 0x0B && w != 0x0B) {  // custom-0 but op.end (docs/gpsimd.md)
    Retired r;
    r.pc = pc_, r.insn = w;
    return custom_step(w, r);
  }
  const Entry* e = lookup(w);
  if (!e) {
    fail(gp_err_e::GpErrIllegal);
    return std::nullopt;
  }
  const unsigned rd = (w >> 7) & 31, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31;
  const std::uint32_t a = x_[rs1], b = x_[rs2];
  Retired r;
  r.pc = pc_, r.insn = w;
  std::uint32_t next = pc_ + 4;
  std::optional<std::uint32_t> result;  // the value for rd
  // a jump or taken branch: the target must be 4-aligned (IALIGN = 32), else the jump itself stops
  const auto go = [&](std::int64_t target) {
    next = low32(target);
    return next % 4 == 0;
  };
  // a load or store of n bytes at a + imm: aligned and inside local memory
  const auto access = [&](std::int64_t imm, unsigned n, std::uint32_t& addr) {
    addr = low32(s32(a) + imm);
    if (addr % n != 0) {
      fail(gp_err_e::GpErrMisaligned);
      return false;
    }
    if (std::uint64_t{addr} + n > mem_.size()) {
      fail(gp_err_e::GpErrAccess);
      return false;
    }
    return true;
  };
  const auto read = [&](std::uint32_t addr, unsigned n) {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= std::uint32_t{mem_[addr + i]} << 8 * i;
    return v;
  };
  std::uint32_t addr = 0;
  switch (e->id) {
    case I::lui:
      result = low32(imm_u(w));
      break;
    case I::auipc:
      result = low32(pc_ + imm_u(w));
      break;
    case I::jal:
      if (!go(pc_ + imm_j(w))) return fail(gp_err_e::GpErrMisaligned), std::nullopt;
      result = pc_ + 4;
      break;
    case I::jalr:
      if (!go((s32(a) + imm_i(w)) & ~std::int64_t{1})) return fail(gp_err_e::GpErrMisaligned), std::nullopt;
      result = pc_ + 4;
      break;
    case I::beq:
    case I::bne:
    case I::blt:
    case I::bge:
    case I::bltu:
    case I::bgeu: {
      const bool t = e->id == I::beq    ? a == b
                     : e->id == I::bne  ? a != b
                     : e->id == I::blt  ? s32(a) < s32(b)
                     : e->id == I::bge  ? s32(a) >= s32(b)
                     : e->id == I::bltu ? a < b
                                        : a >= b;
      if (t && !go(pc_ + imm_b(w))) return fail(gp_err_e::GpErrMisaligned), std::nullopt;
      break;
    }
    case I::lb:
      if (!access(imm_i(w), 1, addr)) return std::nullopt;
      result = low32(static_cast<std::int8_t>(read(addr, 1)));
      break;
    case I::lh:
      if (!access(imm_i(w), 2, addr)) return std::nullopt;
      result = low32(static_cast<std::int16_t>(read(addr, 2)));
      break;
    case I::lw:
      if (!access(imm_i(w), 4, addr)) return std::nullopt;
      result = read(addr, 4);
      break;
    case I::lbu:
      if (!access(imm_i(w), 1, addr)) return std::nullopt;
      result = read(addr, 1);
      break;
    case I::lhu:
      if (!access(imm_i(w), 2, addr)) return std::nullopt;
      result = read(addr, 2);
      break;
    case I::sb:
    case I::sh:
    case I::sw: {
      const unsigned n = e->id == I::sb ? 1 : e->id == I::sh ? 2 : 4;
      if (!access(imm_s(w), n, addr)) return std::nullopt;
      for (unsigned i = 0; i < n; ++i) {
        const auto byte = static_cast<std::uint8_t>(b >> 8 * i);
        mem_[addr + i] = byte;
        r.st_mask |= 1u << (addr % 4 + i);
        r.st_data |= std::uint32_t{byte} << 8 * (addr % 4 + i);
      }
      r.st_addr = addr - addr % 4;
      break;
    }
    case I::addi:
      result = low32(s32(a) + imm_i(w));
      break;
    case I::slti:
      result = s32(a) < imm_i(w);
      break;
    case I::sltiu:
      result = a < low32(imm_i(w));
      break;
    case I::xori:
      result = a ^ low32(imm_i(w));
      break;
    case I::ori:
      result = a | low32(imm_i(w));
      break;
    case I::andi:
      result = a & low32(imm_i(w));
      break;
    case I::slli:
      result = a << rs2;
      break;  // shamt is the rs2 field
    case I::srli:
      result = a >> rs2;
      break;
    case I::srai:
      result = low32(s32(a) >> rs2);
      break;
    case I::add:
      result = a + b;
      break;
    case I::sub:
      result = a - b;
      break;
    case I::sll:
      result = a << (b % 32);
      break;
    case I::slt:
      result = s32(a) < s32(b);
      break;
    case I::sltu:
      result = a < b;
      break;
    case I::xor_:
      result = a ^ b;
      break;
    case I::srl:
      result = a >> (b % 32);
      break;
    case I::sra:
      result = low32(s32(a) >> (b % 32));
      break;
    case I::or_:
      result = a | b;
      break;
    case I::and_:
      result = a & b;
      break;
    case I::fence:
      break;  // one hart, one memory
    case I::mul:
      result = low32(s32(a) * s32(b));
      break;
    case I::mulh:
      result = low32((s32(a) * s32(b)) >> 32);
      break;
    case I::mulhsu:
      result = low32((s32(a) * std::int64_t{b}) >> 32);
      break;
    case I::mulhu:
      result = static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32);
      break;
    case I::div:
      result = b == 0 ? ~0u : (s32(a) == INT32_MIN && s32(b) == -1) ? a : low32(s32(a) / s32(b));
      break;
    case I::divu:
      result = b == 0 ? ~0u : a / b;
      break;
    case I::rem:
      result = b == 0 ? a : (s32(a) == INT32_MIN && s32(b) == -1) ? 0u : low32(s32(a) % s32(b));
      break;
    case I::remu:
      result = b == 0 ? a : a % b;
      break;
    case I::op_end:
      r.end = true;
      running_ = false;
      break;
  }
  if (result && rd != 0) {
    x_[rd] = *result;
    r.rd = rd, r.wdata = *result;
  } else if (result) {
    r.rd = 0;  // x0 stays 0
  }
  pc_ = next;
  return r;
}

}  // namespace trn::gpsimd
