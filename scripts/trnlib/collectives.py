"""The rows of `trnsim collective --compare-published` (its fixed columns) as dicts: system, op,
ranks, size, published and model time (us), ratio, published and model busbw (GB/s), algo, and
whether the row's table was fitted or held out. Used by bench_collectives and fit_collective_cost."""
from __future__ import annotations


def compare_rows(text: str) -> list[dict]:
    rows = []
    for line in text.splitlines():
        f = line.split()
        if line.startswith("#") or len(f) < 12 or f[0] == "system":
            continue
        rows.append({"system": f[0], "op": f[1], "ranks": int(f[2]), "size": int(f[3]), "published_us": float(f[4]),
                     "model_us": float(f[5]), "ratio": float(f[6]), "published_busbw": float(f[7]),
                     "model_busbw": float(f[8]), "algo": f[9], "published_algo": None if f[10] == "-" else f[10],
                     "fit": f[11] == "fit"})
    return rows
