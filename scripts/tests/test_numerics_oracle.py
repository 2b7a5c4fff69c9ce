#!/usr/bin/env python3
"""The model's number formats against an external oracle: ml_dtypes (SPEC section 4, level 3).

For bfloat16, float8_e5m2, float8_e4m3, float8_e4m3fn, float8_e3m4, float4_e2m1fn and
float8_e8m0fnu:
  decode  every code, model (trnsim decode) against ml_dtypes: FP32 bits equal; NaN codes decode
          to NaN on both sides (the model's is the canonical 0x7FC00000).
  encode  RNE of every boundary value (each code, each midpoint between neighbours and the FP32
          values either side of it, max + half ulp, +-0, FP32 subnormals, +-Inf, NaN) and of
          RANDOM_VALUES (default 100000) random FP32 values: codes equal.
Where the SPEC's rule and ml_dtypes' differ (formats without Inf: overflow and Inf saturate in the
SPEC, give NaN in ml_dtypes; NaN inputs: the model returns the canonical NaN code, E2M1 +0), both
sides are checked against their own rule and the count is printed. Any other difference fails.
The comparison itself is shown able to fail: one code of the model's output is corrupted on
purpose and the check must report exactly that value.

Exit: 0 pass, 1 mismatches, 77 skipped (ml_dtypes/numpy could not be installed: see bootstrap).
Usage: test_numerics_oracle.py [--trnsim PATH] [--random N] [--seed S]
"""
import argparse
import os
import warnings
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TRN_BUILD_DIR", ROOT / "build"))
SKIP = 77

FORMATS = [  # (ml_dtypes name, trnsim name, bits)
    ("bfloat16", "bf16", 16),
    ("float8_e5m2", "e5m2", 8),
    ("float8_e4m3", "e4m3", 8),
    ("float8_e4m3fn", "e4m3fn", 8),
    ("float8_e3m4", "e3m4", 8),
    ("float4_e2m1fn", "e2m1", 4),
    ("float8_e8m0fnu", "e8m0", 8),
]
HAS_INF = {"bf16", "e5m2", "e4m3", "e3m4"}


