// The flow level (docs/collectives.md): each transfer is one flow over its route. It starts after
// the DMA's HBM read latency (one, or drawn per transfer), shares every resource it uses (the
// route's links, the chips' DMA, HBM and optional NIC limits) max-min fairly with the other flows
// by progressive filling, and its data and semaphore land the route's latency after its last byte
// left.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <queue>
#include <random>
#include <unordered_map>

#include "collective/engine.hpp"
#include "system/system.hpp"

namespace trn::collective {

namespace {

class FlowBackend : public Backend {
 public:
  FlowBackend(const FlowModel& m, const Config& c) : m_(m), c_(c) {
    used_.assign(m.resources(), 0.0);
    wsum_.assign(m.resources(), 0.0);
    mark_.assign(m.resources(), 0);
  }

  void submit(const std::vector<Desc>& d, double now) override {
    const std::size_t id = alloc();
    Flow& f = flows_[id];
    f.descs.assign(d.begin(), d.end());
    const Desc& a = d.front();
    std::uint64_t payload = 0, wire = 0;
    for (const Desc& x : d) {
      payload += x.bytes;
      wire += wire_bytes(x.bytes, c_.pkt_bytes, c_.body_bytes);
    }
    if (a.src_chip != a.dst_chip) wire += kFlitBytes;  // the semaphore write
    f.remaining = static_cast<double>(payload);
    f.total = payload;
    f.rate = 0;
    f.done = false;
    m_.uses(a.src_chip, a.dst_chip, a.reduce, payload, wire, f.uses, a.src_core, a.extra_hbm);
    f.latency = m_.latency_ns(a.src_chip, a.dst_chip);
    f.sem_ns = a.src_chip != a.dst_chip ? kFlitBytes / m_.nic_gbps(a.src_chip, a.dst_chip) : 0.0;
    f.start = seq_;
    f.start_ns = now + (a.flag && !c_.flag_reads ? 0.0 : read_ns());
    f.queue = static_cast<std::uint64_t>(a.src_chip) << 40 | static_cast<std::uint64_t>(a.dst_chip) << 16 | a.queue;
    // a DMA queue's transfers land in issue order: link the flow behind the queue's last
    f.prev = f.next = kNone;
    auto [it, fresh] = tail_.try_emplace(f.queue, id);
    if (!fresh) {
      f.prev = it->second;
      flows_[f.prev].next = id;
      it->second = id;
    }
    // a ready flag reads nothing, unless the chips send it as a DMA write from HBM (Config::flag_reads);
    // a queue sends one transfer after another: behind one still sending, a flow waits for it (its
    // HBM read overlapping the wait)
    f.held = c_.queue_fifo && f.prev != kNone && !flows_[f.prev].done;
    if (!f.held) pending_.push(Ev{f.start_ns, seq_++, id});
  }

  bool idle() const override { return pending_.empty() && active_.empty() && delivering_.empty(); }

