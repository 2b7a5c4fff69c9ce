// The flit level (docs/collectives.md): every chip's DMA and NIC in front of the cycle-exact
// trn::link::Net.
//
// DMA (per chip, one cycle = one flit time of a link): descriptors in 16 queues (queue = destination
// chip mod 16), each executed in order. One read a cycle of up to pkt_bytes, within the DMA's and
// HBM's bandwidth (token buckets), round-robin over the queues; HBM answers after a seeded random
// latency in [L (1 - j/2), L (1 + j/2)], so reads return out of order. One write a cycle, round-robin
// over the queues:
//   strong-order-write: a queue's writes leave in descriptor and byte order;
//   write-after-write:  a write leaves as soon as its data is back, unless an earlier write of the
//                       queue to an overlapping range has not left;
//   in both, a descriptor's semaphore write leaves after all its data writes, and a descriptor with
//   the barrier flag sends nothing until every earlier write of its queue has landed.
// A write to the chip itself lands at once; any other becomes a packet for the NIC.
// NIC (per chip): a FIFO of packets, injected one flit a cycle within the router port's credits
// (VC: the destination's parity on a torus, so a pair's packets keep one FIFO and stay in order).
// Head flit: the head fields of rtl/link/router_pkg.sv (destination, source, type: PktWrite,
// PktAccWrite or PktSem, length), and above them in its payload the destination offset, byte count
// and transfer; body flits: 14 data bytes each. The receiving NIC
// rebuilds each packet, checks it against what was sent (a scoreboard: the network must deliver every
// packet once, intact, in order per pair) and applies it.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <random>

#include "collective/engine.hpp"
#include "link/net.hpp"
#include "link/router.hpp"
#include "system/system.hpp"

namespace trn::collective {

namespace {

constexpr unsigned kQueues = 16, kNicDepth = 4, kSlotsPerEngine = 64, kWindow = 64;
// The head flit's payload above the head fields: offset (32 bits), bytes (16), transfer (32).
constexpr unsigned kOffLsb = link::Head::kWidth, kBytesLsb = kOffLsb + 32, kSendLsb = kBytesLsb + 16;
static_assert(kSendLsb + 32 <= kFlitBits - 2, "the head flit's payload fits below its kind");
// Cycles the network must have been empty (every flit ejected; acknowledgements and credits back)
// before idle cycles are skipped.
constexpr std::uint64_t kQuiet = 32;

/// Cycle time of the flit level: one 128-bit flit per cycle on the system's fastest chip link.
double flit_link_gbps(const system::System& s) {
  double g = 0;
  for (const auto& c : s.link_classes())
    if (!c.scale_out) g = std::max(g, c.gbps);
  return g;
}

struct Packet {
  unsigned src = 0, dst = 0;
  link::PktType type = link::PktType::PktWrite;  // PktWrite, PktAccWrite or PktSem
  std::uint64_t off = 0;
  unsigned bytes = 0;
  std::uint32_t send = 0;
  std::vector<std::uint8_t> data;
  unsigned queue = 0;
  std::uint64_t desc = 0;  // descriptor sequence in its queue
  unsigned flits() const { return 1 + (bytes + kBodyBytes - 1) / kBodyBytes; }
};

class FlitBackend : public Backend {
 public:
  FlitBackend(const system::System& s, const Config& c)
      : c_(c),
        net_(s.flit_net(2, 4, kFlitBits)),
        rng_(c.seed * 0x9e3779b97f4a7c15ull + 1),
        chan_(c.seed ^ 0x5bd1e995u) {
    const double gbps = flit_link_gbps(s);
    cycle_ns_ = kFlitBytes / gbps;
    const system::Totals t = system::chip_totals(s.design());
    dma_rate_ = t.dma_gbps * cycle_ns_;
    hbm_rate_ = t.hbm_gbps * cycle_ns_;
    const double lat = (s.design().hbm.empty() ? 0 : s.design().hbm[0].latency_ns) / cycle_ns_;
    // outstanding reads: 64 per DMA engine of the chip (enough to cover HBM's bandwidth x latency)
    slots_ = kSlotsPerEngine * s.design().cores() * s.design().dma_engines();
    slots_ = std::max(slots_, kSlotsPerEngine);
    lat_lo_ = lat * (1 - c.hbm_jitter / 2);
    lat_hi_ = lat * (1 + c.hbm_jitter / 2);
    n_ = net_.endpoints();
    v_ = net_.params().v;
    vb_ = net_.vb();
    chips_.resize(n_);
    for (auto& ch : chips_) {
      ch.q.resize(kQueues);
      ch.cred.assign(v_, net_.params().d);
    }
    ej_.resize(static_cast<std::size_t>(n_) * v_);
    credit_next_.assign(n_, 0);
    in_ = net_.make_in();
    out_ = net_.make_out();
    for (int i = 0; i < 2; ++i) net_.tick(in_);
    in_.rst_ni = true;
  }

