// Bench for rtl/mem/sbuf.sv in lockstep with trn::mem::Sbuf.
// Scoreboard: a reference byte image (trn::dma::Image, whose apply() is the DMA path's copy and
// accumulate arithmetic) takes every accepted write in the cycle it is accepted; every read is
// checked, the cycle after it was accepted, against the reference as it stood when it was accepted
// (a read sees the writes of earlier cycles). At the end every word is read back through an
// engine port. Traffic: random requests on the DMA ports and every engine port (elements of 4
// bits, 1, 2 and 4 bytes), each held until accepted.
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dma/memsys.hpp"
#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "mem/elements.hpp"
#include "mem/sbuf.hpp"
#include "sbuf_ports.hpp"

using namespace trn;
using namespace trn::tb;
using trn::dma::Image;
using trn::dma::Space;
using trn::mem::Sbuf;
using trn::sv::sbuf_pkg::esize_e;

namespace {

/// The bench build broken for the self-tests: no stage-2 forwarding (Forward = 0), and engine ports
/// that claim their bank only after 1000 refused cycles (Starve = 1000).
constexpr bool kBroken = std::string_view(TRN_BENCH_NAME) == "sbuf_broken";
constexpr unsigned kEPorts = 8, kStarve = 8;

Sbuf::Params params_of(const Env& e) {
  const auto& a = e.cfg().arch;
  return Sbuf::Params{a.partitions, a.sbuf_bytes_per_partition, a.dma_beat_bytes, a.sbuf_banks,
                      kEPorts,      kBroken ? 1000u : kStarve};
}
/// The longest an engine request may be refused (docs/sbuf.md): Starve cycles before it claims its
/// bank, one more for a stage-2 write already under way, then one grant to each other engine port.
constexpr unsigned kWaitBound = kStarve + 1 + (kEPorts - 1);

struct DwReq {
  bool col = false, acc = false;
  unsigned esize = 1, n = 0;
  std::uint32_t addr = 0;
  std::vector<std::uint8_t> data;
};
struct DrReq {
  std::uint32_t addr = 0;
  unsigned bytes = 0;
};
/// An engine request: element idx of 2^es nibbles (es: 0 = 4 bits .. 3 = 4 bytes) in every partition.
struct EReq {
  bool we = false;
  unsigned es = 3;
  std::uint32_t idx = 0;
  std::vector<bool> mask;
  std::vector<std::uint32_t> wdata;
  unsigned bits() const { return 4u << es; }
};

/// What the random traffic offers: per-cycle chances of a new request on each port, the share of
/// accumulates and columns among DMA writes, and how often an address falls in a few hot lines.
struct Traffic {
  double p_dw = 0.5, p_dr = 0.4, p_e = 0.4, p_acc = 0.5, p_col = 0.3, p_hot = 0.5, p_ewe = 0.5;
  unsigned hot_lines = 2;
  unsigned parts = 0;                         ///< requests in partitions [0, parts) only (0: all)
  bool full = false;                          ///< DMA rows are whole aligned lines
  std::uint64_t e_ports = ~std::uint64_t{0};  ///< the engine ports that offer requests
  bool e_word = false;                        ///< engine elements of 4 bytes only
};

// ---- functional coverage: the requesters of a cycle (0 the DMA write, 1 the DMA read, 2 + i engine
// port i) and their bins.
constexpr unsigned kRequesters = 2 + kEPorts;
std::string requester_name(unsigned r) { return r == 0 ? "dw" : r == 1 ? "dr" : "e" + std::to_string(r - 2); }
/// Bins "a-b" of every pair of requesters a < b, in the order of pair_index.
std::vector<std::string> requester_pairs() {
  std::vector<std::string> v;
  for (unsigned a = 0; a < kRequesters; ++a)
    for (unsigned b = a + 1; b < kRequesters; ++b) v.push_back(requester_name(a) + "-" + requester_name(b));
  return v;
}
std::size_t pair_index(unsigned a, unsigned b) {  // a < b
  return std::size_t{a} * kRequesters - std::size_t{a} * (a + 1) / 2 + (b - a - 1);
}
/// What uses a bank (docs/sbuf.md, Arbitration): stage 2 of the read-add-write unit, a DMA
/// accumulate, a DMA copy, the DMA read, an engine read, an engine write; the bins of every pair of
/// them that can meet on a bank in one cycle.
enum Use : unsigned { kS2, kAcc, kCopy, kDr, kEr, kEw };
const std::vector<std::string> kUsePairs = {"s2-acc", "s2-copy", "s2-dr",   "s2-er",   "s2-ew",   "acc-dr",
                                            "acc-er", "acc-ew",  "copy-dr", "copy-er", "copy-ew", "dr-er",
                                            "dr-ew",  "er-er",   "er-ew",   "ew-ew"};
int use_pair(unsigned a, unsigned b) {
  if (a > b) std::swap(a, b);
  static constexpr int t[6][6] = {{-1, 0, 1, 2, 3, 4},      {-1, -1, -1, 5, 6, 7},    {-1, -1, -1, 8, 9, 10},
                                  {-1, -1, -1, -1, 11, 12}, {-1, -1, -1, -1, 13, 14}, {-1, -1, -1, -1, -1, 15}};
  return t[a][b];
}

/// An FP32 value near 1 (so sums do not all saturate), now and then a special or subnormal.
std::uint32_t value32(Rng& r) {
  if (r.chance(1.0 / 32)) {
    static const std::uint32_t sp[] = {0x0u,        0x80000000u, 0x7F800000u, 0xFF800000u,
                                       0x7FC00000u, 0x00000123u, 0x7F7FFFFFu};
    return sp[r.below(std::size(sp))];
  }
  const std::uint32_t sign = static_cast<std::uint32_t>(r.below(2)) << 31;
  const std::uint32_t exp = static_cast<std::uint32_t>(r.range(118, 136)) << 23;
  return sign | exp | static_cast<std::uint32_t>(r.below(1u << 23));
}
/// A BF16 value of the same kind.
std::uint16_t value16(Rng& r) { return static_cast<std::uint16_t>(value32(r) >> 16); }

struct SbufBench {
  Env& env;
  Signal& rst;
  Clock clk;
  Sbuf::Params prm;
  Sbuf model;
  Lockstep<Sbuf> lockstep;
  dma::Geometry geo;
  Image ref;
  Rng rng;
  Traffic traffic;
  bool random_traffic = false;
  bool with_model = true;  ///< lockstep with the model (the self-test runs the scoreboard alone)
  std::optional<DwReq> dw;
  std::optional<DrReq> dr;
  std::vector<std::optional<EReq>> e;  ///< per engine port
  bool dw_took = false, dr_took = false;
  std::uint64_t e_took = 0;
  // the reference data of the reads accepted in the cycle before, due in this one
  std::optional<std::vector<std::uint8_t>> dr_due;
  unsigned dr_id = 0, dr_due_id = 0;                             ///< the id of the next DMA read, and of the one due
  std::vector<std::optional<std::vector<std::uint32_t>>> e_due;  ///< per engine port
  struct Readies {
    bool dw, dr;
    std::uint64_t e;        ///< bit i: engine port i
    std::uint64_t dr_busy;  ///< dr_busy_o: the banks refusing a DMA read
    bool e0() const { return e & 1; }
  };
  std::vector<Readies> log;  ///< every cycle's ready outputs, for the directed arbitration test
  struct Stats {
    std::uint64_t cycles = 0, copies = 0, accs = 0, dr = 0, e_rd = 0, e_wr = 0, acc_chained = 0, refused = 0;
    unsigned e_wait_max = 0;  ///< the longest an engine request waited for its grant (cycles)
  } st;
  std::optional<DwReq> last_acc;  // the accumulate accepted in the previous cycle
  std::vector<unsigned> e_wait;   ///< cycles each engine port's request has waited

