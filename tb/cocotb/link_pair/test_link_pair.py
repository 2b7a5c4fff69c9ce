"""cocotb tests of rtl/link/link_pair.sv: a NeuronLink sender and receiver joined by a Python channel.

The channel carries each flit (sequence number, payload, CRC) from tx_* to rx_* and each
acknowledgement from rack_*/rnack_* back to ack_*/nack_* after LATENCY cycles. It flips one to
three bits of a flit (anywhere in sequence number, payload and CRC) with probability P_ERR and
loses an acknowledgement with probability P_LOSS. The scoreboard checks that the receiver delivers
every payload the sender accepted exactly once, in order and intact, and that the bit errors were
seen (crc_errors_o) and repaired by replays (replays_o, timeouts_o).

Inputs are written after each falling edge; outputs are read once they settle, so what the channel
takes from tx_* in a cycle is what the sender puts on the wire at the next rising edge.

Fault (TRN_COCOTB_FAULT=1): the Makefile builds the receiver with CheckCrc=0, a DUT that delivers
corrupted payloads; the scoreboard must report one.
"""
from collections import deque

import cocotb
from cocotb.triggers import FallingEdge

from trn_cocotb import rng, settle, start

W, DEPTH = 64, 8
SB = DEPTH.bit_length() - 1 + 2  # sequence bits: log2(Depth) + 2
LATENCY = 3


class Bench:
    def __init__(self, dut, r, p_err: float, p_loss: float, p_offer: float):
        self.dut, self.r = dut, r
        self.p_err, self.p_loss, self.p_offer = p_err, p_loss, p_offer
        self.fwd = deque()   # (due, seq, data, crc)
        self.back = deque()  # (due, nack, seq)
        self.sent, self.delivered = [], 0
        self.offer = None
        self.cycle_no = 0
        self.corrupted = self.lost = 0

    def corrupt(self, seq: int, data: int, crc: int):
        word = (seq << (W + 16)) | (data << 16) | crc
        for _ in range(self.r.randint(1, 3)):
            word ^= 1 << self.r.randrange(SB + W + 16)
        self.corrupted += 1
        return (word >> (W + 16)) & ((1 << SB) - 1), (word >> 16) & ((1 << W) - 1), word & 0xFFFF

    async def cycle(self, offering: bool = True) -> None:
        dut, r = self.dut, self.r
        await FallingEdge(dut.clk_i)
        c = self.cycle_no
        if self.offer is None and offering and r.random() < self.p_offer:
            self.offer = r.getrandbits(W)
        dut.in_valid_i.value = int(self.offer is not None)
        dut.in_data_i.value = self.offer or 0
        f = self.fwd[0] if self.fwd and self.fwd[0][0] == c else None
        if f:
            self.fwd.popleft()
        dut.rx_valid_i.value = int(f is not None)
        dut.rx_seq_i.value, dut.rx_data_i.value, dut.rx_crc_i.value = (f[1], f[2], f[3]) if f else (0, 0, 0)
        ack = nack = None
        while self.back and self.back[0][0] == c:
            _, is_nack, seq = self.back.popleft()
            if is_nack:
                nack = seq
            else:
                ack = seq
        dut.ack_valid_i.value, dut.ack_seq_i.value = int(ack is not None), ack or 0
        dut.nack_valid_i.value, dut.nack_seq_i.value = int(nack is not None), nack or 0
        await settle()
        if self.offer is not None and int(dut.in_ready_o.value):
            self.sent.append(self.offer)
            self.offer = None
        if int(dut.out_valid_o.value):
            got = int(dut.out_data_o.value)
            assert self.delivered < len(self.sent), f"cycle {c}: delivered {got:#x}, but nothing more was sent"
            want = self.sent[self.delivered]
            assert got == want, f"cycle {c}: payload {self.delivered} delivered as {got:#x}, sent {want:#x}"
            self.delivered += 1
        if int(dut.tx_valid_o.value):
            flit = (int(dut.tx_seq_o.value), int(dut.tx_data_o.value), int(dut.tx_crc_o.value))
            if r.random() < self.p_err:
                flit = self.corrupt(*flit)
            self.fwd.append((c + LATENCY, *flit))
        for valid, seq, is_nack in ((dut.rack_valid_o, dut.rack_seq_o, False),
                                    (dut.rnack_valid_o, dut.rnack_seq_o, True)):
            if int(valid.value):
                if r.random() < self.p_loss:
                    self.lost += 1
                else:
                    self.back.append((c + LATENCY, is_nack, int(seq.value)))
        self.cycle_no += 1


async def init(dut, **kw) -> Bench:
    for s in ("in_valid_i", "in_data_i", "rx_valid_i", "rx_seq_i", "rx_data_i", "rx_crc_i",
              "ack_valid_i", "ack_seq_i", "nack_valid_i", "nack_seq_i"):
        getattr(dut, s).value = 0
    await start(dut)
    return Bench(dut, rng(), **kw)


async def run(dut, cycles: int, **kw) -> Bench:
    b = await init(dut, **kw)
    for _ in range(cycles):
        await b.cycle()
    for _ in range(4000):  # drain: stop offering, let replays finish
        if b.delivered == len(b.sent) and not b.fwd:
            break
        await b.cycle(offering=False)
    assert b.delivered == len(b.sent), f"{len(b.sent)} payloads sent, {b.delivered} delivered"
    return b


@cocotb.test()
async def bit_errors(dut):
    """5 % of flits corrupted, 5 % of acknowledgements lost, 6000 cycles of full offered load."""
    b = await run(dut, 6000, p_err=0.05, p_loss=0.05, p_offer=1.0)
    crc, rep, tmo = int(dut.crc_errors_o.value), int(dut.replays_o.value), int(dut.timeouts_o.value)
    dut._log.info(f"{len(b.sent)} payloads delivered; {b.corrupted} flits corrupted, {b.lost} acks lost; "
                  f"receiver CRC errors {crc}, replays {rep} (by timeout {tmo})")
    assert len(b.sent) > 1000, "too little traffic"
    assert b.corrupted > 0 and crc > 0, "no bit error reached the receiver's CRC check"
    assert rep > 0, "no replay after the bit errors"


@cocotb.test()
async def clean_channel(dut):
    """No errors: every payload arrives once, and nothing is replayed."""
    b = await run(dut, 2000, p_err=0.0, p_loss=0.0, p_offer=0.7)
    assert int(dut.crc_errors_o.value) == 0 and int(dut.replays_o.value) == 0, "errors on a clean channel"
    assert len(b.sent) > 1000
