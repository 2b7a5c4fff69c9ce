// The assembler and disassembler of the NeuronCore ISA (docs/isa.md, "Assembly").
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "isa/isa.hpp"
#include "numerics/format.hpp"

namespace trn::isa {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The register a name is (r0 .. r15), or -1.
int reg_name(std::string_view name) {
  if (name.size() < 2 || name.size() > 3 || name[0] != 'r') return -1;
  unsigned v = 0;
  for (char c : name.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    v = 10 * v + static_cast<unsigned>(c - '0');
  }
  if (name.size() == 3 && name[1] == '0') return -1;
  return v < tbl::kRegs ? static_cast<int>(v) : -1;
}

const tbl::Key* find_key(std::string_view name) {
  for (const auto& k : tbl::kKeys)
    if (name == k.name) return &k;
  return nullptr;
}

/// The assembler's state while it runs over the lines of one file.
class Assembler {
 public:
  Assembler(const std::string& text, const std::string& file, const std::map<std::string, std::int64_t>& defines)
      : file_(file), consts_(defines) {
    std::size_t at = 0;
    while (at <= text.size()) {
      std::size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      std::string line = text.substr(at, nl - at);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines_.push_back(std::move(line));
      at = nl + 1;
    }
  }

  Program run() {
    exec(0, lines_.size());
    // branch and loop targets named before their label
    for (const Fixup& x : fixups_) {
      line_ = x.line;
      const auto it = labels_.find(x.name);
      if (it == labels_.end()) fail(x.col, fmt::format("unknown label '{}'", x.name));
      same_stream(x.name, x.stream, x.col);
      set(prog_.streams[x.stream][x.index], static_cast<unsigned>(x.field), it->second);
    }
    if (!local_fixups_.empty()) {
      const Fixup& x = local_fixups_.front();
      line_ = x.line;
      fail(x.col, fmt::format("local label '{}f': no '{}:' after it in the {} stream", x.name, x.name,
                              tbl::kStreamNames[x.stream]));
    }
    std::stable_sort(prog_.labels.begin(), prog_.labels.end(), [](const auto& a, const auto& b) {
      return a.stream != b.stream ? a.stream < b.stream : a.pc < b.pc;
    });
    return std::move(prog_);
  }

 private:
  // ---- diagnostics
  [[noreturn]] void fail(std::size_t col, const std::string& what) const {
    throw Error(fmt::format("{}:{}:{}: error: {}", file_, line_ + 1, col + 1, what));
  }

  // ---- lines: a comment starts at ';', '#' or "//"
  std::string code_of(std::size_t i) const {
    const std::string& s = lines_[i];
    std::size_t cut = s.size();
    for (std::size_t k = 0; k < s.size(); ++k)
      if (s[k] == ';' || s[k] == '#' || (s[k] == '/' && k + 1 < s.size() && s[k + 1] == '/')) {
        cut = k;
        break;
      }
    return s.substr(0, cut);
  }
  /// The directive word of line i (".for", ...) or "".
  std::string directive(std::size_t i) const {
    std::string c = code_of(i);
    std::size_t a = c.find_first_not_of(" \t");
    if (a == std::string::npos || c[a] != '.') return "";
    std::size_t b = a + 1;
    while (b < c.size() && ident_char(c[b])) ++b;
    return c.substr(a, b - a);
  }
  /// The line closing the block opened at `open` (its .endfor / .endif), and for .if the .else.
  std::size_t match(std::size_t open, std::size_t hi, const char* close, std::size_t* els = nullptr) const {
    const std::string opener = directive(open);
    int depth = 0;
    for (std::size_t i = open + 1; i < hi; ++i) {
      const std::string d = directive(i);
      if (d == ".for" || d == ".if")
        ++depth;
      else if ((d == ".endfor" || d == ".endif") && depth > 0)
        --depth;
      else if (depth == 0 && d == close)
        return i;
      else if (depth == 0 && els && d == ".else")
        *els = i;
    }
    const_cast<Assembler*>(this)->line_ = open;
    fail(0, fmt::format("{} without {}", opener, close));
  }

  void exec(std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      line_ = i;
      const std::string code = code_of(i);
      std::size_t a = code.find_first_not_of(" \t");
      if (a == std::string::npos) continue;
      if (code[a] == '.') {
        std::size_t b = a + 1;
        while (b < code.size() && ident_char(code[b])) ++b;
        const std::string d = code.substr(a, b - a);
        if (d == ".for") {
          const std::size_t end = match(i, hi, ".endfor");
          line_ = i;
          for_loop(code, b, i, end);
          i = end;
        } else if (d == ".if") {
          std::size_t els = 0;
          const std::size_t end = match(i, hi, ".endif", &els);
          line_ = i;
          const bool c = eval_all(code, b) != 0;
          if (c)
            exec(i + 1, els ? els : end);
          else if (els)
            exec(els + 1, end);
          i = end;
        } else if (d == ".endfor" || d == ".endif" || d == ".else") {
          fail(a, fmt::format("{} without its opening directive", d));
        } else {
          simple_directive(code, a, d, b);
        }
        continue;
      }
      // a label, or a local label (digits: defined again and again, named by `1b` or `1f`)
      std::size_t b = a;
      if (std::isdigit(static_cast<unsigned char>(code[b]))) {
        while (b < code.size() && std::isdigit(static_cast<unsigned char>(code[b]))) ++b;
        if (b < code.size() && code[b] == ':') {
          define_local(code.substr(a, b - a), a);
          a = code.find_first_not_of(" \t", b + 1);
          if (a == std::string::npos) continue;
        }
      } else if (ident_start(code[b])) {
        while (b < code.size() && ident_char(code[b])) ++b;
        if (b < code.size() && code[b] == ':') {
          define_label(code.substr(a, b - a), a);
          a = code.find_first_not_of(" \t", b + 1);
          if (a == std::string::npos) continue;
        }
      }
      instruction(code, a);
    }
  }

