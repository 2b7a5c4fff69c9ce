// trn::dma::MemSystem — the DMA engine's environment (shared by the RTL bench and the model-only
// runner): HBM and SBUF as byte images behind one AXI-like read port and one write port.
//   - Read requests are accepted when ar_ready (seeded random stalls); the data is taken at
//     acceptance. HBM answers after a seeded random latency in [hbm_lat_min, hbm_lat_max], SBUF
//     after sbuf_lat; responses leave one per cycle, earliest-due first (so HBM returns out of
//     order), within a bandwidth limit of bw_bytes per cycle (0: one beat per cycle). A response
//     the reader refuses (r_ready low, the NeuronCore's HBM port while SBUF answers) is offered
//     again, unchanged, until it is taken.
//   - Writes are accepted when wr_ready (seeded random back-pressure) and are visible that cycle:
//     applied to the image (copy, or near-memory accumulate in BF16/FP32) and recorded, in order,
//     by the visibility monitor with their queue, descriptor and first element.
// Per cycle: ports() gives this cycle's inputs; observe() takes the settled handshakes just before
// the clock edge; advance() picks the next cycle's inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <vector>

#include "common/bits.hpp"
#include "dma/desc.hpp"

namespace trn::dma {

struct ReadReq {
  Space space = Space::hbm;
  std::uint32_t addr = 0;
  unsigned bytes = 0;
  unsigned id = 0;
};

/// One write as the destination accepts it (the DMA write channel's fields).
struct Write {
  std::uint64_t cycle = 0;
  Space space = Space::hbm;
  bool col = false;
  unsigned esize = 1;
  std::uint32_t addr = 0;
  unsigned n = 0;  ///< bytes (row) or elements (column)
  bool acc = false;
  std::vector<std::uint8_t> data;
  unsigned queue = 0, desc = 0;
  std::uint32_t elem = 0;
  bool sem = false;

  unsigned elems() const { return col ? n : n / esize; }
  /// Every destination byte address of this write, as (space << 32 | address).
  template <class F>
  void for_each_byte(const Geometry& g, F&& f) const {
    const std::uint64_t sp = static_cast<std::uint64_t>(space == Space::sbuf) << 32;
    if (!col) {
      for (unsigned b = 0; b < n; ++b) f(sp | (addr + b), b);
    } else {
      for (unsigned k = 0; k < n; ++k)
        for (unsigned b = 0; b < esize; ++b)
          f(sp | (g.sbuf_addr(g.part_of(addr) + k, g.off_of(addr) + b)), k * esize + b);
    }
  }
};

/// The two memories as byte images.
struct Image {
  std::vector<std::uint8_t> hbm, sbuf;
  Geometry geo;
  explicit Image(const Geometry& g)
      : hbm(g.hbm_bytes, 0), sbuf(static_cast<std::size_t>(g.parts) * g.part_bytes, 0), geo(g) {}
  std::uint8_t& at(Space s, std::uint32_t a) { return s == Space::hbm ? hbm.at(a) : sbuf.at(geo.sbuf_index(a)); }
  std::uint8_t at(Space s, std::uint32_t a) const { return s == Space::hbm ? hbm.at(a) : sbuf.at(geo.sbuf_index(a)); }
  std::uint32_t load(Space s, std::uint32_t a, unsigned size) const;
  void store(Space s, std::uint32_t a, unsigned size, std::uint32_t v);
  /// Apply one write (copy or accumulate).
  void apply(const Write& w);
  bool operator==(const Image& o) const { return hbm == o.hbm && sbuf == o.sbuf; }
};

class MemSystem {
 public:
  struct Params {
    unsigned hbm_lat_min = 1, hbm_lat_max = 1, sbuf_lat = 2;
    double p_ar_ready = 1.0, p_wr_ready = 1.0;
    double bw_bytes = 0;  ///< read bytes per cycle; 0: one beat per cycle
    /// Bursts of back-pressure: for stall_len cycles of every stall_every no write is taken (0:
    /// none), and in every other burst no read request either. Read responses keep coming, so with
    /// reads still issued the reorder buffer fills; with both held, every channel stalls long.
    unsigned stall_every = 0, stall_len = 0;
    /// trace() holds every write taken; false: the last one only (a long run that reads none back
    /// would hold every write it made).
    bool keep_trace = true;
    /// What the read data lines carry where no byte was asked for: past a response's `bytes`, and
    /// in every cycle without a response. A memory defines neither, so a reader must not look
    /// there: false, zeros; true, noise (from its own stream: the other draws are unchanged).
    bool pad_noise = false;
  };
  struct Ports {
    bool ar_ready = false;
    bool r_valid = false;
    unsigned r_id = 0;
    std::vector<std::uint8_t> r_data;
    bool wr_ready = false;
  };

  MemSystem(const Geometry& g, Params p, std::uint64_t seed);
  Image& image() { return img_; }
  const Image& image() const { return img_; }
  Params& params() { return p_; }
  const Ports& ports() const { return ports_; }
  /// The settled handshakes of cycle `cycle`; r_ready: this cycle's read response (if any) was taken.
  void observe(std::uint64_t cycle, const std::optional<ReadReq>& rd, const std::optional<Write>& wr,
               bool r_ready = true);
  /// Choose the inputs of cycle `cycle`.
  void advance(std::uint64_t cycle);
  /// Every visible write so far, in order.
  const std::vector<Write>& trace() const { return trace_; }
  void clear_trace() { trace_.clear(); }
  /// Called on every visible write (after it is applied).
  std::function<void(const Write&)> on_write;
  unsigned pending_reads() const { return static_cast<unsigned>(pend_.size()); }
  /// Reads whose data came back out of request order so far.
  std::uint64_t reordered_returns() const { return reordered_; }

 private:
  struct Pending {
    std::uint64_t due, order;
    unsigned id;
    std::vector<std::uint8_t> data;
  };
  Geometry g_;
  Params p_;
  Image img_;
  std::mt19937_64 rng_;
  std::mt19937_64 pad_rng_;      ///< the noise of pad_noise
  std::vector<Pending> pend_;    ///< a heap, the first due (then the first asked) on top
  std::optional<Pending> held_;  ///< a response offered and refused: offered again first
  std::uint64_t order_ = 0, last_order_ = 0, reordered_ = 0;
  double tokens_ = 0;
  Ports ports_;
  std::vector<Write> trace_;
  bool chance(double p) { return p >= 1.0 || std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
};

}  // namespace trn::dma
