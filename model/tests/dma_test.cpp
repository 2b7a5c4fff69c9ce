// Boost.Test units of model/dma: the descriptor check (every error code), the accumulate
// arithmetic, the ordering checker on traces that break each promise, and the cycle model alone
// (no RTL) on random programs against the functional reference, over many seeds: strong mode
// never reorders, write-after-write mode does.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <random>

#include "dma/checker.hpp"
#include "dma/runner.hpp"
#include "numerics/format.hpp"

using namespace trn::dma;

namespace {

const Geometry kGeo = Geometry::make(65536, 4, 1024, 16);

Desc copy(Space ss, std::uint32_t src, Space ds, std::uint32_t dst, std::uint32_t len) {
  return copy_desc(ss, src, ds, dst, len);
}

DmaEngine::Params engine_params(unsigned queues = 2, unsigned slots = 64) {
  DmaEngine::Params p;
  p.queues = queues;
  p.slots = slots;
  p.geo = kGeo;
  return p;
}

Write wr(unsigned q, unsigned desc, std::uint32_t elem, std::uint32_t addr, unsigned n, bool sem = false) {
  Write w;
  w.queue = q;
  w.desc = desc;
  w.elem = elem;
  w.space = Space::hbm;
  w.addr = addr;
  w.n = n;
  w.esize = 1;
  w.sem = sem;
  w.data.assign(16, 0);
  return w;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dma)

BOOST_AUTO_TEST_CASE(memory_holds_a_refused_read_response) {
  // Reads of distinct HBM bytes, out-of-order latencies; the reader refuses every third offered
  // response. Each refused response must come back the next cycle unchanged, and every read must
  // be answered exactly once with its bytes.
  MemSystem::Params mp;
  mp.hbm_lat_min = 1;
  mp.hbm_lat_max = 6;
  MemSystem m(kGeo, mp, 7);
  for (std::uint32_t a = 0; a < 64 * 16; ++a) m.image().hbm[a] = static_cast<std::uint8_t>(a * 7 + 3);
  std::vector<unsigned> got(64, 0);
  unsigned offered = 0, refused = 0;
  std::optional<std::pair<unsigned, std::vector<std::uint8_t>>> last_refused;
  m.advance(0);
  for (std::uint64_t c = 0; c < 400; ++c) {
    std::optional<ReadReq> rd;
    if (c < 64 && m.ports().ar_ready)
      rd = ReadReq{Space::hbm, static_cast<std::uint32_t>(c * 16), 16, static_cast<unsigned>(c)};
    bool take = true;
    if (m.ports().r_valid) {
      if (last_refused) {
        BOOST_TEST(m.ports().r_id == last_refused->first);
        BOOST_TEST((m.ports().r_data == last_refused->second));
        last_refused.reset();
      } else {
        take = ++offered % 3 != 0;
      }
      if (take) {
        const unsigned id = m.ports().r_id;
        ++got.at(id);
        for (unsigned b = 0; b < 16; ++b)
          BOOST_TEST(m.ports().r_data[b] == static_cast<std::uint8_t>((id * 16 + b) * 7 + 3));
      } else {
        ++refused;
        last_refused = std::make_pair(m.ports().r_id, m.ports().r_data);
      }
    } else {
      BOOST_TEST(!last_refused.has_value());  // a refused response is offered the very next cycle
    }
    m.observe(c, rd, std::nullopt, take);
    m.advance(c + 1);
  }
  BOOST_TEST(refused > 5u);
  for (unsigned id = 0; id < 64; ++id) BOOST_TEST(got[id] == 1u, "read " << id << " answered " << got[id] << " times");
  BOOST_TEST(m.pending_reads() == 0u);
}

BOOST_AUTO_TEST_CASE(memory_answers_reads_in_order_due_and_keeps_the_trace_asked_for) {
  // Latency 5..9 and reads asked two cycles apart, so some asked later are due earlier: every read
  // is answered at its first cycle with none due before it (the one due first, of those due
  // together the one asked first), each once. The latencies are found by asking each read alone
  // of a memory with the same seed (one draw a read). Then writes: trace() holds every one, or
  // with keep_trace false only the last, while on_write sees each.
  MemSystem::Params mp;
  mp.hbm_lat_min = 5;
  mp.hbm_lat_max = 9;
  constexpr unsigned kReads = 40;
  std::vector<std::uint64_t> due(kReads);
  {
    // read k asked alone at cycle 20k (later than any answer before it), answered at its latency:
    // asked at cycle 2k with the others it is due at 2k + that latency
    MemSystem solo(kGeo, mp, 11);
    solo.advance(0);
    for (std::uint64_t c = 0, k = 0; k < kReads; ++c) {
      std::optional<ReadReq> rd;
      if (c % 20 == 0 && c / 20 < kReads) rd = ReadReq{Space::hbm, 0, 16, static_cast<unsigned>(c / 20)};
      if (solo.ports().r_valid) {
        const unsigned id = solo.ports().r_id;
        due.at(id) = 2 * id + (c - 20 * id);
        ++k;
      }
      solo.observe(c, rd, std::nullopt, true);
      solo.advance(c + 1);
    }
  }
  unsigned late = 0;
  for (unsigned k = 0; k + 1 < kReads; ++k) late += due[k] > due[k + 1];
  BOOST_TEST(late > 3u);  // the latencies reorder reads: the test sees the order rule at work
  // the answers, in the order the rule gives: by the cycle due, then by asking
  std::vector<unsigned> order(kReads);
  for (unsigned k = 0; k < kReads; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return due[a] < due[b]; });
  MemSystem m(kGeo, mp, 11);
  m.advance(0);
  std::vector<unsigned> got;
  for (std::uint64_t c = 0; got.size() < kReads && c < 1000; ++c) {
    std::optional<ReadReq> rd;
    if (c % 2 == 0 && c / 2 < kReads) rd = ReadReq{Space::hbm, 0, 16, static_cast<unsigned>(c / 2)};
    if (m.ports().r_valid) {
      got.push_back(m.ports().r_id);
      BOOST_TEST(c >= due[m.ports().r_id], "read " << m.ports().r_id << " answered before its due cycle");
    }
    m.observe(c, rd, std::nullopt, true);
    m.advance(c + 1);
  }
  BOOST_TEST(got == order, boost::test_tools::per_element());
  BOOST_TEST(m.pending_reads() == 0u);

