"""cocotb test of rtl/tensor/tensor_engine.sv (tiny: 4 x 4 array, MaxN 16, 8 PSUM banks of 16
FP32 words): one BF16 matmul checked bit for bit against numpy with ml_dtypes.

The bench plays SBUF behind the engine's two read ports (st_ for the stationary operand, mv_ for
the moving one): it accepts requests with random stalls and answers each in order after 1 to 4
cycles with the addressed element of every partition, zero-extended to 32 bits (docs/tensor.md,
"SBUF read ports"). It issues LoadStationary (stationary[K, M], K = 4, M = 4) and then
MultiplyMoving (moving[K, N], N = MaxN = 16, into one PSUM bank), waits for the LoadStationary and
MultiplyMoving completions on cpl_o (te_pkg::te_cpl_t) with their tags, then reads every element of
every PSUM bank through the registered pr_ port. Throughout, cpl_o.err must stay low.

Expected values (exact, not a tolerance): SPEC 5.1 and docs/tensor.md define
dst[m, n] = sum_k stationary[k, m] * moving[k, n] as a fixed chain of FP32 operations: the sum
starts at -0, row 0 is added first, each step adds one product with one IEEE FP32 addition (RNE),
and a product of two BF16 values is exact in FP32 (8-bit significands give a 16-bit product;
the operands here stay far from the FP32 range limits). The block scaling at the last row,
T = -0 + (P * 1.0) * 1.0 for non-MX operands, changes no bit. numpy reproduces that chain exactly:
the BF16 codes widen to float32 exactly (ml_dtypes), np.outer of two float32 vectors is one
rounding-free multiply per element, and float32 + float32 is IEEE RNE. So every PSUM word is
compared as 32 bits, the sign of zero included: moving column 0 is signed zeros chosen so that
dst[0, 0] sums only -0 products (must read -0) while other outputs of that column mix the signs
(+0). Every PSUM word outside the destination must read 0 (reset clears PSUM; nothing else is
written).

Fault (TRN_COCOTB_FAULT=1): one stationary response word reaches the DUT with bit 6 (the top
mantissa bit of the BF16 element) flipped, while the expected values use the original data; the
comparison of that weight's PSUM partition must fail.
"""
from collections import deque

import cocotb
import ml_dtypes
import numpy as np
from cocotb.triggers import FallingEdge

from trn_cocotb import fault, rng, settle, start

# The tiny configuration (rtl/configs.toml [tiny.arch]; the Makefile's -G values).
ROWS, COLS, MAX_N, BANKS, DEPTH, SBUF_BYTES = 4, 4, 16, 8, 64 // 4, 1024

FMT_BF16 = 2  # numerics_pkg::FmtBf16
OP_LOAD_STATIONARY, OP_MULTIPLY_MOVING = 0, 1  # te_pkg::te_op_e
GEN_V4 = 2  # te_pkg::te_gen_e: TeGenV4
ESIZE_2 = 2  # sbuf_pkg::ESize2: 2-byte elements

# Packed structs as (field, width), first field = most significant bits.
TE_CMD_T = [("op", 1), ("tag", 4), ("fmt", 4), ("bias", 6), ("addr", 24), ("k", 16), ("m", 16),
            ("n", 16), ("bank", 4), ("off", 16), ("acc", 1), ("tr", 1), ("mx", 1), ("sc_addr", 24), ("kpe", 2),
            ("pbf", 1), ("sr", 1), ("seed_ld", 1), ("seed", 32),
            ("spm", 3), ("spq", 2), ("rg", 2)]
E_REQ_T = [("space", 1), ("we", 1), ("esize", 2), ("idx", 24)]
PSUM_ADDR_T = [("bank", 4), ("off", 16)]
TE_CPL_T = [("ls_done", 1), ("ls_tag", 4), ("mm_done", 1), ("mm_tag", 4), ("err", 1), ("err_tag", 4), ("code", 3)]

ST_ADDR, MV_ADDR = 0x040, 0x100  # SBUF byte addresses of the two operands
LS_TAG, MM_TAG = 3, 9
FAULT_COL, FAULT_ROW, FAULT_BIT = 1, 2, 6  # stationary response (= column) 1, partition 2


