// The collective engine: the collective cores of every chip walking a schedule, on a backend.
#include "collective/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <unordered_set>

#include "dma/desc.hpp"
#include "numerics/format.hpp"
#include "system/system.hpp"

namespace trn::collective {

std::uint64_t wire_bytes(std::uint64_t payload, unsigned pkt_bytes, unsigned body) {
  const std::uint64_t full = payload / pkt_bytes, rest = payload % pkt_bytes;
  const std::uint64_t per_full = 1 + (pkt_bytes + body - 1) / body;
  std::uint64_t flits = full * per_full;
  if (rest) flits += 1 + (rest + body - 1) / body;
  return flits * kFlitBytes;
}

std::string Violation::str() const {
  return fmt::format(
      "at {:.1f} ns rank {} saw the semaphore of rank {}'s round-{} transfer (instance {}) with {} of its {} "
      "bytes landed",
      ns, dst, src, round, instance, landed, bytes);
}

// ---------------------------------------------------------------- FlowModel
FlowModel::FlowModel(const system::System& s, const Config& c, system::RouteFn route)
    : s_(s), c_(c), route_(std::move(route)) {
  const unsigned nch = static_cast<unsigned>(2 * s.links().size());
  keys_ = c.routes ? c.routes : s.route_keys();
  if (c.routes == 0) {  // every key: a link group is one resource
    res_of_ = s.spread_group();
    chan_ = s.spread_groups();
  } else {
    res_of_.resize(nch);
    std::iota(res_of_.begin(), res_of_.end(), 0u);
    chan_ = nch;
  }
  cap_.assign(chan_, 0.0);
  members_.assign(chan_, 0);
  first_.assign(chan_, 0);
  for (unsigned ch = nch; ch-- > 0;) {
    const unsigned r = res_of_[ch];
    cap_[r] += c.link_gbps > 0 ? c.link_gbps : s.channel_gbps(ch);
    ++members_[r];
    first_[r] = ch;
  }
  const system::Totals t = system::chip_totals(s.design());
  const double inf = std::numeric_limits<double>::infinity();
  for (unsigned chip = 0; chip < s.chips(); ++chip) {
    cap_.push_back(c.dma_gbps > 0 ? c.dma_gbps : t.dma_gbps);
    cap_.push_back(c.hbm_gbps > 0 ? c.hbm_gbps : t.hbm_gbps);
    cap_.push_back(c.nic_gbps > 0 ? c.nic_gbps : inf);
    cap_.push_back(c.nic_gbps > 0 ? c.nic_gbps : inf);
  }
  read_ns_ = s.design().hbm.empty() ? 0 : s.design().hbm[0].latency_ns;
  // a rank's collective DMA (Config::cost): one resource per rank slot of every chip
  per_chip_ = std::max(1u, c.chip_ranks);
  const double rank_dma = c.cost ? s.design().gen->cc.rank_dma_gbps : 0.0;
  if (rank_dma > 0) {
    rank_dma_ = static_cast<unsigned>(cap_.size());
    cap_.insert(cap_.end(), std::size_t{s.chips()} * per_chip_, rank_dma);
  }
}

std::string FlowModel::resource_name(unsigned r) const {
  if (r < chan_) {
    const unsigned ch = first_[r];
    const system::Link& l = s_.links()[ch / 2];
    const unsigned a = ch % 2 ? l.b : l.a, b = ch % 2 ? l.a : l.b;
    if (members_[r] == 1)
      return fmt::format("link {} -> {} ({:.1f} GB/s)", s_.nodes()[a].label, s_.nodes()[b].label, cap_[r]);
    return fmt::format("{} links like {} -> {} ({:.1f} GB/s)", members_[r], s_.nodes()[a].label, s_.nodes()[b].label,
                       cap_[r]);
  }
  if (rank_dma_ && r >= rank_dma_) {
    const unsigned slot = r - rank_dma_;
    return fmt::format("collective DMA of rank slot {} of {} ({:.1f} GB/s)", slot % per_chip_,
                       s_.nodes()[slot / per_chip_].label, cap_[r]);
  }
  static const char* kinds[] = {"DMA", "HBM", "NIC out", "NIC in"};
  const unsigned chip = (r - chan_) / 4;
  return fmt::format("{} of {} ({:.1f} GB/s)", kinds[(r - chan_) % 4], s_.nodes()[chip].label, cap_[r]);
}

const std::vector<std::pair<unsigned, double>>& FlowModel::route_uses(unsigned a, unsigned b) const {
  const std::uint64_t id = static_cast<std::uint64_t>(a) * s_.chips() + b;
  auto it = routes_.find(id);
  if (it != routes_.end()) return it->second;
  // how often each channel is taken over the keys, then each resource's share
  std::map<unsigned, unsigned> taken;
  for (unsigned key = 0; key < keys_; ++key)
    for (const system::Hop& h : route_ ? route_(a, b, key) : s_.route(a, b, key)) ++taken[h.channel];
  std::map<unsigned, unsigned> per_res;
  for (const auto& [ch, n] : taken) per_res[res_of_[ch]] += n;
  for (const auto& [ch, n] : taken)
    if (n * members_[res_of_[ch]] != per_res[res_of_[ch]])
      throw std::logic_error(fmt::format("flow level: the routes from {} to {} take the links of {} unevenly",
                                         s_.nodes()[a].label, s_.nodes()[b].label, resource_name(res_of_[ch])));
  std::vector<std::pair<unsigned, double>> uses;
  for (const auto& [r, n] : per_res) uses.emplace_back(r, static_cast<double>(n) / keys_);
  return routes_.emplace(id, std::move(uses)).first->second;
}

double FlowModel::nic_gbps(unsigned a, unsigned b) const {
  if (c_.nic_gbps > 0) return c_.nic_gbps;
  const std::uint64_t id = static_cast<std::uint64_t>(a) * s_.chips() + b;
  if (auto it = nic_.find(id); it != nic_.end()) return it->second;
  const std::vector<system::Hop> r = s_.route(a, b);
  const double g = r.empty() ? std::numeric_limits<double>::infinity()
                             : (c_.link_gbps > 0 ? c_.link_gbps : s_.channel_gbps(r.front().channel));
  return nic_.emplace(id, g).first->second;
}

double FlowModel::latency_ns(unsigned a, unsigned b) const {
  if (a == b) return 0;
  const std::uint64_t id = static_cast<std::uint64_t>(a) * s_.chips() + b;
  auto it = lat_.find(id);
  if (it != lat_.end()) return it->second;
  double worst = 0;
  for (unsigned key = 0; key < keys_; ++key) {
    const std::vector<system::Hop> r = s_.route(a, b, key);
    const double hops = static_cast<double>(r.size());
    worst = std::max(worst, c_.hop_ns >= 0 ? c_.hop_ns * hops : s_.route_latency_ns(r) + c_.hop_add_ns * hops);
  }
  const double ns = c_.base_ns + worst;
  lat_.emplace(id, ns);
  return ns;
}

void FlowModel::uses(unsigned a, unsigned b, bool reduce, std::uint64_t payload, std::uint64_t wire,
                     std::vector<std::pair<unsigned, double>>& out, unsigned src_core, unsigned extra_hbm) const {
  out.clear();
  const unsigned base = chan_ + 4 * a, bb = chan_ + 4 * b;
  out.emplace_back(base + 0, 1.0);  // DMA
  if (rank_dma_) out.emplace_back(rank_dma_ + a * per_chip_ + src_core % per_chip_, 1.0);
  if (a == b) {
    out.emplace_back(base + 1, (reduce ? 3.0 : 2.0) + extra_hbm);  // HBM: read, (read,) write
    return;
  }
  const double wf = payload ? static_cast<double>(wire) / static_cast<double>(payload) : 1.0;
  out.emplace_back(base + 1, 1.0 + extra_hbm);
  for (const auto& [r, share] : route_uses(a, b)) out.emplace_back(r, wf * share);
  out.emplace_back(bb + 1, reduce ? 2.0 : 1.0);
  if (c_.nic_gbps > 0) {
    out.emplace_back(base + 2, wf);
    out.emplace_back(bb + 3, wf);
  }
}

unsigned chip_ranks(const system::System& s, const Config& c) {
  const system::ChipGen& gen = *s.design().gen;
  const unsigned lnc = c.lnc ? c.lnc : gen.lnc;
  if (lnc > 2 || gen.cores % lnc)
    throw Error(
        fmt::format("--lnc {}: a logical NeuronCore of {} takes 1 or 2 of its {} cores", lnc, gen.title, gen.cores));
  if (c.chip_ranks > gen.cores)
    throw Error(fmt::format("--chip-ranks {}: a {} has {} NeuronCores", c.chip_ranks, gen.title, gen.cores));
  if (c.chip_ranks > 1 && c.fidelity == Fidelity::cycle)
    throw Error("--chip-ranks: the cycle level's ranks are chips (a rank a chip)");
  return c.chip_ranks ? c.chip_ranks : c.fidelity == Fidelity::cycle ? 1 : gen.cores / lnc;
}

// ---------------------------------------------------------------- Run
Run::Run(const system::System& s, Config c) : s_(s), c_(std::move(c)) {
  const unsigned es = elem_bytes(c_.elem);
  check_elements("size", c_.bytes, c_.elem);
  check_elements("chunk", c_.chunk, c_.elem, true);
  if (c_.pkt_bytes < 16 || c_.pkt_bytes > 1024 || c_.pkt_bytes % 4)
    throw Error(fmt::format("packet size {} B: a multiple of 4 from 16 to 1024", c_.pkt_bytes));
  if (c_.body_bytes < 1 || c_.body_bytes > 1024)
    throw Error(fmt::format("body flit payload {} B: from 1 to 1024", c_.body_bytes));
  if (c_.inflight < 1 || c_.inflight > 64) throw Error(fmt::format("in flight {}: from 1 to 64", c_.inflight));
  if (c_.dma_queues < 1 || c_.dma_queues > 64) throw Error(fmt::format("DMA queues {}: from 1 to 64", c_.dma_queues));
  if (c_.routes > 1024) throw Error(fmt::format("routes {}: from 0 (every route key) to 1024", c_.routes));
  if (c_.desc_bytes < c_.pkt_bytes || c_.desc_bytes % c_.pkt_bytes)
    throw Error(fmt::format("descriptor size {} B: a multiple of the packet size {} B", c_.desc_bytes, c_.pkt_bytes));
  if (c_.fidelity == Fidelity::cycle && s.chips() > 255)  // before placing ranks on the chips
    throw Error(
        fmt::format("--fidelity cycle: {} has {} chips; a chip address names at most 255", s.preset().key, s.chips()));
  const unsigned per_chip = chip_ranks(s, c_);
  c_.chip_ranks = per_chip;
  if (c_.algo == Algo::automatic) {
    candidates_ = evaluate(s, c_);
    double best = 0;
    for (const Candidate& k : candidates_)
      if (k.time_ns > 0 && (best == 0 || k.time_ns < best)) {
        best = k.time_ns;
        c_.algo = k.algo;
      }
  }
  place_ = place(s, c_.ranks, c_.algo, per_chip);
  const unsigned n = static_cast<unsigned>(place_.chip.size());
  sched_ = build(c_.op, c_.algo, n, place_.levels, place_.rings, place_.stripes);
  // Symmetry: a hierarchy across the UltraServers of a planes system is the same in every
  // UltraServer, and with every transfer striped evenly over the spines (routes 0) and one HBM
  // latency every UltraServer's ranks do the same at the same time; its ring across the G
  // UltraServers (G even) then runs as well between two of them, UltraServer 2k + 1 sending to
  // 2k + 2 as 1 does to 0: each UltraServer's links up and down carry what they carry in the whole
  // (on planes the hierarchy's group of chips, hier_group, is the UltraServer: the outermost level
  // is then the ring across UltraServers)
  if (c_.fold && !c_.data && c_.fidelity == Fidelity::flow && c_.algo == Algo::hier && c_.routes == 0 &&
      c_.read_jitter <= 0 && s.preset().topo.kind == system::TopoKind::planes && hier_group(s) != 0 &&
      place_.levels.back() > 2 && place_.levels.back() % 2 == 0)
    fold_ = 2;
  const std::uint64_t count = c_.bytes / es;
  const unsigned segs = sched_.segments();
  seg_bytes_ = (count + segs - 1) / segs * es;
  const std::uint64_t region = seg_bytes_ * segs;
  regions_ = sched_.uses_scratch ? 3 : sched_.uses_out ? 2 : 1;
  // every rank's memory, and about as much again for the inputs and results a check compares
  if (c_.fidelity == Fidelity::cycle) cycle_system(s, c_, cycle_hbm_need());  // its refusals, now
  if (c_.data && 2 * region * regions_ * n > (std::uint64_t{8} << 30))
    throw Error(fmt::format("--check: {} B on each of {} ranks is too much to hold; run without it (timing only)",
                            region * regions_, n));
}

std::uint64_t Run::cycle_chunk(unsigned channels) const {
  const unsigned es = elem_bytes(c_.elem);
  std::uint64_t cs = chunk_bytes(c_.chunk, es, seg_bytes_, sched_.stripes);
  if ((seg_bytes_ + cs - 1) / cs < channels)
    cs = std::max<std::uint64_t>(es, (seg_bytes_ / es + channels - 1) / channels * es);
  return cs;
}

void Run::ensure_memory() {
  if (!c_.data) throw Error("this run moves no data");
  if (mem_.empty()) mem_.assign(ranks(), std::vector<std::uint8_t>(seg_bytes_ * sched_.segments() * regions_, 0));
}

Run::~Run() = default;

void Run::fill(std::uint64_t seed) {
  ensure_memory();
  std::mt19937_64 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  for (unsigned r = 0; r < ranks(); ++r) {
    std::vector<std::uint32_t> v(static_cast<std::size_t>(seg_elems()) * sched_.segments());
    for (auto& x : v) {
      const float f = d(g);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &f, 4);
      x = c_.elem == Elem::fp32 ? bits : numerics::encode(numerics::Format::bf16, bits);
    }
    set_input(r, v);
  }
}

