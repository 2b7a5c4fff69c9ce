#include "vector/reference.hpp"

#include <stdexcept>

#include "mem/elements.hpp"
#include "numerics/arith.hpp"
#include "numerics/mx.hpp"
#include "numerics/sr_rng.hpp"
#include "scalar/activation.hpp"

namespace trn::vector {

FunctionalReference::FunctionalReference(Shape s) : s_(s), acc_(s.lanes, 0), rng_(s.lanes) {
  for (unsigned l = 0; l < s_.lanes; ++l) rng_[l] = numerics::Xorshift32::lane_seed(0, l);
}

Err FunctionalReference::execute(const Instr& in, Memory& sbuf, Memory* psum) {
  const Err e = check(in, s_);
  if (e != Err::none) return e;
  const auto space = [&](bool in_psum) -> Memory& {
    if (!in_psum) return sbuf;
    if (!psum) throw std::invalid_argument("vector reference: an operand in PSUM, and no PSUM given");
    return *psum;
  };
  Memory& mem = sbuf;  // the per-partition operands and the MX scale tensor
  if (in.op == Op::set_seed) {
    for (unsigned l = 0; l < s_.lanes; ++l) rng_[l] = numerics::Xorshift32::lane_seed(in.imm0, l);
    return Err::none;
  }
  const bool idom = int_domain(in);
  const unsigned p0 = in.ps, p1 = in.ps + in.pc, G = s_.group();

  // The element indices of an access pattern of type `dt` from byte address `base`, in order.
  auto indices = [](std::uint32_t base, unsigned dt, const std::array<std::uint32_t, kDims>& size,
                    const std::array<std::uint32_t, kDims>& stride) {
    std::vector<std::uint64_t> v = pattern_offsets(size, stride);
    for (auto& x : v) x += first_index(base, dt);
    return v;
  };
  const std::vector<std::uint64_t> ao = indices(in.a_addr, in.a_fmt, in.size, in.a_stride);
  const std::vector<std::uint64_t> bo = indices(in.b_addr, in.b_fmt, in.size, in.b_stride);
  const std::vector<std::uint64_t> oo = indices(in.o_addr, in.o_fmt, out_sizes(in), in.o_stride);
  const std::vector<std::uint64_t> offs = pattern_offsets(out_sizes(in), in.o_stride);

  // inputs, read before anything is written: value[element][partition]
  auto load = [&](const Memory& m, const std::vector<std::uint64_t>& idx, unsigned fmt, unsigned bias) {
    std::vector<std::vector<std::uint32_t>> v(idx.size(), std::vector<std::uint32_t>(s_.lanes, 0));
    for (std::size_t i = 0; i < idx.size(); ++i)
      for (unsigned p = p0; p < p1; ++p)
        v[i][p] = in_cast(fmt, bias, mem::load_elem(m[p], idx[i], mem::dtype_esize(fmt)), idom);
    return v;
  };
  std::vector<std::vector<std::uint32_t>> a, b;
  if (reads_a(in)) a = load(space(in.a_space), ao, in.a_fmt, in.a_bias);
  if (reads_b(in)) b = load(space(in.b_space), bo, in.b_fmt, in.b_bias);
  Memory& out = space(in.o_space);
  std::vector<std::uint32_t> s0(s_.lanes, in.imm0), s1(s_.lanes, in.imm1);
  if (prologue_reads(in) > 0) {
    constexpr unsigned kFp32 = 0;
    for (unsigned p = 0; p < s_.lanes; ++p) {
      if (in.s0_vec) s0[p] = mem::load_elem(mem[p], first_index(in.s0_addr, kFp32), 3);
      if (in.s1_vec) s1[p] = mem::load_elem(mem[p], first_index(in.s1_addr, kFp32), 3);
    }
  }

  // results: value[output element][partition] before the output cast
  std::vector<std::vector<std::uint32_t>> r(oo.size(), std::vector<std::uint32_t>(s_.lanes, 0));
  const std::size_t n = ao.size();
  for (unsigned p = p0; p < p1; ++p) {
    switch (in.op) {
      case Op::copy:
        for (std::size_t i = 0; i < n; ++i) r[i][p] = a[i][p];
        break;
      case Op::tensor_tensor:
        for (std::size_t i = 0; i < n; ++i) r[i][p] = alu(in.alu0, a[i][p], b[i][p], idom);
        break;
      case Op::tensor_scalar:
        for (std::size_t i = 0; i < n; ++i) r[i][p] = alu(in.alu1, alu(in.alu0, a[i][p], s0[p], idom), s1[p], idom);
        break;
      case Op::tensor_reduce: {
        // each dim-0 row, left to right: ((x0 op x1) op x2) ...; absmax starts from |x0|
        const std::uint32_t row = in.size[0];
        for (std::size_t o = 0; o < oo.size(); ++o) {
          std::uint32_t acc = a[o * row][p];
          if (in.alu0 == Alu::absmax) acc = alu(Alu::absmax, acc, acc, idom);
          for (std::uint32_t i = 1; i < row; ++i) acc = alu(in.alu0, acc, a[o * row + i][p], idom);
          r[o][p] = acc;
        }
        break;
      }
      case Op::exp:
        for (std::size_t i = 0; i < n; ++i) r[i][p] = fast_exp(a[i][p]);
        break;
      case Op::iota: {
        std::size_t i = 0;
        for (std::uint32_t i3 = 0; i3 < in.size[3]; ++i3)
          for (std::uint32_t i2 = 0; i2 < in.size[2]; ++i2)
            for (std::uint32_t i1 = 0; i1 < in.size[1]; ++i1)
              for (std::uint32_t i0 = 0; i0 < in.size[0]; ++i0, ++i) {
                const std::uint32_t v = in.imm0 + in.imm1 * p + i0 * in.a_stride[0] + i1 * in.a_stride[1] +
                                        i2 * in.a_stride[2] + i3 * in.a_stride[3];
                r[i][p] = idom ? v : int_to_fp32(static_cast<std::int32_t>(v));
              }
        break;
      }
      case Op::memset:
        for (auto& x : r) x[p] = in.imm0;
        break;
      case Op::quantize_mx:
        for (std::size_t i = 0; i < n; ++i) r[i][p] = a[i][p];
        break;
      case Op::transpose: {
        // within each group of G partitions: out[g + i][j] = in[g + j][i]
        const unsigned g = p - p % G, i = p % G;
        for (unsigned j = 0; j < G; ++j) r[j][p] = a[i][g + j];
        break;
      }
      case Op::activate:
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t x = numerics::fp32_add(numerics::fp32_mul(a[i][p], s0[p]), s1[p]);
          r[i][p] = scalar::activate(static_cast<scalar::Act>(in.func), x);
        }
        break;
      case Op::acc_store:
        r[0][p] = acc_[p];
        break;
      case Op::set_seed:
        break;
    }
  }
  if (in.op == Op::activate) {
    if (in.acc_clr) acc_.assign(s_.lanes, 0);
    if (in.acc)
      for (unsigned p = p0; p < p1; ++p)
        for (std::size_t i = 0; i < n; ++i) acc_[p] = numerics::fp32_add(acc_[p], r[i][p]);
  }

  // output cast and write, in output order
  for (std::size_t o = 0; o < oo.size(); ++o) {
    if (in.op == Op::quantize_mx) {
      for (unsigned g = p0; g < p1; g += G) {
        const numerics::MxBlock blk = numerics::mx_quantize(std::span<const std::uint32_t>(r[o].data() + g, G),
                                                            static_cast<numerics::Format>(in.o_fmt), in.mx_neuron);
        for (unsigned i = 0; i < G; ++i) mem::store_elem(out[g + i], oo[o], mem::dtype_esize(in.o_fmt), blk.codes[i]);
        mem::store_elem(mem[g], in.sc_addr + offs[o], 1, blk.scale);  // the block's scale byte
      }
      continue;
    }
    for (unsigned p = p0; p < p1; ++p) {
      std::uint32_t rnd = 0;
      if (in.o_sr) rnd = rng_[p] = numerics::Xorshift32::step(rng_[p]);
      mem::store_elem(out[p], oo[o], mem::dtype_esize(in.o_fmt),
                      out_cast(in.o_fmt, in.o_bias, r[o][p], idom, in.o_sr, in.o_sat, rnd));
    }
  }
  return Err::none;
}

}  // namespace trn::vector
