"""The Slurm launcher of scripts/regress: every (test, seed) as one task of a Slurm job array.

The regression builds once where it runs, into a directory the compute nodes share; this module
writes a manifest of the runs next to the run directories (<out>/slurm/batch-<n>.json), submits
them with `sbatch --array` (one array per time limit, split at the cluster's MaxArraySize), and
each task runs `python3 scripts/trnlib/slurm.py task <manifest>`: the same run_one as the
local launcher, in the same run directory, writing its outcome to result.json there. The launcher
waits by asking `squeue` every few seconds (no busy loop) and reads each result as it appears, so
runs.jsonl, JUnit and the report are the local launcher's.

Faults are not failures: a task that leaves the queue without a result (the scheduler's time limit,
scancel, a dead node, preemption, a runner that could not start) is reported with status "fault"
and the job's state, and resubmitted once when retry is on. Ctrl-C cancels every submitted job
(scancel) and keeps the results already written.
"""
from __future__ import annotations

import getpass
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script inside a job
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from trnlib.runner import Result, Run, _live, killed_by, run_one  # noqa: E402
else:
    from .runner import OnDone, Result, Run, _live, killed_by, run_one

RESULT = "result.json"


class SlurmError(RuntimeError):
    """sbatch/scancel refused (bad partition, no controller): the message names the command."""


@dataclass
class SlurmOptions:
    partition: str | None = None
    time: str | None = None        # Slurm time limit for every job; default: each test's timeout + 2 min
    mem: str | None = None         # --mem per task (Slurm syntax: 4G)
    cpus: int = 1                  # --cpus-per-task
    account: str | None = None
    max_running: int | None = None  # the array's %N throttle
    retry: bool = False            # resubmit a faulted run once
    poll_s: float = 2.0            # squeue interval
    grace_s: float = 10.0          # how long a finished task's result may take to show (shared filesystems)
    extra: list[str] = field(default_factory=list)  # more sbatch arguments
    python: str = sys.executable

    @staticmethod
    def from_env(env=os.environ) -> "SlurmOptions":
        """Defaults from TRN_SLURM_* variables (flags override them in scripts/regress)."""
        o = SlurmOptions()
        o.partition = env.get("TRN_SLURM_PARTITION") or None
        o.time = env.get("TRN_SLURM_TIME") or None
        o.mem = env.get("TRN_SLURM_MEM") or None
        o.account = env.get("TRN_SLURM_ACCOUNT") or None
        o.python = env.get("TRN_SLURM_PYTHON") or sys.executable
        o.extra = env.get("TRN_SLURM_ARGS", "").split()
        for name, attr, conv in (("TRN_SLURM_CPUS", "cpus", int), ("TRN_SLURM_MAX_RUNNING", "max_running", int),
                                 ("TRN_SLURM_POLL", "poll_s", float), ("TRN_SLURM_GRACE", "grace_s", float)):
            v = env.get(name)
            if v:
                try:
                    setattr(o, attr, conv(v))
                except ValueError:
                    raise ValueError(f"{name}={v!r} is not a number")
        o.retry = env.get("TRN_SLURM_RETRY", "") in ("1", "yes", "true")
        return o

    def check(self) -> None:
        if self.cpus < 1:
            raise ValueError(f"Slurm CPUs per task must be at least 1 (got {self.cpus})")
        if self.max_running is not None and self.max_running < 1:
            raise ValueError(f"Slurm max running must be at least 1 (got {self.max_running})")
        if self.poll_s <= 0 or self.grace_s < 0:
            raise ValueError("Slurm poll interval must be positive and grace not negative")
        if self.time is not None and not re.fullmatch(r"\d+(-\d+)?(:\d+){0,2}", self.time):
            raise ValueError(f"Slurm time limit '{self.time}' is not Slurm's format (minutes, M:S, H:M:S, D-H)")