  // ---- functional coverage (docs/sbuf.md), sampled in serve() from the requests the bench offers
  // (dw, dr, e: what the request ports carry), the readies and last_acc (the accumulate accepted in
  // the cycle before: stage 2). Banks as docs/sbuf.md maps them: line l of a partition in bank
  // l % Banks. (A run of self-tests only, as on sbuf_broken, writes no coverage: the harness.)
  /// Every cycle: each pair of request ports whose requests touch a common bank.
  CoverPoint& cov_pairs = cover_point("sbuf.bank_collision.ports", requester_pairs());
  /// Every cycle: the same by use (stage 2, accumulate, copy, DMA read, engine read, engine write),
  /// the arbitration's cases.
  CoverPoint& cov_uses = cover_point("sbuf.bank_collision.uses", kUsePairs);
  /// An accumulate accepted in the cycle after another: its type, and whether it touches the first
  /// one's banks or bytes (the stage-2 forwarding).
  CoverPoint& cov_acc_b2b =
      cover_cross("sbuf.acc_back_to_back", {{"bf16", "fp32"}, {"other_bank", "same_bank", "overlapping"}});
  /// A request accepted that touches the last byte of the memory (last partition, last offset).
  CoverPoint& cov_last =
      cover_point("sbuf.last_address", {"dma_copy", "dma_accumulate", "dma_read", "engine_read", "engine_write"});
  /// An engine port's claim on its bank: refused Starve cycles in a row (e_valid_i, e_ready_o).
  CoverPoint& cov_claim = cover_cross("sbuf.engine_claim", {cover_names("e", kEPorts), {"read", "write"}});
  /// A DMA request offered on a bank an engine port claims (the DUT must refuse it).
  CoverPoint& cov_claim_dma = cover_point("sbuf.claim_holds_dma", {"dma_copy", "dma_accumulate", "dma_read"});
  std::vector<unsigned> claim_wait = std::vector<unsigned>(kEPorts, 0);  ///< refused cycles in a row, per port

  Clock::HookId hook;

  explicit SbufBench(Env& en)
      : env(en),
        rst(en.sig("rst_ni")),
        clk(en.sig("clk_i"), 10),
        prm(params_of(en)),
        model(prm),
        lockstep(en, clk, model),
        geo(dma::Geometry::make(1024, prm.parts, prm.part_bytes, prm.beat_bytes)),
        ref(geo),
        rng(en.rng("traffic")),
        e(prm.eports),
        e_due(prm.eports),
        e_wait(prm.eports, 0) {
    hook = clk.add_pre_edge_hook([this] { serve(); });
  }
  ~SbufBench() { clk.remove_hook(hook); }

  std::uint32_t addr(unsigned part, std::uint32_t off) const { return geo.sbuf_addr(part, off); }
  unsigned B() const { return prm.beat_bytes; }
  bool sig(const char* n) const { return env.sig(n).get() & 1; }

  /// Do the bytes two DMA writes cover overlap (an accumulate chained on the one before)?
  bool overlaps(const DwReq& a, const DwReq& b) const {
    auto bytes = [&](const DwReq& w) {
      std::vector<std::uint64_t> v;
      if (!w.col)
        for (unsigned k = 0; k < w.n; ++k) v.push_back(geo.sbuf_index(w.addr + k));
      else
        for (unsigned k = 0; k < w.n; ++k)
          for (unsigned i = 0; i < w.esize; ++i)
            v.push_back(geo.sbuf_index(addr(geo.part_of(w.addr) + k, geo.off_of(w.addr) + i)));
      return v;
    };
    const auto x = bytes(a), y = bytes(b);
    return std::any_of(x.begin(), x.end(),
                       [&](std::uint64_t i) { return std::find(y.begin(), y.end(), i) != y.end(); });
  }

  /// The settled values of the cycle that ends: the read data due now, then this cycle's grants.
  void serve() {
    if (!(rst.get() & 1)) return;
    ++st.cycles;
    check(sig("dr_rvalid_o") == dr_due.has_value(), "cycle {}: DMA read data valid {}, expected {}", clk.cycle(),
          sig("dr_rvalid_o"), dr_due.has_value());
    if (dr_due) {
      check(env.sig("dr_rid_o").get() == dr_due_id, "cycle {}: DMA read id {}, expected {}", clk.cycle(),
            env.sig("dr_rid_o").get(), dr_due_id);
      const Bits d = env.sig("dr_rdata_o").bits();
      for (unsigned b = 0; b < B(); ++b)
        check(d.slice(8 * b, 8) == (*dr_due)[b], "cycle {}: DMA read byte {}: {:#04x}, reference {:#04x}", clk.cycle(),
              b, d.slice(8 * b, 8), (*dr_due)[b]);
    }
    const std::uint64_t rvalid = env.sig("e_rvalid_o").get();
    const Bits ed = env.sig("e_rdata_o").bits();
    for (unsigned i = 0; i < prm.eports; ++i) {
      check(((rvalid >> i) & 1) == e_due[i].has_value(), "cycle {}: engine port {} read data valid {}, expected {}",
            clk.cycle(), i, (rvalid >> i) & 1, e_due[i].has_value());
      if (e_due[i])
        for (unsigned p = 0; p < prm.parts; ++p)
          check(ed.slice(32 * (i * prm.parts + p), 32) == (*e_due[i])[p],
                "cycle {}: engine port {} read partition {}: {:#010x}, reference {:#010x}", clk.cycle(), i, p,
                ed.slice(32 * (i * prm.parts + p), 32), (*e_due[i])[p]);
    }
    const Readies rd{sig("dw_ready_o"), sig("dr_ready_o"), env.sig("e_ready_o").get(), env.sig("dr_busy_o").get()};
    log.push_back(rd);
    dw_took = dw && rd.dw;
    dr_took = dr && rd.dr;
    e_took = 0;
    for (unsigned i = 0; i < prm.eports; ++i) {
      const bool ready = (rd.e >> i) & 1;
      check(!ready || e[i], "cycle {}: engine port {} ready without a request", clk.cycle(), i);
      if (!e[i]) continue;
      if (ready) {
        e_took |= std::uint64_t{1} << i;
        st.e_wait_max = std::max(st.e_wait_max, e_wait[i]);
        e_wait[i] = 0;
      } else {
        ++e_wait[i];
        ++st.refused;
      }
    }
    st.refused += (dw && !rd.dw) + (dr && !rd.dr);
    sample();
    // reads first: they see the writes of earlier cycles
    dr_due.reset();
    for (auto& d : e_due) d.reset();
    if (dr_took) {
      std::vector<std::uint8_t> v(B(), 0);
      for (unsigned b = 0; b < dr->bytes; ++b) v[b] = ref.at(Space::sbuf, dr->addr + b);
      dr_due = v;
      dr_due_id = dr_id;
      dr_id = (dr_id + 1) & 0xFF;
      ++st.dr;
    }
    for (unsigned i = 0; i < prm.eports; ++i) {
      if (!((e_took >> i) & 1) || e[i]->we) continue;
      std::vector<std::uint32_t> v(prm.parts);
      for (unsigned p = 0; p < prm.parts; ++p) v[p] = ref_elem(p, *e[i]);
      e_due[i] = v;
      ++st.e_rd;
    }
    for (unsigned i = 0; i < prm.eports; ++i) {
      if (!((e_took >> i) & 1) || !e[i]->we) continue;
      for (unsigned p = 0; p < prm.parts; ++p)
        if (e[i]->mask[p]) ref_store(p, *e[i], e[i]->wdata[p]);
      ++st.e_wr;
    }
    if (dw_took) {
      dma::Write w;
      w.space = Space::sbuf;
      w.col = dw->col;
      w.esize = dw->esize;
      w.addr = dw->addr;
      w.n = dw->n;
      w.acc = dw->acc;
      w.data = dw->data;
      ref.apply(w);
      ++(dw->acc ? st.accs : st.copies);
      if (dw->acc && last_acc) {
        const bool chained = overlaps(*dw, *last_acc);
        st.acc_chained += chained;
        const std::size_t touch = chained ? 2 : (dw_banks(*dw) & dw_banks(*last_acc)) ? 1 : 0;
        cov_acc_b2b.hit_index((dw->esize == 4 ? 3 : 0) + touch);
      }
    }
    last_acc = dw_took && dw->acc ? dw : std::nullopt;
  }

