#!/usr/bin/env python3
"""Generate the activation coefficient table rtl/scalar/act_coeffs.mem (run by hand; the output is
committed and shared by the RTL and the model). Python standard library only.

Method. Each tabulated kernel approximates g on a domain split into segments chosen by the FP32
exponent and the top M mantissa bits (M per kernel) of the reduced argument v: segment
[a, a + 2^(e-M)) for v in binade e, plus one segment [0, 2^emin) for |v| below the table (kernels
with a small segment, which use g's Taylor series there). On each other segment a degree-4
polynomial in u = |v| - a (u is exact in FP32) interpolates g at the segment's start and at 4
Chebyshev points (near-minimax, and p(0) = g(a) exactly), computed in double and rounded to
FP32. The evaluators (model/scalar/activation.cpp and rtl/scalar/act_pkg.sv) run Horner's rule
with IEEE FP32 multiply and add.

Kernels (v is the reduced argument the evaluator forms; docs/activations.md has the reductions):
  recip  1/v      on [1, 2)        reciprocal
  rsqrt  1/sqrt v on [1, 4)        rsqrt
  sqrt   sqrt v   on [1, 4)        sqrt
  log1p  log(1+v) on (-0.3, 0.42)  log (v = m - 1, m in [sqrt(1/2), sqrt(2)))
  exp    e^v      on (-0.35, 0.35) exp (v = x - k ln 2)
  tanh   tanh v   on [0, 16)       tanh (odd)

File format: one 32-bit hex word per line (FP32 coefficient c0..c4 of each segment, kernel after
kernel, segment after segment); a header of `//` comments lists each kernel's first word,
segment count and layout. Usage: gen_activations.py [--out FILE] [--check]
"""
import argparse
import math
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEGREE = 4

# name, function, signed (table for both signs), emin, emax (binades of |v| covered), mantissa
# bits that pick a segment within a binade (2^M segments per binade), Taylor
# coefficients of g(u) at 0 for the small segment [0, 2^emin) (None: no small segment). The small
# segment uses the Taylor series so that g(0) = 0 stays exact (relative accuracy near 0).
KERNELS = [
    ("recip", lambda v: 1.0 / v, False, 0, 1, 5, None),
    ("rsqrt", lambda v: 1.0 / math.sqrt(v), False, 0, 2, 4, None),
    ("sqrt", math.sqrt, False, 0, 2, 4, None),
    ("log1p", math.log1p, True, -12, -1, 3, [0.0, 1.0, -1 / 2, 1 / 3, -1 / 4]),
    ("exp", math.exp, True, -12, -1, 3, [1.0, 1.0, 1 / 2, 1 / 6, 1 / 24]),
    ("tanh", math.tanh, False, -12, 4, 3, [0.0, 1.0, 0.0, -1 / 3, 0.0]),
]


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_hex(x: float) -> str:
    return struct.pack(">f", x).hex()


def fit(g, a: float, w: float) -> list[float]:
    """Degree-4 polynomial in u = v - a interpolating g at the segment's start (so that p(0) is
    g(a) rounded to FP32: exact values such as 1/1 and sqrt(4) stay exact) and at the 4 Chebyshev
    points of [a, a + w]."""
    n = DEGREE + 1
    us = [0.0] + [w / 2 * (1 - math.cos(math.pi * (2 * i + 1) / (2 * (n - 1)))) for i in range(n - 1)]
    A = [[u ** j for j in range(n)] + [g(a + u)] for u in us]
    for col in range(n):  # Gauss-Jordan with partial pivoting
        piv = max(range(col, n), key=lambda r: abs(A[r][col]))
        A[col], A[piv] = A[piv], A[col]
        for r in range(n):
            if r != col:
                f = A[r][col] / A[col][col]
                A[r] = [x - f * y for x, y in zip(A[r], A[col])]
    c = [f32(A[i][n] / A[i][i]) for i in range(n)]
    c[0] = f32(g(a))
    return c


def segments(signed: bool, emin: int, emax: int, m: int, small: bool):
    """(sign, a, width) of every segment in table order: [small], binades emin..emax-1 x 2^M; the
    negative half after the positive one for signed kernels."""
    out = []
    for sign in ([1, -1] if signed else [1]):
        if small:
            out.append((sign, 0.0, 2.0 ** emin))
        for e in range(emin, emax):
            for j in range(1 << m):
                out.append((sign, 2.0 ** e * (1 + j / (1 << m)), 2.0 ** (e - m)))
    return out


def build() -> list[str]:
    lines = [
        "// Activation coefficient table (scripts/gen_activations.py; see docs/activations.md).",
        f"// degree {DEGREE}; per segment: c0 c1 c2 c3 c4 (FP32 hex),",
        "// p(u) = c0 + u (c1 + u (c2 + u (c3 + u c4))), u = |v| - a (a: the segment's start).",
    ]
    words, base = [], 0
    for name, g, signed, emin, emax, m, taylor in KERNELS:
        small = taylor is not None
        segs = segments(signed, emin, emax, m, small)
        lines.append(f"// kernel {name} base {base} segments {len(segs)} signed {int(signed)} emin {emin} emax {emax} "
                     f"small {int(small)} mbits {m}")
        for sign, a, w in segs:
            if small and a == 0.0:  # Taylor series of g(sign * u)
                words += [f32_hex(f32(c * sign ** i)) for i, c in enumerate(taylor)]
                continue
            # negative half: g over v = -(a + u), as a polynomial in u = |v| - a
            h = (lambda gg, s: (lambda v: gg(s * v)))(g, sign)
            words += [f32_hex(c) for c in fit(h, a, w)]
        base += len(segs) * (DEGREE + 1)
    return lines + words


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "rtl" / "scalar" / "act_coeffs.mem"))
    ap.add_argument("--check", action="store_true", help="fail if the committed table differs")
    a = ap.parse_args()
    text = "\n".join(build()) + "\n"
    out = Path(a.out)
    if a.check:
        if not out.exists() or out.read_text() != text:
            print(f"gen_activations: {out} is not what the script generates; rerun it", file=sys.stderr)
            return 1
        return 0
    out.write_text(text)
    print(f"gen_activations: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
