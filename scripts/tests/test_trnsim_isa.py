#!/usr/bin/env python3
"""`trnsim asm`, `trnsim disasm` and `trnsim run` from the command line (docs/isa.md).

Checks: kernels/matmul.s assembles in every configuration, its disassembly assembles back to the
same bytes; `trnsim run` finishes it on the model with HBM data loaded from a file and dumps the
result; its TRACE timeline is valid trace-event JSON with one instruction slice per executed
instruction (every instruction of the program: it has no branches), a slice per DMA descriptor
and the semaphore waits; a program that deadlocks exits 1 naming the waiting streams; and bad
input (a syntax error, an unknown option, a missing or malformed binary, an unknown
configuration) is one line on stderr with exit status 2. `trnsim gpsimd` runs every operator against its
host build and refuses an unknown one. `trnsim run --gpsimd` loads an image into the GpSimd
processors' local memories for the gpsimd stream's gpsimd_run: an op.end finishes, an illegal word
stops the core with the error gpsimd, and an image that does not fit is a one-line error. `trnsim kernel` runs a kernel and passes its
checks, and refuses an unknown kernel or size; scripts/timeline draws its trace as text (the
picture, --plot, is test_timeline_plot.py's).

Usage: test_trnsim_isa.py [--trnsim PATH]
"""
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trnsim_cli import ROOT, Checks, trnsim_path  # noqa: E402

check = Checks("trnsim asm/disasm/run")


