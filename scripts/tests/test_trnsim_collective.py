#!/usr/bin/env python3
"""`trnsim collective` from the command line, as a user runs it (docs/collectives.md).

Checks: a size sweep prints one row per size with the benchmark columns; algbw is size / time and
busbw is algbw times the operation's factor (2(n-1)/n, (n-1)/n, 1); --check moves the data and
reports ok against the reference; --json and --csv hold the same rows; --set changes the answer
(a slower link makes a ring all-reduce slower); --ordering waw with --check reports the ordering
violations and exits 1; --emit writes a program per rank that assembles to the binary beside it, the
inputs and the reference's results, and a manifest naming them; and bad input (an unwritable result file, a size range, an unknown op, algorithm or preset, an
algorithm the topology cannot run, ranks that do not fit, a cycle-level run on a system too big) is
one line on stderr with exit status 2. `--fidelity flit` is the cycle level.

Usage: test_trnsim_collective.py [--trnsim PATH]
"""
import csv
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trnsim_cli import Checks, runner, trnsim_path  # noqa: E402

check = Checks("trnsim collective")


def rows(out):
    """The table rows: dicts of the columns."""
    lines = [l for l in out.splitlines() if l and not l.startswith("#")]
    head = lines[0].split()
    return [dict(zip(head, l.split())) for l in lines[1:]]