  void submit(const std::vector<Desc>& d, double) override {
    for (const Desc& x : d) {
      Chip& ch = chips_.at(x.src_chip);
      Queue& q = ch.q[x.dst_chip % kQueues];
      DDesc dd;
      dd.d = x;
      dd.seq = q.next_seq++;
      q.descs.push_back(dd);
      q.open[dd.seq] += 0;
      ++pending_descs_;
    }
  }

  bool idle() const override { return pending_descs_ == 0 && writes_ == 0 && in_net_ == 0 && reads_ == 0; }

  double step(Sink& sink) override {
    // skip cycles in which nothing can happen: the network has been empty for a while (every flit
    // ejected, acknowledged, credited) and the only thing pending is HBM reads
    if (quiet_ > kQuiet && in_net_ == 0 && nic_packets_ == 0 && pending_descs_ == 0) {
      // the earliest cycle at which a queue can send: its oldest write's data (strong order) or any
      // write's data (write-after-write) comes back
      std::uint64_t next = ~std::uint64_t{0};
      for (const Chip& ch : chips_)
        for (const Queue& q : ch.q) {
          if (q.w.empty()) continue;
          if (c_.strong) {
            next = std::min(next, q.w.front().due);
          } else {
            for (const Wr& w : q.w) next = std::min(next, w.due);
          }
        }
      if (next != ~std::uint64_t{0} && next > cycle_ + 1) {
        skipped_ += next - 1 - cycle_;
        cycle_ = next - 1;
      }
    }
    net_.eval(in_, out_);
    observe(sink);
    link::Net::In next = drive(sink);
    net_.tick(in_);
    in_ = std::move(next);
    ++cycle_;
    quiet_ = in_net_ == 0 ? quiet_ + 1 : 0;
    return static_cast<double>(cycle_) * cycle_ns_;
  }

  void finish(Result& r) const override {
    r.cycles = cycle_;
    r.skipped_cycles = skipped_;
    r.cycle_ns = cycle_ns_;
    r.flits = flits_;
    r.flips = flips_;
    for (unsigned l = 0; l < net_.links(); ++l) r.replays += out_.link_replay_o.slice(l * 32, 32);
  }

 private:
  struct DDesc {
    Desc d;
    std::uint64_t seq = 0, read = 0;  // bytes whose read was issued
  };
  struct Wr {
    std::uint64_t desc = 0, due = 0;
    bool sem = false, issued = false, barrier = false, reduce = false;
    unsigned dst = 0;
    std::uint64_t off = 0;
    unsigned bytes = 0;
    std::uint32_t send = 0;
    std::vector<std::uint8_t> data;
  };
  struct Queue {
    std::deque<DDesc> descs;                 // reads still to issue, in order
    std::deque<Wr> w;                        // writes (and semaphore writes) not yet issued, in order
    std::map<std::uint64_t, unsigned> open;  // per descriptor: writes not yet landed
    std::uint64_t next_seq = 0;
  };
  struct Chip {
    std::vector<Queue> q;
    unsigned rr_read = 0, rr_write = 0, reads = 0;
    double dma_tokens = 0, hbm_tokens = 0;
    std::deque<Packet> nic;
    unsigned flit = 0;     // next flit of nic.front()
    bool corrupt = false;  // nic.front() is the scoreboard self-test's packet
    std::vector<unsigned> cred;
  };
  struct Ej {
    bool busy = false;
    Packet p;
    unsigned got = 0, flits = 0;
  };

  static std::uint64_t pair_key(unsigned a, unsigned b) { return static_cast<std::uint64_t>(a) << 32 | b; }