def minutes_for(timeout_s: float) -> int:
    """A job's time limit for a run with this wall-time limit: the run's own limit ends it first
    (a test timeout, reported as the test's), so the scheduler's only ends a stuck runner."""
    return math.ceil(timeout_s / 60) + 2


def _cmd(args: list[str], what: str) -> str:
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise SlurmError(f"{args[0]} not found: is this a Slurm submit host? (scripts/slurm-local start for a "
                         f"one-node cluster here)")
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{what}: '{' '.join(args[:2])}' gave no answer in 120 s")
    if p.returncode != 0:
        msg = (p.stderr or p.stdout).strip().splitlines()
        raise SlurmError(f"{what}: {args[0]} exit {p.returncode}: {msg[-1] if msg else '(no message)'}")
    return p.stdout


def max_array_size() -> int:
    try:
        out = _cmd(["scontrol", "show", "config"], "scontrol show config")
    except SlurmError:
        return 1001
    m = re.search(r"^MaxArraySize\s*=\s*(\d+)", out, re.M)
    return int(m.group(1)) if m else 1001


def job_state(task: str) -> dict:
    """A finished task's state (JobState, Reason, NodeList, ExitCode) from slurmctld's memory, else
    from accounting; {} when neither knows it."""
    try:
        out = _cmd(["scontrol", "-o", "show", "job", task], "scontrol show job")
        kv = dict(re.findall(r"(\w+)=(\S*)", out.splitlines()[0])) if out.strip() else {}
        if kv.get("JobState"):
            return kv
    except SlurmError:
        pass
    try:
        out = _cmd(["sacct", "-n", "-P", "-X", "-j", task, "-o", "State,Reason,NodeList,ExitCode"], "sacct")
        for line in out.splitlines():
            st, reason, nodes, ec = (line.split("|") + ["", "", "", ""])[:4]
            if st:
                return {"JobState": st.split()[0], "Reason": reason, "NodeList": nodes, "ExitCode": ec}
    except SlurmError:
        pass
    return {}


_STATES = {
    "TIMEOUT": "the scheduler's time limit ended it",
    "CANCELLED": "it was cancelled (scancel, or an administrator)",
    "NODE_FAIL": "its node failed",
    "PREEMPTED": "it was preempted",
    "BOOT_FAIL": "its node did not boot",
    "OUT_OF_MEMORY": "it ran out of its memory allocation",
    "DEADLINE": "it missed its deadline",
    "FAILED": "its runner failed before writing a result",
    "COMPLETED": "it completed without writing a result",
}


def fault_message(task: str, st: dict, out_file: Path) -> str:
    state = st.get("JobState", "UNKNOWN")
    why = _STATES.get(state, "it left the queue without a result")
    where = f" on {st['NodeList']}" if st.get("NodeList") not in (None, "", "(null)", "None") else ""
    reason = f", reason {st['Reason']}" if st.get("Reason") not in (None, "", "None") else ""
    msg = f"fault: Slurm job {task} {state}{where}{reason}: {why}; not a test result (job output {out_file})"
    try:
        tail = out_file.read_text(errors="replace").strip().splitlines()[-5:]
        if tail:
            msg += "\n" + "\n".join(tail)
    except OSError:
        pass
    return msg


