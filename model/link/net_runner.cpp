#include "link/net_runner.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace trn::link {

NetRunner::NetRunner(TorusNet::Params p, std::uint64_t seed) : net_(p), rng_(seed) {
  n_ = net_.nodes();
  v_ = p.v;
  vb_ = net_.vb();
  w_ = p.w;
  if (w_ < 64) throw std::invalid_argument("NetRunner: flits of at least 64 bits (the tags use bits 32..59)");
  queue_.resize(n_);
  cur_.resize(n_ * v_);
  cur_flit_.assign(n_ * v_, 0);
  cred_.assign(n_ * v_, p.d);
  ej_pkt_.assign(n_ * v_, -1);
  ej_idx_.assign(n_ * v_, 0);
  credit_next_.assign(n_, 0);
  next_seq_.assign(static_cast<std::size_t>(n_) * n_ * v_, 0);
  expect_seq_.assign(static_cast<std::size_t>(n_) * n_ * v_, 0);
  in_ = net_.make_in();
  out_ = net_.make_out();
  for (int i = 0; i < 2; ++i) net_.tick(in_);  // reset
  in_.rst_ni = true;
}

void NetRunner::step(double load) {
  auto uni = [&](unsigned k) { return static_cast<unsigned>(std::uniform_int_distribution<unsigned>(0, k - 1)(rng_)); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; };
  net_.eval(in_, out_);
  // what leaves this cycle: returned credits and ejected flits
  TorusNet::In next = net_.make_in();
  next.rst_ni = true;
  for (unsigned r = 0; r < n_; ++r) {
    if (out_.inj_credit_o.bit(r)) ++cred_[r * v_ + out_.inj_credit_vc_o.slice(r * vb_, vb_)];
    if (!out_.ej_valid_o.bit(r)) continue;
    const unsigned v = static_cast<unsigned>(out_.ej_vc_o.slice(r * vb_, vb_)), j = r * v_ + v;
    next.ej_credit_i.set_bit(r, true);
    next.ej_credit_vc_i.set_slice(r * vb_, vb_, v);
    Bits f(w_);
    for (unsigned b = 0; b < w_; ++b) f.set_bit(b, out_.ej_flit_o.bit(r * w_ + b));
    ++flits_out_;
    const auto [id, idx] = tag_of(f);
    const Kind kind = kind_of(f);
    if (id >= pkts_.size()) throw std::runtime_error(fmt::format("cycle {}: node {} ejected unknown packet {}", cycle_, r, id));
    const Pkt& k = pkts_[id];
    if (kind == Kind::head || kind == Kind::single) {
      const std::size_t flow = (static_cast<std::size_t>(k.src) * n_ + k.dst) * v_ + k.vc;
      if (ej_pkt_[j] >= 0 || k.dst != r || k.seq != expect_seq_[flow])
        throw std::runtime_error(fmt::format("cycle {}: packet {} ({} -> {}) arrived at node {} out of place or order",
                                             cycle_, id, k.src, k.dst, r));
      ++expect_seq_[flow];
      ej_pkt_[j] = static_cast<int>(id);
      ej_idx_[j] = 0;
    }
    if (ej_pkt_[j] != static_cast<int>(id) || idx != ej_idx_[j] || !(f == k.flits[idx]))
      throw std::runtime_error(fmt::format("cycle {}: node {}: flit {} of packet {} out of order or corrupted", cycle_, r, idx, id));
    if (++ej_idx_[j] == k.flits.size()) {
      ej_pkt_[j] = -1;
      ++delivered_;
    }
  }
  // what enters next cycle: new packets, one flit per node within credits
  for (unsigned r = 0; r < n_; ++r) {
    if (load > 0 && chance(load / 2.5)) {
      Pkt k;
      k.src = r;
      k.dst = uni(n_);
      k.vc = uni(v_);
      const std::size_t flow = (static_cast<std::size_t>(k.src) * n_ + k.dst) * v_ + k.vc;
      k.seq = next_seq_[flow]++;
      const unsigned len = 1 + uni(4), id = static_cast<unsigned>(pkts_.size());
      const Head h{k.dst, k.src, uni(4), len};
      std::vector<Bits> pay(len, Bits(w_));
      for (Bits& b : pay)
        for (unsigned i = 0; i < b.words(); ++i) b.set_word(i, rng_());
      k.flits = tagged_packet(w_, id, h, std::move(pay));
      pkts_.push_back(std::move(k));
      queue_[r].push_back(id);
    }
    if (!queue_[r].empty() && !cur_[r * v_ + pkts_[queue_[r].front()].vc]) {
      const unsigned id = queue_[r].front();
      cur_[r * v_ + pkts_[id].vc] = id;
      cur_flit_[r * v_ + pkts_[id].vc] = 0;
      queue_[r].pop_front();
    }
    for (unsigned v = 0; v < v_; ++v) {
      const unsigned j = r * v_ + v;
      if (!cur_[j] || cred_[j] == 0) continue;
      const Pkt& k = pkts_[*cur_[j]];
      next.inj_valid_i.set_bit(r, true);
      next.inj_vc_i.set_slice(r * vb_, vb_, v);
      for (unsigned b = 0; b < w_; ++b) next.inj_flit_i.set_bit(r * w_ + b, k.flits[cur_flit_[j]].bit(b));
      --cred_[j];
      if (++cur_flit_[j] == k.flits.size()) cur_[j].reset();
      break;
    }
  }
  // the edge: this cycle's inputs, then the next cycle's
  net_.tick(in_);
  in_ = next;
  ++cycle_;
}

void NetRunner::run(std::uint64_t cycles, double load) {
  for (std::uint64_t i = 0; i < cycles; ++i) step(load);
}

std::optional<std::uint64_t> NetRunner::drain(std::uint64_t bound) {
  const std::uint64_t c0 = cycle_;
  while (delivered_ < pkts_.size() || cycle_ == c0) {
    if (cycle_ - c0 >= bound) return std::nullopt;
    step(0);
  }
  return cycle_ - c0;
}

}  // namespace trn::link