  void for_loop(const std::string& code, std::size_t at, std::size_t open, std::size_t end) {
    // .for VAR = FIRST, LIMIT [, STEP]   (VAR = FIRST, FIRST + STEP, ... while < LIMIT; STEP < 0: > LIMIT)
    std::size_t a = code.find_first_not_of(" \t", at);
    if (a == std::string::npos || !ident_start(code[a])) fail(at, "expected a loop variable after .for");
    std::size_t b = a;
    while (b < code.size() && ident_char(code[b])) ++b;
    const std::string var = code.substr(a, b - a);
    not_register(var, a);
    std::size_t eq = code.find_first_not_of(" \t", b);
    if (eq == std::string::npos || code[eq] != '=') fail(b, "expected '=' after the loop variable");
    auto parts = split(code, eq + 1, code.size(), ',');
    if (parts.size() < 2 || parts.size() > 3) fail(eq + 1, "expected FIRST, LIMIT [, STEP]");
    const std::int64_t first = eval(code, parts[0].first, parts[0].second);
    const std::int64_t limit = eval(code, parts[1].first, parts[1].second);
    const std::int64_t step = parts.size() == 3 ? eval(code, parts[2].first, parts[2].second) : 1;
    if (step == 0) fail(parts[2].first, "the loop step is zero");
    if (consts_.count(var) && !loop_vars_.count(var)) fail(a, fmt::format("'{}' is already a constant", var));
    const bool shadow = loop_vars_.count(var) != 0;
    const std::int64_t saved = shadow ? consts_[var] : 0;
    loop_vars_.insert(var);
    for (std::int64_t v = first; step > 0 ? v < limit : v > limit; v += step) {
      consts_[var] = v;
      exec(open + 1, end);
    }
    if (shadow) {
      consts_[var] = saved;
    } else {
      consts_.erase(var);
      loop_vars_.erase(var);
    }
  }

  void simple_directive(const std::string& code, std::size_t a, const std::string& d, std::size_t b) {
    if (d == ".const" || d == ".set" || d == ".default") {
      std::size_t n = code.find_first_not_of(" \t", b);
      if (n == std::string::npos || !ident_start(code[n])) fail(b, fmt::format("expected a name after {}", d));
      std::size_t e = n;
      while (e < code.size() && ident_char(code[e])) ++e;
      const std::string name = code.substr(n, e - n);
      not_register(name, n);
      std::size_t eq = code.find_first_not_of(" \t", e);
      if (eq == std::string::npos || code[eq] != '=') fail(e, "expected '='");
      const std::int64_t v = eval_all(code, eq + 1);
      if (loop_vars_.count(name)) fail(n, fmt::format("'{}' is a loop variable", name));
      if (d == ".default" && consts_.count(name)) return;  // defined before (-D NAME=VALUE): that value stands
      if (d == ".const" && consts_.count(name) && !set_names_.count(name)) {
        if (consts_[name] != v) fail(n, fmt::format("constant '{}' is already defined (as {})", name, consts_[name]));
      }
      if (d == ".set") set_names_.insert(name);
      consts_[name] = v;
    } else if (d == ".sem") {
      for (auto [x, y] : split(code, b, code.size(), ',')) {
        std::size_t n = code.find_first_not_of(" \t", x);
        if (n >= y || !ident_start(code[n])) fail(x, "expected a semaphore name");
        std::size_t e = n;
        while (e < y && ident_char(code[e])) ++e;
        const std::string name = code.substr(n, e - n);
        not_register(name, n);
        std::size_t eq = code.find_first_not_of(" \t", e);
        std::int64_t idx;
        if (eq < y && code[eq] == '=') {
          idx = eval(code, eq + 1, y);
        } else {
          if (eq < y) fail(eq, "expected ',' or '=' after the semaphore name");
          idx = 0;
          while (idx < static_cast<std::int64_t>(tbl::kSems) && used_sems_.count(static_cast<unsigned>(idx))) ++idx;
          if (idx == static_cast<std::int64_t>(tbl::kSems))
            fail(n, fmt::format("all {} semaphores are named", tbl::kSems));
        }
        if (idx < 0 || idx >= static_cast<std::int64_t>(tbl::kSems))
          fail(eq + 1, fmt::format("semaphore {} (there are {})", idx, tbl::kSems));
        if (sems_.count(name) && sems_[name] != static_cast<unsigned>(idx))
          fail(n, fmt::format("semaphore '{}' is already {}", name, sems_[name]));
        sems_[name] = static_cast<unsigned>(idx);
        used_sems_.insert(static_cast<unsigned>(idx));
        prog_.sem_names.emplace(static_cast<unsigned>(idx), name);
      }
    } else if (d == ".stream") {
      std::size_t n = code.find_first_not_of(" \t", b);
      std::size_t e = code.find_last_not_of(" \t");
      const std::string name = n == std::string::npos ? "" : code.substr(n, e + 1 - n);
      const int s = find_stream(name);
      if (s < 0)
        fail(n == std::string::npos ? b : n,
             fmt::format("expected a stream (tensor, vector, scalar, sync), got '{}'", name));
      stream_ = s;
    } else if (d == ".word") {
      need_stream(a);
      std::size_t n = code.find_first_not_of(" \t", b);
      std::size_t e = code.find_last_not_of(" \t");
      std::string hex = n == std::string::npos ? "" : code.substr(n, e + 1 - n);
      if (hex.rfind("0x", 0) != 0 || hex.size() <= 2)
        fail(n == std::string::npos ? b : n, "expected .word 0x<hex digits>");
      Bits w = blank();
      unsigned bit = 0;
      for (std::size_t k = hex.size(); k-- > 2;) {
        const char c = hex[k];
        if (c == '_') continue;
        if (!std::isxdigit(static_cast<unsigned char>(c))) fail(n + k, "expected a hex digit");
        const unsigned v =
            static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
        if (bit >= tbl::kInstBits) {
          if (v) fail(n, fmt::format("the word is wider than {} bits", tbl::kInstBits));
          continue;
        }
        w.set_slice(bit, 4, v);
        bit += 4;
      }
      prog_.streams[stream_].push_back(std::move(w));
    } else {
      fail(a, fmt::format("unknown directive '{}' (expected .const .set .sem .stream .for .if .word)", d));
    }
  }

  void need_stream(std::size_t col) const {
    if (stream_ < 0) fail(col, "an instruction before the first .stream directive");
  }

  void not_register(const std::string& name, std::size_t col) const {
    if (reg_name(name) >= 0)
      fail(col, fmt::format("'{}' is a register (r0 .. r{} are reserved)", name, tbl::kRegs - 1));
  }

