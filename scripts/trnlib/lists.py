"""Regression test lists: regressions/*.toml, validated with errors that name file and line.

A list is TOML:
    include = ["other.toml"]          # optional, relative to this file
    [[test]]
    name = "fifo.random"              # unique in the expanded list
    bench = "stream_fifo"             # the RTL top (a trn_bench() in tb/CMakeLists.txt)
    testcase = "random_traffic"       # the TRN_TEST in that bench (default: name after the last '.')
    configs = ["tiny", "small"]       # optional; the run's --config overrides
    seeds = 10                        # random seeds from the regression's master seed, or
    seed_list = [1, 2, 3]             # fixed seeds
    timeout = 300                     # wall-clock seconds per run
    env = { WATCHDOG_CYCLES = "500" } # extra environment
    plusargs = ["+foo=1"]
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

KEYS = {"name", "bench", "testcase", "configs", "seeds", "seed_list", "timeout", "env", "plusargs"}


class ListError(Exception):
    """Bad input in a test list; str() is the one-line message with file and line."""


@dataclass
class Entry:
    name: str
    bench: str
    testcase: str
    configs: list[str] | None
    seeds: int
    seed_list: list[int] | None
    timeout: float
    env: dict[str, str] = field(default_factory=dict)
    plusargs: list[str] = field(default_factory=list)
    where: str = ""


def _test_lines(text: str) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if re.match(r"\s*\[\[\s*test\s*\]\]", line)]


def load(path: Path, benches: set[str], configs: set[str], _stack: tuple = ()) -> list[Entry]:
    path = path.resolve()
    if path in _stack:
        raise ListError(f"{path}: include cycle through {' -> '.join(p.name for p in _stack)}")
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ListError(f"{path}: no such test list") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ListError(f"{path}: malformed TOML: {e}") from None
    lines = _test_lines(text)
    unknown = set(data) - {"include", "test"}
    if unknown:
        raise ListError(f"{path}:1: unknown top-level key(s) {sorted(unknown)} (want include, [[test]])")
    entries: list[Entry] = []
    inc = data.get("include", [])
    if not isinstance(inc, list) or not all(isinstance(x, str) for x in inc):
        raise ListError(f"{path}:1: include must be a list of file names")
    for name in inc:
        entries += load(path.parent / name, benches, configs, _stack + (path,))
    tests = data.get("test", [])
    if not isinstance(tests, list):
        raise ListError(f"{path}:1: 'test' must be an array of tables ([[test]])")
    for i, t in enumerate(tests):
        where = f"{path}:{lines[i] if i < len(lines) else 1}"

        def bad(msg: str) -> ListError:
            return ListError(f"{where}: {msg}")

        extra = set(t) - KEYS
        if extra:
            raise bad(f"unknown key(s) {sorted(extra)}")
        for k in ("name", "bench"):
            if not isinstance(t.get(k), str) or not t[k]:
                raise bad(f"'{k}' must be a non-empty string")
        if t["bench"] not in benches:
            raise bad(f"unknown bench '{t['bench']}' (benches: {', '.join(sorted(benches))})")
        testcase = t.get("testcase", t["name"].rsplit(".", 1)[-1])
        if not isinstance(testcase, str) or not testcase:
            raise bad("'testcase' must be a non-empty string")
        cfgs = t.get("configs")
        if cfgs is not None:
            if not isinstance(cfgs, list) or not cfgs or not all(isinstance(c, str) for c in cfgs):
                raise bad("'configs' must be a non-empty list of configuration names")
            for c in cfgs:
                if c not in configs:
                    raise bad(f"unknown configuration '{c}' (rtl/configs.toml has: {', '.join(sorted(configs))})")
        seeds = t.get("seeds", 1)
        if not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1:
            raise bad("'seeds' must be a positive integer")
        seed_list = t.get("seed_list")
        if seed_list is not None:
            if (not isinstance(seed_list, list) or not seed_list or
                    not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**32 for s in seed_list)):
                raise bad("'seed_list' must be a non-empty list of integers in 0..4294967295")
        timeout = t.get("timeout", 300)
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
            raise bad("'timeout' must be a positive number of seconds")
        env = t.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise bad("'env' must be a table of strings")
        plusargs = t.get("plusargs", [])
        if not isinstance(plusargs, list) or not all(isinstance(p, str) and p.startswith("+") for p in plusargs):
            raise bad("'plusargs' must be a list of strings starting with '+'")
        entries.append(Entry(t["name"], t["bench"], testcase, cfgs, seeds, seed_list, float(timeout), dict(env),
                             list(plusargs), where))
    seen: dict[str, str] = {}
    for e in entries:
        if e.name in seen:
            raise ListError(f"{e.where}: test '{e.name}' is already defined at {seen[e.name]}")
        seen[e.name] = e.where
    return entries


def known_benches(root: Path) -> set[str]:
    text = (root / "tb" / "CMakeLists.txt").read_text()
    return set(re.findall(r"^\s*trn_bench\(\s*(\w+)", text, re.M))


def known_configs(root: Path) -> list[str]:
    with (root / "rtl" / "configs.toml").open("rb") as f:
        return list(tomllib.load(f))