  for (bool keep : {true, false}) {
    mp.keep_trace = keep;
    MemSystem w(kGeo, mp, 1);
    unsigned seen = 0;
    w.on_write = [&](const Write&) { ++seen; };
    for (unsigned k = 0; k < 3; ++k) w.observe(k, std::nullopt, wr(0, k, 0, 64 * k, 16), true);
    BOOST_TEST(seen == 3u);
    BOOST_TEST(w.trace().size() == (keep ? 3u : 1u));
    BOOST_TEST(w.trace().back().addr == 128u);
  }
}

BOOST_AUTO_TEST_CASE(check_every_error_code) {
  const Geometry& g = kGeo;
  BOOST_TEST((check(copy(Space::hbm, 0, Space::sbuf, g.sbuf_addr(3, 0), 1024), g) == Err::none));
  BOOST_TEST((check(copy(Space::hbm, 65000, Space::sbuf, 0, 1024), g) == Err::range));  // source past HBM
  BOOST_TEST(
      (check(copy(Space::hbm, 0, Space::sbuf, g.sbuf_addr(1, 512), 1024), g) == Err::range));     // crosses a partition
  BOOST_TEST((check(copy(Space::hbm, 0, Space::sbuf, g.sbuf_addr(4, 0), 16), g) == Err::range));  // no partition 4
  BOOST_TEST((check(copy(Space::hbm, 0, Space::sbuf, 0, 0), g) == Err::zero_len));
  BOOST_TEST((check(copy(Space::hbm, 0, Space::hbm, 0, 65537), g) == Err::long_len));
  Desc t = copy(Space::hbm, 0, Space::sbuf, 0, 64);
  t.stype = t.dtype = 2;  // BF16
  t.layout = 1;
  t.cols = 4;
  BOOST_TEST((check(t, g) == Err::none));
  t.cols = 3;  // 32 elements are not whole rows of 3
  BOOST_TEST((check(t, g) == Err::transpose));
  t.cols = 4;
  t.layout = 2;  // 4-byte columns of BF16
  BOOST_TEST((check(t, g) == Err::transpose));
  t.layout = 1;
  t.dst_addr = 1;  // offset not a multiple of 2
  BOOST_TEST((check(t, g) == Err::transpose));
  t.dst_addr = 0;
  t.dst_space = Space::hbm;
  BOOST_TEST((check(t, g) == Err::transpose));
  t.dst_space = Space::sbuf;
  t.cols = 2;
  t.dst_addr = g.sbuf_addr(3, 0);  // partitions 3..4
  BOOST_TEST((check(t, g) == Err::range));
  Desc m = copy(Space::hbm, 0, Space::sbuf, 0, 16);
  m.stype = 0;
  m.dtype = 8;  // to FP4
  BOOST_TEST((check(m, g) == Err::mx_cast));
  m.stype = 9;
  m.dtype = 9;  // E8M0 scales as a type: still MX
  BOOST_TEST((check(m, g) == Err::mx_cast));
  m.stype = 12;
  BOOST_TEST((check(m, g) == Err::format));
  Desc a = copy(Space::hbm, 0, Space::sbuf, 0, 16);
  a.stype = a.dtype = 3;  // accumulate in FP16: not offered
  a.op = 1;
  BOOST_TEST((check(a, g) == Err::format));
  a.stype = a.dtype = 2;
  BOOST_TEST((check(a, g) == Err::none));
  a.dst_space = Space::hbm;  // accumulate beside HBM too (docs/chip.md)
  BOOST_TEST((check(a, g) == Err::none));
  // chip fields (docs/chip.md): an HBM destination or semaphore names chip 0 .. chips, a source only
  // this chip
  Desc c = copy(Space::hbm, 0, Space::hbm, 2u << 24 | 0x100, 16);
  BOOST_TEST((check(c, g) == Err::chip));  // chip 1 of a system of one
  Geometry g4 = g;
  g4.chips = 4;
  BOOST_TEST((check(c, g4) == Err::none));
  c.dst_addr = 5u << 24 | 0x100;  // chip 4 of four
  BOOST_TEST((check(c, g4) == Err::chip));
  c.dst_addr = 4u << 24 | 0xFFF0;  // chip 3, the last 16 bytes of its HBM
  BOOST_TEST((check(c, g4) == Err::none));
  c.dst_addr = 4u << 24 | 0xFFF8;  // past its HBM: the local part is checked in any chip
  BOOST_TEST((check(c, g4) == Err::range));
  c.dst_addr = 0x100;
  c.src_addr = 1u << 24;  // a remote source
  BOOST_TEST((check(c, g4) == Err::chip));
  c.src_addr = 0;
  c.sem = true;
  c.sem_space = Space::hbm;
  c.sem_addr = 5u << 24 | 2u << 7 | 4;  // chip 4 of four
  BOOST_TEST((check(c, g4) == Err::chip));
  c.sem_addr = 4u << 24 | 2u << 7 | 4;
  BOOST_TEST((check(c, g4) == Err::none));
  Desc o = copy(Space::hbm, 0, Space::sbuf, 0, 6);
  o.stype = o.dtype = 0;  // 6 bytes of FP32
  BOOST_TEST((check(o, g) == Err::format));
  Desc s = copy(Space::hbm, 0, Space::sbuf, 0, 16);
  s.sem = true;
  s.sem_space = Space::hbm;
  s.sem_addr = 65534;
  BOOST_TEST((check(s, g) == Err::range));
  s.sem_addr = 6;  // not word aligned
  BOOST_TEST((check(s, g) == Err::range));
}