  void define_label(const std::string& name, std::size_t col) {
    need_stream(col);
    not_register(name, col);
    if (labels_.count(name)) fail(col, fmt::format("label '{}' is already defined", name));
    if (consts_.count(name)) fail(col, fmt::format("'{}' is already a constant", name));
    const unsigned pc = static_cast<unsigned>(prog_.streams[stream_].size());
    labels_[name] = pc;
    label_stream_[name] = static_cast<unsigned>(stream_);
    prog_.labels.push_back({static_cast<unsigned>(stream_), pc, name});
  }

  /// A local label (GNU as's numeric labels): `N:` may be defined any number of times in a stream;
  /// a branch names the nearest before it (`Nb`) or after it (`Nf`). So a loop inside `.for` needs
  /// no name of its own. It is not kept in the program's labels (the disassembly gives the pc).
  void define_local(const std::string& num, std::size_t col) {
    need_stream(col);
    if (num.size() > 9) fail(col, fmt::format("local label '{}' is too long (at most 9 digits)", num));
    auto& defs = locals_[{static_cast<unsigned>(stream_), num}];
    const unsigned pc = static_cast<unsigned>(prog_.streams[stream_].size());
    defs.push_back(pc);
    // the forward references it is the first definition after
    for (auto it = local_fixups_.begin(); it != local_fixups_.end();)
      if (it->stream == static_cast<unsigned>(stream_) && it->name == num) {
        set(prog_.streams[it->stream][it->index], static_cast<unsigned>(it->field), pc);
        it = local_fixups_.erase(it);
      } else {
        ++it;
      }
  }

  // ---- instructions: MNEMONIC key=value ... (a value ends at whitespace outside parentheses)
  void instruction(const std::string& code, std::size_t a) {
    need_stream(a);
    std::size_t b = a;
    while (b < code.size() && (ident_char(code[b]))) ++b;
    const std::string mn = code.substr(a, b - a);
    const tbl::Op* op = find_op(mn);
    if (!op) fail(a, fmt::format("unknown instruction '{}'", mn));
    if (!((op->streams >> stream_) & 1u))
      fail(a, fmt::format("{} does not run on the {} stream", mn, tbl::kStreamNames[stream_]));
    Bits w = blank();
    for (unsigned f = 0; f < tbl::kFieldCount; ++f) set(w, f, tbl::kFields[f].def);
    set(w, tbl::kF_op, op->code);
    // fields of keys the op does not take must stay zero
    std::set<unsigned> allowed;
    for (unsigned k = 0; k < op->nkeys; ++k) allowed.insert(static_cast<unsigned>(op->keys[k]));
    for (unsigned f = 0; f < tbl::kFieldCount; ++f) {
      if (f == tbl::kF_op || !tbl::kFields[f].def) continue;
      bool used = false;
      for (unsigned k : allowed)
        for (unsigned i = 0; i < tbl::kKeys[k].count; ++i) used |= tbl::kKeys[k].fields[i] == static_cast<int>(f);
      if (!used) set(w, f, 0);
    }
    std::set<std::string> seen;
    std::size_t at = b;
    // positional operands (the op's args), when the first operand is not key=value
    if (op->nargs) {
      std::size_t x = code.find_first_not_of(" \t", at);
      std::size_t y = x;
      while (y < code.size() && ident_char(code[y])) ++y;
      if (x != std::string::npos &&
          !(y < code.size() && code[y] == '=' && (y + 1 >= code.size() || code[y + 1] != '='))) {
        std::string form;
        for (unsigned i = 0; i < op->nargs; ++i) form += std::string(i ? ", " : " ") + tbl::kKeys[op->args[i]].name;
        for (unsigned i = 0; i < op->nargs; ++i) {
          const std::size_t vs = code.find_first_not_of(" \t", at);
          std::size_t ve = vs;
          int depth = 0;
          while (ve < code.size() && (depth > 0 || (code[ve] != ',' && code[ve] != ' ' && code[ve] != '\t'))) {
            depth += code[ve] == '(' ? 1 : code[ve] == ')' ? -1 : 0;
            ++ve;
          }
          if (vs == std::string::npos || ve == vs)
            fail(vs == std::string::npos ? code.size() : vs, fmt::format("expected {}{}", mn, form));
          const tbl::Key& k = tbl::kKeys[op->args[i]];
          seen.insert(k.name);
          key_value(w, k, code, vs, ve);
          at = code.find_first_not_of(" \t", ve);
          if (i + 1 < op->nargs) {
            if (at == std::string::npos || code[at] != ',')
              fail(at == std::string::npos ? code.size() : at, fmt::format("expected {}{}", mn, form));
            ++at;
          }
          if (at == std::string::npos) at = code.size();
        }
      }
    }
    for (;;) {
      at = code.find_first_not_of(" \t", at);
      if (at == std::string::npos) break;
      std::size_t ke = at;
      while (ke < code.size() && (ident_char(code[ke]) || code[ke] == '.')) ++ke;
      if (ke == at) fail(at, "expected key=value");
      const std::string key = code.substr(at, ke - at);
      const tbl::Key* k = find_key(key);
      const bool common = key == "wait" || key == "post";
      if (!k || (!common && !allowed.count(static_cast<unsigned>(k - tbl::kKeys)))) {
        std::string keys;
        for (unsigned i = 0; i < op->nkeys; ++i) keys += std::string(" ") + tbl::kKeys[op->keys[i]].name;
        fail(at, fmt::format("{} takes no key '{}' (its keys: wait post{})", mn, key, keys));
      }
      if (!seen.insert(key).second) fail(at, fmt::format("key '{}' given twice", key));
      std::size_t vs = ke, ve = ke;
      if (ke < code.size() && code[ke] == '=') {
        vs = ke + 1;
        int depth = 0;
        ve = vs;
        while (ve < code.size() && (depth > 0 || (code[ve] != ' ' && code[ve] != '\t'))) {
          if (code[ve] == '(') ++depth;
          if (code[ve] == ')') --depth;
          ++ve;
        }
        if (ve == vs) fail(vs, fmt::format("expected a value after '{}='", key));
      } else if (!(k->syntax == tbl::Syntax::field && tbl::kFields[k->fields[0]].kind == tbl::Kind::flag)) {
        fail(ke, fmt::format("expected '=' after '{}'", key));
      }
      key_value(w, *k, code, vs, ve);
      at = ve;
    }
    if (op->needs >= 0 && !seen.count(tbl::kKeys[op->needs].name)) {
      const auto& k = tbl::kKeys[op->needs];
      fail(a, fmt::format("{} needs {}={}", op->name, k.name,
                          k.syntax == tbl::Syntax::wait ? "SEM>=VALUE" : "SEM+=VALUE"));
    }
    prog_.streams[stream_].push_back(std::move(w));
  }

