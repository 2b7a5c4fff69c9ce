// trnsim — the trn-rtl model from the command line.
//
//   trnsim convert --to e4m3 --bias 9 --round sr --seed 7 1.5 -3e-5 nan
//   trnsim decode --from e5m2 0x3c 0x7e
//   trnsim mx-quantize --elem e2m1 [--neuron] v0 ... v31
//   trnsim activate --fn gelu 1.5 -3 nan
//   trnsim system --preset trn3-us144 [--json] [--set links.intra_server.count=6]
//   trnsim system --compare trn3-us144 trn2-us64 | --list
//   trnsim collective --preset trn2-us64 --op all-reduce -b 8 -e 1G -f 2 --dtype bf16
//   trnsim asm kernels/gemm.s -o gemm.bin --config small;  trnsim disasm gemm.bin
//
// Values come from the arguments or, when there are none, from stdin (whitespace separated).
// Bad input (unknown format, unparsable number, bias out of range) -> one-line error, exit 2.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "numerics/format.hpp"
#include "numerics/mx.hpp"
#include "numerics/sr_rng.hpp"
#include "scalar/accuracy.hpp"
#include "system/report.hpp"

using namespace trn::numerics;

namespace trn::tools {
int cmd_collective(int argc, char** argv);
int cmd_asm(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_kernel(int argc, char** argv);
int cmd_gpsimd(int argc, char** argv);
}  // namespace trn::tools

namespace {

constexpr const char* kUsage = R"(usage: trnsim <command> [options] [values...]

Commands:
  convert       FP32 -> a narrow format: input, FP32 bits, code (hex and bits), decoded value
  decode        codes of a format -> FP32 value and bits
  mx-quantize   one MX block of 32 values -> E8M0 scale, element codes, dequantized values
  formats       the format table (bits, bias, max, min normal, min subnormal, Inf/NaN)
  activate      the scalar engine's activation f(x) (bit-exact with the RTL), against libm
  system        a chip, instance, UltraServer or UltraCluster composed from a generation preset
  collective    collective benchmarks (all-reduce, ...) on a preset's system (trnsim collective --help)
  asm           assemble a NeuronCore program: trnsim asm FILE.s -o FILE.bin (trnsim asm --help)
  disasm        disassemble a NeuronCore program: trnsim disasm FILE.bin
  run           run a NeuronCore program on the model alone, with its timeline (trnsim run --help)
  kernel        run a kernel of kernels/ on fresh data and check it against its references (trnsim kernel --help)
  gpsimd        run a GpSimd operator of kernels/gpsimd on the engine model, against its host build (trnsim gpsimd --help)

convert options:
  --to FMT          target format: bf16 fp16 e5m2 e4m3 e4m3fn e3m4 e2m1 e8m0 tf32 (and ml_dtypes names)
  --bias N          FP8 exponent-bias register, 0..63 (default: the format's standard bias)
  --round rne|sr    round to nearest even (default) or stochastic
  --seed S          stochastic rounding: 32-bit seed register (default 0); values use lane --lane
  --lane L          the lane whose generator is used (default 0); it advances once per value
  --saturate        overflow and Inf give +-max even where the format has Inf
  --bits            values are FP32 bit patterns in hex (0x3fc00000) instead of numbers
  --raw             print only the code in hex, one per line
decode options:
  --from FMT        format of the codes (hex, e.g. 0x3c); --bias N; --raw prints FP32 bits only
activate options:
  --fn NAME         identity relu exp log tanh sigmoid gelu silu reciprocal rsqrt sqrt square
mx-quantize options:
  --elem FMT        element type: e4m3fn, e5m2 (MXFP8) or e2m1 (MXFP4); exactly 32 values
  --neuron          Neuron's variant: scale 2x larger (shared exponent + 1)

system options:
  --list            the presets
  --preset NAME     the composition (a tree), its totals beside the published figures, its network
  --compare A B     two presets side by side, with A / B for every figure and A's claims against B
  --json            the --preset report as JSON
  --set KEY=VALUE   override a preset value for a what-if (repeatable): a full path such as
                    chip.trainium3.links.intra_server.count=6, or a path under the preset's
                    system, chip or core (links.intra_server.count=6, tensor_ghz=3.0)
  --presets FILE    read presets from FILE instead of the built-in model/system/presets.toml

Values are read from stdin when none are given. Exit status: 0 ok, 2 bad input.
)";

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Args {
  std::vector<std::string> values;
  std::string cmd;
  std::string fmt;
  int bias = -1;
  bool sr = false, saturate = false, bits = false, raw = false, neuron = false;
  std::uint32_t seed = 0;
  unsigned lane = 0;
};

long long parse_int(const std::string& opt, const std::string& s, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (s.empty() || *end || errno) throw Usage(fmt::format("{}: '{}' is not an integer", opt, s));
  if (v < lo || v > hi) throw Usage(fmt::format("{} {} is out of range ({}..{})", opt, s, lo, hi));
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2)
    throw Usage(
        "no command given (convert, decode, mx-quantize, formats, activate, system, collective, asm, disasm; see "
        "--help)");
  a.cmd = argv[1];
  if (a.cmd == "-h" || a.cmd == "--help") return a;
  if (a.cmd != "convert" && a.cmd != "decode" && a.cmd != "mx-quantize" && a.cmd != "formats" && a.cmd != "activate")
    throw Usage(fmt::format(
        "unknown command '{}' (convert, decode, mx-quantize, formats, activate, system, collective, asm, disasm)",
        a.cmd));
  for (int i = 2; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Usage(fmt::format("{} needs a value", s));
      return argv[++i];
    };
    if (s == "--to" || s == "--from" || s == "--elem" || s == "--fn")
      a.fmt = value();
    else if (s == "--bias")
      a.bias = static_cast<int>(parse_int(s, value(), kMinBias, kMaxBias));
    else if (s == "--round") {
      const std::string r = value();
      if (r == "sr" || r == "stochastic")
        a.sr = true;
      else if (r != "rne")
        throw Usage(fmt::format("--round: unknown mode '{}' (rne or sr)", r));
    } else if (s == "--seed")
      a.seed = static_cast<std::uint32_t>(parse_int(s, value(), 0, 0xFFFFFFFFll));
    else if (s == "--lane")
      a.lane = static_cast<unsigned>(parse_int(s, value(), 0, 1 << 20));
    else if (s == "--saturate")
      a.saturate = true;
    else if (s == "--bits")
      a.bits = true;
    else if (s == "--raw")
      a.raw = true;
    else if (s == "--neuron")
      a.neuron = true;
    else if (s == "-h" || s == "--help") {
      a.cmd = "--help";
      return a;
    } else if (s.size() > 1 && s[0] == '-' && s[1] == '-')
      throw Usage(fmt::format("unknown option '{}' (see --help)", s));
    else
      a.values.push_back(s);
  }
  return a;
}