def pack(fields, **values) -> int:
    """A packed struct's bits from its field values (missing fields are 0)."""
    word = 0
    for name, width in fields:
        v = values.pop(name, 0)
        assert 0 <= v < 1 << width, f"{name} = {v} does not fit in {width} bits"
        word = (word << width) | v
    assert not values, f"unknown fields {sorted(values)}"
    return word


def unpack(fields, word: int) -> dict:
    """A packed struct's field values from its bits."""
    out = {}
    for name, width in reversed(fields):
        out[name] = word & ((1 << width) - 1)
        word >>= width
    return out


def width(fields) -> int:
    return sum(w for _, w in fields)


class Sbuf:
    """SBUF as bytes per partition; an element of 2^esize nibbles at element index idx
    (sbuf_pkg::e_req_t), little-endian (docs/core.md, byte layouts)."""

    def __init__(self):
        self.part = [bytearray(SBUF_BYTES) for _ in range(ROWS)]

    def store_bf16(self, addr: int, codes: np.ndarray) -> None:
        """codes[r, j] (uint16 BF16 codes) as element j from byte address addr in partition r."""
        for r in range(codes.shape[0]):
            for j, code in enumerate(codes[r]):
                self.part[r][addr + 2 * j: addr + 2 * j + 2] = int(code).to_bytes(2, "little")

    def load(self, r: int, idx: int, esize: int) -> int:
        if esize == 0:  # 4-bit: element 2k in the low nibble of byte k
            return (self.part[r][idx // 2] >> (4 * (idx % 2))) & 0xF
        size = 1 << (esize - 1)
        return int.from_bytes(self.part[r][idx * size: (idx + 1) * size], "little")


class ReadPort:
    """One SBUF read port of the engine: requests accepted with probability P_READY, answered in
    order 1..4 cycles later. `corrupt` = (response number, partition, bit) flips one bit of one
    response word on its way to the DUT."""

    P_READY = 0.8

    def __init__(self, dut, name: str, sbuf: Sbuf, r, corrupt=None):
        self.name = name
        self.req_valid = getattr(dut, f"{name}_req_valid_o")
        self.req_ready = getattr(dut, f"{name}_req_ready_i")
        self.req = getattr(dut, f"{name}_req_o")
        self.rsp_valid = getattr(dut, f"{name}_rsp_valid_i")
        self.rsp_data = getattr(dut, f"{name}_rsp_data_i")
        assert len(self.req) == width(E_REQ_T), f"{name}_req_o is {len(self.req)} bits"
        self.sbuf, self.r, self.corrupt = sbuf, r, corrupt
        self.ready = False
        self.q = deque()       # (cycle the response is due, request fields)
        self.requests = []     # element indices requested, in order
        self.responses = 0
        self.corrupted = False

    def drive(self, now: int) -> None:
        self.ready = self.r.random() < self.P_READY
        self.req_ready.value = int(self.ready)
        if self.q and self.q[0][0] <= now:
            req = self.q.popleft()[1]
            data = 0
            for p in range(ROWS):
                word = self.sbuf.load(p, req["idx"], req["esize"])
                if self.corrupt and self.corrupt[:2] == (self.responses, p):
                    word ^= 1 << self.corrupt[2]
                    self.corrupted = True
                data |= word << (32 * p)
            self.rsp_valid.value = 1
            self.rsp_data.value = data
            self.responses += 1
        else:
            self.rsp_valid.value = 0
            self.rsp_data.value = 0

    def sample(self, now: int) -> None:
        if self.ready and int(self.req_valid.value):
            req = unpack(E_REQ_T, int(self.req.value))
            assert req["space"] == 0 and req["we"] == 0, f"cycle {now}: {self.name} request {req} is not an SBUF read"
            assert req["esize"] == ESIZE_2, f"cycle {now}: {self.name} request {req}: not 2-byte (BF16) elements"
            self.requests.append(req["idx"])
            self.q.append((now + self.r.randint(1, 4), req))


class Bench:
    """Drives every input after a falling edge, reads the outputs once they have settled (what the
    next rising edge acts on), one cycle per cycle() call."""

    def __init__(self, dut, sbuf: Sbuf, r):
        self.dut = dut
        self.now = 0
        corrupt = (FAULT_COL, FAULT_ROW, FAULT_BIT) if fault() else None
        self.st = ReadPort(dut, "st", sbuf, r, corrupt)
        self.mv = ReadPort(dut, "mv", sbuf, r)
        self.cmds = deque()      # commands to issue, in order (dicts of te_cmd_t fields)
        self.events = []         # (cycle, "ls_done" | "mm_done", tag)
        self.pr_reqs = deque()   # PSUM (bank, off) to read through pr_
        self.pr_last = None      # the read driven last cycle: its data is on pr_data_o now
        self.psum = {}           # (bank, off) -> pr_data_o (all partitions)
        assert len(dut.cmd_i) == width(TE_CMD_T), f"cmd_i is {len(dut.cmd_i)} bits"
        assert len(dut.pr_i) == width(PSUM_ADDR_T), f"pr_i is {len(dut.pr_i)} bits"
        assert len(dut.cpl_o) == width(TE_CPL_T), f"cpl_o is {len(dut.cpl_o)} bits"

    async def cycle(self) -> None:
        dut = self.dut
        self.st.drive(self.now)
        self.mv.drive(self.now)
        dut.cmd_valid_i.value = int(bool(self.cmds))
        dut.cmd_i.value = pack(TE_CMD_T, **self.cmds[0]) if self.cmds else 0
        pr = self.pr_reqs.popleft() if self.pr_reqs else None
        dut.pr_valid_i.value = int(pr is not None)
        dut.pr_i.value = pack(PSUM_ADDR_T, bank=pr[0], off=pr[1]) if pr else 0
        await settle()
        self.st.sample(self.now)
        self.mv.sample(self.now)
        if self.cmds and int(dut.cmd_ready_o.value):
            self.cmds.popleft()
        cpl = unpack(TE_CPL_T, int(dut.cpl_o.value))
        assert not cpl["err"], f"cycle {self.now}: cpl_o.err, code {cpl['code']}, tag {cpl['err_tag']}"
        if cpl["ls_done"]:
            self.events.append((self.now, "ls_done", cpl["ls_tag"]))
        if cpl["mm_done"]:
            self.events.append((self.now, "mm_done", cpl["mm_tag"]))
        if self.pr_last is not None:
            self.psum[self.pr_last] = int(dut.pr_data_o.value)
        self.pr_last = pr
        await FallingEdge(dut.clk_i)
        self.now += 1

    async def run_until(self, done, what: str, limit: int = 1000) -> None:
        for _ in range(limit):
            if done():
                return
            await self.cycle()
        raise AssertionError(f"{what}: not after {limit} cycles (events {self.events})")


def bf16_normals(g: np.random.Generator, shape) -> np.ndarray:
    """BF16 codes of random normal numbers with magnitudes in [2^-6, 4): sign, exponent -6..1,
    any mantissa."""
    sign = g.integers(0, 2, shape, dtype=np.uint16)
    exp = g.integers(127 - 6, 127 + 2, shape, dtype=np.uint16)
    man = g.integers(0, 128, shape, dtype=np.uint16)
    return (sign << 15) | (exp << 7) | man


def as_f32(codes: np.ndarray) -> np.ndarray:
    """BF16 codes as float32 values (exact)."""
    return codes.view(ml_dtypes.bfloat16).astype(np.float32)


def reference(st: np.ndarray, mv: np.ndarray) -> np.ndarray:
    """dst[M, N] = stationary[K, M]^T . moving[K, N] as the array computes it: from -0, row 0
    first, one exact FP32 product and one FP32 (RNE) addition per row."""
    w, x = as_f32(st), as_f32(mv)
    acc = np.full((st.shape[1], mv.shape[1]), -0.0, dtype=np.float32)
    for k in range(st.shape[0]):
        acc = acc + np.outer(w[k], x[k])  # float32 x float32 products, float32 sums
    # Guard on this function itself (not on the DUT): it is the matmul, to FP32 summation error.
    exact = w.astype(np.float64).T @ x.astype(np.float64)
    bound = st.shape[0] * 2.0 ** -24 * (np.abs(w.astype(np.float64)).T @ np.abs(x.astype(np.float64)))
    assert np.all(np.abs(acc - exact) <= bound), "the reference is not stationary^T . moving"
    return acc


def show(word: int) -> str:
    return f"{word:#010x} ({float(np.uint32(word).view(np.float32))!r})"


@cocotb.test()
async def bf16_matmul(dut):
    """LoadStationary [4, 4] + MultiplyMoving [4, 16] in BF16; every PSUM word checked bit-exactly
    against the FP32 chain of SPEC 5.1 computed with numpy (see the module docstring)."""
    r = rng()
    g = np.random.default_rng(r.getrandbits(64))
    k, m, n = ROWS, COLS, MAX_N
    bank, off = r.randrange(BANKS), 0  # N = MaxN fills the bank (DEPTH = 16)
    st = bf16_normals(g, (k, m))
    mv = bf16_normals(g, (k, n))
    # Column 0: signed zeros, opposite in sign to stationary column 0, so that dst[0, 0] adds only
    # -0 products (stays -0) while the other partitions see mixed signs (+0).
    mv[:, 0] = (~st[:, 0]) & 0x8000
    want = reference(st, mv).view(np.uint32)
    assert want[0, 0] == 0x8000_0000

    sbuf = Sbuf()
    sbuf.store_bf16(ST_ADDR, st)
    sbuf.store_bf16(MV_ADDR, mv)

    # (the third read port, sx_, carries a four-row MX multiply's scale words: idle for BF16)
    for name in ("cmd_valid_i", "cmd_i", "st_req_ready_i", "st_rsp_valid_i", "st_rsp_data_i",
                 "mv_req_ready_i", "mv_rsp_valid_i", "mv_rsp_data_i", "sx_req_ready_i", "sx_rsp_valid_i",
                 "sx_rsp_data_i", "pr_valid_i", "pr_i", "pe_valid_i", "pe_i", "pe_mask_i", "pe_data_i"):
        getattr(dut, name).value = 0
    dut.gen_i.value = GEN_V4
    await start(dut)
    b = Bench(dut, sbuf, r)
    dut._log.info(f"seed {cocotb.RANDOM_SEED}: K {k}, M {m}, N {n} into PSUM bank {bank}, fault {fault()}")

    b.cmds.append(dict(op=OP_LOAD_STATIONARY, tag=LS_TAG, fmt=FMT_BF16, addr=ST_ADDR, k=k, m=m))
    b.cmds.append(dict(op=OP_MULTIPLY_MOVING, tag=MM_TAG, fmt=FMT_BF16, addr=MV_ADDR, n=n, bank=bank, off=off))
    await b.run_until(lambda: any(e[1] == "mm_done" for e in b.events), "cpl_o.mm_done")
    for _ in range(4):  # anything late (a second completion) would show here
        await b.cycle()
    done = [(what, tag) for _, what, tag in b.events]
    assert done == [("ls_done", LS_TAG), ("mm_done", MM_TAG)], f"completions {b.events}"
    assert b.st.requests == [ST_ADDR // 2 + j for j in range(m)], f"stationary reads {b.st.requests}"
    assert b.mv.requests == [MV_ADDR // 2 + j for j in range(n)], f"moving reads {b.mv.requests}"
    assert b.st.corrupted == fault(), "the fault was not injected"
    dut._log.info(f"completions {b.events}")

    # Read all of PSUM: bank x element, all partitions per read.
    b.pr_reqs.extend((bb, o) for bb in range(BANKS) for o in range(DEPTH))
    await b.run_until(lambda: len(b.psum) == BANKS * DEPTH, "PSUM read-back")

    checks = []  # (got, want, where)
    for (bb, o), data in sorted(b.psum.items()):
        for p in range(COLS):
            got = (data >> (32 * p)) & 0xFFFF_FFFF
            if bb == bank and off <= o < off + n:
                checks.append((got, int(want[p, o - off]),
                               f"dst row (partition) {p}, col {o - off} (PSUM bank {bb} element {o})"))
            else:
                checks.append((got, 0, f"PSUM bank {bb} partition {p} element {o} (not written)"))
    bad = [c for c in checks if c[0] != c[1]]
    for got, exp, where in bad:
        dut._log.error(f"{where}: DUT {show(got)}, expected {show(exp)}")
    dut._log.info(f"{len(checks) - len(bad)} of {len(checks)} PSUM words as expected")
    for got, exp, where in checks:
        assert got == exp, f"{where}: DUT {show(got)}, expected {show(exp)} ({len(bad)} words differ)"