std::vector<std::uint32_t> Run::input(unsigned rank) const {
  const unsigned es = elem_bytes(c_.elem);
  std::vector<std::uint32_t> v(static_cast<std::size_t>(seg_elems()) * sched_.segments());
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t x = 0;
    std::memcpy(&x, &mem_.at(rank)[i * es], es);
    v[i] = x;
  }
  return v;
}

void Run::set_input(unsigned rank, const std::vector<std::uint32_t>& codes) {
  ensure_memory();
  const unsigned es = elem_bytes(c_.elem);
  if (codes.size() != static_cast<std::size_t>(seg_elems()) * sched_.segments())
    throw std::invalid_argument("set_input: size");
  for (std::size_t i = 0; i < codes.size(); ++i) std::memcpy(&mem_.at(rank)[i * es], &codes[i], es);
}

std::vector<std::uint32_t> Run::output(unsigned rank) const {
  const unsigned es = elem_bytes(c_.elem), m = sched_.stripes;
  const std::uint64_t region = seg_bytes_ * sched_.segments();
  std::uint64_t off = 0, len = region;
  if (c_.op == Op::reduce_scatter) {  // its share: its stripes
    off = std::uint64_t{rank} * m * seg_bytes_;
    len = m * seg_bytes_;
  } else if (c_.op == Op::all_to_all || c_.op == Op::permute) {
    off = region;
  }
  std::vector<std::uint32_t> v(len / es);
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t x = 0;
    std::memcpy(&x, &mem_.at(rank)[off + i * es], es);
    v[i] = x;
  }
  return v;
}