Format need_format(const Args& a, const char* opt) {
  if (a.fmt.empty()) throw Usage(fmt::format("{}: {} FMT is required", a.cmd, opt));
  auto f = parse_format(a.fmt);
  if (!f) throw Usage(fmt::format("{}: unknown format '{}' (see trnsim formats)", opt, a.fmt));
  return *f;
}

std::vector<std::string> read_values(const Args& a) {
  if (!a.values.empty()) return a.values;
  std::vector<std::string> v;
  char buf[256];
  while (std::fscanf(stdin, "%255s", buf) == 1) v.emplace_back(buf);
  return v;
}

std::uint32_t parse_fp32(const std::string& s, bool as_bits, std::size_t index) {
  char* end = nullptr;
  errno = 0;
  if (as_bits) {
    const unsigned long long v = std::strtoull(s.c_str(), &end, 16);
    if (s.empty() || *end || errno || v > 0xFFFFFFFFull)
      throw Usage(fmt::format("value {}: '{}' is not a 32-bit hex pattern", index + 1, s));
    return static_cast<std::uint32_t>(v);
  }
  const float f = std::strtof(s.c_str(), &end);
  if (s.empty() || *end) throw Usage(fmt::format("value {}: cannot parse '{}' as a number", index + 1, s));
  if (errno == ERANGE && std::isinf(f))
    throw Usage(fmt::format("value {}: '{}' is beyond the FP32 range", index + 1, s));
  return f32_bits(f);
}

std::string code_bits(const FormatInfo& d, std::uint32_t code) {
  std::string out;
  auto field = [&](unsigned hi, unsigned n) {
    for (unsigned k = 0; k < n; ++k) out += ((code >> (hi - k)) & 1) ? '1' : '0';
  };
  unsigned pos = d.bits - 1;
  if (d.is_signed) {
    field(pos, 1);
    out += ' ';
    pos -= 1;
  }
  field(pos, d.exp_bits);
  if (d.man_bits) {
    out += ' ';
    field(pos - d.exp_bits, d.man_bits);
  }
  return out;
}

std::string show(std::uint32_t fp32) { return fmt::format("{}", f32_from(fp32)); }

