// The GpSimd engine's host port (docs/gpsimd.md "The engine"): loads words into one processor's
// local memory or every processor's, one a cycle, and reads a processor's whole local memory back.
// The engine bench drives it as host_*; the NeuronCore bench as gp_host_*, with its own cycle (one
// that also serves HBM).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "harness/env.hpp"
#include "harness/task.hpp"
#include "harness/triggers.hpp"

namespace trn::tb {

/// Little-endian 32-bit words of a byte image (a multiple of 4 bytes).
inline std::vector<std::uint32_t> words_of(const std::vector<std::uint8_t>& b) {
  std::vector<std::uint32_t> w(b.size() / 4);
  std::memcpy(w.data(), b.data(), 4 * w.size());
  return w;
}

class GpHostPort {
 public:
  /// `prefix` names the port's signals (`host_` or `gp_host_`); `cycle` waits one clock edge.
  GpHostPort(Env& e, const std::string& prefix, std::uint32_t tcm_bytes, std::function<Task<>()> cycle)
      : we_(e.sig(prefix + "we_i")),
        re_(e.sig(prefix + "re_i")),
        all_(e.sig(prefix + "all_i")),
        proc_(e.sig(prefix + "proc_i")),
        addr_(e.sig(prefix + "addr_i")),
        wdata_(e.sig(prefix + "wdata_i")),
        rdata_(e.sig(prefix + "rdata_o")),
        tcm_bytes_(tcm_bytes),
        cycle_(std::move(cycle)) {}

  /// Every input low (before reset).
  void idle() {
    for (Signal* s : {&we_, &re_, &all_, &proc_, &addr_, &wdata_}) s->set(0);
  }

  /// Words into processor p's local memory from `byte_addr` (every processor's when p < 0).
  Task<> write(int p, std::uint32_t byte_addr, const std::vector<std::uint32_t>& words) {
    all_.set(p < 0);
    proc_.set(p < 0 ? 0 : static_cast<unsigned>(p));
    for (std::size_t i = 0; i < words.size(); ++i) {
      we_.set(1);
      addr_.set(byte_addr / 4 + i);
      wdata_.set(words[i]);
      co_await cycle_();
    }
    we_.set(0);
    all_.set(0);
  }

  /// Processor p's whole local memory: the word asked for at an edge is on rdata after it.
  Task<std::vector<std::uint8_t>> read(unsigned p) {
    std::vector<std::uint8_t> m(tcm_bytes_);
    proc_.set(p);
    for (std::uint32_t i = 0; i < tcm_bytes_ / 4; ++i) {
      re_.set(1);
      addr_.set(i);
      co_await cycle_();
      re_.set(0);
      co_await ReadOnly();
      for (unsigned k = 0; k < 4; ++k) m[4 * i + k] = static_cast<std::uint8_t>(rdata_.get() >> 8 * k);
      co_await cycle_();
    }
    co_return m;
  }

 private:
  Signal &we_, &re_, &all_, &proc_, &addr_, &wdata_, &rdata_;
  std::uint32_t tcm_bytes_;
  std::function<Task<>()> cycle_;
};

}  // namespace trn::tb
