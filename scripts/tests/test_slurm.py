#!/usr/bin/env python3
"""The Slurm launcher of scripts/regress against a real one-node Slurm cluster (scripts/slurm-local).

- the same list and master seed give the same runs, results and report through Slurm as locally,
  a failing run included (its wave rerun goes through Slurm too);
- a job cancelled behind the launcher's back is a fault, not a failure: reported apart, a JUnit
  error, exit 3; with --retry-faults it is resubmitted once and passes;
- a job that outlives its Slurm time limit is a fault (TIMEOUT), not a test timeout;
- a node that dies under a job is a fault (NODE_FAIL), and the node comes back;
- Ctrl-C cancels every submitted job and keeps the finished results (exit 130);
- a partition the cluster does not have is a one-line error; a bad TRN_SLURM_* value exits 2.

Exit 77 (CTest: skipped) with the reason when Slurm's packages are not installed or the cluster
does not start.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TRN_BUILD_DIR", ROOT / "build"))
SLURM_LOCAL = ROOT / "scripts" / "slurm-local"
TMP = tempfile.TemporaryDirectory(prefix="trn-slurm-")
CLUSTER = Path(TMP.name) / "cluster"
ENV = dict(os.environ, SLURM_CONF=str(CLUSTER / "slurm.conf"), TRN_SLURM_POLL="0.5", TRN_SLURM_GRACE="3")
for k in list(ENV):
    if k.startswith("TRN_SLURM_") and k not in ("TRN_SLURM_POLL", "TRN_SLURM_GRACE"):
        del ENV[k]


def regress(*args, env=ENV):
    return [sys.executable, str(ROOT / "scripts" / "regress"), "--no-build", "--build-dir", str(BUILD),
            "--config", "tiny", "-j", "2", *args]


def run(cmd, env=ENV, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)


def squeue(jobs):
    r = run(["squeue", "-h", "-r", "-j", ",".join(jobs), "-o", "%F_%K %T"])
    return dict(line.split() for line in r.stdout.splitlines() if line.strip()) if r.returncode == 0 else {}


def rows(out: Path) -> list[tuple]:
    """runs.jsonl without what depends on the launcher or the machine (wall time, directories)."""
    res = []
    for line in (out / "runs.jsonl").read_text().splitlines():
        d = json.loads(line)
        res.append((d["test"], d["config"], d["seed"], d["status"], d["sim_ns"], d["signature"],
                    d["message"].replace(str(out), "<out>"), d["rerun_same"]))
    return sorted(res)


def report_text(out: Path) -> str:
    """report.md with the wall-time figures and output paths masked."""
    t = (out / "report.md").read_text().replace(str(out), "<out>")
    t = re.sub(r"finished in [0-9.]+ s", "finished in # s", t)
    return re.sub(r"\| [0-9.]+ \|\n", "| # |\n", t)


def write_list(d: Path, text: str) -> Path:
    p = d / "t.toml"
    p.write_text(text)
    return p


# A run that lasts about 1.4 s per unit of length in tiny (5: long enough to be cancelled while it
# runs).
LONG = ('[[test]]\nname = "torus.long"\nbench = "torus_net"\ntestcase = "saturation_drains"\nseeds = {n}\n'
        'timeout = {timeout}\nenv = {{ TRN_LENGTH = "{length}" }}\n')
SHORT = '[[test]]\nname = "fifo.short"\nbench = "stream_fifo"\ntestcase = "fill_then_drain"\nseeds = 1\ntimeout = 300\n'


class Launcher(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def start(self, lst: Path, *args, out="out"):
        return subprocess.Popen(regress("--list", str(lst), "--out", str(self.d / out), "--launcher", "slurm", *args),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)

    def wait_submitted(self, p) -> tuple[list[str], list[str]]:
        """Read the regression's output until it has submitted; returns (its lines, job ids)."""
        lines = []
        for line in p.stdout:
            lines.append(line)
            m = re.search(r"Slurm job array\(s\): ([0-9, ]+)", line)
            if m:
                return lines, [j.strip() for j in m.group(1).split(",")]
        self.fail("no submission in:\n" + "".join(lines))

    def wait_running(self, jobs, n=1, limit=60) -> list[str]:
        t0 = time.monotonic()
        while time.monotonic() - t0 < limit:
            running = [t for t, st in squeue(jobs).items() if st == "RUNNING"]
            if len(running) >= n:
                return running
            time.sleep(0.2)
        self.fail(f"fewer than {n} task(s) of {jobs} running after {limit} s")

    def wait_bench(self, name: str, limit=30) -> int:
        """The pid of the bench executable `name` once it runs."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < limit:
            pid = run(["pgrep", "-f", str(BUILD / "bin" / name)]).stdout.split()
            if pid:
                return int(pid[0])
            time.sleep(0.1)
        self.fail(f"{name} never started")

    def test_same_results_and_report_as_local(self):
        lst = write_list(self.d, SHORT +
                         '[[test]]\nname = "fifo.random"\nbench = "stream_fifo"\ntestcase = "random_traffic"\nseeds = 3\n'
                         '[[test]]\nname = "arb.random"\nbench = "rr_arbiter"\ntestcase = "random_traffic"\nseeds = 2\n'
                         '[[test]]\nname = "fifo.wrong_model"\nbench = "stream_fifo"\ntestcase = "random_traffic"\n'
                         'seeds = 1\nenv = { LOCKSTEP_INJECT = "pop_data_o@50:3" }\n')
        loc = run(regress("--list", str(lst), "--seed", "5", "--out", str(self.d / "local")))
        slu = run(regress("--list", str(lst), "--seed", "5", "--out", str(self.d / "slurm"), "--launcher", "slurm"))
        self.assertEqual(loc.returncode, 1, loc.stdout + loc.stderr)
        self.assertEqual(slu.returncode, 1, slu.stdout + slu.stderr)
        self.assertIn("regress: launcher slurm", slu.stdout)
        self.assertIn("regress: 6 passed, 1 failed", slu.stdout)
        self.assertIn("(rerun: same failure)", slu.stdout)  # the wave rerun went through Slurm too
        self.assertTrue(list((self.d / "slurm" / "slurm").glob("*_*.out")), "no Slurm job output files")
        self.assertEqual(rows(self.d / "local"), rows(self.d / "slurm"))
        self.assertEqual(report_text(self.d / "local"), report_text(self.d / "slurm"))
        for t in ("local", "slurm"):  # each run's own files are where the local launcher puts them
            self.assertEqual(len(list((self.d / t).glob("*/tiny/seed*/results.xml"))), 7)

    def test_cancelled_job_is_a_fault_and_retried(self):
        lst = write_list(self.d, SHORT + LONG.format(n=1, timeout=300, length=5))
        for retry in (False, True):
            out = f"out{int(retry)}"
            p = self.start(lst, *(["--retry-faults"] if retry else []), out=out)
            lines, jobs = self.wait_submitted(p)
            long_task = None
            t0 = time.monotonic()
            while long_task is None and time.monotonic() - t0 < 60:
                # the long run is the second entry of the list: task index 1 of the first array
                if squeue(jobs).get(f"{jobs[0]}_1") == "RUNNING":
                    long_task = f"{jobs[0]}_1"
                time.sleep(0.2)
            self.assertIsNotNone(long_task, "the long run never ran")
            time.sleep(1)
            self.assertEqual(run(["scancel", long_task]).returncode, 0)
            rest, _ = p.communicate(timeout=300)
            text = "".join(lines) + rest
            if not retry:
                self.assertEqual(p.returncode, 3, text)
                self.assertIn("regress: 1 passed, 0 failed, 1 faults", text)
                self.assertIn("## Faults: 1 run(s)", text)
                self.assertRegex(text, rf"FAULT +torus.long \[tiny\] seed \d+ \(0.00 s\): fault: Slurm job")
                self.assertRegex(text, rf"torus.long \[tiny\] seed \d+: fault: Slurm job {long_task} CANCELLED")
                junit = (self.d / out / "junit.xml").read_text()
                self.assertEqual(junit.count("<error "), 1)
                self.assertNotIn("<failure", junit)
                statuses = sorted(json.loads(l)["status"] for l in (self.d / out / "runs.jsonl").read_text().splitlines())
                self.assertEqual(statuses, ["fault", "pass"])
            else:
                self.assertEqual(p.returncode, 0, text)
                self.assertIn("resubmitting 1 run(s) after a Slurm fault", text)
                self.assertIn("regress: 2 passed, 0 failed", text)

    def test_time_limit_is_a_fault(self):
        # A run that hangs (its bench stopped with SIGSTOP, as on a stuck filesystem) outlives the
        # scheduler's one-minute limit, which is shorter than the run's own (300 s): Slurm ends it.
        lst = write_list(self.d, LONG.format(n=1, timeout=300, length=5))
        p = self.start(lst, "--slurm-time", "1")
        lines, jobs = self.wait_submitted(p)
        self.wait_running(jobs, 1)
        os.kill(self.wait_bench("tb_torus_net_tiny"), signal.SIGSTOP)
        rest, _ = p.communicate(timeout=400)
        text = "".join(lines) + rest
        self.assertEqual(p.returncode, 3, text)
        self.assertRegex(text, r"torus.long \[tiny\] seed \d+: fault: Slurm job \d+_0 TIMEOUT on trnnode.*"
                               r"the scheduler's time limit ended it")
        self.assertNotIn("FAIL ", text)

    def test_dead_node_is_a_fault(self):
        # The node dies under a running job: slurmd, the job's step daemon, its runner and the
        # bench all killed at once. slurmctld declares the node down after SlurmdTimeout (20 s here) and the job
        # NODE_FAIL; the run is a fault. Then the node comes back for the tests after this one.
        lst = write_list(self.d, LONG.format(n=1, timeout=300, length=5))
        p = self.start(lst)
        lines, jobs = self.wait_submitted(p)
        self.wait_running(jobs, 1)
        self.wait_bench("tb_torus_net_tiny")  # launched: a launch that fails is requeued, not failed
        time.sleep(1)
        slurmd = (CLUSTER / "slurmd.pid").read_text().split()[0]
        run(["kill", "-KILL", slurmd])
        run(["pkill", "-KILL", "-f", "slurmstepd"])
        run(["pkill", "-KILL", "-f", "trnlib/slurm.py task"])
        run(["pkill", "-KILL", "-f", str(BUILD / "bin" / "tb_torus_net_tiny")])
        try:
            rest, _ = p.communicate(timeout=300)
        finally:
            p.kill()
            self.assertEqual(run(["slurmd", "-f", str(CLUSTER / "slurm.conf"), "-N", "trnnode"]).returncode, 0)
            t0 = time.monotonic()
            while time.monotonic() - t0 < 60:
                if run(["sinfo", "-h", "-n", "trnnode", "-o", "%T"]).stdout.strip() == "idle":
                    break
                time.sleep(0.5)
        text = "".join(lines) + rest
        self.assertEqual(p.returncode, 3, text)
        self.assertRegex(text, r"torus.long \[tiny\] seed \d+: fault: Slurm job \d+_0 NODE_FAIL.*its node failed")
        self.assertEqual(run(["sinfo", "-h", "-n", "trnnode", "-o", "%T"]).stdout.strip(), "idle")

    def test_interrupt_cancels_every_job(self):
        lst = write_list(self.d, SHORT + LONG.format(n=3, timeout=300, length=5))
        p = self.start(lst)
        lines, jobs = self.wait_submitted(p)
        for line in p.stdout:  # the short run finishes first
            lines.append(line)
            if "PASS    fifo.short" in line:
                break
        self.wait_running(jobs, 1)
        p.send_signal(signal.SIGINT)
        rest, _ = p.communicate(timeout=120)
        text = "".join(lines) + rest
        self.assertEqual(p.returncode, 130, text)
        self.assertIn("INTERRUPTED: partial report", text)
        time.sleep(1)
        self.assertEqual(squeue(jobs), {}, "jobs still queued after Ctrl-C")
        finished = [json.loads(l) for l in (self.d / "out" / "runs.jsonl").read_text().splitlines()]
        self.assertIn("fifo.short", [f["test"] for f in finished])
        self.assertTrue(all(f["status"] == "pass" for f in finished), finished)

    def test_unknown_partition_is_one_line_error(self):
        lst = write_list(self.d, SHORT)
        r = run(regress("--list", str(lst), "--out", str(self.d / "out"), "--launcher", "slurm",
                        "--slurm-partition", "no_such_partition"))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        err = [l for l in r.stderr.splitlines() if "error" in l]
        self.assertEqual(len(err), 1, r.stderr)
        self.assertIn("sbatch", err[0])
        self.assertIn("partition", err[0].lower())

    def test_bad_variable_exits_2(self):
        lst = write_list(self.d, SHORT)
        r = run(regress("--list", str(lst), "--launcher", "slurm"), env=dict(ENV, TRN_SLURM_CPUS="two"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("TRN_SLURM_CPUS='two' is not a number", r.stderr)


def main() -> int:
    missing = [t for t in ("munged", "slurmctld", "slurmd", "sbatch") if subprocess.call(
        ["sh", "-c", f"command -v {t}"], stdout=subprocess.DEVNULL) != 0]
    if missing:
        why = ROOT / "build" / "OPTIONAL-UNAVAILABLE"
        print(f"test_slurm: skipped: not installed: {', '.join(missing)} (Debian packages munge slurmctld slurmd "
              f"slurm-client; scripts/bootstrap installs them when it can"
              + (f": {why.read_text().strip()})" if why.exists() else ")"))
        return 77
    if not (BUILD / "bin" / "tb_stream_fifo_tiny").exists():
        print(f"test_slurm: error: {BUILD}/bin/tb_stream_fifo_tiny is not built", file=sys.stderr)
        return 1
    r = run([str(SLURM_LOCAL), "start", "--dir", str(CLUSTER)])
    if r.returncode != 0:
        print(f"test_slurm: skipped: the one-node cluster did not start: {r.stderr.strip()}")
        return 77
    print(r.stdout.strip(), flush=True)
    try:
        prog = unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]], exit=False)
        return 0 if prog.result.wasSuccessful() else 1
    finally:
        run([str(SLURM_LOCAL), "stop", "--dir", str(CLUSTER)])
        TMP.cleanup()


if __name__ == "__main__":
    sys.exit(main())
