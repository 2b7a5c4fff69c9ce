// trn::numerics::SrRng — cycle-exact model of rtl/numerics/sr_rng.sv, the per-lane random words of
// stochastic rounding (SPEC section 4).
//
// Each lane owns a xorshift32 generator (x ^= x<<13; x ^= x>>17; x ^= x<<5). load_i seeds lane l
// with seed_i ^ (l * 0x9E3779B9), 0 replaced by 1 (reset loads seed 0). rnd_o[l] is the word the
// lane's next conversion uses: the generator's state after one step. advance_i[l] commits that
// step (one per converted element); load_i has priority.
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "sv/ports/sr_rng.hpp"

namespace trn::numerics {

/// One lane's generator.
struct Xorshift32 {
  std::uint32_t state = 1;

  static std::uint32_t step(std::uint32_t x) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
  }
  static std::uint32_t lane_seed(std::uint32_t seed, unsigned lane) {
    const std::uint32_t s = seed ^ (static_cast<std::uint32_t>(lane) * 0x9E3779B9u);
    return s ? s : 1;
  }
  Xorshift32() = default;
  Xorshift32(std::uint32_t seed, unsigned lane) : state(lane_seed(seed, lane)) {}
  /// The word for the next element, advancing the generator.
  std::uint32_t next() { return state = step(state); }
  std::uint32_t peek() const { return step(state); }
};

class SrRng {
 public:
  struct Params {
    unsigned lanes = 4;
  };
  struct In {
    bool rst_ni = false;
    bool load_i = false;
    std::uint64_t seed_i = 0;
    Bits advance_i;
  };
  struct Out {
    Bits rnd_o;
  };

  explicit SrRng(Params p);
  const Params& params() const { return p_; }
  In make_in() const { return In{false, false, 0, Bits(p_.lanes)}; }
  Out make_out() const { return Out{Bits(32 * p_.lanes)}; }

  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The word lane l's next conversion uses (state after one step).
  std::uint32_t peek(unsigned lane) const { return Xorshift32::step(state_q_[lane]); }
  /// Model-side stepping, for units that embed the generator.
  void load(std::uint32_t seed);
  void advance(unsigned lane) { state_q_[lane] = Xorshift32::step(state_q_[lane]); }

  /// The ports of rtl/numerics/sr_rng.sv, generated from its header; the module's parameters from this model's.
  sv::ports::sr_rng::Params sv_params() const { return {.Lanes = p_.lanes}; }
  TRN_MODULE_PORTS(sr_rng)

 private:
  Params p_;
  std::vector<std::uint32_t> state_q_;
};

}  // namespace trn::numerics
