// Boost.Test units of the GpSimd processor's model (trn::gpsimd::Proc) against the reference
// interpreter written from the RISC-V specification (trn::gpsimd::Reference), and of both against
// values worked out by hand from the specification: random RV32IM programs retire the same
// instructions with the same effects; the division corner cases; every stop with its code and pc;
// the timing docs/gpsimd.md gives.
#include <boost/test/unit_test.hpp>
#include <map>
#include <random>
#include <string>

#include "gpsimd/encode.hpp"
#include "gpsimd/engine.hpp"
#include "gpsimd/operators.hpp"
#include "gpsimd/proc.hpp"
#include "gpsimd/random_program.hpp"
#include "gpsimd/reference.hpp"

using namespace trn;
using namespace trn::gpsimd;

namespace {

std::vector<std::uint8_t> bytes_of(const std::vector<std::uint32_t>& words) {
  std::vector<std::uint8_t> b;
  for (const std::uint32_t w : words)
    for (unsigned i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(w >> 8 * i));
  return b;
}

/// A model and the reference on one program: the model ticked cycle by cycle from a start at 0,
/// each retire compared with the reference's next instruction. Returns the cycles from the start
/// to the end (the cycle the processor is idle again).
struct Run {
  Proc m;
  Reference ref;
  std::uint64_t cycles = 0, retired = 0;
  std::map<std::string, std::uint64_t>* seen = nullptr;  ///< retires by instruction name

  Run(std::uint32_t mem, const std::vector<std::uint32_t>& code, std::uint32_t data_at = 0,
      const std::vector<std::uint8_t>& data = {})
      : Run(mem, Image{bytes_of(code)}) {
    if (!data.empty()) {
      m.load(data_at, data);
      ref.load(data_at, data);
    }
  }
  struct Image {
    const std::vector<std::uint8_t>& bytes;  ///< local memory from 0
  };
  Run(std::uint32_t mem, Image image, unsigned vlen = 128) : m({mem, vlen}), ref(mem, vlen) {
    m.load(0, image.bytes);
    ref.load(0, image.bytes);
  }
  void go(std::uint32_t a0 = 0, std::uint32_t a1 = 0, std::uint64_t limit = 100000) {
    Proc::In in;
    Proc::Out out;
    in.rst_ni = true;
    in.start_i = true, in.arg0_i = a0, in.arg1_i = a1;
    m.eval(in, out);
    m.tick(in);
    ref.start(0, a0, a1);
    in.start_i = false;
    for (cycles = 1; cycles < limit; ++cycles) {
      m.eval(in, out);
      if (!out.busy_o) break;
      if (out.ret_o) {
        const auto r = ref.step();
        BOOST_REQUIRE_MESSAGE(r, "the model retires pc " << out.ret_pc_o << " where the reference stops");
        const Reference::Retired got{out.ret_pc_o,      out.ret_insn_o,    out.ret_rd_o,      out.ret_wdata_o,
                                     out.ret_st_mask_o, out.ret_st_addr_o, out.ret_st_data_o, r->end};
        BOOST_REQUIRE_MESSAGE(got == *r, "retire " << retired << " at pc " << r->pc << " ("
                                                   << Reference::name_of(r->insn) << ") differs from the reference");
        ++retired;
        if (seen) ++(*seen)[Reference::name_of(r->insn)];
      }
      m.tick(in);
    }
    BOOST_REQUIRE_MESSAGE(cycles < limit, "the program did not stop in " << limit << " cycles");
    if (m.error()) {  // the reference stops at the same instruction, for the same reason
      BOOST_TEST(!ref.step());
      BOOST_TEST(static_cast<unsigned>(ref.stop().code) == static_cast<unsigned>(m.err_code()));
      BOOST_TEST(ref.stop().pc == m.err_pc());
    }
    BOOST_TEST(!ref.running());
    for (unsigned r = 0; r < 32; ++r) BOOST_TEST(m.reg(r) == ref.x(r), "x" << r);
    for (unsigned r = 0; r < 32; ++r)
      for (unsigned w = 0; w < m.params().vlen / 32; ++w)
        BOOST_REQUIRE_MESSAGE(m.vreg_word(r, w) == ref.vreg_word(r, w), "v" << r << " word " << w);
    BOOST_TEST(m.vl() == ref.vl());
    for (unsigned i = 0; i < ref.memory().size() / 4; ++i) {
      const auto* p = &ref.memory()[4 * i];
      BOOST_REQUIRE(m.word(i) == (p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t{p[3]} << 24));
    }
  }
};

using namespace trn::gpsimd::enc;
std::uint32_t mop(unsigned f3, unsigned rd, unsigned a, unsigned b) { return r_type(kOp, f3, 1, rd, a, b); }

}  // namespace

