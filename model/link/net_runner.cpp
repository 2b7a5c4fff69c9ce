#include "link/net_runner.hpp"

namespace trn::link {

NetRunner::NetRunner(Net::Params p, std::uint64_t seed) : net_(p), traffic_(net_, seed) {
  in_ = net_.make_in();
  out_ = net_.make_out();
  for (int i = 0; i < 2; ++i) net_.tick(in_);  // reset
  in_.rst_ni = true;
}

void NetRunner::step() {
  net_.eval(in_, out_);
  traffic_.observe(out_, cycle_);
  Net::In next = traffic_.drive(cycle_ + 1);
  net_.tick(in_);
  in_ = std::move(next);
  ++cycle_;
}

void NetRunner::run(std::uint64_t cycles, double load) {
  traffic_.load = load;
  traffic_.injecting = load > 0;
  for (std::uint64_t i = 0; i < cycles; ++i) step();
}

std::optional<std::uint64_t> NetRunner::drain(std::uint64_t bound) {
  traffic_.injecting = false;
  const std::uint64_t c0 = cycle_;
  while (!traffic_.drained() || cycle_ == c0) {
    if (cycle_ - c0 >= bound) return std::nullopt;
    step();
  }
  return cycle_ - c0;
}

}  // namespace trn::link