  void land(Sink& sink, const Packet& p) {
    const double t = static_cast<double>(cycle_) * cycle_ns_;
    if (p.type == link::PktType::PktSem)
      sink.signalled(p.send, t);
    else
      sink.landed(p.send, p.off, p.bytes, c_.data ? p.data.data() : nullptr, p.type == link::PktType::PktAccWrite, t);
    Queue& q = chips_[p.src].q[p.queue];
    auto it = q.open.find(p.desc);
    if (it == q.open.end() || it->second == 0) throw std::logic_error("flit level: a write landed twice");
    // a descriptor stays open until all its writes were made (its reads issued) and have landed
    if (--it->second == 0 && (q.descs.empty() || q.descs.front().seq != p.desc)) q.open.erase(it);
    --writes_;
  }

  void observe(Sink& sink) {
    for (unsigned e = 0; e < n_; ++e) {
      if (out_.inj_credit_o.bit(e)) ++chips_[e].cred[out_.inj_credit_vc_o.slice(e * vb_, vb_)];
      credit_next_[e] = 0;
      if (!out_.ej_valid_o.bit(e)) continue;
      const unsigned v = static_cast<unsigned>(out_.ej_vc_o.slice(e * vb_, vb_));
      credit_next_[e] = v + 1;
      --in_net_;
      const std::uint64_t lo = out_.ej_flit_o.word(e * 2), hi = out_.ej_flit_o.word(e * 2 + 1);
      Ej& j = ej_[e * v_ + v];
      const unsigned kind = static_cast<unsigned>(hi >> 62);
      const bool head = kind == 1 || kind == 3, tail = kind == 2 || kind == 3;
      if (head) {
        if (j.busy)
          throw std::runtime_error(fmt::format("flit level: chip {} VC {}: a packet starts inside another", e, v));
        Bits f(kFlitBits);
        f.set_word(0, lo);
        f.set_word(1, hi);
        const link::Head h = link::head_of(f);
        j = Ej{};
        j.busy = true;
        j.p.dst = h.dst;
        j.p.src = h.src;
        j.p.type = h.ptype;
        j.flits = h.len;
        j.p.off = f.slice(kOffLsb, 32);
        j.p.bytes = static_cast<unsigned>(f.slice(kBytesLsb, 16));
        j.p.send = static_cast<std::uint32_t>(f.slice(kSendLsb, 32));
        if (h.dst != e)
          throw std::runtime_error(fmt::format("flit level: a packet for chip {} ejected at chip {}", h.dst, e));
        j.p.data.reserve(j.p.bytes);
      } else {
        if (!j.busy)
          throw std::runtime_error(fmt::format("flit level: chip {} VC {}: a body flit outside a packet", e, v));
        std::uint8_t b[16];
        std::memcpy(b, &lo, 8);
        std::memcpy(b + 8, &hi, 8);
        const unsigned take = std::min<unsigned>(kBodyBytes, j.p.bytes - static_cast<unsigned>(j.p.data.size()));
        j.p.data.insert(j.p.data.end(), b, b + take);
      }
      ++j.got;
      if (tail) {
        if (j.got != j.flits)
          throw std::runtime_error(fmt::format("flit level: a packet of {} flits ended after {}", j.flits, j.got));
        j.busy = false;
        // the scoreboard: the oldest packet sent from this source to this chip
        auto& fifo = sent_[pair_key(j.p.src, e)];
        if (fifo.empty())
          throw std::runtime_error(fmt::format("flit level: chip {} received a packet chip {} never sent", e, j.p.src));
        Packet want = std::move(fifo.front());
        fifo.pop_front();
        if (want.type != j.p.type || want.off != j.p.off || want.bytes != j.p.bytes || want.send != j.p.send ||
            (c_.data && want.type != link::PktType::PktSem && want.data != j.p.data))
          throw std::runtime_error(
              fmt::format("flit level: the packet chip {} received from chip {} is not the next one sent "
                          "(lost, duplicated, reordered or corrupted)",
                          e, j.p.src));
        land(sink, want);
      }
    }
  }

  bool overlaps(const Wr& a, const Wr& b) const {
    return a.dst == b.dst && a.off < b.off + b.bytes && b.off < a.off + a.bytes;
  }

  /// May entry i of queue q leave now?
  bool eligible(const Queue& q, std::size_t i) const {
    const Wr& w = q.w[i];
    if (w.due > cycle_) return false;
    if (w.barrier && q.open.begin()->first != w.desc) return false;  // earlier writes not all landed
    if (c_.strong) return i == 0;
    for (std::size_t k = 0; k < i; ++k) {
      const Wr& e = q.w[k];
      if (w.sem ? e.desc == w.desc : (!e.sem && overlaps(e, w))) return false;
    }
    return true;
  }