BOOST_AUTO_TEST_SUITE(gpsimd)

BOOST_AUTO_TEST_CASE(random_programs_retire_as_the_reference_interprets_them) {
  std::uint64_t total = 0;
  std::map<std::string, std::uint64_t> seen;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint32_t mem = seed % 2 ? 4096 : 16384;
    const RandomProgram p = random_program(rng, mem, 150);
    Run r(mem, p.words, p.data_lo, p.data);
    r.seen = &seen;
    r.go(static_cast<std::uint32_t>(seed), 0x1234);
    BOOST_TEST_REQUIRE(r.m.done(), "seed " << seed << ": did not end with op.end (stopped with code "
                                           << static_cast<unsigned>(r.m.err_code()) << " at pc " << r.m.err_pc() << ": "
                                           << Reference::name_of(r.m.word(r.m.err_pc() / 4 % (mem / 4))) << ")");
    total += r.retired;
  }
  BOOST_TEST(total > 200u * 150);  // every program runs its blocks, loops more than once
  // every instruction of RV32IM and op.end retired, 20 times at least
  for (const char* n :
       {"lui",  "auipc", "jal",  "jalr", "beq",    "bne",   "blt",  "bge",  "bltu",  "bgeu", "lb",    "lh",
        "lw",   "lbu",   "lhu",  "sb",   "sh",     "sw",    "addi", "slti", "sltiu", "xori", "ori",   "andi",
        "slli", "srli",  "srai", "add",  "sub",    "sll",   "slt",  "sltu", "xor",   "srl",  "sra",   "or",
        "and",  "fence", "mul",  "mulh", "mulhsu", "mulhu", "div",  "divu", "rem",   "remu", "op.end"})
    BOOST_TEST(seen[n] >= 20u, n << " retired " << seen[n] << " times");
}

BOOST_AUTO_TEST_CASE(random_vector_programs_as_the_reference) {
  // programs with vector blocks at every VLEN of the configurations: each retire, and at the end
  // the registers, vector registers, vl and memory, against the reference
  std::uint64_t total = 0;
  for (const unsigned vlen : {128u, 256u, 512u})
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      std::mt19937_64 rng(seed * 7 + vlen);
      const std::uint32_t mem = 16384;
      const RandomProgram p = random_program(rng, mem, 120, vlen);
      Run r(mem, Run::Image{bytes_of(p.words)}, vlen);
      r.m.load(p.data_lo, p.data);
      r.ref.load(p.data_lo, p.data);
      r.go(static_cast<std::uint32_t>(seed), 0);
      BOOST_TEST_REQUIRE(r.m.done(), "vlen " << vlen << " seed " << seed << ": stopped with code "
                                             << static_cast<unsigned>(r.m.err_code()) << " at pc " << r.m.err_pc());
      total += r.retired;
    }
  BOOST_TEST(total > 3u * 60 * 100);
}

BOOST_AUTO_TEST_CASE(random_vector_words_as_the_reference) {
  // every OP-V funct6 and funct3, loads and stores with random fields, then random words, each at a
  // random vtype and vl: it retires, or stops where and why the reference does
  unsigned stopped = 0;
  for (const unsigned vlen : {128u, 512u})
    for (unsigned k = 0; k < 2560; ++k) {
      std::mt19937_64 rng(k * 3 + vlen);
      const RandomProgram p = random_vector_word(rng, 4096, vlen, k);
      Run r(4096, Run::Image{bytes_of(p.words)}, vlen);
      r.m.load(p.data_lo, p.data);
      r.ref.load(p.data_lo, p.data);
      r.go(0, 0);
      stopped += r.m.error();
    }
  BOOST_TEST(stopped > 2u * 2560 / 4);         // a fair share of the words is illegal or out of range
  BOOST_TEST(stopped < 2u * 2560 * 95 / 100);  // and some run (the OP-V space is mostly not the subset)
}

