#include "link/traffic.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace trn::link {

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::uniform:
      return "uniform";
    case Pattern::transpose:
      return "transpose";
    case Pattern::bitcomp:
      return "bit-complement";
    case Pattern::hotspot:
      return "hotspot";
    default:
      return "nearest-neighbour";
  }
}

Traffic::Traffic(const Net& net, std::uint64_t seed)
    : net_(net), rng_(seed), pick_(seed ^ 0x5bd1e995u), chan_(seed ^ 0x9e3779b97f4a7c15ull) {
  n_ = net.endpoints();
  v_ = net.params().v;
  vb_ = net.vb();
  w_ = net.params().w;
  if (w_ < 64) throw std::invalid_argument("traffic: flits of at least 64 bits (the tags use bits 32..59)");
  bits_ = 0;
  while ((1u << bits_) < n_) ++bits_;
  queue_.resize(n_);
  cur_.resize(n_ * v_);
  cur_flit_.assign(n_ * v_, 0);
  cred_.assign(n_ * v_, net.params().d);
  ej_pkt_.assign(n_ * v_, -1);
  ej_idx_.assign(n_ * v_, 0);
  credit_next_.assign(n_, 0);
  next_seq_.assign(static_cast<std::size_t>(n_) * n_ * v_, 0);
  expect_seq_.assign(static_cast<std::size_t>(n_) * n_ * v_, 0);
  offered_ = Bits(n_);
}

unsigned Traffic::dest(unsigned s) {
  const bool pow2 = (1u << bits_) == n_;
  switch (pattern) {
    case Pattern::transpose: {
      // swap the low and high halves of the id's bits (on a 4 x 4 torus: x and y)
      if (!pow2)
        throw std::invalid_argument(fmt::format("traffic: transpose needs a power-of-two endpoint count, not {}", n_));
      const unsigned lo = bits_ / 2, hi = bits_ - lo;
      return ((s & ((1u << lo) - 1)) << hi) | (s >> lo);
    }
    case Pattern::bitcomp:
      if (!pow2)
        throw std::invalid_argument(
            fmt::format("traffic: bit-complement needs a power-of-two endpoint count, not {}", n_));
      return (n_ - 1) ^ s;
    case Pattern::hotspot:
      return chance(rng_, 0.2) ? 0 : below(rng_, n_);
    case Pattern::neighbour:
      return net_.params().topo == Topo::TopoTorus ? net_.neighbour(s, 1) : (s + 1) % n_;
    default:
      return below(rng_, n_);
  }
}

void Traffic::new_packet(unsigned s, std::uint64_t cycle) {
  Pkt k;
  const unsigned id = static_cast<unsigned>(pkts_.size());
  k.src = s;
  k.dst = dest(s);
  if (chance(rng_, p_bad)) {
    k.dst = n_ + below(rng_, 256 - n_);
    ++bad_;
  }
  // a traffic class at random; the class's injection VC (on a torus one of its two, by the
  // destination, so that a flow keeps one FIFO)
  const Topo topo = net_.params().topo;
  const bool lh = net_.params().last_hop;
  const unsigned tc = below(rng_, classes(topo, v_, lh));
  k.vc = topo == Topo::TopoTorus ? class_vcs(lh) * tc + (k.dst & 1) : tc;
  k.born = cycle;
  k.seq = k.dst < n_ ? next_seq_[flow(k)]++ : 0;
  const unsigned len = 1 + below(rng_, 4);
  const auto type = static_cast<PktType>(below(rng_, 4));
  const Head h{.tc = static_cast<std::uint8_t>(tc),
               .len = static_cast<std::uint8_t>(len),
               .ptype = type,
               .src = static_cast<std::uint8_t>(k.src),
               .dst = static_cast<std::uint8_t>(k.dst)};
  std::vector<Bits> pay(len, Bits(w_));
  for (Bits& b : pay)
    for (unsigned i = 0; i < b.words(); ++i) b.set_word(i, rng_());
  k.flits = tagged_packet(w_, id, h, std::move(pay));
  pkts_.push_back(std::move(k));
  queue_[s].push_back(id);
}

