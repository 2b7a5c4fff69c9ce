#include "kernels/kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
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
#include "vector/lane_engine.hpp"
#include "vector/reference.hpp"

#ifndef TRN_KERNELS_DIR
#error "TRN_KERNELS_DIR must name the kernels/ directory"
#endif

namespace trn::kernels {

namespace {

using Mem = std::vector<std::vector<std::uint8_t>>;  // [partition][byte]

tensor::TensorEngine::Params te_params(const cfg::Arch& a) { return core::Core::te_params(core::Core::Params::of(a)); }
vector::Shape shape(const cfg::Arch& a, vector::Engine e) {
  return vector::LaneEngine::shape_of(core::Core::le_params(core::Core::Params::of(a), e));
}

/// A kernel's sizes: each from `over` or its default, in [lo, hi]; unknown names are refused.
class Sizes {
 public:
  Sizes(const char* kernel, const Defines& over) : kernel_(kernel), over_(over) {}
  std::int64_t get(const char* name, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
    std::int64_t v = dflt;
    if (auto it = over_.find(name); it != over_.end()) v = it->second;
    if (v < lo || v > hi)
      throw std::invalid_argument(fmt::format("kernel {}: {} = {} is outside [{}, {}]", kernel_, name, v, lo, hi));
    used_[name] = v;
    return v;
  }
  /// The sizes used; throws when `over` names one the kernel does not have.
  Defines done() const {
    for (const auto& [k, v] : over_)
      if (!used_.count(k)) throw std::invalid_argument(fmt::format("kernel {} has no size {}", kernel_, k));
    return used_;
  }