  /// The banks a request touches (docs/sbuf.md: line l of a partition in bank l % Banks).
  std::uint64_t row_banks(std::uint32_t a, unsigned bytes) const {
    const std::uint32_t off = geo.off_of(a), l0 = off / B(), l1 = (off + std::max(bytes, 1u) - 1) / B();
    std::uint64_t m = 0;
    for (std::uint32_t l = l0; l <= l1; ++l) m |= std::uint64_t{1} << (l % prm.banks);
    return m;
  }
  std::uint64_t dw_banks(const DwReq& w) const { return row_banks(w.addr, w.col ? w.esize : w.n); }
  std::uint64_t dr_banks(const DrReq& r) const { return row_banks(r.addr, r.bytes); }
  std::uint64_t e_banks(const EReq& q) const {  // the element's first byte: nibble idx << es
    return std::uint64_t{1} << ((std::uint64_t{q.idx} << q.es) / 2 / B() % prm.banks);
  }

  /// Functional coverage of the cycle that ends (its requests and their grants, set by serve()).
  void sample() {
    std::array<std::uint64_t, kRequesters> banks{};  // 0: no request
    std::array<unsigned, kRequesters> use{};
    if (dw) {
      banks[0] = dw_banks(*dw);
      use[0] = dw->acc ? kAcc : kCopy;
    }
    if (dr) {
      banks[1] = dr_banks(*dr);
      use[1] = kDr;
    }
    for (unsigned i = 0; i < kEPorts; ++i)
      if (e[i]) {
        banks[2 + i] = e_banks(*e[i]);
        use[2 + i] = e[i]->we ? kEw : kEr;
      }
    // bank collisions, stage 2 (the accumulate accepted in the cycle before) included
    const std::uint64_t s2 = last_acc ? dw_banks(*last_acc) : 0;
    auto hit_use = [&](unsigned a, unsigned b) {
      if (const int k = use_pair(a, b); k >= 0) cov_uses.hit_index(static_cast<std::size_t>(k));
    };
    for (unsigned a = 0; a < kRequesters; ++a) {
      if (!banks[a]) continue;
      if (banks[a] & s2) hit_use(kS2, use[a]);
      for (unsigned b = a + 1; b < kRequesters; ++b)
        if (banks[a] & banks[b]) {
          cov_pairs.hit_index(pair_index(a, b));
          hit_use(use[a], use[b]);
        }
    }
    // requests accepted at the last byte of the memory
    const unsigned P = prm.parts;
    const std::uint32_t PB = prm.part_bytes;
    if (dw_took) {
      const std::uint32_t p = geo.part_of(dw->addr), o = geo.off_of(dw->addr);
      if (dw->col ? (p + dw->n == P && o + dw->esize == PB) : (p == P - 1 && o + dw->n == PB))
        cov_last.hit_index(dw->acc ? 1 : 0);
    }
    if (dr_took && geo.part_of(dr->addr) == P - 1 && geo.off_of(dr->addr) + dr->bytes == PB) cov_last.hit_index(2);
    for (unsigned i = 0; i < kEPorts; ++i)
      if ((e_took >> i) & 1) {
        const EReq& q = *e[i];
        if (((std::uint64_t{q.idx} + 1) << q.es) == 2 * std::uint64_t{PB} && (!q.we || q.mask[P - 1]))
          cov_last.hit_index(q.we ? 4 : 3);
      }
    // the claim (docs/sbuf.md): an engine port refused Starve cycles in a row claims its bank, and
    // the DMA's requests that touch it are refused while it waits
    std::uint64_t claimed = 0;
    for (unsigned i = 0; i < kEPorts; ++i) {
      if (!e[i] || claim_wait[i] < prm.starve) continue;
      if (claim_wait[i] == prm.starve) cov_claim.hit_index(2 * i + (e[i]->we ? 1 : 0));
      claimed |= banks[2 + i];
    }
    if (dw && (banks[0] & claimed)) cov_claim_dma.hit_index(dw->acc ? 1 : 0);
    if (dr && (banks[1] & claimed)) cov_claim_dma.hit_index(2);
    for (unsigned i = 0; i < kEPorts; ++i) claim_wait[i] = e[i] && !((e_took >> i) & 1) ? claim_wait[i] + 1 : 0;
  }

  /// The reference's element of an engine request in partition p, and a store of one (the layout
  /// of mem/elements.hpp, pinned byte by byte by the model's unit test).
  std::span<std::uint8_t> ref_row(unsigned p) {
    return std::span<std::uint8_t>(ref.sbuf).subspan(std::size_t{p} * prm.part_bytes, prm.part_bytes);
  }
  std::uint32_t ref_elem(unsigned p, const EReq& q) { return mem::load_elem(ref_row(p), q.idx, q.es); }
  void ref_store(unsigned p, const EReq& q, std::uint32_t v) { mem::store_elem(ref_row(p), q.idx, q.es, v); }