BOOST_AUTO_TEST_CASE(fp32_vector_operations_on_every_class_of_value_as_the_reference) {
  // the results in their own arrays: the reference compares each operation's; and a few worked
  // out by hand from SPEC 4 and IEEE 754-2019
  const RandomProgram p = fp_corners(16384, true);
  Run r(16384, Run::Image{bytes_of(p.words)}, 256);
  r.m.load(p.data_lo, p.data);
  r.ref.load(p.data_lo, p.data);
  r.go();
  BOOST_TEST_REQUIRE(r.m.done());
  constexpr unsigned n = 144;
  const std::uint32_t out = 8192 + 8 * n;
  const auto res = [&](unsigned op, unsigned x, unsigned y) { return r.m.word((out + 4 * (op * n + 12 * x + y)) / 4); };
  // values: 0 +0, 1 -0, 4 +inf, 5 -inf, 6 qNaN, 7 sNaN, 8 1.0
  BOOST_TEST(res(0, 4, 5) == 0x7FC00000u);  // inf + -inf: the canonical NaN
  BOOST_TEST(res(0, 0, 1) == 0x00000000u);  // +0 + -0 = +0 (round to nearest)
  BOOST_TEST(res(0, 1, 1) == 0x80000000u);  // -0 + -0 = -0
  BOOST_TEST(res(2, 0, 4) == 0x7FC00000u);  // 0 * inf
  BOOST_TEST(res(3, 0, 1) == 0x80000000u);  // vfmin(+0, -0) = -0
  BOOST_TEST(res(4, 1, 0) == 0x00000000u);  // vfmax(-0, +0) = +0
  BOOST_TEST(res(3, 6, 8) == 0x3F800000u);  // vfmin(NaN, 1) = 1
  BOOST_TEST(res(4, 7, 7) == 0x7FC00000u);  // vfmax(sNaN, sNaN): the canonical NaN
  BOOST_TEST(res(6, 0, 1) == 1u);           // vmfeq(+0, -0)
  BOOST_TEST(res(6, 6, 6) == 0u);           // vmfeq(NaN, NaN)
  BOOST_TEST(res(7, 5, 5) == 1u);           // vmfle(-inf, -inf)
  BOOST_TEST(res(8, 9, 9) == 0u);           // vmflt(-1, -1)
}

BOOST_AUTO_TEST_CASE(a_start_resets_the_vector_state) {
  using namespace trn::gpsimd::enc;
  // run 1: e32, vl 4, v1 = 5 everywhere; run 2: vsetvli x0, x0 keeps vl, which a start made 0, so
  // vmv.s.x writes nothing, and v1 reads 0 again; run 3: a vector instruction first is illegal
  Run r(4096, std::vector<std::uint32_t>{vsetivli(0, 4, vtype(2, 0)), opv(0x17, true, 0, 5, 3, 1), op_end()});
  r.go();
  BOOST_TEST(r.m.vreg_word(1, 3) == 5u);
  const auto run2 = bytes_of({vsetvli(0, 0, vtype(2, 0)), addi(5, 0, 77), opv(0x10, true, 0, 5, 6, 2),
                              opv(0x10, true, 2, 0, 2, 6), opv(0x10, true, 1, 0, 2, 7), op_end()});
  r.m.load(0, run2);
  r.ref.load(0, run2);
  r.go();
  BOOST_TEST(r.m.done());
  BOOST_TEST(r.m.reg(6) == 0u);  // v2[0]: not written at vl 0
  BOOST_TEST(r.m.reg(7) == 0u);  // v1 cleared by the start
  const auto run3 = bytes_of({opv(0x00, true, 1, 1, 0, 1), op_end()});
  r.m.load(0, run3);
  r.ref.load(0, run3);
  r.go();
  BOOST_TEST(r.m.error());
  BOOST_TEST(static_cast<unsigned>(r.m.err_code()) == static_cast<unsigned>(Err::GpErrIllegal));
}

