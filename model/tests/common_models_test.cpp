// Boost.Test units of the rtl/common models, against behaviour derived by hand from the RTL
// headers' documented contracts (not from running the RTL).
#define BOOST_TEST_MODULE model_common
#include <boost/test/unit_test.hpp>

#include "common/bits.hpp"
#include "common/clog2.hpp"
#include "common/credit_counter.hpp"
#include "common/rr_arbiter.hpp"
#include "common/stream_fifo.hpp"
#include "common/workers.hpp"

using namespace trn;
using namespace trn::common;

BOOST_AUTO_TEST_CASE(clog2_matches_sv) {
  BOOST_TEST(clog2(1) == 0u);
  BOOST_TEST(clog2(2) == 1u);
  BOOST_TEST(clog2(5) == 3u);
  BOOST_TEST(clog2(8) == 3u);
  BOOST_TEST(clog2(9) == 4u);
}

BOOST_AUTO_TEST_CASE(bits_slices_and_hex) {
  Bits b(100);
  b.set_slice(60, 8, 0xab);
  BOOST_TEST(b.slice(60, 8) == 0xabu);
  BOOST_TEST(b.slice(64, 4) == 0xau);
  BOOST_TEST(b.hex() == "00000000ab000000000000000");  // 25 digits for 100 bits
  b.set_bit(99, true);
  BOOST_TEST(b.bit(99));
  b.set_bit(100, true);  // past the width: ignored
  BOOST_TEST(b.words() == 2u);
  Bits c(8, 0x1ff);  // trimmed to the width
  BOOST_TEST(c.to_u64() == 0xffu);
}

BOOST_AUTO_TEST_CASE(bits_copies_and_moves_across_inline_and_heap_widths) {
  // up to 128 bits live in the object, wider on the heap: every copy and move between the two
  // keeps the value and leaves the source valid
  auto pattern = [](unsigned w) {
    Bits b(w);
    for (unsigned i = 0; i < w; i += 3) b.set_bit(i, true);
    return b;
  };
  for (unsigned wa : {1u, 64u, 100u, 128u, 129u, 320u})
    for (unsigned wb : {1u, 64u, 100u, 128u, 129u, 320u}) {
      const Bits a = pattern(wa);
      Bits c(a);  // copy
      BOOST_TEST((c == a));
      Bits d = pattern(wb);
      d = a;  // copy-assign over another width
      BOOST_TEST((d == a));
      BOOST_TEST(d.width() == wa);
      Bits e = pattern(wb);
      Bits m(c);
      e = std::move(m);  // move-assign
      BOOST_TEST((e == a));
      m = pattern(wb);  // a moved-from vector takes a new value
      BOOST_TEST((m == pattern(wb)));
      Bits f(std::move(c));  // move-construct
      BOOST_TEST((f == a));
      f = f;  // self-assignment
      BOOST_TEST((f == a));
      if (wa != wb) BOOST_TEST(!(pattern(wa) == pattern(wb)));
    }
  Bits h = pattern(320);
  Bits g = h;
  g.flip_bit(300);  // a copy of a heap vector owns its words
  BOOST_TEST(h.bit(300) != g.bit(300));
  g.clear();
  BOOST_TEST(!g.any());
  BOOST_TEST(h.any());
}

BOOST_AUTO_TEST_CASE(bits_copy_matches_a_bit_by_bit_copy) {
  // copy() and update() move whole words when both ends are word-aligned and slices otherwise:
  // either way a bit-by-bit copy, bits past the destination's width dropped and past the source's
  // zero; update() says whether the copy changed anything
  auto pattern = [](unsigned w, unsigned seed) {
    Bits b(w);
    for (unsigned i = 0; i < w; ++i) b.set_bit(i, ((i * 7 + seed) % 5) < 2);
    return b;
  };
  unsigned cases = 0;
  for (unsigned wd : {64u, 100u, 192u, 320u})
    for (unsigned ws : {64u, 130u, 320u})
      for (unsigned at : {0u, 3u, 64u, 128u})
        for (unsigned from : {0u, 5u, 64u, 192u})
          for (unsigned n : {1u, 63u, 64u, 65u, 128u, 200u}) {
            if (at >= wd) continue;
            Bits d = pattern(wd, 1);
            Bits want = d;
            const Bits s = pattern(ws, 2);
            for (unsigned k = 0; k < n; ++k) want.set_bit(at + k, s.bit(from + k));
            Bits u = d;
            const bool differs = !(u == want);
            d.copy(at, s, from, n);
            BOOST_TEST((d == want), "copy(" << at << ", src" << ws << ", " << from << ", " << n << ") into " << wd);
            // update(): the same copy, and whether it changed anything (also when copied onto itself)
            BOOST_TEST(u.update(at, s, from, n) == differs, "update(" << at << ", " << from << ", " << n << ")");
            BOOST_TEST((u == want), "update(" << at << ", src" << ws << ", " << from << ", " << n << ") into " << wd);
            BOOST_TEST(!u.update(at, s, from, n), "update(" << at << ", " << from << ", " << n << ") again");
            ++cases;
          }
  BOOST_TEST(cases > 500u);
}