 private:
  const char* kernel_;
  const Defines& over_;
  Defines used_;
};

/// `n` bytes at `src` into partition p of `sb` at byte `off` (as a DMA row descriptor leaves them).
void put(tensor::Sbuf& sb, unsigned p, std::uint32_t off, const std::uint8_t* src, std::size_t n) {
  std::copy(src, src + n, sb.at(p).begin() + off);
}
std::vector<std::uint8_t> get(const tensor::Sbuf& sb, unsigned p, std::uint32_t off, std::size_t n) {
  return {sb.at(p).begin() + off, sb.at(p).begin() + off + static_cast<std::ptrdiff_t>(n)};
}
/// An output of `rows` rows of `len` bytes, as the program leaves it in SBUF: row r in partition
/// r % parts at byte off(r).
template <class Off>
Block gather(const char* name, std::uint32_t addr, const tensor::Sbuf& sb, unsigned rows, unsigned parts,
             std::uint32_t len, Off off) {
  Block b{name, addr, std::vector<std::uint8_t>(std::size_t{len} * rows)};
  for (unsigned r = 0; r < rows; ++r) {
    const auto row = get(sb, r % parts, off(r), len);
    std::copy(row.begin(), row.end(), b.bytes.begin() + static_cast<std::ptrdiff_t>(std::size_t{len} * r));
  }
  return b;
}
double bf16_at(const std::vector<std::uint8_t>& b, std::size_t i) {
  return numerics::f32_from(static_cast<std::uint32_t>(b[2 * i] | b[2 * i + 1] << 8) << 16);
}
double f32_at(const std::vector<std::uint8_t>& b, std::size_t i) {
  return numerics::f32_from(static_cast<std::uint32_t>(b[4 * i] | b[4 * i + 1] << 8 | b[4 * i + 2] << 16) |
                            static_cast<std::uint32_t>(b[4 * i + 3]) << 24);
}
/// gelu in double precision, the tanh form the scalar engine implements (scalar/activation.hpp).
double gelu_d(double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }
constexpr double kU32 = 0x1p-24;  // FP32 unit roundoff
constexpr double kU16 = 0x1p-8;   // BF16 unit roundoff (8 significant bits)

tensor::Command ls_cmd(std::uint32_t addr, unsigned k, unsigned m) {
  tensor::Command c{tensor::Op::load_stationary};
  c.fmt = 2, c.k = k, c.m = m, c.addr = addr;
  return c;
}
tensor::Command mm_cmd(std::uint32_t addr, unsigned n, unsigned bank, bool acc) {
  tensor::Command c{tensor::Op::multiply_moving};
  c.fmt = 2, c.n = n, c.addr = addr, c.bank = bank, c.acc = acc;
  return c;
}
/// A lane instruction over `pc` partitions and a row of `n` elements with the fields the assembler
/// leaves at their defaults: ALU ops 0 (add), strides 0, immediates 0, types FP32.
vector::Instr lane(vector::Op op, unsigned pc, unsigned n) {
  vector::Instr in;
  in.op = op;
  in.pc = pc;
  in.size = {n, 1, 1, 1};
  in.alu0 = in.alu1 = vector::Alu::add;
  return in;
}
constexpr std::array<std::uint32_t, 4> kUnit{1, 0, 0, 0};  // a.stride=1 (dim 0)
void exec(vector::FunctionalReference& r, const vector::Instr& in, tensor::Sbuf& sb, tensor::Sbuf* ps,
          const char* what) {
  if (r.execute(in, sb, ps) != vector::Err::none)
    throw std::logic_error(fmt::format("kernel reference: the lane reference refused {}", what));
}

/// `cnt` element codes of format `f`, uniform in [lo, hi] on a grid of 1/1000 (gemm, gemm_dyn).
std::vector<std::uint32_t> grid_codes(std::mt19937_64& rng, numerics::Format f, std::size_t cnt, float lo, float hi) {
  std::vector<std::uint32_t> v(cnt);
  for (auto& x : v)
    x = numerics::encode(f, numerics::f32_bits(lo + (hi - lo) * static_cast<float>(rng() % 1001) / 1000.0f));
  return v;
}

/// One partition's bytes of rows k0 .. k0 + R - 1 of the codes `v` (`cols` columns), columns
/// j0 .. j0 + n - 1: a 2-byte element a column when R = 1 (BF16), else the R one-byte codes of a
/// column side by side (FP8 and MX with R K-rows a PE).
std::vector<std::uint8_t> pack_row(const std::vector<std::uint32_t>& v, unsigned cols, unsigned R, unsigned k0,
                                   unsigned j0, unsigned n) {
  const unsigned EB = std::max(R, 2u);
  std::vector<std::uint8_t> r(std::size_t{EB} * n);
  for (unsigned j = 0; j < n; ++j)
    for (unsigned i = 0; i < R; ++i) {
      const std::uint32_t code = v[std::size_t{cols} * (k0 + i) + j0 + j];
      if (R == 1) {
        r[2 * j] = static_cast<std::uint8_t>(code);
        r[2 * j + 1] = static_cast<std::uint8_t>(code >> 8);
      } else {
        r[EB * j + i] = static_cast<std::uint8_t>(code);
      }
    }
  return r;
}

/// The evacuation of a GEMM's output tile (gemm, gemm_dyn): C = gelu(1.0 * PSUM + bias) over `cols`
/// partitions and `n` columns, the FP32 PSUM rows at `psum_addr` into BF16 at `o_addr`, the bias a
/// per-partition FP32 value at `bias_addr`.
vector::Instr gelu_evacuate(unsigned cols, unsigned n, std::uint32_t psum_addr, std::uint32_t o_addr,
                            std::uint32_t bias_addr) {
  vector::Instr act = lane(vector::Op::activate, cols, n);
  act.a_stride = act.o_stride = kUnit;
  act.a_space = true;
  act.a_addr = psum_addr;
  act.o_addr = o_addr;
  act.o_fmt = 2;
  act.imm0 = numerics::f32_bits(1.0f);
  act.s1_vec = true;
  act.s1_addr = bias_addr;
  act.func = static_cast<unsigned>(scalar::Act::gelu);
  return act;
}

/// Uniform FP32 values in [lo, hi] on a grid of 1/1000, little-endian.
std::vector<std::uint8_t> f32_data(std::mt19937_64& rng, std::size_t n, float lo, float hi) {
  std::vector<std::uint8_t> b(4 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t c = numerics::f32_bits(lo + (hi - lo) * static_cast<float>(rng() % 1001) / 1000.0f);
    for (unsigned j = 0; j < 4; ++j) b[4 * i + j] = static_cast<std::uint8_t>(c >> (8 * j));
  }
  return b;
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
Case matmul(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  const unsigned K = a.partitions, M = K, N = a.max_moving_n;
  const std::uint32_t AW = 0, AX = 2 * M, AY = AX + 2 * N, HX = 2 * K * M, HY = HX + 2 * N * K;
  std::mt19937_64 rng(seed);
  Case c;
  c.defines = Sizes("matmul", over).done();
  c.macs = std::uint64_t{K} * M * N;
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
  c.outputs.push_back(gather("C", HY, sb, M, K, 2 * N, [&](unsigned) { return AY; }));
  // double precision: gelu(0.5 sum); the bound of gemm's (the scale by 0.5 is exact)
  Bound bd{"C", 2, {}, {}, "2 (2^-8 |y| + 1.13 (K + 1) 2^-24 0.5 sum |w x|)"};
  for (unsigned m = 0; m < M; ++m)
    for (unsigned n = 0; n < N; ++n) {
      double sum = 0, mag = 0;
      for (unsigned k = 0; k < K; ++k) {
        const double t = bf16_at(w, std::size_t{M} * k + m) * bf16_at(xt, std::size_t{K} * n + k);
        sum += t;
        mag += std::abs(t);
      }
      const double y = gelu_d(0.5 * sum);
      bd.want.push_back(y);
      bd.tol.push_back(2 * (kU16 * std::abs(y) + 1.13 * (K + 1) * kU32 * 0.5 * mag));
    }
  c.bounds.push_back(std::move(bd));
  // K weight rows, X in descriptors of at most 64 KiB, one matmul, one evacuation, M stores
  const unsigned xc = (2 * N * K + 65535) / 65536;
  c.sems = {{0, K}, {1, xc}, {2, 1}, {3, 1}, {4, M}};
  return c;
}

// ---- gemm.s: C[M, N] = gelu(W[K, M]^T X[K, N] + bias) in BF16, tiled (KT x MT x NT tiles), the
// operands BF16 (R = 1), FP8 E4M3 two rows a PE (R = 2) or MXFP8 four rows a PE (R = 4)
/// A GEMM's C = gelu(W^T X + bias) in double precision and its bound (gemm, gemm_dyn): W as
/// [M][K] and X as [N][K] values, the bias FP32 bytes [M]. The FP32 sum of K exact products and
/// the bias has error at most (K + 1) u sum|terms|; gelu's slope is at most 1.13; gelu's FP32
/// error and the BF16 rounding are at most one BF16 unit roundoff of the result; twice over.
Bound gemm_bound(const std::vector<double>& wv, const std::vector<double>& xv, const std::vector<std::uint8_t>& b,
                 unsigned K, unsigned M, unsigned N) {
  Bound bd{"C", 2, {}, {}, "2 (2^-8 |y| + 1.13 (K + 1) 2^-24 (sum |w x| + |b|))"};
  for (unsigned m = 0; m < M; ++m)
    for (unsigned n = 0; n < N; ++n) {
      double s = f32_at(b, m), mag = std::abs(s);
      for (unsigned k = 0; k < K; ++k) {
        const double t = wv[std::size_t{K} * m + k] * xv[std::size_t{K} * n + k];
        s += t;
        mag += std::abs(t);
      }
      const double y = gelu_d(s);
      bd.want.push_back(y);
      bd.tol.push_back(2 * (kU16 * std::abs(y) + 1.13 * (K + 1) * kU32 * mag));
    }
  return bd;
}

Case gemm(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  Sizes sz("gemm", over);
  const unsigned P = a.partitions, COLS = a.te_cols, TN = a.max_moving_n;
  const auto KT = static_cast<unsigned>(sz.get("KT", 4, 1, 64));
  const auto MT = static_cast<unsigned>(sz.get("MT", 2, 1, 64));
  const auto NT = static_cast<unsigned>(sz.get("NT", 4, 1, 256));
  const auto ST = static_cast<unsigned>(sz.get("ST", 1, 1, 256));
  const auto XC = static_cast<unsigned>(sz.get("XC", 4, 1, 64));
  const auto R = static_cast<unsigned>(sz.get("R", 1, 1, 4));
  if (R == 3) throw std::invalid_argument("kernel gemm: R=3: the K-rows a PE are 1 (BF16), 2 (FP8) or 4 (MXFP8)");
  const bool mx = R == 4;
  const numerics::Format ef = R == 1 ? numerics::Format::bf16 : mx ? numerics::Format::e4m3fn : numerics::Format::e4m3;
  // an element: a partition's R rows of one column, EB bytes; a k-tile: KP rows; SP MX blocks of
  // 32 rows (8 partitions) a k-tile
  const unsigned EB = std::max(R, 2u), KP = R * P, SP = (P + 7) / 8;
  const unsigned K = KT * KP, M = MT * COLS, N = NT * TN;
  const std::uint32_t XB = KT * EB * TN, AW = 0, AX = AW + (KT * EB * M + 63) / 64 * 64, AC = AX + 2 * XB,
                      AB = AC + MT * 2 * N, AWS = AB + (4 * MT + 63) / 64 * 64,
                      AXS0 = AWS + (mx ? (KT * M + 63) / 64 * 64 : 0);
  // MX: X's scale buffers two SBUF banks from its elements (AXS - AX = 2 lines modulo the banks'
  // lines), as gemm.s places them
  const std::uint32_t BL = a.dma_beat_bytes * a.sbuf_banks,
                      AXS = AXS0 + (mx ? (AX + 2 * a.dma_beat_bytes - AXS0 % BL + BL) % BL : 0);
  const std::uint32_t HX = EB * P * KT * M, HB = HX + EB * P * KT * N, HC = HB + 4 * M, HWS = HC + 2 * M * N,
                      HXS = HWS + (mx ? SP * KT * M : 0), HEND = HXS + (mx ? NT * SP * KT * TN : 0);
  if (AXS + (mx ? 2 * KT * TN : 0) > a.sbuf_bytes_per_partition || HEND > a.hbm_bytes)
    throw std::invalid_argument(
        fmt::format("kernel gemm: K={} M={} N={} R={} does not fit in SBUF or HBM", K, M, N, R));
  std::mt19937_64 rng(seed);
  Case c;
  c.defines = sz.done();
  c.macs = std::uint64_t{K} * M * N;
  c.te_rate = R;
  // element codes, W [K][M] and X [K][N]; the W values about 1.5 / sqrt(K) so that the outputs
  // have about unit spread at every K; MX: the elements within [-1, 1] and a scale of 2^-2 .. 2^1
  // (X) or near the same spread (W) per block of 32 rows and column
  const float ws = 1.5f / std::sqrt(static_cast<float>(K));
  const std::vector<std::uint32_t> w =
      mx ? grid_codes(rng, ef, std::size_t{K} * M, -1.0f, 1.0f) : grid_codes(rng, ef, std::size_t{K} * M, -ws, ws);
  const std::vector<std::uint32_t> x = grid_codes(rng, ef, std::size_t{K} * N, -1.0f, 1.0f);
  const int wexp = static_cast<int>(std::floor(std::log2(ws)));
  std::vector<std::uint8_t> wsc, xsc;  // E8M0 codes: W's [KT][SP][M], X's [KT][SP][N]
  if (mx) {
    for (std::size_t i = 0; i < std::size_t{KT} * SP * M; ++i)
      wsc.push_back(static_cast<std::uint8_t>(127 + wexp - rng() % 2));
    for (std::size_t i = 0; i < std::size_t{KT} * SP * N; ++i)
      xsc.push_back(static_cast<std::uint8_t>(125 + rng() % 4));
  }
  // row k of K: k-tile k / KP, partition (k % KP) / R, byte (k % KP) % R of the element (R >= 2)
  const auto value = [&](const std::vector<std::uint32_t>& v, const std::vector<std::uint8_t>& sc, unsigned cols,
                         unsigned k, unsigned j) {
    double d = numerics::f32_from(numerics::decode(ef, v[std::size_t{cols} * k + j]));
    if (mx) d = std::ldexp(d, sc[(std::size_t{k / KP} * SP + (k % KP) / R / 8) * cols + j] - 127);
    return d;
  };
  // partition p's row of k-tile kt (EB bytes a column) from the codes, columns j0 .. j0 + n - 1
  const auto row = [&](const std::vector<std::uint32_t>& v, unsigned cols, unsigned kt, unsigned p, unsigned j0,
                       unsigned n) { return pack_row(v, cols, R, kt * KP + R * p, j0, n); };
  // HBM layouts that let a descriptor fill one partition: W as [P][KT][M], X as [NT][P][KT][TN];
  // the MX scales as [SP][KT][M] and [NT][SP][KT][TN]
  Block wh{"W", 0, std::vector<std::uint8_t>(std::size_t{EB} * P * KT * M)};
  Block xh{"X", HX, std::vector<std::uint8_t>(std::size_t{EB} * P * KT * N)};
  for (unsigned p = 0; p < P; ++p)
    for (unsigned kt = 0; kt < KT; ++kt) {
      const auto wr = row(w, M, kt, p, 0, M);
      std::copy(wr.begin(), wr.end(), wh.bytes.begin() + std::ptrdiff_t{EB} * M * (KT * p + kt));
      for (unsigned nt = 0; nt < NT; ++nt) {
        const auto xr = row(x, N, kt, p, nt * TN, TN);
        std::copy(xr.begin(), xr.end(), xh.bytes.begin() + std::ptrdiff_t{EB} * TN * (KT * (P * nt + p) + kt));
      }
    }
  c.inputs.push_back(std::move(wh));
  c.inputs.push_back(std::move(xh));
  c.inputs.push_back({"bias", HB, f32_data(rng, M, -1.0f, 1.0f)});
  if (mx) {
    Block whs{"W scales", HWS, std::vector<std::uint8_t>(std::size_t{SP} * KT * M)};
    Block xhs{"X scales", HXS, std::vector<std::uint8_t>(std::size_t{NT} * SP * KT * TN)};
    for (unsigned b = 0; b < SP; ++b)
      for (unsigned kt = 0; kt < KT; ++kt) {
        std::copy_n(&wsc[(std::size_t{kt} * SP + b) * M], M, &whs.bytes[std::size_t{M} * (KT * b + kt)]);
        for (unsigned nt = 0; nt < NT; ++nt)
          std::copy_n(&xsc[(std::size_t{kt} * SP + b) * N + nt * TN], TN,
                      &xhs.bytes[std::size_t{TN} * (KT * (SP * nt + b) + kt)]);
      }
    c.inputs.push_back(std::move(whs));
    c.inputs.push_back(std::move(xhs));
  }
  const auto& b = c.inputs[2].bytes;
  // in the program's order: W and the bias, then per X tile its buffer, KT matmuls per output
  // tile accumulating in its bank, and the evacuation
  tensor::Sbuf sb(P, std::vector<std::uint8_t>(a.sbuf_bytes_per_partition, 0));
  for (unsigned kt = 0; kt < KT; ++kt)
    for (unsigned p = 0; p < P; ++p) {
      const auto wr = row(w, M, kt, p, 0, M);
      put(sb, p, AW + kt * EB * M, wr.data(), wr.size());
    }
  if (mx)
    for (unsigned kt = 0; kt < KT; ++kt)
      for (unsigned blk = 0; blk < SP; ++blk) put(sb, 8 * blk, AWS + kt * M, &wsc[(std::size_t{kt} * SP + blk) * M], M);
  for (unsigned m = 0; m < M; ++m) put(sb, m % COLS, AB + 4 * (m / COLS), &b[4 * m], 4);
  tensor::FunctionalReference tref(te_params(a));
  vector::FunctionalReference sref(shape(a, vector::Engine::scalar));
  const auto typed = [&](tensor::Command cmd, std::uint32_t sc) {
    cmd.fmt = static_cast<unsigned>(ef);
    cmd.bias = R == 2 ? static_cast<unsigned>(numerics::format_info(ef).bias) : 0;  // FB: E4M3's standard bias
    cmd.kpe = static_cast<unsigned>(std::countr_zero(R));
    cmd.mx = mx;
    cmd.sc_addr = mx ? sc : 0;
    return cmd;
  };
  for (unsigned nt = 0; nt < NT; ++nt) {
    const std::uint32_t buf = AX + (nt % 2) * XB, sbuf = AXS + (nt % 2) * KT * TN;
    for (unsigned kt = 0; kt < KT; ++kt)
      for (unsigned p = 0; p < P; ++p) {
        const auto xr = row(x, N, kt, p, nt * TN, TN);
        put(sb, p, buf + kt * EB * TN, xr.data(), xr.size());
      }
    if (mx)
      for (unsigned kt = 0; kt < KT; ++kt)
        for (unsigned blk = 0; blk < SP; ++blk)
          put(sb, 8 * blk, sbuf + kt * TN, &xsc[(std::size_t{kt} * SP + blk) * N + nt * TN], TN);
    for (unsigned mt = 0; mt < MT; ++mt) {
      const unsigned bank = (nt * MT + mt) % a.psum_banks;
      for (unsigned kt = 0; kt < KT; ++kt) {
        tref.run(typed(ls_cmd(AW + kt * EB * M + mt * EB * COLS, KP, COLS), AWS + kt * M + mt * COLS), sb);
        tref.run(typed(mm_cmd(buf + kt * EB * TN, TN, bank, kt > 0), sbuf + kt * TN), sb);
      }
      const vector::Instr act =
          gelu_evacuate(COLS, TN, bank * a.psum_bank_bytes, AC + 2 * N * mt + 2 * TN * nt, AB + 4 * mt);
      vector::Memory ps = tref.psum_rows();
      exec(sref, act, sb, &ps, "gemm's activate");
    }
  }
  c.outputs.push_back(gather("C", HC, sb, M, COLS, 2 * N, [&](unsigned m) { return AC + 2 * N * (m / COLS); }));
  // double precision: gelu(sum + bias) (gemm_bound)
  std::vector<double> wv(std::size_t{K} * M), xv(std::size_t{K} * N);  // [m][k], [n][k]
  for (unsigned k = 0; k < K; ++k) {
    for (unsigned m = 0; m < M; ++m) wv[std::size_t{K} * m + k] = value(w, wsc, M, k, m);
    for (unsigned n = 0; n < N; ++n) xv[std::size_t{K} * n + k] = value(x, xsc, N, k, n);
  }
  c.bounds.push_back(gemm_bound(wv, xv, b, K, M, N));
  // each k-tile of W and X tile 0, each chunk of X tile 1 (XC of them, of whole k-tiles), each
  // later X tile and each output tile: one completion per (engine, queue) its descriptors use,
  // loads on half the DMA engines and stores (of ST X tiles each) on the other half (one engine
  // for both where there is one); the bias: one per tile
  const unsigned q = a.dma_queues, le = std::max(a.dma_engines / 2, 1u);
  const unsigned se = std::max(a.dma_engines - std::min(le, a.dma_engines - 1), 1u);
  const unsigned lg = std::min(P, q * le), sg = std::min(COLS, q * se);
  const unsigned xk = (KT + std::min(XC, KT) - 1) / std::min(XC, KT), xn = (KT + xk - 1) / xk;
  // (the even k-tiles and chunks on one semaphore, the odd ones on another)
  // w_in, w_in1, b_in, x0, x1, mm, ev, out, xc, xc1, clr (the scale tensors cleared)
  c.sems = {{0, (KT + 1) / 2 * lg},
            {1, KT / 2 * lg},
            {2, MT},
            {3, ((NT + 1) / 2 - 1) * lg},
            {4, (std::max(NT / 2, 1u) - 1) * lg},
            {5, NT * MT},
            {6, NT * MT},
            {7, MT * ((NT + ST - 1) / ST) * sg},
            {8, NT > 1 ? (xn + 1) / 2 * lg : 0},
            {9, NT > 1 ? xn / 2 * lg : 0},
            {10, mx ? 2u : 0u}};
  return c;
}

// ---- gemm_dyn.s: C = gelu(W^T X + bias), BF16, with KT, NT and the moving size n from an argument
// block at ARGS (KT, NT, n, and the addresses of W, X, the bias and C); KTMAX, NTMAX, MT and ARGS
// are the binary's (the assembler sees only them)
Case gemm_dyn(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  Sizes sz("gemm_dyn", over);
  const unsigned P = a.partitions, COLS = a.te_cols, TN = a.max_moving_n;
  const auto KTMAX = static_cast<unsigned>(sz.get("KTMAX", 4, 1, 64));
  const auto NTMAX = static_cast<unsigned>(sz.get("NTMAX", 4, 1, 256));
  const auto MT = static_cast<unsigned>(sz.get("MT", 2, 1, a.psum_banks));
  const auto KT = static_cast<unsigned>(sz.get("KT", KTMAX, 1, KTMAX));
  const auto NT = static_cast<unsigned>(sz.get("NT", NTMAX, 1, NTMAX));
  const auto n = static_cast<unsigned>(sz.get("N", TN - 1, 1, TN));
  const auto args = static_cast<std::uint32_t>(sz.get("ARGS", 0, 0, a.hbm_bytes - 64));
  sz.done();
  const unsigned K = KT * P, M = MT * COLS, N = NT * n;
  const std::uint32_t CB = 2 * NTMAX * TN, AW = 0, AX = AW + (KTMAX * 2 * M + 63) / 64 * 64,
                      AC = AX + (KTMAX * 2 * TN + 63) / 64 * 64, AB = AC + MT * CB;
  const std::uint32_t HW = args + 64, HX = HW + 2 * K * M, HB = HX + 2 * K * N, HC = HB + 4 * M, HEND = HC + 2 * M * N;
  if (args % 4 || AB + 4 * MT > a.sbuf_bytes_per_partition || HEND > a.hbm_bytes)
    throw std::invalid_argument(fmt::format(
        "kernel gemm_dyn: KTMAX={} NTMAX={} MT={} ARGS={:#x} do not fit in SBUF or HBM", KTMAX, NTMAX, MT, args));
  std::mt19937_64 rng(seed);
  Case c;
  c.defines = {{"KTMAX", KTMAX}, {"NTMAX", NTMAX}, {"MT", MT}, {"ARGS", args}};  // the binary's
  c.macs = std::uint64_t{K} * M * N;
  // BF16 codes, W [K][M] about 1.5 / sqrt(K) and X [K][N] in [-1, 1] (as gemm)
  const float ws = 1.5f / std::sqrt(static_cast<float>(K));
  const std::vector<std::uint32_t> w = grid_codes(rng, numerics::Format::bf16, std::size_t{K} * M, -ws, ws);
  const std::vector<std::uint32_t> x = grid_codes(rng, numerics::Format::bf16, std::size_t{K} * N, -1.0f, 1.0f);
  // partition p's row of k-tile kt: columns j0 .. j0 + cnt - 1 of `v` (`cols` columns), 2 bytes each
  const auto row = [&](const std::vector<std::uint32_t>& v, unsigned cols, unsigned kt, unsigned p, unsigned j0,
                       unsigned cnt) { return pack_row(v, cols, 1, kt * P + p, j0, cnt); };
  std::vector<std::uint8_t> blk(28);
  const std::array<std::uint32_t, 7> words{KT, NT, n, HW, HX, HB, HC};
  for (unsigned i = 0; i < 7; ++i)
    for (unsigned j = 0; j < 4; ++j) blk[4 * i + j] = static_cast<std::uint8_t>(words[i] >> (8 * j));
  c.inputs.push_back({"args", args, blk});
  Block wh{"W", HW, std::vector<std::uint8_t>(2 * std::size_t{K} * M)};  // [P][KT][M]
  Block xh{"X", HX, std::vector<std::uint8_t>(2 * std::size_t{K} * N)};  // [NT][P][KT][n]
  for (unsigned p = 0; p < P; ++p)
    for (unsigned kt = 0; kt < KT; ++kt) {
      const auto wr = row(w, M, kt, p, 0, M);
      std::copy(wr.begin(), wr.end(), wh.bytes.begin() + std::ptrdiff_t{2} * M * (KT * p + kt));
      for (unsigned nt = 0; nt < NT; ++nt) {
        const auto xr = row(x, N, kt, p, nt * n, n);
        std::copy(xr.begin(), xr.end(), xh.bytes.begin() + std::ptrdiff_t{2} * n * (KT * (P * nt + p) + kt));
      }
    }
  c.inputs.push_back(std::move(wh));
  c.inputs.push_back(std::move(xh));
  c.inputs.push_back({"bias", HB, f32_data(rng, M, -1.0f, 1.0f)});
  const auto& b = c.inputs.back().bytes;
  // in the program's order: W and the bias; per X tile its buffer, per output tile KT matmuls
  // accumulating in bank mt, then the evacuation into C's rows at the tile's columns
  tensor::Sbuf sb(P, std::vector<std::uint8_t>(a.sbuf_bytes_per_partition, 0));
  for (unsigned kt = 0; kt < KT; ++kt)
    for (unsigned p = 0; p < P; ++p) {
      const auto wr = row(w, M, kt, p, 0, M);
      put(sb, p, AW + kt * 2 * M, wr.data(), wr.size());
    }
  for (unsigned m = 0; m < M; ++m) put(sb, m % COLS, AB + 4 * (m / COLS), &b[4 * m], 4);
  tensor::FunctionalReference tref(te_params(a));
  vector::FunctionalReference sref(shape(a, vector::Engine::scalar));
  for (unsigned nt = 0; nt < NT; ++nt) {
    for (unsigned kt = 0; kt < KT; ++kt)
      for (unsigned p = 0; p < P; ++p) {
        const auto xr = row(x, N, kt, p, nt * n, n);
        put(sb, p, AX + kt * 2 * n, xr.data(), xr.size());
      }
    for (unsigned mt = 0; mt < MT; ++mt) {
      for (unsigned kt = 0; kt < KT; ++kt) {
        tref.run(ls_cmd(AW + kt * 2 * M + mt * 2 * COLS, P, COLS), sb);
        tref.run(mm_cmd(AX + kt * 2 * n, n, mt, kt > 0), sb);
      }
      const vector::Instr act = gelu_evacuate(COLS, n, mt * a.psum_bank_bytes, AC + CB * mt + 2 * n * nt, AB + 4 * mt);
      vector::Memory ps = tref.psum_rows();
      exec(sref, act, sb, &ps, "gemm_dyn's activate");
    }
  }
  c.outputs.push_back(gather("C", HC, sb, M, COLS, 2 * N, [&](unsigned m) { return AC + CB * (m / COLS); }));
  // double precision: gemm's bound
  const auto val = [](std::uint32_t code) {
    return numerics::f32_from(numerics::decode(numerics::Format::bf16, code));
  };
  std::vector<double> wv(std::size_t{K} * M), xv(std::size_t{K} * N);  // [m][k], [n][k]
  for (unsigned k = 0; k < K; ++k) {
    for (unsigned m = 0; m < M; ++m) wv[std::size_t{K} * m + k] = val(w[std::size_t{M} * k + m]);
    for (unsigned j = 0; j < N; ++j) xv[std::size_t{K} * j + k] = val(x[std::size_t{N} * k + j]);
  }
  c.bounds.push_back(gemm_bound(wv, xv, b, K, M, N));
  c.sems = {{0, P}, {1, MT}, {2, P * NT}, {3, KT * MT * NT}, {4, MT * NT}, {5, MT * COLS}};  // w_in b_in xin mm ev out
  return c;
}

/// Uniform FP32 rows of `n` values in [-spread, spread] (a grid of 2^-20 of the spread), `rows` of them.
std::vector<std::uint8_t> f32_rows(std::mt19937_64& rng, unsigned rows, unsigned n, const std::vector<float>& spread) {
  std::vector<std::uint8_t> b(std::size_t{4} * rows * n);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned i = 0; i < n; ++i) {
      const double v = (static_cast<double>(rng() % (1u << 20)) / (1u << 20) * 2 - 1) * spread[r % spread.size()];
      const std::uint32_t c = numerics::f32_bits(static_cast<float>(v));
      for (unsigned j = 0; j < 4; ++j) b[4 * (std::size_t{n} * r + i) + j] = static_cast<std::uint8_t>(c >> (8 * j));
    }
  return b;
}

// ---- softmax.s: softmax over rows, FP32, RB blocks of PARTS rows of n (softmax.s: n = MAX_N; and
// softmax_dyn.s, n and RB read at run time), the SBUF laid out for rows of nmax, X at hx, Y at hy
void softmax_rows(Case& c, const cfg::Arch& a, std::mt19937_64& rng, unsigned n, unsigned RB, unsigned nmax,
                  std::uint32_t hx, std::uint32_t hy) {
  const unsigned P = a.partitions;
  const unsigned R = RB * P;
  const std::uint32_t RS = 64 * ((16 * nmax + 16 + 63) / 64), OX = 0, OT = 4 * nmax, OE = 8 * nmax, OY = 12 * nmax,
                      OM = 16 * nmax, OS = OM + 4, OR = OM + 8, HY = hy;
  // blocks alternate rows spanning e^-16 and e^-80 of their maximum
  std::vector<float> spread;
  for (unsigned r = 0; r < R; ++r) spread.push_back((r / P) % 2 ? 40.0f : 8.0f);
  c.inputs.push_back({"X", hx, f32_rows(rng, R, n, spread)});
  const auto& x = c.inputs.back().bytes;
  tensor::Sbuf sb(P, std::vector<std::uint8_t>(a.sbuf_bytes_per_partition, 0));
  vector::FunctionalReference vref(shape(a, vector::Engine::vector)), sref(shape(a, vector::Engine::scalar));
  for (unsigned b = 0; b < RB; ++b) {
    const std::uint32_t o = RS * b;
    for (unsigned p = 0; p < P; ++p) put(sb, p, o + OX, &x[4 * n * (b * P + p)], 4 * n);
    vector::Instr mx = lane(vector::Op::tensor_reduce, P, n);
    mx.a_addr = o + OX, mx.o_addr = o + OM, mx.a_stride = kUnit, mx.alu0 = vector::Alu::max;
    exec(vref, mx, sb, nullptr, "softmax's max");
    vector::Instr sub = lane(vector::Op::tensor_scalar, P, n);
    sub.a_addr = o + OX, sub.o_addr = o + OT, sub.a_stride = sub.o_stride = kUnit;
    sub.alu0 = vector::Alu::sub, sub.alu1 = vector::Alu::bypass, sub.s0_vec = true, sub.s0_addr = o + OM;
    exec(vref, sub, sb, nullptr, "softmax's subtraction");
    vector::Instr ex = lane(vector::Op::activate, P, n);
    ex.a_addr = o + OT, ex.o_addr = o + OE, ex.a_stride = ex.o_stride = kUnit;
    ex.func = static_cast<unsigned>(scalar::Act::exp), ex.imm0 = numerics::f32_bits(1.0f), ex.acc = ex.acc_clr = true;
    exec(sref, ex, sb, nullptr, "softmax's exp");
    vector::Instr st = lane(vector::Op::acc_store, P, 1);
    st.o_addr = o + OS;
    exec(sref, st, sb, nullptr, "softmax's acc_store");
    vector::Instr rc = lane(vector::Op::activate, P, 1);
    rc.a_addr = o + OS, rc.o_addr = o + OR;
    rc.func = static_cast<unsigned>(scalar::Act::reciprocal), rc.imm0 = numerics::f32_bits(1.0f);
    exec(sref, rc, sb, nullptr, "softmax's reciprocal");
    vector::Instr mul = lane(vector::Op::tensor_scalar, P, n);
    mul.a_addr = o + OE, mul.o_addr = o + OY, mul.a_stride = mul.o_stride = kUnit;
    mul.alu0 = vector::Alu::mul, mul.alu1 = vector::Alu::bypass, mul.s0_vec = true, mul.s0_addr = o + OR;
    exec(vref, mul, sb, nullptr, "softmax's multiply");
  }
  c.outputs.push_back(gather("Y", HY, sb, R, P, 4 * n, [&](unsigned r) { return RS * (r / P) + OY; }));
  // double precision. Relative to each output: the rounding of x - max (u |x - max| through exp),
  // exp (1.5 ulp), the same for every term of the sum and its n - 1 additions, the reciprocal (2
  // ulp) and the product; twice over.
  Bound bd{"Y", 0, {}, {}, "2 u (|x - max| + max |x_j - max| + n + 10) y, u = 2^-24"};
  for (unsigned r = 0; r < R; ++r) {
    double mx = -INFINITY, sum = 0, span = 0;
    for (unsigned i = 0; i < n; ++i) mx = std::max(mx, f32_at(x, std::size_t{n} * r + i));
    for (unsigned i = 0; i < n; ++i) {
      sum += std::exp(f32_at(x, std::size_t{n} * r + i) - mx);
      span = std::max(span, mx - f32_at(x, std::size_t{n} * r + i));
    }
    for (unsigned i = 0; i < n; ++i) {
      const double d = mx - f32_at(x, std::size_t{n} * r + i), yv = std::exp(-d) / sum;
      bd.want.push_back(yv);
      bd.tol.push_back(2 * kU32 * (d + span + n + 10) * yv);
    }
  }
  c.bounds.push_back(std::move(bd));
  const unsigned q = std::min(P, a.dma_queues);
  c.sems = {{0, RB * q}, {1, RB}, {2, RB}, {3, RB}, {4, RB * q}};  // ld, sub, rcp, mul, out
}

Case softmax(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  Sizes sz("softmax", over);
  const unsigned P = a.partitions, n = a.max_moving_n;
  const auto RB = static_cast<unsigned>(sz.get("RB", 2, 1, 256));
  const unsigned R = RB * P;
  const std::uint32_t RS = 64 * ((16 * n + 16 + 63) / 64), HY = 4 * R * n;
  if (RS * RB > a.sbuf_bytes_per_partition || std::uint64_t{HY} + 4ull * R * n > a.hbm_bytes)
    throw std::invalid_argument(fmt::format("kernel softmax: RB = {} does not fit in SBUF or HBM", RB));
  std::mt19937_64 rng(seed);
  Case c;
  c.defines = sz.done();
  softmax_rows(c, a, rng, n, RB, n, 0, HY);
  return c;
}

// ---- softmax_dyn.s: softmax.s with n and RB from an argument block at ARGS (n, RB, HX, HY); the
// sizes N and RB are the run's, RBMAX the binary's (the assembler sees RBMAX and ARGS only)
Case softmax_dyn(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  Sizes sz("softmax_dyn", over);
  const unsigned P = a.partitions, nmax = a.max_moving_n;
  const auto RBMAX = static_cast<unsigned>(sz.get("RBMAX", 3, 1, 256));
  const auto n = static_cast<unsigned>(sz.get("N", nmax - 1, 1, nmax));
  const auto RB = static_cast<unsigned>(sz.get("RB", RBMAX, 1, RBMAX));
  const auto args = static_cast<std::uint32_t>(sz.get("ARGS", 0, 0, a.hbm_bytes - 64));
  const std::uint32_t RS = 64 * ((16 * nmax + 16 + 63) / 64), R = RB * P, hx = args + 64, hy = hx + 4 * R * n;
  if (args % 4 || RS * RBMAX > a.sbuf_bytes_per_partition || std::uint64_t{hy} + 4ull * R * n > a.hbm_bytes)
    throw std::invalid_argument(
        fmt::format("kernel softmax_dyn: RBMAX = {} or ARGS = {:#x} does not fit in SBUF or HBM", RBMAX, args));
  std::mt19937_64 rng(seed);
  Case c;
  sz.done();                                       // (refuses a size the kernel does not have)
  c.defines = {{"RBMAX", RBMAX}, {"ARGS", args}};  // the binary's: the same for every n and RB
  std::vector<std::uint8_t> blk(16);
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint32_t v = std::array<std::uint32_t, 4>{n, RB, hx, hy}[i];
    for (unsigned j = 0; j < 4; ++j) blk[4 * i + j] = static_cast<std::uint8_t>(v >> (8 * j));
  }
  c.inputs.push_back({"args", args, blk});
  softmax_rows(c, a, rng, n, RB, nmax, hx, hy);
  return c;
}

// ---- layernorm.s: layer norm over rows with gamma and beta, FP32, RB blocks of PARTS rows of MAX_N
Case layernorm(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  Sizes sz("layernorm", over);
  const unsigned P = a.partitions, n = a.max_moving_n;
  const auto RB = static_cast<unsigned>(sz.get("RB", 2, 1, 256));
  const unsigned R = RB * P;
  const std::uint32_t RS = 64 * ((16 * n + 16 + 63) / 64), OX = 0, OC = 4 * n, OQ = 8 * n, OY = 12 * n, OW = 16 * n,
                      AG = RS * RB, AB = AG + 4 * n, HG = 4 * R * n, HBE = HG + 4 * n, HY = HBE + 4 * n;
  if (AB + 4 * n > a.sbuf_bytes_per_partition || std::uint64_t{HY} + 4ull * R * n > a.hbm_bytes)
    throw std::invalid_argument(fmt::format("kernel layernorm: RB = {} does not fit in SBUF or HBM", RB));
  std::mt19937_64 rng(seed);
  Case c;
  c.defines = sz.done();
  // rows with an offset of 0, 3, 6 ... and a spread of 2, one block in four with a spread of 0.01
  std::vector<std::uint8_t> xs(std::size_t{4} * R * n);
  for (unsigned r = 0; r < R; ++r) {
    const double off = 3.0 * ((r / P) % 4), spr = (r / P) % 4 == 2 ? 0.01 : 2.0;
    for (unsigned i = 0; i < n; ++i) {
      const double v = off + spr * (static_cast<double>(rng() % (1u << 20)) / (1u << 20) * 2 - 1);
      const std::uint32_t cde = numerics::f32_bits(static_cast<float>(v));
      for (unsigned j = 0; j < 4; ++j) xs[4 * (std::size_t{n} * r + i) + j] = static_cast<std::uint8_t>(cde >> (8 * j));
    }
  }
  c.inputs.push_back({"X", 0, std::move(xs)});
  c.inputs.push_back({"gamma", HG, f32_data(rng, n, 0.5f, 1.5f)});
  c.inputs.push_back({"beta", HBE, f32_data(rng, n, -0.5f, 0.5f)});
  const auto& x = c.inputs[0].bytes;
  const auto& g = c.inputs[1].bytes;
  const auto& be = c.inputs[2].bytes;
  tensor::Sbuf sb(P, std::vector<std::uint8_t>(a.sbuf_bytes_per_partition, 0));
  for (unsigned p = 0; p < P; ++p) {
    put(sb, p, AG, g.data(), 4 * n);
    put(sb, p, AB, be.data(), 4 * n);
  }
  vector::FunctionalReference vref(shape(a, vector::Engine::vector)), sref(shape(a, vector::Engine::scalar));
  const std::uint32_t inv_n = numerics::f32_bits(static_cast<float>(1.0 / n));
  auto ts = [&](std::uint32_t src, std::uint32_t dst, unsigned len) {  // tensor_scalar, strides as in the kernel
    vector::Instr in = lane(vector::Op::tensor_scalar, P, len);
    in.a_addr = src, in.o_addr = dst;
    if (len > 1) in.a_stride = in.o_stride = kUnit;
    in.alu1 = vector::Alu::bypass;
    return in;
  };
  auto tt = [&](std::uint32_t src, std::uint32_t b, std::uint32_t dst, vector::Alu op) {
    vector::Instr in = lane(vector::Op::tensor_tensor, P, n);
    in.a_addr = src, in.b_addr = b, in.o_addr = dst, in.alu0 = op;
    in.a_stride = in.b_stride = in.o_stride = kUnit;
    return in;
  };
  for (unsigned b = 0; b < RB; ++b) {
    const std::uint32_t o = RS * b;
    for (unsigned p = 0; p < P; ++p) put(sb, p, o + OX, &x[4 * n * (b * P + p)], 4 * n);
    vector::Instr sum = lane(vector::Op::tensor_reduce, P, n);
    sum.a_addr = o + OX, sum.o_addr = o + OW, sum.a_stride = kUnit;
    exec(vref, sum, sb, nullptr, "layernorm's sum");
    vector::Instr mean = ts(o + OW, o + OW + 4, 1);
    mean.alu0 = vector::Alu::mul, mean.imm0 = inv_n;
    exec(vref, mean, sb, nullptr, "layernorm's mean");
    vector::Instr ctr = ts(o + OX, o + OC, n);
    ctr.alu0 = vector::Alu::sub, ctr.s0_vec = true, ctr.s0_addr = o + OW + 4;
    exec(vref, ctr, sb, nullptr, "layernorm's centring");
    exec(vref, tt(o + OC, o + OC, o + OQ, vector::Alu::mul), sb, nullptr, "layernorm's square");
    vector::Instr vs = lane(vector::Op::tensor_reduce, P, n);
    vs.a_addr = o + OQ, vs.o_addr = o + OW + 8, vs.a_stride = kUnit;
    exec(vref, vs, sb, nullptr, "layernorm's sum of squares");
    vector::Instr ve = ts(o + OW + 8, o + OW + 12, 1);
    ve.alu0 = vector::Alu::mul, ve.imm0 = inv_n, ve.alu1 = vector::Alu::add, ve.imm1 = numerics::f32_bits(1e-5f);
    exec(vref, ve, sb, nullptr, "layernorm's variance");
    vector::Instr rs = lane(vector::Op::activate, P, 1);
    rs.a_addr = o + OW + 12, rs.o_addr = o + OW + 16;
    rs.func = static_cast<unsigned>(scalar::Act::rsqrt), rs.imm0 = numerics::f32_bits(1.0f);
    exec(sref, rs, sb, nullptr, "layernorm's rsqrt");
    vector::Instr nm = ts(o + OC, o + OQ, n);
    nm.alu0 = vector::Alu::mul, nm.s0_vec = true, nm.s0_addr = o + OW + 16;
    exec(vref, nm, sb, nullptr, "layernorm's normalization");
    exec(vref, tt(o + OQ, AG, o + OC, vector::Alu::mul), sb, nullptr, "layernorm's gamma");
    exec(vref, tt(o + OC, AB, o + OY, vector::Alu::add), sb, nullptr, "layernorm's beta");
  }
  c.outputs.push_back(gather("Y", HY, sb, R, P, 4 * n, [&](unsigned r) { return RS * (r / P) + OY; }));
  // double precision: z = (x - m) / sd within docs/vector.md's bound e_z = 2 [((n - 1) u max|x| +
  // u |x - m|) / sd + (n + 8) u |z|]; then y = z gamma + beta with two roundings: |gamma| e_z + 2 u
  // (|z gamma| + |y|), twice over.
  Bound bd{"Y", 0, {}, {}, "2 (|gamma| e_z + 2 u (|z gamma| + |y|)), e_z docs/vector.md's layer-norm bound"};
  for (unsigned r = 0; r < R; ++r) {
    double m = 0, v = 0, mx = 0;
    for (unsigned i = 0; i < n; ++i) m += f32_at(x, std::size_t{n} * r + i);
    m /= n;
    for (unsigned i = 0; i < n; ++i) {
      const double xv = f32_at(x, std::size_t{n} * r + i);
      v += (xv - m) * (xv - m);
      mx = std::max(mx, std::abs(xv));
    }
    v /= n;
    const double sd = std::sqrt(v + static_cast<double>(1e-5f));
    for (unsigned i = 0; i < n; ++i) {
      const double xv = f32_at(x, std::size_t{n} * r + i), z = (xv - m) / sd, gm = f32_at(g, i);
      const double yv = z * gm + f32_at(be, i);
      const double ez = 2 * (((n - 1) * kU32 * mx + kU32 * std::abs(xv - m)) / sd + (n + 8) * kU32 * std::abs(z));
      bd.want.push_back(yv);
      bd.tol.push_back(2 * (std::abs(gm) * ez + 2 * kU32 * (std::abs(z * gm) + std::abs(yv))));
    }
  }
  c.bounds.push_back(std::move(bd));
  const unsigned q = std::min(P, a.dma_queues);
  c.sems = {{0, RB * q}, {1, q}, {2, RB}, {3, RB}, {4, RB}, {5, RB * q}};  // ld, gb, var, rs, done, out
  return c;
}

// ---- attention.s: O = softmax(Q K^T / sqrt(d)) V, one head, BF16 in and out
Case attention(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  Sizes sz("attention", over);
  const auto QT = static_cast<unsigned>(sz.get("QT", 1, 1, 64));
  const unsigned P = a.partitions, COLS = a.te_cols, d = P, e = P, Lq = QT * COLS, Lk = a.max_moving_n, JT = Lk / COLS;
  auto al = [](std::uint32_t b) { return 64 * ((b + 63) / 64); };
  const std::uint32_t TB = al(JT * 2 * COLS), AQ = 0, AK = AQ + al(2 * Lq), AV = AK + al(2 * Lk),
                      AE = AV + al(JT * 2 * e), APT = AE + 8 * Lk, AO = APT + 2 * TB, AW = AO + al(QT * 2 * e);
  const std::uint32_t HK = 2 * d * Lq, HV = HK + 2 * d * Lk, HO = HV + 2 * Lk * e;
  const std::uint32_t AW2 = AW + al(16 * QT);  // tile 0's maximum of each key tile
  if (AW2 + 4 * JT > a.sbuf_bytes_per_partition || std::uint64_t{HO} + 2ull * Lq * e > a.hbm_bytes)
    throw std::invalid_argument(fmt::format("kernel attention: QT={} does not fit in SBUF or HBM", QT));
  std::mt19937_64 rng(seed);
  Case c;
  c.defines = sz.done();
  c.macs = std::uint64_t{d} * Lq * Lk + std::uint64_t{Lk} * Lq * e;
  c.inputs.push_back({"Q^T", 0, bf16_data(rng, std::size_t{d} * Lq, -1.0f, 1.0f)});
  c.inputs.push_back({"K^T", HK, bf16_data(rng, std::size_t{d} * Lk, -1.0f, 1.0f)});
  c.inputs.push_back({"V", HV, bf16_data(rng, std::size_t{Lk} * e, -1.0f, 1.0f)});
  const auto& qt = c.inputs[0].bytes;
  const auto& kt = c.inputs[1].bytes;
  const auto& v = c.inputs[2].bytes;
  tensor::Sbuf sb(P, std::vector<std::uint8_t>(a.sbuf_bytes_per_partition, 0));
  for (unsigned t = 0; t < d; ++t) {
    put(sb, t, AQ, &qt[2 * Lq * t], 2 * Lq);
    put(sb, t, AK, &kt[2 * Lk * t], 2 * Lk);
  }
  for (unsigned j = 0; j < Lk; ++j) put(sb, j % COLS, AV + (j / COLS) * 2 * e, &v[2 * e * j], 2 * e);
  tensor::FunctionalReference tref(te_params(a));
  vector::FunctionalReference vref(shape(a, vector::Engine::vector)), sref(shape(a, vector::Engine::scalar));
  const std::uint32_t scale = numerics::f32_bits(static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))));
  // per query tile q, with its buffers: S in bank q % 2, E / E^T buffer q % 2, the transposes in
  // banks 2 .. 5 in turn, O in bank 6 + q % 2
  for (unsigned q = 0; q < QT; ++q) {
    const std::uint32_t w = AW + 16 * q, ae = AE + (q % 2) * 4 * Lk, apt = APT + (q % 2) * TB;
    const unsigned sbank = q % 2, obank = 6 + q % 2;
    // S = Q K^T
    tref.run(ls_cmd(AQ + 2 * COLS * q, d, COLS), sb);
    tref.run(mm_cmd(AK, Lk, sbank, false), sb);
    vector::Memory ps = tref.psum_rows();
    // softmax of scale S; tile 0's maximum a key tile at a time into AW2, then over those words
    vector::Instr mx = lane(vector::Op::tensor_reduce, COLS, Lk);
    mx.a_space = true, mx.a_addr = sbank * a.psum_bank_bytes, mx.a_stride = kUnit, mx.o_addr = w;
    mx.alu0 = vector::Alu::max;
    if (q == 0 && JT > 1) {
      for (unsigned jt = 0; jt < JT; ++jt) {
        vector::Instr part = mx;
        part.size = {COLS, 1, 1, 1}, part.a_addr = 4 * COLS * jt, part.o_addr = AW2 + 4 * jt;
        exec(vref, part, sb, &ps, "attention's key-tile max");
      }
      mx.size = {JT, 1, 1, 1}, mx.a_space = false, mx.a_addr = AW2;
      exec(vref, mx, sb, nullptr, "attention's max");
    } else {
      exec(vref, mx, sb, &ps, "attention's max");
    }
    vector::Instr nm = lane(vector::Op::tensor_scalar, COLS, 1);
    nm.a_addr = w, nm.o_addr = w + 4, nm.alu0 = vector::Alu::mul, nm.imm0 = scale ^ 0x80000000u;
    nm.alu1 = vector::Alu::bypass;
    exec(vref, nm, sb, nullptr, "attention's -scale max");
    for (unsigned jt = 0; jt < JT; ++jt) {  // a key tile at a time, the accumulators summing all
      vector::Instr ex = lane(vector::Op::activate, COLS, COLS);
      ex.a_space = true, ex.a_addr = sbank * a.psum_bank_bytes + 4 * COLS * jt, ex.a_stride = ex.o_stride = kUnit;
      ex.o_addr = ae + 4 * COLS * jt;
      ex.func = static_cast<unsigned>(scalar::Act::exp), ex.imm0 = scale, ex.s1_vec = true, ex.s1_addr = w + 4;
      ex.acc = true, ex.acc_clr = jt == 0;
      exec(sref, ex, sb, &ps, "attention's exp");
    }
    vector::Instr st = lane(vector::Op::acc_store, COLS, 1);
    st.o_addr = w + 8;
    exec(sref, st, sb, nullptr, "attention's acc_store");
    vector::Instr rc = lane(vector::Op::activate, COLS, 1);
    rc.a_addr = w + 8, rc.o_addr = w + 12;
    rc.func = static_cast<unsigned>(scalar::Act::reciprocal), rc.imm0 = numerics::f32_bits(1.0f);
    exec(sref, rc, sb, nullptr, "attention's reciprocal");
    // E^T tiles: a transpose through the tensor engine, a copy to BF16 (E = exp(scale S - scale
    // max), not yet divided by its row's sum: the evacuation of O divides)
    for (unsigned jt = 0; jt < JT; ++jt) {
      const unsigned tbank = 2 + (q * JT + jt) % 4;
      tensor::Command lt = ls_cmd(ae + 4 * COLS * jt, COLS, COLS);
      lt.fmt = 0, lt.tr = true;
      tensor::Command mt = mm_cmd(0, COLS, tbank, false);
      mt.tr = true;
      tref.run(lt, sb);
      tref.run(mt, sb);
      ps = tref.psum_rows();
      vector::Instr cp = lane(vector::Op::copy, COLS, COLS);
      cp.a_space = true, cp.a_addr = tbank * a.psum_bank_bytes, cp.a_stride = cp.o_stride = kUnit;
      cp.o_addr = apt + 2 * COLS * jt, cp.o_fmt = 2;
      exec(vref, cp, sb, &ps, "attention's E^T copy");
    }
    // O' = E V over the key tiles, accumulating in bank obank; O = O' times the reciprocal sum
    for (unsigned jt = 0; jt < JT; ++jt) {
      tref.run(ls_cmd(apt + 2 * COLS * jt, COLS, COLS), sb);
      tref.run(mm_cmd(AV + 2 * e * jt, e, obank, jt > 0), sb);
    }
    ps = tref.psum_rows();
    vector::Instr ev = lane(vector::Op::activate, COLS, e);
    ev.a_space = true, ev.a_addr = obank * a.psum_bank_bytes, ev.a_stride = ev.o_stride = kUnit;
    ev.o_addr = AO + q * 2 * e, ev.o_fmt = 2;
    ev.func = static_cast<unsigned>(scalar::Act::identity), ev.s0_vec = true, ev.s0_addr = w + 12;
    exec(sref, ev, sb, &ps, "attention's evacuation");
  }
  c.outputs.push_back(gather("O", HO, sb, Lq, COLS, 2 * e, [&](unsigned i) { return AO + (i / COLS) * 2 * e; }));
  // double precision from the same BF16 inputs. The logits' FP32 error (the sum over d, the scale)
  // and softmax's FP32 steps give p = E / sum a relative error eps_p (the softmax bound with the
  // logits' error doubled; the division, here the evacuation's product with the reciprocal, is one
  // of its steps); E's BF16 rounding adds 2^-9, the FP32 sum over Lk keys (Lk + 1) u, and O's BF16
  // rounding 2^-9 |O|; twice over.
  Bound bd{"O", 2, {}, {}, "2 (2^-9 |O| + sum_j p |v| (2^-9 + eps_p + (Lk + 1) u))"};
  const double sc = 1.0 / std::sqrt(static_cast<double>(d));
  for (unsigned i = 0; i < Lq; ++i) {
    std::vector<double> l(Lk);
    double mxl = -INFINITY, worst_mag = 0;
    for (unsigned j = 0; j < Lk; ++j) {
      double sum = 0, mag = 0;
      for (unsigned t = 0; t < d; ++t) {
        const double pr = bf16_at(qt, std::size_t{Lq} * t + i) * bf16_at(kt, std::size_t{Lk} * t + j);
        sum += pr;
        mag += std::abs(pr);
      }
      l[j] = sc * sum;
      mxl = std::max(mxl, l[j]);
      worst_mag = std::max(worst_mag, sc * mag);
    }
    double z = 0, span = 0;
    for (unsigned j = 0; j < Lk; ++j) {
      z += std::exp(l[j] - mxl);
      span = std::max(span, mxl - l[j]);
    }
    const double eps_p = kU32 * (2 * span + Lk + 10 + 4 * (d + 2) * worst_mag);
    for (unsigned k = 0; k < e; ++k) {
      double ov = 0, mag = 0;
      for (unsigned j = 0; j < Lk; ++j) {
        const double p = std::exp(l[j] - mxl) / z, vv = bf16_at(v, std::size_t{e} * j + k);
        ov += p * vv;
        mag += p * std::abs(vv);
      }
      bd.want.push_back(ov);
      bd.tol.push_back(2 * (kU16 / 2 * std::abs(ov) + mag * (kU16 / 2 + eps_p + (Lk + 1) * kU32)));
    }
  }
  c.bounds.push_back(std::move(bd));
  // k0, k1 (K's chunks in turn), q1, qr, qr1 (Q's tiles 2 .. in turn), s, nm, tr, pt, o, ev, out,
  // ex, vl, sc
  const unsigned qrest = QT > 2 ? QT - 2 : 0;
  c.sems = {{0, (JT + 1) / 2 * std::min(P, a.dma_queues)},
            {1, JT / 2 * std::min(P, a.dma_queues)},
            {2, QT > 1 ? std::min(P, a.dma_queues) : 0},
            {3, (qrest + 1) / 2 * std::min(P, a.dma_queues)},
            {4, qrest / 2 * std::min(P, a.dma_queues)},
            {5, QT},
            {6, QT},
            {7, QT * JT},
            {8, QT * JT},
            {9, QT},
            {10, QT},
            {11, QT * std::min(COLS, a.dma_queues)},
            {12, QT * JT},
            {13, std::min(Lk, a.dma_queues)},
            {14, JT - 1}};
  return c;
}

