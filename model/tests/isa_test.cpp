// Boost.Test units of model/isa: the instruction table's legality rules, the binary file, and the
// assembler and disassembler: every op with random operands round-trips through text and binary,
// illegal words survive as .word, and bad input is reported at its file:line:column.
#include "isa/isa.hpp"

#include <boost/test/unit_test.hpp>
#include <cstring>
#include <random>

#include "numerics/format.hpp"

using namespace trn;
namespace tbl = trn::isa::tbl;

namespace {

/// A random legal instruction of `op` for stream `s`: each of its keys (and wait, post) set with
/// probability 1/2 to random field values.
Bits random_inst(const tbl::Op& op, std::mt19937_64& rng) {
  Bits w = isa::blank();
  for (unsigned f = 0; f < tbl::kFieldCount; ++f) isa::set(w, f, 0);
  isa::set(w, tbl::kF_op, op.code);
  auto fill = [&](const tbl::Key& k) {
    for (unsigned i = 0; i < k.count; ++i) {
      const auto& fd = tbl::kFields[k.fields[i]];
      std::uint64_t v = rng();
      if (fd.bits < 64) v &= (1ull << fd.bits) - 1;
      if (fd.kind == tbl::Kind::sem) v %= tbl::kSems;
      if (k.fields[i] == static_cast<int>(tbl::kF_cond)) v %= tbl::kEnums[fd.enum_id].count;  // (else illegal)
      isa::set(w, static_cast<unsigned>(k.fields[i]), v);
      if (fd.reg >= 0 && (rng() & 1)) {  // a register added at issue
        isa::set(w, static_cast<unsigned>(fd.reg), 1 + rng() % (tbl::kRegs - 1));
        if (fd.reg_dim >= 0) isa::set(w, static_cast<unsigned>(fd.reg_dim), rng() % 4);
      }
    }
    if (k.syntax == tbl::Syntax::wait || k.syntax == tbl::Syntax::post || k.syntax == tbl::Syntax::vecaddr)
      isa::set(w, static_cast<unsigned>(k.fields[0]), 1);
  };
  for (unsigned i = 0; i < op.nkeys; ++i)
    if (rng() & 1) fill(tbl::kKeys[op.keys[i]]);
  for (unsigned k = 0; k < tbl::kKeyCount; ++k) {
    const std::string name = tbl::kKeys[k].name;
    const bool need = (name == "wait" && std::strcmp(op.name, "sem_wait") == 0) ||
                      (name == "post" && std::strcmp(op.name, "sem_add") == 0);
    if ((name == "wait" || name == "post") && (need || (rng() & 1))) fill(tbl::kKeys[k]);
  }
  return w;
}

std::string error_of(const std::string& text) {
  try {
    isa::assemble(text, "k.s", {{"SBUF_BYTES", 1024}});
  } catch (const isa::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(isa_format)

BOOST_AUTO_TEST_CASE(table_fields_tile_the_word_and_ops_are_distinct) {
  unsigned next = 0;
  for (const auto& f : tbl::kFields) {
    BOOST_TEST(f.lsb == next);
    next = f.lsb + f.bits;
  }
  BOOST_TEST(next <= tbl::kInstBits);
  for (const auto& a : tbl::kOps)
    for (const auto& b : tbl::kOps)
      if (&a != &b) BOOST_TEST(a.code != b.code);
  BOOST_TEST(isa::find_op(0u) == nullptr);  // an all-zero word is illegal
  BOOST_TEST(!isa::illegal(isa::blank(), 0).empty());
}

BOOST_AUTO_TEST_CASE(legality_rules) {
  const tbl::Op* ls = isa::find_op(std::string("load_stationary"));
  BOOST_REQUIRE(ls);
  Bits w = isa::blank();
  isa::set(w, tbl::kF_op, ls->code);
  BOOST_TEST(isa::illegal(w, 0) == "");
  BOOST_TEST(isa::illegal(w, 1) == "load_stationary does not run on the vector stream");
  Bits x = w;
  isa::set(x, tbl::kF_imm0, 5);  // a field load_stationary does not use
  BOOST_TEST(isa::illegal(x, 0) == "load_stationary does not use field imm0, which is not zero");
  x = w;
  x.set_bit(tbl::kInstBits - 1, true);
  BOOST_TEST(isa::illegal(x, 0).find("reserved bit") == 0);
  x = w;
  isa::set(x, tbl::kF_wait_val, 3);  // a wait value without wait_en
  BOOST_TEST(isa::illegal(x, 0) == "wait_val is set without wait_en");
  x = w;
  isa::set(x, tbl::kF_op, 0x7F);
  BOOST_TEST(isa::illegal(x, 0) == "unknown opcode 0x7f");
  const tbl::Op* sw = isa::find_op(std::string("sem_wait"));
  Bits y = isa::blank();
  isa::set(y, tbl::kF_op, sw->code);
  BOOST_TEST(isa::illegal(y, 2) == "sem_wait without a wait");
}

BOOST_AUTO_TEST_CASE(every_op_round_trips_through_text_and_binary) {
  std::mt19937_64 rng(18);
  isa::Program p;
  p.sem_names[3] = "ready";
  p.sem_names[17] = "done";
  for (int rep = 0; rep < 40; ++rep)
    for (const auto& op : tbl::kOps) {
      for (unsigned s = 0; s < isa::kStreams; ++s) {
        if (!((op.streams >> s) & 1u)) continue;
        Bits w = random_inst(op, rng);
        BOOST_TEST_REQUIRE(isa::illegal(w, s) == "", op.name << ": " << isa::illegal(w, s));
        p.streams[s].push_back(std::move(w));
      }
    }
  // words that are not legal instructions survive as .word
  Bits junk = isa::blank();
  for (unsigned i = 0; i < junk.words(); ++i) junk.set_word(i, rng());
  p.streams[1].push_back(junk);
  p.streams[2].push_back(isa::blank());
  p.labels.push_back({0, 0, "top"});
  p.labels.push_back({0, 5, "mid"});
  p.labels.push_back({3, static_cast<unsigned>(p.streams[3].size()), "tail"});
  const std::string text = isa::disassemble(p);
  const isa::Program q = isa::assemble(text, "roundtrip.s");
  BOOST_TEST((q == p));
  for (unsigned s = 0; s < isa::kStreams; ++s)
    for (std::size_t i = 0; i < std::min(p.streams[s].size(), q.streams[s].size()); ++i)
      if (!(p.streams[s][i] == q.streams[s][i]))
        BOOST_TEST_MESSAGE("differs: " << isa::disassemble(p.streams[s][i], s) << "\n   vs   "
                                       << isa::disassemble(q.streams[s][i], s));
  const auto bin = isa::to_binary(p);
  BOOST_TEST((isa::from_binary(bin, "p.bin") == p));
  BOOST_TEST(bin.size() > 40 * tbl::kOpCount * tbl::kInstBytes);
  // every op was generated with each of its keys at least once in some instruction
  BOOST_TEST(text.find("dsem=") != std::string::npos);
  BOOST_TEST(text.find("a.stride=") != std::string::npos);
  BOOST_TEST(text.find(".word 0x") != std::string::npos);
  BOOST_TEST(text.find("loop r") != std::string::npos);
  BOOST_TEST(text.find("size=r") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(registers_branches_and_loops) {
  const std::string src = R"(
.const N = 3
.stream vector
    reg_set r1, N
top:
    reg_add r2, r2, r1+4
    branch ltu, r2, -1, fwd        ; forward
    reg_mul rd=r3 ra=r2 rhs=r1     ; the same op with keys
fwd:
    copy pc=1 size=8,r4+2 a=sbuf:r2+64:fp32 o=sbuf:r3:fp32
    loop r1, top post=s+=1
    sem_wait wait=s>=r6+2
    end
.stream sync
    dma_start src=hbm:r5 dst=sbuf:0 len=r6+4 stype=bytes dtype=bytes
    reg_load r7, sbuf:r1+8 queue=1
    end
)";
  const isa::Program p = isa::assemble(".sem s\n" + src, "c.s");
  const auto& v = p.streams[1];
  BOOST_TEST(isa::get(v[0], tbl::kF_rd) == 1u);
  BOOST_TEST(isa::get(v[0], tbl::kF_imm0) == 3u);
  BOOST_TEST(isa::get(v[1], tbl::kF_ra) == 2u);
  BOOST_TEST(isa::get(v[1], tbl::kF_rb) == 1u);
  BOOST_TEST(isa::get(v[1], tbl::kF_imm0) == 4u);
  BOOST_TEST(isa::get(v[2], tbl::kF_cond) == 4u);  // ltu
  BOOST_TEST(isa::get(v[2], tbl::kF_imm0) == 0xFFFFFFFFu);
  BOOST_TEST(isa::get(v[2], tbl::kF_target) == 4u);  // fwd, named before it is defined
  BOOST_TEST(isa::get(v[3], tbl::kF_rd) == 3u);
  BOOST_TEST(isa::get(v[3], tbl::kF_rb) == 1u);
  BOOST_TEST(isa::get(v[4], tbl::kF_size) == 0x0001000100020008ull);  // dim 1: 2 + r4
  BOOST_TEST(isa::get(v[4], tbl::kF_size_r) == 4u);
  BOOST_TEST(isa::get(v[4], tbl::kF_size_rd) == 1u);
  BOOST_TEST(isa::get(v[4], tbl::kF_a_addr) == 64u);
  BOOST_TEST(isa::get(v[4], tbl::kF_a_addr_r) == 2u);
  BOOST_TEST(isa::get(v[4], tbl::kF_o_addr) == 0u);
  BOOST_TEST(isa::get(v[4], tbl::kF_o_addr_r) == 3u);
  BOOST_TEST(isa::get(v[5], tbl::kF_target) == 1u);  // top
  BOOST_TEST(isa::get(v[6], tbl::kF_wait_val) == 2u);
  BOOST_TEST(isa::get(v[6], tbl::kF_wait_r) == 6u);
  BOOST_TEST(isa::get(p.streams[3][0], tbl::kF_src_r) == 5u);
  BOOST_TEST(isa::get(p.streams[3][0], tbl::kF_len_r) == 6u);
  BOOST_TEST(isa::get(p.streams[3][0], tbl::kF_len) == 4u);
  BOOST_TEST(isa::get(p.streams[3][1], tbl::kF_rd) == 7u);
  BOOST_TEST(isa::get(p.streams[3][1], tbl::kF_src_space) == 1u);  // sbuf
  BOOST_TEST(isa::get(p.streams[3][1], tbl::kF_src_r) == 1u);
  BOOST_TEST(isa::get(p.streams[3][1], tbl::kF_src_addr) == 8u);
  BOOST_TEST(isa::get(p.streams[3][1], tbl::kF_queue) == 1u);
  for (const auto& s : p.streams)
    for (const auto& w : s) BOOST_TEST(isa::illegal(w, static_cast<unsigned>(&s - &p.streams[0])) == "");
  // the text names the labels and registers again, and assembles back to the same program
  const std::string text = isa::disassemble(p);
  BOOST_TEST(text.find("branch ltu, r2, -1, fwd") != std::string::npos, text);
  BOOST_TEST(text.find("size=8,r4+2 a=sbuf:r2+64:fp32 o=sbuf:r3:fp32") != std::string::npos, text);
  BOOST_TEST((isa::assemble(text, "c2.s") == p));
  // the substitution: fields plus registers, truncated; false when a sum does not fit
  isa::Regs r{};
  r[2] = 100, r[3] = 8, r[4] = 5;
  Bits e;
  BOOST_TEST(isa::substitute(v[4], r, e));
  BOOST_TEST(isa::get(e, tbl::kF_a_addr) == 164u);
  BOOST_TEST(isa::get(e, tbl::kF_o_addr) == 8u);
  BOOST_TEST(isa::get(e, tbl::kF_size) == 0x0001000100070008ull);
  r[4] = 0xFFFE;  // 2 + 0xFFFE = 0x10000: dim 1 does not fit
  BOOST_TEST(!isa::substitute(v[4], r, e));
  r[4] = 0, r[2] = 0xFFFFC0;  // 64 + 0xFFFFC0 = 2^24: a_addr does not fit
  BOOST_TEST(!isa::substitute(v[4], r, e));
  BOOST_TEST(isa::names_register(v[4]));
  BOOST_TEST(!isa::names_register(v[0]));
  // a branch condition past the six is illegal
  Bits b = v[2];
  isa::set(b, tbl::kF_cond, 6);
  BOOST_TEST(isa::illegal(b, 1) == "branch condition 6 is not one of the 6");
  Bits d = isa::blank();  // a size dimension named with no register
  isa::set(d, tbl::kF_op, isa::find_op(std::string("copy"))->code);
  isa::set(d, tbl::kF_size_rd, 2);
  BOOST_TEST(isa::illegal(d, 1) == "size_rd is set without size_r");
}

BOOST_AUTO_TEST_CASE(local_labels_name_the_nearest_definition) {
  // a loop inside .for: each pass of the .for defines 1 again, and each loop names its own; 2f
  // the next 2 after it (the one in the vector stream is not this stream's)
  const isa::Program p = isa::assemble(R"(
.stream vector
2:
    end
.stream sync
.for i = 0, 3
    reg_set r1, 2
1:
    reg_add r2, r2, 1
    loop r1, 1b
    branch eq, r2, 6, 2f
.endfor
2:
    end
)",
                                       "l.s");
  const auto& v = p.streams[3];
  BOOST_TEST_REQUIRE(v.size() == 13u);
  for (unsigned i = 0; i < 3; ++i) {
    BOOST_TEST(isa::get(v[4 * i + 2], tbl::kF_target) == 4 * i + 1);  // its own pass's 1
    BOOST_TEST(isa::get(v[4 * i + 3], tbl::kF_target) == 12u);        // the sync stream's 2
  }
  BOOST_TEST(p.labels.empty());  // not kept: the disassembly gives pcs, which assemble back
  BOOST_TEST((isa::assemble(isa::disassemble(p), "l2.s") == p));
  BOOST_TEST(error_of(".stream sync\n  loop r1, 1b\n1:\n  end\n") ==
             "k.s:2:12: error: local label '1b': no '1:' before it in the sync stream");
  BOOST_TEST(error_of(".stream sync\n1:\n  loop r1, 1f\n  end\n") ==
             "k.s:3:12: error: local label '1f': no '1:' after it in the sync stream");
  BOOST_TEST(error_of(".stream vector\n1:\n  end\n.stream sync\n  loop r1, 1b\n  end\n") ==
             "k.s:5:12: error: local label '1b': no '1:' before it in the sync stream");
}

BOOST_AUTO_TEST_CASE(control_flow_errors_name_the_place) {
  BOOST_TEST(error_of(".stream vector\n  loop r1, nowhere\n") == "k.s:2:12: error: unknown label 'nowhere'");
  BOOST_TEST(error_of(".stream vector\nx:\n  end\n.stream scalar\n  loop r1, x\n") ==
             "k.s:5:12: error: label 'x' is in the vector stream, not the scalar");
  BOOST_TEST(error_of(".stream vector\n  loop r1, y\n.stream sync\ny:\n  end\n") ==
             "k.s:2:12: error: label 'y' is in the sync stream, not the vector");
  BOOST_TEST(error_of(".stream vector\n  loop r16, x\nx:\n") == "k.s:2:8: error: expected a register r0 .. r15");
  BOOST_TEST(error_of(".stream vector\n  reg_add r1, r2\n") == "k.s:2:17: error: expected reg_add rd, ra, rhs");
  BOOST_TEST(error_of(".stream vector\n  reg_add r1, r2, r3+\n") ==
             "k.s:2:21: error: expected an expression after '+'");
  BOOST_TEST(error_of(".stream vector\n  reg_add r1, r2, r3*2\n") ==
             "k.s:2:21: error: expected '+' after register r3 (rN or rN+EXPR)");
  BOOST_TEST(error_of(".stream vector\n  copy size=r1,r2\n") ==
             "k.s:2:16: error: only one dimension of size may name a register");
  BOOST_TEST(error_of(".const r3 = 1\n") == "k.s:1:8: error: 'r3' is a register (r0 .. r15 are reserved)");
  BOOST_TEST(error_of(".stream vector\nr2:\n") == "k.s:2:1: error: 'r2' is a register (r0 .. r15 are reserved)");
  BOOST_TEST(error_of(".stream vector\n  branch lt, r1, 0, x\nx:\n  branch lz, r1, 0, x\n")
                 .find("k.s:4:10: error: expected a cond (eq, ne, lt, ge, ltu, geu), got 'lz'") == 0);
  BOOST_TEST(error_of(".stream vector\n  copy pc=r1\n") ==
             "k.s:2:11: error: 'r1' is a register, where this value takes a number");
}

BOOST_AUTO_TEST_CASE(assembly_features) {
  const std::string src = R"(
; constants, loops, conditions, named semaphores and labels
.const N = 4
.sem a, b = 7, c
.stream tensor
top:
.for i = 0, N
.if i % 2 == 0
    load_stationary t=i*64:bf16 k=4 m=min(N, 8) wait=a>=i+1   // even
.else
    multiply_moving t=(i*64):bf16 n=cdiv(17, 4) bank=i/2 post=b+=1  # odd
.endif
.endfor
    end
.stream sync
    dma_start queue=1 src=hbm:0x100 dst=sbuf:sb(2, 0x10) len=64 stype=bytes dtype=bytes dsem=c+=2
    sem_wait wait=7>=top+3
    end
)";
  const isa::Program p = isa::assemble(src, "f.s", {{"SBUF_BYTES", 1024}});
  BOOST_TEST(p.streams[0].size() == 5u);
  BOOST_TEST(p.streams[3].size() == 3u);
  BOOST_TEST(isa::get(p.streams[0][2], tbl::kF_a_addr) == 128u);
  BOOST_TEST(isa::get(p.streams[0][2], tbl::kF_wait_val) == 3u);
  BOOST_TEST(isa::get(p.streams[0][2], tbl::kF_wait_sem) == 0u);  // a
  BOOST_TEST(isa::get(p.streams[0][3], tbl::kF_n) == 5u);
  BOOST_TEST(isa::get(p.streams[0][3], tbl::kF_bank) == 1u);
  BOOST_TEST(isa::get(p.streams[0][3], tbl::kF_post_sem) == 7u);  // b
  BOOST_TEST(isa::get(p.streams[3][0], tbl::kF_dst_addr) == (2u << 10 | 0x10));
  BOOST_TEST(isa::get(p.streams[3][0], tbl::kF_dsem) == 1u);  // c: the first free after a
  BOOST_TEST(isa::get(p.streams[3][1], tbl::kF_wait_val) == 3u);
  BOOST_TEST(p.sem_names.at(7) == "b");
  BOOST_TEST(p.where(0, 3) == "pc 3 (top+3)");
  BOOST_TEST(p.where(3, 1) == "pc 1");
  // absent size dims are 1, given ones replace them
  const isa::Program q = isa::assemble(".stream vector\n copy pc=4 size=8,2\n", "g.s");
  BOOST_TEST(isa::get(q.streams[1][0], tbl::kF_size) == 0x0001000100020008ull);
  BOOST_TEST(isa::get(q.streams[1][0], tbl::kF_pc) == 4u);
  // logical operators; .default yields to a constant defined before it (-D)
  const std::string d = ".default P = 3\n.default Q = 5\n.stream vector\n copy pc=P*10+Q+(P>2&&Q<5)+2*(P==3||Q==0)\n";
  BOOST_TEST(isa::get(isa::assemble(d, "d.s").streams[1][0], tbl::kF_pc) == 37u);
  BOOST_TEST(isa::get(isa::assemble(d, "d.s", {{"Q", 1}}).streams[1][0], tbl::kF_pc) == 34u);
  const isa::Program f = isa::assemble(".stream vector\n memset imm0=f32div(1, 3)\n memset imm0=f32(0.25)\n", "f.s");
  BOOST_TEST(isa::get(f.streams[1][0], tbl::kF_imm0) == numerics::f32_bits(1.0f / 3.0f));
  BOOST_TEST(isa::get(isa::assemble(".stream vector\n memset imm0=f32rsqrt(16)\n", "r.s").streams[1][0],
                      tbl::kF_imm0) == 0x3E800000u);
  BOOST_TEST(isa::get(f.streams[1][1], tbl::kF_imm0) == 0x3E800000u);
  // NAME + EXPR: the semaphore EXPR after NAME, in a wait and in a post
  const isa::Program sp = isa::assemble(
      ".sem a, b, c\n.stream vector\n.for k = 0, 2\n sem_add post=a+k+1+=1\n sem_wait wait=a+k>=3\n.endfor\n", "s.s");
  BOOST_TEST(isa::get(sp.streams[1][0], tbl::kF_post_sem) == 1u);
  BOOST_TEST(isa::get(sp.streams[1][2], tbl::kF_post_sem) == 2u);
  BOOST_TEST(isa::get(sp.streams[1][1], tbl::kF_wait_sem) == 0u);
  BOOST_TEST(isa::get(sp.streams[1][3], tbl::kF_wait_sem) == 1u);
  BOOST_TEST(error_of(".sem a, b\n.stream vector\n  sem_add post=a+2+=1\n") ==
             "k.s:3:16: error: 'a+2' is semaphore 2, which no .sem declares");
  // dtype(NAME): an element type's code, usable wherever a type is
  const isa::Program t =
      isa::assemble(".const ET = dtype(e4m3)\n.stream vector\n copy a=sbuf:0:ET o=sbuf:0:bf16\n", "t.s");
  BOOST_TEST(isa::get(t.streams[1][0], tbl::kF_a_fmt) == 5u);
  BOOST_TEST(error_of(".stream vector\n  copy pc=dtype(fp12)\n")
                 .find("k.s:2:17: error: dtype() takes an element type (fp32, ") == 0);
}

BOOST_AUTO_TEST_CASE(errors_name_the_place_and_what_was_expected) {
  BOOST_TEST(error_of("copy\n") == "k.s:1:1: error: an instruction before the first .stream directive");
  BOOST_TEST(error_of(".stream tensor\n  copy\n") == "k.s:2:3: error: copy does not run on the tensor stream");
  BOOST_TEST(error_of(".stream vector\n  copy k=4\n").find("k.s:2:8: error: copy takes no key 'k'") == 0);
  BOOST_TEST(error_of(".stream vector\n  copy a=sbuf:0\n") == "k.s:2:10: error: expected a=SPACE:ADDR:TYPE");
  BOOST_TEST(error_of(".stream vector\n  copy a=hbm:0:bf16\n") ==
             "k.s:2:10: error: expected a space (sbuf, psum), got 'hbm'");
  BOOST_TEST(error_of(".stream vector\n  copy pc=300\n") == "k.s:2:11: error: 300 does not fit in pc (8 bits)");
  BOOST_TEST(error_of(".stream vector\n  copy size=1,2,3,4,5\n") == "k.s:2:13: error: size has at most 4 dimensions");
  BOOST_TEST(error_of(".stream vector\n  copy pc=X+1\n") == "k.s:2:11: error: unknown name 'X'");
  BOOST_TEST(error_of(".stream vector\n  copy wait=s>=1\n") ==
             "k.s:2:13: error: unknown semaphore 's' (declare it with .sem)");
  BOOST_TEST(error_of(".stream vector\n  copy wait=40>=1\n") == "k.s:2:13: error: semaphore 40 (there are 32)");
  BOOST_TEST(error_of(".stream warp\n") ==
             "k.s:1:9: error: expected a stream (tensor, vector, scalar, sync), got 'warp'");
  BOOST_TEST(error_of(".for i = 0, 2\n") == "k.s:1:1: error: .for without .endfor");
  BOOST_TEST(error_of(".endif\n") == "k.s:1:1: error: .endif without its opening directive");
  BOOST_TEST(error_of(".const A = 1\n.const A = 2\n") == "k.s:2:8: error: constant 'A' is already defined (as 1)");
  BOOST_TEST(error_of(".stream tensor\nx:\nx:\n") == "k.s:3:1: error: label 'x' is already defined");
  BOOST_TEST(error_of(".bogus\n").find("k.s:1:1: error: unknown directive '.bogus'") == 0);
  BOOST_TEST(error_of(".stream sync\n  dma_start dst=sbuf:sb(0, 2048)\n") ==
             "k.s:2:22: error: sb(): offset 2048 outside a partition of 1024 bytes");
}

BOOST_AUTO_TEST_CASE(binary_errors_name_the_byte) {
  isa::Program p = isa::assemble(".stream sync\n end\n", "e.s");
  auto b = isa::to_binary(p);
  auto err = [](const std::vector<std::uint8_t>& bytes) {
    try {
      isa::from_binary(bytes, "p.bin");
    } catch (const isa::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  BOOST_TEST(err(b) == "");
  auto bad = b;
  bad[0] = 'X';
  BOOST_TEST(err(bad) == "p.bin: byte 0: not a NeuronCore program (no \"TRNI\" magic)");
  bad = b;
  bad.resize(30);
  // the header: magic 4, version 2, instruction bytes 2, five stream counts 4 each
  BOOST_TEST(err(bad) == "p.bin: byte 28: the file ends inside the instructions (30 bytes long)");
  bad = b;
  bad.push_back(0);
  BOOST_TEST(err(bad).find("1 bytes after the end of the program") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
