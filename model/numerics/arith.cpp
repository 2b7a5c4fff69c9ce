#include "numerics/arith.hpp"

#include <cmath>

namespace trn::numerics {

namespace {
std::uint32_t canonical(float r) { return std::isnan(r) ? kCanonicalNaN : f32_bits(r); }
}  // namespace

std::uint32_t fp32_add(std::uint32_t a, std::uint32_t b) { return canonical(f32_from(a) + f32_from(b)); }
std::uint32_t fp32_mul(std::uint32_t a, std::uint32_t b) { return canonical(f32_from(a) * f32_from(b)); }

std::uint32_t tf32_round(std::uint32_t a) { return decode(Format::tf32, encode(Format::tf32, a)); }

std::uint32_t mul_narrow(const Operand& a, const Operand& b) {
  // Both decodes are exact, and one IEEE multiply rounds the exact product once.
  return fp32_mul(decode(a.fmt, a.code, a.bias), decode(b.fmt, b.code, b.bias));
}

}  // namespace trn::numerics
