// VerilatedBench<V> — a Verilated top as the harness's DUT: evaluation, time in picoseconds,
// FST waves (the model is built with --trace-fst; waves cost nothing unless WAVES=1) with the
// harness's own signals beside the DUT's (model_waves.hpp: the model's expected outputs and the
// mismatch flag), and its ports, bound by name from the table scripts/gen_ports.py generates from
// V<top>.h.
//
//   TRN_BENCH_MAIN(Vstream_fifo, "stream_fifo")   // once per bench, after its tests
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include "harness/clock.hpp"
#include "harness/env.hpp"
#include "harness/errors.hpp"
#include "harness/model_waves.hpp"
#include "harness/regression.hpp"
#include "harness/vl_hooks.hpp"

namespace trn::tb {

template <class V>
class VerilatedBench : public Bench {
 public:
  VerilatedBench(const std::vector<std::string>& args, bool waves, void (*bind)(V&, PortTable&))
      : ctx_(std::make_unique<VerilatedContext>()) {
    std::vector<const char*> argv{"bench"};
    for (const auto& a : args) argv.push_back(a.c_str());
    ctx_->commandArgs(static_cast<int>(argv.size()), argv.data());
    ctx_->traceEverOn(waves);
    model_ = std::make_unique<V>(ctx_.get(), "TOP");
    bind(*model_, ports_);
  }
  ~VerilatedBench() override { close(); }

  void eval() override {
    model_->eval();
    if (vl_hooks::pending()) assertion_failed();
  }
  void set_time(std::uint64_t ps) override { ctx_->time(ps); }
  void dump(std::uint64_t ps) override {
    if (!wave_path_.empty() && !fst_) open_fst();
    if (!fst_ || (dumped_ && ps <= last_dump_)) return;                    // one dump per time (a failure's extra dump)
    if (ps < options().wave_from_ps || ps > options().wave_to_ps) return;  // WAVES_FROM_NS / WAVES_TO_NS
    fst_->dump(ps);
    dumped_ = true;
    last_dump_ = ps;
  }
  PortTable& ports() override { return ports_; }
  /// The FST opens at the first dump, once the tests' locksteps have declared their signals.
  void open_waves(const std::string& path) override { wave_path_ = path; }
  void close() override {
    if (closed_) return;
    closed_ = true;
    model_->final();
    if (fst_) fst_->close();
#if VM_COVERAGE
    // A coverage build (TRN_COVERAGE): this run's line and toggle counts, for verilator_coverage.
    const char* cov = std::getenv("COVERAGE_FILE");
    ctx_->coveragep()->write(cov && *cov ? cov : "coverage.dat");
#endif
  }