def trnsim(exe, args, lines):
    r = subprocess.run([str(exe)] + args + ["--raw"], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"oracle: trnsim {' '.join(args)} failed: {r.stderr.strip()}")
    out = [int(x, 16) for x in r.stdout.split()]
    if len(out) != len(lines):
        sys.exit(f"oracle: trnsim {' '.join(args)} returned {len(out)} results for {len(lines)} inputs")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trnsim", default=str(BUILD / "bin" / "trnsim"))
    ap.add_argument("--random", type=int, default=int(os.environ.get("RANDOM_VALUES", "100000")))
    ap.add_argument("--seed", type=int, default=20261121)
    a = ap.parse_args()

    sys.path.insert(0, str(BUILD / "pylib"))
    try:
        import ml_dtypes  # noqa: F401
        import numpy as np
    except ImportError as e:
        why = (BUILD / "pylib" / "UNAVAILABLE")
        reason = why.read_text().strip() if why.exists() else str(e)
        print(f"oracle: SKIPPED: ml_dtypes/numpy not available ({reason})")
        return SKIP
    if not Path(a.trnsim).exists():
        sys.exit(f"oracle: {a.trnsim} not built (cmake --build build --target trnsim)")
    warnings.simplefilter("ignore", RuntimeWarning)  # casts that overflow are part of the test
    rng = np.random.default_rng(a.seed)
    print(f"oracle: ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__}, seed {a.seed}, {a.random} random values per format")

    failures = 0
    for ml_name, name, bits in FORMATS:
        dt = getattr(ml_dtypes, ml_name)
        store = np.uint16 if bits == 16 else np.uint8
        codes = np.arange(1 << bits, dtype=np.uint32)

        # ---- decode: every code
        theirs = codes.astype(store).view(dt).astype(np.float32).view(np.uint32)
        ours = np.array(trnsim(a.trnsim, ["decode", "--from", name], [f"{c:x}" for c in codes]), dtype=np.uint32)
        t_nan = np.isnan(theirs.view(np.float32))
        bad = np.flatnonzero(np.where(t_nan, ours != 0x7FC00000, ours != theirs))
        for i in bad[:5]:
            print(f"  decode {name} code {codes[i]:#x}: model {ours[i]:#010x}, ml_dtypes {theirs[i]:#010x}")
        print(f"oracle: {name:7s} decode: {len(codes)} codes, {len(bad)} mismatches ({int(t_nan.sum())} NaN codes: NaN on both sides)")
        failures += len(bad)

        # ---- encode: boundary values and random values
        vals = theirs.view(np.float32)
        fin = vals[np.isfinite(vals) & (vals > 0)]
        fin = np.unique(fin)
        mids = (fin[:-1].astype(np.float64) + fin[1:].astype(np.float64)) / 2
        top = float(fin[-1])
        ulp_top = float(fin[-1]) - float(fin[-2])
        extra = np.array([top + ulp_top / 2, top + ulp_top, top * 2, 0.0, fin[0] / 2, fin[0] / 4,
                          float(fin[0]) * 0.75, 1e-45, 1.1754942e-38, 1.1754944e-38, 3.4028235e38], dtype=np.float64)
        b = np.concatenate([fin.astype(np.float64), mids, extra]).astype(np.float32)
        b = np.concatenate([b, np.nextafter(b, np.float32(np.inf)), np.nextafter(b, np.float32(0))])
        b = np.concatenate([b, -b, np.array([np.inf, -np.inf, np.nan, -np.nan], dtype=np.float32)])
        boundary = np.concatenate([b.view(np.uint32), np.array([0x00400001, 0x005FFFFF, 0x00600000, 0x00600001, 0x007FFFFF], dtype=np.uint32)])
        # random: half uniform over all bit patterns, half over the format's exponent range
        r1 = rng.integers(0, 1 << 32, size=a.random // 2, dtype=np.uint64).astype(np.uint32)
        lo, hi = np.log2(float(fin[0])) - 3, np.log2(top) + 2
        mag = np.exp2(rng.uniform(lo, hi, size=a.random - a.random // 2)).astype(np.float32)
        sign = np.where(rng.random(mag.size) < 0.5, -1, 1).astype(np.float32)
        r2 = (mag * sign).view(np.uint32) ^ rng.integers(0, 1 << 12, size=mag.size, dtype=np.uint64).astype(np.uint32)
        x = np.concatenate([boundary, r1, r2])
        xf = x.view(np.float32)
        theirs_c = xf.astype(dt).view(store).astype(np.uint32)
        ours_c = np.array(trnsim(a.trnsim, ["convert", "--to", name, "--bits"], [f"{v:08x}" for v in x]), dtype=np.uint32)

        mask = (1 << bits) - 1
        sign_bit = 0 if name == "e8m0" else 1 << (bits - 1)
        their_is_nan = np.isnan(theirs_c.astype(store).view(dt).astype(np.float32))
        # the model's own codes, from its decode table above
        ours_val = theirs.view(np.float32)[ours_c & mask]
        max_code = int(np.argmax(np.where(np.isfinite(vals) & (codes < (sign_bit or 1 << bits)), vals, -np.inf)))
        in_nan = np.isnan(xf)
        in_neg = np.signbit(xf)
        nan_code = {"bf16": 0x7FC0, "e5m2": 0x7E, "e4m3": 0x7C, "e4m3fn": 0x7F, "e3m4": 0x78, "e2m1": 0x0, "e8m0": 0xFF}[name]
        # Rule 1: NaN input. SPEC: the canonical NaN code (E2M1 has no NaN: +0). ml_dtypes: a NaN (E2M1: a zero).
        r_nan = in_nan
        ok_nan = (ours_c == nan_code) & ((their_is_nan) | ((name == "e2m1") & ((theirs_c & 7) == 0)))
        # Rule 2: beyond the range of a format without Inf (or Inf input): SPEC saturates to +-max,
        # ml_dtypes gives NaN. Only where ml_dtypes says NaN for a non-NaN input.
        beyond = ~in_nan & their_is_nan & (np.abs(xf.astype(np.float64)) > float(top))
        if name == "e8m0":
            beyond &= ~in_neg & (xf != 0)
        r_sat = beyond & (name not in HAS_INF)
        sat_code = np.where(in_neg & (sign_bit != 0), sign_bit | max_code, max_code).astype(np.uint32)
        ok_sat = ours_c == sat_code
        # Rule 3 (E8M0 only): FP32 subnormals in (2^-127, 1.5 * 2^-127). RNE (SPEC) gives the nearest,
        # 2^-127 (0x00); ml_dtypes 0.6 rounds every such value up to 2^-126 (0x01).
        r_sub = np.zeros(x.shape, dtype=bool)
        if name == "e8m0":
            r_sub = (x > 0x00400000) & (x < 0x00600000)
        ok_sub = (ours_c == 0x00) & (theirs_c == 0x01)
        plain = ~(r_nan | r_sat | r_sub)
        bad_plain = np.flatnonzero(plain & (ours_c != theirs_c))
        bad_rule = np.flatnonzero((r_nan & ~ok_nan) | (r_sat & ~ok_sat) | (r_sub & ~ok_sub))
        for i in list(bad_plain[:5]) + list(bad_rule[:5]):
            print(f"  encode {name} {xf[i]!r} ({x[i]:#010x}): model {ours_c[i]:#x} ({ours_val[i]!r}), ml_dtypes {theirs_c[i]:#x}")
        n_bad = len(bad_plain) + len(bad_rule)
        print(f"oracle: {name:7s} encode: {len(x)} values ({len(boundary)} boundary), {n_bad} mismatches; "
              f"by rule: {int(r_nan.sum())} NaN inputs (model canonical NaN{' / +0' if name == 'e2m1' else ''}, ml_dtypes NaN{' / 0' if name == 'e2m1' else ''}), "
              f"{int(r_sat.sum())} beyond range (model saturates to max, ml_dtypes NaN)"
              + (f", {int(r_sub.sum())} FP32 subnormals in (2^-127, 1.5*2^-127) (model RNE 2^-127, ml_dtypes 2^-126)" if name == "e8m0" else ""))
        failures += n_bad

        # ---- the check can fail: corrupt one model code and expect exactly that mismatch
        k = int(np.flatnonzero(plain)[len(boundary) // 3])
        forged = ours_c.copy()
        forged[k] ^= 1
        caught = np.flatnonzero(plain & (forged != theirs_c))
        if n_bad == 0 and list(caught) != [k]:
            print(f"oracle: {name}: the comparison missed a code corrupted on purpose at index {k}")
            failures += 1
    print(f"oracle: {'PASS' if failures == 0 else 'FAIL'}: {failures} mismatches")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
