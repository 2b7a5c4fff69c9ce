#!/usr/bin/env python3
"""scripts/mutate's own tests: the mutants it makes, and its verdicts on a real bench.

1. On a small RTL file: every kind of mutant is made where it should be and nowhere that must stay
   constant (parameters, widths, ranges, case labels, loop headers, casts' sizes, initial blocks);
   each single mutant differs from the file in one place; the schema holds every mutant and parses
   without an error; mutant keys are unique.
2. On the tiny stream_fifo and rr_arbiter benches of the build (TRN_BUILD_DIR): the stream FIFO's
   mutants that stand for a lost, duplicated or reordered item are killed, each by a named check;
   rr_arbiter's `cand = '0` default (overwritten before every read) survives, so a mutant the
   tests cannot see is reported, not counted killed; an unknown unit is a one-line error, exit 2.
3. The runner's word on how a bench ended, which the tool reads to tell a bench killed from outside
   (no verdict on its mutant) from one that failed: a bench that kills itself with SIGTERM, exits 3
   or exits 0 with no results.

Exit 77 (skipped) when pyslang is missing; part 2 is skipped when the benches are not built.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
BUILD = Path(os.environ.get("TRN_BUILD_DIR", ROOT / "build")).resolve()
sys.path.insert(0, str(BUILD / "pylib"))

SRC = """// a unit for the generator's test
module m #(
  parameter int unsigned W = 8,
  parameter int unsigned N = 3
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         en_i,
  input  logic [W-1:0] a_i,
  input  logic [1:0]   op_i,
  output logic [W-1:0] y_o,
  output logic         big_o
);
  localparam int unsigned Top = W - 1;
  logic [W-1:0] acc_q, acc_d;
  logic [W-1:0] tab [N];
  initial acc_q = 8'd5;
  assign big_o = (acc_q > a_i) && en_i;
  always_comb begin
    acc_d = acc_q;
    unique case (op_i)
      2'd0: acc_d = acc_q + a_i;
      2'd1: acc_d = acc_q - 1'b1;
      default: acc_d = acc_q;
    endcase
    for (int i = 0; i < N; i++) tab[i] = a_i;
    y_o = acc_q[Top:1] == '0 ? W'(3) : {acc_q[0 +: 2], a_i[W-1:2]};
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) acc_q <= '0;
    else if (en_i) acc_q <= acc_d;
  end
