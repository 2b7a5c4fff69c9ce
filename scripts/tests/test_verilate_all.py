#!/usr/bin/env python3
"""scripts/verilate_all.py, the configure's Verilator runs at once, on two tiny tops in a scratch
directory:
  - a fresh run verilates both, and leaves in each directory what CMake's verilate() checks: the
    command joined by ';' in verilator_args.txt and the file list's copy, V<prefix>_copy.cmake;
  - a second run finds both current and runs nothing;
  - a command that changed (one more argument) makes its top out of date, and only that one runs;
  - a top whose source does not parse fails the run (exit 1), names the top and prints
    Verilator's error, and is left out of date (no verilator_args.txt), while the other is
    verilated; once mended, the next run verilates it;
  - bad input (-j 0, a missing job list, a directory without its command) exits 2 or names what.

Exit: 0 pass, 1 a check failed.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "verilate_all.py"
failures = []


def check(ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def verilator() -> str:
    out = subprocess.run(["bash", "-c", "command -v verilator_bin || command -v verilator"], capture_output=True,
                         text=True).stdout.strip()
    if not out:
        print("verilate_all: skipped (no Verilator)")
        sys.exit(77)
    return out


def main() -> int:
    vbin = verilator()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        good, bad = d / "good.sv", d / "bad.sv"
        good.write_text("module good(input logic a, output logic b); assign b = a; endmodule\n")
        bad.write_text("module bad(input logic a; endmodule\n")
        dirs = {}
        for name, src in (("good", good), ("bad", bad)):
            v = d / f"{name}_tiny"
            v.mkdir()
            cmd = [vbin, "--prefix", f"V{name}", "--Mdir", str(v), "--make", "cmake", "--cc", str(src)]
            (v / "trn_verilate_cmd.txt").write_text("\n".join(cmd) + "\n")
            dirs[name] = (v, cmd)
        jobs = d / "jobs.txt"
        jobs.write_text("".join(f"{v}\n" for v, _ in dirs.values()))

        # a top that does not parse: the run fails naming it, the other is verilated
        r = run(str(jobs), "-j", "2")
        check(r.returncode == 1, f"a broken top: exit {r.returncode}, want 1")
        check("Verilator failed on bad_tiny" in r.stderr and "syntax error" in r.stderr,
              f"a broken top is named with Verilator's error: {r.stderr!r}")
        check(not (dirs["bad"][0] / "verilator_args.txt").exists(), "a broken top is left out of date")
        gv, gcmd = dirs["good"]
        check((gv / "verilator_args.txt").read_text() == ";".join(gcmd) if (gv / "verilator_args.txt").exists()
              else False, "the good top's verilator_args.txt holds its command joined by ';'")
        check((gv / "Vgood_copy.cmake").is_file() and (gv / "Vgood.cpp").is_file(),
              "the good top has its C++ and the file list's copy")

        # mended: the next run verilates only it
        bad.write_text("module bad(input logic a, output logic b); assign b = ~a; endmodule\n")
        r = run(str(jobs), "-j", "2")
        check(r.returncode == 0, f"mended: exit {r.returncode}: {r.stderr}")
        check("Verilating 1 of 2" in r.stdout and "bad_tiny" in r.stdout and "good_tiny" not in r.stdout,
              f"mended: only the broken top runs: {r.stdout!r}")
        check((dirs["bad"][0] / "Vbad_copy.cmake").is_file(), "mended: the top's file list copied")

        # everything current: nothing runs, nothing printed
        r = run(str(jobs), "-j", "2")
        check(r.returncode == 0 and r.stdout == "", f"all current: runs nothing: {r.returncode} {r.stdout!r}")

        # a changed command makes its top out of date
        gcmd2 = gcmd + ["-Wno-fatal"]
        (gv / "trn_verilate_cmd.txt").write_text("\n".join(gcmd2) + "\n")
        r = run(str(jobs), "-j", "1")
        check(r.returncode == 0 and "Verilating 1 of 2" in r.stdout and "good_tiny" in r.stdout,
              f"a changed command reruns its top: {r.stdout!r}")
        check((gv / "verilator_args.txt").read_text() == ";".join(gcmd2), "the new command recorded")

        # bad input
        r = run(str(jobs), "-j", "0")
        check(r.returncode == 2 and "-j 0" in r.stderr, f"-j 0: {r.returncode} {r.stderr!r}")
        r = run(str(d / "nope.txt"))
        check(r.returncode == 2 and "nope.txt" in r.stderr, f"a missing job list: {r.returncode} {r.stderr!r}")
        (d / "empty_tiny").mkdir()
        jobs.write_text(f"{d / 'empty_tiny'}\n")
        r = run(str(jobs))
        check(r.returncode != 0 and "trn_verilate_cmd.txt" in r.stderr,
              f"a directory without its command: {r.returncode} {r.stderr!r}")
    print("verilate_all: " + ("FAILED: " + "; ".join(failures) if failures else "all checks passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
