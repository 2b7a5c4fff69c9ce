#include "harness/replay.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <tuple>

#include "harness/env.hpp"
#include "harness/regression.hpp"

namespace trn::tb {

ReplayLog& replay_log() {
  static ReplayLog log;
  return log;
}

namespace {
std::vector<Signal*> find_all(PortTable& ports, const std::vector<std::string>& names) {
  std::vector<Signal*> s;
  for (const auto& n : names) s.push_back(&ports.at(n));
  return s;
}
}  // namespace

void ReplayLog::begin(PortTable& ports, const Signal& clk) {
  clear();
  clock = clk.name();
  for (auto& p : ports.all()) {
    if (p.name().find('.') != std::string::npos || &p == &clk) continue;  // probes; the clock
    const bool in = p.dir() == Dir::In;
    (in ? inputs : outputs).push_back(p.name());
    (in ? in_bytes : out_bytes).push_back(p.bytes());
    (in ? in_sig : out_sig).push_back(&p);
  }
}

void ReplayLog::record() {
  for (std::size_t i = 0; i < in_sig.size(); ++i) {
    const auto* p = static_cast<const std::uint8_t*>(in_sig[i]->storage());
    frames.insert(frames.end(), p, p + in_bytes[i]);
  }
  last_outputs.clear();
  for (std::size_t i = 0; i < out_sig.size(); ++i) {
    const auto* p = static_cast<const std::uint8_t*>(out_sig[i]->storage());
    last_outputs.insert(last_outputs.end(), p, p + out_bytes[i]);
  }
  ++cycles;
}

std::optional<ReplayResult> run_replay(Bench& fresh) {
  ReplayLog& log = replay_log();
  if (log.cycles == 0 || !log.model_replay) return std::nullopt;
  log.in_sig.clear();  // the recorded top is gone
  log.out_sig.clear();
  PortTable& ports = fresh.ports();
  const std::vector<Signal*> in = find_all(ports, log.inputs), out = find_all(ports, log.outputs);
  Signal& clk = ports.at(log.clock);
  std::vector<std::uint8_t> seen;
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint8_t* f = log.frames.data();
  for (std::uint64_t c = 0; c < log.cycles; ++c) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      std::memcpy(in[i]->storage(), f, log.in_bytes[i]);
      f += log.in_bytes[i];
    }
    clk.set(0);
    fresh.eval();
    if (c + 1 == log.cycles)
      for (std::size_t i = 0; i < out.size(); ++i) {
        const auto* p = static_cast<const std::uint8_t*>(out[i]->storage());
        seen.insert(seen.end(), p, p + log.out_bytes[i]);
      }
    clk.set(1);
    fresh.eval();
  }
  ReplayResult r;
  r.cycles = log.cycles;
  r.rtl_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fresh.close();
  r.rtl_same = seen == log.last_outputs;
  std::tie(r.model_s, r.model_same) = log.model_replay();
  return r;
}

void print_replay(const std::optional<ReplayResult>& r) {
  if (!r) {
    fmt::print("bench: replay none (BENCH_REPLAY=1 needs a test whose lockstep ran, and a model that can be copied)\n");
    return;
  }
  fmt::print(
      "bench: replay cycles={} rtl_s={:.6f} model_s={:.6f} rtl_cycles_per_s={:.0f} model_cycles_per_s={:.0f} "
      "model_over_rtl={:.2f} rtl_replay={} model_replay={}\n",
      r->cycles, r->rtl_s, r->model_s, r->cycles / r->rtl_s, r->cycles / r->model_s, r->rtl_s / r->model_s,
      r->rtl_same ? "same" : "DIFFERENT", r->model_same ? "same" : "DIFFERENT");
}

}  // namespace trn::tb
