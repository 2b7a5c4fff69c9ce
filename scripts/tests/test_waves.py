#!/usr/bin/env python3
"""Waves that explain a mismatch: a failing run's FST and GTKWave save file, checked as data.

Runs tb_stream_fifo_tiny's random_traffic with WAVES=1 twice in a scratch directory:
  - clean: TOP.model.<port> and TOP.sampled.<port> exist for every output the model describes,
    agree at every time, and TOP.mismatch never rises;
  - with LOCKSTEP_INJECT=pop_data_o@CYCLE:BIT (the model's output made wrong at one cycle): the
    run fails, TOP.mismatch rises exactly once, at the time where model and sampled pop_data_o
    first differ, and they differ there by exactly the injected bit; the save file opens on it
    (its time window of 20 to 100 cycles holds the marker) with the mismatch flag, then the model's,
    the sampled and the DUT's pop_data_o first, and every signal it names is in the FST.

Exit: 0 pass, 1 a check failed.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TRN_BUILD_DIR", ROOT / "build"))
EXE = BUILD / "bin" / "tb_stream_fifo_tiny"
PERIOD_PS = 10000
CYCLE, BIT = 200, 3


def vcd(fst: Path):
    """{name: [(time, value int)]} for every variable of the FST (via GTKWave's fst2vcd)."""
    p = subprocess.run(["fst2vcd", str(fst)], capture_output=True, text=True, check=True)
    head, body = p.stdout.split("$enddefinitions", 1)
    ids, scope = {}, []
    for line in head.splitlines():
        t = line.split()
        if t[:1] == ["$scope"]:
            scope.append(t[2])
        elif t[:1] == ["$upscope"]:
            scope.pop()
        elif t[:1] == ["$var"]:
            ids.setdefault(t[3], []).append(".".join(scope + [t[4]]))
    changes = {n: [] for ns in ids.values() for n in ns}
    now = 0
    last = 0
    for line in body.splitlines():
        if not line or line.startswith("$"):
            continue
        if line[0] == "#":
            now = last = int(line[1:])
            continue
        if line[0] in "bB":
            val, code = line[1:].split()
        else:
            val, code = line[0], line[1:]
        v = int(val, 2) if set(val) <= {"0", "1"} else None
        for n in ids.get(code, []):
            changes[n].append((now, v))
    changes["$end"] = [(last, None)]  # the file's last time, changes or not
    return changes


def value_at(ch, t):
    v = None
    for tt, x in ch:
        if tt > t:
            break
        v = x
    return v


def run(d: Path, inject: bool) -> int:
    env = dict(os.environ, TESTCASE="random_traffic", RANDOM_SEED="7", WAVES="1")
    env.pop("LOCKSTEP_INJECT", None)
    if inject:
        env["LOCKSTEP_INJECT"] = f"pop_data_o@{CYCLE}:{BIT}"
    d.mkdir(parents=True)
    p = subprocess.run([str(EXE)], cwd=d, env=env, capture_output=True, text=True)
    (d / "log.txt").write_text(p.stdout + p.stderr)
    return p.returncode


def main() -> int:
    fails = []

    def check(ok, what):
        print(f"test_waves: {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            fails.append(what)

    if not EXE.exists():
        print(f"test_waves: FAIL: {EXE} is not built")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        clean, bad = Path(tmp) / "clean", Path(tmp) / "inject"
        check(run(clean, False) == 0, "the clean run passes")
        ch = vcd(clean / "dump.fst")
        outs = sorted(n[len("TOP.model."):] for n in ch if n.startswith("TOP.model."))
        check({"pop_data_o", "pop_valid_o", "push_ready_o", "usage_o"} <= set(outs),
              f"model scope holds the outputs ({', '.join(outs)})")
        same = all(ch[f"TOP.model.{o}"] == ch[f"TOP.sampled.{o}"] for o in outs)
        check(same, "clean run: model and sampled agree at every time")
        check(all(v == 0 for _, v in ch.get("TOP.mismatch", [(0, 1)])), "clean run: mismatch stays 0")

        check(run(bad, True) == 1, "the injected run fails")
        ch = vcd(bad / "dump.fst")
        mm = ch.get("TOP.mismatch", [])
        rises = [t for t, v in mm if v == 1]
        check(len(rises) == 1, f"mismatch rises once ({rises})")
        model, sampled = ch["TOP.model.pop_data_o"], ch["TOP.sampled.pop_data_o"]
        times = sorted({t for t, _ in model} | {t for t, _ in sampled})
        first = next((t for t in times if value_at(model, t) != value_at(sampled, t)), None)
        check(rises and first == rises[0], f"it rises where model and sampled first differ ({first})")
        if first is not None:
            diff = value_at(model, first) ^ value_at(sampled, first)
            check(diff == 1 << BIT, f"they differ by the injected bit ({diff:#x})")
            check(abs(first - CYCLE * PERIOD_PS) <= 2 * PERIOD_PS, f"at the injected cycle ({first} ps)")

        gtkw = (bad / "dump.gtkw").read_text()
        start = int(re.search(r"^\[timestart\] (\d+)", gtkw, re.M).group(1))
        zoom, marker = re.search(r"^\*(-?[\d.]+) (-?\d+)", gtkw, re.M).groups()
        window = 2 ** (-float(zoom)) / 200 * 940  # GTKWave 3.3: 2^-zoom / 200 units per pixel, 940-pixel pane
        check(20 * PERIOD_PS <= window <= 100 * PERIOD_PS, f"the view spans {window / PERIOD_PS:.0f} cycles")
        check(start <= int(marker) <= start + window, f"the marker ({marker}) is in the view ({start}..)")
        end = ch["$end"][0][0]
        check(start + window <= end + 1, f"the view ends inside the waveform ({start + window:.0f} <= {end})")
        check(rises and abs(int(marker) - rises[0]) <= PERIOD_PS, "the marker is at the mismatch")
        sigs = [re.sub(r"^\+\{[^}]*\} ", "", l) for l in gtkw.splitlines() if l.startswith(("TOP.", "+{"))]
        check(sigs[:4] == ["TOP.mismatch", "TOP.model.pop_data_o[15:0]", "TOP.sampled.pop_data_o[15:0]",
                           "TOP.pop_data_o[15:0]"], f"the failing port leads the save file ({sigs[:4]})")
        have = set(ch)
        missing = [s for s in sigs if re.sub(r"\[\d+:0\]$", "", s) not in have]
        check(not missing, f"every signal of the save file is in the FST ({missing[:3]})")
    print(f"test_waves: {'FAIL: ' + '; '.join(fails) if fails else 'pass'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