int cmd_convert(const Args& a) {
  const Format f = need_format(a, "--to");
  const FormatInfo& d = format_info(f);
  if (a.bias >= 0 && !d.adjustable_bias) throw Usage(fmt::format("--bias applies to FP8 formats only, not {}", d.name));
  const auto vals = read_values(a);
  std::vector<std::uint32_t> xs;
  for (std::size_t i = 0; i < vals.size(); ++i) xs.push_back(parse_fp32(vals[i], a.bits, i));
  Xorshift32 rng(a.seed, a.lane);
  const unsigned hex_digits = (d.bits + 3) / 4;
  if (!a.raw)
    fmt::print("{:<16} {:<10}  {:<{}}  {:<{}}  {}\n", "input", "fp32", "code", hex_digits + 2, "bits", d.bits + 2,
               "value");
  for (std::size_t i = 0; i < vals.size(); ++i) {
    const std::uint32_t x = xs[i];
    Convert c;
    c.mode = a.sr ? Round::sr : Round::rne;
    c.saturate = a.saturate;
    c.bias = a.bias;
    if (a.sr) c.rnd = rng.next();
    const std::uint32_t code = encode(f, x, c);
    if (a.raw)
      fmt::print("{:#0{}x}\n", code, hex_digits + 2);
    else
      fmt::print("{:<16} {:#010x}  {:#0{}x}  {:<{}}  {}\n", vals[i], x, code, hex_digits + 2, code_bits(d, code),
                 d.bits + 2, show(decode(f, code, a.bias)));
  }
  return 0;
}

int cmd_decode(const Args& a) {
  const Format f = need_format(a, "--from");
  const FormatInfo& d = format_info(f);
  if (a.bias >= 0 && !d.adjustable_bias) throw Usage(fmt::format("--bias applies to FP8 formats only, not {}", d.name));
  const auto vals = read_values(a);
  std::vector<std::uint32_t> codes;
  for (std::size_t i = 0; i < vals.size(); ++i) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long code = std::strtoull(vals[i].c_str(), &end, 16);
    if (vals[i].empty() || *end || errno || code > code_mask(d))
      throw Usage(fmt::format("code {}: '{}' is not a {}-bit hex code of {}", i + 1, vals[i], d.bits, d.name));
    codes.push_back(static_cast<std::uint32_t>(code));
  }
  for (const std::uint32_t code : codes) {
    const std::uint32_t x = decode(f, code, a.bias);
    if (a.raw)
      fmt::print("{:#010x}\n", x);
    else
      fmt::print("{:#0{}x}  {:<{}}  {:#010x}  {}\n", code, (d.bits + 3) / 4 + 2, code_bits(d, code), d.bits + 2, x,
                 show(x));
  }
  return 0;
}

int cmd_mx(const Args& a) {
  const Format f = need_format(a, "--elem");
  if (!is_mx_element(f)) throw Usage(fmt::format("--elem: '{}' is not an MX element type (e4m3fn, e5m2, e2m1)", a.fmt));
  const auto vals = read_values(a);
  if (vals.size() != kMxBlock) throw Usage(fmt::format("mx-quantize: a block has 32 values, got {}", vals.size()));
  std::vector<std::uint32_t> x;
  for (std::size_t i = 0; i < vals.size(); ++i) x.push_back(parse_fp32(vals[i], a.bits, i));
  const MxBlock b = mx_quantize(x, f, a.neuron);
  const FormatInfo& d = format_info(f);
  fmt::print("scale 0x{:02x} = {}{}\n", b.scale, show(decode(Format::e8m0, b.scale)),
             a.neuron ? " (Neuron variant)" : " (OCP)");
  fmt::print("{:>3}  {:<16} {:<6} {:<{}}  {}\n", "i", "input", "code", "bits", d.bits + 2, "dequantized");
  for (unsigned i = 0; i < kMxBlock; ++i)
    fmt::print("{:>3}  {:<16} 0x{:02x}   {:<{}}  {}\n", i, vals[i], b.codes[i], code_bits(d, b.codes[i]), d.bits + 2,
               show(mx_dequantize(b, f, i)));
  return 0;
}

int cmd_activate(const Args& a) {
  if (a.fmt.empty()) throw Usage("activate: --fn NAME is required");
  const auto f = trn::scalar::parse_act(a.fmt);
  if (!f)
    throw Usage(
        fmt::format("--fn: unknown function '{}' (identity relu exp log tanh sigmoid gelu silu reciprocal "
                    "rsqrt sqrt square)",
                    a.fmt));
  const auto vals = read_values(a);
  std::vector<std::uint32_t> xs;
  for (std::size_t i = 0; i < vals.size(); ++i) xs.push_back(parse_fp32(vals[i], a.bits, i));
  if (!a.raw) fmt::print("{:<16} {:<10}  {:<10}  {:<16} {}\n", "input", "fp32", "result", "value", "libm (double)");
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const std::uint32_t y = trn::scalar::activate(*f, xs[i]);
    if (a.raw)
      fmt::print("{:#010x}\n", y);
    else
      fmt::print("{:<16} {:#010x}  {:#010x}  {:<16} {}\n", vals[i], xs[i], y, show(y),
                 trn::scalar::reference(*f, static_cast<double>(f32_from(xs[i]))));
  }
  return 0;
}