class SlurmLauncher:
    name = "slurm"

    def __init__(self, out: Path, opts: SlurmOptions, label: str = "trn"):
        self.out, self.opts, self.label = out, opts, label
        self.sdir = out / "slurm"
        self.batches = 0
        self.jobs: list[str] = []      # every array job id submitted (for scancel)
        self.max_array = None
        self.user = getpass.getuser()
        self._tasks: dict[str, tuple[Run, Path]] = {}  # this round's unreported tasks: '<array>_<index>' -> (run, exe)

    # ---- submission
    def _submit(self, items: list[dict], limit: str) -> list[tuple[str, int]]:
        """Submit items as arrays with time limit `limit`; returns (array job id, first index) per array."""
        if self.max_array is None:
            self.max_array = max_array_size()
        chunk = max(1, min(self.max_array - 1, 1000))
        subs = []
        for off in range(0, len(items), chunk):
            part = items[off:off + chunk]
            self.batches += 1
            manifest = self.sdir / f"batch-{self.batches}.json"
            manifest.write_text(json.dumps(part))
            arr = f"0-{len(part) - 1}" + (f"%{self.opts.max_running}" if self.opts.max_running else "")
            args = ["sbatch", "--parsable", f"--array={arr}", f"--job-name={self.label}",
                    f"--output={self.sdir}/%A_%a.out", f"--chdir={self.out}", f"--time={limit}",
                    f"--cpus-per-task={self.opts.cpus}", "--no-requeue"]
            if self.opts.partition:
                args.append(f"--partition={self.opts.partition}")
            if self.opts.mem:
                args.append(f"--mem={self.opts.mem}")
            if self.opts.account:
                args.append(f"--account={self.opts.account}")
            args += self.opts.extra
            script = Path(__file__).resolve()
            args.append(f"--wrap=exec {self.opts.python} {script} task {manifest}")
            jid = _cmd(args, "sbatch").strip().split(";")[0]
            if not jid.isdigit():
                raise SlurmError(f"sbatch: unexpected answer '{jid}'")
            self.jobs.append(jid)
            subs.append((jid, len(part)))
        return subs

    def cancel(self) -> None:
        if self.jobs:
            try:
                _cmd(["scancel", *self.jobs], "scancel")
            except SlurmError as e:
                print(f"regress: warning: {e}", file=sys.stderr)

    # ---- waiting
    def _queued(self) -> dict[str, str] | None:
        """This regression's tasks still in the queue ('<array>_<index>' -> state), found by the user
        and the job name (an array whose tasks have all left the queue is not an error then); None
        when squeue did not answer."""
        try:
            out = _cmd(["squeue", "-h", "-r", "-u", self.user, f"--name={self.label}", "-o", "%F_%K %T"], "squeue")
        except SlurmError as e:
            print(f"regress: warning: {e}", file=sys.stderr)
            return None
        return dict(line.split(None, 1) for line in out.splitlines() if line.strip())

    def run(self, work: list[tuple[Run, Path]], on_done: "OnDone", waves: bool = False, subdir: str = "") -> bool:
        self.sdir.mkdir(parents=True, exist_ok=True)
        todo = list(work)
        attempts: dict[int, int] = {}
        try:
            while todo:
                faulted = self._round(todo, on_done, waves, subdir, attempts)
                todo = [(r, exe) for r, exe in faulted if self.opts.retry and attempts[id(r)] < 2]
                if todo:
                    print(f"regress: resubmitting {len(todo)} run(s) after a Slurm fault", flush=True)
        except KeyboardInterrupt:
            self.cancel()
            print(f"regress: cancelled {len(self.jobs)} Slurm job array(s)", file=sys.stderr)
            for r, exe in list(self._tasks.values()):
                res = self._read(r, subdir)
                if res:
                    on_done(r, res)
            return True
        return False

    @staticmethod
    def _result_path(r: Run, subdir: str) -> Path:
        return (Path(r.dir) / subdir if subdir else Path(r.dir)) / RESULT

    def _read(self, r: Run, subdir: str) -> Result | None:
        try:
            d = json.loads(self._result_path(r, subdir).read_text())
            return d["status"], d["wall_s"], d["sim_ns"], d["message"]
        except (OSError, ValueError, KeyError):
            return None

    def _round(self, work, on_done, waves, subdir, attempts) -> list[tuple[Run, Path]]:
        """Submit `work`, wait for every task; returns the faulted (run, exe)."""
        by_limit: dict[str, list[tuple[Run, Path]]] = {}
        for r, exe in work:
            attempts[id(r)] = attempts.get(id(r), 0) + 1
            self._result_path(r, subdir).unlink(missing_ok=True)
            by_limit.setdefault(self.opts.time or str(minutes_for(r.timeout)), []).append((r, exe))
        tasks = self._tasks = {}
        for limit, items in by_limit.items():
            specs = [{"run": asdict(r), "exe": str(exe), "waves": waves, "subdir": subdir} for r, exe in items]
            i = 0
            for jid, n in self._submit(specs, limit):
                for k in range(n):
                    tasks[f"{jid}_{k}"] = items[i]
                    i += 1
        arrays = {t.split("_")[0] for t in tasks}
        print(f"regress: submitted {len(tasks)} run(s) as {len(arrays)} Slurm job array(s): {', '.join(sorted(arrays))}",
              flush=True)
        gone_at: dict[str, float] = {}
        faulted = []
        last_status = time.monotonic()
        while tasks:
            for t, (r, exe) in list(tasks.items()):
                res = self._read(r, subdir)
                if res:
                    del tasks[t]
                    on_done(r, res)
            if not tasks:
                break
            queued = self._queued()
            now = time.monotonic()
            if queued is not None and now - last_status >= 60:
                last_status = now
                states = [queued.get(t, "") for t in tasks]
                print(f"regress: waiting for {len(tasks)} run(s) on Slurm: {states.count('RUNNING')} running, "
                      f"{states.count('PENDING')} pending", flush=True)
            if queued is not None:
                for t, (r, exe) in list(tasks.items()):
                    if t in queued:
                        gone_at.pop(t, None)
                        continue
                    gone_at.setdefault(t, now)
                    if now - gone_at[t] < self.opts.grace_s:
                        continue
                    if self._read(r, subdir):
                        continue  # written meanwhile: read at the top of the loop
                    jid, k = t.split("_")
                    msg = fault_message(t, job_state(t), self.sdir / f"{jid}_{k}.out")
                    del tasks[t]
                    faulted.append((r, exe))
                    last = not self.opts.retry or attempts[id(r)] >= 2
                    if last:
                        on_done(r, ("fault", 0.0, 0.0, msg))
                    else:
                        print(f"regress: {r.test} [{r.config}] seed {r.seed}: {msg.splitlines()[0]}", flush=True)
            time.sleep(self.opts.poll_s)
        return faulted


