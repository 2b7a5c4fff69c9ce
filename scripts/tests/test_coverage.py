#!/usr/bin/env python3
"""scripts/trnlib/coverage.py on hand-made inputs: the per-file summary of Verilator coverage
points (a point is hit when any instance hit it; line and toggle points apart; the holes listed),
and the functional coverage merge (counts summed over runs; a bin no run hit is a hole).
Exit: 0 pass, 1 a check failed.
"""
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from trnlib import coverage  # noqa: E402
from trnlib.build import ROOT  # noqa: E402


def point(f, line, page, comment, hier, count, col=10):
    kv = {"f": f, "l": str(line), "n": str(col), "page": page, "o": comment, "h": hier}
    return "C '" + "".join(f"\x01{k}\x02{v}" for k, v in kv.items()) + f"' {count}\n"


def main() -> int:
    fails = []

    def check(ok, what):
        print(f"test_coverage: {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            fails.append(what)

    f = str(ROOT / "rtl" / "common" / "x.sv")
    dat = "# SystemC::Coverage-3\n" + "".join([
        point(f, 10, "v_line/x", "block", "TOP.a", 5),
        point(f, 10, "v_line/x", "block", "TOP.b", 0),   # hit by instance a: covered
        point(f, 12, "v_line/x", "if", "TOP.a", 0),
        point(f, 12, "v_line/x", "if", "TOP.b", 0),      # never hit: a hole
        point(f, 13, "v_branch/x", "else", "TOP.a", 2),
        point(f, 3, "v_toggle/x", "d[0]", "TOP.a", 1),
        point(f, 3, "v_toggle/x", "d[1]", "TOP.a", 0),   # never toggled
    ])
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "coverage.dat"
        p.write_text(dat)
        files = coverage.summarize(coverage.parse_dat(p))
        c = files.get("rtl/common/x.sv")
        check(c is not None, f"the file is named relative to the repository ({sorted(files)})")
        if c:
            check((c.line_hit, c.line_total) == (2, 3), f"line points: 2 of 3 hit ({c.line_hit}/{c.line_total})")
            check((c.toggle_hit, c.toggle_total) == (1, 2), f"toggle points: 1 of 2 ({c.toggle_hit}/{c.toggle_total})")
            check(c.line_holes == [12], f"the line hole is line 12 ({c.line_holes})")
            check(c.toggle_holes == [(3, "d[1]")], f"the toggle hole is d[1] ({c.toggle_holes})")
        # Generated C++ as Verilator 5.006 writes it: line 12's point declared and never incremented
        # in model m1, so it cannot be counted there; in m2 it has a counter.
        def model(name, bumped):
            d = Path(tmp) / name
            d.mkdir()
            ins = "".join(f'    vlSelf->__vlCoverInsert(&(vlSymsp->__Vcoverage[{i}]), first, "{f}", {ln}, 10, '
                          f'".x", "v_line/x", "{cm}", "{ln}");\n' for i, ln, cm in ((3, 12, "if"), (4, 10, "block")))
            inc = "".join(f"        vlSymsp->__Vcoverage[{i}].fetch_add(1, std::memory_order_relaxed);\n" for i in bumped)
            (d / "Vx__Slow.cpp").write_text(ins)
            (d / "Vx.cpp").write_text(inc)
            return d
        m1, m2 = model("m1", [4, 13]), model("m2", [3, 4])
        nc = coverage.no_counter_points([m1])
        check(nc == {("rtl/common/x.sv", 12, "if", "10")}, f"a point never incremented has no counter ({nc})")
        check(coverage.no_counter_points([m1, m2]) == set(), "a point another model counts has a counter")
        c2 = coverage.summarize(coverage.parse_dat(p), nc)["rtl/common/x.sv"]
        check(c2.line_nocounter == [12] and c2.line_holes == [] and (c2.line_hit, c2.line_total) == (2, 3),
              f"the point with no counter is listed apart, not as a hole ({c2.line_nocounter}, {c2.line_holes})")
        a, b = Path(tmp) / "a.json", Path(tmp) / "b.json"
        a.write_text(json.dumps({"points": {"p": {"bins": {"x": 1, "y": 0, "z": 0}}}}))
        b.write_text(json.dumps({"points": {"p": {"bins": {"x": 2, "y": 3, "z": 0}}}}))
        lines, merged = coverage.functional_coverage([a, b], Path(tmp) / "out")
        check(merged["p"]["bins"] == {"x": 3, "y": 3, "z": 0}, f"bins summed ({merged['p']['bins']})")
        check(any(l.startswith("| p | 2/3 | z |") for l in lines), "the report names the bin never hit")
        c_ = Path(tmp) / "c.json"
        c_.write_text(json.dumps({"points": {"p": {"bins": {"x": 5, "y": 0, "z": 0}}}}))
        rank = coverage.functional_rank([a, b, c_])
        check(rank[0][0] == b and rank[0][1] == {("p", "x"), ("p", "y")} and not rank[1][1] and not rank[2][1],
              f"ranking: b adds x and y, a and c add nothing ({[(p.name, sorted(n)) for p, n in rank]})")
    print(f"test_coverage: {'FAIL' if fails else 'pass'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