  // ---- requests ----
  std::uint32_t hot_off(unsigned span) {
    const std::uint32_t line = static_cast<std::uint32_t>(rng.below(traffic.hot_lines)) * 5 % (prm.part_bytes / B());
    const std::uint32_t off = line * B() + static_cast<std::uint32_t>(rng.below(B()));
    return std::min(off, prm.part_bytes - span);
  }
  std::uint32_t any_off(unsigned span) { return static_cast<std::uint32_t>(rng.below(prm.part_bytes - span + 1)); }
  std::uint32_t pick_off(unsigned span, unsigned align) {
    std::uint32_t o = rng.chance(traffic.p_hot) ? hot_off(span) : any_off(span);
    return o / align * align;
  }
  unsigned part(unsigned room = 1) {
    const unsigned lim = traffic.parts ? std::min(traffic.parts, prm.parts) : prm.parts;
    return static_cast<unsigned>(rng.below(std::max(1u, std::min(lim, prm.parts + 1 - room))));
  }
  /// The data of a DMA write: random bytes for a copy, float values for an accumulate.
  void fill_data(DwReq& w) {
    const unsigned bytes = w.col ? w.n * w.esize : w.n;
    for (unsigned b = 0; b < bytes; b += w.esize) {
      const std::uint32_t v = !w.acc         ? static_cast<std::uint32_t>(rng.next())
                              : w.esize == 4 ? value32(rng)
                                             : value16(rng);
      for (unsigned i = 0; i < w.esize; ++i) w.data.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
  }
  DwReq random_dw(bool acc) {
    DwReq w;
    w.acc = acc;
    w.col = rng.chance(traffic.p_col);
    w.esize = acc || w.col ? (rng.chance(0.5) ? 2 : 4) : 1;
    if (w.col) {
      const unsigned p0 = part();
      w.n = static_cast<unsigned>(rng.range(1, std::min<std::uint64_t>(B() / w.esize, prm.parts - p0)));
      w.addr = addr(p0, pick_off(w.esize, w.esize));
    } else if (traffic.full) {
      w.n = B();
      w.addr = addr(part(), pick_off(B(), B()));
    } else {
      w.n = static_cast<unsigned>(rng.range(1, B() / w.esize)) * w.esize;
      w.addr = addr(part(), pick_off(w.n, acc && rng.chance(0.7) ? w.esize : 1));
    }
    fill_data(w);
    return w;
  }
  DrReq random_dr() {
    DrReq r;
    r.bytes = static_cast<unsigned>(rng.range(1, B()));
    r.addr = addr(part(), pick_off(r.bytes, 1));
    return r;
  }
  EReq random_e() {
    EReq q;
    q.we = rng.chance(traffic.p_ewe);
    q.es = traffic.e_word ? 3 : static_cast<unsigned>(rng.below(4));
    const unsigned size = std::max(1u, q.bits() / 8);
    q.idx = pick_off(size, size) * 2 >> q.es;
    if (q.es == 0) q.idx |= static_cast<std::uint32_t>(rng.below(2));
    for (unsigned p = 0; p < prm.parts; ++p) {
      q.mask.push_back(rng.chance(0.7));
      const std::uint32_t v = rng.chance(0.5) ? value32(rng) : (std::uint32_t{value16(rng)} << 16 | value16(rng));
      // bits above the element are don't-care on a write: the DUT must ignore them
      q.wdata.push_back(rng.chance(0.2) ? static_cast<std::uint32_t>(rng.next()) : v);
    }
    return q;
  }
  static EReq word(bool we, std::uint32_t w, unsigned parts) {
    EReq q;
    q.we = we;
    q.idx = w;
    q.mask.assign(parts, we);
    q.wdata.assign(parts, 0);
    return q;
  }

  /// Drive the ports for the next cycle (after the edge).
  void drive() {
    if (dw_took) dw.reset();
    if (dr_took) dr.reset();
    for (unsigned i = 0; i < prm.eports; ++i)
      if ((e_took >> i) & 1) e[i].reset();
    dw_took = dr_took = false;
    e_took = 0;
    if (random_traffic) {
      if (!dw && rng.chance(traffic.p_dw)) dw = random_dw(rng.chance(traffic.p_acc));
      if (!dr && rng.chance(traffic.p_dr)) dr = random_dr();
      for (unsigned i = 0; i < prm.eports; ++i)
        if (!e[i] && ((traffic.e_ports >> i) & 1) && rng.chance(traffic.p_e)) e[i] = random_e();
    }
    Sbuf::In in = model.make_in();
    in.dw_valid_i = dw.has_value();
    if (dw) {
      in.dw_i.space = true;  // SBUF (ignored by the unit)
      in.dw_i.col = dw->col;
      in.dw_i.acc = dw->acc;
      in.dw_i.esize = static_cast<std::uint8_t>(dw->esize);
      in.dw_i.n = static_cast<std::uint8_t>(dw->n);
      in.dw_i.addr = dw->addr;
      for (unsigned b = 0; b < dw->data.size(); ++b) in.dw_data_i.set_slice(8 * b, 8, dw->data[b]);
    }
    in.dr_valid_i = dr.has_value();
    if (dr) {
      in.dr_i.space = true;
      in.dr_i.addr = dr->addr;
      in.dr_i.bytes = static_cast<std::uint8_t>(dr->bytes);
      in.dr_i.id = static_cast<std::uint8_t>(dr_id);
    }
    for (unsigned i = 0; i < prm.eports; ++i) {
      if (!e[i]) continue;
      in.e_valid_i |= std::uint64_t{1} << i;
      in.e_i[i].we = e[i]->we;
      in.e_i[i].esize = static_cast<esize_e>(e[i]->es);
      in.e_i[i].idx = e[i]->idx;
      for (unsigned p = 0; p < prm.parts; ++p) {
        in.e_mask_i.set_bit(i * prm.parts + p, e[i]->mask[p]);
        in.e_wdata_i.set_slice(32 * (i * prm.parts + p), 32, e[i]->wdata[p]);
      }
    }
    drive_inputs(env, model, in, "dw_");
    drive_inputs(env, model, in, "dr_");
    drive_inputs(env, model, in, "e_");
  }
  bool e_busy() const {
    return std::any_of(e.begin(), e.end(), [](const auto& q) { return q.has_value(); }) ||
           std::any_of(e_due.begin(), e_due.end(), [](const auto& q) { return q.has_value(); });
  }
  void clear_requests() {
    dw.reset();
    dr.reset();
    for (auto& q : e) q.reset();
    dw_took = dr_took = false;
    e_took = 0;
  }

  Task<> start() {
    Sbuf::In in = model.make_in();
    drive_inputs(env, model, in, "d");
    drive_inputs(env, model, in, "e_");
    clk.start();
    if (with_model) lockstep.start();
    co_await reset_dut(clk, rst);
  }
  Task<> cycle() {
    drive();
    co_await RisingEdge(clk.signal());
  }
  /// Wait until every offered request is accepted and its read data checked.
  Task<> drain() {
    random_traffic = false;
    for (unsigned i = 0; dw || dr || dr_due || e_busy() || sig("acc_busy_o"); ++i) {
      check(i < 1000, "requests not accepted after 1000 cycles");
      co_await cycle();
    }
  }
  /// Offer the requests set in dw, dr and e for one cycle, then idle one cycle (stage 2 empties);
  /// return the first cycle's readies.
  Task<Readies> once() {
    dw_took = dr_took = false;
    e_took = 0;
    co_await cycle();
    const Readies rd = log.back();
    clear_requests();
    co_await cycle();
    co_return rd;
  }
  /// Offer one request on engine port 0 and wait until it is accepted.
  Task<> engine(const EReq& q) {
    e[0] = q;
    e_took = 0;
    do co_await cycle();
    while (!(e_took & 1));
  }
  /// Fill every word of every partition through the engine port (values of both float types).
  Task<> preload() {
    for (std::uint32_t w = 0; w < prm.part_bytes / 4; ++w) {
      EReq q = word(true, w, prm.parts);
      for (unsigned p = 0; p < prm.parts; ++p)
        q.wdata[p] = rng.chance(0.5) ? value32(rng) : (std::uint32_t{value16(rng)} << 16 | value16(rng));
      co_await engine(q);
    }
    co_await drain();
  }
  /// Read every word back through engine port 0 (each checked by the scoreboard), and compare the
  /// model's contents with the reference.
  Task<> read_back() {
    co_await drain();
    for (std::uint32_t w = 0; w < prm.part_bytes / 4; ++w) co_await engine(word(false, w, prm.parts));
    co_await drain();
    if (lockstep.active() && options().lockstep)
      for (unsigned p = 0; p < prm.parts; ++p)
        for (std::uint32_t o = 0; o < prm.part_bytes; ++o)
          check(model.byte(p, o) == ref.at(Space::sbuf, addr(p, o)),
                "model partition {} byte {:#x}: {:#04x}, reference {:#04x}", p, o, model.byte(p, o),
                ref.at(Space::sbuf, addr(p, o)));
  }
  /// Random traffic for `cycles` cycles.
  Task<> run(std::uint64_t cycles) {
    random_traffic = true;
    for (std::uint64_t i = 0; i < cycles; ++i) co_await cycle();
    co_await drain();
    check_wait_bound();
  }
  void check_wait_bound() const {
    check(st.e_wait_max <= kWaitBound,
          "an engine request waited {} cycles for its bank; the bound is {} (docs/sbuf.md)", st.e_wait_max, kWaitBound);
  }
  void report(const char* what) const {
    info(
        "{}: {} cycles, {} copies, {} accumulates ({} chained on the previous one's bytes), {} DMA reads, {} engine "
        "reads, {} engine writes, {} request-cycles refused, longest engine wait {} cycles",
        what, st.cycles, st.copies, st.accs, st.acc_chained, st.dr, st.e_rd, st.e_wr, st.refused, st.e_wait_max);
  }
};

Traffic random_mix(Env& env) {
  Rng r = env.rng("mix");
  Traffic t;
  t.p_dw = 0.3 + 0.7 * static_cast<double>(r.below(101)) / 100;
  t.p_dr = static_cast<double>(r.below(101)) / 100;
  t.p_e = static_cast<double>(r.below(101)) / 100;
  t.p_acc = static_cast<double>(r.below(101)) / 100;
  t.p_col = static_cast<double>(r.below(61)) / 100;
  t.p_hot = static_cast<double>(r.below(101)) / 100;
  t.hot_lines = static_cast<unsigned>(r.range(1, 8));
  return t;
}

/// Accumulates into one hot line of one partition: first one every cycle with DMA reads alongside
/// (which wait), then with gaps in which engine and DMA reads see the sums and engine writes land.
/// Fails unless every accumulate of the first half was accepted the cycle it was offered (full rate)
/// and at least a quarter landed on the bytes of the one before.
Task<> back_to_back(SbufBench& t) {
  co_await t.start();
  co_await t.preload();
  // First half: an accumulate every cycle, DMA reads alongside (they wait: lowest priority). Second
  // half: accumulates with gaps, and two engine ports reading and writing the hot line as well (an
  // engine port kept out Starve cycles would refuse the DMA, so only the first half counts refusals).
  t.traffic = Traffic{.p_dw = 1.0,
                      .p_dr = 0.5,
                      .p_e = 0.0,
                      .p_acc = 1.0,
                      .p_col = 0.3,
                      .p_hot = 1.0,
                      .p_ewe = 0.5,
                      .hot_lines = 1,
                      .parts = 1,
                      .e_ports = 0b11};
  const std::uint64_t accs0 = t.st.accs;
  std::uint64_t acc_refused = 0;
  t.random_traffic = true;
  const std::uint64_t n = 2000;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i == n / 2) {
      t.traffic.p_dw = 0.7;
      t.traffic.p_e = 0.5;
    }
    co_await t.cycle();
    if (i < n / 2 && t.dw && !t.dw_took) ++acc_refused;
  }
  co_await t.drain();
  co_await t.read_back();
  t.report("back-to-back accumulates");
  check(acc_refused == 0, "{} accumulates refused: the read-add-write unit must take one every cycle", acc_refused);
  check(t.st.accs - accs0 >= n / 2, "{} accumulates in {} cycles", t.st.accs - accs0, n);
  check(t.st.acc_chained * 4 >= n, "only {} of {} accumulates hit the bytes of the previous one", t.st.acc_chained, n);
}

}  // namespace

