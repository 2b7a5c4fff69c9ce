"""cocotb tests of rtl/common/stream_fifo.sv: a Python scoreboard (a deque) beside the DUT.

Inputs are written after each falling edge and the handshakes that the next rising edge will make
are read then (every output of the FIFO is a function of its state), so the scoreboard moves in
step with the DUT. Every cycle: push_ready_o is "not full", pop_valid_o is "not empty", usage_o is
the count, and a popped item is the oldest pushed one.

Fault (TRN_COCOTB_FAULT=1): one accepted item reaches the DUT with a bit flipped while the
scoreboard keeps the original; the pop check must report it.
"""
from collections import deque

import cocotb
from cocotb.triggers import FallingEdge

from trn_cocotb import fault, rng, settle, start

WIDTH, DEPTH = 16, 4


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.model = deque()
        self.pushed = self.popped = 0
        self.full_cycles = 0
        self.faulted = False

    async def cycle(self, push: bool, data: int, pop: bool) -> None:
        """One clock cycle: drive, check the state outputs, account the handshakes."""
        dut = self.dut
        await FallingEdge(dut.clk_i)
        sent = data
        if fault() and not self.faulted and push and self.pushed == 5:
            sent ^= 1 << 3
            self.faulted = True
        dut.push_valid_i.value = int(push)
        dut.push_data_i.value = sent
        dut.pop_ready_i.value = int(pop)
        await settle()
        n = len(self.model)
        assert int(dut.usage_o.value) == n, f"usage_o {int(dut.usage_o.value)}, expected {n}"
        assert int(dut.push_ready_o.value) == int(n < DEPTH), f"push_ready_o wrong with {n} held"
        assert int(dut.pop_valid_o.value) == int(n > 0), f"pop_valid_o wrong with {n} held"
        self.full_cycles += n == DEPTH
        if pop and n > 0:
            got, want = int(dut.pop_data_o.value), self.model.popleft()
            assert got == want, f"item {self.popped}: popped {got:#06x}, expected {want:#06x}"
            self.popped += 1
        if push and n < DEPTH:  # push_ready depends on state only: a pop does not make room
            self.model.append(data)
            self.pushed += 1


async def init(dut) -> Bench:
    dut.push_valid_i.value = 0
    dut.push_data_i.value = 0
    dut.pop_ready_i.value = 0
    await start(dut)
    return Bench(dut)


@cocotb.test()
async def random_traffic(dut):
    """Random push and pop rates that change every 500 cycles; 4000 cycles."""
    r = rng()
    b = await init(dut)
    for phase in range(8):
        pp, rp = r.choice([0.1, 0.5, 0.9, 1.0]), r.choice([0.1, 0.5, 0.9, 1.0])
        for _ in range(500):
            await b.cycle(r.random() < pp, r.getrandbits(WIDTH), r.random() < rp)
    dut._log.info(f"{b.pushed} pushed, {b.popped} popped, full for {b.full_cycles} cycles")
    assert b.popped > 1000 and b.full_cycles > 0, "the traffic did not exercise the FIFO"


@cocotb.test()
async def full_while_stalled(dut):
    """Fill the FIFO, stall the consumer 2000 cycles with the producer pushing, then drain."""
    r = rng()
    b = await init(dut)
    for _ in range(2000):
        await b.cycle(True, r.getrandbits(WIDTH), False)
    assert len(b.model) == DEPTH and b.full_cycles >= 2000 - DEPTH
    for _ in range(3 * DEPTH):
        await b.cycle(False, 0, True)
    assert b.popped == DEPTH and len(b.model) == 0
