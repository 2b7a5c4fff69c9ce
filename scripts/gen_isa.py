#!/usr/bin/env python3
"""Generate the NeuronCore ISA's SystemVerilog package, C++ table and documentation tables from
rtl/core/isa.toml, the one definition of the binary instruction format (docs/isa.md).

  gen_isa.py --toml rtl/core/isa.toml --out build/gen      writes isa_pkg.sv and isa_table.hpp
  gen_isa.py --toml rtl/core/isa.toml --doc docs/isa.md    rewrites the tables between the
                                                          <!-- isa-table:begin/end --> markers
  gen_isa.py --toml rtl/core/isa.toml --check-doc docs/isa.md   exit 1 if they are stale

The table is checked on the way: fields must not overlap or exceed the instruction, names must be
unique, every key must name known fields, every op's keys must be known keys, opcodes unique and
non-zero (an all-zero word is illegal). Errors name the table entry; exit status 2.
Python standard library only.
"""
import argparse
import re
import sys
import tomllib
from pathlib import Path

KINDS = ("int", "flag", "dims", "sem", "reg", "target")
SYNTAXES = ("field", "wait", "post", "operand", "tile", "mem", "vecaddr", "regimm")
GROUP_ARITY = {"wait": 3, "post": 3, "operand": 3, "tile": 2, "mem": 2, "vecaddr": 2, "regimm": 2, "field": 1}
UNITS = ("ctl", "tensor", "lane", "dma", "gpsimd")
# group keys whose first field enables the rest: with it zero, the rest must be zero too
ENABLED = ("wait", "post", "vecaddr")
# the control's stream states (the status st_o[s].state, docs/isa.md)
STATES = ("idle", "run", "wait", "busy", "end", "halt")
# Enum fields whose names the control's RTL decodes (emitted as SystemVerilog enums).
CTL_ENUMS = ["cond"]
PC_BITS = 16
REGS = 16  # a stream's registers r0 .. r15 (r0 reads 0)
BEGIN, END = "<!-- isa-table:begin -->", "<!-- isa-table:end -->"


def fail(msg: str) -> None:
    print(f"gen_isa: error: {msg}", file=sys.stderr)
    sys.exit(2)


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


