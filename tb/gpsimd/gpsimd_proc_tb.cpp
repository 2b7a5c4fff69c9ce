// Bench for rtl/gpsimd/gpsimd_proc.sv, one GpSimd processor: lockstep with trn::gpsimd::Proc, and a
// scoreboard that checks every retired instruction against the reference interpreter written from
// the RISC-V specification (trn::gpsimd::Reference), then local memory word by word through the
// host port. Random RV32IM programs, every stop with its code and pc, a start after a stop, and
// self-tests showing the lockstep and the scoreboard each catching a wrong DUT.
#include <cstring>
#include <random>

#include "gpsimd/encode.hpp"
#include "gpsimd/operators.hpp"
#include "gpsimd/proc.hpp"
#include "gpsimd/random_program.hpp"
#include "gpsimd/reference.hpp"
#include "gpsimd_proc_ports.hpp"
#include "harness/bench_util.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"

using namespace trn;
using namespace trn::tb;
using trn::gpsimd::Proc;
using trn::gpsimd::Reference;
namespace enc = trn::gpsimd::enc;

namespace {

struct ProcEnv {
  Env& env;
  Signal &rst, &start, &entry, &arg0, &arg1, &busy, &done, &err, &code, &err_pc;
  Signal &we, &re, &addr, &wdata, &rdata;
  Signal &ret, &ret_pc, &ret_insn, &ret_rd, &ret_wdata, &st_mask, &st_addr, &st_data;
  Clock clk;
  Proc model;
  Lockstep<Proc> lockstep;
  Reference ref;
  std::uint64_t retired = 0;
  Rng junk;
  Clock::HookId hook;

  explicit ProcEnv(Env& e)
      : env(e),
        rst(e.sig("rst_ni")),
        start(e.sig("start_i")),
        entry(e.sig("entry_i")),
        arg0(e.sig("arg0_i")),
        arg1(e.sig("arg1_i")),
        busy(e.sig("busy_o")),
        done(e.sig("done_o")),
        err(e.sig("err_o")),
        code(e.sig("err_code_o")),
        err_pc(e.sig("err_pc_o")),
        we(e.sig("host_we_i")),
        re(e.sig("host_re_i")),
        addr(e.sig("host_addr_i")),
        wdata(e.sig("host_wdata_i")),
        rdata(e.sig("host_rdata_o")),
        ret(e.sig("ret_o")),
        ret_pc(e.sig("ret_pc_o")),
        ret_insn(e.sig("ret_insn_o")),
        ret_rd(e.sig("ret_rd_o")),
        ret_wdata(e.sig("ret_wdata_o")),
        st_mask(e.sig("ret_st_mask_o")),
        st_addr(e.sig("ret_st_addr_o")),
        st_data(e.sig("ret_st_data_o")),
        clk(e.sig("clk_i"), 10),
        model({TRN_PARAM_TcmBytes}),
        lockstep(e, clk, model),
        ref(TRN_PARAM_TcmBytes),
        junk(e.rng("host junk")) {
    // the scoreboard: each retire is the reference's next instruction, field for field
    hook = clk.add_pre_edge_hook([this] {
      if (!(rst.get() & 1) || !(ret.get() & 1)) return;
      const auto r = ref.step();
      check(r.has_value(), "cycle {}: the DUT retires pc {:#x} where the reference stops (code {}, pc {:#x})",
            clk.cycle(), ret_pc.get(), static_cast<unsigned>(ref.stop().code), ref.stop().pc);
      const Reference::Retired got{
          static_cast<std::uint32_t>(ret_pc.get()),  static_cast<std::uint32_t>(ret_insn.get()),
          static_cast<unsigned>(ret_rd.get()),       static_cast<std::uint32_t>(ret_wdata.get()),
          static_cast<unsigned>(st_mask.get()),      static_cast<std::uint32_t>(st_addr.get()),
          static_cast<std::uint32_t>(st_data.get()), r->end};
      check(got == *r,
            "cycle {}: retire {} differs from the reference: DUT pc {:#x} insn {:#010x} rd x{} = {:#x} store "
            "{:#x}@{:#x}={:#x}; reference pc {:#x} insn {:#010x} ({}) rd x{} = {:#x} store {:#x}@{:#x}={:#x}",
            clk.cycle(), retired, got.pc, got.insn, got.rd, got.wdata, got.st_mask, got.st_addr, got.st_data, r->pc,
            r->insn, Reference::name_of(r->insn), r->rd, r->wdata, r->st_mask, r->st_addr, r->st_data);
      ++retired;
    });
  }
  ~ProcEnv() { clk.remove_hook(hook); }
  std::uint32_t bytes() const { return TRN_PARAM_TcmBytes; }

