#!/usr/bin/env python3
"""Generate the port table of a Verilated top from its V<top>.h.

Verilator declares each top-level port as VL_IN8(&name,msb,lsb), VL_OUTW(&name,msb,lsb,words),
etc. This script turns those lines into trn_bind_ports(V<top>&, trn::tb::PortTable&), which
binds every port by name, direction and width for the harness (lockstep, drivers, waves).

With --probes it also binds the ports of the top's unit instances (u_<name>, at any depth, through
generate scopes g_<name>[i]) that a Verilator configuration file made public (public_flat_rd, e.g.
rtl/core/core_probes.vlt): Verilator declares them in V<top>___024root.h as
`<type>/*msb:lsb*/ <top>__DOT__g_x__BRA__1__KET____DOT__u_<name>__DOT__<port>;`. Each is bound
read-only as "<top>.g_x[1].u_<name>.<port>", an input if the port's name ends in _i or _ni, an
output if it ends in _o, for the harness's probes (the lockstep at the unit boundaries inside a top).
Python standard library only.
"""
import argparse
import re
import sys
from pathlib import Path

PORT = re.compile(r"VL_(IN|OUT|INOUT)(8|16|64|W)?\(&(\w+),(\d+),(\d+)(?:,(\d+))?\);")
ROOT_SIG = re.compile(r"\b(CData|SData|IData|QData|VlWide<\d+>)\s*/\*(\d+):(\d+)\*/\s*(\w+);")


# a unit instance Verilator keeps as a class of its own (a module instantiated several times, too
# big to inline): `V<top>_<module>* __PVT__<path>;` in the header of the class that holds it
CELL = re.compile(r"\b(V\w+?)\*\s+__PVT__(\w+);")
SUB_PORT = re.compile(r"VL_(IN|OUT)(8|16|64|W)?\((\w+),(\d+),(\d+)(?:,(\d+))?\);")


def scope_name(path: str) -> str:
    """A Verilator hierarchical member name as the harness names it: a.g_x[1].u_y."""
    return ".".join(re.sub(r"__BRA__(\d+)__KET__$", r"[\1]", x) for x in path.split("__DOT__"))


