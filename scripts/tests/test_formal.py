#!/usr/bin/env python3
"""scripts/formal's bookkeeping, without the solvers: every labelled assertion of a property wrapper
is named by some mutant (so --self-test shows it failing), and the check that says so can fail.

1. On the tree as it is: unshown() finds nothing, and each mutant's text occurs once in its file.
2. With the only mutant naming a property taken away, unshown() names that wrapper and property.
3. A mutant naming a property its wrapper lacks (a misspelt label) is reported as such.
"""
from __future__ import annotations

import copy
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load():
    loader = importlib.machinery.SourceFileLoader("formal_tool", str(ROOT / "scripts" / "formal"))
    spec = importlib.util.spec_from_loader("formal_tool", loader)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["formal_tool"] = mod
    loader.exec_module(mod)
    return mod


def fail(msg: str) -> None:
    print(f"test_formal: FAIL: {msg}")
    sys.exit(1)


def main() -> int:
    f = load()
    real = f.PROOFS
    if f.unshown(real):
        fail(f"properties no mutant shows failing: {f.unshown(real)}")
    for p in real:
        for m in p.mutants:
            n = (ROOT / m.file).read_text().count(m.find)
            if n != 1:
                fail(f"{p.name}: the mutant '{m.what}' finds its text {n} times in {m.file}")
    # every property named by exactly one mutant: drop that mutant, the check must name the property
    named: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for i, p in enumerate(real):
        for j, m in enumerate(p.mutants):
            named.setdefault((p.wrapper, m.by), []).append((i, j))
    single = [(k, v[0]) for k, v in named.items() if len(v) == 1]
    if not single:
        fail("no property is named by a single mutant: nothing to take away")
    for (wrapper, prop), (i, j) in single:
        f.PROOFS = copy.deepcopy(real)
        del f.PROOFS[i].mutants[j]
        got = f.unshown(f.PROOFS)
        if got != [f"{wrapper}: {prop}"]:
            fail(f"{wrapper}'s {prop} with its mutant taken away: unshown() says {got}")
    f.PROOFS = copy.deepcopy(real)
    m = f.PROOFS[0].mutants[0]
    m.by = m.by + "_misspelt"
    got = f.unshown(f.PROOFS)
    if not any(g.startswith(f"{f.PROOFS[0].wrapper}: {m.by} (a mutant names it") for g in got):
        fail(f"a mutant naming a property its wrapper lacks: unshown() says {got}")
    f.PROOFS = real
    print(f"test_formal: {sum(len(p.mutants) for p in real)} mutants name every property of "
          f"{len({p.wrapper for p in real})} wrappers; each of {len(single)} properties taken from its "
          "only mutant is reported, and so is a misspelt name")
    return 0


if __name__ == "__main__":
    sys.exit(main())
