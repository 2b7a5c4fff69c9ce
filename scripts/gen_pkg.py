#!/usr/bin/env python3
"""Generate the C++ mirror of the typed interfaces of SystemVerilog packages.

A unit's ports that other units wire (commands, descriptors, requests, responses, error codes) are
packed structs and enums in its package, rtl/<unit>/<unit>_pkg.sv. That package is the one
description: this script reads its `typedef enum` and `typedef struct packed` declarations (with
the package's integer localparams for widths) and writes <out>/<pkg>.hpp, where the model and the
harness find the same types:

  namespace trn::sv::<pkg> {
    enum class <name>_e : uint8_t { <Label> = <value>, ... };
    struct <name>_t {
      static constexpr unsigned kWidth = ...;      // bits of the packed struct
      <type> <field> = 0; ...                      // bool, uint8..64, Bits (> 64), enum or struct
      template <class V> void visit(V&& v);        // v(name, field, width, lsb) per field
      void pack(Bits& to, unsigned lsb = 0) const; // into bits [lsb, lsb + kWidth) of a vector
      static <name>_t unpack(const Bits& from, unsigned lsb = 0);
      bool operator==(const <name>_t&) const = default;
    };
  }

The first field of a packed struct is its most significant one, as in SystemVerilog. Every struct
and enum of the package is generated; a field whose type the script cannot read is an error naming
the file and line.

It also writes <out>/enums.cmake: every enum label as the sized literal Verilator's -G takes
(set(TRN_SV_ENUM_<pkg>__<Label> "<width>'d<value>")), for CMake's trn_bench.

With --modules, it also writes the port list of each RTL module, <out>/ports/<module>.hpp, read
from the module's header (its parameters, the header's localparams, its imports and its ports):

  namespace trn::sv::ports {
    struct <module> {
      struct Params { <type> <Param> = <default>; ... };   // the module's parameters
      template <class In, class V> static void visit_in(const Params& p, In& in, V&& v);
      template <class Out, class V> static void visit_out(const Params& p, Out& out, V&& v);
    };
  }

visit_in calls v("<port>", in.<port>, width) for every input but the clock, visit_out the same for
every output, in the order of the header, the widths computed from the parameters as the RTL
computes them (a struct's or enum's width from its package). A model names its In/Out members
after the ports and fills Params from its own parameters; the lockstep then checks the widths
against the Verilated top. Python standard library only.
"""
import argparse
import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_]\w*"


def fail(msg: str) -> None:
    print(f"gen_pkg: error: {msg}", file=sys.stderr)
    sys.exit(2)