TRN_TEST(random_traffic, .timeout_ns = 1e10) {
  // All three ports at random rates, copies and accumulates (BF16, FP32; rows, aligned or not, and
  // columns), hot lines for conflicts; lockstep, the read scoreboard, and a full read-back.
  SbufBench t(env);
  t.traffic = random_mix(env);
  info("traffic: dw {:.2f} dr {:.2f} e {:.2f} acc {:.2f} col {:.2f} hot {:.2f} x {} lines", t.traffic.p_dw,
       t.traffic.p_dr, t.traffic.p_e, t.traffic.p_acc, t.traffic.p_col, t.traffic.p_hot, t.traffic.hot_lines);
  co_await t.start();
  co_await t.preload();
  co_await t.run(scaled(env_count("SBUF_CYCLES", 4000)));
  co_await t.read_back();
  t.report("random traffic");
  check(t.st.copies + t.st.accs > 0, "no DMA writes");
}

TRN_TEST(accumulate_back_to_back, .timeout_ns = 1e10) {
  SbufBench t(env);
  co_await back_to_back(t);
}

TRN_TEST(arbitration, .timeout_ns = 1e10) {
  // The documented priorities, one case at a time (B = bytes per line; lines 0 and 1 are in banks 0
  // and 1; line Banks is in bank 0 again).
  SbufBench t(env);
  co_await t.start();
  const unsigned B = t.B(), nb = t.prm.banks;
  auto row = [&](bool acc, std::uint32_t line) {
    DwReq w;
    w.acc = acc;
    w.esize = acc ? 4 : 1;
    w.n = 4;
    w.addr = t.addr(0, line * B);
    w.data.assign(4, 0);
    return w;
  };
  auto eng = [&](bool we, std::uint32_t line) {
    EReq q = SbufBench::word(we, line * B / 4, t.prm.parts);
    q.wdata.assign(t.prm.parts, 0x3F800000u);
    return q;
  };
  struct Case {
    const char* what;
    int dw, dr, e;  // the ready expected of each offered request (-1: not offered)
    int busy = -1;  // dr_busy_o expected (the banks refusing a DMA read; -1: not checked)
  };
  auto expect = [&](const Case& c, const SbufBench::Readies& rd) {
    auto ok = [](int want, bool got) { return want < 0 || (want != 0) == got; };
    check(ok(c.dw, rd.dw) && ok(c.dr, rd.dr) && ok(c.e, rd.e0()),
          "{}: readies dw/dr/e0 {}/{}/{}, expected {}/{}/{} (-1: none)", c.what, rd.dw, rd.dr, rd.e0(), c.dw, c.dr,
          c.e);
    check(c.busy < 0 || rd.dr_busy == static_cast<std::uint64_t>(c.busy), "{}: dr_busy_o {:#x}, expected {:#x}", c.what,
          rd.dr_busy, c.busy);
    info("{}: ok", c.what);
  };
  co_await t.preload();
  SbufBench::Readies r{};
  // stage 2 against a copy, the engine and a DMA read of its bank; another bank is free
  for (bool same : {true, false}) {
    t.dw = row(true, 0);
    co_await t.cycle();  // the accumulate is accepted (stage 1)
    t.dw.reset();
    t.dw_took = false;
    const std::uint32_t l = same ? nb : 1;  // bank 0 (stage 2's) or bank 1
    t.dw = row(false, l);
    t.dr = DrReq{t.addr(0, l * B), 4};
    t.e[0] = eng(false, l);
    co_await t.cycle();
    const auto rd = t.log.back();
    t.dw.reset();
    t.dr.reset();
    t.clear_requests();
    co_await t.cycle();
    co_await t.cycle();
    if (same)
      expect({"stage 2 holds its bank against a copy, an engine read and a DMA read", 0, 0, 0, 0b1}, rd);
    else
      expect({"stage 2 leaves other banks to a copy and an engine read (which takes the read port from the DMA read)",
              1, 0, 1},
             rd);
  }
  t.dw = row(true, 0);
  t.dr = DrReq{t.addr(1, 0), 4};
  t.e[0] = eng(false, nb);
  r = co_await t.once();
  expect({"an accumulate is always taken; it holds its bank's read port against the engine and the DMA read", 1, 0, 0},
         r);
  t.dw = row(true, 0);
  t.e[0] = eng(true, nb);
  r = co_await t.once();
  expect({"an accumulate holds its bank against an engine write", 1, -1, 0}, r);
  t.dw = row(false, 0);
  t.dr = DrReq{t.addr(2, nb * B), 8};
  t.e[0] = eng(true, nb);
  r = co_await t.once();
  expect({"a copy holds its bank's write port against the engine, not the read port against a DMA read", 1, 1, 0}, r);
  t.dw = row(false, 0);
  t.e[0] = eng(false, nb);
  r = co_await t.once();
  expect({"a copy leaves the read port to an engine read", 1, -1, 1}, r);
  t.dr = DrReq{t.addr(3, nb * B + 4), 4};
  t.e[0] = eng(false, 0);
  r = co_await t.once();
  expect({"an engine read takes the read port from a DMA read", -1, 0, 1, 0b1}, r);
  t.dr = DrReq{t.addr(3, nb * B + 4), 4};
  t.e[0] = eng(true, 0);
  r = co_await t.once();
  expect({"an engine write leaves the read port to a DMA read", -1, 1, 1, 0}, r);
  t.dr = DrReq{t.addr(0, B - 2), 4};
  t.e[0] = eng(false, 1);
  r = co_await t.once();
  expect({"a row across two lines needs both banks", -1, 0, 1, 0b10}, r);
  t.dw = row(true, 0);
  t.dr = DrReq{t.addr(0, 2 * B), B};
  t.e[0] = eng(true, 1);
  r = co_await t.once();
  expect({"different banks: everything at once (the accumulate's bank refuses DMA reads)", 1, 1, 1, 0b1}, r);
  co_await t.read_back();
}