  void issue_write(Sink& sink, Chip& ch, unsigned src, unsigned qi, Wr&& w) {
    Packet p;
    p.src = src;
    p.dst = w.dst;
    p.type = w.sem ? link::PktType::PktSem : w.reduce ? link::PktType::PktAccWrite : link::PktType::PktWrite;
    p.off = w.off;
    p.bytes = w.sem ? 0 : w.bytes;
    p.send = w.send;
    p.data = std::move(w.data);
    p.queue = qi;
    p.desc = w.desc;
    if (w.dst == src) {
      land(sink, p);
      return;
    }
    ch.nic.push_back(std::move(p));
    ++nic_packets_;
  }

  link::Net::In drive(Sink& sink) {
    link::Net::In in = net_.make_in();
    in.rst_ni = true;
    for (unsigned e = 0; e < n_; ++e) {
      Chip& ch = chips_[e];
      // one read: the first queue (round-robin) whose current descriptor has bytes left to read
      ch.dma_tokens = std::min(ch.dma_tokens + dma_rate_, 4.0 * c_.pkt_bytes);
      ch.hbm_tokens = std::min(ch.hbm_tokens + hbm_rate_, 12.0 * c_.pkt_bytes);
      if (ch.reads < slots_ && ch.dma_tokens > 0 && ch.hbm_tokens > 0) {
        for (unsigned k = 0; k < kQueues; ++k) {
          const unsigned qi = (ch.rr_read + k) % kQueues;
          Queue& q = ch.q[qi];
          if (q.descs.empty()) continue;
          DDesc& d = q.descs.front();
          if (d.d.bytes == 0) {  // a ready flag: the semaphore write alone
            Wr f;
            f.desc = d.seq;
            f.sem = true;
            f.dst = d.d.dst_chip;
            f.send = d.d.send;
            f.due = cycle_;
            ++q.open[d.seq];
            ++writes_;
            q.w.push_back(std::move(f));
            q.descs.pop_front();
            --pending_descs_;
            ch.rr_read = (qi + 1) % kQueues;
            break;
          }
          const unsigned len = static_cast<unsigned>(std::min<std::uint64_t>(c_.pkt_bytes, d.d.bytes - d.read));
          Wr w;
          w.desc = d.seq;
          w.dst = d.d.dst_chip;
          w.off = d.d.dst_off + d.read;
          w.bytes = len;
          w.send = d.d.send;
          w.reduce = d.d.reduce;
          w.barrier = d.d.barrier;
          if (c_.data) {
            w.data.resize(len);
            sink.read(e, d.d.src_off + d.read, len, w.data.data());
          }
          w.due =
              cycle_ + 1 + static_cast<std::uint64_t>(std::uniform_real_distribution<double>(lat_lo_, lat_hi_)(rng_));
          const double hbm_w = d.d.dst_chip != e ? 1.0 : d.d.reduce ? 3.0 : 2.0;
          ch.dma_tokens -= len;
          ch.hbm_tokens -= hbm_w * len;
          ++q.open[d.seq];
          ++writes_;
          ++ch.reads;
          ++reads_;
          const std::uint64_t due = w.due;
          q.w.push_back(std::move(w));
          d.read += len;
          if (d.read == d.d.bytes) {
            if (d.d.sem) {
              Wr s;
              s.desc = d.seq;
              s.sem = true;
              s.barrier = d.d.barrier;
              s.dst = d.d.dst_chip;
              s.send = d.d.send;
              s.due = due;  // the completion follows the descriptor's last read
              ++q.open[d.seq];
              ++writes_;
              q.w.push_back(std::move(s));
            }
            q.descs.pop_front();
            --pending_descs_;
          }
          ch.rr_read = (qi + 1) % kQueues;
          break;
        }
      }
      // one write: the first queue (round-robin) with an entry that may leave
      if (ch.nic.size() < kNicDepth) {
        for (unsigned k = 0; k < kQueues; ++k) {
          const unsigned qi = (ch.rr_write + k) % kQueues;
          Queue& q = ch.q[qi];
          const std::size_t lim = std::min<std::size_t>(q.w.size(), kWindow);
          std::size_t pick = lim;
          for (std::size_t i = 0; i < lim; ++i)
            if (eligible(q, i)) {
              pick = i;
              break;
            }
          if (pick == lim) continue;
          Wr w = std::move(q.w[pick]);
          q.w.erase(q.w.begin() + static_cast<std::ptrdiff_t>(pick));
          if (!w.sem) {
            --ch.reads;
            --reads_;
          }
          issue_write(sink, ch, e, qi, std::move(w));
          ch.rr_write = (qi + 1) % kQueues;
          break;
        }
      }
      // one flit from the NIC
      if (!ch.nic.empty()) {
        const Packet& p = ch.nic.front();
        const unsigned vc = net_.params().topo == link::Topo::TopoTorus ? (p.dst & 1) : 0;
        if (ch.cred[vc] > 0) {
          const unsigned nf = p.flits();
          std::uint64_t lo = 0, hi = 0;
          if (ch.flit == 0) {
            const link::Kind k = nf == 1 ? link::Kind::FlitSingle : link::Kind::FlitHead;
            if (p.off >> 32) throw std::logic_error("flit level: an offset beyond 32 bits");
            Bits pay(kFlitBits);
            pay.set_slice(kOffLsb, 32, p.off);
            pay.set_slice(kBytesLsb, 16, p.bytes);
            pay.set_slice(kSendLsb, 32, p.send);
            const link::Head h{.tc = 0,
                               .len = static_cast<std::uint8_t>(nf),
                               .ptype = p.type,
                               .src = static_cast<std::uint8_t>(p.src),
                               .dst = static_cast<std::uint8_t>(p.dst)};
            const Bits f = link::make_flit(kFlitBits, k, h, pay);
            lo = f.word(0);
            hi = f.word(1);
            sent_[pair_key(e, p.dst)].push_back(p);
            ch.corrupt = !corrupted_ && packets_++ >= c_.corrupt_packet && nf > 1;
            corrupted_ = corrupted_ || ch.corrupt;
          } else {
            const unsigned at = (ch.flit - 1) * kBodyBytes;
            std::uint8_t b[16] = {};
            if (c_.data) std::memcpy(b, p.data.data() + at, std::min<unsigned>(kBodyBytes, p.bytes - at));
            std::memcpy(&lo, b, 8);
            std::memcpy(&hi, b + 8, 8);
            if (ch.corrupt && ch.flit == 1) lo ^= 1;
            const link::Kind k = ch.flit + 1 == nf ? link::Kind::FlitTail : link::Kind::FlitBody;
            hi = (hi & ~(std::uint64_t{3} << 62)) | static_cast<std::uint64_t>(k) << 62;
          }
          in.inj_valid_i.set_bit(e, true);
          in.inj_vc_i.set_slice(e * vb_, vb_, vc);
          in.inj_flit_i.set_word(e * 2, lo);
          in.inj_flit_i.set_word(e * 2 + 1, hi);
          --ch.cred[vc];
          ++in_net_;
          ++flits_;
          if (++ch.flit == nf) {
            ch.flit = 0;
            ch.nic.pop_front();
            --nic_packets_;
          }
        }
      }
      if (credit_next_[e]) {
        in.ej_credit_i.set_bit(e, true);
        in.ej_credit_vc_i.set_slice(e * vb_, vb_, credit_next_[e] - 1);
      }
    }
    if (c_.p_flip > 0)
      for (unsigned l = 0; l < net_.links(); ++l)
        if (std::uniform_real_distribution<double>(0, 1)(chan_) < c_.p_flip) {
          in.flip_i.set_bit(l, true);
          in.flip_bit_i.set_slice(l * net_.fb(), net_.fb(),
                                  std::uniform_int_distribution<unsigned>(0, net_.wire_bits() - 1)(chan_));
          ++flips_;
        }
    return in;
  }