// ---- mlp.s: Y = W2^T gelu(W1^T X) with both matmuls on MXFP8 (E4M3FN) operands
Case mlp(const cfg::Arch& a, std::uint64_t seed, const Defines& over) {
  Sizes sz("mlp", over);
  const auto NT = static_cast<unsigned>(sz.get("NT", 1, 1, 64));
  sz.get("XA", 4, 1, 64);  // X tiles the loads run ahead of the stores (the program's order only)
  const unsigned P = a.partitions, D = P, F = a.te_cols, E = a.te_cols, N = a.max_moving_n, NN = NT * N;
  auto al = [](std::uint32_t b) { return 64 * ((b + 63) / 64); };
  // X's and H's codes and scales, H in BF16: pairs (buffer b at + b times the size)
  const std::uint32_t AX = 0, AW1 = AX + al(2 * NN), AW2 = AW1 + al(2 * F), AH = AW2 + al(2 * E), AY = AH + al(4 * N),
                      AXq = AY + al(2 * NN), AW1q = AXq + al(2 * N), AW2q = AW1q + al(F), AHq = AW2q + al(E),
                      ASC = AHq + al(2 * N), AXs = ASC, AW1s = AXs + 2 * N, AW2s = AW1s + F, AHs = AW2s + E;
  const std::uint32_t HW1 = 2 * D * NN, HW2 = HW1 + 2 * D * F, HY = HW2 + 2 * F * E;
  if (AHs + 2 * N > a.sbuf_bytes_per_partition || std::uint64_t{HY} + 2ull * E * NN > a.hbm_bytes)
    throw std::invalid_argument(fmt::format("kernel mlp: NT={} does not fit in SBUF or HBM", NT));
  std::mt19937_64 rng(seed);
  Case c;
  c.defines = sz.done();
  c.macs = (std::uint64_t{D} * F + std::uint64_t{F} * E) * NN;
  c.inputs.push_back({"X", 0, bf16_data(rng, std::size_t{D} * NN, -2.0f, 2.0f)});
  const float w1s = 2.0f / std::sqrt(static_cast<float>(D)), w2s = 2.0f / std::sqrt(static_cast<float>(F));
  c.inputs.push_back({"W1", HW1, bf16_data(rng, std::size_t{D} * F, -w1s, w1s)});
  c.inputs.push_back({"W2", HW2, bf16_data(rng, std::size_t{F} * E, -w2s, w2s)});
  const auto& x = c.inputs[0].bytes;
  const auto& w1 = c.inputs[1].bytes;
  const auto& w2 = c.inputs[2].bytes;
  tensor::Sbuf sb(P, std::vector<std::uint8_t>(a.sbuf_bytes_per_partition, 0));
  for (unsigned p = 0; p < D; ++p) {
    put(sb, p, AX, &x[2 * NN * p], 2 * NN);
    put(sb, p, AW1, &w1[2 * F * p], 2 * F);
  }
  for (unsigned f = 0; f < F; ++f) put(sb, f, AW2, &w2[2 * E * f], 2 * E);
  vector::FunctionalReference vref(shape(a, vector::Engine::vector)), sref(shape(a, vector::Engine::scalar));
  tensor::FunctionalReference tref(te_params(a));
  const unsigned e4 = static_cast<unsigned>(numerics::Format::e4m3fn);
  vector::Instr clr = lane(vector::Op::memset, P, (4 * N + F + E) / 4);
  clr.o_addr = ASC, clr.o_fmt = 0, clr.o_stride = kUnit;  // FP32 zero words (4N + F + E bytes, 4-aligned)
  exec(vref, clr, sb, nullptr, "mlp's memset");
  auto quant = [&](unsigned pc, unsigned n, std::uint32_t src, std::uint32_t dst, std::uint32_t sc) {
    vector::Instr q = lane(vector::Op::quantize_mx, pc, n);
    q.a_addr = src, q.a_fmt = 2, q.a_stride = kUnit, q.o_addr = dst, q.o_fmt = e4, q.o_stride = kUnit;
    q.o_mx = true, q.sc_addr = sc;
    exec(vref, q, sb, nullptr, "mlp's quantize_mx");
  };
  auto mx_mm = [&](std::uint32_t w, std::uint32_t ws, unsigned k, unsigned m, std::uint32_t xq, std::uint32_t xs,
                   unsigned bank) {
    tensor::Command ls = ls_cmd(w, k, m), mm = mm_cmd(xq, N, bank, false);
    ls.fmt = mm.fmt = e4;
    ls.mx = mm.mx = true;
    ls.sc_addr = ws, mm.sc_addr = xs;
    tref.run(ls, sb);
    tref.run(mm, sb);
  };
  auto act = [&](unsigned pc, unsigned bank, std::uint32_t dst, scalar::Act f) {
    vector::Memory ps = tref.psum_rows();
    vector::Instr in = lane(vector::Op::activate, pc, N);
    in.a_space = true, in.a_addr = bank * a.psum_bank_bytes, in.a_stride = in.o_stride = kUnit;
    in.o_addr = dst, in.o_fmt = 2, in.func = static_cast<unsigned>(f), in.imm0 = numerics::f32_bits(1.0f);
    exec(sref, in, sb, &ps, "mlp's activate");
  };
  quant(D, F, AW1, AW1q, AW1s);
  quant(F, E, AW2, AW2q, AW2s);
  for (unsigned t = 0; t < NT; ++t) {  // token tile t in buffers t % 2, PSUM banks t % 2 and 2 + t % 2
    const unsigned b = t % 2;
    quant(D, N, AX + 2 * N * t, AXq + b * N, AXs + b * N);
    mx_mm(AW1q, AW1s, D, F, AXq + b * N, AXs + b * N, b);
    act(F, b, AH + b * 2 * N, scalar::Act::gelu);
    quant(F, N, AH + b * 2 * N, AHq + b * N, AHs + b * N);
    mx_mm(AW2q, AW2s, F, E, AHq + b * N, AHs + b * N, 2 + b);
    act(E, 2 + b, AY + 2 * N * t, scalar::Act::identity);
  }
  c.outputs.push_back(gather("Y", HY, sb, E, P, 2 * NN, [&](unsigned) { return AY; }));
  // double precision from the BF16 inputs, without quantization. An MXFP8 (E4M3FN) element is
  // v (1 + d) + h, |d| <= 2^-4, |h| <= 2^-17 max|block| (subnormals); so a product of two has error
  // at most |a b| (2^-3 + 2^-8) + 1.07 2^-17 (|a| Mb + |b| Ma) + 2^-34 Ma Mb, plus the FP32 sum's
  // (K + 1) u. H: gelu (slope <= 1.13) of that, plus 2^-8 |H| (gelu's FP32 error, the BF16
  // rounding); Y: the same over F with H's error carried through W2, plus 2^-8 |Y|; twice over.
  const unsigned blk = P < 32 ? P : 32;
  auto mm_err = [&](const std::vector<double>& av, const std::vector<double>& bv, const std::vector<double>& am,
                    const std::vector<double>& bm) {  // a, b along K with their blocks' maxima
    double e = 0, mag = 0;
    for (std::size_t k = 0; k < av.size(); ++k) {
      const double ab = std::abs(av[k] * bv[k]);
      e += ab * (0x1p-3 + 0x1p-8) + 1.07 * 0x1p-17 * (std::abs(av[k]) * bm[k] + std::abs(bv[k]) * am[k]) +
           0x1p-34 * am[k] * bm[k];
      mag += ab;
    }
    return e + (av.size() + 1) * kU32 * 1.14 * mag;
  };
  auto block_max = [&](const std::vector<double>& v) {  // v along K: each element's block maximum
    std::vector<double> m(v.size(), 0);
    for (std::size_t b = 0; b < v.size(); b += blk) {
      double mx = 0;
      for (std::size_t k = b; k < std::min(v.size(), b + blk); ++k) mx = std::max(mx, std::abs(v[k]));
      for (std::size_t k = b; k < std::min(v.size(), b + blk); ++k) m[k] = mx;
    }
    return m;
  };
  auto col = [](const std::vector<std::uint8_t>& bytes, unsigned rows, unsigned cols, unsigned j) {
    std::vector<double> v(rows);
    for (unsigned r = 0; r < rows; ++r) v[r] = bf16_at(bytes, std::size_t{cols} * r + j);
    return v;
  };
  std::vector<std::vector<double>> hd(NN, std::vector<double>(F)), he(NN, std::vector<double>(F));
  for (unsigned n = 0; n < NN; ++n) {
    const auto xv = col(x, D, NN, n), xm = block_max(xv);
    for (unsigned f = 0; f < F; ++f) {
      const auto wv = col(w1, D, F, f), wm = block_max(wv);
      double s = 0;
      for (unsigned k = 0; k < D; ++k) s += wv[k] * xv[k];
      const double hv = gelu_d(s);
      hd[n][f] = hv;
      he[n][f] = 1.13 * mm_err(wv, xv, wm, xm) + kU16 * (std::abs(hv) + 1.13 * mm_err(wv, xv, wm, xm));
    }
  }
  Bound bd{"Y", 2, {}, {}, "2 (|W2| e_H + e_mx(W2, |H| + e_H) + 2^-8 |Y|), e_mx: MXFP8 products (docs/kernels.md)"};
  for (unsigned m = 0; m < E; ++m) {
    const auto wv = col(w2, F, E, m), wm = block_max(wv);
    for (unsigned n = 0; n < NN; ++n) {
      std::vector<double> hb(F);
      double yv = 0, carry = 0;
      for (unsigned f = 0; f < F; ++f) {
        hb[f] = std::abs(hd[n][f]) + he[n][f];
        yv += wv[f] * hd[n][f];
        carry += std::abs(wv[f]) * he[n][f] * 1.14;
      }
      bd.want.push_back(yv);
      bd.tol.push_back(2 * (carry + mm_err(wv, hb, wm, block_max(hb)) + kU16 * std::abs(yv)));
    }
  }
  c.bounds.push_back(std::move(bd));
  const unsigned q = a.dma_queues;
  // xl, xl1, w, qw, qx, qh, mm1, h, mm2, ev, out (X's even tiles on xl, odd ones on xl1)
  c.sems = {{0, (NT + 1) / 2 * std::min(D, q)},
            {1, NT / 2 * std::min(D, q)},
            {2, std::min(D, q) + std::min(F, q)},
            {3, 2},
            {4, NT},
            {5, NT},
            {6, NT},
            {7, NT},
            {8, NT},
            {9, NT},
            {10, NT * std::min(E, q)}};
  return c;
}

