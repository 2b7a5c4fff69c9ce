// trn::link::NetRunner — a Net model driven by Traffic alone (no RTL): for networks the RTL does
// not build (a 4 x 4 x 4 torus, 64- and 144-endpoint switch domains) and for system questions.
#pragma once

#include <cstdint>
#include <optional>

#include "link/net.hpp"
#include "link/traffic.hpp"

namespace trn::link {

class NetRunner {
 public:
  NetRunner(Net::Params p, std::uint64_t seed);
  Net& net() { return net_; }
  Traffic& traffic() { return traffic_; }
  /// Run `cycles` cycles offering `load` with the traffic's pattern (0: no new packets). Throws
  /// std::runtime_error naming the cycle and packet on a delivery that breaks a promise.
  void run(std::uint64_t cycles, double load);
  /// Cycles until every packet sent is delivered, or nullopt after `bound` cycles.
  std::optional<std::uint64_t> drain(std::uint64_t bound);
  std::uint64_t cycle() const { return cycle_; }

 private:
  void step();
  Net net_;
  Traffic traffic_;
  Net::In in_;
  Net::Out out_;
  std::uint64_t cycle_ = 0;
};

}  // namespace trn::link