// ---------------------------------------------------------------- the engine
class Run::Engine : public Sink {
 public:
  Engine(Run& run, const FlowModel& fm) : run_(run), c_(run.c_), S_(run.sched_), fm_(fm) {
    n_ = S_.ranks;
    cs_ = chunk_bytes(c_.chunk, elem_bytes(c_.elem), run.seg_bytes_, S_.stripes);
    C_ = (run.seg_bytes_ + cs_ - 1) / cs_;
    region_ = run.seg_bytes_ * S_.segments();
    ranks_.resize(n_);
    usage_.assign(fm.resources(), 0.0);
    be_ = make_flow_backend(fm, c_);
    if (c_.cost) {
      const system::CollectiveCost& cc = run.s_.design().gen->cc;
      launch_ns_ = cc.launch_us * 1e3;
      step_ns_ = cc.step_us * 1e3;
      dge_ns_ = cc.dge_ns;
    }
    dge_free_.assign(n_, 0.0);
  }

  Result go() {
    const auto t0 = std::chrono::steady_clock::now();
    auto last = t0;
    now_ = launch_ns_;       // the runtime starts the collective cores
    std::uint64_t runs = 0;  // the ranks that run (Config::fold)
    for (unsigned r = 0; r < n_; ++r) {
      if (!run_.runs_rank(r)) continue;
      ++runs;
      for (unsigned k = 0; k < c_.inflight && ranks_[r].next < C_; ++k) admit(r);
    }
    const std::uint64_t total = runs * C_, T = std::max(1u, S_.rounds());
    while (done_ < total) {
      if (be_->idle())
        throw std::logic_error(fmt::format("collective: nothing in flight with {} of {} rank-instances done ({})",
                                           done_, total, waiting()));
      now_ = be_->step(*this);
      if (c_.stop_after_ns > 0 && now_ > c_.stop_after_ns) {  // slower than that already
        Result res;
        res.algo = c_.algo;
        res.ranks = n_;
        res.stopped = true;
        res.time_ns = now_;
        return res;
      }
      if (c_.progress) {
        const auto t = std::chrono::steady_clock::now();
        if (t - last > std::chrono::seconds(1)) {
          last = t;
          c_.progress(
              fmt::format("{:.1f} us simulated, {:.1f} % of the ranks' rounds started, {} of {} "
                          "rank-instances done, {:.0f} s",
                          now_ / 1e3, 100.0 * static_cast<double>(started_) / static_cast<double>(total * T), done_,
                          total, std::chrono::duration<double>(t - t0).count()));
        }
      }
    }
    Result res;
    res.algo = c_.algo;
    res.describe = S_.describe;
    const unsigned outer = run_.fold_ ? run_.place_.levels.back() : 1;
    if (run_.fold_)
      res.describe += fmt::format("; {} of the {} UltraServers run, the others alike (symmetry)", run_.fold_, outer);
    res.level = run_.place_.level;
    res.ranks = n_;
    res.rounds = S_.rounds();
    res.instances = static_cast<unsigned>(C_);
    res.chunk_bytes = cs_;
    res.time_ns = end_ns_;
    // with the fold, every outermost member's transfers are its stand-in's
    const std::uint64_t alike = run_.fold_ ? outer / run_.fold_ : 1;
    res.transfers = transfers_ * alike;
    res.descriptors = descriptors_ * alike;
    res.alpha_ns = launch_ns_ + critical_path();
    unsigned best = 0;
    for (unsigned r = 0; r < usage_.size(); ++r) {
      const double b = usage_[r] / fm_.capacity(r);
      if (b > res.beta_ns) {
        res.beta_ns = b;
        best = r;
      }
    }
    res.busiest = fm_.resource_name(best);
    res.violations = std::move(violations_);
    be_->finish(res);
    return res;
  }

