"""What the trnsim command-line tests share: the trnsim they run, a named check that records
failures, and a runner for one trnsim command."""
import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TRN_BUILD_DIR", ROOT / "build"))


class Checks:
    """Named checks: each prints ok or FAIL; finish() prints the count and gives the exit status."""

    def __init__(self, name):
        self.name = name
        self.failures = []

    def __call__(self, cond, what):
        print(("ok    " if cond else "FAIL  ") + what)
        if not cond:
            self.failures.append(what)

    def finish(self):
        print(f"{self.name}: {len(self.failures)} failed" if self.failures else f"{self.name}: all passed")
        return 1 if self.failures else 0


def trnsim_path(script, doc):
    """--trnsim PATH from the command line (default build/bin/trnsim); exits 2 when it is missing."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trnsim", type=Path, default=BUILD / "bin" / "trnsim")
    path = ap.parse_args().trnsim
    if not path.exists():
        print(f"{script}: error: {path} not found (build the trnsim target)", file=sys.stderr)
        sys.exit(2)
    return path


def runner(trnsim, command, timeout=600):
    """A function running `trnsim COMMAND args...`: (exit status, stdout, stderr)."""
    def run(*args):
        p = subprocess.run([str(trnsim), command, *args], capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    return run