  Task<> begin() {
    for (Signal* s : {&start, &entry, &arg0, &arg1, &we, &re, &addr, &wdata}) s->set(0);
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }
  /// Words into local memory through the host port (one a cycle), and into the reference.
  Task<> write(std::uint32_t byte_addr, const std::vector<std::uint32_t>& words) {
    std::vector<std::uint8_t> b;
    for (std::size_t i = 0; i < words.size(); ++i) {
      we.set(1);
      addr.set(byte_addr / 4 + i);
      wdata.set(words[i]);
      co_await RisingEdge(clk.signal());
      for (unsigned k = 0; k < 4; ++k) b.push_back(static_cast<std::uint8_t>(words[i] >> 8 * k));
    }
    we.set(0);
    ref.load(byte_addr, b);
  }
  /// Starts at 0 and waits until the processor is idle; returns the cycles it was busy.
  /// While busy, the host port writes and reads junk now and then, which the processor must
  /// ignore (the reference never sees it); the write presented in the first idle cycle lands.
  Task<std::uint64_t> run(std::uint32_t a0, std::uint32_t a1, std::uint64_t limit = 200000) {
    start.set(1);
    entry.set(0);
    arg0.set(a0);
    arg1.set(a1);
    ref.start(0, a0, a1);
    co_await RisingEdge(clk.signal());
    start.set(0);
    std::uint64_t n = 0;
    for (;;) {
      const bool w = junk.chance(0.2);
      const auto a = static_cast<std::uint32_t>(junk.below(bytes() / 4));
      const auto d = static_cast<std::uint32_t>(junk.next());
      we.set(w);
      re.set(junk.chance(0.2));
      addr.set(a);
      wdata.set(d);
      co_await ReadOnly();
      if (!(busy.get() & 1)) {
        // idle again: this cycle's host write is a real one, and lands at the coming edge
        if (w)
          ref.load(4 * a,
                   std::vector<std::uint8_t>{static_cast<std::uint8_t>(d), static_cast<std::uint8_t>(d >> 8),
                                             static_cast<std::uint8_t>(d >> 16), static_cast<std::uint8_t>(d >> 24)});
        break;
      }
      check(++n < limit, "still busy after {} cycles", limit);
      co_await RisingEdge(clk.signal());
    }
    co_await RisingEdge(clk.signal());
    we.set(0);
    re.set(0);
    addr.set(junk.below(bytes() / 4));  // idle, not writing: whatever the address and data say
    wdata.set(junk.next());
    co_return n;
  }
  /// After a run: the stop (op.end, or the error the reference reaches) and every word of local
  /// memory read back through the host port.
  Task<> check_end() {
    co_await ReadOnly();
    if (done.get() & 1) {
      check(!ref.running() && !(err.get() & 1), "done_o, but the reference is still running at pc {:#x}", ref.pc());
    } else {
      check(err.get() & 1, "idle with neither done_o nor err_o");
      check(!ref.step().has_value(), "the DUT stopped (code {} at {:#x}); the reference runs on", code.get(),
            err_pc.get());
      check(code.get() == static_cast<unsigned>(ref.stop().code) && err_pc.get() == ref.stop().pc,
            "stopped with code {} at pc {:#x}; the reference with code {} at {:#x}", code.get(), err_pc.get(),
            static_cast<unsigned>(ref.stop().code), ref.stop().pc);
    }
    // word i is addressed after one edge and in host_rdata_o after the next
    const auto& m = ref.memory();
    for (std::uint32_t i = 0; i <= bytes() / 4; ++i) {
      co_await RisingEdge(clk.signal());
      re.set(i < bytes() / 4);
      addr.set(i < bytes() / 4 ? i : 0);
      co_await ReadOnly();
      if (i == 0) continue;
      const std::uint32_t w = i - 1;
      const std::uint32_t want = m[4 * w] | m[4 * w + 1] << 8 | m[4 * w + 2] << 16 | std::uint32_t{m[4 * w + 3]} << 24;
      check(rdata.get() == want, "local memory word {:#x}: {:#010x}, the reference {:#010x}", 4 * w, rdata.get(), want);
    }
    co_await RisingEdge(clk.signal());
  }
};

/// Random programs (random_program.hpp), each loaded, run from a0 = its index, and checked.
Task<> random_programs(Env& env, unsigned count, unsigned blocks) {
  ProcEnv p(env);
  co_await p.begin();
  auto r = env.rng("programs");
  std::uint64_t cycles = 0;
  for (unsigned k = 0; k < count; ++k) {
    std::mt19937_64 g(r.next());
    const gpsimd::RandomProgram prog = gpsimd::random_program(g, p.bytes(), blocks);
    std::vector<std::uint32_t> data((prog.data_hi - prog.data_lo) / 4);
    for (std::size_t i = 0; i < data.size(); ++i)
      for (unsigned b = 0; b < 4; ++b) data[i] |= std::uint32_t{prog.data[4 * i + b]} << 8 * b;
    std::vector<std::uint32_t> code(prog.data_lo / 4, 0);  // the code region whole: local memory is not reset
    std::copy(prog.words.begin(), prog.words.end(), code.begin());
    co_await p.write(0, code);
    co_await p.write(prog.data_lo, data);
    cycles += co_await p.run(k, 0x100);
    co_await p.check_end();
    check(p.done.get() & 1, "program {} stopped with code {} at pc {:#x}", k, p.code.get(), p.err_pc.get());
  }
  fmt::print("gpsimd_proc: {} programs, {} instructions retired in {} cycles, each against the reference\n", count,
             p.retired, cycles);
}

}  // namespace

