// trnsim asm / disasm: the NeuronCore assembler and disassembler (docs/isa.md).
//
//   trnsim asm kernels/gemm.s -o gemm.bin [--config small] [-D NAME=VALUE]...
//   trnsim disasm gemm.bin [-o gemm.s]
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "isa/isa.hpp"

namespace trn::tools {

namespace {

constexpr const char* kAsmUsage = R"(usage: trnsim asm FILE.s -o FILE.bin [--config tiny|small|full] [-D NAME=VALUE]...
       trnsim disasm FILE.bin [-o FILE.s]

asm      assemble a NeuronCore program (docs/isa.md): four instruction streams (.stream tensor,
         vector, scalar, sync), labels, named semaphores (.sem), constants (.const, .set), loops
         (.for VAR = FIRST, LIMIT [, STEP] ... .endfor) and conditions (.if ... .else ... .endif).
         --config NAME  predefine the configuration's constants (PARTS, COLS, SBUF_BYTES, SBUF_BANKS,
                        PSUM_BANKS, PSUM_BANK_BYTES, MAX_N, QUEUES, HBM_BYTES, SEMS); default tiny
         -D NAME=VALUE  define a constant (repeatable)
         Errors: FILE:LINE:COLUMN: error: what was expected; exit status 2.
disasm   print a program as assembly that assembles back to the same binary (-o: to a file).
)";

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw isa::Error(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

int cmd_asm(int argc, char** argv) {
  try {
    const std::string cmd = argv[1];
    std::string in, out, config = "tiny";
    std::map<std::string, std::int64_t> defines;
    for (int i = 2; i < argc; ++i) {
      const std::string s = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Usage(fmt::format("{} needs a value", s));
        return argv[++i];
      };
      if (s == "-h" || s == "--help") {
        fmt::print("{}", kAsmUsage);
        return 0;
      } else if (s == "-o") {
        out = value();
      } else if (s == "--config" && cmd == "asm") {
        config = value();
      } else if (s.rfind("-D", 0) == 0 && cmd == "asm") {
        const std::string d = s.size() > 2 ? s.substr(2) : value();
        const auto eq = d.find('=');
        if (eq == std::string::npos || eq == 0) throw Usage(fmt::format("-D {}: expected NAME=VALUE", d));
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(d.c_str() + eq + 1, &end, 0);
        if (*end || errno || eq + 1 == d.size()) throw Usage(fmt::format("-D {}: '{}' is not an integer", d, d.substr(eq + 1)));
        defines[d.substr(0, eq)] = v;
      } else if (!s.empty() && s[0] == '-') {
        throw Usage(fmt::format("{}: unknown option '{}' (see trnsim {} --help)", cmd, s, cmd));
      } else if (in.empty()) {
        in = s;
      } else {
        throw Usage(fmt::format("{}: more than one input file ('{}', '{}')", cmd, in, s));
      }
    }
    if (in.empty()) throw Usage(fmt::format("{}: no input file (see trnsim {} --help)", cmd, cmd));
    if (cmd == "asm") {
      if (out.empty()) throw Usage("asm: no output file (-o FILE.bin)");
      const cfg::Config* c = cfg::find(config);
      if (!c) throw Usage(fmt::format("--config: unknown configuration '{}' (tiny, small, full)", config));
      auto all = isa::config_defines(c->arch);
      for (const auto& [k, v] : defines) all[k] = v;
      const isa::Program p = isa::assemble(read_text(in), in, all);
      isa::write_file(out, isa::to_binary(p));
      std::size_t n = 0;
      for (const auto& s : p.streams) n += s.size();
      fmt::print(stderr, "trnsim asm: {}: {} instructions ({} bytes) -> {}\n", in, n, n * isa::tbl::kInstBytes, out);
      return 0;
    }
    const isa::Program p = isa::from_binary(isa::read_file(in), in);
    const std::string text = isa::disassemble(p);
    if (out.empty()) {
      fmt::print("{}", text);
    } else {
      std::ofstream f(out);
      if (!f) throw isa::Error(fmt::format("{}: cannot write", out));
      f << text;
    }
    return 0;
  } catch (const Usage& e) {
    fmt::print(stderr, "trnsim: error: {}\n", e.what());
    return 2;
  } catch (const isa::Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
}

}  // namespace trn::tools