def cells(header: Path, scope: str, access: str, includes: list) -> list:
    """The bind lines of the ports of the instances a class holds as classes of their own (and of
    theirs, recursively): "<scope>.<path>.<port>", read through `access`-><cell>-><port>."""
    try:
        text = header.read_text()
    except OSError as e:
        print(f"gen_ports: error: {header}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    lines = []
    for m in CELL.finditer(text):
        cls, member = m.group(1), m.group(2)
        sub = header.with_name(f"{cls}.h")
        if not sub.exists():
            continue
        if sub.name not in includes:
            includes.append(sub.name)
        path = scope + "." + scope_name(member) if scope else scope_name(member)
        ref = f"{access}->__PVT__{member}"
        sub_text = sub.read_text()
        for pm in SUB_PORT.finditer(sub_text):
            kind, size, name, msb, lsb = pm.group(1), pm.group(2), pm.group(3), int(pm.group(4)), int(pm.group(5))
            if lsb != 0 or not name.endswith(("_i", "_ni", "_o")):
                continue
            d = "Out" if kind == "OUT" else "In"
            store = f"{ref}->{name}.data()" if size == "W" else f"&{ref}->{name}"
            lines.append(f'  t.add("{path}.{name}", trn::tb::Dir::{d}, {msb - lsb + 1}, {store});')
        # the public ports of the instances inlined into that class: u_x__DOT__port, g_y__BRA__0__KET____DOT__u_x...
        for sm in ROOT_SIG.finditer(sub_text):
            kind, msb, lsb, member = sm.group(1), int(sm.group(2)), int(sm.group(3)), sm.group(4)
            parts = member.split("__DOT__")
            scopes = parts[:-1]
            if (not scopes or not scopes[-1].startswith("u_") or parts[-1].startswith("__") or lsb != 0
                    or not all(re.fullmatch(r"[ug]_\w+?(__BRA__\d+__KET__)?", x) for x in scopes)
                    or not parts[-1].endswith(("_i", "_ni", "_o"))):
                continue
            d = "Out" if parts[-1].endswith("_o") else "In"
            store = f"{ref}->{member}.data()" if kind.startswith("VlWide") else f"&{ref}->{member}"
            lines.append(f'  t.add("{path}.{scope_name(member)}", trn::tb::Dir::{d}, {msb - lsb + 1}, {store});')
        lines += cells(sub, path, ref, includes)
    return lines


def probes(root: Path, includes: list) -> list:
    """The bind lines of the public unit-instance ports in the root header, and of the instances
    kept as classes of their own."""
    try:
        text = root.read_text()
    except OSError as e:
        print(f"gen_ports: error: {root}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    lines = cells(root, "", "m.rootp", includes)
    for m in ROOT_SIG.finditer(text):
        kind, msb, lsb, member = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        parts = member.split("__DOT__")
        # <top>, then instances (u_<name>) and generate scopes (g_<name>, g_<name>[i]) down to a
        # unit instance, then the port
        scopes = parts[1:-1]
        if (len(parts) < 3 or not scopes[-1].startswith("u_") or parts[-1].startswith("__")
                or not all(re.fullmatch(r"[ug]_\w+?(__BRA__\d+__KET__)?", x) for x in scopes)
                or not parts[-1].endswith(("_i", "_ni", "_o"))):  # __V...: Verilator's own
            continue
        parts = [parts[0]] + [re.sub(r"__BRA__(\d+)__KET__$", r"[\1]", x) for x in scopes] + [parts[-1]]
        if lsb != 0:
            print(f"gen_ports: error: {root}: probe '{member}' has lsb {lsb}; ports must be [N-1:0]", file=sys.stderr)
            sys.exit(2)
        d = "Out" if parts[-1].endswith("_o") else "In"
        ref = f"m.rootp->{member}.data()" if kind.startswith("VlWide") else f"&m.rootp->{member}"
        lines.append(f'  t.add("{".".join(parts)}", trn::tb::Dir::{d}, {msb - lsb + 1}, {ref});')
    if not lines:
        print(f"gen_ports: error: {root}: --probes given but no public unit ports found "
              f"(is the probe .vlt on the Verilator command line?)", file=sys.stderr)
        sys.exit(2)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("header", type=Path, help="the Verilated V<top>.h")
    ap.add_argument("out", type=Path, help="the header to write")
    ap.add_argument("--probes", action="store_true", help="also bind the public ports of the unit instances")
    args = ap.parse_args()
    try:
        text = args.header.read_text()
    except OSError as e:
        print(f"gen_ports: error: {args.header}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    cls = args.header.stem
    lines = []
    for m in PORT.finditer(text):
        kind, size, name, msb, lsb = m.group(1), m.group(2), m.group(3), int(m.group(4)), int(m.group(5))
        if kind == "INOUT":
            print(f"gen_ports: error: {args.header}: inout port '{name}' is not supported", file=sys.stderr)
            sys.exit(2)
        if lsb != 0:
            print(f"gen_ports: error: {args.header}: port '{name}' has lsb {lsb}; ports must be [N-1:0]",
                  file=sys.stderr)
            sys.exit(2)
        width = msb - lsb + 1
        d = "In" if kind == "IN" else "Out"
        ref = f"m.{name}.data()" if size == "W" else f"&m.{name}"
        lines.append(f'  t.add("{name}", trn::tb::Dir::{d}, {width}, {ref});')
    if not lines:
        print(f"gen_ports: error: {args.header}: no ports found", file=sys.stderr)
        sys.exit(2)
    includes = [f'#include "{cls}.h"']
    if args.probes:
        root = args.header.with_name(f"{cls}___024root.h")
        subs: list = []
        lines += probes(root, subs)
        includes.append(f'#include "{root.name}"')
        includes += [f'#include "{h}"' for h in subs]
    out = "\n".join([
        f"// Generated by scripts/gen_ports.py from {cls}.h. Do not edit.",
        "#pragma once",
        *includes,
        '#include "harness/env.hpp"',
        "",
        f"inline void trn_bind_ports({cls}& m, trn::tb::PortTable& t) {{",
        *lines,
        "}",
        "",
    ])
    if not args.out.exists() or args.out.read_text() != out:
        args.out.write_text(out)


if __name__ == "__main__":
    main()
