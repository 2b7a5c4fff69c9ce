// Reset sequence for tops with an asynchronous active-low reset rst_ni.
#pragma once

#include "harness/clock.hpp"

namespace trn::tb {

/// Drive rst_n high, then low (a falling edge, so the asynchronous reset acts at once), hold it
/// for `cycles` rising edges, and release it just after the last of them.
inline Task<> reset_dut(Clock& clk, Signal& rst_n, unsigned cycles = 2) {
  rst_n.set(1);
  co_await Timer(1, Unit::ps);
  rst_n.set(0);
  co_await ClockCycles(clk.signal(), cycles);
  rst_n.set(1);
}

}  // namespace trn::tb