BOOST_AUTO_TEST_CASE(accumulate_arithmetic) {
  using trn::numerics::f32_bits;
  BOOST_TEST(acc_add(false, f32_bits(1.5f), f32_bits(2.25f)) == f32_bits(3.75f));
  BOOST_TEST(acc_add(false, f32_bits(1.0f), f32_bits(0x1p-24f)) == f32_bits(1.0f));  // ties to even
  // BF16: 1 + 2^-8 is exact in FP32 and rounds to even (1.0) in BF16; 1 + 3*2^-8 rounds up
  BOOST_TEST(acc_add(true, 0x3F80u, 0x3B80u) == 0x3F80u);
  BOOST_TEST(acc_add(true, 0x3F80u, 0x3C40u) == 0x3F82u);
}

BOOST_AUTO_TEST_CASE(checker_reports_each_broken_promise) {
  auto prog = [](bool strong, std::vector<Desc> ds) {
    OrderingChecker c(kGeo, 2);
    c.program(0, ds, strong);
    return c;
  };
  const Desc d0 = copy(Space::hbm, 0, Space::hbm, 20000, 32), d1 = copy(Space::hbm, 64, Space::hbm, 30000, 32);
  auto expect = [](OrderingChecker& c, const Write& w, const std::string& promise) {
    try {
      c.on_write(w);
    } catch (const OrderingViolation& e) {
      BOOST_TEST(e.promise() == promise, e.what());
      return;
    }
    BOOST_FAIL("no violation reported for promise " << promise);
  };
  {  // strong order: element 16 before element 0
    auto c = prog(true, {d0});
    expect(c, wr(0, 0, 16, 20016, 16), "strong order");
  }
  {  // strong order: descriptor 1 before descriptor 0 is complete
    auto c = prog(true, {d0, d1});
    c.on_write(wr(0, 0, 0, 20000, 16));
    expect(c, wr(0, 1, 0, 30000, 16), "strong order");
  }
  {  // the same reordering is allowed in write-after-write mode, and counted
    auto c = prog(false, {d0});
    c.on_write(wr(0, 0, 16, 20016, 16));
    c.on_write(wr(0, 0, 0, 20000, 16));
    BOOST_TEST(c.out_of_order() == 1u);
    c.check_complete();
  }
  {  // semaphore before its data
    Desc s = d0;
    s.sem = true;
    s.sem_space = Space::hbm;
    s.sem_addr = 60000;
    auto c = prog(false, {s});
    c.on_write(wr(0, 0, 16, 20016, 16));
    Write w = wr(0, 0, 32, 60000, 4, true);
    w.esize = 4;
    expect(c, w, "semaphore");
  }
  {  // barrier: a write of descriptor 1 before descriptor 0 is complete
    Desc b = d1;
    b.barrier = true;
    auto c = prog(false, {d0, b});
    c.on_write(wr(0, 0, 0, 20000, 16));
    expect(c, wr(0, 1, 0, 30000, 16), "barrier");
  }
  {  // same address: descriptor 1 overwrites bytes of descriptor 0, then descriptor 0 lands
    Desc e = d1;
    e.dst_addr = 20000;
    auto c = prog(false, {d0, e});
    c.on_write(wr(0, 1, 0, 20000, 16));
    expect(c, wr(0, 0, 0, 20000, 16), "same address");
  }
  {  // a write of a descriptor that fails its check
    Desc z = d0;
    z.len = 0;
    auto c = prog(false, {z});
    expect(c, wr(0, 0, 0, 20000, 16), "bad descriptor");
  }
  {  // completion: data missing at the end
    auto c = prog(false, {d0});
    c.on_write(wr(0, 0, 0, 20000, 16));
    BOOST_CHECK_THROW(c.check_complete(), OrderingViolation);
  }
  {  // a register load: its marked write is its data, once; a second is past its 4 elements
    Desc r = copy_desc(Space::hbm, 0x20, Space::hbm, reg_addr(2, 5), 4, kTypeBytes);
    r.op = static_cast<unsigned>(Op::reg);
    auto c = prog(true, {r});
    c.on_write(wr(0, 0, 0, reg_addr(2, 5), 4, true));
    c.check_complete();
    expect(c, wr(0, 0, 4, reg_addr(2, 5), 4, true), "monitor");
    auto c2 = prog(true, {r});  // and one that never comes is missing at the end
    BOOST_CHECK_THROW(c2.check_complete(), OrderingViolation);
  }
}