namespace {
StreamFifo::In fifo_in(const StreamFifo& f, bool push, std::uint64_t data, bool pop) {
  auto in = f.make_in();
  in.rst_ni = true;
  in.push_valid_i = push;
  in.push_data_i = Bits(f.params().width, data);
  in.pop_ready_i = pop;
  return in;
}
}  // namespace

BOOST_AUTO_TEST_CASE(fifo_fill_full_drain_in_order) {
  StreamFifo f({16, 3});
  auto out = f.make_out();
  f.eval(fifo_in(f, false, 0, false), out);
  BOOST_TEST(!out.pop_valid_o);
  BOOST_TEST(out.push_ready_o);
  for (unsigned i = 0; i < 5; ++i) f.tick(fifo_in(f, true, 10 + i, false));  // 2 pushes refused
  f.eval(fifo_in(f, false, 0, false), out);
  BOOST_TEST(out.usage_o == 3u);
  BOOST_TEST(!out.push_ready_o);
  BOOST_TEST(out.pop_data_o.to_u64() == 10u);
  for (unsigned i = 0; i < 3; ++i) {
    f.eval(fifo_in(f, false, 0, true), out);
    BOOST_TEST(out.pop_valid_o);
    BOOST_TEST(out.pop_data_o.to_u64() == 10u + i);
    f.tick(fifo_in(f, false, 0, true));
  }
  f.eval(fifo_in(f, false, 0, true), out);
  BOOST_TEST(!out.pop_valid_o);
  BOOST_TEST(out.usage_o == 0u);
}

BOOST_AUTO_TEST_CASE(fifo_full_push_and_pop_same_cycle) {
  // Full: a push is refused even with a pop in the same cycle (no pass-through).
  StreamFifo f({8, 2});
  f.tick(fifo_in(f, true, 1, false));
  f.tick(fifo_in(f, true, 2, false));
  f.tick(fifo_in(f, true, 3, true));  // pops 1, refuses 3
  auto out = f.make_out();
  f.eval(fifo_in(f, false, 0, false), out);
  BOOST_TEST(out.usage_o == 1u);
  BOOST_TEST(out.pop_data_o.to_u64() == 2u);
  f.tick(fifo_in(f, true, 4, true));  // pops 2, pushes 4
  f.eval(fifo_in(f, false, 0, false), out);
  BOOST_TEST(out.usage_o == 1u);
  BOOST_TEST(out.pop_data_o.to_u64() == 4u);
}

BOOST_AUTO_TEST_CASE(fifo_reset_is_asynchronous) {
  StreamFifo f({8, 2});
  f.tick(fifo_in(f, true, 5, false));
  auto in = fifo_in(f, false, 0, false);
  in.rst_ni = false;
  auto out = f.make_out();
  f.eval(in, out);  // outputs of the reset state before any edge
  BOOST_TEST(!out.pop_valid_o);
  BOOST_TEST(out.usage_o == 0u);
  f.tick(in);
  BOOST_TEST(f.usage() == 0u);
}

namespace {
RrArbiter::In arb_in(const RrArbiter& a, std::uint64_t valid, bool ready) {
  auto in = a.make_in();
  in.rst_ni = true;
  in.req_valid_i = valid;
  in.gnt_ready_i = ready;
  for (unsigned i = 0; i < a.params().n; ++i) in.req_data_i.set_slice(i * a.params().width, a.params().width, 100 + i);
  return in;
}
}  // namespace

