#include "dma/desc.hpp"

#include <fmt/format.h>

#include <array>

#include "common/clog2.hpp"
#include "numerics/arith.hpp"
#include "numerics/format.hpp"

namespace trn::dma {

std::string_view err_name(Err e) {
  switch (e) {
    case Err::none:
      return "none";
    case Err::range:
      return "address out of range";
    case Err::zero_len:
      return "zero length";
    case Err::long_len:
      return "oversize length";
    case Err::transpose:
      return "misaligned transpose";
    case Err::mx_cast:
      return "MX cast";
    case Err::format:
      return "bad type, op or layout";
    case Err::chip:
      return "chip out of range";
  }
  return "?";
}

Geometry Geometry::make(std::uint32_t hbm_bytes, unsigned parts, std::uint32_t part_bytes, unsigned beat_bytes,
                        std::uint32_t max_len) {
  Geometry g;
  g.hbm_bytes = hbm_bytes;
  g.parts = parts;
  g.part_bytes = part_bytes;
  g.off_bits = clog2(part_bytes);
  g.beat_bytes = beat_bytes;
  g.max_len = max_len;
  return g;
}

bool type_known(unsigned t) { return t <= 9 || t == kTypeBytes; }
bool type_mx(unsigned t) { return t == 8 || t == 9; }
unsigned type_size(unsigned t) { return t <= 1 ? 4 : (t <= 3 ? 2 : 1); }

std::string_view type_name(unsigned t) {
  if (t == kTypeBytes) return "bytes";
  if (t <= 9) return numerics::format_info(static_cast<numerics::Format>(t)).name;
  return "?";
}
std::optional<unsigned> parse_type(std::string_view s) {
  for (unsigned t = 0; t < 16; ++t)
    if (type_known(t) && type_name(t) == s) return t;
  return std::nullopt;
}

std::string Desc::str() const {
  return fmt::format("{}:{:#x} -> {}:{:#x} len {} {}->{} layout {} cols {} op {}{}{}{}",
                     src_space == Space::hbm ? "hbm" : "sbuf", src_addr, dst_space == Space::hbm ? "hbm" : "sbuf",
                     dst_addr, len, type_name(stype), type_name(dtype), layout, cols, op,
                     sem ? fmt::format(" sem {}:{:#x}={}", sem_space == Space::hbm ? "hbm" : "sbuf", sem_addr, sem_val)
                         : std::string(),
                     barrier ? " barrier" : "", last ? " last" : "");
}

bool in_range(const Geometry& g, Space space, std::uint32_t addr, std::uint64_t bytes) {
  if (space == Space::hbm) return static_cast<std::uint64_t>(addr & kLocalMask) + bytes <= g.hbm_bytes;
  return g.part_of(addr) < g.parts && static_cast<std::uint64_t>(g.off_of(addr)) + bytes <= g.part_bytes;
}

Err check_reg(Space src_space, std::uint32_t src_addr, const Geometry& g) {
  if (src_addr % 4 != 0) return Err::format;
  if (src_space == Space::hbm && chip_of(src_addr) != 0) return Err::chip;
  if (!in_range(g, src_space, src_addr, 4)) return Err::range;
  return Err::none;
}

Err check(const Desc& d, const Geometry& g) {
  if (!type_known(d.stype) || !type_known(d.dtype) || d.op > 2 || d.layout > 2) return Err::format;
  if (type_mx(d.stype) || type_mx(d.dtype)) return Err::mx_cast;
  if ((d.stype == kTypeBytes) != (d.dtype == kTypeBytes)) return Err::format;
  if (d.len == 0) return Err::zero_len;
  if (d.len > g.max_len) return Err::long_len;
  const unsigned ss = type_size(d.stype), ds = type_size(d.dtype);
  if (d.len % ss != 0) return Err::format;
  if (d.op == static_cast<unsigned>(Op::acc) && !(d.dtype == 0 || d.dtype == 2)) return Err::format;
  const bool reg = d.op == static_cast<unsigned>(Op::reg);
  if (reg && (d.stype != kTypeBytes || d.len != 4 || d.layout != 0 || d.sem || d.src_addr % 4 != 0)) return Err::format;
  // an HBM address names chip 0 .. chips (0: this chip); a source only this chip
  auto chip_ok = [&](Space sp, std::uint32_t a) { return sp != Space::hbm || chip_of(a) <= g.chips; };
  if ((d.src_space == Space::hbm && chip_of(d.src_addr) != 0) || !chip_ok(d.dst_space, d.dst_addr) ||
      (d.sem && !chip_ok(d.sem_space, d.sem_addr)))
    return Err::chip;
  const std::uint64_t nelem = d.len / ss;
  const unsigned es = d.layout == static_cast<unsigned>(Layout::col2) ? 2 : 4;
  std::uint64_t rows = 0;
  if (d.layout != 0) {
    if (d.dst_space != Space::sbuf || ds != es || d.cols == 0 || nelem % d.cols != 0 || g.off_of(d.dst_addr) % es != 0)
      return Err::transpose;
    rows = nelem / d.cols;
  }
  if (!in_range(g, d.src_space, d.src_addr, d.len)) return Err::range;
  if (reg) {
    if (d.dst_space != Space::hbm || !is_reg_addr(d.dst_addr)) return Err::range;
  } else if (d.layout == 0) {
    if (!in_range(g, d.dst_space, d.dst_addr, nelem * ds)) return Err::range;
  } else if (static_cast<std::uint64_t>(g.part_of(d.dst_addr)) + d.cols > g.parts ||
             g.off_of(d.dst_addr) + rows * es > g.part_bytes) {
    return Err::range;
  }
  if (d.sem && (d.sem_addr % 4 != 0 || !in_range(g, d.sem_space, d.sem_addr, 4))) return Err::range;
  return Err::none;
}

std::uint32_t cast_elem(unsigned stype, unsigned dtype, std::uint32_t code) {
  const auto sf = static_cast<numerics::Format>(stype), df = static_cast<numerics::Format>(dtype);
  return numerics::encode(df, numerics::decode(sf, code));
}

Desc copy_desc(Space ss, std::uint32_t src, Space ds, std::uint32_t dst, std::uint32_t len, unsigned type) {
  Desc d;
  d.src_space = ss;
  d.src_addr = src;
  d.dst_space = ds;
  d.dst_addr = dst;
  d.len = len;
  d.stype = d.dtype = type;
  return d;
}

std::uint32_t acc_add(bool bf16, std::uint32_t a, std::uint32_t b) {
  if (!bf16) return numerics::fp32_add(a, b);
  return numerics::encode(numerics::Format::bf16, numerics::fp32_add((a & 0xFFFFu) << 16, (b & 0xFFFFu) << 16));
}

}  // namespace trn::dma