  // ---- Sink
  void read(std::uint32_t send, std::uint64_t off, std::uint64_t bytes, std::uint8_t* to) const override {
    if (bytes == 0) return;
    const Send& s = sends_.at(send);
    const auto& m = run_.mem_.at(s.src);
    std::memcpy(to, &m.at(off), bytes);
    if (s.src2 == kNoRank) return;
    // the second source's same bytes, added on the way (the sender's first)
    const auto& m2 = run_.mem_.at(s.src2);
    const unsigned es = elem_bytes(c_.elem);
    for (std::uint64_t i = 0; i < bytes; i += es) {
      std::uint32_t a = 0, b = 0;
      std::memcpy(&a, to + i, es);
      std::memcpy(&b, &m2.at(off + i), es);
      const std::uint32_t y = dma::acc_add(c_.elem == Elem::bf16, a, b);
      std::memcpy(to + i, &y, es);
    }
  }
  void landed(std::uint32_t id, std::uint64_t off, std::uint64_t bytes, const std::uint8_t* data, bool reduce,
              double) override {
    Send& s = sends_.at(id);
    s.landed += bytes;
    if (s.signalled && s.landed >= s.bytes) free_.push_back(id);  // its semaphore came first
    if (!data || bytes == 0 || run_.mem_.empty()) return;
    if (s.dst2 != kNoRank) {  // the duplicated write (a copy: submit() checks)
      auto& m2 = run_.mem_[s.dst2];
      if (off + bytes > m2.size()) throw std::logic_error("collective: a write beyond the rank's memory");
      std::memcpy(&m2[off], data, bytes);
    }
    auto& m = run_.mem_[s.dst];
    if (off + bytes > m.size()) throw std::logic_error("collective: a write beyond the rank's memory");
    if (!reduce) {
      std::memcpy(&m[off], data, bytes);
      return;
    }
    const unsigned es = elem_bytes(c_.elem);
    for (std::uint64_t i = 0; i < bytes; i += es) {
      std::uint32_t a = 0, b = 0;
      std::memcpy(&a, &m[off + i], es);
      std::memcpy(&b, data + i, es);
      const std::uint32_t y = dma::acc_add(c_.elem == Elem::bf16, a, b);
      std::memcpy(&m[off + i], &y, es);
    }
  }
  void signalled(std::uint32_t id, double ns) override {
    // the record is reused once the transfer's data has all landed (under write-after-write a
    // semaphore may come first: then the last data write frees it)
    sends_.at(id).signalled = true;
    Send s = sends_[id];
    if (s.landed >= s.bytes) free_.push_back(id);
    now_ = ns;
    if (s.flag) {
      Rank& R = ranks_[s.dst];
      const std::uint64_t k = key3(s.inst, s.round, s.src);
      bool once = false;
      S_.gate(s.round, once);
      auto h = R.held.find(k);
      if (h == R.held.end() || once) R.flags.insert(k);  // a phase-wide flag keeps gating later rounds
      if (h != R.held.end()) {
        const std::vector<std::pair<Xfer, unsigned>> xs = std::move(h->second);
        R.held.erase(h);
        for (const auto& [x, round] : xs) submit(x, s.inst, round);
      }
      return;
    }
    if (s.landed != s.bytes) {
      Violation v{ns, s.src, s.dst, s.inst, s.round, s.landed, s.bytes};
      if (c_.stop_on_violation) throw std::runtime_error("collective ordering checker: " + v.str());
      violations_.push_back(v);
    }
    ++ranks_[s.dst].arrived[key(s.inst, s.round)];
    if (s.dst2 != kNoRank) ++ranks_[s.dst2].arrived[key(s.inst, s.round)];
    auto& src_active = ranks_[s.src].active;
    auto it = src_active.find(s.inst);
    if (it == src_active.end()) throw std::logic_error("collective: a transfer of an instance that is not running");
    --it->second.open;
    advance(s.dst, s.inst);
    if (s.dst2 != kNoRank) advance(s.dst2, s.inst);
    if (s.src != s.dst) advance(s.src, s.inst);
  }

