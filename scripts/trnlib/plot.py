"""matplotlib for the scripts' plots: the optional package the bootstrap installs into build/pylib.

`pyplot()` gives matplotlib.pyplot on the non-interactive Agg back end, or raises Unavailable with
the reason (the bootstrap's record of a failed install, or the import error), which the scripts
print in place of the plot: a plot is never silently missing.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Unavailable(RuntimeError):
    pass


def pyplot(build: Path | None = None):
    lib = (build or ROOT / "build") / "pylib"
    if lib.is_dir() and str(lib) not in sys.path:
        sys.path.insert(0, str(lib))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # an ImportError, or a broken install raising anything else
        why = lib / "MATPLOTLIB-UNAVAILABLE"
        reason = why.read_text().strip() if why.exists() else f"{type(e).__name__}: {e}"
        raise Unavailable(f"matplotlib not available ({reason}); run scripts/bootstrap") from None
    return plt


def size_label(s: float) -> str:
    """A byte count as the benchmarks write it: 512, 4K, 16M, 1G."""
    s = int(s)
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if s >= 1 << shift and s % (1 << shift) == 0:
            return f"{s >> shift}{unit}"
    return str(s)