  double step(Sink& sink) override {
    const double inf = std::numeric_limits<double>::infinity();
    double t = inf;
    if (!pending_.empty()) t = std::min(t, pending_.top().t);
    if (!delivering_.empty()) t = std::min(t, delivering_.top().t);
    for (std::size_t id : active_) {
      const Flow& f = flows_[id];
      if (f.rate > 0) t = std::min(t, now_ + f.remaining / f.rate);
    }
    if (t == inf) throw std::logic_error("flow level: active flows with no rate");
    t = std::max(t, now_);
    const double dt = t - now_;
    const double eps = 1e-9 * std::max(1.0, t);
    for (std::size_t id : active_) flows_[id].remaining -= flows_[id].rate * dt;
    now_ = t;
    bool changed = false;
    // flows whose last byte left: their data lands after the route's latency
    finished_.clear();
    for (std::size_t i = 0; i < active_.size();) {
      Flow& f = flows_[active_[i]];
      // flows due within a hair of now finish together (symmetric flows differ only by rounding)
      if (f.remaining <= f.rate * eps + 1e-6 * static_cast<double>(f.total) + 1e-3) {
        finished_.push_back(active_[i]);
        active_[i] = active_.back();
        active_.pop_back();
        changed = true;
      } else {
        ++i;
      }
    }
    // in the order they started; a remote transfer's semaphore write is a flit through its chip's
    // NIC after its data: transfers of one chip that finish together send theirs one after another
    std::sort(finished_.begin(), finished_.end(), [&](std::size_t a, std::size_t b) {
      const Flow &x = flows_[a], &y = flows_[b];
      return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.start < y.start;
    });
    for (std::size_t id : finished_) {
      Flow& f = flows_[id];
      double out = now_;
      if (f.sem_ns > 0) {
        double& free = sem_free_[f.descs.front().src_chip];
        out = std::max(out, free);
        free = out + f.sem_ns;
      }
      // a DMA queue's transfers (one source, one destination) land in the order they were issued
      f.done = true;
      f.land = out + f.latency;
      if (f.next != kNone && flows_[f.next].held) {
        Flow& nx = flows_[f.next];
        nx.held = false;
        pending_.push(Ev{std::max(nx.start_ns, now_), seq_++, f.next});
      }
      if (f.prev == kNone) schedule(id);
    }
    // flows whose HBM read returned start
    while (!pending_.empty() && pending_.top().t <= now_ + eps) {
      const std::size_t id = pending_.top().id;
      pending_.pop();
      Flow& f = flows_[id];
      if (c_.data) {
        f.data.resize(f.total);
        std::uint64_t o = 0;
        for (const Desc& d : f.descs) {
          sink.read(d.send, d.src_off, d.bytes, f.data.data() + o);
          o += d.bytes;
        }
      }
      active_.push_back(id);
      changed = true;
    }
    if (changed) rates();
    // deliveries, in submission order among equal times
    while (!delivering_.empty() && delivering_.top().t <= now_ + eps) {
      const std::size_t id = delivering_.top().id;
      delivering_.pop();
      // the callbacks may start new flows (and move flows_): work on a copy of what is needed
      deliver_.swap(flows_[id].descs);
      data_.swap(flows_[id].data);
      free_.push_back(id);
      std::uint64_t o = 0;
      for (const Desc& d : deliver_) {
        sink.landed(d.send, d.dst_off, d.bytes, c_.data ? data_.data() + o : nullptr, d.reduce, now_);
        o += d.bytes;
      }
      sink.signalled(deliver_.front().send, now_);
    }
    return now_;
  }