TRN_TEST(random_programs, .timeout_ns = 1e10) { co_await random_programs(env, static_cast<unsigned>(scaled(20)), 120); }

TRN_TEST(random_words, .timeout_ns = 1e10) {
  // one word at 0 (a major opcode of RV32IM, SYSTEM, MISC-MEM, custom-0 or another, with every
  // funct3 and several funct7, then random), op.end at 4, the rest of local memory word 0 (illegal); a0 and a1 random.
  // Legal or not, jumping anywhere or loading from anywhere: it retires or stops as the reference
  // says. Words the reference sees running on past 16 instructions (a jump to itself), or storing
  // into the words of the program (which the processor fetched before the store), are skipped.
  ProcEnv p(env);
  co_await p.begin();
  auto r = env.rng("words");
  const std::uint32_t n = p.bytes() / 4;
  std::vector<std::uint32_t> image(n, 0);
  image[1] = enc::op_end();
  co_await p.write(0, image);
  static constexpr std::uint32_t kOpcodes[] = {0x37, 0x17, 0x6F, 0x67, 0x63, 0x03, 0x23, 0x13,
                                               0x33, 0x0F, 0x73, 0x0B, 0x2B, 0x07, 0x27, 0x57};
  // first every opcode with every funct3 and the funct7 values 0, 1, 0x20 and a random one; then
  // random words
  const unsigned sweep = static_cast<unsigned>(std::size(kOpcodes)) * 8 * 4;
  const unsigned count = sweep + static_cast<unsigned>(scaled(300));
  unsigned ran = 0, stopped = 0;
  const std::vector<std::uint32_t> zero{0}, end{enc::op_end()};
  for (unsigned k = 0; k < count; ++k) {
    std::uint32_t w = (static_cast<std::uint32_t>(r.next()) & ~0x7Fu) | kOpcodes[r.below(std::size(kOpcodes))];
    if (k < sweep) {
      static constexpr std::uint32_t kF7[] = {0, 1, 0x20};
      w = (w & 0x01FF8F80u) | kOpcodes[k / 32] | (k / 4 % 8) << 12 | (k % 4 < 3 ? kF7[k % 4] : r.below(128)) << 25;
    } else {
      // now and then fields cleared (rd, funct3, rs1, rs2, funct7), so that near-legal words come up
      static constexpr std::uint32_t kFields[] = {0xF80, 0x7000, 0xF8000, 0x1F00000, 0xFE000000};
      for (const std::uint32_t f : kFields)
        if (r.chance(0.3)) w &= ~f;
    }
    const auto a0 = static_cast<std::uint32_t>(r.chance(0.5) ? r.below(p.bytes() + 64) : r.next());
    const auto a1 = static_cast<std::uint32_t>(r.below(p.bytes()));
    Reference trial(p.bytes());  // does it stop?
    std::vector<std::uint8_t> b(8, 0);
    for (unsigned i = 0; i < 4; ++i) b[i] = static_cast<std::uint8_t>(w >> 8 * i);
    b[4] = 0x0B;
    trial.load(0, b);
    trial.start(0, a0, a1);
    bool own = false;  // a store into the program's own words: fetched before it lands (docs/gpsimd.md)
    for (unsigned i = 0; i < 16 && trial.running(); ++i)
      if (const auto t = trial.step(); t && t->st_mask && t->st_addr < 8) own = true;
    if (trial.running() || own) continue;
    const std::vector<std::uint32_t> word{w};
    co_await p.write(0, word);
    co_await p.run(a0, a1);
    co_await p.check_end();
    ++ran;
    stopped += p.err.get() & 1;
    // put back the words it stored (the reference and the DUT agree on them: check_end)
    const auto& m = p.ref.memory();
    for (std::uint32_t i = 2; i < n; ++i)
      if (m[4 * i] | m[4 * i + 1] | m[4 * i + 2] | m[4 * i + 3]) co_await p.write(4 * i, zero);
    if (m[4] != 0x0B || (m[5] | m[6] | m[7])) co_await p.write(4, end);
  }
  fmt::print("gpsimd_proc: {} random words run ({} stopped with an error), each against the reference\n", ran, stopped);
  check(ran > count / 2 && stopped > ran / 10 && stopped < ran, "{} of {} words run, {} stopped: a poor mix", ran,
        count, stopped);
}

