// trn::isa — the NeuronCore instruction set (docs/isa.md) for the model and the tools: the
// instruction word and its fields from the generated table (rtl/core/isa.toml, the one
// definition), the legality rules the control applies, programs and their binary file, and the
// text assembler and disassembler (`trnsim asm`, `trnsim disasm`).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bits.hpp"
#include "isa_table.hpp"
#include "trn_config.hpp"

namespace trn::isa {

namespace tbl = table;
inline constexpr unsigned kStreams = tbl::kStreams;

/// A field of an instruction word (tbl::kFields index `f`).
std::uint64_t get(const Bits& w, unsigned f);
void set(Bits& w, unsigned f, std::uint64_t v);
/// A word of zeros (tbl::kInstBits).
Bits blank();

/// The op of an opcode, or nullptr.
const tbl::Op* find_op(unsigned code);
const tbl::Op* find_op(const std::string& name);
/// The stream of a name (tensor, vector, scalar, sync), or -1.
int find_stream(const std::string& name);

/// Why `w` is illegal on stream `s` (docs/isa.md, error `illegal`), or "" if it is legal: an
/// unknown opcode, an op the stream does not run, a bit outside the op's fields set, sem_wait
/// without a wait, sem_add without a post, an enable off with its semaphore or value set.
std::string illegal(const Bits& w, unsigned s);

/// A program: one instruction list per stream, and the names the assembler knew (kept in the
/// binary so that the disassembler, the traces and the error reports use them).
struct Program {
  std::array<std::vector<Bits>, kStreams> streams;
  std::map<unsigned, std::string> sem_names;  ///< semaphore -> its first name
  struct Label {
    unsigned stream, pc;
    std::string name;
    bool operator==(const Label&) const = default;
  };
  std::vector<Label> labels;  ///< in definition order
  /// "label+k" for a pc (the nearest label at or before it), or "pc N".
  std::string where(unsigned stream, unsigned pc) const;
  bool operator==(const Program&) const = default;
};

/// Failure reading, assembling or decoding; the message is one line naming the file and place.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A stream's registers r0 .. r15 (r0 is 0).
using Regs = std::array<std::uint32_t, tbl::kRegs>;
/// Does `w` name a register in a field's register companion (a_addr_r, size_r, n_r, ...)?
bool names_register(const Bits& w);
/// The registers `w` names in any register field (rd, ra, rb, the companions), a bit each; r0 never.
std::uint16_t regs_named(const Bits& w);
/// The instruction as it issues (docs/isa.md, "Registers and control flow"): `w` with every field
/// that has a register companion plus that register of `r`, truncated to the field (a dims field:
/// the dimension its reg_dim names). False if a sum does not fit its field (the error range).
bool substitute(const Bits& w, const Regs& r, Bits& out);

/// The binary file (docs/isa.md): "TRNI", version, instruction size, the four streams'
/// instructions, the semaphore names and the labels.
std::vector<std::uint8_t> to_binary(const Program& p);
/// Throws Error naming `file` and the byte offset of what is wrong.
Program from_binary(const std::vector<std::uint8_t>& bytes, const std::string& file);
std::vector<std::uint8_t> read_file(const std::string& path);
/// A text file (an assembly source); throws Error("PATH: cannot open").
std::string read_text(const std::string& path);
void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes);

/// Assemble `text` (docs/isa.md, assembly). `defines` are constants the text sees (e.g. the
/// configuration: PARTS, SBUF_BYTES, ...). Throws Error "file:line:col: error: what was expected".
Program assemble(const std::string& text, const std::string& file,
                 const std::map<std::string, std::int64_t>& defines = {});
/// The constants a kernel sees for a configuration: PARTS, COLS, SBUF_BYTES, SBUF_BANKS,
/// PSUM_BANKS, PSUM_BANK_BYTES, MAX_N, QUEUES, HBM_BYTES, IMEM_DEPTH, SEMS, DMA_ENGINES.
std::map<std::string, std::int64_t> config_defines(const cfg::Arch& a);

/// The program as assembly text that assembles back to the same program.
std::string disassemble(const Program& p);
/// One instruction as assembly (its mnemonic, positional operands and keys; `.word 0x...` if it is
/// not legal on the stream); a branch target as the name of a label of `labels` in the stream.
std::string disassemble(const Bits& w, unsigned stream, const std::map<unsigned, std::string>& sem_names = {},
                        const std::vector<Program::Label>* labels = nullptr);

}  // namespace trn::isa