  void put(Bits& w, int f, std::int64_t v, std::size_t col) const {
    const auto& fd = tbl::kFields[f];
    const std::int64_t lo = fd.bits >= 8 && fd.kind == tbl::Kind::int_ ? -(std::int64_t{1} << (fd.bits - 1)) : 0;
    const bool fits = fd.bits >= 63 ? v >= lo : v >= lo && v < (std::int64_t{1} << fd.bits);
    if (!fits) fail(col, fmt::format("{} does not fit in {} ({} bits)", v, fd.name, fd.bits));
    const std::uint64_t m = fd.bits >= 64 ? ~0ull : (1ull << fd.bits) - 1;
    set(w, static_cast<unsigned>(f), static_cast<std::uint64_t>(v) & m);
  }

  std::int64_t enum_value(int f, const std::string& code, std::size_t a, std::size_t b) const {
    const auto& fd = tbl::kFields[f];
    std::size_t x = code.find_first_not_of(" \t", a), y = code.find_last_not_of(" \t", b - 1);
    if (x >= b) fail(a, fmt::format("expected a value for {}", fd.name));
    const std::string word = code.substr(x, y + 1 - x);
    const auto& e = tbl::kEnums[fd.enum_id];
    for (unsigned i = 0; i < e.count; ++i)
      if (word == e.items[i].name) return e.items[i].value;
    if (!ident_start(word[0]) || consts_.count(word)) return eval(code, a, b);
    std::string names;
    for (unsigned i = 0; i < e.count; ++i) names += std::string(i ? ", " : "") + e.items[i].name;
    fail(x, fmt::format("expected a {} ({}), got '{}'", e.name, names, word));
  }

  std::int64_t sem_value(const std::string& code, std::size_t a, std::size_t b) const {
    std::size_t x = code.find_first_not_of(" \t", a), y = code.find_last_not_of(" \t", b - 1);
    if (x >= b) fail(a, "expected a semaphore");
    const std::string word = code.substr(x, y + 1 - x);
    if (auto it = sems_.find(word); it != sems_.end()) return it->second;
    // NAME + EXPR: the semaphore EXPR indices after NAME, which must be declared too (a pair or a
    // row of semaphores declared together, chosen by a loop variable: .sem w0, w1 ... w0+kt%2)
    std::size_t n = x;
    while (n < b && ident_char(code[n])) ++n;
    const std::size_t plus = code.find_first_not_of(" \t", n);
    if (auto it = sems_.find(code.substr(x, n - x)); it != sems_.end() && plus < b && code[plus] == '+') {
      const std::int64_t v = static_cast<std::int64_t>(it->second) + eval(code, plus + 1, b);
      if (v < 0 || v >= static_cast<std::int64_t>(tbl::kSems) || !used_sems_.count(static_cast<unsigned>(v)))
        fail(x, fmt::format("'{}' is semaphore {}, which no .sem declares", word, v));
      return v;
    }
    if (ident_start(word[0]) && !consts_.count(word))
      fail(x, fmt::format("unknown semaphore '{}' (declare it with .sem)", word));
    const std::int64_t v = eval(code, a, b);
    if (v < 0 || v >= static_cast<std::int64_t>(tbl::kSems))
      fail(x, fmt::format("semaphore {} (there are {})", v, tbl::kSems));
    return v;
  }

