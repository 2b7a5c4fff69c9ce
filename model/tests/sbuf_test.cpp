// Boost.Test units of trn::mem::Sbuf (model/mem/sbuf): its parameter checks, the accumulate
// arithmetic of a chain of back-to-back accumulates to one address (each on the previous sum,
// against a plain sequential sum), reads seeing only earlier cycles' writes, and the bank
// arbitration of docs/sbuf.md as the model's ready outputs.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <stdexcept>

#include "mem/sbuf.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"

using trn::mem::Sbuf;

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
    in.dw_valid_i = in.dr_valid_i = in.e_valid_i = false;
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
  t.in.e_valid_i = true;
  t.in.e_we_i = true;
  t.in.e_addr_i = 3;
  t.in.e_mask_i.set_bit(1, true);
  t.in.e_wdata_i.set_slice(32, 32, 0x12345678u);
  t.in.dr_valid_i = true;  // the same bytes, the same cycle: the old value
  t.in.dr_i.addr = (1u << 10) | 12;
  t.in.dr_i.bytes = 4;
  t.step();
  BOOST_REQUIRE(t.out.e_ready_o && t.out.dr_ready_o);
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