def strip_comments(text: str) -> str:
    """Remove // and /* */ comments, keeping line numbers."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


class Package:
    def __init__(self, path: Path, known: dict[str, "Package"] | None = None):
        """known: the packages read before this one (its `import p::name;` and `import p::*;`)."""
        self.path = path
        self.known = known or {}
        self.imported: dict[str, int] = {}  # integer constants imported from other packages
        self.params: dict[str, int] = {}
        self.enums: dict[str, tuple[int, list[tuple[str, int]]]] = {}
        self.structs: dict[str, list[tuple[str, str, int]]] = {}  # field: (name, type, width)
        self.order: list[tuple[str, str]] = []  # ("enum" | "struct", name) in file order
        text = strip_comments(path.read_text())
        m = re.search(rf"\bpackage\s+({IDENT})\s*;", text)
        if not m:
            fail(f"{path}: no 'package <name>;'")
        self.name = m.group(1)
        self.text = text
        self.parse()

    def where(self, pos: int) -> str:
        return f"{self.path}:{self.text.count(chr(10), 0, pos) + 1}"

    def eval_int(self, expr: str, pos: int) -> int:
        e = expr.strip()
        e = re.sub(r"\d*'[sS]?[dD](\d+)", r"\1", e)
        e = re.sub(r"\d*'[sS]?[hH]([0-9a-fA-F_]+)", lambda m: str(int(m.group(1).replace("_", ""), 16)), e)
        e = re.sub(r"\d*'[sS]?[bB]([01_]+)", lambda m: str(int(m.group(1).replace("_", ""), 2)), e)

        def bits(m: re.Match) -> str:
            t = m.group(1)
            if t in self.structs:
                return str(sum(f[2] for f in self.structs[t]))
            if t in self.enums:
                return str(self.enums[t][0])
            fail(f"{self.where(pos)}: $bits({t}): not a struct or enum declared earlier in {self.name}")
            return ""

        e = re.sub(rf"\$bits\s*\(\s*({IDENT})\s*\)", bits, e)

        def name(m: re.Match) -> str:
            if m.group(0) in self.params:
                return str(self.params[m.group(0)])
            if m.group(0) in self.imported:
                return str(self.imported[m.group(0)])
            fail(f"{self.where(pos)}: '{m.group(0)}' is not an integer localparam of {self.name} or one it imports")
            return ""

        e = re.sub(IDENT, name, e)
        if not re.fullmatch(r"[\d\s+\-*/()%]+", e):
            fail(f"{self.where(pos)}: cannot evaluate '{expr.strip()}'")
        return int(eval(e.replace("/", "//")))  # noqa: S307 -- digits and arithmetic only

    def range_width(self, rng: str | None, pos: int) -> int:
        if not rng:
            return 1
        m = re.fullmatch(r"\[(.+):(.+)\]", rng.replace(" ", ""))
        if not m:
            fail(f"{self.where(pos)}: cannot read the range '{rng}'")
        hi, lo = self.eval_int(m.group(1), pos), self.eval_int(m.group(2), pos)
        if lo != 0 or hi < 0:
            fail(f"{self.where(pos)}: ranges must be [N-1:0], not '{rng}'")
        return hi + 1

    def parse(self) -> None:
        for m in re.finditer(rf"\bimport\s+({IDENT})\s*::\s*(\*|{IDENT})\s*;", self.text):
            if m.group(1) not in self.known:
                continue  # a package not given (a generated table): a name used from it is an error below
            other = self.known[m.group(1)]
            if m.group(2) == "*":
                self.imported.update(other.params)
            elif m.group(2) in other.params:
                self.imported[m.group(2)] = other.params[m.group(2)]
        decl = re.compile(
            rf"localparam\s+(?:int\s+unsigned|int|integer)\s+({IDENT})\s*=\s*([^;]+);"
            rf"|typedef\s+enum\s+logic\s*(\[[^\]]+\])?\s*\{{([^}}]*)\}}\s*({IDENT})\s*;"
            rf"|typedef\s+struct\s+packed\s*\{{([^}}]*)\}}\s*({IDENT})\s*;", re.S)
        for m in decl.finditer(self.text):
            pos = m.start()
            if m.group(1):
                # `localparam int A = 1, B = 2;` declares several
                first, *more = re.split(r",", m.group(2))
                self.params[m.group(1)] = self.eval_int(first, pos)
                for item in more:
                    im = re.fullmatch(rf"\s*({IDENT})\s*=\s*(.+?)\s*", item, re.S)
                    if not im:
                        fail(f"{self.where(pos)}: cannot read the localparam '{item.strip()}'")
                    self.params[im.group(1)] = self.eval_int(im.group(2), pos)
            elif m.group(5):
                width = self.range_width(m.group(3), pos)
                labels = []
                nxt = 0
                for item in filter(None, (s.strip() for s in m.group(4).split(","))):
                    lm = re.fullmatch(rf"({IDENT})\s*(?:=\s*(.+))?", item, re.S)
                    if not lm:
                        fail(f"{self.where(pos)}: cannot read the enum item '{item}'")
                    val = self.eval_int(lm.group(2), pos) if lm.group(2) else nxt
                    labels.append((lm.group(1), val))
                    nxt = val + 1
                self.enums[m.group(5)] = (width, labels)
                self.order.append(("enum", m.group(5)))
            else:
                fields = []
                body_pos = m.start(6)
                for line in m.group(6).split(";"):
                    if not line.strip():
                        continue
                    fpos = body_pos + m.group(6).find(line) + len(line) - len(line.lstrip())
                    fm = re.fullmatch(rf"\s*({IDENT})\s*(?:signed\s*)?(\[[^\]]+\])?\s*({IDENT}(?:\s*,\s*{IDENT})*)\s*", line)
                    if not fm:
                        fail(f"{self.where(fpos)}: cannot read the field '{line.strip()}'")
                    typ, rng, names = fm.group(1), fm.group(2), fm.group(3)
                    if typ == "logic":
                        width, kind = self.range_width(rng, fpos), "logic"
                    elif typ in self.enums and not rng:
                        width, kind = self.enums[typ][0], typ
                    elif typ in self.structs and not rng:
                        width, kind = sum(f[2] for f in self.structs[typ]), typ
                    else:
                        fail(f"{self.where(fpos)}: field type '{typ}{rng or ''}' is not logic[N-1:0] or an "
                             f"enum or struct declared earlier in {self.name}")
                    for n in re.split(r"\s*,\s*", names.strip()):
                        fields.append((n, kind, width))
                self.structs[m.group(7)] = fields
                self.order.append(("struct", m.group(7)))


# ---------------------------------------------------------------------------------------------
# Module headers: parameters and ports.

def split_top(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside parentheses, brackets and braces."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def matching(text: str, i: int) -> int:
    """Index of the parenthesis closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