def main():
    run = runner(trnsim_path("test_trnsim_collective", __doc__), "collective")

    rc, out, err = run("--preset", "trn2-16", "--op", "all-reduce", "-b", "8", "-e", "1M", "-f", "4", "--dtype", "bf16")
    rs = rows(out) if rc == 0 else []
    check(rc == 0 and [int(r["size(B)"]) for r in rs] == [8 * 4 ** i for i in range(9)],
          "-b 8 -e 1M -f 4: one row per size")
    check("GB/s = 10^9" in out, "the header says GB = 10^9")
    ok = True
    for r in rs:
        size, time_us = int(r["size(B)"]), float(r["time(us)"])
        algbw = size / (time_us * 1e3)
        ok &= abs(float(r["algbw"]) - algbw) <= 0.01 + 0.01 * algbw
        ok &= abs(float(r["busbw"]) - algbw * 2 * 63 / 64) <= 0.01 + 0.01 * algbw  # 64 ranks: 4 a chip
        ok &= int(r["count"]) == size // 2 and r["type"] == "bf16"
        ok &= float(r["time/bound"]) >= 0.9
    check(ok and rs, "algbw = size / time, busbw = algbw x 2(n-1)/n, count in BF16 elements, time near or above the bound")
    with tempfile.TemporaryDirectory() as td:
        j = Path(td) / "auto.json"
        rc, out, err = run("--preset", "trn2-16", "--op", "all-reduce", "-b", "1K", "-e", "256M", "-f", "16",
                           "--json", str(j))
        doc = json.loads(j.read_text()) if rc == 0 else {}
        rows_j = doc.get("rows", [])
    # SPEC 5.6: a 256-byte write is a head flit and 19 body flits of 14 payload bytes, 320 bytes on the wire
    check(abs(doc.get("payload_share", 0) - 256 / 320) < 1e-6,
          f"--json: the packets' payload share ({doc.get('payload_share')}) is 256 of 320 wire bytes")
    best = [min((v["time_us"], k) for k, v in r["candidates"].items() if "time_us" in v) for r in rows_j]
    check(rows_j and all(r["algorithm"] == b[1] and abs(r["time_us"] - b[0]) <= 1e-3 for r, b in zip(rows_j, best))
          and all(set(r["candidates"]) == {"ring", "mesh", "rdh", "hier", "rings", "kangaring", "hrings"} for r in rows_j)
          and len({r["algorithm"] for r in rows_j}) >= 2,
          f"auto: at every size the candidate with the least time (--json lists each; {[r['algorithm'] for r in rows_j]})")
    rc, out, err = run("--preset", "trn2-16", "--op", "all-reduce", "-b", "1M", "--lnc", "1")
    check(rc == 0 and "(128 ranks, 8 a chip: logical NeuronCores of 1 cores; 16 chips)" in out,
          "--lnc 1: 128 ranks on trn2-16, 8 a chip")
    rc, out, err = run("--preset", "trn1-16", "--op", "all-reduce", "-b", "1M")
    check(rc == 0 and "(32 ranks, 2 a chip" in out, "trn1-16: 32 ranks, a rank a NeuronCore")

    for op, factor in (("reduce-scatter", 63 / 64), ("all-gather", 63 / 64), ("all-to-all", 63 / 64), ("permute", 1.0)):
        rc, out, err = run("--preset", "trn2-16", "--op", op, "-b", "64K", "--check")
        r = rows(out)[0] if rc == 0 else {}
        check(rc == 0 and r.get("data") == "ok" and abs(float(r["busbw"]) - float(r["algbw"]) * factor) < 0.02,
              f"{op}: data ok, busbw factor {factor:.4f}")

    with tempfile.TemporaryDirectory() as tmp:
        js, cs = Path(tmp) / "r.json", Path(tmp) / "r.csv"
        rc, out, err = run("--preset", "trn3-us64", "--op", "all-gather", "-b", "1K", "-e", "4K", "--json", str(js), "--csv", str(cs))
        try:
            doc = json.loads(js.read_text())
            table = list(csv.DictReader(cs.open()))
            ok = rc == 0 and [r["size"] for r in doc["rows"]] == [1024, 2048, 4096] and [int(r["size"]) for r in table] == [1024, 2048, 4096]
            ok &= all(abs(float(a["time_us"]) - b["time_us"]) < 1e-3 for a, b in zip(table, doc["rows"]))
        except (OSError, ValueError, KeyError):
            ok = False
        check(ok, "--json and --csv: the same three rows")

    base = rows(run("--preset", "trn2-16", "--op", "all-reduce", "-b", "16M", "--algorithm", "ring", "--no-cost")[1])[0]
    slow = rows(run("--preset", "trn2-16", "--op", "all-reduce", "-b", "16M", "--algorithm", "ring", "--no-cost",
                    "--set", "chip.trainium2.links.intra_instance.gbps=128")[1])[0]
    check(float(slow["time(us)"]) > 1.8 * float(base["time(us)"]), "--set: half the link rate, about twice the time")

    small = ["--set", "system.trn2-16.topology.dims=[2,2]", "--set", "chip.trainium2.hbm_latency_ns=20",
             "--set", "chip.trainium2.links.intra_instance.latency_ns=5"]
    rc, out, err = run("--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "ring", "-b", "4K",
                       "--fidelity", "flit", "--check", *small)
    r = rows(out)[0] if rc == 0 else {}
    check(rc == 0 and r.get("data") == "ok" and "# cycle level: 4 chips" in out,
          "--fidelity flit is the cycle level: data ok on the cycle-exact chips")
    rc, out, err = run("--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "ring", "-b", "16K",
                       "--fidelity", "cycle", "--ordering", "waw", "--desc", "256", "--jitter", "1.9", "--check",
                       "--set", "system.trn2-16.topology.dims=[2,2]", "--set", "chip.trainium2.hbm_latency_ns=60")
    check(rc == 1 and "ORDER" in out and "ordering violation" in err,
          "--ordering waw --check: the semaphores that overtook their data are reported, exit 1")

    with tempfile.TemporaryDirectory() as tmp:
        js = Path(tmp) / "c.json"
        rc, out, err = run("--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "rdh", "-b", "16K",
                           "--fidelity", "cycle", "--check", "--json", str(js), *small)
        r = rows(out)[0] if rc == 0 else {}
        try:
            doc = json.loads(js.read_text())["rows"][0]
            ratio_ok = doc["cycles"] > 0 and abs(doc["time_us"] / doc["flow_us"] - doc["cycle_over_flow"]) < 1e-3
        except (OSError, ValueError, KeyError, IndexError):
            ratio_ok = False
        check(rc == 0 and r.get("data") == "ok" and "# cycle level: 4 chips of configuration full" in out and ratio_ok,
              "--fidelity cycle --check: data ok on the cycle-exact chips, the flow level beside it in the table and JSON")
    rc, out, err = run("--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "ring", "-b", "4K",
                       "--fidelity", "cycle", "--config", "tiny", "--check", *small)
    check(rc == 0 and (rows(out)[0] if rc == 0 else {}).get("data") == "ok" and "configuration tiny" in out,
          "--fidelity cycle --config tiny: chips of the tiny configuration")

    # routes that spread: a direct all-to-all on trn4-us128 over its 16 planes, against one plane a pair
    busbw = {}
    for r in ("0", "1"):
        rc, out, err = run("--preset", "trn4-us128", "--op", "all-to-all", "-b", "64M", "--routes", r, "--chip-ranks", "1",
                           "--no-cost", "--algorithm", "mesh")
        busbw[r] = float(rows(out)[0]["busbw"]) if rc == 0 else 0.0
    inject = 16 * 640 * 0.8  # a chip's 16 links at the packet payload share
    check(busbw["0"] > 10 * busbw["1"] and busbw["0"] >= 0.8 * inject,
          f"--routes: trn4-us128 all-to-all at {busbw['0']:.0f} GB/s busbw over every plane (>= 80 % of the "
          f"{inject:.0f} GB/s injection bound), {busbw['1']:.0f} GB/s with one route a pair")

    # the cost of synchronisation: read from the presets ([chip.X.collective]), off with --no-cost
    t = {}
    for name, extra in (("base", []), ("launch", ["--set", "chip.trainium.collective.launch_us=149.4"]),
                        ("none", ["--no-cost"])):
        rc, out, err = run("--preset", "trn1-16", "--op", "all-reduce", "--ranks", "2", "-b", "1K", *extra)
        t[name] = float(rows(out)[0]["time(us)"]) if rc == 0 else 0.0
    check(abs(t["launch"] - t["base"] - 100) < 0.01 and t["none"] < 5 < t["base"],
          f"cost: 1 KiB on 2 ranks {t['base']:.2f} us, 100 us more with launch_us 49.4 -> 149.4 ({t['launch']:.2f}), "
          f"{t['none']:.2f} us without the cost")
    rc, out, err = run("--compare-published")
    lines = [l for l in out.splitlines() if l.startswith("trn1-16 ") or l.startswith("trn2-16 ")]
    ratios_ok = all(abs(float(l.split()[6]) - float(l.split()[5]) / float(l.split()[4])) < 2e-3 for l in lines)
    check(rc == 0 and len(lines) == 24 and ratios_ok and "held out" in out and "# trn1-16: 1 MiB to 1 GiB within" in out,
          "--compare-published: the 24 published rows of trn1-16 and trn2-16 beside the model, ratio = model / published")

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "ar"
        rc, out, err = run("--emit", str(d), "--torus", "4x2", "--op", "all-reduce", "-b", "1K", "--algorithm", "hier",
                           "--dtype", "bf16")
        man = (d / "manifest.txt").read_text() if (d / "manifest.txt").exists() else ""
        ranks = [l.split() for l in man.splitlines() if l.startswith("rank ")]
        files_ok = all((d / f).exists() for r in range(8) for f in (f"rank{r}.s", f"rank{r}.bin", f"input_rank{r}.bin",
                                                                     f"expected_rank{r}.bin"))
        check(rc == 0 and len(ranks) == 8 and sorted(int(r[3]) for r in ranks) == list(range(8)) and files_ok,
              "--emit: eight ranks on the eight chips of a 4x2 torus, a program, input and expected result each")
        seg = next((int(l.split()[1]) for l in man.splitlines() if l.startswith("segment_bytes")), 0)
        check(seg == 128 and all((d / f"input_rank{r}.bin").stat().st_size == 1024 for r in range(8) if files_ok),
              "--emit: 1 KiB of BF16 over 8 ranks is 8 segments of 128 B; the inputs hold the data region")
        text = (d / "rank0.s").read_text() if files_ok else ""
        check("dop=acc" in text and "sem_wait" in text and "dsem.chip=" in text,
              "--emit: the program adds into remote chips and waits on semaphores")
        disasm = Path(tmp) / "rank0.dis.s"
        rc2, _, _ = runner(trnsim_path("test_trnsim_collective", __doc__), "disasm")(str(d / "rank0.bin"), "-o", str(disasm))
        check(rc2 == 0 and disasm.exists() and disasm.read_text().count("dma_start") == text.count("dma_start"),
              "--emit: the binary disassembles to the program's descriptors")
        d = Path(tmp) / "sw"
        rc, out, err = run("--emit", str(d), "--switch", "8", "--op", "all-to-all", "-b", "2K", "--algorithm", "mesh")
        man = (d / "manifest.txt").read_text() if (d / "manifest.txt").exists() else ""
        ranks = [l.split() for l in man.splitlines() if l.startswith("rank ")]
        check(rc == 0 and "a switch of 8 chips" in man and [int(r[3]) for r in ranks] == list(range(8)),
              "--emit --switch 8: rank r on chip r of the switch of 8 (sys_switch8)")

    bad = [
        (["--emit", "/tmp/x", "--torus", "4x1", "--op", "all-reduce", "-b", "1K"], "name the algorithm"),
        (["--emit", "/tmp/x", "--torus", "4", "--op", "all-reduce", "-b", "1K", "--algorithm", "ring"], "--torus"),
        (["--emit", "/tmp/x", "--op", "all-reduce", "-b", "1K", "--algorithm", "ring"], "--switch N"),
        (["--emit", "/tmp/x", "--torus", "4x1", "--switch", "8", "--op", "all-reduce", "-b", "1K", "--algorithm", "ring"],
         "--switch N"),
        (["--emit", "/tmp/x", "--switch", "eight", "--op", "all-reduce", "-b", "1K", "--algorithm", "ring"], "--switch 'eight'"),
        (["--emit", "/tmp/x", "--switch", "8", "--op", "all-reduce", "-b", "1K", "--algorithm", "hier"], "no second level"),
        (["--emit", "/tmp/x", "--torus", "4x1", "--op", "all-reduce", "-b", "1K", "--algorithm", "hier"], "no second level"),
        (["--emit", "/tmp/x", "--torus", "4x1", "--op", "all-reduce", "-b", "1M", "--algorithm", "ring"], "beyond the HBM"),
        (["--emit", "/tmp/x", "--torus", "4x1", "--op", "all-reduce", "-b", "4K", "--algorithm", "ring", "--chunk", "16"],
         "semaphores"),
        (["--emit", "/tmp/x", "--torus", "4x1", "--op", "all-reduce", "-b", "1K", "--algorithm", "ring", "--config", "huge"],
         "unknown configuration"),
        (["--preset", "trn2-16", "--op", "all-reduce", "-b", "1M", "-e", "1K"], "smaller than -b"),
        (["--preset", "trn2-16", "--op", "all-reduce", "-b", "1X"], "not a size"),
        (["--preset", "trn2-16", "--op", "all-reduce", "-b", "-5"], "'-5': not a size (a number of bytes"),
        (["--preset", "trn2-16", "--op", "all-reduce", "-b", "1M", "--chunk", "3"], "chunk 3 B is not a whole number"),
        (["--preset", "trn2-16", "--op", "all-reduce", "-b", "1M", "--dtype", "bf16", "--chunk", "1001"],
         "chunk 1001 B"),
        (["--emit", "/tmp/x", "--torus", "4x1", "--op", "all-reduce", "-b", "1K", "--algorithm", "ring",
          "--chunk", "6"], "chunk 6 B"),
        (["--preset", "trn2-16", "--op", "all-sum"], "unknown operation"),
        (["--compare-published", "--preset", "trn3-us144"], "trn3-us144 records no published measurements"),
        (["--compare-published", "--preset", "trn9"], "trn9"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--routes", "2000"], "--routes"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--queue-send", "fifo"], "'fifo' is not turn or shared"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "tree"], "unknown algorithm"),
        (["--preset", "trn9", "--op", "all-reduce"], "trn9"),
        (["--preset", "trn2-16", "--op", "permute", "--algorithm", "ring"], "permute"),
        (["--preset", "trn4-us128", "--op", "all-reduce", "--algorithm", "hier", "--chip-ranks", "1"], "no second level"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--ranks", "17", "--chip-ranks", "1"], "has 16 chips"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "kangaring", "--chip-ranks", "1"],
         "pairs of a chip's ranks"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "kangaring", "--ranks", "7"], "not pairs"),
        (["--preset", "trn2-16", "--op", "all-to-all", "--algorithm", "kangaring"], "KangaRing reduces or gathers"),
        (["--preset", "trn4-us128", "--op", "all-reduce", "--algorithm", "hrings"], "neither a torus nor a NeuronSwitch"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "hrings", "--ranks", "8"], "not the whole torus"),
        (["--emit", "/tmp/x", "--switch", "8", "--op", "all-reduce", "-b", "1K", "--algorithm", "hrings"],
         "one level of chips"),
        (["--emit", "/tmp/x", "--torus", "4x1", "--op", "all-reduce", "-b", "1K", "--algorithm", "hrings"],
         "two or more dimensions"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--algorithm", "kangaring", "--fidelity", "cycle"],
         "pairs of a chip's ranks"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--ranks", "65"], "has 64 ranks (16 chips of 4 logical"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--lnc", "3"], "--lnc"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--chip-ranks", "9"], "has 8 NeuronCores"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--dtype", "bf16", "-b", "3"], "whole number"),
        (["--preset", "trn2-16"], "--op OP is required"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--bogus"], "unexpected argument"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--json", "/nonexistent/dir/r.json"], "cannot write"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--check", "-b", "1K", "-e", "64G"], "too much to hold"),
        (["--preset", "trn4-uc", "--op", "all-reduce", "--fidelity", "cycle"], "at most 255"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--fidelity", "cycle", "-b", "64M"], "local HBM address"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--fidelity", "cycle", "--config", "huge"], "unknown configuration"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--config", "tiny"], "only with --emit or --fidelity cycle"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--channels", "2"], "only with --fidelity cycle"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--fidelity", "cycle", "--channels", "0"], "--channels"),
        (["--preset", "trn1-16", "--op", "all-reduce", "--fidelity", "cycle", "--channels", "7"], "has 6 collective cores"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--threads", "2"], "--threads: only with --fidelity cycle"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--fidelity", "cycle", "--threads", "0"], "--threads"),
        (["--preset", "trn2-16", "--op", "all-reduce", "--fidelity", "exact"], "flow or cycle"),
    ]
    for argv, want in bad:
        rc, out, err = run(*argv)
        lines = err.strip().splitlines()
        check(rc == 2 and len(lines) == 1 and want in lines[0] and out == "",
              f"bad input {' '.join(argv[2:])}: one line with '{want}', nothing on stdout, exit 2")

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