void Traffic::observe(const Net::Out& out, std::uint64_t cycle) {
  auto fail = [&](const std::string& m) { throw std::runtime_error(fmt::format("cycle {}: {}", cycle, m)); };
  // every link's sender must take the flit it is offered (its replay buffer covers the credits)
  for (unsigned l = 0; l < net_.links(); ++l) {
    const Net::End f = net_.link_from(l);
    const bool offered = f.endpoint ? offered_.bit(f.node) : out.mon_valid_o.bit(net_.port_index(f.node, f.port));
    if (offered && !out.link_ready_o.bit(l))
      fail(fmt::format("link {} was offered a flit while its replay buffer was full", l));
  }
  for (unsigned e = 0; e < n_; ++e) {
    if (out.inj_credit_o.bit(e)) ++cred_[e * v_ + out.inj_credit_vc_o.slice(e * vb_, vb_)];
    credit_next_[e] = 0;
    if (!out.ej_valid_o.bit(e)) continue;
    const unsigned v = static_cast<unsigned>(out.ej_vc_o.slice(e * vb_, vb_)), j = e * v_ + v;
    credit_next_[e] = v + 1;
    Bits f(w_);
    for (unsigned b = 0; b < w_; ++b) f.set_bit(b, out.ej_flit_o.bit(e * w_ + b));
    ++flits_out_;
    const auto [id, idx] = tag_of(f);
    if (id >= pkts_.size()) fail(fmt::format("endpoint {} ejected a flit of unknown packet {}", e, id));
    const Pkt& k = pkts_[id];
    const Kind kind = kind_of(f);
    if (kind == Kind::FlitHead || kind == Kind::FlitSingle) {
      if (ej_pkt_[j] >= 0)
        fail(fmt::format("endpoint {} VC {}: packet {} starts inside packet {}", e, v, id, ej_pkt_[j]));
      if (k.dst != e) fail(fmt::format("packet {} for endpoint {} delivered at endpoint {}", id, k.dst, e));
      if (k.seq != expect_seq_[flow(k)])
        fail(
            fmt::format("packet {} ({} -> {}, VC {}) is number {} of its flow, expected {}: lost, duplicated or "
                        "reordered",
                        id, k.src, k.dst, k.vc, k.seq, expect_seq_[flow(k)]));
      ++expect_seq_[flow(k)];
      ej_pkt_[j] = static_cast<int>(id);
      ej_idx_[j] = 0;
    }
    Bits want = k.flits[idx < k.flits.size() ? idx : 0];
    if (id == corrupt_packet && idx + 1 == k.flits.size()) want.flip_bit(40);
    if (ej_pkt_[j] != static_cast<int>(id) || idx != ej_idx_[j] || !(f == want))
      fail(fmt::format("endpoint {} VC {}: flit {} of packet {} out of order, foreign or corrupted", e, v, idx, id));
    ++ej_idx_[j];
    if (kind == Kind::FlitTail || kind == Kind::FlitSingle) {
      if (ej_idx_[j] != k.flits.size())
        fail(fmt::format("packet {} ended after {} of {} flits", id, ej_idx_[j], k.flits.size()));
      ej_pkt_[j] = -1;
      ++delivered_;
      if (k.born >= window_) {
        lat_sum_ += cycle - k.born;
        routers_sum_ += net_.routers_on_path(k.src, k.dst);
        links_sum_ += net_.links_on_path(k.src, k.dst);
        ++lat_n_;
      }
    }
  }
}

Net::In Traffic::drive(std::uint64_t cycle) {
  Net::In in = net_.make_in();
  in.rst_ni = true;
  offered_ = Bits(n_);
  for (unsigned e = 0; e < n_; ++e) {
    if (injecting && chance(rng_, load / 2.5)) new_packet(e, cycle);
    // start the first queued packet when its VC is free
    if (!queue_[e].empty()) {
      const unsigned id = queue_[e].front(), j = e * v_ + pkts_[id].vc;
      if (!cur_[j]) {
        cur_[j] = id;
        cur_flit_[j] = 0;
        queue_[e].pop_front();
      }
    }
    // one flit per cycle, from a VC chosen at random among those with a packet and a credit
    std::vector<unsigned> ready;
    for (unsigned v = 0; v < v_; ++v)
      if (cur_[e * v_ + v] && cred_[e * v_ + v] > 0) ready.push_back(v);
    if (!ready.empty()) {
      const unsigned v = ready[below(pick_, static_cast<unsigned>(ready.size()))], j = e * v_ + v;
      const Pkt& k = pkts_[*cur_[j]];
      in.inj_valid_i.set_bit(e, true);
      offered_.set_bit(e, true);
      in.inj_vc_i.set_slice(e * vb_, vb_, v);
      for (unsigned b = 0; b < w_; ++b) in.inj_flit_i.set_bit(e * w_ + b, k.flits[cur_flit_[j]].bit(b));
      --cred_[j];
      ++flits_in_;
      if (++cur_flit_[j] == k.flits.size()) cur_[j].reset();
    }
    if (credit_next_[e]) {
      in.ej_credit_i.set_bit(e, true);
      in.ej_credit_vc_i.set_slice(e * vb_, vb_, credit_next_[e] - 1);
    }
  }
  if (p_flip > 0)
    for (unsigned l = 0; l < net_.links(); ++l)
      if (chance(chan_, p_flip)) {
        in.flip_i.set_bit(l, true);
        in.flip_bit_i.set_slice(l * net_.fb(), net_.fb(), below(chan_, net_.wire_bits()));
        ++flips_;
      }
  return in;
}

void Traffic::start_window(std::uint64_t cycle) {
  window_ = cycle;
  lat_sum_ = lat_n_ = routers_sum_ = links_sum_ = 0;
}

double Traffic::mean_latency() const { return lat_n_ ? static_cast<double>(lat_sum_) / lat_n_ : 0.0; }
double Traffic::mean_routers() const { return lat_n_ ? static_cast<double>(routers_sum_) / lat_n_ : 0.0; }
double Traffic::mean_links() const { return lat_n_ ? static_cast<double>(links_sum_) / lat_n_ : 0.0; }

}  // namespace trn::link