class Isa:
    def __init__(self, path: Path):
        self.path = path
        try:
            t = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as e:
            fail(f"{path}: {e}")
        isa = t.get("isa", {})
        self.bits = int(isa.get("inst_bits", 0))
        self.sems = int(isa.get("sems", 0))
        self.streams = list(isa.get("streams", []))
        if self.bits <= 0 or self.bits % 8:
            fail(f"{path}: [isa] inst_bits must be a positive multiple of 8")
        if self.sems <= 0 or self.sems & (self.sems - 1):
            fail(f"{path}: [isa] sems must be a power of two")
        self.enums = {n: dict(v) for n, v in t.get("enum", {}).items()}
        # fields, from bit 0 up
        self.fields = []
        lsb = 0
        seen = set()
        for i, f in enumerate(t.get("field", [])):
            name, bits, kind = f.get("name"), int(f.get("bits", 0)), f.get("kind", "int")
            where = f"{path}: field {i} ({name})"
            if not name or name in seen:
                fail(f"{where}: missing or duplicate name")
            if bits <= 0 or (kind != "dims" and bits > 64) or (kind == "dims" and bits != 64):
                fail(f"{where}: bits {bits} (1..64; dims: 64)")
            if kind.startswith("enum:"):
                if kind[5:] not in self.enums:
                    fail(f"{where}: unknown enum '{kind[5:]}'")
                if any(v >= (1 << bits) for v in self.enums[kind[5:]].values()):
                    fail(f"{where}: enum {kind[5:]} does not fit in {bits} bits")
            elif kind not in KINDS:
                fail(f"{where}: unknown kind '{kind}'")
            if kind == "flag" and bits != 1:
                fail(f"{where}: a flag is one bit")
            if kind == "sem" and (1 << bits) < self.sems:
                fail(f"{where}: {bits} bits cannot name {self.sems} semaphores")
            if kind == "reg" and (1 << bits) != REGS:
                fail(f"{where}: a register field names {REGS} registers")
            if kind == "target" and bits != PC_BITS:
                fail(f"{where}: a target is a pc of {PC_BITS} bits")
            default = int(f.get("default", 0))
            if default >> bits:
                fail(f"{where}: default does not fit")
            seen.add(name)
            self.fields.append({"name": name, "bits": bits, "lsb": lsb, "kind": kind, "default": default,
                                "doc": f.get("doc", ""), "reg": f.get("reg", ""), "reg_dim": f.get("reg_dim", "")})
            lsb += bits
        if lsb > self.bits:
            fail(f"{path}: the fields take {lsb} bits, more than inst_bits = {self.bits}")
        self.used_bits = lsb
        self.fidx = {f["name"]: i for i, f in enumerate(self.fields)}
        # register companions: a reg field each, a dims field also an int field naming its dimension
        self.comp = {}
        for f in self.fields:
            where = f"{path}: field {f['name']}"
            if not f["reg"]:
                if f["reg_dim"]:
                    fail(f"{where}: reg_dim without reg")
                continue
            r = self.fidx.get(f["reg"])
            if r is None or self.fields[r]["kind"] != "reg":
                fail(f"{where}: reg '{f['reg']}' is not a field of kind reg")
            if f["kind"] not in ("int", "dims") or (f["kind"] == "int" and f["bits"] > 32):
                fail(f"{where}: only an int field of at most 32 bits or a dims field takes a register")
            comp = [f["reg"]]
            if f["kind"] == "dims":
                d = self.fidx.get(f["reg_dim"])
                if d is None or self.fields[d]["kind"] != "int" or self.fields[d]["bits"] != 2:
                    fail(f"{where}: a dims field's reg_dim must name a 2-bit int field")
                comp.append(f["reg_dim"])
            elif f["reg_dim"]:
                fail(f"{where}: reg_dim is for a dims field")
            self.comp[f["name"]] = comp
        for req in ("op", "wait_en", "wait_sem", "wait_val", "post_en", "post_sem", "post_val"):
            if req not in self.fidx:
                fail(f"{path}: the control needs a field '{req}'")
        # keys: declared ones, then one per remaining field
        self.keys = {}
        for name, k in t.get("key", {}).items():
            syn = k.get("syntax", "field")
            fl = list(k.get("fields", []))
            if syn not in SYNTAXES:
                fail(f"{path}: key {name}: unknown syntax '{syn}'")
            if len(fl) != GROUP_ARITY[syn]:
                fail(f"{path}: key {name}: syntax {syn} takes {GROUP_ARITY[syn]} fields")
            for fn in fl:
                if fn not in self.fidx:
                    fail(f"{path}: key {name}: unknown field '{fn}'")
            self.keys[name] = {"syntax": syn, "fields": fl}
        for f in self.fields:
            if f["name"] not in self.keys and f["name"] != "op":
                self.keys[f["name"]] = {"syntax": "field", "fields": [f["name"]]}
        # ops
        self.ops = []
        codes = set()
        for i, o in enumerate(t.get("op", [])):
            name, code = o.get("name"), int(o.get("code", 0))
            where = f"{path}: op {i} ({name})"
            if not name or code <= 0 or code >= (1 << self.fields[self.fidx["op"]]["bits"]) or code in codes:
                fail(f"{where}: missing name, or an opcode that is zero, too wide or taken")
            codes.add(code)
            streams = o.get("streams", [])
            if not streams or any(s not in self.streams for s in streams):
                fail(f"{where}: streams {streams} (of {self.streams})")
            unit = o.get("unit")
            if unit not in UNITS:
                fail(f"{where}: unit '{unit}' (of {UNITS})")
            if o.get("done") not in ("issue", "unit"):
                fail(f"{where}: done must be 'issue' or 'unit'")
            keys = list(o.get("keys", []))
            for k in keys:
                if k not in self.keys or k in ("wait", "post"):
                    fail(f"{where}: unknown key '{k}'")
            needs = o.get("needs", "")
            if needs and (needs not in self.keys or self.keys[needs]["syntax"] not in ENABLED):
                fail(f"{where}: needs '{needs}' is not a key with an enable")
            used = {"op", "wait_en", "wait_sem", "wait_val", "post_en", "post_sem", "post_val"}
            used.update(c for fn in list(used) for c in self.comp.get(fn, []))
            for k in keys:
                used.update(self.keys[k]["fields"])
                for fn in self.keys[k]["fields"]:
                    used.update(self.comp.get(fn, []))
            args = list(o.get("args", []))
            if any(a not in keys for a in args) or len(args) > 4:
                fail(f"{where}: args {args} must be at most 4 of its keys")
            self.ops.append({"name": name, "code": code, "streams": streams, "unit": unit,
                             "lane_op": int(o.get("lane_op", -1)), "issue": o["done"] == "issue",
                             "keys": keys, "args": args, "used": used, "needs": needs,
                             "doc": o.get("doc", "")})
        self.errors = [(e["name"], int(e["code"]), e.get("doc", "")) for e in t.get("error", [])]

    def mask(self, used: set) -> int:
        m = 0
        for f in self.fields:
            if f["name"] in used:
                m |= ((1 << f["bits"]) - 1) << f["lsb"]
        return m


