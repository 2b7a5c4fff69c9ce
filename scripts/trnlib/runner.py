"""One regression run, and the local launcher that runs many on this machine (scripts/regress).

A run is one (test, configuration, seed): its bench executable started in its own directory with
its environment, a wall-time limit, its log and the results.xml the harness writes. The Slurm
launcher (trnlib/slurm.py) runs the same function inside each job, so a run gives the same
result whichever launcher started it.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
import shlex
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

# A run's outcome: status (pass | fail | timeout | error | fault), wall seconds, simulated ns, message.
Result = tuple[str, float, float, str]


@dataclass
class Run:
    test: str
    bench: str
    testcase: str
    config: str
    seed: int
    timeout: float
    env: dict
    plusargs: list
    dir: str = ""
    status: str = "pending"   # pass | fail | timeout | error | fault (the launcher's, not the test's)
    wall_s: float = 0.0
    sim_ns: float = 0.0
    message: str = ""
    signature: str = ""
    reproduce: str = ""
    wave: str = ""
    gtkw: str = ""
    rerun_same: bool | None = None


def repro_env(r: Run, exe: Path, waves: bool = False) -> str:
    env = {"TESTCASE": r.testcase, "RANDOM_SEED": str(r.seed), "TOPLEVEL": r.bench, **r.env}
    if waves:
        env["WAVES"] = "1"
    parts = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    return " ".join(parts + [shlex.quote(str(exe))] + [shlex.quote(p) for p in r.plusargs])


_live: set = set()  # bench processes running now (killed on interrupt)


def run_one(r: Run, exe: Path, waves: bool = False, subdir: str = "") -> Result:
    d = Path(r.dir) / subdir if subdir else Path(r.dir)
    d.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    for k in ("TESTCASE", "RANDOM_SEED", "WAVES", "LOCKSTEP_INJECT", "LOCKSTEP", "COCOTB_RESULTS_FILE"):
        env.pop(k, None)
    env.update({"TESTCASE": r.testcase, "RANDOM_SEED": str(r.seed), "TOPLEVEL": r.bench,
                "COCOTB_RESULTS_FILE": "results.xml", **r.env})
    if waves:
        env["WAVES"] = "1"
    t0 = time.monotonic()
    with (d / "log.txt").open("w") as log:
        log.write(f"# {repro_env(r, exe, waves)}\n")
        log.flush()
        try:
            p = subprocess.Popen([str(exe), *r.plusargs], cwd=d, env=env, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            _live.add(p)
            try:
                rc = p.wait(timeout=r.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return "timeout", time.monotonic() - t0, 0.0, f"timeout: no result after {r.timeout:g} s of wall time"
            finally:
                _live.discard(p)
        except OSError as e:
            return "error", time.monotonic() - t0, 0.0, f"error: cannot run {exe}: {e.strerror}"
    wall = time.monotonic() - t0
    status, sim, msg = parse_results(d / "results.xml")
    ended = exit_text(rc)
    if rc < 0:
        # died of a signal (an interrupt, kill, the OOM killer, a crash): whatever results.xml says
        status, msg = "error", f"error: {ended}" + last_lines(d / "log.txt")
    elif rc != 0 and status == "pass":
        status = "fail"
        msg = msg or f"error: {ended}" + last_lines(d / "log.txt")
    if status == "missing":
        status, msg = "error", f"error: {ended} and no results.xml (crash?)" + last_lines(d / "log.txt")
    return status, wall, sim, msg


KILLED = "killed by "


def exit_text(rc: int) -> str:
    """How a bench ended, in words: `exit status 3`, `killed by SIGTERM`."""
    if rc >= 0:
        return f"exit status {rc}"
    try:
        return KILLED + signal.Signals(-rc).name
    except ValueError:
        return f"{KILLED}signal {-rc}"


def killed_by(msg: str) -> str:
    """The signal that ended a bench, from run_one's message ("" when it exited by itself)."""
    first = msg.lstrip().split("\n", 1)[0]
    if not first.startswith("error: " + KILLED):
        return ""
    return first[len("error: " + KILLED):].split(" ", 1)[0]


def last_lines(p: Path, n: int = 8) -> str:
    try:
        return "\n" + "\n".join(p.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def parse_results(p: Path) -> tuple[str, float, str]:
    try:
        root = ET.parse(p).getroot()
    except (OSError, ET.ParseError):
        return "missing", 0.0, ""
    cases = root.findall(".//testcase")
    if not cases:
        return "missing", 0.0, ""
    sim = sum(float(c.get("sim_time_ns", 0)) for c in cases)
    for c in cases:
        f = c.find("failure")
        if f is not None:
            return "fail", sim, (f.text or f.get("message", "")).strip()
    return "pass", sim, ""


# A launcher runs a batch of (run, executable) and calls on_done(run, result) in the calling
# thread as each finishes; it returns True when the user interrupted it (Ctrl-C), after stopping
# whatever it had started and reporting every run that had finished.
OnDone = Callable[[Run, Result], None]


class LocalLauncher:
    name = "local"

    def __init__(self, jobs: int):
        self.jobs = jobs

    def run(self, work: list[tuple[Run, Path]], on_done: OnDone, waves: bool = False, subdir: str = "") -> bool:
        pool = cf.ThreadPoolExecutor(max_workers=self.jobs)
        futs = {pool.submit(run_one, r, exe, waves, subdir): r for r, exe in work}
        interrupted = False
        try:
            for f in cf.as_completed(futs):
                on_done(futs[f], f.result())
        except KeyboardInterrupt:
            interrupted = True
            for f in futs:
                f.cancel()
            for p in list(_live):
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
        pool.shutdown(wait=True, cancel_futures=True)
        return interrupted

