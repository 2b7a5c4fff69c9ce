#include "dma/memsys.hpp"

#include <algorithm>
#include <stdexcept>

namespace trn::dma {

namespace {
/// The heap's order of pending reads: a read due later, or asked later, sinks.
struct Later {
  template <class P>
  bool operator()(const P& a, const P& b) const {
    return a.due != b.due ? a.due > b.due : a.order > b.order;
  }
};
}  // namespace

std::uint32_t Image::load(Space s, std::uint32_t a, unsigned size) const {
  std::uint32_t v = 0;
  for (unsigned b = 0; b < size; ++b) v |= static_cast<std::uint32_t>(at(s, a + b)) << (8 * b);
  return v;
}

void Image::store(Space s, std::uint32_t a, unsigned size, std::uint32_t v) {
  for (unsigned b = 0; b < size; ++b) at(s, a + b) = static_cast<std::uint8_t>(v >> (8 * b));
}

void Image::apply(const Write& w) {
  const unsigned es = w.esize;
  for (unsigned k = 0; k < w.elems(); ++k) {
    const std::uint32_t a = w.col ? geo.sbuf_addr(geo.part_of(w.addr) + k, geo.off_of(w.addr)) : w.addr + k * es;
    std::uint32_t v = 0;
    for (unsigned b = 0; b < es; ++b) v |= static_cast<std::uint32_t>(w.data.at(k * es + b)) << (8 * b);
    if (w.acc) v = acc_add(es == 2, load(w.space, a, es), v);
    store(w.space, a, es, v);
  }
}

MemSystem::MemSystem(const Geometry& g, Params p, std::uint64_t seed)
    : g_(g), p_(p), img_(g), rng_(seed), pad_rng_(seed ^ 0x5bd1e9955bd1e995ull) {
  ports_.r_data.assign(g_.beat_bytes, 0);
}

void MemSystem::observe(std::uint64_t cycle, const std::optional<ReadReq>& rd, const std::optional<Write>& wr,
                        bool r_ready) {
  if (ports_.r_valid && !r_ready) held_ = Pending{cycle, 0, ports_.r_id, ports_.r_data};
  if (rd) {
    if (rd->bytes == 0 || rd->bytes > g_.beat_bytes || !in_range(g_, rd->space, rd->addr, rd->bytes))
      throw std::runtime_error("memory: read request outside its memory or beat");
    Pending e;
    const unsigned lat = rd->space == Space::sbuf
                             ? p_.sbuf_lat
                             : p_.hbm_lat_min + static_cast<unsigned>(std::uniform_int_distribution<unsigned>(
                                                    0, p_.hbm_lat_max - p_.hbm_lat_min)(rng_));
    e.due = cycle + std::max(1u, lat);
    e.order = order_++;
    e.id = rd->id;
    e.data.assign(g_.beat_bytes, 0);
    for (unsigned b = 0; b < g_.beat_bytes; ++b)
      e.data[b] = b < rd->bytes  ? img_.at(rd->space, rd->addr + b)
                  : p_.pad_noise ? static_cast<std::uint8_t>(pad_rng_())
                                 : std::uint8_t{0};
    pend_.push_back(std::move(e));
    std::push_heap(pend_.begin(), pend_.end(), Later{});
  }
  if (wr) {
    Write w = *wr;
    w.cycle = cycle;
    const unsigned span = w.col ? w.esize : w.n;
    if (w.n == 0 || !in_range(g_, w.space, w.addr, span) ||
        (w.col && (w.space != Space::sbuf || g_.part_of(w.addr) + w.n > g_.parts)))
      throw std::runtime_error("memory: write outside its memory");
    img_.apply(w);
    if (!p_.keep_trace) trace_.clear();
    trace_.push_back(w);
    if (on_write) on_write(trace_.back());
  }
}

void MemSystem::advance(std::uint64_t cycle) {
  ports_.ar_ready = chance(p_.p_ar_ready);
  ports_.wr_ready = chance(p_.p_wr_ready);
  if (p_.stall_every && cycle % p_.stall_every < p_.stall_len) {
    ports_.wr_ready = false;
    if ((cycle / p_.stall_every) % 2 == 1) ports_.ar_ready = false;
  }
  ports_.r_valid = false;
  if (p_.pad_noise)
    for (auto& b : ports_.r_data) b = static_cast<std::uint8_t>(pad_rng_());
  if (p_.bw_bytes > 0) tokens_ = std::min(tokens_ + p_.bw_bytes, 2.0 * g_.beat_bytes);
  if (held_) {  // the refused response first, unchanged (its bandwidth was spent when first offered)
    ports_.r_valid = true;
    ports_.r_id = held_->id;
    ports_.r_data = held_->data;
    held_.reset();
    return;
  }
  // the read due first (the first asked of those due together), if it is due
  if (!pend_.empty() && pend_.front().due <= cycle && (p_.bw_bytes <= 0 || tokens_ >= g_.beat_bytes)) {
    std::pop_heap(pend_.begin(), pend_.end(), Later{});
    Pending& best = pend_.back();
    if (p_.bw_bytes > 0) tokens_ -= g_.beat_bytes;
    ports_.r_valid = true;
    ports_.r_id = best.id;
    ports_.r_data = std::move(best.data);
    if (best.order < last_order_) ++reordered_;
    last_order_ = std::max(last_order_, best.order);
    pend_.pop_back();
  }
}

}  // namespace trn::dma