def emit_sv(isa: Isa) -> str:
    b = isa.bits
    out = [f"// Generated by scripts/gen_isa.py from rtl/core/isa.toml. Do not edit: edit the table.",
           "// The NeuronCore instruction set (docs/isa.md): the instruction word, its opcodes, the fields",
           "// each op uses, the streams that run it, and the control's error codes.",
           "package isa_pkg;",
           f"  localparam int unsigned InstBits = {b};",
           f"  localparam int unsigned Sems = {isa.sems};",
           f"  localparam int unsigned SemBits = {max(1, (isa.sems - 1).bit_length())};",
           f"  localparam int unsigned Streams = {len(isa.streams)};",
           ""]
    sw = max(1, (len(isa.streams) - 1).bit_length())
    out.append(f"  typedef enum logic [{sw - 1}:0] {{")
    out.append(",\n".join(f"    Stream{camel(s)} = {sw}'d{i}" for i, s in enumerate(isa.streams)))
    out.append("  } stream_e;")
    out.append("")
    ob = isa.fields[isa.fidx["op"]]["bits"]
    out.append(f"  typedef enum logic [{ob - 1}:0] {{")
    out.append(",\n".join(f"    Op{camel(o['name'])} = {ob}'h{o['code']:02X}" for o in isa.ops))
    out.append("  } op_e;")
    out.append("")
    eb = max(1, max(c for _, c, _ in isa.errors).bit_length())
    out.append(f"  typedef enum logic [{eb - 1}:0] {{")
    out.append(",\n".join(f"    CtlErr{camel(n)} = {eb}'d{c}" for n, c, _ in isa.errors))
    out.append("  } ctl_err_e;")
    out.append("")
    # the enums the control decodes itself: their names and which codes are known
    for en in CTL_ENUMS:
        w = isa.fields[isa.fidx[en]]["bits"]
        out.append(f"  // The {en} field's names (docs/isa.md).")
        out.append(f"  typedef enum logic [{w - 1}:0] {{")
        out.append(",\n".join(f"    {camel(en)}{camel(n)} = {w}'d{v}" for n, v in isa.enums[en].items()))
        out.append(f"  }} {en}_e;")
        out.append(f"  function automatic logic {en}_known(logic [{w - 1}:0] v);")
        out.append(f"    unique case ({en}_e'(v))")
        out.append("      " + ", ".join(f"{camel(en)}{camel(n)}" for n in isa.enums[en]) + ": return 1'b1;")
        out.append("      default: return 1'b0;")
        out.append("    endcase")
        out.append("  endfunction")
        out.append("")
    out.append(f"  localparam int unsigned PcBits = {PC_BITS};")
    out.append("  // A stream's state in the status (docs/isa.md).")
    out.append("  typedef enum logic [2:0] {")
    out.append(",\n".join(f"    St{camel(s)} = 3'd{i}" for i, s in enumerate(STATES)))
    out.append("  } ctl_state_e;")
    out.append("")
    out.append("  // One stream's status: its state, the pc of its head (or the next to fetch), and the")
    out.append("  // semaphore and value its head waits for (0 when it has no wait).")
    wv = isa.fields[isa.fidx["wait_val"]]["bits"]
    out.append("  typedef struct packed {")
    out.append("    ctl_state_e state;")
    out.append(f"    logic [{PC_BITS - 1}:0] pc;")
    out.append(f"    logic [{max(1, (isa.sems - 1).bit_length()) - 1}:0] wait_sem;")
    out.append(f"    logic [{wv - 1}:0] wait_val;")
    out.append("  } stream_status_t;")
    out.append("")
    out.append("  // One instruction; the first field is the most significant (bit 0 is the opcode's lowest).")
    out.append("  typedef struct packed {")
    if isa.used_bits < b:
        out.append(f"    logic [{b - isa.used_bits - 1}:0] rsvd;  // must be zero")
    for f in reversed(isa.fields):
        rng = f"[{f['bits'] - 1}:0] " if f["bits"] > 1 else ""
        out.append(f"    logic {rng}{f['name']};  // {f['doc']}")
    out.append("  } inst_t;")
    out.append("")
    out.append("  // Is op known?")
    out.append(f"  function automatic logic op_known(logic [{ob - 1}:0] op);")
    out.append("    unique case (op_e'(op))")
    out.append("      " + ", ".join(f"Op{camel(o['name'])}" for o in isa.ops) + ": return 1'b1;")
    out.append("      default: return 1'b0;")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("")
    out.append("  // May op run on stream s?")
    out.append(f"  function automatic logic op_on_stream(logic [{ob - 1}:0] op, stream_e s);")
    out.append("    unique case (op_e'(op))")
    for o in isa.ops:
        cond = " || ".join(f"s == Stream{camel(s)}" for s in o["streams"])
        out.append(f"      Op{camel(o['name'])}: return {cond};")
    out.append("      default: return 1'b0;")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("")
    out.append("  // The bits op's fields occupy (the opcode, wait and post, and its keys' fields); every other")
    out.append("  // bit of its instruction must be zero.")
    out.append(f"  function automatic logic [InstBits-1:0] used_mask(logic [{ob - 1}:0] op);")
    out.append("    unique case (op_e'(op))")
    for o in isa.ops:
        out.append(f"      Op{camel(o['name'])}: return {b}'h{isa.mask(o['used']):0{b // 4}X};")
    out.append(f"      default: return {b}'h{isa.mask({'op'}):X};")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("")
    out.append("  // What runs an op: the control itself, the tensor engine, a lane engine (vector or scalar),")
    out.append("  // the DMA, or the GpSimd engine.")
    ub = max(1, (len(UNITS) - 1).bit_length())
    out.append(f"  typedef enum logic [{ub - 1}:0] {{")
    out.append(",\n".join(f"    Unit{camel(u)} = {ub}'d{i}" for i, u in enumerate(UNITS)))
    out.append("  } unit_e;")
    out.append("")
    out.append(f"  function automatic unit_e op_unit(logic [{ob - 1}:0] op);")
    out.append("    unique case (op_e'(op))")
    for u in UNITS[1:]:
        ops = [f"Op{camel(o['name'])}" for o in isa.ops if o["unit"] == u]
        if ops:
            out.append(f"      {', '.join(ops)}: return Unit{camel(u)};")
    out.append("      default: return UnitCtl;")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("")
    out.append("  // The lane engine's le_pkg::op_e of a lane op.")
    out.append(f"  function automatic logic [3:0] lane_op(logic [{ob - 1}:0] op);")
    out.append("    unique case (op_e'(op))")
    for o in isa.ops:
        if o["unit"] == "lane":
            out.append(f"      Op{camel(o['name'])}: return 4'd{o['lane_op']};")
    out.append("      default: return 4'd0;")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("")
    out.append("  // Are the enabled groups consistent: a group's other fields zero while its enable is off (and a")
    out.append("  // register's dimension zero while it names no register)?")
    out.append("  function automatic logic groups_ok(inst_t i);")
    conds = []
    for n, k in isa.keys.items():
        if k["syntax"] in ENABLED:
            en, rest = k["fields"][0], k["fields"][1:]
            rest = rest + [c for r in rest for c in isa.comp.get(r, [])]
            conds.append(f"(i.{en} || (" + " && ".join(f"i.{r} == '0" for r in rest) + "))")
    for name, comp in isa.comp.items():
        if len(comp) > 1:  # a dimension named with no register
            conds.append(f"(i.{comp[0]} != '0 || i.{comp[1]} == '0)")
    out.append("    return " + "\n        && ".join(conds) + ";")
    out.append("  endfunction")
    out.append("")
    out.append("  // Does op have the group it needs (sem_wait a wait, sem_add a post)?")
    out.append(f"  function automatic logic needs_ok(inst_t i);")
    out.append("    unique case (op_e'(i.op))")
    for o in isa.ops:
        if o["needs"]:
            out.append(f"      Op{camel(o['name'])}: return i.{isa.keys[o['needs']]['fields'][0]};")
    out.append("      default: return 1'b1;")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("")
    out.append("  // Is op's post added when it issues (else when its unit reports it done)?")
    out.append(f"  function automatic logic done_at_issue(logic [{ob - 1}:0] op);")
    out.append("    unique case (op_e'(op))")
    out.append("      " + ", ".join(f"Op{camel(o['name'])}" for o in isa.ops if not o["issue"]) + ": return 1'b0;")
    out.append("      default: return 1'b1;")
    out.append("    endcase")
    out.append("  endfunction")
    out.append("")
    out += emit_sv_subst(isa)
    out.append("endpackage")
    out.append("")
    return "\n".join(out)


