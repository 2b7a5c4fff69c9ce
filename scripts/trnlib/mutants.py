"""Mutants of an RTL file, made from its syntax tree (pyslang), for scripts/mutate.

A mutant is one small change a designer's slip could make: a comparison or arithmetic operator
swapped (`<` for `<=`, `-` for `+`, `|` for `&`, `||` for `&&`), a constant off by one, a condition
inverted, an enable stuck at 1 or 0 (the conditions of always_ff), a case arm dropped. Only code
that runs in simulation is mutated: continuous assignments' right-hand sides and the statements of
always blocks and of the module's functions; never what must be constant (parameters, widths,
ranges, case labels, casts' sizes, replication counts, loop bounds), initial blocks, or the
assertions and their state (`ifndef SYNTHESIS). A package's functions are mutated too.

All the mutants of a file go into one copy of it, the mutant schema: each changed expression
becomes `((trn_mut_sel == K) ? (mutated) : (original))` and each dropped arm
`if (trn_mut_sel != K) begin ... end`, where trn_mut_sel is a variable each module of the file
declares and sets at time 0 from a plusarg, +TRN_MUTANT=K by default (0 is the design as
written; scripts/mutate names it per unit, +TRN_MUTANT_<UNIT>=K, so the schemas of several files
can share one build). So a bench is built once per file and runs every mutant by its plusarg; `single(K)`
is the plain mutated file, for reports and diffs.

Offsets are byte offsets into the file (pyslang's), so the file is handled as bytes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# unit -> (its RTL file, the benches whose tests judge its mutants). A file without a bench of its
# own is judged by the smallest top that holds it.
UNITS: dict[str, tuple[str, list[str]]] = {
    "stream_fifo": ("rtl/common/stream_fifo.sv", ["stream_fifo"]),
    "rr_arbiter": ("rtl/common/rr_arbiter.sv", ["rr_arbiter", "rr_arbiter_n3"]),
    "credit_counter": ("rtl/common/credit_counter.sv", ["credit_counter", "router_torus"]),
    "pipe_reg": ("rtl/common/pipe_reg.sv", ["fp32_add"]),
    "fp_decode": ("rtl/numerics/fp_decode.sv", ["fp_decode"]),
    "fp_encode": ("rtl/numerics/fp_encode.sv", ["fp_encode"]),
    "sr_rng": ("rtl/numerics/sr_rng.sv", ["sr_rng"]),
    "fp32_add": ("rtl/numerics/fp32_add.sv", ["fp32_add"]),
    "fp32_mul": ("rtl/numerics/fp32_mul.sv", ["fp32_mul"]),
    "fp_mul_narrow": ("rtl/numerics/fp_mul_narrow.sv", ["fp_mul_narrow"]),
    "mx_quantize": ("rtl/numerics/mx_quantize.sv", ["mx_quantize"]),
    "act_unit": ("rtl/scalar/act_unit.sv", ["act_unit"]),
    "psum": ("rtl/mem/psum.sv", ["tensor_engine"]),
    "tensor_engine": ("rtl/tensor/tensor_engine.sv", ["tensor_engine"]),
    "lane_engine": ("rtl/vector/lane_engine.sv", ["vector_engine", "scalar_engine"]),
    "dma_engine": ("rtl/dma/dma_engine.sv", ["dma_engine"]),
    "sbuf": ("rtl/mem/sbuf.sv", ["sbuf"]),
    "link_tx": ("rtl/link/link_tx.sv", ["link_pair"]),
    "link_rx": ("rtl/link/link_rx.sv", ["link_pair"]),
    "router": ("rtl/link/router.sv", ["router_torus", "router_torus_lh", "router_torus3d_lh", "router_switch",
                                      "torus_net", "torus3d_net", "switch_net"]),
    "link_chan": ("rtl/link/link_chan.sv", ["torus_net"]),
    "torus_net": ("rtl/link/torus_net.sv", ["torus_net", "torus3d_net"]),
    "switch_net": ("rtl/link/switch_net.sv", ["switch_net"]),
    "core": ("rtl/core/core.sv", ["core"]),
    "gpsimd_proc": ("rtl/gpsimd/gpsimd_proc.sv", ["gpsimd_proc"]),
    "gpsimd": ("rtl/gpsimd/gpsimd.sv", ["gpsimd"]),
    "core_ctl": ("rtl/core/core_ctl.sv", ["neuron_core"]),
    "sem_tap": ("rtl/core/sem_tap.sv", ["neuron_core"]),
    "neuron_core": ("rtl/core/neuron_core.sv", ["neuron_core"]),
    # the chip's files: the chip bench (one chip: its NIC has no peer), the ring of four chips,
    # where the NICs, the links and the chip's router carry traffic, and the switch of eight, whose
    # chips have one link and no router (chip.sv's direct path)
    "cc_core": ("rtl/chip/cc_core.sv", ["chip", "sys_ring4", "sys_switch8"]),
    "chip_xbar": ("rtl/chip/chip_xbar.sv", ["chip", "sys_ring4", "sys_switch8"]),
    "nic": ("rtl/chip/nic.sv", ["chip", "sys_ring4", "sys_switch8"]),
    "chip": ("rtl/chip/chip.sv", ["chip", "sys_ring4", "sys_switch8"]),
    "chip_torus": ("rtl/system/chip_torus.sv", ["sys_ring4"]),
    "chip_switch": ("rtl/system/chip_switch.sv", ["sys_switch8"]),
    # the packages' functions (the number formats' arithmetic is numerics_pkg's); router_pkg's and
    # chip_pkg's compute the wiring at elaboration only, constants a mutant cannot vary
    # (fmt_esize, the SBUF element size of a format, is the tensor and vector engines' alone)
    "numerics_pkg": ("rtl/numerics/numerics_pkg.sv", ["fp_decode", "fp_encode", "fp32_add", "fp32_mul",
                                                      "fp_mul_narrow", "mx_quantize", "tensor_engine",
                                                      "vector_engine"]),
    "act_pkg": ("rtl/scalar/act_pkg.sv", ["act_unit"]),
    "le_pkg": ("rtl/vector/le_pkg.sv", ["vector_engine", "scalar_engine"]),
    "te_pkg": ("rtl/tensor/te_pkg.sv", ["tensor_engine"]),
    "dma_pkg": ("rtl/dma/dma_pkg.sv", ["dma_engine", "sbuf", "chip"]),
    "sbuf_pkg": ("rtl/mem/sbuf_pkg.sv", ["sbuf", "tensor_engine", "vector_engine", "scalar_engine"]),
}

SEL = "trn_mut_sel"

# operator swaps: the node kind's operator -> its mutant
SWAPS = {
    "AddExpression": "-", "SubtractExpression": "+",
    "EqualityExpression": "!=", "InequalityExpression": "==",
    "CaseEqualityExpression": "!==", "CaseInequalityExpression": "===",
    "LessThanExpression": "<=", "LessThanEqualExpression": "<",
    "GreaterThanExpression": ">=", "GreaterThanEqualExpression": ">",
    "LogicalAndExpression": "||", "LogicalOrExpression": "&&",
    "BinaryAndExpression": "|", "BinaryOrExpression": "&", "BinaryXorExpression": "&",
    "LogicalShiftLeftExpression": ">>", "LogicalShiftRightExpression": "<<",
    "MultiplyExpression": "+",
}
KINDS = ("operator", "constant", "condition", "stuck1", "stuck0", "arm", "hand")


@dataclass
class Mutant:
    id: int
    kind: str        # one of KINDS
    line: int
    col: int
    what: str        # e.g. "`+` -> `-` in `count_q + 1'b1`"
    key: str = ""    # line-independent identity: kind, original text, mutated text (equivalence list)


@dataclass
class _Site:
    start: int
    end: int
    stmt: bool = False
    # (mutant id, renderer of its text given a range renderer)
    alts: list[tuple[int, Callable]] = field(default_factory=list)


class MutantFile:
    """The mutants of one RTL file and the copies that carry them."""

    def __init__(self, path: Path, syntax, ff_stuck: bool = True, hand: list[tuple[str, str]] = (),
                 plusarg: str = "TRN_MUTANT"):
        self.path = Path(path)
        self.plusarg = plusarg
        self.src = self.path.read_bytes()
        self.syntax = syntax
        self.ff_stuck = ff_stuck
        self.sites: dict[tuple[int, int, bool], _Site] = {}
        self.mutants: list[Mutant] = []
        self.module_heads: list[int] = []   # where each module's trn_mut_sel declaration goes
        self.package_heads: list[int] = []  # the same in a package
        # simulation-only code (`ifndef SYNTHESIS: the assertions and their state) is the checker,
        # not the design: not mutated
        self.skip: list[tuple[int, int]] = []
        depth, start = 0, -1
        for m in re.finditer(rb"`(ifndef|ifdef|endif)\b\s*(\w*)", self.src):
            if m.group(1) == b"ifndef" and m.group(2) == b"SYNTHESIS" and depth == 0:
                start, depth = m.start(), 1
            elif depth and m.group(1) in (b"ifdef", b"ifndef"):
                depth += 1
            elif depth and m.group(1) == b"endif":
                depth -= 1
                if depth == 0:
                    self.skip.append((start, m.end()))
        tree = syntax.SyntaxTree.fromFile(str(self.path))
        self._lines = [0]
        for i, b in enumerate(self.src):
            if b == 0x0A:
                self._lines.append(i + 1)
        for m in tree.root.members:
            if self._k(m) == "ModuleDeclaration":
                self._module(m)
            elif self._k(m) == "PackageDeclaration":
                self.package_heads.append(self._rng(m.header)[1])
                for item in m.members:
                    if self._k(item) == "FunctionDeclaration":
                        self._member(item)
        for old, new in hand:
            self._hand(old, new)
        self._ordered = sorted(self.sites.values(), key=lambda s: (s.start, -s.end, not s.stmt))

    # ---- the tree walk ---------------------------------------------------------------------------
    @staticmethod
    def _k(n) -> str:
        return str(n.kind).split(".")[-1]

    def _node(self, x) -> bool:
        return isinstance(x, self.syntax.SyntaxNode)

    def _children(self, n):
        return [n[i] for i in range(len(n)) if n[i] is not None and self._node(n[i])]

    def _rng(self, n) -> tuple[int, int]:
        r = n.sourceRange
        return r.start.offset, r.end.offset

    def _text(self, n) -> str:
        a, b = self._rng(n)
        return self.src[a:b].decode(errors="replace")

    def _pos(self, off: int) -> tuple[int, int]:
        lo, hi = 0, len(self._lines) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._lines[mid] <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, off - self._lines[lo] + 1

    def _add(self, node_or_rng, kind: str, what: str, key: str, render, stmt: bool = False) -> None:
        a, b = node_or_rng if isinstance(node_or_rng, tuple) else self._rng(node_or_rng)
        if any(lo <= a < hi for lo, hi in self.skip):
            return
        site = self.sites.setdefault((a, b, stmt), _Site(a, b, stmt))
        mid = len(self.mutants) + 1
        line, col = self._pos(a)
        # the key names the mutant without its line number: the line's text, the change, and which
        # of that line's equal changes it is
        text = self.src[self._lines[line - 1]:self.src.find(b"\n", a) if b"\n" in self.src[a:] else len(self.src)]
        base = f"{kind}|{' '.join(text.decode(errors='replace').split())}|{key}"
        n = sum(1 for m in self.mutants if m.key.rsplit("#", 1)[0] == base)
        self.mutants.append(Mutant(mid, kind, line, col, what, base + (f"#{n + 1}" if n else "")))
        site.alts.append((mid, render))

    def _hand(self, old: str, new: str) -> None:
        """A mutant written by hand (tb/mutants_hand.toml): the one occurrence of the expression
        `old` in the design's code becomes `new`, after the generated mutants (their ids stay)."""
        ob = old.encode()
        hits = [m.start() for m in re.finditer(re.escape(ob), self.src)
                if not any(lo <= m.start() < hi for lo, hi in self.skip)]
        if len(hits) != 1:
            raise ValueError(f"{self.path.name}: hand-written mutant: `{old}` occurs {len(hits)} times in the "
                             "design's code, not once")
        a, b = hits[0], hits[0] + len(ob)
        for s in self.sites.values():
            if s.start < a < s.end < b or a < s.start < b < s.end:
                raise ValueError(f"{self.path.name}: hand-written mutant: `{old}` is not an expression "
                                 "(it cuts one of the generated mutants' expressions)")
        self._add((a, b), "hand", f"`{old}` -> `{new}` (written by hand)", f"{old}|{new}",
                  lambda R, orig, t=new: t)

    def _module(self, m) -> None:
        self.module_heads.append(self._rng(m.header)[1])
        for item in m.members:
            self._member(item)

    def _member(self, n) -> None:
        k = self._k(n)
        if k == "ContinuousAssign":
            for a in n.assignments:
                if self._node(a) and hasattr(a, "right"):
                    self._expr(a.right)
        elif k in ("AlwaysCombBlock", "AlwaysFFBlock", "AlwaysBlock", "AlwaysLatchBlock"):
            self._stmt(n.statement, ff=(k == "AlwaysFFBlock"))
        elif k in ("FunctionDeclaration", "TaskDeclaration"):
            for it in n.items:
                if self._node(it):
                    self._stmt(it, ff=False)
        elif k in ("LoopGenerate", "IfGenerate", "CaseGenerate", "GenerateRegion", "GenerateBlock",
                   "ElseClause"):
            # a generate block's items are its members (its children hold them too: walked once)
            for c in (self._children(n) if k != "GenerateBlock" else []):
                ck = self._k(c)
                # a generate construct's own header is constant: only its blocks and members
                if ck in ("GenerateBlock", "ElseClause") or ck.endswith(("Block", "Declaration", "Assign")) \
                        or ck in ("LoopGenerate", "IfGenerate", "CaseGenerate", "HierarchyInstantiation"):
                    self._member(c)
                elif ck.endswith("SyntaxList") or ck == "SyntaxList":
                    for cc in self._children(c):
                        self._member(cc)
            if k == "GenerateBlock":
                for it in n.members:
                    self._member(it)
        # declarations, instances, parameters, initial/final blocks and assertions: not mutated

    def _stmt(self, n, ff: bool) -> None:
        if n is None or not self._node(n):
            return
        k = self._k(n)
        if k == "SequentialBlockStatement" or k == "ParallelBlockStatement":
            for it in n.items:
                if self._node(it):
                    self._stmt(it, ff)
        elif k == "TimingControlStatement":
            self._stmt(n.statement, ff)
        elif k == "ConditionalStatement":
            for c in n.predicate.conditions:
                if self._node(c) and hasattr(c, "expr"):
                    e = c.expr
                    t = self._text(e)
                    if "rst" not in t:   # reset conditions: every test kills their mutants at once
                        self._add(e, "condition", f"condition `{t}` inverted", t,
                                  lambda R, o: f"!({o})")
                        if ff and self.ff_stuck:
                            self._add(e, "stuck1", f"enable `{t}` stuck at 1", t, lambda R, o: "1'b1")
                            self._add(e, "stuck0", f"enable `{t}` stuck at 0", t, lambda R, o: "1'b0")
                    self._expr(e)
            self._stmt(n.statement, ff)
            if n.elseClause is not None:
                self._stmt(n.elseClause.clause, ff)
        elif k == "CaseStatement":
            self._expr(n.expr)
            for it in n.items:
                if not self._node(it):
                    continue
                ik = self._k(it)
                if ik in ("StandardCaseItem", "DefaultCaseItem"):
                    cl = it.clause
                    if ik == "StandardCaseItem" and self._node(cl):
                        labels = ", ".join(self._text(e) for e in it.expressions if self._node(e))
                        self._add(cl, "arm", f"case arm `{labels}:` dropped", labels, lambda R, o: ";", stmt=True)
                    self._stmt(cl, ff)
        elif k in ("ForLoopStatement", "ForeachLoopStatement", "WhileLoopStatement", "RepeatLoopStatement",
                   "ForeverStatement", "DoWhileStatement"):
            self._stmt(n.statement, ff)   # the loop's header bounds the unrolling: not mutated
        elif k == "ExpressionStatement":
            e = n.expr
            ek = self._k(e)
            if ek in ("AssignmentExpression", "NonblockingAssignmentExpression") or ek.endswith("AssignmentExpression"):
                self._expr(e.right)
        elif k == "ReturnStatement":
            if n.returnValue is not None:
                self._expr(n.returnValue)
        # declarations, assertions, system task calls, others: not mutated

    def _expr(self, e) -> None:
        if e is None or not self._node(e):
            return
        k = self._k(e)
        if k in SWAPS and hasattr(e, "operatorToken"):
            op = e.operatorToken.rawText
            new = SWAPS[k]
            t = self._text(e)
            # parentheses around the whole keep it one operand of what holds it, and around an
            # operand that is itself a binary operation keep it whole under a tighter operator
            la, ra = self._rng(e.left), self._rng(e.right)
            pl = ("(", ")") if hasattr(e.left, "operatorToken") and hasattr(e.left, "right") else ("", "")
            pr = ("(", ")") if hasattr(e.right, "operatorToken") and hasattr(e.right, "right") else ("", "")
            self._add(e, "operator", f"`{op}` -> `{new}` in `{t}`", f"{t}|{new}",
                      lambda R, o, la=la, ra=ra, new=new, pl=pl, pr=pr: f"({pl[0]}{R(*la)}{pl[1]} {new} {pr[0]}{R(*ra)}{pr[1]})")
            self._expr(e.left)
            self._expr(e.right)
        elif k == "ConditionalExpression":
            for c in e.predicate.conditions:
                if self._node(c) and hasattr(c, "expr"):
                    p = c.expr
                    t = self._text(p)
                    if "rst" not in t:
                        self._add(p, "condition", f"condition `{t}` inverted", t,
                                  lambda R, o: f"!({o})")
                    self._expr(p)
            self._expr(e.left)
            self._expr(e.right)
        elif k in ("IntegerVectorExpression", "IntegerLiteralExpression", "UnbasedUnsizedLiteralExpression"):
            t = self._text(e).strip()
            new = off_by_one(t)
            if new is not None:
                self._add(e, "constant", f"constant `{t}` -> `{new}`", f"{t}|{new}", lambda R, o, new=new: new)
        elif k == "InvocationExpression":
            name = self._text(e.left).strip()
            if name.startswith("$") and name not in ("$signed", "$unsigned"):
                return   # $clog2, $bits, ...: constant
            if e.arguments is not None:
                for p in e.arguments.parameters:
                    if self._node(p) and hasattr(p, "expr"):
                        self._expr(p.expr)
        elif k == "CastExpression":
            self._expr(e.right)   # the size or type cast to is constant
        elif k == "MultipleConcatenationExpression":
            self._expr(e.concatenation)   # the count is constant
        elif k in ("IdentifierSelectName", "ElementSelectExpression"):
            sels = e.selectors if k == "IdentifierSelectName" else [e.select]
            if k == "ElementSelectExpression":
                self._expr(e.left)
            for s in sels:
                if not self._node(s):
                    continue
                sel = s.selector
                if sel is None:
                    continue
                sk = self._k(sel)
                if sk == "BitSelect":
                    self._expr(sel.expr)
                elif sk in ("AscendingRangeSelect", "DescendingRangeSelect"):
                    self._expr(sel.left)   # the start moves at run time, the width is constant
        elif k in ("AssignmentPatternExpression", "StreamingConcatenationExpression", "MemberAccessExpression",
                   "ScopedName", "IdentifierName", "SimpleAssignmentPattern"):
            return
        else:
            for c in self._children(e):
                ck = self._k(c)
                if ck.endswith("Expression") or ck in ("ConcatenationExpression", "SeparatedList", "SyntaxList") \
                        or ck.endswith("Name"):
                    if ck in ("SeparatedList", "SyntaxList"):
                        for cc in self._children(c):
                            self._expr(cc)
                    else:
                        self._expr(c)

    # ---- the copies ------------------------------------------------------------------------------
    def _render(self, lo: int, hi: int, mode, skip: _Site | None = None) -> str:
        out, cur = [], lo
        for s in self._ordered:
            # (one site a range and kind: sites that share them are merged when made)
            if s is skip or s.start < cur or s.end > hi or s.start < lo:
                continue
            out.append(self.src[cur:s.start].decode(errors="replace"))
            out.append(self._site(s, mode))
            cur = s.end
        out.append(self.src[cur:hi].decode(errors="replace"))
        return "".join(out)

    def _site(self, s: _Site, mode) -> str:
        orig = self._render(s.start, s.end, mode, skip=s)

        def R(a, b):
            return self._render(a, b, mode)

        if mode == "schema":
            if s.stmt:
                ids = " && ".join(f"{SEL} != 32'd{mid}" for mid, _ in s.alts)
                return f"if ({ids}) begin {orig} end"
            text = "(" + "".join(f"({SEL} == 32'd{mid}) ? ({r(R, orig)}) : " for mid, r in s.alts) + f"({orig}))"
            return text
        for mid, r in s.alts:
            if mid == mode:
                return r(R, orig) if not s.stmt else "/* arm dropped */ ;"
        return orig

    def schema(self) -> str:
        """The file with every mutant in it, selected by +<plusarg>=K."""
        pa = self.plusarg
        mdecl = (f"\n  int unsigned {SEL};  // scripts/mutate: the mutant running (0: none)\n"
                 f"  initial begin if (!$value$plusargs(\"{pa}=%d\", {SEL})) {SEL} = 0; end\n")
        # a package has no initial block: its variable's initializer reads the plusarg at time 0
        pdecl = (f"\n  function automatic int unsigned {SEL}_read();  // scripts/mutate\n"
                 f"    int unsigned v;\n    if (!$value$plusargs(\"{pa}=%d\", v)) v = 0;\n    return v;\n"
                 f"  endfunction\n  int unsigned {SEL} = {SEL}_read();\n")
        # each module's declaration right after its header (no site spans a header's end)
        heads = sorted([(h, mdecl) for h in self.module_heads] + [(h, pdecl) for h in self.package_heads])
        cuts = [0] + [h for h, _ in heads] + [len(self.src)]
        parts = [self._render(cuts[i], cuts[i + 1], "schema") for i in range(len(cuts) - 1)]
        out = parts[0]
        for (_, d), p in zip(heads, parts[1:]):
            out += d + p
        return out

    def single(self, mid: int) -> str:
        """The file with mutant `mid` alone, as a designer would have written it."""
        return self._render(0, len(self.src), mid)


