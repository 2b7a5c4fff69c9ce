// Test packets of the NeuronLink benches: random payloads, tagged by trn::link::tagged_packet.
#pragma once

#include <vector>

#include "harness/rng.hpp"
#include "link/router.hpp"

namespace trn::tb {

/// The flits of packet `id` with head `h` (h.len flits), payload random from `rng`.
inline std::vector<Bits> packet_flits(Rng& rng, unsigned w, unsigned id, const link::Head& h) {
  std::vector<Bits> pay;
  for (unsigned f = 0; f < h.len; ++f) pay.push_back(rng.bits(w));
  return link::tagged_packet(w, id, h, std::move(pay));
}

}  // namespace trn::tb