BOOST_AUTO_TEST_CASE(a_start_clears_the_registers_and_passes_a0_a1) {
  // add x3, a0, a1; op.end: x3 = a0 + a1; every other register 0 (the previous run's are gone)
  Run r(4096, {r_type(kOp, 0, 0, 3, 10, 11), addi(4, 0, 7), op_end()});
  r.go(5, 100);
  BOOST_TEST(r.m.reg(3) == 105u);
  BOOST_TEST(r.m.reg(4) == 7u);
  r.go(1, 2);
  BOOST_TEST(r.m.reg(3) == 3u);
  BOOST_TEST(r.m.reg(10) == 1u);
}

BOOST_AUTO_TEST_CASE(division_corner_cases_follow_the_specification) {
  // x1 = INT_MIN, x2 = -1, x3 = 0, x4 = 7, x5 = -7; then div, rem, divu, remu of each case
  std::vector<std::uint32_t> code;
  const auto li = [&](unsigned rd, std::uint32_t v) {
    const Li p = enc::li(rd, v);
    code.push_back(p.hi), code.push_back(p.lo);
  };
  li(1, 0x80000000u), li(2, 0xFFFFFFFFu), li(3, 0), li(4, 7), li(5, static_cast<std::uint32_t>(-7));
  code.push_back(mop(4, 10, 1, 2));  // div INT_MIN / -1 = INT_MIN (overflow)
  code.push_back(mop(6, 11, 1, 2));  // rem INT_MIN % -1 = 0
  code.push_back(mop(4, 12, 4, 3));  // div 7 / 0 = -1
  code.push_back(mop(6, 13, 5, 3));  // rem -7 % 0 = -7 (the dividend)
  code.push_back(mop(5, 14, 4, 3));  // divu 7 / 0 = 2^32 - 1
  code.push_back(mop(7, 15, 4, 3));  // remu 7 % 0 = 7
  code.push_back(mop(4, 16, 5, 4));  // div -7 / 7 = -1
  code.push_back(mop(6, 17, 5, 4));  // rem -7 % 7 = 0
  code.push_back(mop(4, 18, 4, 5));  // div 7 / -7 = -1
  li(6, 2);
  code.push_back(mop(4, 19, 5, 6));  // div -7 / 2 = -3 (towards zero)
  code.push_back(mop(6, 20, 5, 6));  // rem -7 % 2 = -1 (the dividend's sign)
  code.push_back(mop(5, 21, 5, 6));  // divu (2^32 - 7) / 2 = 0x7FFFFFFC
  code.push_back(mop(3, 22, 2, 2));  // mulhu (2^32-1)^2 >> 32 = 0xFFFFFFFE
  code.push_back(mop(1, 23, 1, 1));  // mulh INT_MIN^2 >> 32 = 0x40000000
  code.push_back(mop(2, 24, 2, 2));  // mulhsu -1 * (2^32-1) >> 32 = -1
  code.push_back(op_end());
  Run r(4096, code);
  r.go();
  const std::uint32_t want[] = {
      0x80000000u, 0,           0xFFFFFFFFu, static_cast<std::uint32_t>(-7), 0xFFFFFFFFu, 7,
      0xFFFFFFFFu, 0,           0xFFFFFFFFu, static_cast<std::uint32_t>(-3), 0xFFFFFFFFu, 0x7FFFFFFCu,
      0xFFFFFFFEu, 0x40000000u, 0xFFFFFFFFu};
  for (unsigned i = 0; i < std::size(want); ++i) BOOST_TEST(r.m.reg(10 + i) == want[i], "x" << 10 + i);
}

BOOST_AUTO_TEST_CASE(every_multiplication_and_division_corner_as_the_reference) {
  const std::vector<std::uint32_t> code = mul_div_corners();
  BOOST_TEST(code.size() == 301u);
  Run r(4096, code);
  r.go();
  BOOST_TEST(r.m.done());
  BOOST_TEST(r.retired == 301u);
}