const Kernel kAll[] = {
    {"matmul", "matmul.s", "one tile: C = gelu(0.5 W^T X), BF16, all four streams", matmul},
    {"gemm", "gemm.s", "tiled GEMM with double-buffered loads: C = gelu(W^T X + bias), BF16", gemm},
    {"gemm_dyn", "gemm_dyn.s",
     "gemm with K, N and the moving size read from an argument block at run time (one binary), BF16", gemm_dyn},
    {"softmax", "softmax.s", "softmax over rows (max, subtract, exp and sum, reciprocal, multiply), FP32", softmax},
    {"softmax_dyn", "softmax_dyn.s",
     "softmax.s with the row length n and block count RB read from an argument block at run time (one binary)",
     softmax_dyn},
    {"layernorm", "layernorm.s", "layer norm over rows with gamma and beta, FP32", layernorm},
    {"attention", "attention.s", "one attention head: softmax(Q K^T / sqrt(d)) V, BF16", attention},
    {"mlp", "mlp.s", "an MLP step on MXFP8: Y = W2^T gelu(W1^T X), quantized by the vector engine", mlp},
};

}  // namespace

std::span<const Kernel> all() { return kAll; }

const Kernel* find(std::string_view name) {
  for (const auto& k : kAll)
    if (name == k.name) return &k;
  return nullptr;
}

