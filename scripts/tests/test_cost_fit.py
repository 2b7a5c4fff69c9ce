#!/usr/bin/env python3
"""The presets hold the fit of the cost of synchronisation (scripts/fit_collective_cost --check):
each chip's launch_us and rank_dma_gbps within 5 % of their least-squares fit to the published
nccom-test tables the presets mark fit = true; and the check fails, naming the value, on a copy of
the presets whose Trainium launch is off by a third.

Usage: test_cost_fit.py [--trnsim PATH]
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trnsim_cli import ROOT, Checks, trnsim_path  # noqa: E402

check = Checks("collective cost fit")


def main():
    trnsim = trnsim_path("test_cost_fit", __doc__)
    fit = [sys.executable, str(ROOT / "scripts" / "fit_collective_cost"), "--trnsim", str(trnsim), "--check"]
    p = subprocess.run(fit, capture_output=True, text=True, timeout=600)
    check(p.returncode == 0 and "| launch_us |" in p.stdout and "trainium2" in p.stdout,
          f"the presets hold the fit (exit {p.returncode}: {p.stderr.strip()[-300:]})")
    presets = (ROOT / "model" / "system" / "presets.toml").read_text()
    bad, n = re.subn(r"(collective = \{ launch_us = )([\d.]+)", lambda m: m.group(1) + f"{float(m.group(2)) * 1.35:.1f}",
                     presets, count=1)
    with tempfile.TemporaryDirectory() as td:
        f = Path(td) / "presets.toml"
        f.write_text(bad)
        p = subprocess.run(fit + ["--presets", str(f)], capture_output=True, text=True, timeout=600)
    check(n == 1 and p.returncode == 1 and "trainium.collective.launch_us" in p.stderr,
          f"a launch a third off its fit fails the check, named (exit {p.returncode}: {p.stderr.strip()[-200:]})")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
