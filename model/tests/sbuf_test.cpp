// Boost.Test units of trn::mem::Sbuf (model/mem/sbuf): its parameter checks, the accumulate
// arithmetic of a chain of back-to-back accumulates to one address (each on the previous sum,
// against a plain sequential sum), reads seeing only earlier cycles' writes, the byte layout of
// every engine element size, and the bank arbitration of docs/sbuf.md as the model's ready outputs.
#include "mem/sbuf.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <stdexcept>

#include "numerics/arith.hpp"
#include "numerics/format.hpp"

using trn::mem::Sbuf;
using trn::sv::sbuf_pkg::esize_e;

namespace {

const Sbuf::Params kP{4, 1024, 16, 4};

struct Bench {
  Sbuf m{kP};
  Sbuf::In in = m.make_in();
  Sbuf::Out out = m.make_out();
  Bench() {
    m.tick(in);  // reset
    in.rst_ni = true;
  }
  void idle() {
    in.dw_valid_i = in.dr_valid_i = false;
    in.e_valid_i = 0;
  }
  /// Engine port `port`: element idx of size es, written in the partitions of mask with v + partition.
  void e(unsigned port, bool we, esize_e es, std::uint32_t idx, unsigned mask = 0, std::uint32_t v = 0) {
    in.e_valid_i |= 1u << port;
    in.e_i[port].we = we;
    in.e_i[port].esize = es;
    in.e_i[port].idx = idx;
    for (unsigned p = 0; p < kP.parts; ++p) {
      in.e_mask_i.set_bit(port * kP.parts + p, (mask >> p) & 1);
      in.e_wdata_i.set_slice(32 * (port * kP.parts + p), 32, v + p);
    }
  }
  std::uint32_t rdata(unsigned port, unsigned part) const {
    return static_cast<std::uint32_t>(out.e_rdata_o.slice(32 * (port * kP.parts + part), 32));
  }
  /// A row DMA write at partition 0.
  void dw(bool acc, std::uint32_t off, unsigned esize, unsigned n, std::uint32_t v) {
    in.dw_valid_i = true;
    in.dw_i.acc = acc;
    in.dw_i.col = false;
    in.dw_i.esize = static_cast<std::uint8_t>(esize);
    in.dw_i.addr = off;
    in.dw_i.n = static_cast<std::uint8_t>(n);
    in.dw_data_i = trn::Bits(128);
    for (unsigned k = 0; k < n / esize; ++k) in.dw_data_i.set_slice(8 * k * esize, 8 * esize, v);
  }
  void step() {
    m.eval(in, out);
    m.tick(in);
  }
  std::uint32_t word(unsigned part, std::uint32_t off) const {
    std::uint32_t v = 0;
    for (unsigned b = 0; b < 4; ++b) v |= std::uint32_t{m.byte(part, off + b)} << (8 * b);
    return v;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sbuf)

BOOST_AUTO_TEST_CASE(bad_parameters_are_refused) {
  BOOST_CHECK_THROW(Sbuf(Sbuf::Params{4, 1024, 16, 1}), std::invalid_argument);
  BOOST_CHECK_THROW(Sbuf(Sbuf::Params{4, 1024, 24, 4}), std::invalid_argument);
  BOOST_CHECK_THROW(Sbuf(Sbuf::Params{4, 1000, 16, 4}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(back_to_back_accumulates_chain) {
  // 50 FP32 accumulates of 0.1 into one word, one per cycle: each accepted, the result the
  // sequential sum; then 50 BF16 accumulates of 0.1 into another, with BF16 rounding each time.
  Bench t;
  std::uint32_t f = 0, h = 0;
  const std::uint32_t tenth = 0x3DCCCCCDu;
  const std::uint32_t tenth16 = trn::numerics::encode(trn::numerics::Format::bf16, tenth);
  for (int i = 0; i < 50; ++i) {
    t.dw(true, 0x40, 4, 4, tenth);
    t.step();
    BOOST_REQUIRE(t.out.dw_ready_o);
    f = trn::numerics::fp32_add(f, tenth);
  }
  for (int i = 0; i < 50; ++i) {
    t.dw(true, 0x80, 2, 2, tenth16);
    t.step();
    BOOST_REQUIRE(t.out.dw_ready_o);
    h = trn::numerics::encode(trn::numerics::Format::bf16, trn::numerics::fp32_add(h << 16, tenth16 << 16));
  }
  BOOST_CHECK_EQUAL(t.word(0, 0x40), f);
  BOOST_CHECK_EQUAL(t.word(0, 0x80) & 0xFFFFu, h);
  BOOST_CHECK_NE(f, 0u);
  BOOST_CHECK_NE(h, 0u);
}

BOOST_AUTO_TEST_CASE(reads_see_earlier_cycles_only) {
  Bench t;
  t.e(0, true, esize_e::ESize4, 3, 0b10, 0x12345677u);  // partition 1 gets 0x12345678
  t.in.dr_valid_i = true;                               // the same bytes, the same cycle: the old value
  t.in.dr_i.addr = (1u << 10) | 12;
  t.in.dr_i.bytes = 4;
  t.step();
  BOOST_REQUIRE(t.out.e_ready_o == 1 && t.out.dr_ready_o);
  t.idle();
  t.step();
  BOOST_CHECK(t.out.dr_rvalid_o);
  BOOST_CHECK_EQUAL(t.out.dr_rdata_o.slice(0, 32), 0u);
  t.in.dr_valid_i = true;  // the cycle after: the new value
  t.step();
  t.idle();
  t.step();
  BOOST_CHECK_EQUAL(t.out.dr_rdata_o.slice(0, 32), 0x12345678u);
}

BOOST_AUTO_TEST_CASE(engine_elements_sit_in_bytes_as_documented) {
  // docs/core.md: element idx of a partition at byte idx * size, little-endian; 4-bit elements two
  // per byte, element 2k in the low nibble. Writes on four ports (different banks) in one cycle.
  Bench t;
  t.e(0, true, esize_e::ESize4, 1, 0b0001, 0xA1B2C3D4u);  // bytes 4..7 of partition 0
  t.e(1, true, esize_e::ESize2, 8, 0b0001, 0xFFFF1234u);  // bytes 16, 17 (line 1): bits above 16 ignored
  t.e(2, true, esize_e::ESize1, 32, 0b0001, 0x1FEu);      // byte 32 (line 2)
  t.e(3, true, esize_e::ESize4b, 97, 0b0001, 0x7u);       // byte 48 (line 3), high nibble
  t.step();
  BOOST_REQUIRE_EQUAL(t.out.e_ready_o, 0xFu);
  t.idle();
  t.e(0, true, esize_e::ESize4b, 96, 0b0001, 0xEu);  // byte 48, low nibble: the high one stays
  t.step();
  BOOST_REQUIRE_EQUAL(t.out.e_ready_o, 1u);
  BOOST_CHECK_EQUAL(t.word(0, 4), 0xA1B2C3D4u);
  BOOST_CHECK_EQUAL(t.m.byte(0, 4), 0xD4u);
  BOOST_CHECK_EQUAL(t.m.byte(0, 16), 0x34u);
  BOOST_CHECK_EQUAL(t.m.byte(0, 17), 0x12u);
  BOOST_CHECK_EQUAL(t.m.byte(0, 18), 0u);
  BOOST_CHECK_EQUAL(t.m.byte(0, 32), 0xFEu);
  BOOST_CHECK_EQUAL(t.m.byte(0, 33), 0u);
  BOOST_CHECK_EQUAL(t.m.byte(0, 48), 0x7Eu);
  BOOST_CHECK_EQUAL(t.m.byte(1, 48), 0u);  // masked off
  // reads: zero-extended elements, the next cycle
  t.idle();
  t.e(4, false, esize_e::ESize4b, 97);
  t.e(5, false, esize_e::ESize2, 2);  // bytes 4, 5: 0xC3D4
  t.step();
  BOOST_REQUIRE_EQUAL(t.out.e_ready_o, 0x30u);
  t.idle();
  t.step();
  BOOST_CHECK_EQUAL(t.out.e_rvalid_o, 0x30u);
  BOOST_CHECK_EQUAL(t.rdata(4, 0), 0x7u);
  BOOST_CHECK_EQUAL(t.rdata(5, 0), 0xC3D4u);
  BOOST_CHECK_EQUAL(t.rdata(5, 1), 0u);
  // an element beyond the partition is the caller's error, reported by name
  t.e(6, false, esize_e::ESize4, 256);
  BOOST_CHECK_THROW(t.m.eval(t.in, t.out), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(stage_two_holds_its_bank_for_one_cycle) {
  // an accumulate on line 0 (bank 0); the next cycle a copy to line 4 (bank 0) waits, one to line 1
  // (bank 1) does not; the cycle after, bank 0 is free again
  Bench t;
  t.dw(true, 0, 4, 4, 0x3F800000u);
  t.step();
  BOOST_CHECK(t.out.dw_ready_o);
  t.dw(false, 4 * 16, 1, 4, 0);
  t.m.eval(t.in, t.out);
  BOOST_CHECK(!t.out.dw_ready_o);
  BOOST_CHECK(t.out.acc_busy_o);
  t.dw(false, 16, 1, 4, 0);
  t.step();
  BOOST_CHECK(t.out.dw_ready_o);
  t.dw(false, 4 * 16, 1, 4, 0);
  t.m.eval(t.in, t.out);
  BOOST_CHECK(t.out.dw_ready_o);
  BOOST_CHECK(!t.out.acc_busy_o);
}

BOOST_AUTO_TEST_SUITE_END()
