#!/usr/bin/env python3
"""`trnsim system` from the command line, as a user runs it (docs/system.md).

Checks: --list names every preset of model/system/presets.toml; --preset prints the tree, the
totals and the network of every preset and exits 0; --json is valid JSON whose figures agree with
the text report (peak MXFP8 TFLOPS and HBM of trn3-us144: the seeds' 362 PFLOPs, 20,736 GiB,
705.6 TB/s); --compare prints both with their ratio; --set changes the composition; and every kind
of bad input (unknown preset, unknown key, a value of the wrong type or out of range, a topology
that does not fit, a bad preset file, a bad option) is one line on stderr naming what and where,
with exit status 2.

Usage: test_trnsim_system.py [--trnsim PATH]
"""
import json
import sys
import tempfile
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trnsim_cli import ROOT, Checks, runner, trnsim_path  # noqa: E402

check = Checks("trnsim system")


def main():
    run = runner(trnsim_path("test_trnsim_system", __doc__), "system")
    with open(ROOT / "model" / "system" / "presets.toml", "rb") as f:
        presets = list(tomllib.load(f)["system"])

    rc, out, err = run("--list")
    check(rc == 0 and [l.split()[0] for l in out.splitlines()] == presets, "--list names every preset, in file order")

    for name in presets:
        rc, out, err = run("--preset", name)
        check(rc == 0 and out.startswith(f"{name}: ") and "composition" in out and "totals (composed)" in out
              and "deadlock-free (CDG acyclic)      yes" in out, f"--preset {name}: tree, totals, network")
        rc, js, err = run("--preset", name, "--json")
        try:
            doc = json.loads(js)
            ok = rc == 0 and doc["preset"] == name and doc["network"]["deadlock_free"] is True
        except (json.JSONDecodeError, KeyError):
            ok = False
        check(ok, f"--preset {name} --json is valid JSON")

    rc, js, _ = run("--preset", "trn3-us144", "--json")
    doc = json.loads(js)
    check(abs(doc["totals"]["peak_tflops"]["mxfp8"] / 362000 - 1) < 0.002, "trn3-us144: 362 FP8 PFLOPs (JSON)")
    check(doc["totals"]["hbm_gib"] == 20736 and doc["totals"]["hbm_gbps"] == 705600, "trn3-us144: HBM 20,736 GiB, 705.6 TB/s")
    check(doc["chips"] == 144 and abs(doc["network"]["bisection_gbps"] - 72 * 2 * 2560 / 11) < 1e-6,
          "trn3-us144: 144 chips, bisection 33,513 GB/s (72 chips x 2 inter-rack links of 2,560 / 11 GB/s)")
    misses = [p for p in doc["published"] if p["miss"]]
    check(any(p["metric"] == "bf16_tflops" for p in misses), "a published figure missed by > 2 % is reported (BF16 per chip)")
    rc, out, _ = run("--preset", "trn3-us144")
    check("chip peak BF16 TFLOPS: composed 629.1, published 671" in out, "... and named in the text report")

    rc, out, _ = run("--compare", "trn3-us144", "trn2-us64")
    row = [l for l in out.splitlines() if l.startswith("peak MXFP8 TFLOPS")]
    check(rc == 0 and "claim: trn3-us144 mxfp8_tflops / trn2-us64 fp8_tflops = 4.4x claimed, 4.50x composed" in out,
          "--compare trn3-us144 trn2-us64 shows the 4.4x claim against the composed 4.50x")
    check(rc == 0 and "peak FP8 TFLOPS" in out and "HBM GB/s" in out, "--compare prints the figures side by side")

    rc, js, _ = run("--preset", "trn3-us144", "--json", "--set", "links.intra_server.count=6")
    doc6 = json.loads(js)
    check(rc == 0 and abs(doc6["chip"]["link_gbps"] - 13 * 2560 / 11) < 1e-6,
          "--set links.intra_server.count=6: 3,025 GB/s of ports a chip (13 of 2,560 / 11)")

    bad = [
        (["--preset", "trn9"], "unknown preset 'trn9'"),
        (["--preset", "trn3-us144", "--set", "corez=4"], "--set corez: no such key"),
        (["--preset", "trn3-us144", "--set", "cores=four"], "'four' is a string, the preset holds an integer"),
        (["--preset", "trn3-us144", "--set", "cores=0"], "0 is out of range"),
        (["--preset", "trn3-us144", "--set", "topology.racks=3"], "3 is out of range (1..2)"),
        (["--preset", "trn2-16", "--set", 'topology.classes=["inter_instance", "inter_instance"]'],
         "the torus takes 4 ports of class 'inter_instance'"),
        (["--preset", "trn3-us144", "--bogus"], "unexpected argument '--bogus'"),
        (["--preset"], "--preset needs a value"),
        (["--json"], "give exactly one of"),
        (["--compare", "trn3-us144"], "--compare needs a value"),
    ]
    for argv, want in bad:
        rc, out, err = run(*argv)
        lines = err.strip().splitlines()
        check(rc == 2 and len(lines) == 1 and want in lines[0] and not out, f"{' '.join(argv)}: exit 2, one line: {want}")

    with tempfile.TemporaryDirectory() as tmp:
        text = (ROOT / "model" / "system" / "presets.toml").read_text()
        broken = Path(tmp) / "broken.toml"
        lines = text.splitlines()
        at = next(i for i, l in enumerate(lines) if l.startswith("hbm_stack_gib = 24"))
        lines[at] = "hbm_stack_gib = \"lots\""
        broken.write_text("\n".join(lines) + "\n")
        rc, out, err = run("--list", "--presets", str(broken))
        check(rc == 2 and f"{broken}:{at + 1}:" in err and "chip.trainium2.hbm_stack_gib: must be a number" in err,
              "a bad preset file: exit 2, file:line and the key")
        rc, out, err = run("--list", "--presets", str(Path(tmp) / "missing.toml"))
        check(rc == 2 and "cannot read the preset file" in err, "a missing preset file: exit 2")

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