 private:
  struct Send {
    unsigned src = 0, dst = 0, inst = 0, round = 0;
    std::uint64_t bytes = 0, landed = 0;
    bool flag = false;  // a ready flag from src (the receiver of round `round`) to dst
    bool signalled = false;
    unsigned src2 = kNoRank, dst2 = kNoRank;  // Xfer::src2, Xfer::dst2
  };
  struct Inst {
    unsigned round = 0, open = 0;
  };
  struct Rank {
    std::uint64_t next = 0;
    std::unordered_map<std::uint64_t, Inst> active;
    std::unordered_map<std::uint64_t, unsigned> arrived;  // (instance, round) -> transfers signalled
    std::unordered_set<std::uint64_t> flags;              // (instance, round, receiver): ready flags seen
    std::unordered_map<std::uint64_t, std::vector<std::pair<Xfer, unsigned>>>
        held;  // (instance, round, receiver): waiting
               // for its flag, with their rounds
  };
  static std::uint64_t key3(std::uint64_t inst, unsigned round, unsigned peer) {
    return inst << 40 | static_cast<std::uint64_t>(round) << 20 | peer;
  }
  static std::uint64_t key(std::uint64_t inst, unsigned round) { return inst << 20 | round; }
  unsigned arrived(unsigned r, std::uint64_t inst, unsigned round) const {
    auto it = ranks_[r].arrived.find(key(inst, round));
    return it == ranks_[r].arrived.end() ? 0 : it->second;
  }

