// trn::dma descriptors (SPEC 5.5, docs/dma.md): the fields, the legality check, and the element
// arithmetic of the DMA path (cast via FP32, near-memory accumulate). Written from the spec; the
// RTL's rtl/dma/dma_pkg.sv implements the same rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trn::dma {

enum class Space : std::uint8_t { hbm = 0, sbuf = 1 };
enum class Layout : std::uint8_t { row = 0, col2 = 1, col4 = 2 };
/// copy; acc: destination += source (BF16 or FP32); reg: 4 bytes from a 4-aligned source to a
/// register address, one write marked as a semaphore write that the issuing unit takes (reg_load).
enum class Op : std::uint8_t { copy = 0, acc = 1, reg = 2 };

/// Element type codes: trn::numerics::Format 0..9, and raw bytes.
inline constexpr unsigned kTypeBytes = 15;

/// Queue error codes, in the order they are checked (docs/dma.md).
enum class Err : std::uint8_t {
  none = 0,
  range = 1,  ///< source, destination or semaphore range outside its memory (SBUF: one partition)
  zero_len = 2,
  long_len = 3,   ///< longer than max_len
  transpose = 4,  ///< column layout: not into SBUF, element size, cols, length or offset misaligned
  mx_cast = 5,    ///< an MX element or scale type (FP4 E2M1, E8M0) as source or destination
  format = 6,     ///< unknown type/op/layout, a cast to/from bytes, accumulate not BF16/FP32, a
                  ///< length that is not a whole number of source elements
  chip = 7,       ///< a destination or semaphore chip field past the system's chips, or a source
                  ///< naming another chip (remote reads are not built)
};

/// Addresses of a chip (docs/chip.md): an HBM address's chip field [31:24] (0: this chip; c: chip
/// c - 1) above its byte address in that chip's HBM; a semaphore address's unit field [11:7] (0:
/// the issuing unit; u: unit u - 1 of the chip) and semaphore [6:2].
inline constexpr unsigned kChipLsb = 24, kLocalBits = 24, kUnitLsb = 7, kUnitBits = 5;
/// Bits of a read request's id (dma_pkg::rd_req_t): a DMA engine has at most 2^8 read slots.
inline constexpr unsigned kReadIdBits = 8;
inline constexpr std::uint32_t kLocalMask = (1u << kLocalBits) - 1;
inline unsigned chip_of(std::uint32_t a) { return a >> kChipLsb; }
inline unsigned unit_of(std::uint32_t a) { return (a >> kUnitLsb) & ((1u << kUnitBits) - 1); }
/// A register address (Op::reg's destination, docs/isa.md reg_load): bit 12 set, the stream in
/// [15:13], the register in [5:2]; chip and unit fields 0 (the issuing unit).
inline constexpr unsigned kRegBit = 12, kRegStreamLsb = 13;
inline std::uint32_t reg_addr(unsigned stream, unsigned reg) {
  return (stream & 7u) << kRegStreamLsb | 1u << kRegBit | (reg & 15u) << 2;
}
inline bool is_reg_addr(std::uint32_t a) {
  return (a & ~(7u << kRegStreamLsb | 1u << kRegBit | 15u << 2)) == 0 && (a >> kRegBit & 1);
}
/// Does an HBM address name chip `id` (its chip field 0, or id + 1)?
inline bool is_local(std::uint32_t a, unsigned id) { return chip_of(a) == 0 || chip_of(a) == ((id + 1) & 0xFF); }
std::string_view err_name(Err e);

struct Desc {
  Space src_space = Space::hbm;
  std::uint32_t src_addr = 0;
  Space dst_space = Space::sbuf;
  std::uint32_t dst_addr = 0;
  std::uint32_t len = 0;  ///< source bytes
  unsigned stype = kTypeBytes, dtype = kTypeBytes;
  unsigned layout = 0;     ///< Layout code (2 bits; 3 is illegal)
  std::uint32_t cols = 0;  ///< column layouts: source row length in elements
  unsigned op = 0;         ///< Op code (2 bits; 3 is illegal)
  bool sem = false;
  Space sem_space = Space::sbuf;
  std::uint32_t sem_addr = 0, sem_val = 0;
  bool barrier = false, last = false;

  bool cast() const { return stype != dtype; }
  std::string str() const;
};
/// A row-layout copy of `len` bytes from (ss, src) to (ds, dst) with source and destination type `type`.
Desc copy_desc(Space ss, std::uint32_t src, Space ds, std::uint32_t dst, std::uint32_t len, unsigned type = kTypeBytes);

/// The memories a DMA engine addresses: HBM (byte addresses) and SBUF ({partition, offset}, the
/// partition in the bits above off_bits).
struct Geometry {
  std::uint32_t hbm_bytes = 65536;
  unsigned parts = 4;
  std::uint32_t part_bytes = 1024;
  unsigned off_bits = 10;
  std::uint32_t max_len = 65536;
  unsigned beat_bytes = 16;
  unsigned chips = 1;  ///< chips an HBM address may name (the chip field's 1 .. chips; 0 is this chip)

  static Geometry make(std::uint32_t hbm_bytes, unsigned parts, std::uint32_t part_bytes, unsigned beat_bytes,
                       std::uint32_t max_len = 65536);
  std::uint32_t sbuf_addr(unsigned part, std::uint32_t off) const { return (part << off_bits) | off; }
  unsigned part_of(std::uint32_t a) const { return a >> off_bits; }
  std::uint32_t off_of(std::uint32_t a) const { return a & ((1u << off_bits) - 1); }
  /// Index of an SBUF address in a flat [parts][part_bytes] image.
  std::uint64_t sbuf_index(std::uint32_t a) const {
    return static_cast<std::uint64_t>(part_of(a)) * part_bytes + off_of(a);
  }
};

bool type_known(unsigned t);
bool type_mx(unsigned t);
unsigned type_size(unsigned t);  ///< bytes per element: 4 (FP32, TF32), 2 (BF16, FP16), 1 (others)
std::string_view type_name(unsigned t);
std::optional<unsigned> parse_type(std::string_view s);

/// Is [addr, addr + bytes) inside `space`? HBM: the address's local part, in whichever chip it
/// names; SBUF ranges stay inside one partition (parts = 0: no SBUF, nothing is inside).
bool in_range(const Geometry& g, Space space, std::uint32_t addr, std::uint64_t bytes);
Err check(const Desc& d, const Geometry& g);
/// check() of an Op::reg descriptor from `src` (4 bytes, types bytes, to a register address), from
/// the source alone: what a control checks its reg_load with.
Err check_reg(Space src_space, std::uint32_t src_addr, const Geometry& g);

/// One element: source code -> destination code through FP32 (exact decode, RNE encode, standard
/// FP8 biases, Inf where the type has it, otherwise saturation as numerics::encode does).
std::uint32_t cast_elem(unsigned stype, unsigned dtype, std::uint32_t code);
/// Near-memory accumulate of one element: FP32 addition (RNE), or for BF16 the FP32 sum of the two
/// BF16 values rounded to BF16 (RNE).
std::uint32_t acc_add(bool bf16, std::uint32_t a, std::uint32_t b);

}  // namespace trn::dma