def task_main(argv: list[str]) -> int:
    """Inside a job: run the manifest's entry SLURM_ARRAY_TASK_ID, write result.json in its directory."""
    if len(argv) != 1:
        print("usage: slurm.py task <manifest.json>", file=sys.stderr)
        return 2
    manifest = Path(argv[0])
    index = int(os.environ.get("SLURM_ARRAY_TASK_ID", "0"))
    spec = json.loads(manifest.read_text())[index]
    r = Run(**spec["run"])

    def ended(signum, _frame):  # the scheduler ends the job (scancel, time limit): no result
        for p in list(_live):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, ended)
    status, wall, sim, msg = run_one(r, Path(spec["exe"]), spec["waves"], spec["subdir"])
    if killed_by(msg):
        # The bench died of a signal. When the scheduler is ending this job (a dead node's
        # processes, a SIGKILL after the time limit), it ends this runner as well in the next
        # moments, and no result must be written; a bench killed by anything else (the OOM killer)
        # is reported as the test's error.
        time.sleep(5)
    d = Path(r.dir) / spec["subdir"] if spec["subdir"] else Path(r.dir)
    tmp = d / (RESULT + ".tmp")
    tmp.write_text(json.dumps({"status": status, "wall_s": wall, "sim_ns": sim, "message": msg,
                               "job": f"{os.environ.get('SLURM_ARRAY_JOB_ID', '?')}_"
                                      f"{os.environ.get('SLURM_ARRAY_TASK_ID', '?')}",
                               "node": os.environ.get("SLURMD_NODENAME", "")}))
    tmp.replace(d / RESULT)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "task":
        sys.exit(task_main(sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
