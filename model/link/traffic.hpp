// trn::link::Traffic — the endpoints and end-to-end scoreboard of a NeuronLink network (docs/link.md),
// shared by the RTL bench (tb/link/net_tb.cpp, driving the DUT) and NetRunner (driving a Net model
// alone). Each cycle, observe() takes the network's outputs (returned injection credits, ejected
// flits, the links' readiness) and drive() makes the next cycle's inputs.
//
// Endpoints inject packets of 1 to 4 flits by a traffic pattern at an offered load (flits per
// endpoint per cycle, Bernoulli, 2.5 flits per packet on average) in a random traffic class, on
// that class's VC (on a torus, of its two VCs the one the destination's parity picks, so a flow
// keeps one FIFO), within their credits (the router input buffers), and eject every flit with its
// credit returned the next cycle. The channel model inverts one bit of a link's wire with probability
// p_flip per link and cycle, independent of what is on the wire, so each flit on a wire is
// corrupted with probability p_flip. Three random streams: packet creation (when, where to, what),
// the choice among ready VCs, and the channel; so the offered traffic of a seed is the same whatever
// the network does and whatever p_flip is. The scoreboard throws std::runtime_error, naming the cycle, endpoint
// and packet, unless every packet arrives once, whole, intact, at its destination and in order per
// (source, destination, traffic class), and unless every link's sender took every flit offered.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "link/net.hpp"

namespace trn::link {

enum class Pattern { uniform, transpose, bitcomp, hotspot, neighbour };
const char* pattern_name(Pattern p);
inline constexpr Pattern kPatterns[] = {Pattern::uniform, Pattern::transpose, Pattern::bitcomp, Pattern::hotspot,
                                        Pattern::neighbour};

class Traffic {
 public:
  Traffic(const Net& net, std::uint64_t seed);

  // ---- settings, changed at will between cycles
  Pattern pattern = Pattern::uniform;
  double load = 0;  ///< offered flits per endpoint per cycle
  bool injecting = false;
  double p_bad = 0;   ///< share of packets addressed to a chip id that does not exist
  double p_flip = 0;  ///< chance per link and cycle that its wire has one bit inverted
  /// Self-test: the scoreboard expects this packet's last flit with bit 40 inverted.
  unsigned corrupt_packet = ~0u;

  /// The destination `pattern` gives a packet from s (hotspot and uniform draw at random).
  unsigned dest(unsigned s);
  /// The cycle's outputs. Throws std::runtime_error on a broken promise.
  void observe(const Net::Out& out, std::uint64_t cycle);
  /// The next cycle's inputs (rst_ni set).
  Net::In drive(std::uint64_t cycle);
  /// Every packet created has been delivered (those to bad ids excepted).
  bool drained() const { return delivered_ + bad_ == pkts_.size(); }
  /// Start a measurement window: latency counts packets created from `cycle` on.
  void start_window(std::uint64_t cycle);

  std::size_t created() const { return pkts_.size(); }
  /// Packet `id` as created: source, destination, injection VC and flits (for tests of the checks).
  struct PacketView {
    unsigned src, dst, vc;
    const std::vector<Bits>& flits;
  };
  PacketView packet(unsigned id) const {
    const Pkt& k = pkts_.at(id);
    return PacketView{k.src, k.dst, k.vc, k.flits};
  }
  std::size_t delivered() const { return delivered_; }
  std::size_t bad() const { return bad_; }
  std::uint64_t flits_in() const { return flits_in_; }
  std::uint64_t flits_out() const { return flits_out_; }
  std::uint64_t flips() const { return flips_; }
  /// Over the window's delivered packets: their number, mean latency (creation to the tail's
  /// ejection), mean routers and links on their paths.
  std::uint64_t window_packets() const { return lat_n_; }
  double mean_latency() const;
  double mean_routers() const;
  double mean_links() const;

 private:
  struct Pkt {
    unsigned src = 0, dst = 0, vc = 0;
    std::uint64_t seq = 0, born = 0;
    std::vector<Bits> flits;
  };
  static unsigned below(std::mt19937_64& g, unsigned k) {
    return static_cast<unsigned>(std::uniform_int_distribution<unsigned>(0, k - 1)(g));
  }
  static bool chance(std::mt19937_64& g, double p) { return std::uniform_real_distribution<double>(0, 1)(g) < p; }
  void new_packet(unsigned s, std::uint64_t cycle);
  std::size_t flow(const Pkt& k) const { return (static_cast<std::size_t>(k.src) * n_ + k.dst) * v_ + k.vc; }

  const Net& net_;
  std::mt19937_64 rng_, pick_, chan_;  // packets; VC choice; channel
  unsigned n_, v_, vb_, w_, bits_;
  std::vector<Pkt> pkts_;
  std::vector<std::deque<unsigned>> queue_;   // per endpoint: packets waiting to start
  std::vector<std::optional<unsigned>> cur_;  // per (endpoint, vc): packet being injected
  std::vector<unsigned> cur_flit_, cred_;     // per (endpoint, vc)
  std::vector<int> ej_pkt_;                   // per (endpoint, vc): packet being ejected
  std::vector<unsigned> ej_idx_;
  std::vector<unsigned> credit_next_;                 // per endpoint: VC to credit next cycle (+1; 0 none)
  std::vector<std::uint64_t> next_seq_, expect_seq_;  // per flow (src, dst, vc)
  Bits offered_;                                      // per endpoint: a flit driven this cycle
  std::size_t delivered_ = 0, bad_ = 0;
  std::uint64_t flits_in_ = 0, flits_out_ = 0, flips_ = 0;
  std::uint64_t window_ = 0, lat_sum_ = 0, lat_n_ = 0, routers_sum_ = 0, links_sum_ = 0;
};

}  // namespace trn::link
