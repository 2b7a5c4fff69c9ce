#!/usr/bin/env python3
"""Run the Verilator commands of the benches' verilate() calls at once, before them.

CMake's verilate() (Verilator's verilator-config.cmake) runs Verilator at configure time to learn
which C++ files a top makes, one top after another on one core. CMakeLists.txt's
trn_verilate_benches() writes each bench's command here first, as verilate() will make it:

    verilate_all.py JOBS [-j N]

JOBS lists Verilator output directories, one a line, each holding trn_verilate_cmd.txt (the
command, one argument a line). A directory is current, as verilate() judges it, when its
verilator_args.txt holds the command (its arguments joined by ';') and V<prefix>_copy.cmake exists.
The others run N at a time (the first listed last: the composite tops come last and take longest);
each that succeeds gets what verilate() looks for, the file list's copy and the command, so that
verilate() runs nothing (written only then: a top stays out of date until its run succeeds). A failure prints the command and Verilator's output and exits 1, its
directory left out of date; an interrupt stops every run and leaves the unfinished ones so.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


class Job:
    def __init__(self, vdir: Path):
        self.vdir = vdir
        cmd_file = vdir / "trn_verilate_cmd.txt"
        if not cmd_file.is_file():
            raise SystemExit(f"verilate_all: {cmd_file}: missing (written by CMakeLists.txt, trn_verilate_benches)")
        self.cmd = cmd_file.read_text().splitlines()
        try:
            prefix = self.cmd[self.cmd.index("--prefix") + 1]
        except (ValueError, IndexError):
            raise SystemExit(f"verilate_all: {cmd_file}: the command has no --prefix")
        self.name = vdir.name
        self.vargs = vdir / "verilator_args.txt"
        self.vcmake = vdir / f"{prefix}.cmake"
        self.vcmake_copy = vdir / f"{prefix}_copy.cmake"
        self.text = ";".join(self.cmd)

    def current(self) -> bool:
        return self.vcmake_copy.is_file() and self.vargs.is_file() and self.vargs.read_text() == self.text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("jobs", type=Path, help="the list of Verilator output directories")
    ap.add_argument("-j", type=int, default=1, help="Verilator runs at once (default 1)")
    args = ap.parse_args()
    if args.j < 1:
        print(f"verilate_all: -j {args.j}: want at least 1", file=sys.stderr)
        return 2
    if not args.jobs.is_file():
        print(f"verilate_all: {args.jobs}: no such file", file=sys.stderr)
        return 2
    jobs = [Job(Path(line)) for line in args.jobs.read_text().splitlines() if line.strip()]
    todo = [j for j in reversed(jobs) if not j.current()]
    if not todo:
        return 0
    print(f"-- Verilating {len(todo)} of {len(jobs)} bench tops, {args.j} at a time", flush=True)
    lock = threading.Lock()
    done = [0]
    failed: list[tuple[Job, str]] = []
    procs: list[subprocess.Popen] = []
    stopping = threading.Event()
    t_all = time.monotonic()

    def run(j: Job) -> None:
        if stopping.is_set():
            return
        t0 = time.monotonic()
        with lock:
            p = subprocess.Popen(j.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            procs.append(p)
        out, _ = p.communicate()
        with lock:
            done[0] += 1
            if p.returncode != 0:
                failed.append((j, out))
                print(f"-- Verilating [{done[0]}/{len(todo)}] {j.name}: FAILED (exit {p.returncode})", flush=True)
                return
            shutil.copyfile(j.vcmake, j.vcmake_copy)
            j.vargs.write_text(j.text)
            print(f"-- Verilating [{done[0]}/{len(todo)}] {j.name}: {time.monotonic() - t0:.1f} s", flush=True)

    try:
        with ThreadPoolExecutor(max_workers=args.j) as pool:
            for f in [pool.submit(run, j) for j in todo]:
                f.result()
    except KeyboardInterrupt:
        stopping.set()
        with lock:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        print("verilate_all: interrupted; the unfinished tops stay out of date", file=sys.stderr)
        return 130
    for j, out in failed:
        print(f"verilate_all: Verilator failed on {j.name}:\n  {' '.join(j.cmd)}\n{out}", file=sys.stderr)
    if failed:
        return 1
    print(f"-- Verilated {len(todo)} bench tops in {time.monotonic() - t_all:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
