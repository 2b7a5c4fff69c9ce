"""Coverage of a regression (scripts/regress --coverage): code coverage from Verilator's
coverage.dat of every run, and the harness's functional coverage (fcov.json of every run).

Code coverage: the runs' files are merged with `verilator_coverage --write`, turned into lcov info
(`--write-info`) and an HTML report (Debian's genhtml), ranked (`--rank`: which runs add points),
and summarised per RTL file: line and toggle points hit, over every instance and configuration (a
point counts as hit when any instance hit it), with the holes (the lines never reached, the
signals never toggled). A line point whose counter the generated C++ never increments (in every
Verilated model of the runs that declares it) cannot be counted by Verilator however often its
code runs; such points are listed apart, and the line figure is also given over the points
that have a counter.

Functional coverage: every run's fcov.json ({"points": {name: {"bins": {bin: count}}}}) summed;
a bin is a hole when no run hit it.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .build import ROOT


@dataclass
class FileCov:
    line_hit: int = 0
    line_total: int = 0
    toggle_hit: int = 0
    toggle_total: int = 0
    line_holes: list = field(default_factory=list)     # line numbers never reached
    line_nocounter: list = field(default_factory=list)  # line points with no counter in the models
    toggle_holes: list = field(default_factory=list)   # (line, signal[bit]) never toggled

    @staticmethod
    def pct(hit: int, total: int) -> str:
        return f"{100.0 * hit / total:.1f}" if total else "-"


def parse_dat(path: Path) -> dict:
    """{(file, kind, line, comment, column): count} of a coverage.dat, over every instance ('h')."""
    points: dict = {}
    for raw in path.read_text(errors="replace").splitlines():
        m = re.match(r"^C '(.*)' (\d+)$", raw)
        if not m:
            continue
        kv = dict(item.split("\x02", 1) for item in m.group(1).split("\x01")[1:] if "\x02" in item)
        page = kv.get("page", "")
        kind = "toggle" if page.startswith("v_toggle") else "line" if page.startswith(("v_line", "v_branch")) \
            else None
        if kind is None:
            continue
        f = kv.get("f", "?")
        try:
            f = str(Path(f).resolve().relative_to(ROOT))
        except ValueError:
            pass
        key = (f, kind, int(kv.get("l", 0)), kv.get("o", ""), kv.get("n", ""))
        points[key] = points.get(key, 0) + int(m.group(2))
    return points


_INSERT = re.compile(r'__vlCoverInsert\(&\(vlSymsp->__Vcoverage\[(\d+)\]\), first, "([^"]*)", (\d+), (\d+), '
                     r'"[^"]*", "(v_line|v_branch)/[^"]*", "((?:[^"\\]|\\.)*)"')
_BUMP = re.compile(r'__Vcoverage\[(\d+)\](?:\.fetch_add|\)?\s*\+\+|\s*\+=)|\+\+\s*\(?\s*vlSymsp->__Vcoverage\[(\d+)\]')


def _rel(f: str) -> str:
    try:
        return str(Path(f).resolve().relative_to(ROOT))
    except ValueError:
        return f


def no_counter_points(verilated: list[Path]) -> set:
    """Line points (file, line, comment, column) that no given Verilated model counts: each model
    that declares the point (__vlCoverInsert) never increments any of its counters. Verilator
    5.006 declares but never increments, for example, the point of an `if` arm or `case` item
    whose body is a function's `return`."""
    declared: dict = {}   # point -> {model: set of counter indices}
    for d in verilated:
        if not d.is_dir():
            continue
        text = "\n".join(p.read_text(errors="replace") for p in sorted(d.glob("*.cpp")))
        bumped = {int(a or b) for a, b in _BUMP.findall(text)}
        for idx, f, line, col, _, comment in _INSERT.findall(text):
            key = (_rel(f), int(line), comment, col)
            declared.setdefault(key, {}).setdefault(d.name, [set(), bumped])[0].add(int(idx))
    return {k for k, models in declared.items()
            if all(not (ids & bumped) for ids, bumped in models.values())}