  void admit(unsigned r) {
    const std::uint64_t c = ranks_[r].next++;
    ranks_[r].active.emplace(c, Inst{});
    advance(r, c);
  }

  void advance(unsigned r, std::uint64_t c) {
    Rank& R = ranks_[r];
    auto it = R.active.find(c);
    if (it == R.active.end()) return;
    Inst& I = it->second;
    const unsigned T = S_.rounds();
    for (;;) {
      if (I.round > 0 && arrived(r, c, I.round - 1) < S_.expect(r, I.round - 1)) return;
      if (I.round == T) {
        if (I.open) return;
        R.arrived.erase(key(c, T - 1));
        R.active.erase(it);
        ++done_;
        end_ns_ = std::max(end_ns_, now_);
        if (R.next < C_) admit(r);
        return;
      }
      if (I.round > 0) R.arrived.erase(key(c, I.round - 1));
      issue(r, c, I);
      ++started_;
      ++I.round;
    }
  }

  /// The DMA queue of instance inst's transfers from rank a to rank b: each core pair its own queues.
  /// When rank r's next transfer starts (Config::cost): after its collective core's step, and
  /// after the descriptors of the transfers it started before (one DGE instruction each, in turn).
  double start_at(unsigned r) {
    if (!c_.cost) return now_;
    const double t = std::max(now_ + step_ns_, dge_free_[r]) + dge_ns_;
    dge_free_[r] = t;
    return t;
  }

  unsigned queue(std::uint64_t inst, unsigned a, unsigned b) const {
    const Placement& p = run_.place_;
    return (p.core[a] * p.per_chip + p.core[b]) * c_.dma_queues + static_cast<unsigned>(inst % c_.dma_queues);
  }

  std::uint64_t region_off(Region g) const { return static_cast<std::uint64_t>(g) * region_; }

  std::uint32_t new_send() {
    if (!free_.empty()) {
      const std::uint32_t id = free_.back();
      free_.pop_back();
      return id;
    }
    sends_.emplace_back();
    return static_cast<std::uint32_t>(sends_.size() - 1);
  }

  void issue(unsigned r, std::uint64_t c, Inst& I) {
    const unsigned t = I.round;
    bool once = false;
    const int g = S_.gate(t, once);
    if (g == static_cast<int>(t)) {
      // tell the ranks that add into this one from this round on that it is ready for them
      peers_.clear();
      S_.senders(r, t, peers_);
      for (unsigned& q : peers_) q = run_.stand_in(q);
      for (unsigned q : peers_) {
        const std::uint32_t id = new_send();
        sends_[id] = Send{r, q, static_cast<unsigned>(c), t, 0, 0, true, false};
        const Desc d{id,   run_.place_.chip[r], run_.place_.chip[q], 0, 0, 0, false,
                     true, queue(c, r, q),      run_.place_.core[r]};
        be_->submit(std::vector<Desc>{d}, start_at(r));
      }
    }
    xs_.clear();
    S_.sends(r, t, xs_);
    for (Xfer& x : xs_) {
      x.dst = run_.stand_in(x.dst);
      ++I.open;
      if (g >= 0 && x.dst != r) {
        Rank& R = ranks_[r];
        const std::uint64_t k = key3(c, static_cast<unsigned>(g), x.dst);
        auto h = R.held.find(k);
        const bool seen = h == R.held.end() && (once ? R.flags.count(k) > 0 : R.flags.erase(k) > 0);
        if (!seen) {
          R.held[k].emplace_back(std::move(x), t);
          continue;
        }
      }
      submit(x, c, t);
    }
  }