/// A register load (Op::reg, docs/isa.md reg_load): 4 bytes from a 4-aligned source to a register
/// address, refused in every other form; check_reg (the control's check of a reg_load, from its
/// source) gives the answer check gives; the engine writes it once, marked as a semaphore write,
/// with the source's 4 bytes, and the ordering checker counts that write as the data.
BOOST_AUTO_TEST_CASE(register_load_is_one_write_marked_as_a_semaphore_write) {
  const Geometry& g = kGeo;
  auto reg = [](Space ss, std::uint32_t src) {
    Desc d = copy_desc(ss, src, Space::hbm, reg_addr(1, 3), 4, kTypeBytes);
    d.op = static_cast<unsigned>(Op::reg);
    return d;
  };
  BOOST_TEST(reg_addr(1, 3) == 0x300Cu);
  BOOST_TEST(is_reg_addr(0x300C));
  BOOST_TEST(!is_reg_addr(0x200C));  // bit 12 clear
  BOOST_TEST(!is_reg_addr(0x308C));  // a unit field
  BOOST_TEST(!is_reg_addr(0x300E));  // not aligned
  BOOST_TEST((check(reg(Space::hbm, 0x20), g) == Err::none));
  BOOST_TEST((check(reg(Space::sbuf, g.sbuf_addr(3, 1020)), g) == Err::none));
  Desc d = reg(Space::hbm, 0x20);
  d.len = 8;
  BOOST_TEST((check(d, g) == Err::format));
  d = reg(Space::hbm, 0x20);
  d.sem = true, d.sem_space = Space::hbm, d.sem_addr = 4;
  BOOST_TEST((check(d, g) == Err::format));  // no completion: the register is its own
  d = reg(Space::hbm, 0x20);
  d.dst_addr = 0x2000C;
  BOOST_TEST((check(d, g) == Err::range));  // not a register address
  d = reg(Space::hbm, 0x20);
  d.dst_space = Space::sbuf;
  BOOST_TEST((check(d, g) == Err::range));
  d = reg(Space::hbm, 0x20);
  d.stype = d.dtype = 0;
  BOOST_TEST((check(d, g) == Err::format));
  // check_reg gives check's answer for sources in and out of range, misaligned, on another chip
  for (const auto& [sp, a] : std::vector<std::pair<Space, std::uint32_t>>{{Space::hbm, 0},
                                                                          {Space::hbm, 65532},
                                                                          {Space::hbm, 65534},
                                                                          {Space::hbm, 65536},
                                                                          {Space::hbm, 0x22},
                                                                          {Space::hbm, 0x01000020},
                                                                          {Space::sbuf, g.sbuf_addr(0, 1020)},
                                                                          {Space::sbuf, g.sbuf_addr(0, 1022)},
                                                                          {Space::sbuf, g.sbuf_addr(4, 0)},
                                                                          {Space::sbuf, g.sbuf_addr(2, 6)}})
    BOOST_TEST((check_reg(sp, a, g) == check(reg(sp, a), g)), "source " << a);
  BOOST_TEST((check_reg(Space::hbm, 0x22, g) == Err::format));
  BOOST_TEST((check_reg(Space::hbm, 65534, g) == Err::format));
  BOOST_TEST((check_reg(Space::hbm, 65536, g) == Err::range));
  BOOST_TEST((check_reg(Space::hbm, 0x01000020, g) == Err::chip));
  // the engine: one write, marked, at the register address, with the 4 bytes; a copy beside it
  Program p;
  p.queues = {{reg(Space::hbm, 0x24), copy(Space::hbm, 0x40, Space::hbm, 0x8000, 8)}, {}};
  p.strong = {true, false};
  MemSystem::Params mp;
  mp.pad_noise = true;  // a byte past the 4 asked for is noise: only those 4 may reach the register
  ModelRunner run(engine_params(), mp, 3);
  for (unsigned i = 0; i < 64; ++i) run.mem().image().hbm[i + 0x20] = static_cast<std::uint8_t>(0xA0 + i);
  OrderingChecker chk(g, 2);
  for (unsigned q = 0; q < 2; ++q) chk.program(q, p.queues[q], p.strong[q]);
  run.run(p, 8, 10000, &chk);
  chk.check_complete();
  unsigned marked = 0;
  for (const auto& w : run.mem().trace()) {
    if (!w.sem) continue;
    ++marked;
    BOOST_TEST(w.addr == reg_addr(1, 3));
    BOOST_TEST(w.n == 4u);
    for (unsigned b = 0; b < 4; ++b) BOOST_TEST(w.data.at(b) == 0xA4u + b);
  }
  BOOST_TEST(marked == 1u);
}

