#!/usr/bin/env python3
"""scripts/lint's C++ format check (--tool format): a file that clang-format would change is
rejected with the difference and the command that mends it, a formatted file passes, a missing
file is a bad-input error (exit 2), and every C++ file of the project passes.

Exit: 0 pass, 1 a check failed.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = [sys.executable, str(ROOT / "scripts" / "lint"), "--tool", "format"]


def run(args):
    return subprocess.run(LINT + args, capture_output=True, text=True)


def main() -> int:
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "bad.cpp"
        bad.write_text("int  f( ){return 1;}\n")
        p = run(["--cxx", str(bad)])
        ok = p.returncode == 1 and f"clang-format -i {bad}" in p.stdout and "+int f() { return 1; }" in p.stdout
        print(f"test_format: misformatted file: {'rejected' if ok else 'NOT REJECTED'} (exit {p.returncode})")
        if not ok:
            fails.append("misformatted file")
            print(p.stdout + p.stderr)
        good = Path(tmp) / "good.cpp"
        good.write_text("int f() { return 1; }\n")
        p = run(["--cxx", str(good)])
        print(f"test_format: formatted file: exit {p.returncode}")
        if p.returncode != 0:
            fails.append("formatted file")
            print(p.stdout + p.stderr)
        p = run(["--cxx", str(Path(tmp) / "missing.cpp")])
        print(f"test_format: missing file: exit {p.returncode} ({p.stderr.strip()})")
        if p.returncode != 2 or "missing.cpp" not in p.stderr:
            fails.append("missing file")
    p = run([])
    print(f"test_format: the project's C++: {p.stdout.strip().splitlines()[-2] if p.stdout.strip() else p.stderr}")
    if p.returncode != 0:
        fails.append("project C++")
        print(p.stdout[-4000:])
    print(f"test_format: {'FAIL: ' + ', '.join(fails) if fails else 'pass'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
