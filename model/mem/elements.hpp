// trn::mem element layout — how one element of a data type sits in an SBUF partition (docs/core.md,
// byte layouts; rtl/mem/sbuf_pkg.sv): element idx of 2^es nibbles (es: 0 = 4 bits, 1 = 1 byte,
// 2 = 2 bytes, 3 = 4 bytes) starts at nibble idx << es; multi-byte elements are little-endian and
// 4-bit elements share a byte, element 2k in the low nibble. One definition for the SBUF model, the
// engines' references and the benches' memories.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace trn::mem {

/// The element size code (sbuf_pkg::esize_e) of a data type: the numerics formats 0..9 (FP32, TF32,
/// BF16, FP16, four FP8, E2M1, E8M0) and the integer types 10..13 (int32, int16, int8, uint8).
constexpr unsigned dtype_esize(unsigned t) {
  if (t == 0 || t == 1 || t == 10) return 3;
  if (t == 2 || t == 3 || t == 11) return 2;
  if (t == 8) return 0;
  return 1;
}
/// Bytes of a partition that elements [0, n) of size es take (a 4-bit tail rounds up).
constexpr std::uint64_t elem_bytes(std::uint64_t n, unsigned es) { return ((n << es) + 1) / 2; }
/// The element index of byte address a for elements of size es (a aligned to the size).
constexpr std::uint64_t base_index(std::uint64_t a, unsigned es) { return (a * 2) >> es; }
/// Is byte address a aligned to elements of size es?
constexpr bool aligned(std::uint64_t a, unsigned es) { return ((a * 2) & ((1u << es) - 1)) == 0; }
/// Do `count` elements of size es from byte address a lie in a partition of `bytes`, a aligned?
constexpr bool elems_fit(std::uint64_t a, unsigned es, std::uint64_t count, std::uint64_t bytes) {
  return aligned(a, es) && ((base_index(a, es) + count) << es) <= 2 * bytes;
}
/// The SBUF bank that element idx of size es lies in: lines of line_bytes bytes, line l in bank
/// l % banks (rtl/mem/sbuf_pkg.sv elem_bank).
constexpr unsigned elem_bank(std::uint64_t idx, unsigned es, unsigned line_bytes, unsigned banks) {
  return static_cast<unsigned>(((idx << es) / (2 * std::uint64_t{line_bytes})) % banks);
}
/// The SBUF banks (bit b: bank b) that a row of `bytes` bytes from byte offset `off` of a partition
/// touches: one line of line_bytes bytes, or two consecutive ones (0 bytes count as 1); line l in
/// bank l % banks (rtl/mem/sbuf_pkg.sv row_banks).
constexpr std::uint64_t row_banks(std::uint32_t off, std::uint32_t bytes, unsigned line_bytes, unsigned banks) {
  const std::uint32_t l0 = off / line_bytes, l1 = bytes == 0 ? l0 : (off + bytes - 1) / line_bytes;
  return (std::uint64_t{1} << (l0 % banks)) | (std::uint64_t{1} << (l1 % banks));
}
/// The byte address of element idx of size es (idx even for 4-bit elements).
constexpr std::uint32_t byte_address(std::uint64_t idx, unsigned es) {
  return static_cast<std::uint32_t>((idx << es) / 2);
}

/// Element idx of size es in a partition's bytes, zero-extended.
inline std::uint32_t load_elem(std::span<const std::uint8_t> row, std::uint64_t idx, unsigned es) {
  const std::uint64_t nib = idx << es;
  if (elem_bytes(idx + 1, es) > row.size())
    throw std::out_of_range("element " + std::to_string(idx) + " of " + std::to_string(4u << es) +
                            " bits beyond a partition of " + std::to_string(row.size()) + " bytes");
  if (es == 0) return (row[nib / 2] >> (4 * (nib % 2))) & 0xFu;
  std::uint32_t v = 0;
  for (unsigned b = 0; b < (1u << (es - 1)); ++b) v |= std::uint32_t{row[nib / 2 + b]} << (8 * b);
  return v;
}
/// Store the low bits of v as element idx of size es (the other bits of its byte kept).
inline void store_elem(std::span<std::uint8_t> row, std::uint64_t idx, unsigned es, std::uint32_t v) {
  const std::uint64_t nib = idx << es;
  if (elem_bytes(idx + 1, es) > row.size())
    throw std::out_of_range("element " + std::to_string(idx) + " of " + std::to_string(4u << es) +
                            " bits beyond a partition of " + std::to_string(row.size()) + " bytes");
  if (es == 0) {
    const unsigned sh = 4 * (nib % 2);
    row[nib / 2] = static_cast<std::uint8_t>((row[nib / 2] & ~(0xFu << sh)) | ((v & 0xFu) << sh));
    return;
  }
  for (unsigned b = 0; b < (1u << (es - 1)); ++b) row[nib / 2 + b] = static_cast<std::uint8_t>(v >> (8 * b));
}

}  // namespace trn::mem