def summarize(points: dict, nocounter: set | None = None) -> dict[str, FileCov]:
    files: dict[str, FileCov] = {}
    for (f, kind, line, comment, col), n in sorted(points.items()):
        fc = files.setdefault(f, FileCov())
        if kind == "line":
            fc.line_total += 1
            fc.line_hit += n > 0
            if n == 0 and nocounter and (f, line, comment, col) in nocounter:
                fc.line_nocounter.append(line)
            elif n == 0:
                fc.line_holes.append(line)
        else:
            fc.toggle_total += 1
            fc.toggle_hit += n > 0
            if n == 0:
                fc.toggle_holes.append((line, comment))
    return files


def code_coverage(dats: list[Path], out: Path, log,
                  verilated: list[Path] | None = None) -> tuple[list[str], dict[str, FileCov]]:
    """Merge, lcov info, HTML, rank and the per-file table; the report's markdown lines.
    `verilated`: the runs' generated models, to tell the line points they cannot count."""
    out.mkdir(parents=True, exist_ok=True)
    lines = ["", "## Code coverage (Verilator line and toggle points, every instance and configuration)", ""]
    if not dats:
        return lines + ["No coverage.dat was written (were the benches built with --coverage?)."], {}
    merged = out / "merged.dat"
    lst = out / "runs.txt"
    lst.write_text("\n".join(str(d) for d in dats) + "\n")
    _run(["verilator_coverage", "--write", str(merged), *map(str, dats)], log)
    _run(["verilator_coverage", "--write-info", str(out / "merged.info"), str(merged)], log)
    html = ""
    if shutil.which("genhtml"):
        if _run(["genhtml", "--quiet", "--output-directory", str(out / "html"), "--title", "trn-rtl regression",
                 str(out / "merged.info")], log, fatal=False) == 0:
            html = str(out / "html" / "index.html")
    rank = subprocess.run(["verilator_coverage", "--rank", *map(str, dats)], capture_output=True, text=True)
    (out / "rank.txt").write_text(rank.stdout + rank.stderr)
    files = summarize(parse_dat(merged), no_counter_points(verilated or []))
    tl = sum(f.line_total for f in files.values())
    hl = sum(f.line_hit for f in files.values())
    nc = sum(len(f.line_nocounter) for f in files.values())
    tt = sum(f.toggle_total for f in files.values())
    ht = sum(f.toggle_hit for f in files.values())
    counted = (f"; over the {tl - nc} line points with a counter {FileCov.pct(hl, tl - nc)} % "
               f"({nc} have none in the generated C++)") if nc else ""
    lines += [f"{len(dats)} runs merged: line {FileCov.pct(hl, tl)} % ({hl}/{tl}){counted}, "
              f"toggle {FileCov.pct(ht, tt)} % ({ht}/{tt}). "
              + (f"HTML: {html}" if html else "HTML: genhtml not found (Debian's lcov)")
              + f"; lcov info {out / 'merged.info'}; ranking {out / 'rank.txt'}", "",
              "| RTL file | line % | lines | no counter | toggle % | toggles |", "|---|---:|---:|---:|---:|---:|"]
    for f, c in sorted(files.items()):
        lines.append(f"| {f} | {FileCov.pct(c.line_hit, c.line_total)} | {c.line_hit}/{c.line_total} | "
                     f"{len(c.line_nocounter) or ''} | "
                     f"{FileCov.pct(c.toggle_hit, c.toggle_total)} | {c.toggle_hit}/{c.toggle_total} |")
    holes = []
    for f, c in sorted(files.items()):
        if c.line_holes:
            holes.append(f"- {f}: lines never reached: {_ranges(sorted(set(c.line_holes)))}")
        if c.line_nocounter:
            holes.append(f"- {f}: lines with no counter in the generated C++ (not a hole of the tests): "
                         f"{_ranges(sorted(set(c.line_nocounter)))}")
        if c.toggle_holes:
            sig = sorted({cm for _, cm in c.toggle_holes})
            holes.append(f"- {f}: {len(c.toggle_holes)} toggle points never toggled: "
                         + ", ".join(sig[:12]) + (f", … ({len(sig)} signals)" if len(sig) > 12 else ""))
    (out / "holes.md").write_text("\n".join(holes) + "\n")
    lines += ["", f"Holes ({out / 'holes.md'}):", ""] + (holes or ["- none"])
    # verilator_coverage --rank: "covered, rank, rank points, file"; rank > 0 adds points
    ranked = [l for l in rank.stdout.splitlines() if re.match(r"^\s*\d+,\s*[1-9]\d*,", l)]
    if ranked:
        lines += ["", f"{len(ranked)} of {len(dats)} runs add coverage points the runs before them did not "
                      f"(verilator_coverage --rank, {out / 'rank.txt'})."]
    return lines, files