BOOST_AUTO_TEST_CASE(write_selection_serves_every_slot_in_turn) {
  // The engine alone, driven at its ports: four write-after-write queues copy 4 KiB each within
  // HBM, reads answered the next cycle, the write port taking a write every fourth cycle, so the
  // slots stay full of data and the writes choose among them. The choice is round-robin over the
  // slots (docs/dma.md, Writes): a chunk's data is written within Slots - 1 other writes of its
  // arrival. The lowest slot first, before, left a high slot's chunk waiting for nearly every
  // other chunk of the run (about 1000 writes here).
  constexpr unsigned kQueues = 4, kSlots = 16, kLen = 4096, kDst = 0x8000;
  DmaEngine e(engine_params(kQueues, kSlots));
  const unsigned W = kGeo.beat_bytes;
  DmaEngine::In in = e.make_in();
  DmaEngine::Out out = e.make_out();
  e.tick(in);  // reset
  in.rst_ni = true;
  in.cfg_strong_i = 0;
  in.cfg_max_outst_i = kSlots;
  in.ar_ready_i = true;
  std::vector<std::deque<Desc>> todo(kQueues);
  for (unsigned q = 0; q < kQueues; ++q)
    todo[q].push_back(copy(Space::hbm, q * kLen, Space::hbm, kDst + q * kLen, kLen));
  std::map<std::uint32_t, std::uint64_t> arrived;          // destination chunk -> writes done when its data came
  std::optional<std::pair<unsigned, std::uint32_t>> resp;  // (slot, source) answered this cycle
  std::uint64_t writes = 0, worst = 0, cycle = 0;
  unsigned pushed = 0;
  while (writes < kQueues * kLen / W) {
    BOOST_REQUIRE_MESSAGE(cycle < 100000, "not done after 100000 cycles: " << writes << " writes");
    in.desc_valid_i = false;
    for (unsigned q = 0; q < kQueues && !in.desc_valid_i; ++q)
      if (!todo[q].empty()) {
        in.desc_valid_i = true;
        in.desc_queue_i = q;
        in.desc_i = DmaEngine::encode(todo[q].front());
      }
    in.r_valid_i = resp.has_value();
    in.r_id_i = resp ? resp->first : 0;
    in.r_data_i.clear();
    in.wr_ready_i = cycle % 4 == 0;
    e.eval(in, out);
    if (resp) arrived[resp->second + kDst] = writes;
    resp.reset();
    if (out.ar_valid_o && in.ar_ready_i) {
      resp = std::make_pair(static_cast<unsigned>(out.ar_o.id), static_cast<std::uint32_t>(out.ar_o.addr));
    }
    if (out.wr_valid_o && in.wr_ready_i) {
      const auto it = arrived.find(out.wr_o.addr);
      BOOST_REQUIRE_MESSAGE(it != arrived.end(), "a write to " << out.wr_o.addr << " before its data came");
      worst = std::max(worst, writes - it->second);
      arrived.erase(it);
      ++writes;
    }
    if (in.desc_valid_i && out.desc_ready_o) {
      todo[in.desc_queue_i].pop_front();
      ++pushed;
    }
    e.tick(in);
    ++cycle;
  }
  BOOST_TEST(pushed == kQueues);
  BOOST_TEST(arrived.empty());
  BOOST_TEST(worst <= kSlots - 1,
             "a chunk's data waited " << worst << " writes (round-robin bound " << kSlots - 1 << ")");
  BOOST_TEST(worst >= kSlots / 2, "the write port was not the bottleneck: the test exercises nothing");
}