  const Config& c_;
  link::Net net_;
  link::Net::In in_;
  link::Net::Out out_;
  std::mt19937_64 rng_, chan_;
  double cycle_ns_ = 0, dma_rate_ = 0, hbm_rate_ = 0, lat_lo_ = 0, lat_hi_ = 0;
  unsigned n_ = 0, v_ = 0, vb_ = 0, slots_ = 0;
  std::vector<Chip> chips_;
  std::vector<Ej> ej_;
  std::vector<unsigned> credit_next_;
  std::unordered_map<std::uint64_t, std::deque<Packet>> sent_;
  std::uint64_t cycle_ = 0, skipped_ = 0, quiet_ = 0, flits_ = 0, flips_ = 0, packets_ = 0;
  bool corrupted_ = false;
  std::uint64_t pending_descs_ = 0, writes_ = 0, in_net_ = 0, reads_ = 0, nic_packets_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_flit_backend(const system::System& s, const Config& c) {
  return std::make_unique<FlitBackend>(s, c);
}

Config flit_equivalent(const system::System& s, const Config& c) {
  Config f = c;
  const double gbps = flit_link_gbps(s), cyc = kFlitBytes / gbps;
  f.link_gbps = gbps;
  f.nic_gbps = gbps;
  // measured on the network: the zero-load latency of a one-flit packet over one and over two
  // links, and the rate one stream of packets of pkt_bytes reaches over one link (the routers'
  // credit loop bounds it below one flit a cycle)
  struct Probe {
    unsigned first = 0, last = 0, flits = 0;
  };
  auto probe = [&](unsigned a, unsigned b, unsigned packets, unsigned len) {
    link::Net net(s.flit_net(2, 4, kFlitBits));
    link::Net::In in = net.make_in();
    link::Net::Out out = net.make_out();
    for (int i = 0; i < 2; ++i) net.tick(in);
    in.rst_ni = true;
    const unsigned vb = net.vb(), vc = net.params().topo == link::Topo::TopoTorus ? (b & 1) : 0;
    unsigned cred = net.params().d, sent = 0, credit = 0;
    Probe p;
    const unsigned total = packets * len;
    for (unsigned cyc_n = 0; cyc_n < 100000; ++cyc_n) {
      link::Net::In next = net.make_in();
      next.rst_ni = true;
      net.eval(in, out);
      if (out.inj_credit_o.bit(a)) ++cred;
      const bool ej = out.ej_valid_o.bit(b);
      if (ej) {
        if (p.flits++ == 0) p.first = cyc_n;
        p.last = cyc_n;
        credit = static_cast<unsigned>(out.ej_vc_o.slice(b * vb, vb)) + 1;
        if (p.flits == total) return p;
      }
      if (sent < total && cred > 0) {
        const unsigned k = sent % len;
        const link::Kind kind = len == 1       ? link::Kind::FlitSingle
                                : k == 0       ? link::Kind::FlitHead
                                : k + 1 == len ? link::Kind::FlitTail
                                               : link::Kind::FlitBody;
        Bits pay(kFlitBits);
        const link::Head h{.tc = 0,
                           .len = static_cast<std::uint8_t>(len),
                           .ptype = link::PktType::PktWrite,
                           .src = static_cast<std::uint8_t>(a),
                           .dst = static_cast<std::uint8_t>(b)};
        const Bits fl = link::make_flit(kFlitBits, kind, h, pay);
        next.inj_valid_i.set_bit(a, true);
        next.inj_vc_i.set_slice(a * vb, vb, vc);
        next.inj_flit_i.set_word(a * 2, fl.word(0));
        next.inj_flit_i.set_word(a * 2 + 1, fl.word(1));
        --cred;
        ++sent;
      }
      if (ej) {
        next.ej_credit_i.set_bit(b, true);
        next.ej_credit_vc_i.set_slice(b * vb, vb, credit - 1);
      }
      net.tick(in);
      in = std::move(next);
    }
    throw std::logic_error("flit level: a probe packet never arrived");
  };
  unsigned b1 = 0, b2 = 0;
  std::size_t h1 = 0, h2 = 0;
  for (unsigned b = 1; b < s.chips(); ++b) {
    const std::size_t h = s.route(0, b).size();
    if (!h1 || h < h1) h1 = h, b1 = b;
  }
  for (unsigned b = 1; b < s.chips(); ++b) {
    const std::size_t h = s.route(0, b).size();
    if (h > h1 && (!h2 || h < h2)) h2 = h, b2 = b;
  }
  const double l1 = probe(0, b1, 1, 1).first;
  const double per_hop = h2 ? (probe(0, b2, 1, 1).first - l1) / static_cast<double>(h2 - h1) : 0;
  const unsigned len = 1 + (c.pkt_bytes + kBodyBytes - 1) / kBodyBytes;
  const Probe st = probe(0, b1, 64, len);
  const double rate = static_cast<double>(st.flits - 1) / static_cast<double>(st.last - st.first);  // flits a cycle
  f.link_gbps = gbps * std::min(1.0, rate);
  f.nic_gbps = f.link_gbps;
  // the NIC's and the DMA's write port's own cycles: a write leaves the DMA the cycle its data is
  // back and the NIC injects it the next
  f.hop_ns = per_hop * cyc;
  f.base_ns = (l1 - per_hop * static_cast<double>(h1) + 2) * cyc;
  return f;
}

}  // namespace trn::collective