TRN_TEST(engine_round_robin, .timeout_ns = 1e10) {
  // Every engine port asks for the same bank at once, six reading and two writing, each asking
  // again as soon as it is served: each cycle one read and one write are granted (a bank has one
  // port of each), and the grants rotate: in every 6 cycles each reader is served once, in every 2
  // each writer. Then the same with elements of every size, one bank per port pair.
  SbufBench t(env);
  co_await t.start();
  co_await t.preload();
  const unsigned n = t.prm.eports, B = t.B(), nb = t.prm.banks;
  check(n == 8, "engine_round_robin expects 8 engine ports, the bench has {}", n);
  std::vector<std::vector<unsigned>> grants(n);
  auto offer = [&](unsigned i, unsigned k) {
    // lines 0, Banks, 2 Banks, ...: all in bank 0, a different line per port and round
    EReq q = SbufBench::word(i >= 6, ((i + k) % 4) * nb * B / 4, t.prm.parts);
    for (unsigned p = 0; p < t.prm.parts; ++p) q.wdata[p] = 0x3F800000u + i * 16 + k;
    return q;
  };
  std::vector<unsigned> round(n, 0);
  for (unsigned i = 0; i < n; ++i) t.e[i] = offer(i, 0);
  const unsigned cycles = 48;
  for (unsigned c = 0; c < cycles; ++c) {
    co_await t.cycle();
    unsigned rd = 0, wr = 0;
    for (unsigned i = 0; i < n; ++i)
      if ((t.e_took >> i) & 1) {
        grants[i].push_back(c);
        (i >= 6 ? wr : rd) += 1;
        t.e[i] = offer(i, ++round[i]);
        t.e_took &= ~(std::uint64_t{1} << i);
      }
    check(rd == 1 && wr == 1, "cycle {}: {} reads and {} writes granted on one bank, expected one of each", c, rd, wr);
  }
  t.clear_requests();
  co_await t.drain();
  for (unsigned i = 0; i < n; ++i) {
    const unsigned period = i >= 6 ? 2 : 6;
    check(grants[i].size() == cycles / period, "engine port {} served {} times in {} cycles, expected {}", i,
          grants[i].size(), cycles, cycles / period);
    for (std::size_t k = 1; k < grants[i].size(); ++k)
      check(grants[i][k] - grants[i][k - 1] == period, "engine port {} served at cycles {} and {}: not every {}", i,
            grants[i][k - 1], grants[i][k], period);
  }
  info(
      "one bank, six readers and two writers: one read and one write granted every cycle, each reader every 6 "
      "cycles, each writer every 2");
  // every element size at once on all ports, random lines, with DMA traffic: checked by the scoreboard
  t.traffic = Traffic{.p_dw = 0.5, .p_dr = 0.5, .p_e = 1.0, .p_acc = 0.5, .p_col = 0.3, .p_hot = 0.5, .p_ewe = 0.5};
  co_await t.run(scaled(2000));
  co_await t.read_back();
  t.report("every engine port at full rate");
}

TRN_TEST(dma_waits_behind_engine_claims, .timeout_ns = 1e10) {
  // Every engine port at full rate on one hot line, DMA copies into that line every cycle: the
  // engine writes, refused by the copies (a DMA copy outranks them), claim the bank, and the DMA
  // write waits behind the claims. From the arbitration rules (docs/sbuf.md) the DMA's wait is
  // bounded too: with no accumulate (no stage 2) only a claim refuses a copy; the claimants are
  // served one per cycle, and a port served asks again with its refusal count at zero, so it
  // cannot reach Starve before the last claimant is served; hence at most one cycle per engine
  // port. The lockstep, the read scoreboard and the read-back check every byte, and the engines'
  // wait bound holds throughout.
  SbufBench t(env);
  co_await t.start();
  co_await t.preload();
  t.traffic = Traffic{
      .p_dw = 1.0, .p_dr = 0.0, .p_e = 1.0, .p_acc = 0.0, .p_col = 0.0, .p_hot = 1.0, .p_ewe = 0.7, .hot_lines = 1};
  t.random_traffic = true;
  const std::uint64_t copies0 = t.st.copies;
  std::uint64_t wait = 0, wait_max = 0;
  const std::uint64_t n = scaled(4000);
  for (std::uint64_t i = 0; i < n; ++i) {
    co_await t.cycle();
    wait = t.dw && !t.dw_took ? wait + 1 : 0;
    wait_max = std::max(wait_max, wait);
  }
  co_await t.drain();
  t.check_wait_bound();
  co_await t.read_back();
  t.report("DMA copies behind engine claims");
  info("longest DMA write wait behind the engines' claims: {} cycles", wait_max);
  check(t.st.copies - copies0 > 0, "no DMA copy got through in {} cycles of engine claims", n);
  check(wait_max <= kEPorts, "a DMA copy waited {} cycles behind the engines' claims; at most one per engine port ({})",
        wait_max, kEPorts);
}