def load_hand(path: Path) -> dict[str, list[tuple[str, str]]]:
    """tb/mutants_hand.toml: unit -> [(expression, replacement)], in the file's order. ValueError
    names the entry at fault."""
    import tomllib
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: malformed TOML: {e}")
    out: dict[str, list[tuple[str, str]]] = {}
    for i, e in enumerate(data.get("mutant", [])):
        for k in ("unit", "old", "new", "why"):
            if not isinstance(e.get(k), str) or not e[k]:
                raise ValueError(f"{path}: mutant #{i + 1}: '{k}' must be a non-empty string")
        if e["unit"] not in UNITS:
            raise ValueError(f"{path}: mutant #{i + 1}: unknown unit '{e['unit']}'")
        out.setdefault(e["unit"], []).append((e["old"], e["new"]))
    return out


def off_by_one(t: str) -> str | None:
    """A literal one away (0 -> 1, n -> n-1; '0 <-> '1), or None for what is not a plain number."""
    if t in ("'0", "'1"):
        return "'1" if t == "'0" else "'0"
    if t.isdigit():
        v = int(t)
        return str(1 if v == 0 else v - 1)
    if "'" in t:
        size, _, rest = t.partition("'")
        rest = rest.replace("_", "")
        signed = rest[:1] in ("s", "S")
        if signed:
            rest = rest[1:]
        base, digits = rest[:1].lower(), rest[1:]
        radix = {"b": 2, "o": 8, "d": 10, "h": 16}.get(base)
        if radix is None or not digits or any(c in "xXzZ?" for c in digits):
            return None
        try:
            v = int(digits, radix)
        except ValueError:
            return None
        w = int(size) if size.strip().isdigit() else None
        nv = 1 if v == 0 else v - 1
        if w is not None and nv >= (1 << w):
            return None
        s = "s" if signed else ""
        if base == "b":
            body = format(nv, "b")
        elif base == "h":
            body = format(nv, "x")
        elif base == "o":
            body = format(nv, "o")
        else:
            body = str(nv)
        return f"{size}'{s}{base}{body}"
    return None