std::string kernels_dir() { return TRN_KERNELS_DIR; }

std::string source(const Kernel& k) { return isa::read_text(kernels_dir() + "/" + k.file); }

isa::Program assemble(const Kernel& k, const Case& c, const cfg::Arch& arch) {
  auto defs = isa::config_defines(arch);
  for (const auto& [n, v] : c.defines) defs[n] = v;
  return isa::assemble(source(k), kernels_dir() + "/" + k.file, defs);
}

Accuracy accuracy(const Case& c, std::span<const std::uint8_t> hbm, unsigned max) {
  Accuracy a;
  unsigned bad = 0;
  for (const auto& bd : c.bounds) {
    const auto it =
        std::find_if(c.outputs.begin(), c.outputs.end(), [&](const Block& o) { return o.name == bd.output; });
    if (it == c.outputs.end()) throw std::logic_error(fmt::format("bound on an unknown output {}", bd.output));
    const unsigned esz = bd.fmt == 2 ? 2 : 4;
    for (std::size_t i = 0; i < bd.want.size(); ++i) {
      const std::size_t at = it->addr + esz * i;
      if (at + esz > hbm.size()) throw std::logic_error(fmt::format("{} element {} is outside HBM", bd.output, i));
      const std::vector<std::uint8_t> e(hbm.begin() + static_cast<std::ptrdiff_t>(at),
                                        hbm.begin() + static_cast<std::ptrdiff_t>(at + esz));
      const double got = esz == 2 ? bf16_at(e, 0) : f32_at(e, 0), err = std::abs(got - bd.want[i]);
      const double r = err / bd.tol[i];
      if (r > a.worst || std::isnan(r)) a.worst = std::isnan(r) ? INFINITY : r;
      if (!(err <= bd.tol[i]) && bad++ < max)
        a.fail += fmt::format("{}{} element {}: {:.6g}, double-precision {:.6g}, |error| {:.3g} > bound {:.3g}",
                              a.fail.empty() ? "" : "\n", bd.output, i, got, bd.want[i], err, bd.tol[i]);
    }
  }
  if (bad > max) a.fail += fmt::format("\n... {} elements outside their bounds", bad);
  return a;
}

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
    p.text = isa::read_text(p.path);
    p.expect = parse_expect(p.path, p.text, defs);
  }
  return out;
}