/// An engine port that wants a bank which DMA accumulates hold every cycle: it is served after
/// exactly Starve + 1 refused cycles (Starve, then stage 2 of the last accumulate), and the DMA
/// goes on after it. Used by the self-test below with a DUT whose claim never comes.
Task<> starved_engine(SbufBench& t, unsigned port) {
  co_await t.start();
  co_await t.preload();
  const unsigned B = t.B();
  // accumulates into line 0 (bank 0) of partition 0, FP32, every cycle
  auto acc = [&] {
    DwReq w;
    w.acc = true;
    w.esize = 4;
    w.n = B;
    w.addr = t.addr(0, 0);
    for (unsigned k = 0; k < B / 4; ++k) {
      const std::uint32_t v = 0x3F800000u;
      for (unsigned b = 0; b < 4; ++b) w.data.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
    }
    return w;
  };
  // offer the next accumulate as soon as one is taken
  auto again = [&] {
    if (!t.dw_took) return;
    t.dw = acc();
    t.dw_took = false;
  };
  for (bool we : {false, true}) {
    t.dw = acc();
    for (unsigned c = 0; c < 4; ++c) {  // the accumulates are running
      co_await t.cycle();
      check(t.dw_took, "an accumulate was refused before the engine asked");
      again();
    }
    t.e[port] = SbufBench::word(we, t.prm.banks * B / 4, t.prm.parts);  // line Banks: bank 0
    unsigned refused = 0;
    bool served = false, resumed = false;
    for (unsigned c = 0; c < 2000 && !served; ++c) {
      co_await t.cycle();
      served = (t.e_took >> port) & 1;
      refused += !served;
      again();
    }
    check(served, "engine {} on port {} never served while DMA accumulates held its bank", we ? "write" : "read", port);
    for (unsigned c = 0; c < 4; ++c) {  // the DMA goes on
      co_await t.cycle();
      resumed = t.dw_took;
      again();
    }
    check(resumed, "the DMA accumulates did not resume after the engine was served");
    t.clear_requests();
    co_await t.drain();
    info("engine {} on port {} refused {} cycles by back-to-back DMA accumulates, then served", we ? "write" : "read",
         port, refused);
    check(refused == kStarve + 1, "engine {} refused {} cycles by back-to-back accumulates, expected Starve + 1 = {}",
          we ? "write" : "read", refused, kStarve + 1);
  }
  t.check_wait_bound();
  co_await t.read_back();
}

TRN_TEST(engine_claims_bank_from_dma, .timeout_ns = 1e10) {
  SbufBench t(env);
  co_await starved_engine(t, 5);
}

TRN_TEST(requests_during_reset_are_refused, .timeout_ns = 1e9) {
  // A write on every engine port and a DMA write and read, offered through a reset: nothing is
  // taken while reset is low (every ready low: a unit that leaves reset later than SBUF must not
  // write into it), and the same requests are served once reset ends.
  SbufBench t(env);
  t.with_model = false;  // the model is reset once, at the start
  co_await t.start();
  co_await t.preload();  // every byte known (SBUF's words are not reset)
  const unsigned P = t.prm.parts;
  for (unsigned i = 0; i < t.e.size(); ++i) {
    EReq w;
    w.we = true;
    w.idx = i;  // line 0 of every partition
    w.mask.assign(P, true);
    for (unsigned p = 0; p < P; ++p) w.wdata.push_back(static_cast<std::uint32_t>(t.rng.next()));
    t.e[i] = w;
  }
  DwReq d;
  d.n = t.B();
  d.addr = t.addr(0, 8 * t.B());
  t.fill_data(d);
  t.dw = d;
  t.dr = DrReq{t.addr(1, t.prm.part_bytes - t.B()), t.B()};  // apart from every write
  t.rst.set(0);
  for (unsigned k = 0; k < 8; ++k) {
    t.drive();
    co_await ReadOnly();
    const std::uint64_t er = env.sig("e_ready_o").get();
    check(er == 0 && !t.sig("dw_ready_o") && !t.sig("dr_ready_o"),
          "reset cycle {}: a request taken in reset (engine ports ready {:#x}, DMA write {}, read {})", k, er,
          t.sig("dw_ready_o"), t.sig("dr_ready_o"));
    co_await RisingEdge(t.clk.signal());
  }
  t.rst.set(1);
  co_await t.drain();
}

TRN_TEST(dma_at_last_address, .timeout_ns = 1e10) {
  // The DMA at the last byte of the memory (partition Parts - 1, offset PartBytes - 1: what
  // sbuf.last_address samples), every address from the configuration. Row copies ending there (a
  // whole line, the last byte alone, a row not line-aligned); row accumulates in BF16 and FP32 (a
  // whole line, the last element); columns, copied and accumulated in both element sizes, whose last
  // element lands there (as many partitions as a beat holds, and one). Each write alone, followed by
  // DMA reads of the last line of every partition it wrote; DMA reads of the last byte and of an odd
  // count; then the same writes again back to back, the accumulates chained on each other's sums
  // (stage-2 forwarding at the end of the memory), with DMA reads of the last line offered alongside.
  // The lockstep, the read scoreboard and the full read-back check every byte; the cover point's DMA
  // bins must count every one of these requests, and no accumulate may be refused (nothing claims).
  SbufBench t(env);
  co_await t.start();
  co_await t.preload();
  const unsigned B = t.B(), P = t.prm.parts;
  const std::uint32_t PB = t.prm.part_bytes;
  // a row of n bytes (elements of esize bytes) whose last byte is the last of partition P - 1
  auto row = [&](bool acc, unsigned esize, unsigned n) {
    DwReq w;
    w.acc = acc;
    w.esize = esize;
    w.n = n;
    w.addr = t.addr(P - 1, PB - n);
    t.fill_data(w);
    return w;
  };
  // a column of n elements of esize bytes at the last offset of partitions P - n .. P - 1
  auto col = [&](bool acc, unsigned esize, unsigned n) {
    DwReq w;
    w.col = true;
    w.acc = acc;
    w.esize = esize;
    w.n = n;
    w.addr = t.addr(P - n, PB - esize);
    t.fill_data(w);
    return w;
  };
  auto writes = [&] {
    std::vector<DwReq> v;
    for (unsigned n : {B, 1u, B - 3}) v.push_back(row(false, 1, n));
    for (unsigned es : {2u, 4u})
      for (unsigned n : {B, es}) v.push_back(row(true, es, n));
    for (bool acc : {false, true})
      for (unsigned es : {2u, 4u})
        for (unsigned n : {std::min(B / es, P), 1u}) v.push_back(col(acc, es, n));
    return v;
  };
  // a DMA read of the last `bytes` bytes of partition p
  auto last_read = [&](unsigned p, unsigned bytes) { return DrReq{t.addr(p, PB - bytes), bytes}; };
  const std::vector<std::uint64_t> cov0 = t.cov_last.counts();
  std::uint64_t want_copy = 0, want_acc = 0, want_dr = 0;

  // one request at a time, each drained (accepted, stage 2 written, a read's data checked)
  const std::vector<DwReq> single = writes();
  for (const DwReq& w : single) {
    ++(w.acc ? want_acc : want_copy);
    t.dw = w;
    co_await t.drain();
    for (unsigned p = w.col ? P - w.n : P - 1; p < P; ++p) {
      t.dr = last_read(p, B);
      co_await t.drain();
    }
    ++want_dr;  // the read of partition P - 1
  }
  for (unsigned bytes : {1u, B / 2 + 1}) {
    t.dr = last_read(P - 1, bytes);
    co_await t.drain();
    ++want_dr;
  }

  // back to back: each write offered the cycle after the one before is accepted, and DMA reads of
  // the last line (of B, 1 and B / 2 + 1 bytes) each offered as soon as the one before is accepted
  const std::vector<DwReq> burst = writes();
  const unsigned sizes[] = {B, 1u, B / 2 + 1};
  std::size_t taken = 0;
  unsigned reads = 0;
  std::uint64_t acc_refused = 0;
  t.dw = burst[0];
  t.dr = last_read(P - 1, sizes[0]);
  for (unsigned c = 0; taken < burst.size() || reads < std::size(sizes); ++c) {
    check(c < 1000,
          "back-to-back DMA requests at the last address: {} of {} writes and {} of {} reads accepted after "
          "1000 cycles",
          taken, burst.size(), reads, std::size(sizes));
    co_await t.cycle();
    if (t.dw && !t.dw_took && t.dw->acc) ++acc_refused;
    if (t.dw_took) {
      ++(t.dw->acc ? want_acc : want_copy);
      if (++taken < burst.size()) {
        t.dw = burst[taken];
        t.dw_took = false;
      }
    }
    if (t.dr_took) {
      ++want_dr;
      if (++reads < std::size(sizes)) {
        t.dr = last_read(P - 1, sizes[reads]);
        t.dr_took = false;
      }
    }
  }
  co_await t.drain();
  co_await t.read_back();
  t.report("DMA at the last address");
  check(acc_refused == 0, "accumulates at the last address refused {} cycles with no engine traffic (nothing claims)",
        acc_refused);
  const std::vector<std::uint64_t>& cov = t.cov_last.counts();
  check(cov[0] - cov0[0] == want_copy && cov[1] - cov0[1] == want_acc && cov[2] - cov0[2] == want_dr,
        "sbuf.last_address counted {} copies, {} accumulates and {} DMA reads at the last address, expected {}, {}, {}",
        cov[0] - cov0[0], cov[1] - cov0[1], cov[2] - cov0[2], want_copy, want_acc, want_dr);
}