  /// A register at the start of [a, b) (`rN`, then the end or '+'): its number, and `rest` the
  /// position after the '+' (or b); -1 if [a, b) does not start with a register.
  int reg_prefix(const std::string& code, std::size_t a, std::size_t b, std::size_t& rest) const {
    const std::size_t x = code.find_first_not_of(" \t", a);
    if (x >= b) return -1;
    std::size_t y = x;
    while (y < b && ident_char(code[y])) ++y;
    const int r = reg_name(std::string_view(code).substr(x, y - x));
    if (r < 0) return -1;
    const std::size_t z = code.find_first_not_of(" \t", y);
    if (z >= b) {
      rest = b;
      return r;
    }
    if (code[z] != '+') fail(z, fmt::format("expected '+' after register r{} (rN or rN+EXPR)", r));
    rest = z + 1;
    if (code.find_first_not_of(" \t", rest) >= b) fail(z, "expected an expression after '+'");
    return r;
  }
  std::int64_t reg_value(const std::string& code, std::size_t a, std::size_t b) const {
    std::size_t rest = b;
    const int r = reg_prefix(code, a, b, rest);
    if (r < 0 || rest != b) {
      const std::size_t x = code.find_first_not_of(" \t", a);
      fail(x < b ? x : a, fmt::format("expected a register r0 .. r{}", tbl::kRegs - 1));
    }
    return r;
  }
  void same_stream(const std::string& name, unsigned stream, std::size_t col) const {
    const unsigned ls = label_stream_.at(name);
    if (ls != stream)
      fail(col, fmt::format("label '{}' is in the {} stream, not the {}", name, tbl::kStreamNames[ls],
                            tbl::kStreamNames[stream]));
  }
  /// A branch target: a label of this stream (before or after), or an expression.
  void target_value(Bits& w, int f, const std::string& code, std::size_t a, std::size_t b) {
    const std::size_t x = code.find_first_not_of(" \t", a), y = code.find_last_not_of(" \t", b - 1);
    if (x >= b) fail(a, "expected a label");
    const std::string word = code.substr(x, y + 1 - x);
    if (word.size() >= 2 && (word.back() == 'b' || word.back() == 'f') &&
        std::all_of(word.begin(), word.end() - 1, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      const std::string num = word.substr(0, word.size() - 1);
      const unsigned st = static_cast<unsigned>(stream_);
      if (word.back() == 'b') {
        const auto it = locals_.find({st, num});
        if (it == locals_.end())
          fail(x,
               fmt::format("local label '{}': no '{}:' before it in the {} stream", word, num, tbl::kStreamNames[st]));
        put(w, f, it->second.back(), x);
      } else {
        local_fixups_.push_back({st, prog_.streams[stream_].size(), f, num, line_, x});
      }
      return;
    }
    bool ident = ident_start(word[0]);
    for (char c : word) ident = ident && ident_char(c);
    if (ident && !consts_.count(word)) {
      if (labels_.count(word)) {
        same_stream(word, static_cast<unsigned>(stream_), x);
        put(w, f, labels_.at(word), x);
      } else {
        fixups_.push_back({static_cast<unsigned>(stream_), prog_.streams[stream_].size(), f, word, line_, x});
      }
      return;
    }
    put(w, f, eval(code, a, b), a);
  }

  void field_value(Bits& w, int f, const std::string& code, std::size_t a, std::size_t b) {
    const auto& fd = tbl::kFields[f];
    std::size_t rest = b;
    if (fd.kind == tbl::Kind::reg) {
      put(w, f, reg_value(code, a, b), a);
      return;
    }
    if (fd.kind == tbl::Kind::target) {
      target_value(w, f, code, a, b);
      return;
    }
    if (fd.reg >= 0 && fd.kind != tbl::Kind::dims) {
      // rN or rN+EXPR: the register added at issue, and the field the rest (0)
      if (const int r = reg_prefix(code, a, b, rest); r >= 0) {
        put(w, fd.reg, r, a);
        put(w, f, rest < b ? eval(code, rest, b) : 0, rest);
        return;
      }
    }
    switch (fd.kind) {
      case tbl::Kind::enum_:
        put(w, f, enum_value(f, code, a, b), a);
        break;
      case tbl::Kind::sem:
        put(w, f, sem_value(code, a, b), a);
        break;
      case tbl::Kind::dims: {
        auto parts = split(code, a, b, ',');
        if (parts.size() > 4) fail(a, fmt::format("{} has at most 4 dimensions", fd.name));
        std::uint64_t v = fd.def;
        for (std::size_t d = 0; d < parts.size(); ++d) {
          std::int64_t x;
          if (const int r = fd.reg >= 0 ? reg_prefix(code, parts[d].first, parts[d].second, rest) : -1; r >= 0) {
            // one dimension's size may add a register
            if (get(w, static_cast<unsigned>(fd.reg)))
              fail(parts[d].first, fmt::format("only one dimension of {} may name a register", fd.name));
            put(w, fd.reg, r, parts[d].first);
            put(w, fd.reg_dim, static_cast<std::int64_t>(d), parts[d].first);
            x = rest < parts[d].second ? eval(code, rest, parts[d].second) : 0;
          } else {
            x = eval(code, parts[d].first, parts[d].second);
          }
          if (x < 0 || x > 0xFFFF)
            fail(parts[d].first, fmt::format("{} dim {} = {} does not fit in 16 bits", fd.name, d, x));
          v = (v & ~(0xFFFFull << (16 * d))) | (static_cast<std::uint64_t>(x) << (16 * d));
        }
        set(w, static_cast<unsigned>(f), v);
        break;
      }
      default:
        put(w, f, eval(code, a, b), a);
    }
  }

  void key_value(Bits& w, const tbl::Key& k, const std::string& code, std::size_t a, std::size_t b) {
    switch (k.syntax) {
      case tbl::Syntax::field:
        if (a == b)
          put(w, k.fields[0], 1, a);  // a bare flag
        else
          field_value(w, k.fields[0], code, a, b);
        break;
      case tbl::Syntax::wait:
      case tbl::Syntax::post: {
        const char* op = k.syntax == tbl::Syntax::wait ? ">=" : "+=";
        const std::size_t m = code.find(op, a);
        if (m == std::string::npos || m >= b) fail(a, fmt::format("expected {}=SEM{}VALUE", k.name, op));
        put(w, k.fields[0], 1, a);
        put(w, k.fields[1], sem_value(code, a, m), a);
        field_value(w, k.fields[2], code, m + 2, b);  // (a wait value may add a register)
        break;
      }
      case tbl::Syntax::operand:
      case tbl::Syntax::tile:
      case tbl::Syntax::mem: {
        const unsigned n = k.count;
        auto parts = split(code, a, b, ':');
        static const char* forms[] = {"", "", "", "SPACE:ADDR:TYPE", "ADDR:TYPE", "SPACE:ADDR"};
        if (parts.size() != n) fail(a, fmt::format("expected {}={}", k.name, forms[static_cast<int>(k.syntax)]));
        for (unsigned i = 0; i < n; ++i) field_value(w, k.fields[i], code, parts[i].first, parts[i].second);
        break;
      }
      case tbl::Syntax::vecaddr:
        put(w, k.fields[0], 1, a);
        field_value(w, k.fields[1], code, a, b);
        break;
      case tbl::Syntax::regimm: {
        // rN, EXPR or rN+EXPR: the register and the immediate added to it
        std::size_t rest = b;
        if (const int r = reg_prefix(code, a, b, rest); r >= 0) {
          put(w, k.fields[0], r, a);
          if (rest < b) put(w, k.fields[1], eval(code, rest, b), rest);
        } else {
          put(w, k.fields[1], eval(code, a, b), a);
        }
        break;
      }
    }
  }

  /// [a, b) split at `sep` outside parentheses.
  std::vector<std::pair<std::size_t, std::size_t>> split(const std::string& s, std::size_t a, std::size_t b,
                                                         char sep) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    int depth = 0;
    std::size_t start = a;
    for (std::size_t i = a; i < b; ++i) {
      if (s[i] == '(')
        ++depth;
      else if (s[i] == ')')
        --depth;
      else if (s[i] == sep && depth == 0) {
        out.emplace_back(start, i);
        start = i + 1;
      }
    }
    out.emplace_back(start, b);
    return out;
  }