endmodule
"""


def fail(msg: str) -> None:
    print(f"test_mutate: FAIL: {msg}")
    sys.exit(1)


def generator(syntax) -> None:
    from trnlib.mutants import MutantFile
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.sv"
        p.write_text(SRC)
        mf = MutantFile(p, syntax)
        kinds = {}
        for m in mf.mutants:
            kinds.setdefault(m.kind, []).append(m)
        for k in ("operator", "constant", "condition", "stuck1", "stuck0", "arm"):
            if k not in kinds:
                fail(f"no {k} mutant in the test unit")
        whats = [m.what for m in mf.mutants]
        lines = {m.line for m in mf.mutants}
        src_lines = SRC.splitlines()
        # only what runs in simulation: the assign, the case arms' statements, y_o's, the enable's and
        # the reset value (not the reset condition)
        allowed = {i + 1 for i, t in enumerate(src_lines)
                   if t.strip().startswith(("assign", "2'd0:", "2'd1:", "y_o =", "else if (en_i)", "if (!rst_ni)"))}
        if not lines <= allowed:
            fail(f"mutants on lines {sorted(lines - allowed)}: declarations, parameters, initial or loop headers")
        # the loop header, case labels, the range [Top:1], the width of +: and the cast's size stay
        for bad in ("`i < N`", "`2'd0`", "`2'd1`", "`Top`", "`2` ->", "`W`"):
            if any(bad in w for w in whats):
                fail(f"a constant context was mutated: {bad} in {[w for w in whats if bad in w]}")
        if not any("`0` -> `1`" in w for w in whats):
            fail("the start of `acc_q[0 +: 2]` (it moves at run time) was not mutated")
        if not any("stuck at 1" in w and "en_i" in w for w in whats):
            fail("the enable `en_i` of the always_ff is not stuck in a mutant")
        if any("rst_ni" in w for w in whats):
            fail("a reset condition was mutated (every test kills those at once)")
        if len({m.key for m in mf.mutants}) != len(mf.mutants):
            fail("two mutants share a key")
        for m in mf.mutants:
            one = mf.single(m.id).splitlines()
            diff = [i for i, (x, y) in enumerate(zip(src_lines, one)) if x != y]
            if len(one) != len(src_lines) or len(diff) != 1 or diff[0] != m.line - 1:
                fail(f"mutant {m.id} ({m.what}) changes lines {[i + 1 for i in diff]}, not just line {m.line}")
        schema = mf.schema()
        for m in mf.mutants:
            if f"32'd{m.id})" not in schema:
                fail(f"mutant {m.id} is not in the schema")
        # its selector is read from the plusarg it is given (a unit's own, when schemas share a build)
        other = MutantFile(p, syntax, plusarg="TRN_MUTANT_M").schema()
        if '"TRN_MUTANT=%d"' not in schema or '"TRN_MUTANT_M=%d"' not in other or '"TRN_MUTANT=%d"' in other:
            fail("the schema does not read the plusarg it was given")
        p2 = Path(d) / "schema.sv"
        p2.write_text(schema)
        tree = syntax.SyntaxTree.fromFile(str(p2))
        errs = [dg for dg in tree.diagnostics if dg.isError()] if hasattr(tree, "diagnostics") else []
        if errs:
            fail(f"the schema does not parse: {len(errs)} errors")
    # a generate loop's body is walked once: no mutant made twice at one place (sr_rng's always_ff
    # and sbuf's are inside generate loops)
    for rel in ("rtl/numerics/sr_rng.sv", "rtl/mem/sbuf.sv"):
        ms = MutantFile(ROOT / rel, syntax).mutants
        places = [(m.line, m.col, m.what) for m in ms]
        if len(set(places)) != len(places) or not any(m.line > 20 for m in ms):
            fail(f"{rel}: a mutant made twice at one place: "
                 f"{sorted(p for p in places if places.count(p) > 1)[:3]}")
    print(f"test_mutate: generator: {len(mf.mutants)} mutants of {len(kinds)} kinds, constants untouched, "
          "each single mutant one line, the schema parses")


def end_to_end() -> bool:
    exe = BUILD / "bin"
    if not (exe / "tb_stream_fifo_tiny").is_file() or not (exe / "tb_rr_arbiter_tiny").is_file():
        print("test_mutate: end to end: skipped (tb_stream_fifo_tiny / tb_rr_arbiter_tiny not built)")
        return False
    out = Path(tempfile.mkdtemp(prefix="test_mutate."))
    tool = [sys.executable, str(ROOT / "scripts" / "mutate"), "--build-dir", str(BUILD), "-j", "2", "--out", str(out)]
    p = subprocess.run(tool + ["--unit", "no_such_unit"], capture_output=True, text=True)
    if p.returncode != 2 or "no_such_unit" not in p.stderr or len(p.stderr.strip().splitlines()) != 1:
        fail(f"an unknown unit: exit {p.returncode}, {p.stderr!r}")
    from trnlib.mutants import MutantFile
    from pyslang import syntax
    fifo = MutantFile(ROOT / "rtl/common/stream_fifo.sv", syntax)
    want = {m.id for m in fifo.mutants if m.what in (
        "`&` -> `|` in `pop_valid_o & pop_ready_i`",        # a pop the sink did not take: an item lost
        "case arm `2'b01:` dropped",                          # a pop that frees nothing: a duplicate
        "`!=` -> `==` in `count_q != CntW'(Depth)`")}         # a push into a full FIFO
    if len(want) != 3:
        fail(f"the stream FIFO's three mutants were not all made: {sorted(want)}")
    p = subprocess.run(tool + ["--unit", "stream_fifo", "--only-ids", ",".join(map(str, sorted(want)))],
                       capture_output=True, text=True)
    rep = json.loads((out / "report.json").read_text())
    outs = {o["id"]: o for o in rep[0]["outcomes"]}
    for i in want:
        o = outs.get(i)
        if o is None or o["status"] != "killed" or not o["by"] or not o["check"]:
            fail(f"stream_fifo mutant {i} not killed with a named test and check: {o}\n{p.stdout[-2000:]}")
    if p.returncode != 0:
        fail(f"every mutant killed, but exit {p.returncode}")
    # the journal: the same command again takes the outcomes recorded for the same executables and
    # tests; a journal whose fingerprint does not match (another build) is not used
    p2 = subprocess.run(tool + ["--unit", "stream_fifo", "--only-ids", ",".join(map(str, sorted(want)))],
                        capture_output=True, text=True)
    rep2 = json.loads((out / "report.json").read_text())
    if "3 outcomes from" not in p2.stdout or [(o["id"], o["status"], o["by"]) for o in rep2[0]["outcomes"]] != \
            [(o["id"], o["status"], o["by"]) for o in rep[0]["outcomes"]] or p2.returncode != 0:
        fail(f"a second run did not take the journal's outcomes (exit {p2.returncode}):\n{p2.stdout[-1500:]}")
    jf = out / "stream_fifo" / "journal.jsonl"
    jf.write_text("".join(json.dumps({**json.loads(x), "fp": "another build", "status": "survived"}) + "\n"
                          for x in jf.read_text().splitlines()) + '{"cut by an interr')
    p3 = subprocess.run(tool + ["--unit", "stream_fifo", "--only-ids", ",".join(map(str, sorted(want)))],
                        capture_output=True, text=True)
    rep3 = json.loads((out / "report.json").read_text())
    if "outcomes from" in p3.stdout or any(o["status"] != "killed" for o in rep3[0]["outcomes"]) or p3.returncode:
        fail(f"a journal of another build was used (exit {p3.returncode}):\n{p3.stdout[-1500:]}")
    arb = MutantFile(ROOT / "rtl/common/rr_arbiter.sv", syntax)
    blind = [m.id for m in arb.mutants if m.key.startswith("constant|cand = '0;|")]
    if len(blind) != 1:
        fail(f"rr_arbiter's `cand = '0` mutant: {blind}")
    p = subprocess.run(tool + ["--unit", "rr_arbiter", "--only-ids", str(blind[0]), "--no-equivalent"],
                       capture_output=True, text=True)
    rep = json.loads((out / "report.json").read_text())
    o = rep[0]["outcomes"][0]
    if o["status"] != "survived" or p.returncode != 1:
        fail(f"a mutant no test can see: {o['status']}, exit {p.returncode} (want survived, exit 1)")
    md = (out / "report.md").read_text()
    if "-    cand  = '0;" not in md or "+    cand  = '1;" not in md:
        fail("the survivor's diff is not in the report")
    print("test_mutate: end to end: the stream FIFO's lost, duplicated and overflowing items killed by named "
          "checks; a second run takes them from the journal, not from another build's; a mutant no test "
          "sees survives with its diff, exit 1; a bad unit exit 2")
    import shutil
    shutil.rmtree(out, ignore_errors=True)
    return True


def bench_endings() -> None:
    from trnlib.runner import Run, killed_by, run_one
    d = Path(tempfile.mkdtemp(prefix="test_mutate_end."))
    cases = [("kill -TERM $$", "error", "SIGTERM"), ("exit 3", "error", ""), ("exit 0", "error", ""),
             ("kill -KILL $$", "error", "SIGKILL")]
    for i, (body, want_status, want_sig) in enumerate(cases):
        exe = d / f"bench{i}.sh"
        exe.write_text(f"#!/bin/sh\n{body}\n")
        exe.chmod(0o755)
        st, _wall, _sim, msg = run_one(Run(f"t{i}", "b", "t", "tiny", 1, 20, {}, [], dir=str(d / str(i))), exe)
        if st != want_status or killed_by(msg) != want_sig:
            fail(f"a bench that runs `{body}`: {st}, killed_by {killed_by(msg)!r} "
                 f"(want {want_status}, {want_sig!r}): {msg.splitlines()[:1]}")
    import shutil
    shutil.rmtree(d, ignore_errors=True)
    print("test_mutate: a bench killed by SIGTERM or SIGKILL is told from one that exits 3 or leaves no results")


def main() -> int:
    bench_endings()
    try:
        from pyslang import syntax
    except ImportError:
        print("test_mutate: skipped: pyslang is not installed (scripts/bootstrap)")
        return 77
    generator(syntax)
    if not end_to_end():
        return 77
    print("test_mutate: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