BOOST_AUTO_TEST_CASE(arbiter_rotates) {
  RrArbiter a({4, 8});
  auto out = a.make_out();
  std::vector<unsigned> got;
  for (int k = 0; k < 8; ++k) {
    auto in = arb_in(a, 0b1111, true);
    a.eval(in, out);
    BOOST_TEST(out.gnt_valid_o);
    got.push_back(static_cast<unsigned>(out.gnt_idx_o));
    BOOST_TEST(out.gnt_data_o.to_u64() == 100u + out.gnt_idx_o);
    BOOST_TEST(out.req_ready_o == (1u << out.gnt_idx_o));
    a.tick(in);
  }
  BOOST_TEST(got == (std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(arbiter_skips_idle_and_holds_grant) {
  RrArbiter a({4, 8});
  auto out = a.make_out();
  auto in = arb_in(a, 0b1000, false);  // only 3 requests; output not ready
  a.eval(in, out);
  BOOST_TEST(out.gnt_idx_o == 3u);
  BOOST_TEST(out.req_ready_o == 0u);
  a.tick(in);
  in = arb_in(a, 0b1001, false);  // 0 arrives: the grant stays with 3
  a.eval(in, out);
  BOOST_TEST(out.gnt_idx_o == 3u);
  a.tick(in);
  in = arb_in(a, 0b1001, true);
  a.eval(in, out);
  BOOST_TEST(out.gnt_idx_o == 3u);
  a.tick(in);  // handshake: 0 is next
  in = arb_in(a, 0b1001, true);
  a.eval(in, out);
  BOOST_TEST(out.gnt_idx_o == 0u);
  in = arb_in(a, 0, true);
  a.eval(in, out);
  BOOST_TEST(!out.gnt_valid_o);
  BOOST_TEST(out.gnt_data_o.to_u64() == 0u);
}

BOOST_AUTO_TEST_CASE(credit_counter_counts_and_flags_errors) {
  CreditCounter c({2});
  CreditCounter::In in{true, true, false};
  CreditCounter::Out out;
  c.tick(in);
  c.tick(in);
  c.eval(in, out);
  BOOST_TEST(out.count_o == 0u);
  BOOST_TEST(!out.avail_o);
  BOOST_TEST(!out.error_o);
  c.tick({true, true, true});  // take with no credit, even with a give: error, count stays
  c.eval(in, out);
  BOOST_TEST(out.error_o);
  BOOST_TEST(out.count_o == 0u);
  c.tick({true, false, true});
  c.tick({true, false, true});
  c.eval(in, out);
  BOOST_TEST(out.full_o);
  c.tick({true, false, true});  // give beyond max
  BOOST_TEST(c.count() == 2u);
  BOOST_TEST(c.error());
  c.tick({false, false, false});  // reset clears the sticky error
  BOOST_TEST(!c.error());
}

BOOST_AUTO_TEST_CASE(workers_call_every_index_once) {
  // every index of every run exactly once, whatever the team (more threads than the machine has
  // too), runs back to back of different sizes; an exception reaches the caller after the run
  for (const unsigned threads : {1u, 2u, 5u}) {
    common::Workers team(threads);
    BOOST_TEST(team.threads() == threads);
    std::vector<std::atomic<unsigned>> hits(97);
    std::uint64_t runs = 0, calls = 0;
    for (unsigned r = 0; r < 2000; ++r) {
      const unsigned n = r % 97;
      for (auto& h : hits) h.store(0);
      team.run(n, [&](unsigned i) { hits[i].fetch_add(1); });
      unsigned bad = 0;
      for (unsigned i = 0; i < hits.size(); ++i) bad += hits[i].load() != (i < n ? 1u : 0u);
      BOOST_TEST(bad == 0u, threads << " threads, run " << r << " of " << n << " calls");
      if (bad) break;
      ++runs;
      calls += n;
    }
    BOOST_TEST(runs == 2000u);
    BOOST_TEST(calls > 90000u);
    std::atomic<unsigned> ran{0};
    bool caught = false;
    try {
      team.run(10, [&](unsigned i) {
        ran.fetch_add(1);
        if (i == 3) throw std::runtime_error("call 3");
      });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "call 3";
    }
    BOOST_TEST(caught, threads << " threads");
    BOOST_TEST(ran.load() == 10u, threads << " threads: every call ran");
    team.run(3, [&](unsigned) { ran.fetch_add(1); });  // the team goes on after an exception
    BOOST_TEST(ran.load() == 13u);
  }
  // teams made and ended at once, with and without a run (a member the OS starts after the end
  // still stops): no hang
  std::atomic<unsigned> calls{0};
  for (unsigned k = 0; k < 300; ++k) {
    common::Workers team(2 + k % 4);
    if (k % 2) team.run(5, [&](unsigned) { calls.fetch_add(1); });
  }
  BOOST_TEST(calls.load() == 150u * 5);
}
