#!/usr/bin/env python3
"""scripts/lint's slang front end: each check is shown rejecting a broken file, and the project's
RTL passes it.

  - a variable written by two always_comb blocks (the standard's one-driver rule)
  - a plain `always` block (the project's rule that puts every block under that one-driver rule)
  - an identifier used before its declaration (what Verilator let pass in tensor_engine.sv)
  - a case item of another enum type than its expression (-Wconversion from rtl/lint_slang.txt)
  - a slang options file with a waiver that gives no reason: a bad-input error (exit 2)
  - a clean file passes; every RTL top in every configuration passes

Exit: 0 pass, 1 a check failed, 77 skipped (pyslang could not be installed: see bootstrap).
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = [sys.executable, str(ROOT / "scripts" / "lint"), "--tool", "slang"]
SKIP = 77

CASES = {
    "multiple_drivers": ("""module t (input logic a_i, output logic y_o);
  logic v;
  always_comb v = a_i;
  always_comb v = ~a_i;
  assign y_o = v;
endmodule
""", "multiple-always-assigns"),
    "plain_always": ("""module t (input logic clk_i, input logic a_i, output logic y_o);
  always @(posedge clk_i) y_o <= a_i;
endmodule
""", "trn-plain-always"),
    "used_before_declared": ("""module t (input logic a_i, output logic y_o);
  always_comb y_o = v;
  logic v;
  assign v = a_i;
endmodule
""", "used before its declaration"),
    "case_type": ("""module t (input logic [1:0] a_i, output logic y_o);
  typedef enum logic [1:0] { A = 2'd0, B = 2'd1 } e_t;
  always_comb begin
    unique case (a_i)
      A: y_o = 1'b1;
      default: y_o = 1'b0;
    endcase
  end
endmodule
""", "case-type"),
}
CLEAN = """module t (input logic clk_i, input logic a_i, output logic y_o);
  logic v_q;
  always_ff @(posedge clk_i) v_q <= a_i;
  assign y_o = v_q;
endmodule
"""


def run(args):
    return subprocess.run(LINT + args, capture_output=True, text=True)


def main() -> int:
    p = run(["--config", "tiny", "--only", "stream_fifo"])
    if "slang skipped" in p.stdout:
        print(f"test_lint: SKIPPED: {p.stdout.strip().splitlines()[-1]}")
        return SKIP
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (src, want) in CASES.items():
            f = Path(tmp) / f"{name}.sv"
            f.write_text(src)
            p = run(["--config", "tiny", "--rtl", str(f), "--top", "t"])
            ok = p.returncode == 1 and want in p.stdout
            print(f"test_lint: {name}: {'rejected' if ok else 'NOT REJECTED'} (want '{want}', exit {p.returncode})")
            if not ok:
                fails.append(name)
                print(p.stdout + p.stderr)
        f = Path(tmp) / "clean.sv"
        f.write_text(CLEAN)
        p = run(["--config", "tiny", "--rtl", str(f), "--top", "t"])
        print(f"test_lint: clean file: exit {p.returncode}")
        if p.returncode != 0:
            fails.append("clean file")
            print(p.stdout + p.stderr)
        bad_opts = Path(tmp) / "opts.txt"
        bad_opts.write_text("-Wextra\n")
        p = run(["--config", "tiny", "--rtl", str(f), "--top", "t", "--slang-options", str(bad_opts)])
        ok = p.returncode == 2 and "opts.txt:1" in p.stderr
        print(f"test_lint: option without a reason: exit {p.returncode} ({p.stderr.strip()})")
        if not ok:
            fails.append("option without a reason")
    p = run([])
    print(f"test_lint: every RTL top, every configuration: {p.stdout.strip().splitlines()[-1]}")
    if p.returncode != 0:
        fails.append("project RTL")
        print(p.stdout[-4000:])
    print(f"test_lint: {'FAIL: ' + ', '.join(fails) if fails else 'pass'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