class Module:
    """A module header: imports, parameters (with defaults), header localparams, ports."""

    def __init__(self, path: Path, packages: dict[str, Package]):
        self.path = path
        self.packages = packages
        text = strip_comments(path.read_text())
        self.text = text
        m = re.search(rf"\bmodule\s+({IDENT})", text)
        if not m:
            fail(f"{path}: no 'module <name>'")
        self.name = m.group(1)
        pos = m.end()
        # imports, then #( parameters ), then ( ports )
        self.imports: list[tuple[str, str]] = []  # (package, name or *)
        while True:
            im = re.compile(rf"\s*import\s+({IDENT})\s*::\s*(\*|{IDENT})\s*;").match(text, pos)
            if not im:
                break
            if im.group(1) not in packages:
                fail(f"{self.where(im.start(1))}: package '{im.group(1)}' was not given to gen_pkg.py")
            self.imports.append((im.group(1), im.group(2)))
            pos = im.end()
        self.params: list[tuple[str, str, str, int]] = []  # (kind parameter|localparam, type, name, expr pos)
        self.param_expr: dict[str, str] = {}
        self.enum_params: set[str] = set()
        pm = re.compile(r"\s*#\s*\(").match(text, pos)
        if pm:
            start = pm.end() - 1
            end = matching(text, start)
            body_pos = start + 1
            for item in split_top(text[start + 1:end]):
                ipos = body_pos + len(item) - len(item.lstrip())
                body_pos += len(item) + 1
                if not item.strip():
                    continue
                dm = re.fullmatch(rf"\s*(parameter|localparam)\s+(int\s+unsigned|int|integer|(?:bit|logic)(?:\s*\[[^\]]+\])?"
                                  rf"|{IDENT}(?:\s*::\s*{IDENT})?)\s+({IDENT})\s*=\s*(.+?)\s*", item, re.S)
                if not dm:
                    fail(f"{self.where(ipos)}: cannot read the parameter '{item.strip()}'")
                typ = re.sub(r"\s+", " ", dm.group(2))
                if re.match(r"(bit|logic)\b", typ):
                    typ = "logic"  # a vector parameter: an integer in C++
                self.params.append((dm.group(1), typ, dm.group(3), ipos))
                if typ not in ("int unsigned", "int", "integer", "bit", "logic"):
                    self.enum_params.add(dm.group(3))
                self.param_expr[dm.group(3)] = dm.group(4)
            pos = end + 1
        po = re.compile(r"\s*\(").match(text, pos)
        if not po:
            fail(f"{self.where(pos)}: module {self.name}: no port list")
        start = po.end() - 1
        end = matching(text, start)
        self.ports: list[tuple[str, str, str, list[tuple[str, str]], int]] = []  # dir, type, name, dims, pos
        body_pos = start + 1
        for item in split_top(text[start + 1:end]):
            ipos = body_pos + len(item) - len(item.lstrip())
            body_pos += len(item) + 1
            if not item.strip():
                continue
            dm = re.fullmatch(rf"\s*(input|output)\s+(logic|bit|wire|{IDENT}(?:\s*::\s*{IDENT})?)\s*((?:\[[^\]]+\]\s*)*)"
                              rf"({IDENT})\s*(\[.*)?", item, re.S)
            if not dm:
                fail(f"{self.where(ipos)}: cannot read the port '{item.strip()}'")
            if dm.group(5):
                fail(f"{self.where(ipos)}: port '{dm.group(4)}' has an unpacked dimension; a top's ports are packed")
            dims = []
            for d in re.findall(r"\[([^\]]+)\]", dm.group(3)):
                hl = split_top(d, ":")
                if len(hl) != 2:
                    fail(f"{self.where(ipos)}: port '{dm.group(4)}': cannot read the range '[{d}]'")
                dims.append((hl[0].strip(), hl[1].strip()))
            self.ports.append((dm.group(1), re.sub(r"\s+", "", dm.group(2)), dm.group(4), dims, ipos))

    def where(self, pos: int) -> str:
        return f"{self.path}:{self.text.count(chr(10), 0, pos) + 1}"

    def lookup(self, name: str, pos: int) -> tuple[str, str]:
        """The package and kind ('param', 'enum', 'struct', 'label') of an imported name."""
        for pkg, what in self.imports:
            if what not in ("*", name):
                continue
            p = self.packages[pkg]
            if name in p.params:
                return pkg, "param"
            if name in p.enums:
                return pkg, "enum"
            if name in p.structs:
                return pkg, "struct"
            for en, (_, labels) in p.enums.items():
                if any(lab == name for lab, _ in labels):
                    return pkg, f"label:{en}"
        fail(f"{self.where(pos)}: '{name}' is neither a parameter of {self.name} nor a name its imports give")
        return "", ""

    def type_width(self, typ: str, pos: int) -> str:
        """C++ expression of a named type's width."""
        if "::" in typ:
            pkg, name = typ.split("::")
            if pkg not in self.packages:
                fail(f"{self.where(pos)}: package '{pkg}' was not given to gen_pkg.py")
            p = self.packages[pkg]
        else:
            pkg, kind = self.lookup(typ, pos)
            name = typ
            p = self.packages[pkg]
        if name in p.structs:
            return f"sv::{pkg}::{name}::kWidth"
        if name in p.enums:
            return f"sv::{pkg}::{name}_width"
        fail(f"{self.where(pos)}: '{typ}' is not a struct or enum of {pkg}")
        return ""

    def cxx(self, expr: str, pos: int, params: set[str], local: set[str]) -> str:
        """A SystemVerilog constant expression as C++ over `p` (the parameters) and the locals."""
        e = expr.strip()
        e = re.sub(r"\d*'[sS]?[dD](\d+)", r"\1", e)
        e = re.sub(r"\d*'[sS]?[hH]([0-9a-fA-F_]+)", lambda m: str(int(m.group(1).replace("_", ""), 16)), e)
        e = re.sub(r"\d*'[sS]?[bB]([01_]+)", lambda m: str(int(m.group(1).replace("_", ""), 2)), e)
        e = re.sub(r"\$bits\s*\(\s*([\w:]+)\s*\)", lambda m: "@" + self.type_width(m.group(1), pos) + "@", e)
        if re.search(r"\*\*|\$(?!clog2)|'", e):
            fail(f"{self.where(pos)}: cannot translate '{expr.strip()}' (supported: integers, parameters, "
                 f"package constants, + - * / % << >> comparisons ?:, $clog2, $bits)")
        parts = re.split(r"(@[^@]*@)", e)
        out = []
        for part in parts:
            if part.startswith("@"):
                out.append(part[1:-1])
                continue

            def name(m: re.Match) -> str:
                n = m.group(0)
                if n == "$clog2":
                    return "trn::clog2"
                if n in params:
                    return f"p.{n}" if n not in self.enum_params else f"static_cast<long long>(p.{n})"
                if n in local:
                    return n
                pkg, kind = self.lookup(n, pos)
                if kind == "param":
                    return f"sv::{pkg}::{n}"
                if kind.startswith("label:"):
                    return f"static_cast<long long>(sv::{pkg}::{kind[6:]}::{n})"
                fail(f"{self.where(pos)}: '{n}' is a type, not a value")
                return ""

            out.append(re.sub(r"\$clog2|[A-Za-z_]\w*", name, part))
        return "".join(out)

    def range_width(self, hi: str, lo: str, pos: int, params: set[str], local: set[str]) -> str:
        """C++ expression of the width of [hi:lo], as plain as it can be written."""
        h, l_ = self.cxx(hi, pos, params, local), self.cxx(lo, pos, params, local)
        if re.fullmatch(r"\d+", h) and re.fullmatch(r"\d+", l_):
            return str(abs(int(h) - int(l_)) + 1)
        if l_ == "0":
            m = re.fullmatch(r"(.+?)\s*-\s*1", h)
            if m and not re.search(r"[?<>=&|]", m.group(1)) and h.count("(") == h.count(")"):
                return m.group(1) if re.fullmatch(r"[\w.:]+", m.group(1)) else f"({m.group(1)})"
            return f"({h} + 1)"
        return f"(({h}) - ({l_}) + 1)"

    def emit(self) -> str:
        params = {n for k, _, n, _ in self.params if k == "parameter"}
        local: set[str] = set()
        out = [f"// Generated by scripts/gen_pkg.py from {self.path.name} (module {self.name}). Do not edit.",
               "#pragma once", "", "#include \"common/clog2.hpp\""]
        for pkg in sorted({p for p, _ in self.imports}):
            out.append(f'#include "sv/{pkg}.hpp"')
        out += ["", "namespace trn::sv::ports {", "",
                f"/// The ports of module {self.name} ({self.path.name}), for the lockstep and the probes.",
                f"struct {self.name} {{", "  struct Params {"]
        earlier: set[str] = set()  # a default may name an earlier parameter (a member of Params)
        for kind, typ, n, pos in self.params:
            if kind != "parameter":
                continue
            default = self.cxx(self.param_expr[n], pos, set(), earlier)
            earlier.add(n)
            if typ in ("int unsigned", "int", "integer", "bit", "logic"):
                out.append(f"    long long {n} = {default};")
            else:
                ctype = self.type_width(typ, pos).replace("_width", "")
                out.append(f"    {ctype} {n} = static_cast<{ctype}>({default});")
        out.append("  };")
        lines = []
        for kind, typ, n, pos in self.params:
            if kind == "localparam":
                lines.append(f"    [[maybe_unused]] const long long {n} = {self.cxx(self.param_expr[n], pos, params, local)};")
                local.add(n)
        for direction, fn, field in (("input", "visit_in", "in"), ("output", "visit_out", "out")):
            typ = "In" if direction == "input" else "Out"
            out.append(f"  template <class {typ}, class V>")
            out.append(f"  static void {fn}([[maybe_unused]] const Params& p, {typ}& {field}, V&& v) {{")
            out += lines
            for d, t, n, dims, pos in self.ports:
                if d != direction or n == "clk_i":
                    continue
                w = "1" if t in ("logic", "bit", "wire") else self.type_width(t, pos)
                factors = [] if w == "1" else [w]
                for hi, lo in dims:
                    factors.append(self.range_width(hi, lo, pos, params, local))
                width = " * ".join(factors) if factors else "1"
                if not width.isdigit():
                    width = f"static_cast<unsigned>{width}" if len(factors) == 1 and width.startswith("(") \
                        else f"static_cast<unsigned>({width})"
                out.append(f'    v("{n}", {field}.{n}, {width}u);' if width.isdigit() else f'    v("{n}", {field}.{n}, {width});')
            out.append("  }")
        out += ["};", "", "}  // namespace trn::sv::ports", ""]
        return "\n".join(out)


