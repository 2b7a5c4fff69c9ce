// Bench for rtl/gpsimd/gpsimd_proc.sv, one GpSimd processor: lockstep with trn::gpsimd::Proc, and a
// scoreboard that checks every retired instruction against the reference interpreter written from
// the RISC-V specification (trn::gpsimd::Reference), then local memory word by word through the
// host port. Random RV32IM programs, every stop with its code and pc, a start after a stop, and
// self-tests showing the lockstep and the scoreboard each catching a wrong DUT.
#include <cstring>
#include <deque>
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
#include "sbuf_port.hpp"

using namespace trn;
using namespace trn::tb;
using trn::gpsimd::Proc;
using trn::gpsimd::Reference;
namespace enc = trn::gpsimd::enc;

namespace {

struct ProcEnv {
  Env& env;
  Signal &rst, &start, &entry, &arg0, &arg1, &busy, &done, &err, &code, &err_pc;
  Signal &we, &re, &vre, &addr, &wdata, &rdata;
  Signal &ret, &ret_pc, &ret_insn, &ret_rd, &ret_wdata, &st_mask, &st_addr, &st_data;
  Signal &part_lo, &part_hi, &sem_add, &sem_idx, &sem_val;
  Clock clk;
  Proc model;
  Lockstep<Proc> lockstep;
  Reference ref;
  std::uint64_t retired = 0;
  Rng junk;
  // SBUF (tb/gpsimd/sbuf_port.hpp): kParts partitions, [kLo, kHi) this processor's; the port's
  // copy (what the DUT wrote) and the reference's, compared after each run; and the semaphores
  static constexpr unsigned kParts = 8, kLo = 2, kHi = 5;
  SbufPort port;
  std::vector<std::vector<std::uint8_t>> sbuf_ref;
  bool ran_on = false;  ///< the reference retired an instruction where the DUT stopped (run())
  /// run() presents host writes while busy (off: a run whose outputs are compared with the host build)
  bool junk_writes = true;
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
        vre(e.sig("host_vre_i")),
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
        part_lo(e.sig("part_lo_i")),
        part_hi(e.sig("part_hi_i")),
        sem_add(e.sig("sem_add_o")),
        sem_idx(e.sig("sem_idx_o")),
        sem_val(e.sig("sem_val_o")),
        clk(e.sig("clk_i"), 10),
        model({TRN_PARAM_TcmBytes, TRN_PARAM_Vlen, TRN_PARAM_SbufBytes}),
        lockstep(e, clk, model),
        ref(TRN_PARAM_TcmBytes, TRN_PARAM_Vlen),
        junk(e.rng("host junk")),
        port(e, clk, kParts, TRN_PARAM_SbufBytes, 1, [](unsigned q) { return q >= kLo && q < kHi; }),
        sbuf_ref(port.sbuf) {
    ref.set_sbuf(&sbuf_ref, kLo, kHi);
    // the scoreboard: each retire is the reference's next instruction, field for field
    hook = clk.add_pre_edge_hook([this] {
      if (!(rst.get() & 1) || !(ret.get() & 1)) return;
      const auto r = ref.step();
      check(r.has_value(), "cycle {}: the DUT retires pc {:#x} where the reference stops (code {}, pc {:#x})",
            clk.cycle(), ret_pc.get(), static_cast<unsigned>(ref.stop().code), ref.stop().pc);
      const Reference::Retired got{static_cast<std::uint32_t>(ret_pc.get()),
                                   static_cast<std::uint32_t>(ret_insn.get()),
                                   static_cast<unsigned>(ret_rd.get()),
                                   static_cast<std::uint32_t>(ret_wdata.get()),
                                   static_cast<unsigned>(st_mask.get()),
                                   static_cast<std::uint32_t>(st_addr.get()),
                                   static_cast<std::uint32_t>(st_data.get()),
                                   r->end,
                                   r->sem_op,
                                   r->sem_idx,
                                   r->sem_val};
      // a sem.add on the port in its retiring cycle; a sem.wait retiring only once the value is there
      if (r->sem_op == 2)
        check((sem_add.get() & 1) && sem_idx.get() == r->sem_idx && sem_val.get() == r->sem_val,
              "cycle {}: sem.add of {} to semaphore {} not on the port", clk.cycle(), r->sem_val, r->sem_idx);
      if (r->sem_op == 1)
        check(port.sems[r->sem_idx] >= r->sem_val, "cycle {}: sem.wait for semaphore {} >= {} retired at {}",
              clk.cycle(), r->sem_idx, r->sem_val, port.sems[r->sem_idx]);
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
    for (Signal* s : {&start, &entry, &arg0, &arg1, &we, &re, &vre, &addr, &wdata}) s->set(0);
    part_lo.set(kLo);
    part_hi.set(kHi);
    port.start();
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
      const bool w = junk_writes && junk.chance(0.2);
      const auto a = static_cast<std::uint32_t>(junk.below(bytes() / 4));
      const auto d = static_cast<std::uint32_t>(junk.next());
      we.set(w);
      re.set(junk.chance(0.2));
      addr.set(a);
      wdata.set(d);
      co_await ReadOnly();
      if (!(busy.get() & 1)) {
        // stopped: the reference takes its next step now (an error's instruction retires nothing
        // on the DUT), before this cycle's host write changes memory
        ran_on = ref.running() && ref.step().has_value();
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
  /// After a run: the stop (op.end, or the error the reference reaches), and every word of local
  /// memory and of the vector registers read back through the host port.
  Task<> check_end() {
    co_await ReadOnly();
    if (done.get() & 1) {
      check(!ref.running() && !(err.get() & 1), "done_o, but the reference is still running at pc {:#x}", ref.pc());
    } else {
      check(err.get() & 1, "idle with neither done_o nor err_o");
      const auto pc = static_cast<std::uint32_t>(err_pc.get());
      const auto& mem = ref.memory();
      const std::uint32_t insn =
          pc + 4 <= mem.size() ? mem[pc] | mem[pc + 1] << 8 | mem[pc + 2] << 16 | std::uint32_t{mem[pc + 3]} << 24 : 0;
      check(!ran_on, "the DUT stopped (code {} at {:#x}, the word {:#010x}); the reference runs on", code.get(), pc,
            insn);
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
    for (unsigned p = 0; p < kParts; ++p)
      for (std::uint32_t i = 0; i < TRN_PARAM_SbufBytes; ++i)
        check(port.sbuf[p][i] == sbuf_ref[p][i], "SBUF partition {} byte {:#x}: {:#04x}, the reference {:#04x}", p, i,
              port.sbuf[p][i], sbuf_ref[p][i]);
    // then the vector registers, word by word
    const unsigned wpr = TRN_PARAM_Vlen / 32;
    for (std::uint32_t i = 0; i <= 32 * wpr; ++i) {
      co_await RisingEdge(clk.signal());
      vre.set(i < 32 * wpr);
      addr.set(i < 32 * wpr ? i : 0);
      co_await ReadOnly();
      if (i == 0) continue;
      const std::uint32_t want = ref.vreg_word((i - 1) / wpr, (i - 1) % wpr);
      check(rdata.get() == want, "v{} word {}: {:#010x}, the reference {:#010x}", (i - 1) / wpr, (i - 1) % wpr,
            rdata.get(), want);
    }
    co_await RisingEdge(clk.signal());
  }
};

/// A generated program (its whole code region, so nothing of an earlier one stays: local memory
/// is not reset, and its data) loaded, run from a0, a1 and checked (check_end); returns whether
/// it stopped with an error. `cycles` gets the cycles it was busy added.
Task<bool> run_program(ProcEnv& p, const gpsimd::RandomProgram& prog, std::uint64_t* cycles = nullptr,
                       std::uint32_t a0 = 0, std::uint32_t a1 = 0) {
  std::vector<std::uint32_t> data((prog.data_hi - prog.data_lo) / 4);
  std::memcpy(data.data(), prog.data.data(), prog.data.size());
  co_await p.write(0, prog.words);
  co_await p.write(prog.data_lo, data);
  const std::uint64_t n = co_await p.run(a0, a1);
  if (cycles) *cycles += n;
  co_await p.check_end();
  co_return (p.err.get() & 1) != 0;
}

/// Random programs (random_program.hpp; with vector blocks when `vector`), each loaded, run from
/// a0 = its index, and checked.
Task<> random_programs(Env& env, unsigned count, unsigned blocks, bool vector = false) {
  ProcEnv p(env);
  co_await p.begin();
  auto r = env.rng("programs");
  std::uint64_t cycles = 0;
  for (unsigned k = 0; k < count; ++k) {
    std::mt19937_64 g(r.next());
    const gpsimd::RandomProgram prog = gpsimd::random_program(g, p.bytes(), blocks, vector ? TRN_PARAM_Vlen : 0);
    const bool stopped = co_await run_program(p, prog, &cycles, k, 0x100);
    check(!stopped, "program {} stopped with code {} at pc {:#x}", k, p.code.get(), p.err_pc.get());
  }
  fmt::print("gpsimd_proc: {} programs, {} instructions retired in {} cycles, each against the reference\n", count,
             p.retired, cycles);
}

}  // namespace

TRN_TEST(random_programs, .timeout_ns = 1e10) { co_await random_programs(env, static_cast<unsigned>(scaled(20)), 120); }

TRN_TEST(random_vector_programs, .timeout_ns = 1e10) {
  co_await random_programs(env, static_cast<unsigned>(scaled(20)), 120, true);
}

TRN_TEST(random_vector_words, .timeout_ns = 1e11) {
  // gpsimd::random_vector_word: every OP-V funct6 and funct3, vector loads and stores with random
  // fields, then random words, each at a random vtype and vl; the scoreboard, the stop, memory and
  // the vector registers against the reference
  ProcEnv p(env);
  co_await p.begin();
  auto r = env.rng("vector words");
  const unsigned count = 2048 + static_cast<unsigned>(scaled(256));
  unsigned stopped = 0;
  for (unsigned k = 0; k < count; ++k) {
    std::mt19937_64 g(r.next());
    stopped += co_await run_program(p, gpsimd::random_vector_word(g, p.bytes(), TRN_PARAM_Vlen, k));
  }
  fmt::print("gpsimd_proc: {} vector words, {} stopped with an error, each against the reference\n", count, stopped);
  check(stopped > count / 4 && stopped < count * 95 / 100, "{} of {} stopped: a poor mix", stopped, count);
}

TRN_TEST(fp_corners, .timeout_ns = 1e10) {
  // gpsimd::fp_corners: every FP32 vector operation on every pair of 12 values of every class (in
  // their own arrays where local memory holds them, else one array: the lockstep sees every write)
  ProcEnv p(env);
  co_await p.begin();
  const bool separate = p.bytes() >= 16384;
  std::uint64_t cycles = 0;
  co_await run_program(p, gpsimd::fp_corners(p.bytes(), separate), &cycles);
  check(p.done.get() & 1, "stopped with code {} at pc {:#x}", p.code.get(), p.err_pc.get());
  fmt::print("gpsimd_proc: 9 FP32 vector operations on 144 pairs in {} cycles{}\n", cycles,
             separate ? ", each in its own array" : "");
}

TRN_TEST(vector_memory_stops, .timeout_ns = 1e10) {
  // loads and stores at the edges of local memory and of alignment: a load that ends at the last
  // byte runs; one element past it stops (access) after the elements before it; a strided load
  // misaligned at element 1 stops (misaligned) after element 0; a masked store of v0 runs, a
  // masked load into v0 is illegal
  namespace e = gpsimd::enc;
  ProcEnv p(env);
  co_await p.begin();
  const std::uint32_t top = p.bytes();
  std::vector<std::vector<std::uint32_t>> runs;
  const auto with_li = [](unsigned rd, std::uint32_t v, std::vector<std::uint32_t> rest) {
    const e::Li l = e::li(rd, v);
    rest.insert(rest.begin(), {l.hi, l.lo});
    return rest;
  };
  const std::uint32_t e32m1 = e::vtype(2, 0), e8m2 = e::vtype(0, 1);
  runs.push_back(with_li(1, top - 16, {e::vsetivli(0, 4, e32m1), e::vmem(false, 6, 2, 1, true), e::op_end()}));
  runs.push_back(with_li(1, top - 12, {e::vsetivli(0, 4, e32m1), e::vmem(false, 6, 2, 1, true), e::op_end()}));
  runs.push_back(with_li(1, top - 1, {e::vsetivli(0, 2, e8m2), e::vmem(false, 0, 2, 1, true), e::op_end()}));
  runs.push_back(with_li(
      1, 0x800, {e::vsetivli(0, 3, e32m1), e::addi(3, 0, 6), e::vmem(false, 6, 2, 1, true, 2, 3), e::op_end()}));
  runs.push_back(
      with_li(1, 0x800,
              {e::vsetivli(0, 3, e32m1), e::opv(0x17, true, 0, 5, 3, 0), e::vmem(true, 6, 0, 1, false), e::op_end()}));
  runs.push_back(with_li(1, 0x800, {e::vsetivli(0, 3, e32m1), e::vmem(false, 6, 0, 1, false), e::op_end()}));
  const std::vector<unsigned> want{0, 4, 4, 3, 0, 1};  // gp_err_e, 0: ran to op.end
  for (std::size_t k = 0; k < runs.size(); ++k) {
    std::vector<std::uint32_t> words(top / 4, 0);
    for (std::uint32_t i = 0; i < top / 4; ++i) words[i] = 0x01010101u * (i % 200);  // data everywhere
    std::copy(runs[k].begin(), runs[k].end(), words.begin());
    co_await p.write(0, words);
    co_await p.run(0, 0);
    co_await p.check_end();
    check(p.code.get() == want[k], "run {}: code {}, not {}", k, p.code.get(), want[k]);
  }
}

TRN_TEST(vector_register_rules, .timeout_ns = 1e10) {
  // the register-group rules (docs/gpsimd.md "The vector unit", Illegal), each word after a
  // vsetivli of 4 elements at e32 and the LMUL named: legal (0) or illegal (1)
  namespace e = gpsimd::enc;
  ProcEnv p(env);
  co_await p.begin();
  struct Rule {
    unsigned lmul;
    std::uint32_t word;
    unsigned code;
  };
  const std::vector<Rule> rules{
      {1, e::opv(0x18, true, 2, 3, 0, 4), 1},   // vmseq.vv v4, v2, v3: vs1 odd at LMUL 2
      {1, e::opv(0x18, true, 2, 4, 0, 3), 1},   // vmseq.vv v3, v2, v4: the mask is v2-v3's upper register
      {1, e::opv(0x18, true, 2, 4, 0, 5), 1},   // vmseq.vv v5, v2, v4: the mask is v4-v5's upper register
      {1, e::opv(0x18, true, 2, 4, 0, 2), 0},   // vmseq.vv v2, v2, v4: the first register of vs2: legal
      {1, e::opv(0x18, true, 2, 4, 0, 6), 0},   // vmseq.vv v6, v2, v4
      {0, e::opv(0x0C, true, 4, 8, 0, 5), 0},   // vrgather.vv v5, v4, v8 at LMUL 1: no overlap
      {0, e::opv(0x0C, true, 4, 8, 0, 4), 1},   // vrgather.vv v4, v4, v8: vd is vs2
      {0, e::opv(0x0C, true, 4, 8, 0, 8), 1},   // vrgather.vv v8, v4, v8: vd is vs1
      {1, e::opv(0x0C, true, 4, 8, 0, 6), 0},   // vrgather.vv v6, v4, v8 at LMUL 2
      {1, e::opv(0x0C, true, 4, 8, 0, 4), 1},   // vrgather.vv v4, v4, v8 at LMUL 2
      {0, e::opv(0x0E, true, 4, 1, 3, 5), 0},   // vslideup.vi v5, v4, 1 at LMUL 1
      {0, e::opv(0x0E, true, 4, 1, 3, 4), 1},   // vslideup.vi v4, v4, 1
      {0, e::opv(0x0F, true, 4, 1, 3, 4), 0},   // vslidedown.vi v4, v4, 1: may overlap
      {1, e::opv(0x00, true, 3, 4, 0, 6), 1},   // vadd.vv v6, v3, v4: vs2 odd at LMUL 2
      {1, e::opv(0x00, false, 2, 4, 0, 0), 1},  // vadd.vv v0, v2, v4, v0.t: a masked op writing v0
      {1, e::opv(0x18, false, 2, 4, 0, 0), 0},  // vmseq.vv v0, v2, v4, v0.t: a compare may write v0
      {0, e::sb_load(4, 1, 0), 0},              // sb.load v4, (x1 = an owned partition, 0)
      {0, e::sb_load(4, 1, 0, true), 0},        // BF16 at SEW 32
      {1, e::sb_load(5, 1, 0), 1},              // an odd vd at LMUL 2
      {1, e::sb_store(4, 1, 0), 0},             // sb.store v4-v5
      {0, e::r_type(0x0B, 1, 2, 4, 1, 0), 1},   // funct7 2
      {0, e::r_type(0x0B, 2, 3, 4, 1, 0), 1},   // funct7 3
  };
  for (std::size_t k = 0; k < rules.size(); ++k) {
    std::vector<std::uint32_t> words(p.bytes() / 4, 0);
    words[0] = e::addi(1, 0, ProcEnv::kLo);  // for the SBUF transfers: an owned partition
    words[1] = e::vsetivli(0, 4, e::vtype(2, rules[k].lmul));
    words[2] = rules[k].word;
    words[3] = e::op_end();
    co_await p.write(0, words);
    co_await p.run(0, 0);
    co_await p.check_end();
    check((p.err.get() & 1) == rules[k].code, "rule {}: err_o {}, not {}", k, p.err.get(), rules[k].code);
  }
}

TRN_TEST(sbuf_transfers, .timeout_ns = 1e11) {
  // gpsimd::sbuf_program: sb.load and sb.store of every SEW and LMUL, BF16 ones, partitions owned
  // and not, offsets inside, misaligned and running past the end, under random grants and read
  // latencies; each program's stop, SBUF, memory and vector registers against the reference
  ProcEnv p(env);
  co_await p.begin();
  auto r = env.rng("sbuf programs");
  const unsigned count = static_cast<unsigned>(scaled(40));
  unsigned stopped = 0;
  for (unsigned k = 0; k < count; ++k) {
    std::mt19937_64 g(r.next());
    stopped += co_await run_program(
        p, gpsimd::sbuf_program(g, p.bytes(), TRN_PARAM_Vlen, TRN_PARAM_SbufBytes, ProcEnv::kLo, ProcEnv::kHi, 12));
  }
  fmt::print("gpsimd_proc: {} SBUF programs, {} stopped (partition, alignment, range), each against the reference\n",
             count, stopped);
  check(stopped > count / 10 && stopped < count * 9 / 10, "{} of {} stopped: a poor mix", stopped, count);
}

TRN_TEST(sbuf_stops, .timeout_ns = 1e10) {
  // sb.store of 4 e32 elements: ending at the partition's last byte (runs), one element further
  // (access), at an offset of 2 (misaligned), to the partitions just below and at part_hi (partition);
  // at vl 0 none of them is checked; sb.load of 8 BF16 elements ending at the last byte (runs)
  namespace e = gpsimd::enc;
  ProcEnv p(env);
  co_await p.begin();
  const std::uint32_t end = TRN_PARAM_SbufBytes;
  struct Case {
    unsigned vl, part;
    std::uint32_t off;
    bool bf16_load;
    unsigned code;
  };
  const std::vector<Case> cases{{4, ProcEnv::kLo, end - 16, false, 0}, {4, ProcEnv::kHi - 1, end - 12, false, 4},
                                {4, ProcEnv::kLo, 2, false, 3},        {4, ProcEnv::kLo - 1, 0, false, 5},
                                {4, ProcEnv::kHi, 0, false, 5},        {0, ProcEnv::kHi, end + 2, false, 0},
                                {8, ProcEnv::kLo, end - 16, true, 0},  {8, ProcEnv::kLo, end - 14, true, 4}};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    std::vector<std::uint32_t> words(p.bytes() / 4, 0);
    const e::Li off = e::li(2, c.off);
    const std::vector<std::uint32_t> prog{e::addi(1, 0, static_cast<std::int32_t>(c.part)),
                                          off.hi,
                                          off.lo,
                                          e::vsetivli(0, c.vl, e::vtype(2, 1)),
                                          c.bf16_load ? e::sb_load(4, 1, 2, true) : e::sb_store(4, 1, 2),
                                          e::op_end()};
    std::copy(prog.begin(), prog.end(), words.begin());
    co_await p.write(0, words);
    co_await p.run(0, 0);
    co_await p.check_end();
    check(p.code.get() == c.code, "case {}: code {}, not {}", k, p.code.get(), c.code);
  }
}

TRN_TEST(semaphores, .timeout_ns = 1e10) {
  // sem.add s3 += 5; sem.wait s3 >= 5 (at once); sem.wait s4 >= 2, which the bench makes true 40
  // cycles later; op.end. Then a semaphore index of 32: the stop 'sem'
  namespace e = gpsimd::enc;
  ProcEnv p(env);
  co_await p.begin();
  std::vector<std::uint32_t> words(p.bytes() / 4, 0);
  const std::vector<std::uint32_t> prog{e::addi(1, 0, 3),  e::addi(2, 0, 5), e::sem_add(1, 2),
                                        e::sem_wait(1, 2), e::addi(3, 0, 4), e::addi(4, 0, 2),
                                        e::sem_wait(3, 4), e::addi(5, 0, 1), e::op_end()};
  std::copy(prog.begin(), prog.end(), words.begin());
  co_await p.write(0, words);
  start_soon([](ProcEnv& q) -> Task<> {
    co_await ClockCycles(q.clk.signal(), 40);
    q.port.sems[4] = 2;
  }(p));
  const std::uint64_t cycles = co_await p.run(0, 0);
  co_await p.check_end();
  check((p.done.get() & 1) && p.port.sems[3] == 5, "done {}, semaphore 3 = {}", p.done.get(), p.port.sems[3]);
  check(cycles >= 40, "sem.wait let the program end after {} cycles, before semaphore 4 reached 2", cycles);
  words[0] = e::addi(1, 0, 32);
  words[1] = e::sem_add(1, 2);
  words[2] = e::op_end();
  co_await p.write(0, words);
  co_await p.run(0, 0);
  co_await p.check_end();
  check(p.code.get() == 6 && p.err_pc.get() == 4, "semaphore 32: code {} at {:#x}", p.code.get(), p.err_pc.get());
}

TRN_TEST(vector_state_after_a_start, .timeout_ns = 1e10) {
  // run 1 sets e32, vl 4 and v1; run 2 keeps vl (vsetvli x0, x0), which the start made 0, so
  // vmv.s.x writes nothing, and v1 reads 0; run 3 starts with a vector instruction: illegal (vill)
  namespace e = gpsimd::enc;
  ProcEnv p(env);
  co_await p.begin();
  const std::vector<std::vector<std::uint32_t>> runs{
      {e::vsetivli(0, 4, e::vtype(2, 0)), e::opv(0x17, true, 0, 5, 3, 1), e::op_end()},
      {e::vsetvli(0, 0, e::vtype(2, 0)), e::addi(5, 0, 77), e::opv(0x10, true, 0, 5, 6, 2),
       e::opv(0x10, true, 2, 0, 2, 6), e::opv(0x10, true, 1, 0, 2, 7), e::sw(0, 6, 0x700), e::sw(0, 7, 0x704),
       e::op_end()},
      {e::opv(0x00, true, 1, 1, 0, 1), e::op_end()}};
  for (std::size_t k = 0; k < runs.size(); ++k) {
    std::vector<std::uint32_t> words(p.bytes() / 4, 0);
    std::copy(runs[k].begin(), runs[k].end(), words.begin());
    co_await p.write(0, words);
    co_await p.run(0, 0);
    co_await p.check_end();
    check((p.err.get() & 1) == (k == 2 ? 1u : 0u), "run {}: err_o {}", k, p.err.get());
  }
}

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
    Reference trial(p.bytes(), TRN_PARAM_Vlen);  // does it stop?
    std::vector<std::uint8_t> b(8, 0);
    for (unsigned i = 0; i < 4; ++i) b[i] = static_cast<std::uint8_t>(w >> 8 * i);
    b[4] = 0x0B;
    trial.load(0, b);
    trial.start(0, a0, a1);
    bool own = false;  // a store into the program's own words: fetched before it lands (docs/gpsimd.md)
    for (unsigned i = 0; i < 16 && trial.running(); ++i)
      if (const auto t = trial.step(); t && ((t->st_mask && t->st_addr < 8) || (t->sem_op == 1 && t->sem_val)))
        own = true;  // (or a sem.wait for a value the semaphores, all 0 here, never reach)
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
  p.junk_writes = false;  // the first idle cycle's write would land in the outputs the host build is compared on
  const std::uint64_t cycles = co_await p.run(0, c.args, 10000000);
  p.junk_writes = true;
  check(p.done.get() & 1, "{} stopped with code {} at pc {:#x}", name, p.code.get(), p.err_pc.get());
  co_await p.check_end();
  const auto& m = p.ref.memory();
  for (const auto& o : c.outputs)
    for (std::uint32_t i = 0; i < o.bytes; i += 4) {
      const auto word = [&](const auto& v) {
        return v[o.addr + i] | v[o.addr + i + 1] << 8 | v[o.addr + i + 2] << 16 |
               static_cast<std::uint32_t>(v[o.addr + i + 3]) << 24;
      };
      check(word(c.expected) == word(m),
            "{}: its {} differ from the host build's: word {} is {:#010x}, the host's {:#010x}", name, o.what, i / 4,
            word(m), word(c.expected));
    }
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
    check(std::string(e.what()).find("gather: its out differ from the host build's: word 0") != std::string::npos,
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
