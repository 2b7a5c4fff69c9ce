#include "numerics/sr_rng.hpp"

#include <stdexcept>

namespace trn::numerics {

SrRng::SrRng(Params p) : p_(p), state_q_(p.lanes) {
  if (p_.lanes < 1) throw std::invalid_argument("SrRng: lanes must be >= 1");
  load(0);
}

void SrRng::load(std::uint32_t seed) {
  for (unsigned l = 0; l < p_.lanes; ++l) state_q_[l] = Xorshift32::lane_seed(seed, l);
}

void SrRng::eval(const In& in, Out& out) const {
  for (unsigned l = 0; l < p_.lanes; ++l)
    out.rnd_o.set_slice(32 * l, 32, in.rst_ni ? peek(l) : Xorshift32::step(Xorshift32::lane_seed(0, l)));
}

void SrRng::tick(const In& in) {
  if (!in.rst_ni || in.load_i) {
    load(in.rst_ni ? static_cast<std::uint32_t>(in.seed_i) : 0);
    return;
  }
  for (unsigned l = 0; l < p_.lanes; ++l)
    if (in.advance_i.bit(l)) advance(l);
}

}  // namespace trn::numerics
