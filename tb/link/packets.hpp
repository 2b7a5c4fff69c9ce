// Test packets of the NeuronLink benches: random payloads tagged with the packet's id (bits 32..51)
// and the flit's index in it (bits 52..59), so a scoreboard can name any flit it sees.
#pragma once

#include <vector>

#include "harness/rng.hpp"
#include "link/router.hpp"

namespace trn::tb {

/// The flits of packet `id` with head `h` (h.len flits), payload random from `rng`.
inline std::vector<Bits> packet_flits(Rng& rng, unsigned w, unsigned id, const link::Head& h) {
  using link::Kind;
  std::vector<Bits> flits;
  for (unsigned f = 0; f < h.len; ++f) {
    Bits pay = rng.bits(w);
    pay.set_slice(32, 20, id);
    pay.set_slice(52, 8, f);
    const Kind kind = h.len == 1 ? Kind::single : f == 0 ? Kind::head : f + 1 == h.len ? Kind::tail : Kind::body;
    flits.push_back(link::make_flit(w, kind, h, pay));
  }
  return flits;
}

struct FlitTag {
  unsigned id, idx;
};
inline FlitTag tag_of(const Bits& f) {
  return FlitTag{static_cast<unsigned>(f.slice(32, 20)), static_cast<unsigned>(f.slice(52, 8))};
}

}  // namespace trn::tb