def main():
    trnsim = trnsim_path("test_trnsim_isa", __doc__)

    def run(*args, env=None):
        p = subprocess.run([str(trnsim), *args], capture_output=True, text=True, timeout=600,
                           env={**os.environ, **(env or {})})
        return p.returncode, p.stdout, p.stderr

    kernel = ROOT / "kernels" / "matmul.s"
    with tempfile.TemporaryDirectory() as td:
        t = Path(td)
        for cfg in ("tiny", "small", "full"):
            rc, _, err = run("asm", str(kernel), "-o", str(t / f"mm_{cfg}.bin"), "--config", cfg)
            check(rc == 0, f"asm kernels/matmul.s --config {cfg} (exit {rc} {err.strip()})")
        rc, text, _ = run("disasm", str(t / "mm_small.bin"))
        check(rc == 0 and ".stream tensor" in text and "multiply_moving" in text, "disasm prints the program")
        (t / "back.s").write_text(text)
        rc, _, _ = run("asm", str(t / "back.s"), "-o", str(t / "back.bin"), "--config", "small")
        check(rc == 0 and (t / "back.bin").read_bytes() == (t / "mm_small.bin").read_bytes(),
              "the disassembly assembles back to the same bytes")

        # run on the model: W and X^T (BF16 codes) from a file, C dumped
        K = M = 4
        N = 16
        rnd = random.Random(5)
        words = [rnd.choice([0x3F80, 0xBF80, 0x4000, 0x3F00, 0x0000, 0xBE00]) for _ in range(K * M + N * K)]
        (t / "in.bin").write_bytes(b"".join(struct.pack("<H", w) for w in words))
        hy = 2 * K * M + 2 * N * K
        trace = t / "tl.json"
        rc, out, err = run("run", str(t / "mm_tiny.bin"), "--config", "tiny", "--hbm", f"{t / 'in.bin'}@0",
                           "--dump", f"{hy}:{2 * M * N}@{t / 'out.bin'}", env={"TRACE": str(trace)})
        check(rc == 0 and "done in" in out, f"run finishes the kernel (exit {rc}: {out.strip()[:200]} {err.strip()})")
        res = (t / "out.bin").read_bytes() if (t / "out.bin").exists() else b""
        check(len(res) == 2 * M * N and any(res), "the result is dumped and not all zero")
        try:
            tl = json.loads(trace.read_text())
            ev = tl["traceEvents"]
        except (OSError, ValueError, KeyError) as e:
            check(False, f"the timeline parses as trace-event JSON ({e})")
            return check.finish()
        check(True, "the timeline parses as trace-event JSON")
        insts = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "inst"]
        # every instruction runs once (the program has no branches); an empty stream runs a lone end
        counts = struct.unpack_from("<5I", (t / "mm_tiny.bin").read_bytes(), 8)  # five streams
        expected = sum(c if c else 1 for c in counts)
        check(len(insts) == expected, f"one instruction slice per executed instruction ({len(insts)} == {expected})")
        per_stream = {s: sum(1 for e in insts if e["args"]["stream"] == s) for s in ("tensor", "vector", "scalar", "sync")}
        check(per_stream == {"tensor": counts[0] or 1, "vector": counts[1] or 1, "scalar": counts[2] or 1,
                             "sync": counts[3] or 1}, f"each stream's slices on its own track {per_stream}")
        dma = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "dma"]
        n_dma = run("disasm", str(t / "mm_tiny.bin"))[1].count("dma_start")
        check(len(dma) == n_dma, f"one slice per DMA descriptor ({len(dma)} == {n_dma})")
        waits = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "wait"]
        check(any(e["name"].startswith("wait mm>=") for e in waits), "the scalar stream's wait on mm is visible")
        names = {e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
        check({"tensor", "vector", "scalar", "sync", "dma queue 0", "dma queue 1"} <= names,
              f"a track per stream and per DMA queue {sorted(names)}")
        check(all(e["dur"] >= 1 and e["ts"] >= 0 for e in ev if e.get("ph") == "X"), "every slice has a duration")

        # a deadlock: exit 1, the streams and semaphores named
        (t / "dead.s").write_text(".sem a, b\n.stream vector\n sem_wait wait=a>=1\n sem_add post=b+=1\n end\n"
                                  ".stream scalar\n sem_wait wait=b>=1\n sem_add post=a+=1\n end\n")
        rc, out, _ = run("run", str(t / "dead.s"))
        check(rc == 1 and "error deadlock on the vector stream at pc 0" in out, f"a deadlock is reported ({out.strip()[:160]})")

        # bad input
        (t / "bad.s").write_text(".stream tensor\n    load_stationary k=1 m=\n")
        rc, _, err = run("asm", str(t / "bad.s"), "-o", str(t / "x.bin"))
        check(rc == 2 and err.strip().startswith(f"{t / 'bad.s'}:2:") and "expected a value" in err,
              f"a syntax error names file:line:column ({err.strip()})")
        rc, _, err = run("asm", str(kernel), "-o", str(t / "x.bin"), "--frobnicate")
        check(rc == 2 and "unknown option" in err and len(err.strip().splitlines()) == 1, "an unknown option")
        rc, _, err = run("disasm", str(t / "missing.bin"))
        check(rc == 2 and "cannot open" in err, "a missing binary")
        (t / "junk.bin").write_bytes(b"NOPE" + bytes(40))
        rc, _, err = run("disasm", str(t / "junk.bin"))
        check(rc == 2 and "byte 0" in err, "a file that is not a program names the byte")
        rc, _, err = run("run", str(t / "mm_tiny.bin"), "--config", "huge")
        check(rc == 2 and "unknown configuration 'huge'" in err, "an unknown configuration")
        rc, _, err = run("run", str(t / "mm_tiny.bin"), "--dump", "0x7fffffff:16")
        check(rc == 2 and "outside HBM" in err, "a dump outside HBM")

        # trnsim kernel: a kernel on fresh data, checked against its references; its timeline drawn
        ktrace = t / "gemm.json"
        rc, out, err = run("kernel", "gemm", "--config", "tiny", "--seed", "4", "--trace", str(ktrace))
        check(rc == 0 and "bit-exact" in out and "within bound" in out and out.rstrip().endswith("PASS"),
              f"trnsim kernel gemm passes its checks (exit {rc}: {out.strip()[-300:]} {err.strip()})")
        check("tensor engine utilization" in out and "initiation interval" in out, "the kernel's figures are printed")
        # --roofline: the tensor engine's work at peak, from the commands the engine took, must be the
        # kernel case's own count of multiply-accumulates over the array's (an independent count)
        rc, out, _ = run("kernel", "gemm", "--config", "tiny", "--roofline")
        macs = re.search(r"tensor engine utilization: [\d.]+ % \((\d+) multiply-accumulates, (\d+) cycles", out)
        te = re.search(r"^  TE\s+([\d.]+) %\s+(\d+)\s+\((\d+) multiply-accumulates", out, re.M)
        bound = re.search(r"bound: (\w+) \((\d+) cycles\); the run took (\d+) cycles, ([\d.]+) x the bound", out)
        check(rc == 0 and macs and te and bound, f"--roofline prints the table and its bound ({out.strip()[-400:]})")
        check(te.group(3) == macs.group(1) and te.group(2) == macs.group(2),
              f"the roofline's TE work ({te.group(3)} MACs, {te.group(2)} cycles) is the kernel's "
              f"({macs.group(1)}, {macs.group(2)})")
        works = {m.group(1): float(m.group(2)) for m in re.finditer(r"^  (\w+)\s+[\d.]+ %\s+(\d+)", out, re.M)}
        check(set(works) == {"TE", "VE", "ACT", "PSUM", "DMA", "HBM"} and works[bound.group(1)] == max(works.values())
              and int(bound.group(3)) >= int(bound.group(2)),
              f"the bound is the largest work at peak and no run beats it ({works}, {bound.group(0)})")
        rc, out, _ = run("kernel", "--roofline", "--config", "tiny")
        rows = [l.split()[0] for l in out.splitlines()[3:] if l and not l.startswith("PASS")]
        check(rc == 0 and out.rstrip().endswith("PASS")
              and rows == ["matmul", "gemm", "gemm_dyn", "softmax", "softmax_dyn", "layernorm", "attention", "mlp"],
              f"--roofline with no kernel: a row per kernel, every kernel passing ({out.strip()[-400:]})")
        rc, _, err = run("kernel", "--roofline", "-D", "KT=2")
        check(rc == 2 and "-D needs a kernel" in err, "--roofline over every kernel refuses a size")
        rc, out, _ = run("kernel", "--list")
        check(rc == 0 and all(k in out for k in ("gemm", "softmax", "layernorm", "attention", "mlp")),
              "--list names every kernel")
        rc, _, err = run("kernel", "gemm", "-D", "NQ=2")
        check(rc == 2 and "has no size NQ" in err, "an unknown size of a kernel")
        rc, _, err = run("kernel", "gemm", "-D", "NT=0")
        check(rc == 2 and "outside" in err, "a size out of range")
        rc, _, err = run("kernel", "nope")
        check(rc == 2 and "unknown kernel 'nope'" in err, "an unknown kernel")

        # trnsim gpsimd: an operator of kernels/gpsimd on the engine model, against its host build
        for op in ("gather", "hardswish", "scan", "topk"):
            rc, out, err = run("gpsimd", op, "--config", "tiny", "--seed", "2")
            check(rc == 0 and "outputs equal to the host build" in out and "2 processors" in out,
                  f"trnsim gpsimd {op} equals its host build (exit {rc}: {out.strip()} {err.strip()})")
        rc, out, _ = run("gpsimd", "--list")
        check(rc == 0 and out.split() == ["gather", "hardswish", "scan", "topk"], "gpsimd --list names every operator")
        rc, _, err = run("gpsimd", "nope")
        check(rc == 2 and "'nope': unknown" in err and err.count("\n") == 1, "an unknown operator: one line, exit 2")
        rc, _, err = run("gpsimd", "scan", "--config", "huge")
        check(rc == 2 and "unknown configuration 'huge'" in err, "an unknown configuration")
        rc, _, err = run("gpsimd", "scan", "--elements", "x")
        check(rc == 2 and "--elements x: not a number" in err, "a bad number")
        # trnsim run --gpsimd: the gpsimd stream starts the image loaded into every processor
        (t / "gp.s").write_text(".sem g, seen\n.stream gpsimd\n    gpsimd_run entry=4 args=0 post=g+=1\n    end\n"
                                ".stream sync\n    sem_add wait=g>=1 post=seen+=1\n    end\n")
        (t / "gp_end.bin").write_bytes(struct.pack("<II", 0, 0x0000000B))  # op.end at 4
        (t / "gp_bad.bin").write_bytes(struct.pack("<II", 0, 0))  # an illegal word at 4
        rc, out, err = run("run", str(t / "gp.s"), "--gpsimd", f"{t / 'gp_end.bin'}@0")
        check(rc == 0 and "semaphores: g=1 seen=1" in out, f"run --gpsimd: the operator ends, its post seen ({out} {err})")
        rc, out, _ = run("run", str(t / "gp.s"), "--gpsimd", f"{t / 'gp_bad.bin'}@0")
        check(rc == 1 and "gpsimd" in out, f"run --gpsimd: an illegal word stops the core (exit {rc}: {out.strip()})")
        rc, _, err = run("run", str(t / "gp.s"), "--gpsimd", f"{t / 'gp_end.bin'}@4092")
        check(rc == 2 and "do not fit" in err and err.count("\n") == 1, "run --gpsimd: an image past local memory")
        rc, _, err = run("run", str(t / "gp.s"), "--gpsimd", str(t / "gp_end.bin"))
        check(rc == 2 and "expected FILE@ADDR" in err, "run --gpsimd: no address")
        p = subprocess.run([sys.executable, str(ROOT / "scripts" / "timeline"), str(ktrace), "--width", "60"],
                           capture_output=True, text=True)
        rows = p.stdout.splitlines()
        check(p.returncode == 0 and rows and rows[0].startswith("tensor") and "#" in rows[0]
              and any(r.startswith("dma queue") and "=" in r for r in rows), "scripts/timeline draws the kernel's timeline")
        # --plot (matplotlib, optional): its own test, test_timeline_plot.py, skipped where it is missing
        p = subprocess.run([sys.executable, str(ROOT / "scripts" / "timeline"), str(t / "junk.bin")],
                           capture_output=True, text=True)
        check(p.returncode == 2 and "not a trace-event JSON file" in p.stderr, "scripts/timeline refuses a bad file")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