TRN_TEST(mul_div_corner_cases, .timeout_ns = 1e10) {
  // every M instruction on every pair of 0, 1, -1, INT_MIN, INT_MAX, -7: each result against the
  // reference as it retires
  ProcEnv p(env);
  co_await p.begin();
  std::vector<std::uint32_t> code = gpsimd::mul_div_corners();
  code.resize(p.bytes() / 4, 0);
  co_await p.write(0, code);
  const std::uint64_t cycles = co_await p.run(0, 0);
  co_await p.check_end();
  check((p.done.get() & 1) && p.retired == 301, "{} instructions retired, not 301", p.retired);
  fmt::print("gpsimd_proc: 288 multiplications and divisions and 13 more instructions in {} cycles\n", cycles);
}

namespace {
/// One operator of kernels/gpsimd, compiled by GCC for this configuration's local memory: each
/// retire against the reference, local memory read back, and the outputs against the same C built
/// for the host, bit for bit. `wrong`: the host build's first output word is taken as one bit off
/// (the self-test of that comparison).
Task<> run_operator(ProcEnv& p, const std::string& name, std::mt19937_64& g, bool wrong = false) {
  gpsimd::OperatorCase c = gpsimd::operator_case(name, p.bytes(), g, 256);
  if (wrong) c.expected[c.outputs.front().addr] ^= 1;
  std::vector<std::uint32_t> words(p.bytes() / 4);
  std::memcpy(words.data(), c.image.data(), c.image.size());
  co_await p.write(0, words);
  const std::uint64_t cycles = co_await p.run(0, c.args, 10000000);
  check(p.done.get() & 1, "{} stopped with code {} at pc {:#x}", name, p.code.get(), p.err_pc.get());
  co_await p.check_end();
  const auto& m = p.ref.memory();
  for (const auto& o : c.outputs)
    check(std::equal(c.expected.begin() + o.addr, c.expected.begin() + o.addr + o.bytes, m.begin() + o.addr),
          "{}: its {} differ from the host build's", name, o.what);
  fmt::print("gpsimd_proc: operator {}: {} elements in {} cycles ({:.1f} a element), equal to the host build\n", name,
             c.elements, cycles, static_cast<double>(cycles) / c.elements);
}
}  // namespace

TRN_TEST(operators, .timeout_ns = 1e11) {
  ProcEnv p(env);
  co_await p.begin();
  auto r = env.rng("operators");
  for (const std::string& name : gpsimd::operator_names()) {
    std::mt19937_64 g(r.next());
    co_await run_operator(p, name, g);
  }
}

TRN_TEST(selftest_operator_check_catches_a_wrong_output, .timeout_ns = 1e10, .expect_fail = true) {
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("gather: its out differ from the host build's") != std::string::npos,
          "failed for another reason: {}", e.what());
  });
  ProcEnv p(env);
  co_await p.begin();
  std::mt19937_64 g(1);
  co_await run_operator(p, "gather", g, true);
}