 private:
  void open_fst() {
    fst_ = std::make_unique<VerilatedFstC>();
    // WAVES_SCOPE: the top's own ports, the scopes, and the harness's model and sampled values of
    // their ports (wave_traced() says the same for the save file)
    for (const std::string& sc : options().wave_scopes) {
      fst_->dumpvars(1, "TOP");
      for (const char* copy : {"TOP.", "TOP.model.", "TOP.sampled."}) fst_->dumpvars(99, copy + sc);
    }
    model_->trace(fst_.get(), 99);
    ModelWaves::get().freeze();
    auto* t = fst_->spTrace();
    t->addInitCb(&init_extra, this);
    t->addFullCb(&dump_extra<true>, this);
    t->addChgCb(&dump_extra<false>, this);
    fst_->open(wave_path_.c_str());
  }
  // A failing RTL assertion ends the test like a lockstep mismatch: its label, its instance, the
  // cycle of the first clock the test started, its source line, Verilator's message and the
  // command that reproduces it.
  [[noreturn]] void assertion_failed() {
    vl_hooks::Failure f = vl_hooks::take();
    std::string name = "?", inst = "?";
    // "[t] %Error: file.sv:12: Assertion failed in TOP.core.u_dma.a_strong_order: text"
    const std::string key = "Assertion failed in ";
    if (auto at = f.message.find(key); at != std::string::npos) {
      std::string path = f.message.substr(at + key.size());
      path = path.substr(0, path.find(':'));
      if (auto dot = path.rfind('.'); dot != std::string::npos) {
        inst = path.substr(0, dot);
        name = path.substr(dot + 1);
      }
      // a loop's unnamed block is Verilator's scope, not an instance: TOP.sbuf.unnamedblk14 -> TOP.sbuf
      for (auto at = inst.find(".unnamedblk"); at != std::string::npos; at = inst.find(".unnamedblk")) {
        auto end = inst.find('.', at + 1);
        inst.erase(at, end == std::string::npos ? std::string::npos : end - at);
      }
    }
    const Clock* clk = Clock::reporting();
    const std::uint64_t cyc = clk ? clk->cycle() : 0;
    const double t_ns = static_cast<double>(ctx_->time()) / 1000.0;
    std::string msg = fmt::format("assertion {} failed in {} at cycle {} ({} ns): {}:{}\n  {}\n", name, inst, cyc, t_ns,
                                  f.file, f.line, f.message.empty() ? "(no message)" : f.message);
    msg += "  reproduce: " + reproduce_command(current_test_name()) + "\n";
    throw AssertionFailure(msg, name, inst, cyc);
  }
  // Declare the harness's signals after the model's (codes from `code` on), under TOP.<scope>.
  static void init_extra(void* self, VerilatedFst* t, std::uint32_t code) {
    auto& me = *static_cast<VerilatedBench*>(self);
    me.base_code_ = code;
    std::uint32_t c = code;
    for (const auto& s : ModelWaves::get().all()) {
      // TOP.<scope>.<name>, a probe's port name ("chip.u_nic.rx_o") as scopes down to its leaf
      int pushed = 1;
      t->pushNamePrefix("TOP ");
      if (!s.scope.empty()) t->pushNamePrefix(s.scope + " "), ++pushed;
      std::string leaf = s.name;
      for (auto dot = leaf.find('.'); dot != std::string::npos; dot = leaf.find('.')) {
        t->pushNamePrefix(leaf.substr(0, dot) + " ");
        ++pushed;
        leaf = leaf.substr(dot + 1);
      }
      const int msb = static_cast<int>(s.width) - 1;
      if (s.width == 1)
        t->declBit(c, leaf.c_str(), -1, FST_VD_IMPLICIT, FST_VT_SV_LOGIC, false, -1);
      else if (s.width <= 32)
        t->declBus(c, leaf.c_str(), -1, FST_VD_IMPLICIT, FST_VT_SV_LOGIC, false, -1, msb, 0);
      else if (s.width <= 64)
        t->declQuad(c, leaf.c_str(), -1, FST_VD_IMPLICIT, FST_VT_SV_LOGIC, false, -1, msb, 0);
      else
        t->declArray(c, leaf.c_str(), -1, FST_VD_IMPLICIT, FST_VT_SV_LOGIC, false, -1, msb, 0);
      t->popNamePrefix(pushed);
      c += (s.width + 31) / 32;
    }
  }
  template <bool Full>
  static void dump_extra(void* self, VerilatedFst::Buffer* b) {
    auto& me = *static_cast<VerilatedBench*>(self);
    std::uint32_t c = me.base_code_;
    for (const auto& s : ModelWaves::get().all()) {
      std::uint32_t* old = b->oldp(c);
      const std::uint64_t lo = s.value.word(0);
      if (s.width == 1) {
        Full ? b->fullBit(old, lo & 1) : b->chgBit(old, lo & 1);
      } else if (s.width <= 32) {
        Full ? b->fullIData(old, static_cast<IData>(lo), static_cast<int>(s.width))
             : b->chgIData(old, static_cast<IData>(lo), static_cast<int>(s.width));
      } else if (s.width <= 64) {
        Full ? b->fullQData(old, lo, static_cast<int>(s.width)) : b->chgQData(old, lo, static_cast<int>(s.width));
      } else {
        me.words_.assign((s.width + 31) / 32, 0);
        for (std::size_t k = 0; k < me.words_.size(); ++k)
          me.words_[k] = static_cast<EData>(s.value.word(static_cast<unsigned>(k / 2)) >> (32 * (k % 2)));
        Full ? b->fullWData(old, me.words_.data(), static_cast<int>(s.width))
             : b->chgWData(old, me.words_.data(), static_cast<int>(s.width));
      }
      c += (s.width + 31) / 32;
    }
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> model_;
  std::unique_ptr<VerilatedFstC> fst_;
  std::string wave_path_;
  std::uint32_t base_code_ = 0;
  std::vector<EData> words_;
  bool dumped_ = false;
  std::uint64_t last_dump_ = 0;
  PortTable ports_;
  bool closed_ = false;
};

}  // namespace trn::tb

#define TRN_BENCH_MAIN(VTYPE, TOP)                                                                                     \
  int main(int argc, char** argv) {                                                                                    \
    return ::trn::tb::bench_main(                                                                                      \
        argc, argv, TOP, TRN_CONFIG_NAME, [](const std::vector<std::string>& args, bool waves) {                       \
          return std::unique_ptr<::trn::tb::Bench>(new ::trn::tb::VerilatedBench<VTYPE>(args, waves, trn_bind_ports)); \
        });                                                                                                            \
  }