  // ---- integer expressions, C precedence: || && | ^ & (== != < <= > >=) (<< >>) (+ -) (* / %) unary
  struct Lex {
    const std::string& s;
    std::size_t at, end;
  };
  std::int64_t eval_all(const std::string& s, std::size_t a) const { return eval(s, a, s.size()); }
  std::int64_t eval(const std::string& s, std::size_t a, std::size_t b) const {
    Lex x{s, a, b};
    const std::int64_t v = e_lor(x);
    skip(x);
    if (x.at < x.end) fail(x.at, fmt::format("unexpected '{}' in the expression", s.substr(x.at, x.end - x.at)));
    return v;
  }
  static void skip(Lex& x) {
    while (x.at < x.end && (x.s[x.at] == ' ' || x.s[x.at] == '\t')) ++x.at;
  }
  static bool eat(Lex& x, const char* t) {
    skip(x);
    const std::size_t n = std::strlen(t);
    if (x.at + n <= x.end && x.s.compare(x.at, n, t) == 0) {
      // do not take '<' of "<<" or "<=", '=' of "==" ...
      if (n == 1 && x.at + 1 < x.end && (t[0] == '<' || t[0] == '>') && (x.s[x.at + 1] == t[0] || x.s[x.at + 1] == '='))
        return false;
      if (n == 1 && (t[0] == '&' || t[0] == '|') && x.at + 1 < x.end && x.s[x.at + 1] == t[0]) return false;
      x.at += n;
      return true;
    }
    return false;
  }
  std::int64_t e_lor(Lex& x) const {  // both sides are evaluated (no side effects to skip)
    std::int64_t v = e_land(x);
    while (eat(x, "||")) v = (e_land(x) != 0) | (v != 0);
    return v;
  }
  std::int64_t e_land(Lex& x) const {
    std::int64_t v = e_or(x);
    while (eat(x, "&&")) v = (e_or(x) != 0) & (v != 0);
    return v;
  }
  std::int64_t e_or(Lex& x) const {
    std::int64_t v = e_xor(x);
    while (eat(x, "|")) v |= e_xor(x);
    return v;
  }
  std::int64_t e_xor(Lex& x) const {
    std::int64_t v = e_and(x);
    while (eat(x, "^")) v ^= e_and(x);
    return v;
  }
  std::int64_t e_and(Lex& x) const {
    std::int64_t v = e_cmp(x);
    while (eat(x, "&")) v &= e_cmp(x);
    return v;
  }
  std::int64_t e_cmp(Lex& x) const {
    std::int64_t v = e_shift(x);
    for (;;) {
      if (eat(x, "=="))
        v = v == e_shift(x);
      else if (eat(x, "!="))
        v = v != e_shift(x);
      else if (eat(x, "<="))
        v = v <= e_shift(x);
      else if (eat(x, ">="))
        v = v >= e_shift(x);
      else if (eat(x, "<"))
        v = v < e_shift(x);
      else if (eat(x, ">"))
        v = v > e_shift(x);
      else
        return v;
    }
  }
  std::int64_t e_shift(Lex& x) const {
    std::int64_t v = e_add(x);
    for (;;) {
      if (eat(x, "<<"))
        v = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) << (e_add(x) & 63));
      else if (eat(x, ">>"))
        v >>= (e_add(x) & 63);
      else
        return v;
    }
  }
  std::int64_t e_add(Lex& x) const {
    std::int64_t v = e_mul(x);
    for (;;) {
      if (eat(x, "+"))
        v += e_mul(x);
      else if (eat(x, "-"))
        v -= e_mul(x);
      else
        return v;
    }
  }
  std::int64_t e_mul(Lex& x) const {
    std::int64_t v = e_unary(x);
    for (;;) {
      skip(x);
      const std::size_t at = x.at;
      if (eat(x, "*"))
        v *= e_unary(x);
      else if (eat(x, "/") || eat(x, "%")) {
        const bool div = x.s[at] == '/';
        const std::int64_t d = e_unary(x);
        if (d == 0) fail(at, "division by zero");
        v = div ? v / d : v % d;
      } else
        return v;
    }
  }
  std::int64_t e_unary(Lex& x) const {
    if (eat(x, "-")) return -e_unary(x);
    if (eat(x, "~")) return ~e_unary(x);
    if (eat(x, "!")) return !e_unary(x);
    if (eat(x, "+")) return e_unary(x);
    return e_primary(x);
  }
  std::int64_t e_primary(Lex& x) const {
    skip(x);
    if (x.at >= x.end) fail(x.at, "expected a value");
    const char c = x.s[x.at];
    if (c == '(') {
      ++x.at;
      const std::int64_t v = e_lor(x);
      if (!eat(x, ")")) fail(x.at, "expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t b = x.at;
      while (b < x.end && (std::isalnum(static_cast<unsigned char>(x.s[b])) || x.s[b] == '_')) ++b;
      std::string t = x.s.substr(x.at, b - x.at);
      t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
      int base = 10;
      std::size_t skip_n = 0;
      if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        base = 16, skip_n = 2;
      else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B'))
        base = 2, skip_n = 2;
      errno = 0;
      char* endp = nullptr;
      const unsigned long long v = std::strtoull(t.c_str() + skip_n, &endp, base);
      if (*endp || errno || t.size() == skip_n)
        fail(x.at, fmt::format("'{}' is not a number", x.s.substr(x.at, b - x.at)));
      x.at = b;
      return static_cast<std::int64_t>(v);
    }
    if (ident_start(c)) {
      std::size_t b = x.at;
      while (b < x.end && ident_char(x.s[b])) ++b;
      const std::string name = x.s.substr(x.at, b - x.at);
      const std::size_t at = x.at;
      x.at = b;
      skip(x);
      if (x.at < x.end && x.s[x.at] == '(') return call(x, name, at);
      if (auto it = consts_.find(name); it != consts_.end()) return it->second;
      if (auto it = labels_.find(name); it != labels_.end()) return it->second;
      if (reg_name(name) >= 0) fail(at, fmt::format("'{}' is a register, where this value takes a number", name));
      fail(at, fmt::format("unknown name '{}'", name));
    }
    fail(x.at, fmt::format("expected a value, got '{}'", c));
  }
  std::int64_t call(Lex& x, const std::string& name, std::size_t at) const {
    ++x.at;  // '('
    if (name == "f32") {
      // f32(LITERAL): the FP32 bits of a decimal or inf/nan literal
      std::size_t b = x.s.find(')', x.at);
      if (b == std::string::npos || b > x.end) fail(x.at, "expected ')'");
      std::string lit = x.s.substr(x.at, b - x.at);
      lit.erase(std::remove_if(lit.begin(), lit.end(), [](char ch) { return ch == ' ' || ch == '\t'; }), lit.end());
      char* endp = nullptr;
      errno = 0;
      const float f = std::strtof(lit.c_str(), &endp);
      if (lit.empty() || *endp) fail(x.at, fmt::format("f32() takes a number, got '{}'", lit));
      const std::uint32_t u = numerics::f32_bits(f);
      x.at = b + 1;
      return u;
    }
    if (name == "dtype") {
      // dtype(NAME): the code of an element type (a constant a kernel's operands share)
      std::size_t b = x.s.find(')', x.at);
      if (b == std::string::npos || b > x.end) fail(x.at, "expected ')'");
      std::size_t u = x.s.find_first_not_of(" \t", x.at), v = x.s.find_last_not_of(" \t", b - 1);
      const std::string word = u < b ? x.s.substr(u, v + 1 - u) : std::string{};
      const auto* it = std::find_if(std::begin(tbl::kEnums), std::end(tbl::kEnums),
                                    [](const tbl::Enum& en) { return std::string_view(en.name) == "dtype"; });
      if (it == std::end(tbl::kEnums)) fail(at, "dtype(): the ISA table has no dtype enum");
      const auto& e = *it;
      for (unsigned i = 0; i < e.count; ++i)
        if (word == e.items[i].name) {
          x.at = b + 1;
          return e.items[i].value;
        }
      std::string names;
      for (unsigned i = 0; i < e.count; ++i) names += std::string(i ? ", " : "") + e.items[i].name;
      fail(x.at, fmt::format("dtype() takes an element type ({}), got '{}'", names, word));
    }
    std::vector<std::int64_t> args;
    if (!eat(x, ")")) {
      do args.push_back(e_lor(x));
      while (eat(x, ","));
      if (!eat(x, ")")) fail(x.at, "expected ')' or ','");
    }
    auto want = [&](std::size_t n) {
      if (args.size() != n) fail(at, fmt::format("{}() takes {} argument(s)", name, n));
    };
    if (name == "min") return want(2), std::min(args[0], args[1]);
    if (name == "max") return want(2), std::max(args[0], args[1]);
    if (name == "cdiv") {
      want(2);
      if (args[1] <= 0) fail(at, "cdiv() by a non-positive number");
      return (args[0] + args[1] - 1) / args[1];
    }
    if (name == "log2") {
      want(1);
      if (args[0] <= 0 || (args[0] & (args[0] - 1))) fail(at, fmt::format("log2({}): not a power of two", args[0]));
      return __builtin_ctzll(static_cast<std::uint64_t>(args[0]));
    }
    if (name == "f32div") {
      // f32div(A, B): the FP32 bits of A / B, rounded to nearest (1/n for a mean)
      want(2);
      if (args[1] == 0) fail(at, "f32div() by zero");
      const float f = static_cast<float>(static_cast<double>(args[0]) / static_cast<double>(args[1]));
      const std::uint32_t u = numerics::f32_bits(f);
      return u;
    }
    if (name == "f32rsqrt") {
      // f32rsqrt(A): the FP32 bits of 1 / sqrt(A), rounded to nearest (an attention scale)
      want(1);
      if (args[0] <= 0) fail(at, "f32rsqrt() of a non-positive number");
      const float f = static_cast<float>(1.0 / std::sqrt(static_cast<double>(args[0])));
      const std::uint32_t u = numerics::f32_bits(f);
      return u;
    }
    if (name == "sb") {
      // sb(P, OFF): the DMA's SBUF address of byte OFF of partition P
      want(2);
      auto it = consts_.find("SBUF_BYTES");
      if (it == consts_.end()) fail(at, "sb() needs the constant SBUF_BYTES (bytes per partition)");
      if (it->second <= 0) fail(at, "SBUF_BYTES is not positive");
      if (args[1] < 0 || args[1] >= it->second)
        fail(at, fmt::format("sb(): offset {} outside a partition of {} bytes", args[1], it->second));
      unsigned bits = 0;  // the DMA's partition field starts at clog2(SBUF_BYTES)
      while ((std::int64_t{1} << bits) < it->second) ++bits;
      return (args[0] << bits) | args[1];
    }
    fail(at, fmt::format("unknown function '{}' (min max cdiv log2 sb f32 f32div f32rsqrt dtype)", name));
  }

  std::string file_;
  std::vector<std::string> lines_;
  std::size_t line_ = 0;
  std::map<std::string, std::int64_t> consts_;
  std::set<std::string> loop_vars_, set_names_;
  std::map<std::string, unsigned> sems_;
  std::set<unsigned> used_sems_;
  std::map<std::string, unsigned> labels_;
  std::map<std::string, unsigned> label_stream_;
  /// A target whose label comes later: patched when the file is read.
  struct Fixup {
    unsigned stream;
    std::size_t index;
    int field;
    std::string name;
    std::size_t line, col;
  };
  std::vector<Fixup> fixups_;
  /// Local labels: each definition's pc, by stream and number; forward references not yet defined.
  std::map<std::pair<unsigned, std::string>, std::vector<unsigned>> locals_;
  std::vector<Fixup> local_fixups_;
  int stream_ = -1;
  Program prog_;
};