BOOST_AUTO_TEST_CASE(every_stop_names_its_code_and_pc_and_changes_nothing) {
  struct Case {
    const char* what;
    std::vector<std::uint32_t> code;
    Err code_want;
    std::uint32_t pc_want;
  };
  std::vector<Case> cases{
      {"ecall", {addi(1, 0, 1), 0x00000073}, Err::GpErrIllegal, 4},
      {"word 0", {0}, Err::GpErrIllegal, 0},
      {"srai with bit 25 (shamt 32 on RV32)", {i_type(kOpImm, 5, 1, 1, 0x420)}, Err::GpErrIllegal, 0},
      {"custom-0 other than op.end", {addi(1, 0, 1), 0x0000108B}, Err::GpErrIllegal, 4},
      {"jal past local memory", {jal(1, 4096)}, Err::GpErrFetch, 4096},
      {"word 0 at the last address", {jal(0, 4092)}, Err::GpErrIllegal, 4092},
      {"jalr to 2 mod 4", {addi(2, 0, 6), jalr(1, 2, 0)}, Err::GpErrMisaligned, 4},
      {"taken branch to 2 mod 4", {b_type(0, 0, 0, 6)}, Err::GpErrMisaligned, 0},
      {"lw at 2 mod 4", {addi(2, 0, 0x402), lw(3, 2, 0)}, Err::GpErrMisaligned, 4},
      {"sh at an odd address", {addi(2, 0, 0x401), s_type(1, 2, 0, 0)}, Err::GpErrMisaligned, 4},
      {"sw past local memory", {lui(2, 1), sw(2, 0, 0)}, Err::GpErrAccess, 4},
      {"lb at -1", {i_type(kLoad, 0, 3, 0, -1)}, Err::GpErrAccess, 0},
  };
  // running off the end: an addi at the last word, then the fetch of 4096
  std::vector<std::uint32_t> off_end(1024, 0);
  off_end[0] = jal(0, 4092), off_end[1023] = addi(1, 0, 1);
  cases.push_back({"running off the end", off_end, Err::GpErrFetch, 4096});
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      Run r(4096, c.code);
      r.go();
      BOOST_TEST(r.m.error());
      BOOST_TEST(!r.m.done());
      BOOST_TEST(static_cast<unsigned>(r.m.err_code()) == static_cast<unsigned>(c.code_want));
      BOOST_TEST(r.m.err_pc() == c.pc_want);
      // the stopped instruction wrote nothing: no register it names changed, memory past the code is 0
      for (unsigned i = static_cast<unsigned>(c.code.size()); i < 1024; ++i) BOOST_REQUIRE(r.m.word(i) == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(timing_one_cycle_an_instruction_two_a_load_and_a_division_its_count) {
  // from the start edge to idle: the start's fetch, then one cycle each, op.end's own included
  const auto cycles = [](const std::vector<std::uint32_t>& code) {
    Run r(4096, code);
    r.go();
    BOOST_TEST(r.m.done());
    return r.cycles;
  };
  const std::uint64_t base = cycles({op_end()});
  BOOST_TEST(base == 2u);  // start edge, then op.end retires; idle the next cycle
  BOOST_TEST(cycles({addi(1, 0, 1), addi(1, 1, 1), addi(1, 1, 1), op_end()}) == base + 3);
  BOOST_TEST(cycles({jal(0, 8), addi(1, 0, 1), op_end()}) == base + 1);            // a jump: one cycle
  BOOST_TEST(cycles({addi(1, 0, 0x400), lw(2, 1, 0), op_end()}) == base + 1 + 2);  // a load: two
  BOOST_TEST(cycles({mop(4, 1, 0, 0), op_end()}) == base + sv::gpsimd_pkg::DivCycles);
  BOOST_TEST(cycles({mop(0, 1, 0, 0), op_end()}) == base + 1);  // a multiplication: one
  // a loop of 10 passes over addi; bne: 1 + 10 * 2
  BOOST_TEST(cycles({addi(1, 0, 10), addi(1, 1, -1), bne(1, 0, -4), op_end()}) == base + 21);
}

BOOST_AUTO_TEST_CASE(a_store_and_a_fetch_of_the_same_word_at_one_edge_fetch_the_old_word) {
  // sw at pc 4 overwrites the word at 8 (with op.end) that its retiring edge fetches: the old word
  // (addi x5) runs; the reference, with no pipeline, runs the new one. So the model must differ here
  // in exactly this documented way: x5 = 9 and the word at 8 now op.end.
  Run r(4096, {addi(1, 0, 0x0B), sw(0, 1, 8), addi(5, 0, 9), op_end()});
  Proc::In in;
  Proc::Out out;
  in.rst_ni = true, in.start_i = true;
  r.m.tick(in);
  in.start_i = false;
  for (int i = 0; i < 10 && (r.m.eval(in, out), out.busy_o); ++i) r.m.tick(in);
  BOOST_TEST(r.m.done());
  BOOST_TEST(r.m.reg(5) == 9u);
  BOOST_TEST(r.m.word(2) == op_end());
}

BOOST_AUTO_TEST_CASE(operators_compiled_by_gcc_equal_their_host_build_bit_for_bit) {
  // every operator of kernels/gpsimd, built for each configuration's local memory, on the model
  // (each retire against the reference), its outputs against the same C built for the host
  for (const std::uint32_t tcm : {4096u, 16384u, 65536u})
    for (const std::string& name : operator_names()) {
      BOOST_TEST_CONTEXT(name << " in " << tcm << " bytes") {
        std::mt19937_64 rng(tcm + name.size());
        const OperatorCase c = operator_case(name, tcm, rng, 1024);
        Run r(tcm, Run::Image{c.image});
        r.go(0, c.args, 20000000);
        BOOST_TEST_REQUIRE(r.m.done());
        for (const auto& o : c.outputs)
          for (std::uint32_t i = 0; i < o.bytes; i += 4) {
            const std::uint32_t want = c.expected[o.addr + i] | c.expected[o.addr + i + 1] << 8 |
                                       c.expected[o.addr + i + 2] << 16 |
                                       std::uint32_t{c.expected[o.addr + i + 3]} << 24;
            BOOST_REQUIRE_MESSAGE(r.m.word((o.addr + i) / 4) == want, o.what << " word " << i / 4 << ": "
                                                                             << r.m.word((o.addr + i) / 4)
                                                                             << ", the host build " << want);
          }
        BOOST_TEST_MESSAGE(name << " (" << tcm << " bytes): " << c.elements << " elements in " << r.cycles
                                << " cycles, " << static_cast<double>(r.cycles) / c.elements << " a element");
      }
    }
}

BOOST_AUTO_TEST_CASE(the_engine_runs_an_operator_on_every_processor_at_once) {
  // gpsimd::Engine alone (the fast path): four processors, each with its own inputs, the same
  // operator; every processor's outputs equal to the host build's
  const Engine::Params ep{4, 16384, 256, 16, 16384, 4};
  for (const std::string& name : operator_names()) {
    BOOST_TEST_CONTEXT(name) {
      Engine e(ep);
      std::vector<OperatorCase> cases;
      for (unsigned i = 0; i < ep.procs; ++i) {
        std::mt19937_64 rng(100 * i + name.size());
        cases.push_back(operator_case(name, ep.tcm_bytes, rng, 512));
        e.proc(i).load(0, cases.back().image);
      }
      Engine::In in;
      Engine::Out out = e.make_out();
      in.rst_ni = true, in.start_i = true, in.args_i = cases[0].args;
      e.tick(in);
      in.start_i = false;
      std::uint64_t cycles = 0;
      for (e.eval(in, out); out.busy_o && cycles < 10000000; e.eval(in, out)) e.tick(in), ++cycles;
      BOOST_TEST_REQUIRE(out.done_o);
      for (unsigned i = 0; i < ep.procs; ++i)
        for (const auto& o : cases[i].outputs)
          for (std::uint32_t b = 0; b < o.bytes; b += 4) {
            const auto* x = &cases[i].expected[o.addr + b];
            BOOST_REQUIRE(e.proc(i).word((o.addr + b) / 4) ==
                          (x[0] | x[1] << 8 | x[2] << 16 | std::uint32_t{x[3]} << 24));
          }
    }
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_operator_or_one_that_does_not_fit_is_refused_by_name) {
  std::mt19937_64 rng(1);
  BOOST_CHECK_EXCEPTION(operator_case("sort", 4096, rng), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("'sort': unknown") != std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(operator_case("scan", 1000, rng), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("no configuration has 1000 bytes") != std::string::npos;
  });
}

BOOST_AUTO_TEST_SUITE_END()