 private:
  struct Flow {
    std::vector<Desc> descs;
    std::vector<std::pair<unsigned, double>> uses;
    std::vector<std::uint8_t> data;
    double remaining = 0, rate = 0, latency = 0, land = 0;
    double sem_ns = 0;    // the semaphore flit's time through the sending NIC
    double start_ns = 0;  // when its HBM read returns
    std::uint64_t total = 0, queue = 0, start = 0;
    std::size_t prev = ~std::size_t{0}, next = ~std::size_t{0};  // neighbours on the queue not yet landing
    bool done = false;
    bool held = false;  // behind a flow of its queue still sending (Config::queue_fifo)
  };
  struct Ev {
    double t;
    std::uint64_t seq;
    std::size_t id;
    bool operator>(const Ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  using Queue = std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>>;

  const FlowModel& m_;
  const Config& c_;
  std::mt19937_64 rng_{c_.seed ^ 0x9e3779b97f4a7c15u};  // the transfers' HBM read latencies
  double now_ = 0;
  std::uint64_t seq_ = 0;
  std::vector<Flow> flows_;
  std::vector<std::size_t> free_, active_, unfrozen_, frozen_;
  std::vector<unsigned> touched_;
  std::vector<double> used_, wsum_;
  std::vector<char> mark_;
  Queue pending_, delivering_;
  std::unordered_map<std::uint64_t, std::size_t> tail_;  // per queue: its last flow not yet landing
  std::unordered_map<std::uint64_t, double> last_;       // per queue: the last landing time
  std::unordered_map<unsigned, double> sem_free_;        // per chip: when its NIC sends the next semaphore
  std::vector<std::size_t> finished_;
  std::vector<Desc> deliver_;
  std::vector<std::uint8_t> data_;

  static constexpr std::size_t kNone = ~std::size_t{0};

  /// The HBM read latency of a transfer: the one latency, or one drawn (Config::read_jitter).
  double read_ns() {
    const double l = m_.read_ns();
    if (c_.read_jitter <= 0) return l;
    return l * (1 + c_.read_jitter * (std::uniform_real_distribution<double>(-0.5, 0.5)(rng_)));
  }

  std::size_t alloc() {
    if (!free_.empty()) {
      const std::size_t id = free_.back();
      free_.pop_back();
      return id;
    }
    flows_.emplace_back();
    return flows_.size() - 1;
  }

  /// Flow id finished and everything issued before it on its queue lands: it lands no earlier than
  /// its predecessor, and so do its finished successors.
  void schedule(std::size_t id) {
    while (id != kNone && flows_[id].done) {
      Flow& g = flows_[id];
      double& last = last_[g.queue];
      last = std::max(last, g.land);
      delivering_.push(Ev{last, seq_++, id});
      const std::size_t nx = g.next;
      g.next = kNone;
      if (nx != kNone) {
        flows_[nx].prev = kNone;
      } else {
        auto it = tail_.find(g.queue);
        if (it != tail_.end() && it->second == id) tail_.erase(it);
      }
      id = nx;
    }
  }

  /// Max-min fair rates by progressive filling: every unfrozen flow has the same rate; the
  /// resource that fills first freezes its flows; repeat.
  void rates() {
    touched_.clear();
    for (std::size_t id : active_) {
      flows_[id].rate = -1;
      for (const auto& [r, w] : flows_[id].uses) {
        if (!mark_[r]) {
          mark_[r] = 1;
          touched_.push_back(r);
          used_[r] = 0;
          wsum_[r] = 0;
        }
        wsum_[r] += w;
      }
    }
    unfrozen_.assign(active_.begin(), active_.end());
    const double inf = std::numeric_limits<double>::infinity();
    while (!unfrozen_.empty()) {
      double x = inf;
      for (unsigned r : touched_)
        if (wsum_[r] > 1e-12) x = std::min(x, (m_.capacity(r) - used_[r]) / wsum_[r]);
      if (x == inf) throw std::logic_error("flow level: a flow with no finite resource");
      x = std::max(x, 0.0);
      std::size_t keep = 0;
      frozen_.clear();
      for (std::size_t id : unfrozen_) {
        bool bottleneck = false;
        for (const auto& [r, w] : flows_[id].uses)
          if (wsum_[r] > 1e-12 && (m_.capacity(r) - used_[r]) / wsum_[r] <= x * (1 + 1e-9)) {
            bottleneck = true;
            break;
          }
        if (bottleneck)
          frozen_.push_back(id);
        else
          unfrozen_[keep++] = id;
      }
      if (frozen_.empty()) {  // rounding: whatever is left fills together
        frozen_.assign(unfrozen_.begin(), unfrozen_.begin() + static_cast<std::ptrdiff_t>(keep));
        keep = 0;
      }
      unfrozen_.resize(keep);
      for (std::size_t id : frozen_) {
        flows_[id].rate = x;
        for (const auto& [r, w] : flows_[id].uses) {
          used_[r] += w * x;
          wsum_[r] -= w;
        }
      }
    }
    for (unsigned r : touched_) mark_[r] = 0;
  }
};

}  // namespace

std::unique_ptr<Backend> make_flow_backend(const FlowModel& m, const Config& c) {
  return std::make_unique<FlowBackend>(m, c);
}

}  // namespace trn::collective