def emit_sv_subst(isa: Isa) -> list:
    """The register substitution of an instruction (docs/isa.md, "Registers"): subst, subst_ok."""
    out = [f"  localparam int unsigned Regs = {REGS};",
           "  typedef logic [Regs-1:0][31:0] regs_t;  // a stream's registers (r[0] is 0)",
           "",
           "  // The instruction as it issues: each field with a register companion plus that register",
           "  // (a dims field: its dimension named by the companion's dimension field), truncated.",
           "  function automatic inst_t subst(inst_t i, regs_t r);",
           "    inst_t o;",
           "    o = i;"]
    for name, comp in isa.comp.items():
        f = isa.fields[isa.fidx[name]]
        if f["kind"] == "dims":
            out.append(f"    o.{name}[16 * i.{comp[1]} +: 16] = i.{name}[16 * i.{comp[1]} +: 16] + 16'(r[i.{comp[0]}]);")
        else:
            out.append(f"    o.{name} = i.{name} + {f['bits']}'(r[i.{comp[0]}]);")
    out += ["    return o;", "  endfunction", "",
            "  // Does every sum of subst fit its field?",
            "  function automatic logic subst_ok(inst_t i, regs_t r);",
            "    logic ok;",
            "    logic [32:0] sum;",
            "    ok = 1'b1;"]
    for name, comp in isa.comp.items():
        f = isa.fields[isa.fidx[name]]
        if f["kind"] == "dims":
            out.append(f"    sum = {{17'b0, i.{name}[16 * i.{comp[1]} +: 16]}} + {{1'b0, r[i.{comp[0]}]}};")
            bits = 16
        else:
            out.append(f"    sum = 33'(i.{name}) + {{1'b0, r[i.{comp[0]}]}};")
            bits = f["bits"]
        out.append(f"    ok &= (sum >> {bits}) == 33'd0;")
    out += ["    return ok;", "  endfunction", "",
            "  // The registers an instruction names in any register field (r0 never counts).",
            "  function automatic logic [Regs-1:0] regs_named(inst_t i);",
            "    logic [Regs-1:0] m;",
            "    m = '0;"]
    for f in isa.fields:
        if f["kind"] == "reg":
            out.append(f"    m[i.{f['name']}] = 1'b1;")
    out += ["    m[0] = 1'b0;", "    return m;", "  endfunction"]
    return out


