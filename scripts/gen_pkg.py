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
the file and line. Python standard library only.
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
    def __init__(self, path: Path):
        self.path = path
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

        def name(m: re.Match) -> str:
            if m.group(0) not in self.params:
                fail(f"{self.where(pos)}: '{m.group(0)}' is not an integer localparam of {self.name}")
            return str(self.params[m.group(0)])

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
        decl = re.compile(
            rf"localparam\s+(?:int\s+unsigned|int|integer)\s+({IDENT})\s*=\s*([^;]+);"
            rf"|typedef\s+enum\s+logic\s*(\[[^\]]+\])?\s*\{{([^}}]*)\}}\s*({IDENT})\s*;"
            rf"|typedef\s+struct\s+packed\s*\{{([^}}]*)\}}\s*({IDENT})\s*;", re.S)
        for m in decl.finditer(self.text):
            pos = m.start()
            if m.group(1):
                self.params[m.group(1)] = self.eval_int(m.group(2), pos)
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
                    fm = re.fullmatch(rf"\s*({IDENT})\s*(\[[^\]]+\])?\s*({IDENT}(?:\s*,\s*{IDENT})*)\s*", line)
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
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.packages:
        if not path.is_file():
            fail(f"{path}: no such file")
        pkg = Package(path)
        text = emit(pkg)
        dst = args.out / f"{pkg.name}.hpp"
        if not dst.exists() or dst.read_text() != text:
            dst.write_text(text)


if __name__ == "__main__":
    main()
