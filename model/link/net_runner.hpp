// trn::link::NetRunner — the torus network model alone (no RTL): endpoints inject packets of
// 1 to 4 flits to uniform random destinations at an offered load (flits per node per cycle,
// Bernoulli) within their credits and eject with credits returned the next cycle; every ejected
// flit is checked against what was sent (whole packets, once, in order per source, destination
// and injection VC). For networks the RTL does not build (a 4 x 4 x 4 torus) and for system
// questions.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "link/torus_net.hpp"

namespace trn::link {

class NetRunner {
 public:
  NetRunner(TorusNet::Params p, std::uint64_t seed);
  TorusNet& net() { return net_; }
  /// Run `cycles` cycles offering `load` (0: no new packets). Throws std::runtime_error naming the
  /// cycle and packet on a delivery that breaks a promise.
  void run(std::uint64_t cycles, double load);
  /// Cycles until every packet sent is delivered, or nullopt after `bound` cycles.
  std::optional<std::uint64_t> drain(std::uint64_t bound);
  std::size_t sent() const { return pkts_.size(); }
  std::size_t delivered() const { return delivered_; }
  std::uint64_t flits_out() const { return flits_out_; }
  std::uint64_t cycle() const { return cycle_; }

 private:
  struct Pkt {
    unsigned src, dst, vc;
    std::uint64_t seq;
    std::vector<Bits> flits;
  };
  void step(double load);
  TorusNet net_;
  std::mt19937_64 rng_;
  unsigned n_, v_, vb_, w_;
  TorusNet::In in_;
  TorusNet::Out out_;
  std::vector<Pkt> pkts_;
  std::vector<std::deque<unsigned>> queue_;
  std::vector<std::optional<unsigned>> cur_;
  std::vector<unsigned> cur_flit_, cred_, ej_idx_, credit_next_;
  std::vector<int> ej_pkt_;
  std::vector<std::uint64_t> next_seq_, expect_seq_;  // per (src, dst, vc)
  std::size_t delivered_ = 0;
  std::uint64_t flits_out_ = 0, cycle_ = 0;
};

}  // namespace trn::link
