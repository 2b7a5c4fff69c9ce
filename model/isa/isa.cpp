#include "isa/isa.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace trn::isa {

namespace {

constexpr char kMagic[4] = {'T', 'R', 'N', 'I'};
constexpr unsigned kVersion = 2;  // 2: five streams (gpsimd)

/// The bits of op's fields (the opcode, wait, post and its keys' fields).
Bits used_mask(const tbl::Op& o) {
  Bits m(tbl::kInstBits);
  auto mark = [&](int f) {
    if (f < 0) return;
    const auto& fd = tbl::kFields[f];
    for (unsigned b = 0; b < fd.bits; ++b) m.set_bit(fd.lsb + b, true);
  };
  for (unsigned f : {tbl::kF_op, tbl::kF_wait_en, tbl::kF_wait_sem, tbl::kF_wait_val, tbl::kF_post_en, tbl::kF_post_sem,
                     tbl::kF_post_val}) {
    mark(static_cast<int>(f));
    mark(tbl::kFields[f].reg);
  }
  for (unsigned k = 0; k < o.nkeys; ++k) {
    const auto& key = tbl::kKeys[o.keys[k]];
    for (unsigned i = 0; i < key.count; ++i) {
      mark(key.fields[i]);
      mark(tbl::kFields[key.fields[i]].reg);  // its register companion, and a dims field's dimension
      mark(tbl::kFields[key.fields[i]].reg_dim);
    }
  }
  return m;
}

const Bits& mask_of(const tbl::Op& o) {
  static const auto masks = [] {
    std::vector<Bits> v;
    for (const auto& op : tbl::kOps) v.push_back(used_mask(op));
    return v;
  }();
  return masks[&o - tbl::kOps];
}

void put_u16(std::vector<std::uint8_t>& b, unsigned v) {
  b.push_back(v & 0xFF);
  b.push_back((v >> 8) & 0xFF);
}
void put_u32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back((v >> (8 * i)) & 0xFF);
}

struct Reader {
  const std::vector<std::uint8_t>& b;
  const std::string& file;
  std::size_t at = 0;
  void need(std::size_t n, const char* what) const {
    if (b.size() - at < n)
      throw Error(fmt::format("{}: byte {}: the file ends inside {} ({} bytes long)", file, at, what, b.size()));
  }
  unsigned u8(const char* what) {
    need(1, what);
    return b[at++];
  }
  unsigned u16(const char* what) {
    need(2, what);
    unsigned v = b[at] | (b[at + 1] << 8);
    at += 2;
    return v;
  }
  std::uint32_t u32(const char* what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(b[at + i]) << (8 * i);
    at += 4;
    return v;
  }
  std::string str(const char* what) {
    unsigned n = u8(what);
    need(n, what);
    std::string s(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(at + n));
    at += n;
    return s;
  }
};

}  // namespace

std::uint64_t get(const Bits& w, unsigned f) { return w.slice(tbl::kFields[f].lsb, tbl::kFields[f].bits); }
void set(Bits& w, unsigned f, std::uint64_t v) { w.set_slice(tbl::kFields[f].lsb, tbl::kFields[f].bits, v); }
Bits blank() { return Bits(tbl::kInstBits); }

const tbl::Op* find_op(unsigned code) {
  for (const auto& o : tbl::kOps)
    if (o.code == code) return &o;
  return nullptr;
}
const tbl::Op* find_op(const std::string& name) {
  for (const auto& o : tbl::kOps)
    if (name == o.name) return &o;
  return nullptr;
}
int find_stream(const std::string& name) {
  for (unsigned s = 0; s < kStreams; ++s)
    if (name == tbl::kStreamNames[s]) return static_cast<int>(s);
  return -1;
}