def cxx_type(kind: str, width: int) -> str:
    if kind != "logic":
        return kind
    if width == 1:
        return "bool"
    for w in (8, 16, 32, 64):
        if width <= w:
            return f"std::uint{w}_t"
    return "Bits"


def emit(pkg: Package) -> str:
    out = [f"// Generated by scripts/gen_pkg.py from {pkg.path.name} (package {pkg.name}). Do not edit.",
           "#pragma once", "", "#include <cstdint>", "", '#include "common/bits.hpp"', "",
           f"namespace trn::sv::{pkg.name} {{", ""]
    for name, val in pkg.params.items():
        out.append(f"inline constexpr long long {name} = {val};")
    if pkg.params:
        out.append("")
    for kind, name in pkg.order:
        if kind == "enum":
            width, labels = pkg.enums[name]
            base = "std::uint8_t" if width <= 8 else "std::uint16_t" if width <= 16 else "std::uint32_t"
            out.append(f"enum class {name} : {base} {{")
            out += [f"  {lab} = {val}," for lab, val in labels]
            out.append("};")
            out.append(f"inline constexpr unsigned {name}_width = {width};")
            out.append("")
            continue
        fields = pkg.structs[name]
        total = sum(f[2] for f in fields)
        out.append(f"struct {name} {{")
        out.append(f"  static constexpr unsigned kWidth = {total};")
        lsb = total
        layout = []
        for fname, fkind, width in fields:
            lsb -= width
            layout.append((fname, fkind, width, lsb))
            t = cxx_type(fkind, width)
            init = f" = Bits({width})" if t == "Bits" else "{}"
            out.append(f"  {t} {fname}{init};")
        out.append("")
        out.append("  /// v(name, field, width, lsb) for every field, most significant first.")
        for qual in ("", " const"):
            out.append("  template <class V>")
            out.append(f"  void visit(V&& v){qual} {{")
            out += [f'    v("{f}", {f}, {w}u, {lo}u);' for f, _, w, lo in layout]
            out.append("  }")
        out.append("  void pack(Bits& to, unsigned lsb = 0) const {")
        for f, k, w, lo in layout:
            t = cxx_type(k, w)
            if k in pkg.structs:
                out.append(f"    {f}.pack(to, lsb + {lo});")
            elif t == "Bits":
                out.append(f"    to.copy(lsb + {lo}, {f}, 0, {w});")
            else:
                out.append(f"    to.set_slice(lsb + {lo}, {w}, static_cast<std::uint64_t>({f}));")
        out.append("  }")
        out.append("  Bits pack() const {")
        out.append("    Bits b(kWidth);")
        out.append("    pack(b);")
        out.append("    return b;")
        out.append("  }")
        out.append(f"  static {name} unpack(const Bits& from, unsigned lsb = 0) {{")
        out.append(f"    {name} s;")
        for f, k, w, lo in layout:
            t = cxx_type(k, w)
            if k in pkg.structs:
                out.append(f"    s.{f} = {k}::unpack(from, lsb + {lo});")
            elif t == "Bits":
                out.append(f"    s.{f}.copy(0, from, lsb + {lo}, {w});")
            elif t == "bool":
                out.append(f"    s.{f} = from.slice(lsb + {lo}, 1) != 0;")
            else:
                out.append(f"    s.{f} = static_cast<{t}>(from.slice(lsb + {lo}, {w}));")
        out.append("    return s;")
        out.append("  }")
        out.append(f"  bool operator==(const {name}&) const = default;")
        out.append("};")
        out.append("")
    out.append(f"}}  // namespace trn::sv::{pkg.name}")
    out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("packages", type=Path, nargs="+", help="SystemVerilog package files (<unit>_pkg.sv)")
    ap.add_argument("--out", type=Path, required=True, help="directory for the generated <pkg>.hpp")
    ap.add_argument("--modules", type=Path, nargs="*", default=[],
                    help="RTL module files whose port lists to write to <out>/ports/<module>.hpp")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    packages: dict[str, Package] = {}
    for path in args.packages:
        if not path.is_file():
            fail(f"{path}: no such file")
        pkg = Package(path, packages)
        packages[pkg.name] = pkg
        write(args.out / f"{pkg.name}.hpp", emit(pkg))
    # every enum label as the sized literal Verilator's -G takes (CMake's trn_bench reads it)
    write(args.out / "enums.cmake",
          "# Generated by scripts/gen_pkg.py. Do not edit.\n" +
          "".join(f'set(TRN_SV_ENUM_{pkg.name}__{lab} "{width}\'d{val}")\n'
                  for pkg in packages.values() for width, labels in pkg.enums.values() for lab, val in labels))
    for path in args.modules:
        if not path.is_file():
            fail(f"{path}: no such file")
        mod = Module(path, packages)
        write(args.out / "ports" / f"{mod.name}.hpp", mod.emit())


def write(dst: Path, text: str) -> None:
    """Write only a changed file, so that what includes it is not rebuilt for nothing."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists() or dst.read_text() != text:
        dst.write_text(text)


if __name__ == "__main__":
    main()
