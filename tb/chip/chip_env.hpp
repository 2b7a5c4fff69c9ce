// The chip benches' common parts (tb/chip/chip_tb.cpp, tb/system/system_tb.cpp): one chip's
// status and control ports as seen from the top (whole ports of rtl/chip/chip.sv, or element c of
// the arrays of rtl/system/chip_torus.sv), loading a unit's program, running units to their end, and programs
// assembled for the configuration.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "chip/chip.hpp"
#include "core/program_runner.hpp"
#include "harness/env.hpp"
#include "harness/task.hpp"
#include "isa/isa.hpp"

namespace trn::tb {

/// Chip c's ports (of n chips in the top: element c of each array).
class ChipView {
 public:
  ChipView(Env& env, const chip::Chip::Params& p, unsigned c, unsigned n) : env_(env), p_(p), c_(c) {
    auto f = [&](const char* name) {
      Signal& s = env.sig(name);
      return Field(&s, c * (s.width() / n), s.width() / n);
    };
    start_ = f("start_i");
    done_ = f("done_o");
    err_ = f("err_o");
    code_ = f("err_code_o");
    detail_ = f("err_detail_o");
    stream_ = f("err_stream_o");
    pc_ = f("err_pc_o");
    sem_ = f("sem_o");
    strong_ = f("dma_strong_i");
  }
  unsigned chip() const { return c_; }
  unsigned units() const { return p_.units(); }
  std::uint64_t all_units() const { return (1ull << units()) - 1; }

  void start(std::uint64_t mask) { start_.set(mask); }
  void strong(std::uint64_t mask) { strong_.set(mask & all_units()); }
  std::uint64_t done() const { return done_.get(); }
  std::uint64_t err() const { return err_.get(); }
  /// Unit u's error (code, detail, stream, pc), or "" when it has none.
  std::string error_of(unsigned u) const {
    if (!((err() >> u) & 1)) return "";
    const unsigned cw = sv::isa_pkg::ctl_err_e_width, sw = sv::isa_pkg::stream_e_width;
    return fmt::format("chip {} unit {}: error {} detail {} on stream {} at pc {}", c_, u, slice(code_, u * cw, cw),
                       slice(detail_, u * 3, 3), slice(stream_, u * sw, sw), slice(pc_, u * 16, 16));
  }
  unsigned err_code(unsigned u) const {
    return static_cast<unsigned>(slice(code_, u * sv::isa_pkg::ctl_err_e_width, sv::isa_pkg::ctl_err_e_width));
  }
  unsigned err_detail(unsigned u) const { return static_cast<unsigned>(slice(detail_, u * 3, 3)); }
  std::uint32_t sem(unsigned u, unsigned s) const {
    return static_cast<std::uint32_t>(slice(sem_, (u * core::Control::kSems + s) * 32, 32));
  }

 private:
  static std::uint64_t slice(const Field& f, unsigned lsb, unsigned n) { return f.bits().slice(lsb, n); }
  Env& env_;
  const chip::Chip::Params& p_;
  unsigned c_;
  Field start_, done_, err_, code_, detail_, stream_, pc_, sem_, strong_;
};

/// Load unit u's program into chip `chip` through the top's im_* ports (im_chip_i where the top
/// has one), one word per cycle of `t.cycle()`; a stream that does not end in `end` gets zeros to
/// the memory's end; a collective core (u >= cores) takes its sync stream only.
template <class Bench>
Task<> load_program(Bench& t, Env& env, const chip::Chip::Params& p, unsigned chip, unsigned u,
                    const isa::Program& prog) {
  auto words = core::imem_words(prog, p.core.imem_depth);
  Signal &valid = env.sig("im_valid_i"), &unit = env.sig("im_unit_i"), &stream = env.sig("im_stream_i"),
         &addr = env.sig("im_addr_i"), &data = env.sig("im_data_i");
  if (Signal* c = env.find("im_chip_i")) c->set(chip);
  for (unsigned s = 0; s < core::Control::kStreams; ++s) {
    if (u >= p.cores && s != core::Control::sync) continue;
    const bool ends = !words[s].empty() && isa::get(words[s].back(), isa::tbl::kF_op) == 0x01;
    if (!ends) words[s].resize(p.core.imem_depth, Bits(isa::tbl::kInstBits));
    for (std::size_t a = 0; a < words[s].size(); ++a) {
      valid.set(1);
      unit.set(u);
      stream.set(s);
      addr.set(a);
      data.set(words[s][a]);
      co_await t.cycle();
    }
  }
  valid.set(0);
}

/// A program assembled for the configuration; a failure names the file and line.
inline isa::Program assemble_for(Env& env, const std::string& text, const std::string& file) {
  try {
    return isa::assemble(text, file, isa::config_defines(env.cfg().arch));
  } catch (const isa::Error& e) {
    check(false, "{}", e.what());
  }
  return {};
}

}  // namespace trn::tb