std::string illegal(const Bits& w, unsigned s) {
  const unsigned code = static_cast<unsigned>(get(w, tbl::kF_op));
  const tbl::Op* o = find_op(code);
  if (!o) return fmt::format("unknown opcode {:#04x}", code);
  if (!((o->streams >> s) & 1u)) return fmt::format("{} does not run on the {} stream", o->name, tbl::kStreamNames[s]);
  const Bits& m = mask_of(*o);
  for (unsigned i = 0; i < m.words(); ++i) {
    const std::uint64_t extra = w.word(i) & ~m.word(i);
    if (!extra) continue;
    const unsigned bit = 64 * i + static_cast<unsigned>(__builtin_ctzll(extra));
    for (const auto& f : tbl::kFields)
      if (bit >= f.lsb && bit < f.lsb + f.bits)
        return fmt::format("{} does not use field {}, which is not zero", o->name, f.name);
    return fmt::format("reserved bit {} is set", bit);
  }
  // a group's enable off with its other fields set
  for (unsigned k = 0; k < tbl::kKeyCount; ++k) {
    const auto& key = tbl::kKeys[k];
    if (key.syntax != tbl::Syntax::wait && key.syntax != tbl::Syntax::post && key.syntax != tbl::Syntax::vecaddr)
      continue;
    if (get(w, static_cast<unsigned>(key.fields[0]))) continue;
    for (unsigned i = 1; i < key.count; ++i) {
      const auto& fd = tbl::kFields[key.fields[i]];
      for (const int x : {key.fields[i], fd.reg})  // the field, and its register companion
        if (x >= 0 && get(w, static_cast<unsigned>(x)))
          return fmt::format("{} is set without {}", tbl::kFields[x].name, tbl::kFields[key.fields[0]].name);
    }
  }
  for (const auto& f : tbl::kFields)
    if (f.reg_dim >= 0 && !get(w, static_cast<unsigned>(f.reg)) && get(w, static_cast<unsigned>(f.reg_dim)))
      return fmt::format("{} is set without {}", tbl::kFields[f.reg_dim].name, tbl::kFields[f.reg].name);
  if (o->needs >= 0 && !get(w, static_cast<unsigned>(tbl::kKeys[o->needs].fields[0])))
    return fmt::format("{} without a {}", o->name, tbl::kKeys[o->needs].name);
  if (std::strcmp(o->name, "branch") == 0 &&
      get(w, tbl::kF_cond) >= tbl::kEnums[tbl::kFields[tbl::kF_cond].enum_id].count)
    return fmt::format("branch condition {} is not one of the {}", get(w, tbl::kF_cond),
                       tbl::kEnums[tbl::kFields[tbl::kF_cond].enum_id].count);
  return "";
}

bool names_register(const Bits& w) {
  for (const auto& f : tbl::kFields)
    if (f.reg >= 0 && get(w, static_cast<unsigned>(f.reg))) return true;
  return false;
}

std::uint16_t regs_named(const Bits& w) {
  std::uint16_t m = 0;
  for (unsigned i = 0; i < tbl::kFieldCount; ++i)
    if (tbl::kFields[i].kind == tbl::Kind::reg) m |= static_cast<std::uint16_t>(1u << (get(w, i) % tbl::kRegs));
  return static_cast<std::uint16_t>(m & ~1u);
}

bool substitute(const Bits& w, const Regs& r, Bits& out) {
  out = w;
  bool ok = true;
  for (unsigned i = 0; i < tbl::kFieldCount; ++i) {
    const auto& f = tbl::kFields[i];
    if (f.reg < 0) continue;
    const std::uint64_t add = r[get(w, static_cast<unsigned>(f.reg)) % tbl::kRegs];
    if (f.kind == tbl::Kind::dims) {
      const unsigned d = static_cast<unsigned>(get(w, static_cast<unsigned>(f.reg_dim)));
      const std::uint64_t v = get(w, i), dim = ((v >> (16 * d)) & 0xFFFF) + add;
      ok = ok && dim <= 0xFFFF;
      set(out, i, (v & ~(0xFFFFull << (16 * d))) | ((dim & 0xFFFF) << (16 * d)));
    } else {
      const std::uint64_t sum = get(w, i) + add;
      ok = ok && (sum >> f.bits) == 0;
      set(out, i, sum & ((1ull << f.bits) - 1));
    }
  }
  return ok;
}

std::string Program::where(unsigned stream, unsigned pc) const {
  const Label* best = nullptr;
  for (const auto& l : labels)
    if (l.stream == stream && l.pc <= pc && (!best || l.pc >= best->pc)) best = &l;
  if (!best) return fmt::format("pc {}", pc);
  return pc == best->pc ? fmt::format("pc {} ({})", pc, best->name)
                        : fmt::format("pc {} ({}+{})", pc, best->name, pc - best->pc);
}