  void submit(const Xfer& x, std::uint64_t c, unsigned t) {
    const std::uint64_t lo = c * cs_, len = std::min(cs_, run_.seg_bytes_ - lo);
    const std::uint64_t seg = run_.seg_bytes_;
    const std::uint32_t id = new_send();
    const unsigned a = run_.place_.chip[x.src], b = run_.place_.chip[x.dst];
    for (unsigned r : {x.src2, x.dst2})
      if (r != kNoRank && run_.place_.chip[r] != a)
        throw std::logic_error("collective: a second source or destination off the sender's chip");
    if (x.dst2 != kNoRank && (x.reduce || x.dst_reg != Region::data))
      throw std::logic_error("collective: a duplicated write is a copy into the data region");
    const unsigned extra = (x.src2 != kNoRank ? 1 : 0) + (x.dst2 != kNoRank ? 1 : 0);
    // contiguous runs: when an instance is the whole segment a piece's segments are one run,
    // otherwise each segment gives a slice (adjacent slices merge)
    runs_.clear();
    for (const Piece& p : x.pieces) {
      const unsigned step = len == seg ? p.count : 1;
      for (unsigned k = 0; k < p.count; k += step) {
        const std::uint64_t so = region_off(x.src_reg) + (p.src_seg + k) * seg + lo;
        const std::uint64_t d = region_off(x.dst_reg) + (p.dst_seg + k) * seg + lo;
        if (!runs_.empty() && runs_.back().src_off + runs_.back().bytes == so &&
            runs_.back().dst_off + runs_.back().bytes == d)
          runs_.back().bytes += step * len;
        else
          runs_.push_back(Desc{id, a, b, so, d, step * len, x.reduce, false, queue(c, x.src, x.dst),
                               run_.place_.core[x.src], extra});
      }
    }
    // the descriptors the transfer takes (of at most desc_bytes each); the flow level moves each run
    // of the transfer as one flow
    descs_.clear();
    std::uint64_t total = 0, wire = 0, ndesc = 0;
    for (const Desc& run : runs_) {
      total += run.bytes;
      wire += wire_bytes(run.bytes, c_.pkt_bytes, c_.body_bytes);
      ndesc += (run.bytes + c_.desc_bytes - 1) / c_.desc_bytes;
      descs_.push_back(run);
    }
    sends_[id] = Send{x.src, x.dst, static_cast<unsigned>(c), t, total, 0, false, false, x.src2, x.dst2};
    ++transfers_;
    descriptors_ += ndesc;
    // the bound: every byte on its resources; the zero-load latency of instance 0's rounds
    fm_.uses(a, b, x.reduce, total, wire + (a != b ? kFlitBytes : 0), uses_, run_.place_.core[x.src], extra);
    for (const auto& [res, w] : uses_) usage_[res] += w * static_cast<double>(total);
    be_->submit(descs_, start_at(x.src));
  }

  /// The zero-load critical path of an instance: a rank's round starts when the transfers of the
  /// round before addressed to it have landed; a transfer lands its HBM read and its route's
  /// latency after its round started (ready flags and bandwidth left out: a lower bound on every
  /// instance's time).
  double critical_path() const {
    std::vector<double> ready(n_, 0.0), next;
    std::vector<Xfer> xs;
    for (unsigned t = 0; t < S_.rounds(); ++t) {
      next = ready;
      for (unsigned r = 0; r < n_; ++r) {
        if (!run_.runs_rank(r)) continue;
        xs.clear();
        S_.sends(r, t, xs);
        for (const Xfer& x : xs) {
          const unsigned dst = run_.stand_in(x.dst);
          const double lat = fm_.latency_ns(run_.place_.chip[x.src], run_.place_.chip[dst]);
          for (unsigned d : {dst, x.dst2})  // the duplicated write lands with the first
            if (d != kNoRank) next[d] = std::max(next[d], ready[r] + step_ns_ + dge_ns_ + fm_.read_ns() + lat);
        }
      }
      ready.swap(next);
    }
    return *std::max_element(ready.begin(), ready.end());
  }

  std::string waiting() const {
    for (unsigned r = 0; r < n_; ++r)
      for (const auto& [c, I] : ranks_[r].active)
        return fmt::format("rank {} instance {} at round {} with {} transfers open", r, c, I.round, I.open);
    return "no rank active";
  }

