"""Helpers shared by the cocotb tests: clock and reset, the seed, and the fault switch.

TRN_COCOTB_FAULT=1 makes a test corrupt what the DUT sees on purpose (each test says how), so that
scripts/cocotb can show every checker failing on a wrong DUT.
"""
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

PERIOD_NS = 10


def fault() -> bool:
    return os.environ.get("TRN_COCOTB_FAULT", "0") == "1"


def rng() -> random.Random:
    """cocotb's own seed (RANDOM_SEED, printed at start), so a run is reproducible."""
    return random.Random(cocotb.RANDOM_SEED)


async def start(dut, reset_cycles: int = 3) -> None:
    """Start clk_i, hold rst_ni low for reset_cycles, release it on a falling edge."""
    cocotb.start_soon(Clock(dut.clk_i, PERIOD_NS, units="ns").start())
    dut.rst_ni.value = 0
    await ClockCycles(dut.clk_i, reset_cycles)
    await FallingEdge(dut.clk_i)
    dut.rst_ni.value = 1


async def settle() -> None:
    """Wait until this time step's values are final (outputs after the inputs just written)."""
    await ReadOnly()