std::vector<std::uint8_t> to_binary(const Program& p) {
  std::vector<std::uint8_t> b(kMagic, kMagic + 4);
  put_u16(b, kVersion);
  put_u16(b, tbl::kInstBytes);
  for (const auto& s : p.streams) put_u32(b, static_cast<std::uint32_t>(s.size()));
  for (const auto& s : p.streams)
    for (const auto& w : s)
      for (unsigned i = 0; i < tbl::kInstBytes; ++i) b.push_back(static_cast<std::uint8_t>(w.slice(8 * i, 8)));
  put_u32(b, static_cast<std::uint32_t>(p.sem_names.size()));
  for (const auto& [idx, name] : p.sem_names) {
    b.push_back(static_cast<std::uint8_t>(idx));
    b.push_back(static_cast<std::uint8_t>(name.size()));
    b.insert(b.end(), name.begin(), name.end());
  }
  put_u32(b, static_cast<std::uint32_t>(p.labels.size()));
  for (const auto& l : p.labels) {
    b.push_back(static_cast<std::uint8_t>(l.stream));
    put_u32(b, l.pc);
    b.push_back(static_cast<std::uint8_t>(l.name.size()));
    b.insert(b.end(), l.name.begin(), l.name.end());
  }
  return b;
}

Program from_binary(const std::vector<std::uint8_t>& bytes, const std::string& file) {
  Reader r{bytes, file};
  r.need(4, "the header");
  if (std::memcmp(bytes.data(), kMagic, 4) != 0)
    throw Error(fmt::format("{}: byte 0: not a NeuronCore program (no \"TRNI\" magic)", file));
  r.at = 4;
  const unsigned ver = r.u16("the header");
  if (ver != kVersion) throw Error(fmt::format("{}: byte 4: version {}, expected {}", file, ver, kVersion));
  const unsigned ib = r.u16("the header");
  if (ib != tbl::kInstBytes)
    throw Error(fmt::format("{}: byte 6: instructions of {} bytes, expected {}", file, ib, tbl::kInstBytes));
  Program p;
  std::array<std::uint32_t, kStreams> n{};
  for (auto& c : n) c = r.u32("the header");
  for (unsigned s = 0; s < kStreams; ++s) {
    r.need(static_cast<std::size_t>(n[s]) * tbl::kInstBytes, "the instructions");
    for (std::uint32_t i = 0; i < n[s]; ++i) {
      Bits w = blank();
      for (unsigned k = 0; k < tbl::kInstBytes; ++k) w.set_slice(8 * k, 8, bytes[r.at + k]);
      r.at += tbl::kInstBytes;
      p.streams[s].push_back(std::move(w));
    }
  }
  const std::uint32_t ns = r.u32("the semaphore names");
  for (std::uint32_t i = 0; i < ns; ++i) {
    const std::size_t at = r.at;
    const unsigned idx = r.u8("a semaphore name");
    std::string name = r.str("a semaphore name");
    if (idx >= tbl::kSems) throw Error(fmt::format("{}: byte {}: semaphore {} (of {})", file, at, idx, tbl::kSems));
    p.sem_names[idx] = std::move(name);
  }
  const std::uint32_t nl = r.u32("the labels");
  for (std::uint32_t i = 0; i < nl; ++i) {
    const std::size_t at = r.at;
    Program::Label l;
    l.stream = r.u8("a label");
    l.pc = r.u32("a label");
    l.name = r.str("a label");
    if (l.stream >= kStreams || l.pc > p.streams[l.stream].size())
      throw Error(fmt::format("{}: byte {}: label '{}' at stream {} pc {} is outside the program", file, at, l.name,
                              l.stream, l.pc));
    p.labels.push_back(std::move(l));
  }
  if (r.at != bytes.size())
    throw Error(fmt::format("{}: byte {}: {} bytes after the end of the program", file, r.at, bytes.size() - r.at));
  return p;
}

std::map<std::string, std::int64_t> config_defines(const cfg::Arch& a) {
  return {{"PARTS", a.partitions},
          {"COLS", a.te_cols},
          {"SBUF_BYTES", a.sbuf_bytes_per_partition},
          {"SBUF_BANKS", a.sbuf_banks},
          {"SBUF_LINE", a.dma_beat_bytes},
          {"PSUM_BANKS", a.psum_banks},
          {"PSUM_BANK_BYTES", a.psum_bank_bytes},
          {"MAX_N", a.max_moving_n},
          {"QUEUES", a.dma_queues},
          {"HBM_BYTES", a.hbm_bytes},
          {"IMEM_DEPTH", a.imem_depth},
          {"SEMS", tbl::kSems},
          {"DMA_ENGINES", a.dma_engines},
          {"GP_PROCS", a.gpsimd_procs},
          {"GP_TCM_BYTES", a.gpsimd_tcm_bytes}};
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(fmt::format("{}: cannot open", path));
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string read_text(const std::string& path) {
  const std::vector<std::uint8_t> b = read_file(path);
  return {b.begin(), b.end()};
}

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error(fmt::format("{}: cannot write", path));
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw Error(fmt::format("{}: write failed", path));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error(fmt::format("{}: cannot replace", path));
}

}  // namespace trn::isa