def functional_coverage(files: list[Path], out: Path) -> tuple[list[str], dict]:
    """Sum the runs' fcov.json; the report's lines and the merged points."""
    merged: dict = {}
    for p in files:
        try:
            data = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        for name, pt in data.get("points", {}).items():
            m = merged.setdefault(name, {"bins": {}, "runs_hit": {}})
            for b, n in pt.get("bins", {}).items():
                m["bins"][b] = m["bins"].get(b, 0) + n
                if n:
                    m["runs_hit"][b] = m["runs_hit"].get(b, 0) + 1
    out.mkdir(parents=True, exist_ok=True)
    (out / "functional.json").write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
    ranked = functional_rank(files)
    (out / "functional_rank.txt").write_text(
        "".join(f"{len(new):6d} new bins  {p}\n" for p, new in ranked))
    lines = ["", "## Functional coverage (the benches' cover points, every run)", ""]
    if not merged:
        return lines + ["No cover point was sampled."], merged
    total = sum(len(m["bins"]) for m in merged.values())
    hit = sum(sum(1 for n in m["bins"].values() if n) for m in merged.values())
    adding = sum(1 for _, new in ranked if new)
    lines += [f"{len(merged)} cover points, {hit} of {total} bins hit ({FileCov.pct(hit, total)} %); "
              f"merged counts in {out / 'functional.json'}. {adding} of {len(files)} runs add bins the "
              f"runs ranked before them did not ({out / 'functional_rank.txt'}).", "",
              "| cover point | bins hit | never hit |", "|---|---:|---|"]
    for name, m in sorted(merged.items()):
        miss = [b for b, n in m["bins"].items() if not n]
        lines.append(f"| {name} | {len(m['bins']) - len(miss)}/{len(m['bins'])} | "
                     + (", ".join(miss[:10]) + (f", … ({len(miss)})" if len(miss) > 10 else "") if miss else "-")
                     + " |")
    return lines, merged


def functional_rank(files: list[Path]) -> list[tuple[Path, set]]:
    """Greedy ranking of runs by the functional bins they add: at each step the run that hits the
    most bins not yet hit; runs that add nothing follow with an empty set."""
    hits = {}
    for p in files:
        try:
            data = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        hits[p] = {(n, b) for n, pt in data.get("points", {}).items() for b, c in pt.get("bins", {}).items() if c}
    order, seen = [], set()
    while hits:
        p = max(hits, key=lambda k: (len(hits[k] - seen), str(k)))
        new = hits.pop(p) - seen
        if not new:
            order += [(q, set()) for q in sorted(hits, key=str)] + [(p, set())]
            break
        order.append((p, new))
        seen |= new
    return order


def _ranges(nums: list[int]) -> str:
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(out)


def _run(cmd: list[str], log, fatal: bool = True) -> int:
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd[:6]) + (" …" if len(cmd) > 6 else "") + "\n")
        f.flush()
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if rc and fatal:
        raise RuntimeError(f"{cmd[0]} failed (exit {rc}); see {log}")
    return rc