std::string num(std::uint64_t v) { return v < 4096 ? fmt::format("{}", v) : fmt::format("{:#x}", v); }

/// The names of a program that a word's text uses: semaphores, and the labels of its stream.
struct Names {
  const std::map<unsigned, std::string>& sems;
  const std::vector<Program::Label>* labels;
  unsigned stream;
};

std::string field_text(const Bits& w, int f, const Names& nm) {
  const auto& sem_names = nm.sems;
  const auto& fd = tbl::kFields[f];
  const std::uint64_t v = get(w, static_cast<unsigned>(f));
  const unsigned r = fd.reg >= 0 ? static_cast<unsigned>(get(w, static_cast<unsigned>(fd.reg))) : 0;
  if (r && fd.kind != tbl::Kind::dims) return v ? fmt::format("r{}+{}", r, num(v)) : fmt::format("r{}", r);
  switch (fd.kind) {
    case tbl::Kind::reg:
      return fmt::format("r{}", v);
    case tbl::Kind::target:
      if (nm.labels)
        for (const auto& l : *nm.labels)
          if (l.stream == nm.stream && l.pc == v) return l.name;
      return num(v);
    case tbl::Kind::enum_: {
      const auto& e = tbl::kEnums[fd.enum_id];
      for (unsigned i = 0; i < e.count; ++i)
        if (e.items[i].value == v) return e.items[i].name;
      return num(v);
    }
    case tbl::Kind::sem:
      if (auto it = sem_names.find(static_cast<unsigned>(v)); it != sem_names.end()) return it->second;
      return num(v);
    case tbl::Kind::dims: {
      const unsigned rd = r ? static_cast<unsigned>(get(w, static_cast<unsigned>(fd.reg_dim))) : 4;
      unsigned last = rd < 4 ? rd : 0;
      for (unsigned d = 0; d < 4; ++d)
        if (((v >> (16 * d)) & 0xFFFF) != ((fd.def >> (16 * d)) & 0xFFFF)) last = std::max(last, d);
      std::string s;
      for (unsigned d = 0; d <= last; ++d) {
        const std::uint64_t x = (v >> (16 * d)) & 0xFFFF;
        s += d ? "," : "";
        s += d != rd ? num(x) : x ? fmt::format("r{}+{}", r, num(x)) : fmt::format("r{}", r);
      }
      return s;
    }
    default:
      if (std::strstr(fd.name, "addr")) return fmt::format("{:#x}", v);
      return num(v);
  }
}

}  // namespace

