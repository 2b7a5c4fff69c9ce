// VerilatedBench<V> — a Verilated top as the harness's DUT: evaluation, time in picoseconds,
// FST waves (the model is built with --trace-fst; waves cost nothing unless WAVES=1), and its
// ports, bound by name from the table scripts/gen_ports.py generates from V<top>.h.
//
//   TRN_BENCH_MAIN(Vstream_fifo, "stream_fifo")   // once per bench, after its tests
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <verilated.h>
#include <verilated_fst_c.h>

#include "harness/regression.hpp"

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

  void eval() override { model_->eval(); }
  void set_time(std::uint64_t ps) override { ctx_->time(ps); }
  void dump(std::uint64_t ps) override {
    if (fst_) fst_->dump(ps);
  }
  PortTable& ports() override { return ports_; }
  void open_waves(const std::string& path) override {
    fst_ = std::make_unique<VerilatedFstC>();
    model_->trace(fst_.get(), 99);
    fst_->open(path.c_str());
  }
  void close() override {
    if (closed_) return;
    closed_ = true;
    model_->final();
    if (fst_) fst_->close();
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> model_;
  std::unique_ptr<VerilatedFstC> fst_;
  PortTable ports_;
  bool closed_ = false;
};

}  // namespace trn::tb

#define TRN_BENCH_MAIN(VTYPE, TOP)                                                                  \
  int main(int argc, char** argv) {                                                                 \
    return ::trn::tb::bench_main(argc, argv, TOP, TRN_CONFIG_NAME,                                  \
                                 [](const std::vector<std::string>& args, bool waves) {            \
                                   return std::unique_ptr<::trn::tb::Bench>(                       \
                                       new ::trn::tb::VerilatedBench<VTYPE>(args, waves, trn_bind_ports)); \
                                 });                                                                \
  }