TRN_TEST(selftest_unbounded_wait_is_caught, .timeout_ns = 1e10, .expect_fail = true) {
  // Runs on the sbuf_broken build, whose engine ports claim their bank only after 1000 refused
  // cycles: the starved engine port waits far beyond the bound, and the bench must say so.
  if (!kBroken) throw HarnessError("selftest_unbounded_wait_is_caught runs on the sbuf_broken build");
  expect_failure([](const TestFailure& f) {
    const std::string m = f.what();
    check(m.find("refused") != std::string::npos && m.find("Starve") != std::string::npos, "wrong failure: {}", m);
  });
  SbufBench t(env);
  co_await starved_engine(t, 2);
}

TRN_TEST(selftest_missing_forwarding_is_caught, .timeout_ns = 1e10, .expect_fail = true) {
  // Runs on the sbuf_broken build, whose read-add-write unit does not forward stage 2's sums:
  // back-to-back accumulates to one address lose updates, and the read scoreboard (the lockstep
  // left out) must say so.
  if (!kBroken) throw HarnessError("selftest_missing_forwarding_is_caught runs on the sbuf_broken build");
  expect_failure([](const TestFailure& f) {
    const std::string m = f.what();
    check(m.find("read") != std::string::npos && m.find("reference") != std::string::npos, "wrong failure: {}", m);
  });
  SbufBench t(env);
  t.with_model = false;
  co_await back_to_back(t);
}

TRN_TEST(throughput) {
  // make bench: accepted bytes per cycle of back-to-back copies and accumulates against the port
  // width, the port shares under full contention, and simulation speed.
  const unsigned W = params_of(env).beat_bytes;
  struct Mix {
    const char* what;
    Traffic t;
  };
  const Mix mixes[] = {
      {"copies of whole lines",
       Traffic{.p_dw = 1, .p_dr = 0, .p_e = 0, .p_acc = 0, .p_col = 0, .p_hot = 0, .full = true}},
      {"accumulates of whole lines into one line (each on the previous sums)", Traffic{.p_dw = 1,
                                                                                       .p_dr = 0,
                                                                                       .p_e = 0,
                                                                                       .p_acc = 1,
                                                                                       .p_col = 0,
                                                                                       .p_hot = 1,
                                                                                       .hot_lines = 1,
                                                                                       .parts = 1,
                                                                                       .full = true}},
      {"accumulates + engine reads (one port) + DMA reads, random lines", Traffic{.p_dw = 1,
                                                                                  .p_dr = 1,
                                                                                  .p_e = 1,
                                                                                  .p_acc = 1,
                                                                                  .p_col = 0,
                                                                                  .p_hot = 0,
                                                                                  .p_ewe = 0,
                                                                                  .full = true,
                                                                                  .e_ports = 1,
                                                                                  .e_word = true}},
      {"copies + engine writes (one port) + DMA reads, random lines", Traffic{.p_dw = 1,
                                                                              .p_dr = 1,
                                                                              .p_e = 1,
                                                                              .p_acc = 0,
                                                                              .p_col = 0,
                                                                              .p_hot = 0,
                                                                              .p_ewe = 1,
                                                                              .full = true,
                                                                              .e_ports = 1,
                                                                              .e_word = true}},
      {"copies + DMA reads + all 8 engine ports (reads and writes, every size), random lines",
       Traffic{.p_dw = 1, .p_dr = 1, .p_e = 1, .p_acc = 0, .p_col = 0, .p_hot = 0, .p_ewe = 0.25, .full = true}},
  };
  for (const Mix& m : mixes) {
    SbufBench t(env);
    co_await t.start();
    co_await t.preload();
    t.traffic = m.t;
    const auto s0 = t.st;
    std::uint64_t bytes = 0, cyc = 0;
    t.random_traffic = true;
    for (unsigned i = 0; i < 4000; ++i) {
      co_await t.cycle();
      ++cyc;
      if (t.dw_took) bytes += t.dw->col ? t.dw->n * t.dw->esize : t.dw->n;
    }
    co_await t.drain();
    const double per = static_cast<double>(cyc);
    fmt::print(
        "bench: figure sbuf {}: DMA write {:.2f} B/cycle ({:.1f}% of one {}-byte beat per cycle), DMA writes "
        "{:.2f}/cycle, DMA reads {:.2f}/cycle, engine accesses {:.2f}/cycle, longest engine wait {} cycles\n",
        m.what, bytes / per, 100.0 * bytes / per / W, W, (t.st.copies + t.st.accs - s0.copies - s0.accs) / per,
        (t.st.dr - s0.dr) / per, (t.st.e_rd + t.st.e_wr - s0.e_rd - s0.e_wr) / per, t.st.e_wait_max);
  }
  SbufBench t(env);
  co_await t.start();
  co_await t.preload();
  t.traffic = Traffic{};
  const std::uint64_t want = bench_cycles(20000);
  BenchTimer timer;
  const std::uint64_t c0 = t.clk.cycle();
  co_await t.run(want);
  timer.report(t.clk.cycle() - c0);
}

TRN_BENCH_MAIN(Vsbuf, TRN_BENCH_NAME)