Program assemble(const std::string& text, const std::string& file, const std::map<std::string, std::int64_t>& defines) {
  return Assembler(text, file, defines).run();
}

std::string disassemble(const Bits& w, unsigned stream, const std::map<unsigned, std::string>& sem_names,
                        const std::vector<Program::Label>* labels) {
  const Names nm{sem_names, labels, stream};
  if (!illegal(w, stream).empty()) {
    std::string hex;
    for (unsigned i = tbl::kInstBits / 4; i-- > 0;) hex += "0123456789abcdef"[w.slice(4 * i, 4)];
    const std::size_t nz = hex.find_first_not_of('0');
    return ".word 0x" + (nz == std::string::npos ? std::string("0") : hex.substr(nz));
  }
  const tbl::Op* op = find_op(static_cast<unsigned>(get(w, tbl::kF_op)));
  std::string s = op->name;
  auto is_default = [&](const tbl::Key& k) {
    for (unsigned i = 0; i < k.count; ++i) {
      const auto& fd = tbl::kFields[k.fields[i]];
      if (get(w, static_cast<unsigned>(k.fields[i])) != fd.def) return false;
      if (fd.reg >= 0 && get(w, static_cast<unsigned>(fd.reg))) return false;
    }
    return true;
  };
  // the value of a key (without "key=")
  auto value_text = [&](const tbl::Key& k) -> std::string {
    switch (k.syntax) {
      case tbl::Syntax::field:
        return field_text(w, k.fields[0], nm);
      case tbl::Syntax::wait:
        return fmt::format("{}>={}", field_text(w, k.fields[1], nm), field_text(w, k.fields[2], nm));
      case tbl::Syntax::post:
        return fmt::format("{}+={}", field_text(w, k.fields[1], nm), field_text(w, k.fields[2], nm));
      case tbl::Syntax::vecaddr:
        return field_text(w, k.fields[1], nm);
      case tbl::Syntax::regimm: {
        const auto imm = static_cast<std::int32_t>(get(w, static_cast<unsigned>(k.fields[1])));
        const auto rb = get(w, static_cast<unsigned>(k.fields[0]));
        const std::string i = imm < 0 ? fmt::format("{}", imm) : num(static_cast<std::uint64_t>(imm));
        if (!rb) return i;
        return imm ? fmt::format("r{}+{}", rb, i) : fmt::format("r{}", rb);
      }
      default: {
        std::string v;
        for (unsigned i = 0; i < k.count; ++i) v += (i ? ":" : "") + field_text(w, k.fields[i], nm);
        return v;
      }
    }
  };
  auto key_text = [&](const tbl::Key& k) -> std::string {
    if (k.syntax == tbl::Syntax::field && tbl::kFields[k.fields[0]].kind == tbl::Kind::flag &&
        get(w, static_cast<unsigned>(k.fields[0])) == 1)
      return k.name;
    return fmt::format("{}={}", k.name, value_text(k));
  };
  for (unsigned i = 0; i < op->nargs; ++i) s += (i ? ", " : " ") + value_text(tbl::kKeys[op->args[i]]);
  for (unsigned i = 0; i < op->nkeys; ++i) {
    const auto& k = tbl::kKeys[op->keys[i]];
    if (std::find(op->args, op->args + op->nargs, op->keys[i]) != op->args + op->nargs) continue;
    if (!is_default(k)) s += " " + key_text(k);
  }
  for (const char* name : {"wait", "post"}) {
    const tbl::Key* k = find_key(name);
    if (!is_default(*k)) s += " " + key_text(*k);
  }
  return s;
}

std::string disassemble(const Program& p) {
  std::size_t n = 0;
  for (const auto& s : p.streams) n += s.size();
  std::string out = fmt::format("; NeuronCore program: {} instructions (", n);
  for (unsigned s = 0; s < kStreams; ++s)
    out += fmt::format("{}{} {}", s ? ", " : "", p.streams[s].size(), tbl::kStreamNames[s]);
  out += ")\n";
  for (const auto& [idx, name] : p.sem_names) out += fmt::format(".sem {} = {}\n", name, idx);
  for (unsigned s = 0; s < kStreams; ++s) {
    const auto& ins = p.streams[s];
    bool has_label = false;
    for (const auto& l : p.labels) has_label |= l.stream == s;
    if (ins.empty() && !has_label) continue;
    out += fmt::format("\n.stream {}\n", tbl::kStreamNames[s]);
    for (std::size_t pc = 0; pc <= ins.size(); ++pc) {
      for (const auto& l : p.labels)
        if (l.stream == s && l.pc == pc) out += l.name + ":\n";
      if (pc < ins.size()) out += "    " + disassemble(ins[pc], s, p.sem_names, &p.labels) + "\n";
    }
  }
  return out;
}

}  // namespace trn::isa