TRN_TEST(every_stop_names_its_code_and_pc, .timeout_ns = 1e10) {
  // each program stops; the scoreboard checks the code and pc against the reference, and the
  // memory read back shows the stopped store wrote nothing; then the next start runs normally
  ProcEnv p(env);
  co_await p.begin();
  const std::uint32_t top = p.bytes();
  const std::vector<std::vector<std::uint32_t>> progs{
      {enc::addi(1, 0, 1), 0x00000073},                   // ecall: illegal
      {enc::addi(1, 0, 1), 0x0000100B},                   // custom-0 with funct3 1, not op.end: illegal
      {0x0010000B},                                       // custom-0 with rs2 1: illegal
      {enc::i_type(enc::kOpImm, 5, 1, 1, 0x420)},         // srai with shamt[5]: illegal
      {enc::jal(1, static_cast<std::int32_t>(top))},      // fetch past local memory
      {enc::addi(2, 0, 6), enc::jalr(1, 2, 0)},           // jalr to 2 mod 4
      {enc::b_type(0, 0, 0, 6)},                          // taken branch to 2 mod 4
      {enc::addi(2, 0, 0x402), enc::lw(3, 2, 0)},         // lw misaligned
      {enc::addi(2, 0, 0x401), enc::s_type(1, 2, 0, 0)},  // sh misaligned
      {enc::lui(2, top >> 12), enc::sw(2, 0, 0)},         // sw past local memory
      {enc::i_type(enc::kLoad, 0, 3, 0, -1)},             // lb at -1
      // a normal run after the stops: a0 + 3 * a1 to 0x7F0
      {enc::addi(2, 0, 3), enc::r_type(enc::kOp, 0, 1, 2, 2, 11), enc::r_type(enc::kOp, 0, 0, 1, 10, 2),
       enc::sw(0, 1, 0x7F0), enc::op_end()},
  };
  unsigned k = 0;
  for (const auto& prog : progs) {
    std::vector<std::uint32_t> words(top / 4, 0);  // the whole memory, so no word of a previous program stays
    std::copy(prog.begin(), prog.end(), words.begin());
    co_await p.write(0, words);
    co_await p.run(k + 1, 0x55 * (k + 1));
    co_await p.check_end();
    check((p.err.get() & 1) == (k + 1 < progs.size() ? 1u : 0u), "program {}: err_o {}", k, p.err.get());
    ++k;
  }
}

TRN_TEST(selftest_scoreboard_catches_a_wrong_load, .timeout_ns = 1e10, .expect_fail = true) {
  // the reference's copy of one data word differs from the DUT's: the first load of it must fail
  // the scoreboard (the lockstep, with the DUT's memory in the model too, cannot see it)
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("differs from the reference") != std::string::npos &&
              std::string(e.what()).find("pc 0x8") != std::string::npos,
          "failed for another reason: {}", e.what());
  });
  ProcEnv p(env);
  co_await p.begin();
  const std::vector<std::uint32_t> code{enc::addi(1, 0, 0x400), enc::addi(2, 0, 3), enc::lw(3, 1, 0), enc::op_end()};
  const std::vector<std::uint32_t> data{0x11223344};
  const std::vector<std::uint8_t> wrong{0x45, 0x33, 0x22, 0x11};
  co_await p.write(0, code);
  co_await p.write(0x400, data);
  p.ref.load(0x400, wrong);  // a DUT that loads a wrong word
  co_await p.run(0, 0);
}

TRN_TEST(selftest_lockstep_catches_wrong_retire_value, .timeout_ns = 1e10, .expect_fail = true) {
  InjectGuard wrong_model("ret_wdata_o", 40, 3);
  expect_mismatch("ret_wdata_o", 40);
  co_await random_programs(env, 1, 60);
}

TRN_TEST(throughput) {
  // For make bench: random programs for about BENCH_CYCLES cycles
  ProcEnv p(env);
  co_await p.begin();
  const std::uint64_t n = bench_cycles(20000);
  auto r = env.rng("programs");
  BenchTimer t;
  std::uint64_t cycles = 0;
  for (unsigned k = 0; cycles < n; ++k) {
    std::mt19937_64 g(r.next());
    const gpsimd::RandomProgram prog = gpsimd::random_program(g, p.bytes(), 120);
    std::vector<std::uint32_t> data((prog.data_hi - prog.data_lo) / 4, 0);
    co_await p.write(0, prog.words);
    co_await p.write(prog.data_lo, data);
    cycles += co_await p.run(k, 0) + prog.words.size() + data.size();
  }
  t.report(cycles);
}

TRN_BENCH_MAIN(Vgpsimd_proc, "gpsimd_proc")