def cstr(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit_hpp(isa: Isa) -> str:
    out = ["// Generated by scripts/gen_isa.py from rtl/core/isa.toml. Do not edit: edit the table.",
           "// The NeuronCore instruction set as data (docs/isa.md), for the model's decoder, the assembler",
           "// and the disassembler.",
           "#pragma once", "", "#include <cstdint>", "",
           "namespace trn::isa::table {", "",
           f"inline constexpr unsigned kInstBits = {isa.bits};",
           f"inline constexpr unsigned kInstBytes = {isa.bits // 8};",
           f"inline constexpr unsigned kSems = {isa.sems};",
           f"inline constexpr unsigned kStreams = {len(isa.streams)};",
           "inline constexpr const char* kStreamNames[] = {" + ", ".join(cstr(s) for s in isa.streams) + "};",
           "",
           "enum class Kind : std::uint8_t { int_, flag, dims, sem, reg, target, enum_ };",
           "enum class Syntax : std::uint8_t { field, wait, post, operand, tile, mem, vecaddr, regimm };",
           f"inline constexpr unsigned kRegs = {REGS};",
           "enum class Unit : std::uint8_t { " + ", ".join(UNITS) + " };",
           "",
           "struct EnumItem { const char* name; unsigned value; };",
           "struct Enum { const char* name; const EnumItem* items; unsigned count; };"]
    enum_ids = {}
    for i, (n, items) in enumerate(isa.enums.items()):
        enum_ids[n] = i
        out.append(f"inline constexpr EnumItem kEnum_{n}[] = {{" +
                   ", ".join(f"{{{cstr(k)}, {v}}}" for k, v in items.items()) + "};")
    out.append("inline constexpr Enum kEnums[] = {" +
               ", ".join(f"{{{cstr(n)}, kEnum_{n}, {len(items)}}}" for n, items in isa.enums.items()) + "};")
    out.append("")
    out.append("struct Field {")
    out.append("  const char* name;")
    out.append("  unsigned lsb, bits;")
    out.append("  Kind kind;")
    out.append("  int enum_id;  ///< kEnums index for Kind::enum_, else -1")
    out.append("  std::uint64_t def;  ///< value of an absent field")
    out.append("  const char* doc;")
    out.append("  int reg;      ///< its register companion (a reg field), or -1")
    out.append("  int reg_dim;  ///< a dims field's: the field naming the dimension, or -1")
    out.append("};")
    out.append("inline constexpr Field kFields[] = {")
    for f in isa.fields:
        k = f["kind"]
        kind, eid = ("enum_", enum_ids[k[5:]]) if k.startswith("enum:") else (k + ("_" if k == "int" else ""), -1)
        comp = isa.comp.get(f["name"], [])
        reg = isa.fidx[comp[0]] if comp else -1
        rdim = isa.fidx[comp[1]] if len(comp) > 1 else -1
        out.append(f"  {{{cstr(f['name'])}, {f['lsb']}, {f['bits']}, Kind::{kind}, {eid}, {f['default']:#x}ull, "
                   f"{cstr(f['doc'])}, {reg}, {rdim}}},")
    out.append("};")
    out.append(f"inline constexpr unsigned kFieldCount = {len(isa.fields)};")
    for f in isa.fields:
        out.append(f"inline constexpr unsigned kF_{f['name']} = {isa.fidx[f['name']]};")
    out.append("")
    out.append("struct Key {")
    out.append("  const char* name;")
    out.append("  Syntax syntax;")
    out.append("  unsigned count;      ///< fields")
    out.append("  int fields[3];       ///< kFields indices")
    out.append("};")
    out.append("inline constexpr Key kKeys[] = {")
    key_ids = {}
    for i, (n, k) in enumerate(isa.keys.items()):
        key_ids[n] = i
        fl = [isa.fidx[x] for x in k["fields"]] + [-1] * (3 - len(k["fields"]))
        out.append(f"  {{{cstr(n)}, Syntax::{k['syntax']}, {len(k['fields'])}, {{{fl[0]}, {fl[1]}, {fl[2]}}}}},")
    out.append("};")
    out.append(f"inline constexpr unsigned kKeyCount = {len(isa.keys)};")
    out.append("")
    out.append("struct Op {")
    out.append("  const char* name;")
    out.append("  unsigned code;")
    out.append("  unsigned streams;   ///< bit s: may run on stream s")
    out.append("  Unit unit;")
    out.append("  int lane_op;        ///< le_pkg::op_e of a lane op, else -1")
    out.append("  bool done_at_issue; ///< its post is added when it issues")
    out.append("  int needs;          ///< kKeys index of the group whose enable must be set, or -1")
    out.append("  unsigned nkeys;")
    out.append("  int keys[20];       ///< kKeys indices, in the order the disassembler prints them")
    out.append("  unsigned nargs;")
    out.append("  int args[4];        ///< kKeys indices written as positional operands, in order")
    out.append("  const char* doc;")
    out.append("};")
    out.append("inline constexpr Op kOps[] = {")
    for o in isa.ops:
        sm = sum(1 << isa.streams.index(s) for s in o["streams"])
        ks = [key_ids[k] for k in o["keys"]]
        if len(ks) > 20:
            fail(f"op {o['name']}: more than 20 keys")
        ar = [key_ids[k] for k in o["args"]] + [-1] * (4 - len(o["args"]))
        out.append(f"  {{{cstr(o['name'])}, {o['code']:#x}, {sm:#x}, Unit::{o['unit']}, {o['lane_op']}, "
                   f"{'true' if o['issue'] else 'false'}, {key_ids[o['needs']] if o['needs'] else -1}, {len(ks)}, "
                   f"{{{', '.join(map(str, ks))}}}, {len(o['args'])}, {{{', '.join(map(str, ar))}}}, "
                   f"{cstr(o['doc'])}}},")
    out.append("};")
    out.append(f"inline constexpr unsigned kOpCount = {len(isa.ops)};")
    out.append("")
    out.append("struct Error { const char* name; unsigned code; const char* doc; };")
    out.append("inline constexpr Error kErrors[] = {")
    for n, c, d in isa.errors:
        out.append(f"  {{{cstr(n)}, {c}, {cstr(d)}}},")
    out.append("};")
    out.append("")
    out.append("}  // namespace trn::isa::table")
    out.append("")
    return "\n".join(out)


def emit_doc(isa: Isa) -> str:
    out = [BEGIN, "",
           f"An instruction is {isa.bits} bits ({isa.bits // 8} bytes), little-endian. Bits "
           f"{isa.used_bits}–{isa.bits - 1} are reserved and must be zero.", "",
           "**Fields** (bit 0 upwards):", "",
           "| bits | field | assembler | meaning |", "|---|---|---|---|"]
    for f in isa.fields:
        hi = f["lsb"] + f["bits"] - 1
        rng = f"{f['lsb']}" if hi == f["lsb"] else f"{hi}:{f['lsb']}"
        k = f["kind"]
        asm = k.replace("enum:", "") if k.startswith("enum:") else k
        if f["default"]:
            asm += f" (default {f['default']:#x})"
        if f["name"] in isa.comp:
            asm += f", or + `rN` (`{'`, `'.join(isa.comp[f['name']])}`)"
        out.append(f"| {rng} | `{f['name']}` | {asm} | {f['doc']} |")
    out += ["", "**Operations** (every op also takes `wait=` and `post=`):", "",
            "| op | code | streams | unit | post added at | keys | meaning |", "|---|---|---|---|---|---|---|"]
    for o in isa.ops:
        keys = " ".join(f"`{k}`" for k in o["keys"] if k not in o["args"]) or "—"
        if o["args"]:
            keys = ", ".join(f"*{k}*" for k in o["args"]) + ("" if keys == "—" else f"; {keys}")
        out.append(f"| `{o['name']}` | {o['code']:#04x} | {', '.join(o['streams'])} | {o['unit']} | "
                   f"{'issue' if o['issue'] else 'unit done'} | {keys} | {o['doc']} |")
    out += ["", "**Assembler keys** that set a group of fields:", "",
            "| key | syntax | fields |", "|---|---|---|"]
    forms = {"wait": "`SEM>=VALUE`", "post": "`SEM+=VALUE`", "operand": "`SPACE:ADDR:TYPE`",
             "tile": "`ADDR:TYPE`", "mem": "`SPACE:ADDR`", "vecaddr": "`ADDR` (sets the flag)",
             "regimm": "`rN`, `EXPR` or `rN+EXPR`"}
    for n, k in isa.keys.items():
        if k["syntax"] != "field" or k["fields"][0] != n:
            out.append(f"| `{n}` | {forms.get(k['syntax'], 'the field')} | {', '.join(k['fields'])} |")
    out += ["", "**Names** of enum fields:", "", "| enum | names (value) |", "|---|---|"]
    for n, items in isa.enums.items():
        out.append(f"| {n} | {', '.join(f'`{k}` ({v})' for k, v in items.items())} |")
    out += ["", "**Control errors** (`err_code`):", "", "| code | name | cause |", "|---|---|---|"]
    for n, c, d in isa.errors:
        out.append(f"| {c} | `{n}` | {d} |")
    out += ["", END]
    return "\n".join(out)


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--toml", type=Path, required=True)
    ap.add_argument("--out", type=Path, help="directory for isa_pkg.sv and isa_table.hpp")
    ap.add_argument("--doc", type=Path, help="rewrite the table section of this markdown file")
    ap.add_argument("--check-doc", type=Path, help="exit 1 if this markdown file's table section is stale")
    args = ap.parse_args()
    isa = Isa(args.toml)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        write_if_changed(args.out / "isa_pkg.sv", emit_sv(isa))
        write_if_changed(args.out / "isa_table.hpp", emit_hpp(isa))
    for doc, check in ((args.doc, False), (args.check_doc, True)):
        if not doc:
            continue
        text = doc.read_text() if doc.exists() else ""
        pat = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
        if not pat.search(text):
            fail(f"{doc}: no {BEGIN} ... {END} section")
        new = pat.sub(lambda _: emit_doc(isa), text)
        if check:
            if new != text:
                print(f"gen_isa: {doc}: the ISA tables are stale; run scripts/gen_isa.py --toml {args.toml} "
                      f"--doc {doc}", file=sys.stderr)
                sys.exit(1)
            print(f"gen_isa: {doc}: the ISA tables match {args.toml}")
        else:
            write_if_changed(doc, new)


if __name__ == "__main__":
    main()
