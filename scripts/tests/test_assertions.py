#!/usr/bin/env python3
"""The RTL's assertions catch a wrong design, and a failing one is reported as it should be.

Each assertion beside the RTL (docs/formal.md "Assertions") is shown failing on a mutant of its
unit that breaks the rule it states: the unit's bench is built on the mutant schema
(scripts/mutate), the mutant runs with the model's lockstep off (LOCKSTEP=0, so the assertion is
the check that sees it first), and the failure must name the assertion and its instance with the
cycle ("assertion a_x failed in TOP.... at cycle N (t ns): file:line"). The design itself (no
mutant) passes the same test.

  test_assertions.py [--all] [--benches]
      --benches  print the benches the cases need, and stop
      --all      add the cases marked heavy (a build of the core or NeuronCore top on the mutant
                 schema, minutes each; make formal runs them); make test runs the others

Exit 0 all caught, 1 one not, 77 skipped (pyslang missing, or the benches not built).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
BUILD = Path(os.environ.get("TRN_BUILD_DIR", ROOT / "build")).resolve()
sys.path.insert(0, str(BUILD / "pylib"))

# (unit, the bench judging, the mutant's key as scripts/mutate prints it, the list test it runs, the
# assertion, heavy: left to --all)
CASES: list[tuple[str, str, str, str, str, bool]] = [
    ("stream_fifo", "stream_fifo", "operator|assign push = push_valid_i & push_ready_o;|push_valid_i & push_ready_o||",
     "stream_fifo.changing_rates", "a_count_in_range", False),
    ("stream_fifo", "stream_fifo", "arm|2'b01: count_d = count_q - 1'b1;|2'b01",
     "stream_fifo.changing_rates", "a_pointers_agree", False),
    ("rr_arbiter", "rr_arbiter", "constant|found = 1'b1;|1'b1|1'b0",
     "rr_arbiter.reset_mid_traffic", "a_grant_held", False),
    ("rr_arbiter", "rr_arbiter", "operator|if (found && gnt_ready_i) req_ready_o[idx] = 1'b1;|found && gnt_ready_i|||",
     "rr_arbiter.reset_mid_traffic", "a_taken_was_granted", False),
    ("rr_arbiter", "rr_arbiter_n3", "constant|req_ready_o = '0;|'0|'1",
     "rr_arbiter_n3.all_requesters", "a_one_taken", False),
    ("link_tx", "link_pair", "operator|in_ready_o = rst_ni && count < SB'(Depth);|count < SB'(Depth)|<=",
     "link_pair.heavy_errors", "a_replay_in_range", False),
    ("link_tx", "link_pair", "condition|end else if (ack_ok) begin|ack_ok",
     "link_pair.clean_link", "a_send_in_window", False),
    ("sbuf", "sbuf", "constant|e_bank[i][elem_bank(e_i[i].idx, e_i[i].esize, BeatBytes, Banks)] = 1'b1;|1'b1|1'b0",
     "sbuf.arbitration", "a_engine_wait_bounded", False),
    ("dma_engine", "dma_engine",
     "operator|if (sl_q[i].st != SFree && c_lo < sl_q[i].hi && sl_q[i].lo < c_hi) hazard = 1'b1;|sl_q[i].st != SFree|==",
     "dma_engine.descriptor_limits", "a_waw_one_pending", False),
    ("dma_engine", "dma_engine", "condition|end else if (ar_ready_i) begin|ar_ready_i",
     "dma_engine.descriptor_limits", "a_sem_after_data", False),
    ("router", "router_torus",
     "operator|buf_push[i] = arrive[i] && !(rd[i] && !buf_valid[i]);|arrive[i] && !(rd[i] && !buf_valid[i])|||",
     "router_torus.random_packets", "a_arrival_fits", False),
    ("router", "router_torus", "constant|va_req[o] = '0;|'0|'1", "router_torus.random_packets", "a_vc_held_once", False),
    ("router", "router_torus", "operator|cc_take = sent & ~give;|sent & ~give||", "router_torus.random_packets",
     "a_credits_legal", False),
    # the rules below are checked by the unit's own bench in the same cycle as the assertion (its
    # scoreboard fires first), so each assertion is shown inside a top that holds the unit, where no
    # test watches the unit's ports; the mutants of kind "hand" are tb/mutants_hand.toml's
    ("credit_counter", "router_torus", "operator|else count_d = count_q + 1'b1;|count_q + 1'b1|-",
     "router_torus.random_packets", "a_count_in_range", False),
    ("rr_arbiter", "rr_arbiter",
     "hand|if (!found && req_valid_i[cand[IdxW-1:0]]) begin|req_valid_i[cand[IdxW-1:0]]|1'b1",
     "rr_arbiter.reset_mid_traffic", "a_grant_requested", False),
    ("dma_engine", "dma_engine", "hand|qs_d[q].st = head[q].barrier ? QBar : QRun;|head[q].barrier ? QBar : QRun|QRun",
     "dma_engine.random_programs", "a_barrier_drained", False),
    ("dma_engine", "core", "hand|if (sl_q[i].st == SData && (!cfg_strong_i[sl_q[i].q] || sl_q[i].seq == "
     "qs_q[sl_q[i].q].wseq)) begin|sl_q[i].seq == qs_q[sl_q[i].q].wseq|1'b1",
     "core.end_to_end_mxfp8", "a_strong_order", True),
    ("sbuf", "core", "hand|rreq[b][i] = e_valid_i[i] && !e_i[i].we && e_bank[i][b];|e_valid_i[i] && !e_i[i].we && "
     "e_bank[i][b]|!e_i[i].we && e_bank[i][b]", "core.end_to_end_fp8_bias", "a_grant_requested", True),
    ("core_ctl", "neuron_core", "hand|wait_ok[s] = !head[s].wait_en || sem_q[head[s].wait_sem] >= {12'b0, "
     "eff[s].wait_val};|!head[s].wait_en|1'b1", "neuron_core.kernel_softmax", "a_wait_holds", True),
]


def main() -> int:
    heavy = "--all" in sys.argv[1:]
    if "--benches" in sys.argv[1:]:  # the benches the cases build on (make formal builds them first)
        print("\n".join(sorted({c[1] for c in CASES if heavy or not c[5]})))
        return 0
    try:
        from pyslang import syntax
    except ImportError:
        print("test_assertions: skipped: pyslang is not installed (scripts/bootstrap)")
        return 77
    from trnlib.mutants import UNITS, MutantFile, load_hand
    hand = load_hand(ROOT / "tb" / "mutants_hand.toml")
    cases = [c for c in CASES if heavy or not c[5]]
    benches = {c[1] for c in cases}
    missing = [b for b in benches if not (BUILD / "bin" / f"tb_{b}_tiny").is_file()]
    if missing:
        print(f"test_assertions: skipped: not built: {', '.join(f'tb_{b}_tiny' for b in sorted(missing))}")
        return 77
    out = Path(tempfile.mkdtemp(prefix="test_assertions."))
    failed = []
    by_unit: dict[tuple[str, str], list] = {}
    for c in cases:
        by_unit.setdefault((c[0], c[1]), []).append(c)
    for (unit, bench), cs in by_unit.items():
        mf = MutantFile(ROOT / UNITS[unit][0], syntax, hand=hand.get(unit, []))
        ids = {}
        tests = sorted({c[3] for c in cs})
        for _, _b, key, test, name, _h in cs:
            hit = [m.id for m in mf.mutants if m.key == key]
            if len(hit) != 1:
                failed.append(f"{unit}: no single mutant with key {key!r} (the RTL changed? scripts/mutate "
                              f"--unit {unit} lists the keys in its report)")
                continue
            ids[hit[0]] = (test, name)
        if not ids:
            continue
        cmd = [sys.executable, str(ROOT / "scripts" / "mutate"), "--unit", unit, "--build-dir", str(BUILD),
               "--out", str(out / f"{unit}-{bench}"), "--env", "LOCKSTEP=0", "--no-equivalent", "-j", "2", "--bench", bench,
               "--only-ids", ",".join(str(i) for i in ids)] + [a for t in tests for a in ("--test", t)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        rep_path = out / f"{unit}-{bench}" / "report.json"
        if not rep_path.is_file():
            failed.append(f"{unit}: scripts/mutate gave no report (exit {p.returncode}):\n{p.stdout[-1500:]}{p.stderr[-1500:]}")
            continue
        rep = json.loads(rep_path.read_text())[0]
        if rep["error"]:
            failed.append(f"{unit}: {rep['error'][:1500]}")
            continue
        outs = {o["id"]: o for o in rep["outcomes"]}
        for mid, (test, name) in ids.items():
            o = outs.get(mid)
            want = re.compile(rf"^assertion {re.escape(name)} failed in TOP\.\S+ at cycle \d+ \([0-9.]+ ns\): \S+:\d+$")
            if o is None or o["status"] != "killed" or not want.match(o["check"]):
                failed.append(f"{unit}: mutant {mid} ({o and o['what']}): want {name} to catch it, got "
                              f"{o and o['status']} by {o and o['by']}: {o and o['check']}")
            else:
                print(f"test_assertions: {unit}: {name} caught `{o['what']}` ({o['by']}): {o['check'][:120]}")
    shutil.rmtree(out, ignore_errors=True)
    if failed:
        for f in failed:
            print(f"test_assertions: FAIL: {f}")
        return 1
    print(f"test_assertions: passed: {len(cases)} assertions each caught a mutant of its unit, named with its "
          "instance and cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
