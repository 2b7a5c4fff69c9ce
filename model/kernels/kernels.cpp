#include "kernels/kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/core.hpp"
#include "isa/isa.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "scalar/activation.hpp"
#include "tensor/reference.hpp"
#include "tensor/tensor_engine.hpp"
#include "vector/reference.hpp"

#ifndef TRN_KERNELS_DIR
#error "TRN_KERNELS_DIR must name the kernels/ directory"
#endif

namespace trn::kernels {

namespace {

using Mem = std::vector<std::vector<std::uint8_t>>;  // [partition][byte]

tensor::TensorEngine::Params te_params(const cfg::Arch& a) { return core::Core::te_params(core::Core::Params::of(a)); }
vector::Shape shape(const cfg::Arch& a, vector::Engine e) {
  return vector::Shape{e, a.partitions, a.sbuf_bytes_per_partition, a.psum_banks * a.psum_bank_bytes};
}

/// Uniform values in [lo, hi] on a grid of 1/1000, as BF16 codes, little-endian.
std::vector<std::uint8_t> bf16_data(std::mt19937_64& rng, std::size_t n, float lo, float hi) {
  std::vector<std::uint8_t> b(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const float v = lo + (hi - lo) * static_cast<float>(rng() % 1001) / 1000.0f;
    const std::uint32_t c = numerics::encode(numerics::Format::bf16, numerics::f32_bits(v));
    b[2 * i] = static_cast<std::uint8_t>(c);
    b[2 * i + 1] = static_cast<std::uint8_t>(c >> 8);
  }
  return b;
}

// ---- matmul.s: one tile, C[M, N] = gelu(0.5 * W[K, M]^T X[K, N]) in BF16, K = M = PARTS, N = MAX_N
Case matmul(const cfg::Arch& a, std::uint64_t seed) {
  const unsigned K = a.partitions, M = K, N = a.max_moving_n;
  const std::uint32_t AW = 0, AX = 2 * M, AY = AX + 2 * N, HX = 2 * K * M, HY = HX + 2 * N * K;
  std::mt19937_64 rng(seed);
  Case c;
  c.inputs.push_back({"W", 0, bf16_data(rng, std::size_t{K} * M, -1.0f, 1.0f)});
  c.inputs.push_back({"X^T", HX, bf16_data(rng, std::size_t{N} * K, -1.0f, 1.0f)});
  const auto& w = c.inputs[0].bytes;
  const auto& xt = c.inputs[1].bytes;
  // SBUF as the loads leave it: W row k in partition k; X column-loaded, (k, n) in partition k
  tensor::Sbuf sb(K, std::vector<std::uint8_t>(a.sbuf_bytes_per_partition, 0));
  for (unsigned k = 0; k < K; ++k) {
    for (unsigned b = 0; b < 2 * M; ++b) sb[k][AW + b] = w[2 * M * k + b];
    for (unsigned n = 0; n < N; ++n)
      for (unsigned b = 0; b < 2; ++b) sb[k][AX + 2 * n + b] = xt[2 * (n * K + k) + b];
  }
  tensor::FunctionalReference tref(te_params(a));
  tensor::Command ls{tensor::Op::load_stationary};
  ls.fmt = 2, ls.k = K, ls.m = M, ls.addr = AW;
  tensor::Command mm{tensor::Op::multiply_moving};
  mm.fmt = 2, mm.n = N, mm.addr = AX, mm.bank = 2;
  tref.run(ls, sb);
  tref.run(mm, sb);
  vector::Instr act;
  act.op = vector::Op::activate;
  act.pc = M;
  act.a_space = true;
  act.a_addr = 2 * a.psum_bank_bytes;
  act.o_addr = AY;
  act.o_fmt = 2;
  act.size = {N, 1, 1, 1};
  act.a_stride = act.o_stride = {1, 0, 0, 0};
  act.imm0 = numerics::f32_bits(0.5f);
  act.alu0 = act.alu1 = vector::Alu::add;  // unused by activate; the ISA leaves them 0
  act.func = static_cast<unsigned>(scalar::Act::gelu);
  vector::Memory ps = tref.psum_rows();
  vector::FunctionalReference sref(shape(a, vector::Engine::scalar));
  if (sref.execute(act, sb, &ps) != vector::Err::none) throw std::logic_error("matmul: the reference refused activate");
  Block y{"C", HY, std::vector<std::uint8_t>(std::size_t{2} * M * N)};
  for (unsigned m = 0; m < M; ++m)
    for (unsigned b = 0; b < 2 * N; ++b) y.bytes[2 * N * m + b] = sb[m][AY + b];
  c.outputs.push_back(std::move(y));
  // K weight rows, one X, one matmul, one evacuation, M stores
  c.sems = {{0, K}, {1, 1}, {2, 1}, {3, 1}, {4, M}};
  return c;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(fmt::format("cannot read {}", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const Kernel kAll[] = {
    {"matmul", "matmul.s", "one tile: C = gelu(0.5 W^T X), BF16, all four streams", matmul},
};

}  // namespace

std::span<const Kernel> all() { return kAll; }

const Kernel* find(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

std::string kernels_dir() { return TRN_KERNELS_DIR; }

std::string source(const Kernel& k) { return read_text(kernels_dir() + "/" + k.file); }

std::string compare(const Case& c, std::span<const std::uint8_t> hbm, unsigned max) {
  std::string out;
  unsigned bad = 0;
  for (const auto& o : c.outputs) {
    for (std::size_t i = 0; i < o.bytes.size(); ++i) {
      const std::size_t a = o.addr + i;
      const int got = a < hbm.size() ? hbm[a] : -1;
      if (got == o.bytes[i]) continue;
      if (bad++ < max)
        out += fmt::format("{}{} byte {} (HBM {:#x}): {:#04x}, reference {:#04x}", out.empty() ? "" : "\n", o.name, i,
                           a, got, o.bytes[i]);
    }
  }
  if (bad > max) out += fmt::format("\n... {} bytes differ", bad);
  return out;
}

namespace {

Expect parse_expect(const std::string& path, const std::string& text, const std::map<std::string, std::int64_t>& defs) {
  Expect e;
  bool seen = false;
  std::istringstream in(text);
  std::string line;
  for (unsigned ln = 1; std::getline(in, line); ++ln) {
    const bool sem = line.rfind("; expect-sem:", 0) == 0;
    if (!sem && line.rfind("; expect:", 0) != 0) continue;
    auto bad = [&](const std::string& what) {
      throw std::runtime_error(fmt::format("{}:{}: bad expect line: {}", path, ln, what));
    };
    auto value = [&](const std::string& v) -> std::uint64_t {
      if (auto it = defs.find(v); it != defs.end()) return static_cast<std::uint64_t>(it->second);
      try {
        std::size_t used = 0;
        const std::uint64_t x = std::stoull(v, &used, 0);
        if (used == v.size()) return x;
      } catch (const std::exception&) {
      }
      bad(fmt::format("'{}' is neither a number nor a configuration constant", v));
      return 0;  // (bad throws)
    };
    std::istringstream words(line.substr(sem ? 13 : 9));
    std::string w;
    while (words >> w) {
      const auto eq = w.find('=');
      if (!sem && w == "done") {
        e.done = true;
        seen = true;
        continue;
      }
      if (eq == std::string::npos) bad(fmt::format("'{}' is not KEY=VALUE", w));
      const std::string k = w.substr(0, eq), v = w.substr(eq + 1);
      if (sem) {
        e.sems[k] = static_cast<std::uint32_t>(value(v));
      } else if (k == "error") {
        const auto& errs = isa::tbl::kErrors;
        const auto* it = std::find_if(std::begin(errs), std::end(errs), [&](const auto& x) { return v == x.name; });
        if (it == std::end(errs)) bad(fmt::format("unknown error '{}'", v));
        e.done = false;
        e.code = it->code;
        seen = true;
      } else if (k == "stream") {
        const auto& names = isa::tbl::kStreamNames;
        const auto* it = std::find(std::begin(names), std::end(names), v);
        if (it == std::end(names)) bad(fmt::format("unknown stream '{}'", v));
        e.stream = static_cast<unsigned>(it - std::begin(names));
      } else if (k == "pc") {
        e.pc = static_cast<std::uint32_t>(value(v));
      } else if (k == "detail") {
        e.detail = static_cast<unsigned>(value(v));
      } else if (k == "hbm-writes") {
        e.hbm_writes = value(v);
      } else {
        bad(fmt::format("unknown key '{}'", k));
      }
    }
  }
  if (!seen) throw std::runtime_error(fmt::format("{}: no '; expect: done' or '; expect: error=...' line", path));
  return e;
}

}  // namespace

std::string judge(const Expect& e, const isa::Program& p, const Outcome& o) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  const auto ename = [](unsigned c) { return c < std::size(isa::tbl::kErrors) ? isa::tbl::kErrors[c].name : "?"; };
  if (e.done && !o.done)
    add(fmt::format("expected done, got error {} on stream {} at pc {}", ename(o.code), o.stream, o.pc));
  if (!e.done) {
    if (o.done || o.code != e.code || o.stream != e.stream || o.pc != e.pc)
      add(fmt::format("expected error {} on the {} stream at pc {}, got {}", ename(e.code),
                      isa::tbl::kStreamNames[e.stream % 4], e.pc,
                      o.done ? std::string("done")
                             : fmt::format("{} on the {} stream at pc {}", ename(o.code),
                                           isa::tbl::kStreamNames[o.stream % 4], o.pc)));
    if (e.detail && o.detail != *e.detail) add(fmt::format("expected detail {}, got {}", *e.detail, o.detail));
  }
  if (e.hbm_writes && o.hbm_writes != *e.hbm_writes)
    add(fmt::format("expected {} HBM writes, got {}", *e.hbm_writes, o.hbm_writes));
  for (const auto& [name, v] : e.sems) {
    int idx = -1;
    for (const auto& [i, n] : p.sem_names)
      if (n == name) idx = static_cast<int>(i);
    if (idx < 0 || static_cast<std::size_t>(idx) >= o.sems.size())
      add(fmt::format("the program has no semaphore {}", name));
    else if (o.sems[static_cast<std::size_t>(idx)] != v)
      add(fmt::format("semaphore {} is {}, expected {}", name, o.sems[static_cast<std::size_t>(idx)], v));
  }
  return out;
}

std::vector<ProgramCase> programs(const cfg::Arch& arch) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(kernels_dir()) / "programs";
  std::vector<ProgramCase> out;
  std::error_code ec;
  for (const auto& ent : fs::directory_iterator(dir, ec))
    if (ent.path().extension() == ".s") out.push_back({ent.path().stem().string(), ent.path().string(), "", {}});
  if (ec) throw std::runtime_error(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  const auto defs = isa::config_defines(arch);
  for (auto& p : out) {
    p.text = read_text(p.path);
    p.expect = parse_expect(p.path, p.text, defs);
  }
  return out;
}

}  // namespace trn::kernels
