"""Configure and build the CMake tree for a set of configurations (used by regress, wave, bench)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cached_configs(build: Path) -> list[str]:
    cache = build / "CMakeCache.txt"
    if not cache.exists():
        return []
    m = re.search(r"^TRN_CONFIGS:STRING=(.*)$", cache.read_text(), re.M)
    return [c for c in m.group(1).split(";") if c] if m else []


def ensure_configured(build: Path, configs: list[str], log: Path | None = None, extra: list[str] = ()) -> None:
    """Configure `build` so that it has benches for every configuration in `configs` (the set
    only grows, so earlier builds stay usable); `extra` are more -D options (the coverage tree's)."""
    have = cached_configs(build)
    want = have + [c for c in configs if c not in have]
    if have and want == have:
        return
    if not want:
        want = ["tiny", "small"]
    cmd = ["cmake", "-S", str(ROOT), "-B", str(build), f"-DTRN_CONFIGS={';'.join(want)}", *extra]
    run_logged(cmd, log, "configure")


def build_commands(build: Path, targets: list[str], jobs: int) -> list[list[str]]:
    """The commands that build `targets` in one make, so that their parts compile side by side.

    CMake's top-level Makefile is .NOTPARALLEL: `cmake --build --target a b c` builds a, then b,
    then c, each alone (the last files and the link of each keep all but one core idle). That
    Makefile builds a target as its check of the build system (which reconfigures when needed),
    then the node `<dir>/CMakeFiles/<target>.dir/all` of CMakeFiles/Makefile2, whose prerequisites
    are the nodes of the targets it links. Here one make gets every target's node, so a library
    that several targets link is built once, beside the rest (naming the targets themselves to
    Makefile2 would run a make per target, each building the shared libraries again, at once). A
    tree of another generator, or a target Makefile2 does not name, builds through cmake --build."""
    makefile2 = build / "CMakeFiles" / "Makefile2"
    fallback = [["cmake", "--build", str(build), "-j", str(jobs), "--target", *targets]]
    if not makefile2.is_file() or not (build / "Makefile").is_file():
        return fallback
    nodes = {}
    for m in re.finditer(r"^((?:[^\s:#]*/)?CMakeFiles/([^\s:/]+)\.dir/all):", makefile2.read_text(), re.M):
        nodes.setdefault(m.group(2), m.group(1))
    if any(t not in nodes for t in targets):
        # a bench added since the tree was last generated (a pull, a new top): make knows no rule
        # for it until CMake runs again, which its check of the build system does first
        return [["make", "-s", "-C", str(build), "cmake_check_build_system"], *fallback]
    return [["make", "-s", "-C", str(build), "cmake_check_build_system"],
            ["make", "-C", str(build), "-f", "CMakeFiles/Makefile2", f"-j{jobs}", *[nodes[t] for t in targets]]]


def build_targets(build: Path, targets: list[str], jobs: int, log: Path | None = None) -> None:
    # When an RTL change makes Verilator write a different set of C++ files, the build that
    # re-verilates still compiles the old list (CMake learns the new one at its next configure,
    # which that build triggers): one retry is the second build that reconfigures and succeeds.
    # The first build keeps going past errors (make -k) so that every changed top is re-verilated
    # in it, not left for the retry.
    def once(keep_going: bool, fatal: bool) -> int:
        for cmd in build_commands(build, targets, jobs):
            if keep_going:
                cmd = cmd + (["-k"] if cmd[0] == "make" else ["--", "-k"])
            rc = run_logged(cmd, log, "build", fatal=fatal)
            if rc != 0:
                return rc
        return 0

    if once(True, False) != 0:
        print("build: retrying once (Verilator's file list changed; CMake reconfigures)", file=sys.stderr)
        once(False, True)


def run_logged(cmd: list[str], log: Path | None, what: str, fatal: bool = True) -> int:
    if log:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a") as f:
            f.write("$ " + " ".join(cmd) + "\n")
            f.flush()
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    else:
        rc = subprocess.call(cmd)
    if rc != 0 and not fatal:
        return rc
    if rc != 0:
        tail = ""
        if log and log.exists():
            tail = "\n".join(log.read_text().splitlines()[-30:])
        print(f"{tail}\nerror: {what} failed (exit {rc}); full log: {log}", file=sys.stderr)
        sys.exit(1)
    return rc


def bench_exe(build: Path, bench: str, config: str) -> Path:
    return build / "bin" / f"tb_{bench}_{config}"


# Benches that build a deliberately broken copy of a top for a checker's self-test: not units of the
# design (left out of `make bench` and `make synth`).
SELFTEST_BUILDS = {"sbuf_broken", "link_nocrc", "switch_nocrc"}


def rtl_tops() -> dict[str, dict]:
    """The trn_bench() calls of tb/CMakeLists.txt: bench -> {module, rtl: [files], vlt: [Verilator config
    files], probes: bool, params: [(SvParam, section, key) or (SvParam, None, literal)]}."""
    text = (ROOT / "tb" / "CMakeLists.txt").read_text()
    # Plain set(VAR values...) lines may name source lists: expand them in order.
    vars_ = {"CMAKE_SOURCE_DIR": str(ROOT), "TRN_GEN_DIR": str(ROOT / "build" / "gen")}

    def expand(s: str) -> str:
        return re.sub(r"\$\{(\w+)\}", lambda m: vars_.get(m.group(1), m.group(0)), s)

    for m in re.finditer(r"^set\((\w+)\s+(.*?)\)", text, re.S | re.M):
        vars_[m.group(1)] = expand(m.group(2))
    out = {}
    for m in re.finditer(r"^trn_bench\((\w.*?)\)", text, re.S | re.M):
        words = expand(m.group(1)).split()
        top, mode, rtl, params, vlt, probes = words[0], None, [], [], [], False
        module = top
        for w in words[1:]:
            if w in ("RTL", "TB", "PARAMS", "MODULE", "VLT", "DEFS", "OPT"):
                mode = w
            elif w == "PROBES":
                probes, mode = True, None
            elif mode == "VLT":
                vlt.append(w)
            elif mode in ("DEFS", "OPT"):
                pass  # the bench's compile definitions and C++ optimisation: not the RTL's
            elif mode == "MODULE":
                module = w
            elif mode == "RTL":
                rtl.append(w)
            elif mode == "PARAMS":
                sv, ref = w.split("=")
                # a literal: an integer, or an enum's label (Topo=router_pkg::TopoSwitch)
                literal = ref.isdigit() or "::" in ref
                params.append((sv, None, ref) if literal else (sv, *ref.split(".")))
        out[top] = {"module": module, "rtl": rtl, "vlt": vlt, "probes": probes, "params": params}
    return out


def enum_value(label: str) -> str:
    """An enum label `pkg::Label` as the sized literal Verilator's -G takes (`2'd1`): -G sets an enum
    parameter only so (slang and Yosys's read_slang take the label itself)."""
    pkg, name = label.split("::")
    files = sorted(ROOT.glob(f"rtl/*/{pkg}.sv"))
    if not files:
        raise SystemExit(f"error: parameter value {label}: no package rtl/*/{pkg}.sv")
    sys.path.insert(0, str(ROOT / "scripts"))
    from gen_pkg import Package  # noqa: E402 -- the one reader of packages
    for width, labels in Package(files[0]).enums.values():
        for lab, val in labels:
            if lab == name:
                return f"{width}'d{val}"
    raise SystemExit(f"error: parameter value {label}: {pkg} has no enum label {name}")


def gparams(info: dict, cfg: dict, tool: str = "verilator") -> list[str]:
    """-G arguments of one top in one configuration (a table of rtl/configs.toml) for `tool`
    (verilator, or slang: pyslang and Yosys's read_slang)."""
    out = []
    for sv, sec, key in info["params"]:
        value = cfg[sec][key] if sec is not None else key
        if sec is None and "::" in key and tool == "verilator":
            value = enum_value(key)
        out.append(f"-G{sv}={value}")
    return out


def gparam_values(gargs: list[str]) -> dict[str, str]:
    """-GNAME=VALUE arguments (gparams, or a synth report's "params") as {NAME: VALUE}."""
    return dict(g[2:].split("=", 1) for g in gargs)
