// RV32IM instruction words by format (the RISC-V unprivileged specification's base formats), for the
// random programs and the tests that need a particular word. The operand order is the assembler's.
#pragma once

#include <cstdint>

namespace trn::gpsimd::enc {

constexpr std::uint32_t r_type(unsigned opc, unsigned f3, unsigned f7, unsigned rd, unsigned rs1, unsigned rs2) {
  return f7 << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | f3 << 12 | (rd & 31) << 7 | opc;
}
constexpr std::uint32_t i_type(unsigned opc, unsigned f3, unsigned rd, unsigned rs1, std::int32_t imm) {
  return (static_cast<std::uint32_t>(imm) & 0xFFF) << 20 | (rs1 & 31) << 15 | f3 << 12 | (rd & 31) << 7 | opc;
}
constexpr std::uint32_t s_type(unsigned f3, unsigned rs1, unsigned rs2, std::int32_t imm) {
  const auto u = static_cast<std::uint32_t>(imm);
  return (u >> 5 & 0x7F) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | f3 << 12 | (u & 31) << 7 | 0x23;
}
constexpr std::uint32_t b_type(unsigned f3, unsigned rs1, unsigned rs2, std::int32_t off) {
  const auto u = static_cast<std::uint32_t>(off);
  return (u >> 12 & 1) << 31 | (u >> 5 & 0x3F) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | f3 << 12 |
         (u >> 1 & 0xF) << 8 | (u >> 11 & 1) << 7 | 0x63;
}
constexpr std::uint32_t u_type(unsigned opc, unsigned rd, std::uint32_t upper20) {
  return (upper20 & 0xFFFFF) << 12 | (rd & 31) << 7 | opc;
}
constexpr std::uint32_t j_type(unsigned rd, std::int32_t off) {
  const auto u = static_cast<std::uint32_t>(off);
  return (u >> 20 & 1) << 31 | (u >> 1 & 0x3FF) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xFF) << 12 | (rd & 31) << 7 |
         0x6F;
}

constexpr std::uint32_t kOpImm = 0x13, kOp = 0x33, kLoad = 0x03, kJalr = 0x67, kLui = 0x37, kAuipc = 0x17;
constexpr std::uint32_t addi(unsigned rd, unsigned rs1, std::int32_t imm) { return i_type(kOpImm, 0, rd, rs1, imm); }
constexpr std::uint32_t lui(unsigned rd, std::uint32_t upper20) { return u_type(kLui, rd, upper20); }
constexpr std::uint32_t auipc(unsigned rd, std::uint32_t upper20) { return u_type(kAuipc, rd, upper20); }
constexpr std::uint32_t jal(unsigned rd, std::int32_t off) { return j_type(rd, off); }
constexpr std::uint32_t jalr(unsigned rd, unsigned rs1, std::int32_t imm) { return i_type(kJalr, 0, rd, rs1, imm); }
constexpr std::uint32_t bne(unsigned rs1, unsigned rs2, std::int32_t off) { return b_type(1, rs1, rs2, off); }
constexpr std::uint32_t lw(unsigned rd, unsigned rs1, std::int32_t imm) { return i_type(kLoad, 2, rd, rs1, imm); }
constexpr std::uint32_t sw(unsigned rs1, unsigned rs2, std::int32_t imm) { return s_type(2, rs1, rs2, imm); }
constexpr std::uint32_t op_end() { return 0x0000000B; }  // custom-0, docs/gpsimd.md

// ---- the vector subset (docs/gpsimd.md "The vector unit")
constexpr std::uint32_t kOpV = 0x57, kVLoad = 0x07, kVStore = 0x27;
/// vtype: SEW 8 << vsew, LMUL 1 << vlmul (and vta, vma)
constexpr std::uint32_t vtype(unsigned vsew, unsigned vlmul, bool ta = false, bool ma = false) {
  return vlmul | vsew << 3 | unsigned{ta} << 6 | unsigned{ma} << 7;
}
constexpr std::uint32_t vsetvli(unsigned rd, unsigned rs1, std::uint32_t vt) {
  return (vt & 0x7FF) << 20 | (rs1 & 31) << 15 | 7u << 12 | (rd & 31) << 7 | kOpV;
}
constexpr std::uint32_t vsetivli(unsigned rd, unsigned uimm, std::uint32_t vt) {
  return 3u << 30 | (vt & 0x3FF) << 20 | (uimm & 31) << 15 | 7u << 12 | (rd & 31) << 7 | kOpV;
}
/// An OP-V word: funct6, vm (1: unmasked), vs2, vs1 / rs1 / imm, funct3 (the operand form), vd / rd.
constexpr std::uint32_t opv(unsigned f6, bool vm, unsigned vs2, unsigned vs1, unsigned f3, unsigned vd) {
  return f6 << 26 | unsigned{vm} << 25 | (vs2 & 31) << 20 | (vs1 & 31) << 15 | f3 << 12 | (vd & 31) << 7 | kOpV;
}
/// A vector load or store: width 0 / 5 / 6 (EEW 8 / 16 / 32), mop 0 unit-stride or 2 strided (rs2).
constexpr std::uint32_t vmem(bool store, unsigned width, unsigned vd, unsigned rs1, bool vm, unsigned mop = 0,
                             unsigned rs2 = 0) {
  return mop << 26 | unsigned{vm} << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | width << 12 | (vd & 31) << 7 |
         (store ? kVStore : kVLoad);
}

// ---- the custom instructions (custom-0, docs/gpsimd.md "Custom instructions")
constexpr std::uint32_t kCustom0 = 0x0B;
/// sb.load vd, (partition x[rs1], byte offset x[rs2]); bf16: BF16 in SBUF widened to FP32
constexpr std::uint32_t sb_load(unsigned vd, unsigned rs1, unsigned rs2, bool bf16 = false) {
  return r_type(kCustom0, 1, bf16, vd, rs1, rs2);
}
/// sb.store vs3, (x[rs1], x[rs2]); bf16: FP32 narrowed to BF16 (round to nearest even)
constexpr std::uint32_t sb_store(unsigned vs3, unsigned rs1, unsigned rs2, bool bf16 = false) {
  return r_type(kCustom0, 2, bf16, vs3, rs1, rs2);
}
/// sem.wait x[rs1] >= x[rs2]; sem.add x[rs1] += x[rs2]
constexpr std::uint32_t sem_wait(unsigned rs1, unsigned rs2) { return r_type(kCustom0, 3, 0, 0, rs1, rs2); }
constexpr std::uint32_t sem_add(unsigned rs1, unsigned rs2) { return r_type(kCustom0, 4, 0, 0, rs1, rs2); }

/// The two words that set rd to v: lui with the upper 20 bits (rounded for addi's sign), then addi.
struct Li {
  std::uint32_t hi, lo;
};
constexpr Li li(unsigned rd, std::uint32_t v) {
  const std::uint32_t up = (v + 0x800) >> 12;
  return {lui(rd, up), addi(rd, rd, static_cast<std::int32_t>(v << 20) >> 20)};
}

}  // namespace trn::gpsimd::enc