int cmd_formats() {
  fmt::print("{:<7} {:>4} {:>3} {:>3} {:>5}  {:<14} {:<14} {:<14} {}\n", "format", "bits", "E", "M", "bias", "max",
             "min normal", "min subnormal", "Inf/NaN");
  for (const auto& d : all_formats()) {
    const std::uint32_t min_normal = d.subnormals ? (1u << d.man_bits) : 0;
    const char* policy = d.specials == Specials::ieee       ? "Inf and NaN (IEEE)"
                         : d.specials == Specials::nan_only ? "NaN only (all-ones code)"
                                                            : "none";
    fmt::print("{:<7} {:>4} {:>3} {:>3} {:>5}  {:<14} {:<14} {:<14} {}\n", d.name, d.bits, d.exp_bits, d.man_bits,
               d.bias, show(decode(d.id, max_magnitude(d))), show(decode(d.id, min_normal)),
               d.subnormals ? show(decode(d.id, 1)) : std::string("-"), policy);
  }
  return 0;
}

int cmd_system(int argc, char** argv) {
  using namespace trn::system;
  std::vector<std::string> sets, compare;
  std::string preset, file;
  bool json = false, list = false;
  for (int i = 2; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc || argv[i + 1][0] == '-') throw Usage(fmt::format("system: {} needs a value", s));
      return argv[++i];
    };
    if (s == "--preset")
      preset = value();
    else if (s == "--set")
      sets.push_back(value());
    else if (s == "--presets")
      file = value();
    else if (s == "--json")
      json = true;
    else if (s == "--list")
      list = true;
    else if (s == "--compare") {
      compare.push_back(value());
      compare.push_back(value());
    } else if (s == "-h" || s == "--help") {
      fmt::print("{}", kUsage);
      return 0;
    } else
      throw Usage(fmt::format("system: unexpected argument '{}' (see --help)", s));
  }
  if (list + !preset.empty() + !compare.empty() != 1)
    throw Usage("system: give exactly one of --list, --preset NAME, --compare A B");
  if (json && preset.empty()) throw Usage("system: --json goes with --preset");
  const std::string focus = !preset.empty() ? preset : !compare.empty() ? compare[0] : "";
  const Presets p = file.empty() ? default_presets(sets, focus) : load_presets(file, sets, focus);
  if (list) {
    fmt::print("{}", list_report(p));
    return 0;
  }
  if (!compare.empty()) {
    p.system(compare[1]);  // both exist before anything is built
    const System a(p, compare[0]), b(p, compare[1]);
    fmt::print("{}", compare_report(summarize(a, p), summarize(b, p)));
    return 0;
  }
  const System s(p, preset);
  const Summary sm = summarize(s, p);
  fmt::print("{}", json ? json_report(sm) : text_report(sm));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc >= 2 && std::string(argv[1]) == "system") return cmd_system(argc, argv);
    if (argc >= 2 && std::string(argv[1]) == "collective") return trn::tools::cmd_collective(argc, argv);
    if (argc >= 2 && (std::string(argv[1]) == "asm" || std::string(argv[1]) == "disasm"))
      return trn::tools::cmd_asm(argc, argv);
    if (argc >= 2 && std::string(argv[1]) == "run") return trn::tools::cmd_run(argc, argv);
    if (argc >= 2 && std::string(argv[1]) == "kernel") return trn::tools::cmd_kernel(argc, argv);
    if (argc >= 2 && std::string(argv[1]) == "gpsimd") return trn::tools::cmd_gpsimd(argc, argv);
    const Args a = parse(argc, argv);
    if (a.cmd == "--help" || a.cmd == "-h") {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (a.cmd == "convert") return cmd_convert(a);
    if (a.cmd == "decode") return cmd_decode(a);
    if (a.cmd == "mx-quantize") return cmd_mx(a);
    if (a.cmd == "activate") return cmd_activate(a);
    return cmd_formats();
  } catch (const Usage& e) {
    fmt::print(stderr, "trnsim: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "trnsim: error: {}\n", e.what());
    return 2;
  }
}