  Run& run_;
  const Config& c_;
  const Schedule& S_;
  const FlowModel& fm_;
  std::unique_ptr<Backend> be_;
  unsigned n_ = 0;
  std::uint64_t cs_ = 0, C_ = 0, region_ = 0;
  std::vector<Rank> ranks_;
  std::vector<Send> sends_;
  std::vector<std::uint32_t> free_;
  std::vector<Xfer> xs_;
  std::vector<unsigned> peers_;
  std::vector<Desc> runs_, descs_;
  std::vector<std::pair<unsigned, double>> uses_;
  std::vector<double> usage_;
  std::vector<Violation> violations_;
  std::uint64_t done_ = 0, transfers_ = 0, descriptors_ = 0;
  std::uint64_t started_ = 0;  // rounds a rank has started, over every rank and instance (progress)
  double now_ = 0, end_ns_ = 0;
  double launch_ns_ = 0, step_ns_ = 0, dge_ns_ = 0;
  std::vector<double> dge_free_;  // per rank: when its descriptor generation is free
};

Result Run::run() {
  if (c_.data) ensure_memory();
  Result r;
  if (c_.fidelity == Fidelity::cycle) {
    r = run_cycle();
  } else {
    FlowModel fm(s_, c_);
    Engine e(*this, fm);
    r = e.go();
  }
  r.candidates = candidates_;
  return r;
}

std::vector<Candidate> evaluate(const system::System& s, const Config& c) {
  struct Trial {
    std::size_t at;  // its candidate
    std::unique_ptr<Run> run;
  };
  std::vector<Candidate> out;
  std::vector<Trial> trials;
  const system::CollectiveCost& cc = s.design().gen->cc;
  const double read_ns = s.design().hbm.empty() ? 0 : s.design().hbm[0].latency_ns;
  const double launch_ns = c.cost ? cc.launch_us * 1e3 : 0,
               round_ns = (c.cost ? cc.step_us * 1e3 + cc.dge_ns : 0) + read_ns;
  for (Algo a : kAlgos) {
    Config k = c;
    k.algo = a;
    k.data = false;
    k.fidelity = Fidelity::flow;
    k.chip_ranks = c.chip_ranks ? c.chip_ranks : chip_ranks(s, c);
    if (c.progress)  // a long evaluation says which candidate it runs
      k.progress = [report = c.progress, a](const std::string& m) {
        report(fmt::format("auto, running {}: {}", algo_name(a), m));
      };
    Candidate cd;
    cd.algo = a;
    try {
      auto run = std::make_unique<Run>(s, k);
      cd.floor_ns = launch_ns + run->schedule().rounds() * round_ns;
      if (a == Algo::mesh && run->ranks() > kMeshRanks && c.op != Op::permute)
        cd.skipped = fmt::format("{} ranks, more than {}: a transfer every rank pair at once is too slow to model here",
                                 run->ranks(), kMeshRanks);
      else if (a == Algo::rings && s.preset().topo.kind != system::TopoKind::torus)
        cd.skipped = "a switched system: every transfer of a ring already spreads over its link groups both ways";
      else
        trials.push_back({out.size(), std::move(run)});
    } catch (const Error& e) {
      cd.skipped = e.what();
    }
    out.push_back(std::move(cd));
  }
  // the least work to model first (the ranks that run times the rounds; ties: the lower floor), so
  // that the best time found early stops the others: one whose floor is above it is not run, one
  // whose simulated time passes it stops there (trn4-uc's 393,216 ranks: rdh, every rank, after
  // hier, two UltraServers for all)
  auto work = [](const Trial& x) {
    return static_cast<double>(x.run->running_ranks()) * std::max(1u, x.run->schedule().rounds());
  };
  std::stable_sort(trials.begin(), trials.end(), [&](const Trial& x, const Trial& y) {
    const double wx = work(x), wy = work(y);
    return wx != wy ? wx < wy : out[x.at].floor_ns < out[y.at].floor_ns;
  });
  double best = 0;
  for (Trial& t : trials) {
    Candidate& cd = out[t.at];
    if (best > 0 && cd.floor_ns >= best) {
      cd.skipped =
          fmt::format("its latency floor {:.1f} us is above the best time {:.1f} us", cd.floor_ns / 1e3, best / 1e3);
      continue;
    }
    t.run->stop_after(best);
    const Result r = t.run->run();
    if (r.stopped) {
      cd.skipped = fmt::format("stopped at {:.1f} us simulated, slower than the best time {:.1f} us", r.time_ns / 1e3,
                               best / 1e3);
      continue;
    }
    cd.time_ns = r.time_ns;
    if (best == 0 || cd.time_ns < best) best = cd.time_ns;
  }
  if (best == 0) {
    std::string why;
    for (const Candidate& cd : out)
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", algo_name(cd.algo), cd.skipped);
    throw Error(fmt::format("{}: no algorithm can run ({})", op_name(c.op), why));
  }
  return out;
}

}  // namespace trn::collective