void relocate(Case& c, isa::Program& p, std::uint32_t base) {
  namespace tbl = isa::tbl;
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 24;  // a chip's HBM byte address (docs/chip.md)
  auto moved = [&](std::uint64_t a) {
    if (a + base >= kLimit)
      throw std::invalid_argument(fmt::format("relocate: HBM address {:#x} + {:#x} leaves the chip's HBM", a, base));
    return a + base;
  };
  for (auto* blocks : {&c.inputs, &c.outputs})
    for (Block& b : *blocks) b.addr = static_cast<std::uint32_t>(moved(b.addr));
  for (auto& stream : p.streams)
    for (Bits& w : stream) {
      const tbl::Op* o = isa::find_op(static_cast<unsigned>(isa::get(w, tbl::kF_op)));
      if (!o || o->unit != tbl::Unit::dma) continue;
      if (std::string_view(o->name) == "reg_load")
        throw std::invalid_argument(
            "relocate: the program reads its addresses at run time (reg_load); place its argument block instead");
      if (isa::get(w, tbl::kF_src_space) == 0) isa::set(w, tbl::kF_src_addr, moved(isa::get(w, tbl::kF_src_addr)));
      if (isa::get(w, tbl::kF_dst_space) == 0) isa::set(w, tbl::kF_dst_addr, moved(isa::get(w, tbl::kF_dst_addr)));
    }
}

}  // namespace trn::kernels
