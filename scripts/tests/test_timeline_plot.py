#!/usr/bin/env python3
"""`scripts/timeline --plot`: a kernel's trace drawn as a picture with matplotlib (docs/isa.md).

matplotlib is an optional package (the bootstrap installs it into build/pylib); without it the
test says why and exits 77, which CTest counts as skipped, never as passed.

Usage: test_timeline_plot.py [--trnsim PATH]
"""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trnsim_cli import ROOT, Checks, trnsim_path  # noqa: E402

check = Checks("scripts/timeline --plot")


def main():
    trnsim = trnsim_path("test_timeline_plot", __doc__)
    with tempfile.TemporaryDirectory() as td:
        t = Path(td)
        trace = t / "gemm.json"
        p = subprocess.run([str(trnsim), "kernel", "gemm", "--config", "tiny", "--seed", "4", "--trace", str(trace)],
                           capture_output=True, text=True, timeout=600)
        check(p.returncode == 0 and trace.exists(), f"trnsim kernel gemm --trace (exit {p.returncode})")
        pic = t / "gemm.svg"
        p = subprocess.run([sys.executable, str(ROOT / "scripts" / "timeline"), str(trace), "--width", "60",
                            "--plot", str(pic)], capture_output=True, text=True)
        if p.returncode == 2 and "matplotlib not available" in p.stderr:
            print(f"skip  scripts/timeline --plot: {p.stderr.strip()}")
            return 77
        svg = pic.read_text() if pic.exists() else ""
        check(p.returncode == 0 and "<svg" in svg and "tensor" in svg and "cycles" in svg,
              f"scripts/timeline --plot draws the picture with matplotlib (exit {p.returncode}: {p.stderr.strip()})")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