BOOST_AUTO_TEST_CASE(model_random_programs_match_reference) {
  // The cycle model alone, 40 seeds: random programs over 2 queues with out-of-order HBM returns
  // and back-pressure; final image against the reference; every write through the checker.
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 r(seed);
    const Program p = random_program(kGeo, 2, r);
    MemSystem::Params mp;
    mp.hbm_lat_min = 2;
    mp.hbm_lat_max = 30;
    mp.p_ar_ready = 0.8;
    mp.p_wr_ready = 0.7;
    ModelRunner run(engine_params(), mp, seed);
    fill_random(run.mem().image(), r);
    Image ref = run.mem().image();
    reference_run(ref, p);
    OrderingChecker chk(kGeo, 2);
    for (unsigned q = 0; q < 2; ++q) chk.program(q, p.queues[q], p.strong[q]);
    run.run(p, 1 + seed % 32, 200000, &chk, 0.2);
    chk.check_complete();
    BOOST_TEST((run.mem().image() == ref), "seed " << seed << ": final image differs from the reference");
  }
}

BOOST_AUTO_TEST_CASE(model_modes_differ_under_out_of_order_returns) {
  // One queue of row copies HBM -> SBUF, read latency 5..60: write-after-write mode makes writes
  // visible out of order (counted by the checker); strong mode never does (the checker enforces it).
  std::uint64_t waw_reordered = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    for (bool strong : {false, true}) {
      std::mt19937_64 r(seed);
      ProgramOptions o;
      o.p_strong = strong ? 1.0 : 0.0;
      o.p_barrier = 0;
      const Program p = random_program(kGeo, 1, r, o);
      MemSystem::Params mp;
      mp.hbm_lat_min = 5;
      mp.hbm_lat_max = 60;
      DmaEngine::Params ep = engine_params(1);
      ModelRunner run(ep, mp, seed);
      OrderingChecker chk(kGeo, 1);
      chk.program(0, p.queues[0], p.strong[0]);
      run.run(p, 16, 200000, &chk);
      chk.check_complete();
      // strong mode: the checker throws on the first reordered write (checker_reports_each_broken_promise)
      if (!strong) waw_reordered += chk.out_of_order();
    }
  }
  BOOST_TEST(waw_reordered > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
