// Bench for the systems of chips (docs/system.md, "Systems in RTL"): rtl/system/chip_torus.sv, KX x
// KY chips on a torus (a ring: KX x 1), in lockstep with trn::system::ChipTorus, and (TRN_SYS_SWITCH)
// rtl/system/chip_switch.sv, KX chips on one switch, in lockstep with trn::system::ChipSwitch. One
// source serves every system top: TRN_SYS_SWITCH says which kind, and the top's parameters
// (tb/CMakeLists.txt's PARAMS, each a TRN_PARAM_<name>) which system: KX and KY (a switch: N chips),
// Cores (NeuronCores per chip) and the chips' routers and links (V, LastHop, RDepth).
//
// Remote writes, remote accumulates and remote semaphores between neighbours and across the
// system, from collective cores and from NeuronCores, under random HBM latency on every chip and
// bit errors on every link. Checkers:
//   - the lockstep at the system's ports and a probe on every part of every chip
//     (<top>.g_chip[c].u_chip...: tb/chip/chip_probes.hpp; on a switch also the switch router
//     <top>.u_switch and each switch port's link layer <top>.g_port[c].u_tx, u_rx), every cycle: a
//     mismatch names the chip (or the switch port), the part and its port;
//   - the remote ordering checker: each transfer (descriptors whose last one completes onto a
//     semaphore of another chip) is registered with the bytes it must leave; when the fabric of
//     the receiving chip adds to that semaphore, every byte of the transfer must be in that chip's
//     HBM already, or the semaphore overtook its data (a failure naming chip, unit, semaphore, byte);
//   - the final HBM images against the bytes each transfer must leave;
//   - the links: every flit a router sent was taken (link_ready_o where the probed link_tx's
//     in_valid_i is set), and the bit errors injected
//     were seen by the receivers and replayed;
//   - every unit of every chip watched for an error: the first ends the run, naming chip, unit,
//     stream and pc.
// Environment: each chip's HBM port served by its own trn::dma::MemSystem (trn::tb::HbmPort); the
// links' channel corrupting one wire bit with a seeded probability per link and cycle.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "../chip/chip_env.hpp"
#include "../chip/chip_probes.hpp"
#include "../core/hbm_port.hpp"
#include "collective/program.hpp"
#include "common/clog2.hpp"
#include "dma/desc.hpp"
#include "harness/bench_util.hpp"
#include "harness/cover.hpp"
#include "harness/lockstep.hpp"
#include "harness/reset.hpp"
#include "harness/verilated_bench.hpp"
#include "kernels/kernels.hpp"
#include "system/chip_switch.hpp"
#include "system/chip_torus.hpp"
#include TRN_PORTS_HEADER

using namespace trn;
using namespace trn::tb;

#ifndef TRN_SYS_SWITCH
#define TRN_SYS_SWITCH 0
#endif
#ifndef TRN_PARAM_LastHop
#define TRN_PARAM_LastHop 0
#endif

namespace {

#if TRN_SYS_SWITCH
using SysModel = trn::system::ChipSwitch;
constexpr const char* kTop = "chip_switch";
#else
using SysModel = trn::system::ChipTorus;
constexpr const char* kTop = "chip_torus";
#endif

/// NeuronCores per chip: the top's.
constexpr unsigned kCores = TRN_PARAM_Cores;
/// This bench's system in configuration a, with the top's parameters.
SysModel::Params sys_params(const cfg::Arch& a) {
#if TRN_SYS_SWITCH
  SysModel::Params p = SysModel::Params::of(a, kCores, TRN_PARAM_N);
#else
  SysModel::Params p = SysModel::Params::of(a, kCores, TRN_PARAM_KX, TRN_PARAM_KY);
  p.chip.last_hop = TRN_PARAM_LastHop != 0;
#endif
  p.chip.v = TRN_PARAM_V;
  p.chip.rdepth = TRN_PARAM_RDepth;
  return p;
}
/// The system's chips as a torus's dimensions (a switch: one ring of all its chips), for placing ranks.
std::vector<unsigned> dims_of(const SysModel::Params& p) {
  if (TRN_SYS_SWITCH) return {p.chips()};
  return {p.chip.kx, p.chip.ky};
}
/// Link l's name in messages, and the scope of its sender.
std::string link_name(const SysModel& m, unsigned l) {
  if (TRN_SYS_SWITCH)
    return l < m.chips() ? fmt::format("link {} (chip {} to the switch)", l, l)
                         : fmt::format("link {} (the switch to chip {})", l, l - m.chips());
  return fmt::format("link {} (chip {} link port {})", l, l / m.link_ports(), l % m.link_ports());
}
std::string link_sender(const SysModel& m, unsigned l) {
  if (TRN_SYS_SWITCH && l >= m.chips()) return fmt::format("{}.g_port[{}].u_tx.", kTop, l - m.chips());
  return fmt::format("{}.g_chip[{}].u_chip.g_link[{}].u_tx.", kTop, l / m.link_ports(), l % m.link_ports());
}

/// This system's name in cover points (each system has its own links and chips): chip_torus4x1,
/// chip_switch8, ...
std::string sys_name(const SysModel::Params& p) {
  if (TRN_SYS_SWITCH) return fmt::format("{}{}", kTop, p.chips());
  return fmt::format("{}{}x{}", kTop, p.chip.kx, p.chip.ky);
}
/// The remote packet kinds of SPEC 5.7 the chips send (docs/chip.md): a write, an accumulate in
/// FP32 or BF16, a semaphore addition.
const std::vector<std::string> kPacketKinds = {"write", "acc_fp32", "acc_bf16", "sem"};

/// The switch's probes: the switch router and each port's link layer against the model's (none on
/// a torus).
class SwitchProbes {
 public:
  SwitchProbes(Env& env, Clock& clk, const SysModel& m) : m_(m) {
#if TRN_SYS_SWITCH
    sw_ = std::make_unique<Probe<link::Router>>(env, clk, m.switch_router(), fmt::format("{}.u_switch.", kTop));
    for (unsigned c = 0; c < m.chips(); ++c) {
      tx_.push_back(
          std::make_unique<Probe<link::LinkTx>>(env, clk, m.port_tx(c), fmt::format("{}.g_port[{}].u_tx.", kTop, c)));
      rx_.push_back(
          std::make_unique<Probe<link::LinkRx>>(env, clk, m.port_rx(c), fmt::format("{}.g_port[{}].u_rx.", kTop, c)));
    }
#else
    (void)env, (void)clk;
#endif
  }
  void compare() {
#if TRN_SYS_SWITCH
    sw_->compare(m_.switch_in(), m_.switch_out());
    for (unsigned c = 0; c < m_.chips(); ++c) {
      tx_[c]->compare(m_.port_tx_in(c), m_.port_tx_out(c));
      rx_[c]->compare(m_.port_rx_in(c), m_.port_rx_out(c));
    }
#endif
  }

 private:
  [[maybe_unused]] const SysModel& m_;
  std::unique_ptr<Probe<link::Router>> sw_;
  std::vector<std::unique_ptr<Probe<link::LinkTx>>> tx_;
  std::vector<std::unique_ptr<Probe<link::LinkRx>>> rx_;
};

/// The bytes a transfer must leave in the receiving chip's HBM before its semaphore is added.
struct Transfer {
  std::vector<std::pair<std::uint32_t, std::vector<std::uint8_t>>> blocks;  ///< (address, bytes)
  std::string name;
};

/// The remote ordering checker (see the header).
class OrderChecker {
 public:
  /// Transfer t signals by adding to semaphore `sem` of unit `unit` of chip `chip`; such transfers
  /// signal in the order they are registered.
  void expect(unsigned chip, unsigned unit, unsigned sem, Transfer t) {
    all_.emplace_back(chip, t);
    ++count_[{chip, unit, sem}];
    q_[{chip, unit, sem}].push_back(std::move(t));
  }
  /// A semaphore addition the fabric of chip `chip` makes this cycle; `hbm` is that chip's image.
  void on_sem(unsigned chip, unsigned unit, unsigned sem, const std::vector<std::uint8_t>& hbm, std::uint64_t cycle) {
    auto it = q_.find({chip, unit, sem});
    if (it == q_.end()) return;  // a semaphore no registered transfer signals by
    check(!it->second.empty(), "cycle {}: chip {} unit {} semaphore {} added after all {} of its transfers signalled",
          cycle, chip, unit, sem, count_.at({chip, unit, sem}));
    const Transfer t = std::move(it->second.front());
    it->second.pop_front();
    for (const auto& [addr, bytes] : t.blocks)
      for (std::size_t i = 0; i < bytes.size(); ++i)
        check(hbm[addr + i] == bytes[i],
              "cycle {}: chip {} unit {} semaphore {} added while {} is not all in HBM (byte {:#x} is {:#04x}, "
              "expected {:#04x}): the semaphore overtook its data",
              cycle, chip, unit, sem, t.name, addr + i, hbm[addr + i], bytes[i]);
    ++checked_;
  }
  unsigned checked() const { return checked_; }
  /// At the end: every transfer's bytes still in its receiver's HBM (`hbm(chip)`), and every
  /// registered semaphore at the count of its transfers (`sem(chip, unit, sem)`).
  template <class Hbm, class Sem>
  void final_check(Hbm&& hbm, Sem&& sem) const {
    for (const auto& [chip, t] : all_)
      for (const auto& [addr, bytes] : t.blocks)
        for (std::size_t i = 0; i < bytes.size(); ++i)
          check(hbm(chip)[addr + i] == bytes[i],
                "at the end: chip {} HBM byte {:#x} of {} is {:#04x}, expected {:#04x}", chip, addr + i, t.name,
                hbm(chip)[addr + i], bytes[i]);
    for (const auto& [k, n] : count_) {
      const auto [chip, unit, s] = k;
      check(sem(chip, unit, s) == n, "at the end: chip {} unit {} semaphore {} is {}, its transfers add {}", chip, unit,
            s, sem(chip, unit, s), n);
    }
  }
  /// Transfers whose semaphore never came.
  unsigned waiting() const {
    unsigned n = 0;
    for (const auto& [k, v] : q_) n += static_cast<unsigned>(v.size());
    return n;
  }

 private:
  std::map<std::tuple<unsigned, unsigned, unsigned>, std::deque<Transfer>> q_;
  std::map<std::tuple<unsigned, unsigned, unsigned>, unsigned> count_;
  std::vector<std::pair<unsigned, Transfer>> all_;
  unsigned checked_ = 0;
};

struct SysBench {
  Env& env;
  Signal& rst;
  Clock clk;
  SysModel::Params prm;
  SysModel model;
  Lockstep<SysModel> lockstep;
  std::vector<std::unique_ptr<ChipProbes>> probes;
  SwitchProbes switch_probes;
  std::vector<std::unique_ptr<HbmPort>> hbm;
  std::vector<ChipView> view;
  OrderChecker order;
  Signal &flip, &flip_bit, &sem_valid, &sem_idx, &link_ready;
  std::vector<Signal*> link_offer;       ///< link l's router offers its sender a flit (a probed port)
  std::vector<Signal*> link_take;        ///< link l's sender takes it (in_ready_o)
  std::vector<Signal*> link_flit;        ///< the flit offered, {vc, flit} (in_data_i)
  CoverPoint* cov_link = nullptr;        ///< packets per link and kind
  std::vector<int> link_bin;             ///< link l's index among cov_link's links (-1: none)
  CoverPoint* cov_mode = nullptr;        ///< packets per kind and the DMA queues' ordering mode
  bool strong_mode = true;               ///< the mode begin() set
  std::vector<Signal*> link_sent;        ///< link l's sender drives a flit onto the wire (a probed port)
  std::vector<std::uint64_t> flits_hit;  ///< per link: flits on the wire the channel corrupted
  Rng chan;
  double p_flip;
  unsigned flips = 0;
  Clock::HookId hook;

  static dma::Geometry geo(const SysModel::Params& p) {
    const auto& c = p.chip.core.core;
    return dma::Geometry::make(c.hbm_bytes, c.parts, c.sbuf_bytes, c.beat_bytes);
  }

  explicit SysBench(Env& e, dma::MemSystem::Params mp = {4, 40, 2, 0.9, 0.9, 0}, double p_flip_ = 0.02)
      : env(e),
        rst(e.sig("rst_ni")),
        clk(e.sig("clk_i"), 10),
        prm(sys_params(e.cfg().arch)),
        model(prm),
        lockstep(e, clk, model),
        switch_probes(e, clk, model),
        flip(e.sig("flip_i")),
        flip_bit(e.sig("flip_bit_i")),
        sem_valid(e.sig("sem_ext_valid_o")),
        sem_idx(e.sig("sem_ext_idx_o")),
        link_ready(e.sig("link_ready_o")),
        chan(e.rng("channel")),
        p_flip(p_flip_) {
    const unsigned n = chips();
    for (unsigned l = 0; l < model.links(); ++l) {
      const std::string tx = link_sender(model, l);
      link_offer.push_back(&e.sig(tx + "in_valid_i"));
      link_sent.push_back(&e.sig(tx + "tx_valid_o"));
      link_take.push_back(&e.sig(tx + "in_ready_o"));
      link_flit.push_back(&e.sig(tx + "in_data_i"));
    }
    // functional coverage: every packet a link carries, by link, kind and ordering mode. Links no
    // route takes are no bins: on a torus, both ports of a dimension one chip long (a ring's y),
    // and the minus port of a dimension two chips long (the one neighbour is as near either way,
    // and the routing takes the plus port: 2 * forward <= k).
    std::vector<std::string> lnames;
    for (unsigned l = 0; l < model.links(); ++l) {
      bool unused = false;
      if (!TRN_SYS_SWITCH) {
        const unsigned port = l % model.link_ports(), k = port < 2 ? prm.chip.kx : prm.chip.ky;
        unused = k == 1 || (k == 2 && port % 2 == 1);
      }
      link_bin.push_back(unused ? -1 : static_cast<int>(lnames.size()));
      if (!unused) lnames.push_back(fmt::format("link{}", l));
    }
    cov_link = &cover_cross(sys_name(prm) + ".link_packets", {lnames, kPacketKinds});
    cov_mode = &cover_cross(sys_name(prm) + ".packet_modes", {kPacketKinds, {"strong", "waw"}});
    flits_hit.assign(model.links(), 0);
    for (unsigned c = 0; c < n; ++c) {
      probes.push_back(
          std::make_unique<ChipProbes>(e, clk, model.chip(c), fmt::format("{}.g_chip[{}].u_chip.", kTop, c)));
      hbm.push_back(std::make_unique<HbmPort>(geo(prm), mp, e.rng(fmt::format("hbm{}", c)).next(),
                                              prm.chip.core.core.beat_bytes, HbmWires::element(e, c, n),
                                              clog2(prm.chip.core.core.slots)));
      view.emplace_back(e, prm.chip, c, n);
    }
    lockstep.after_eval([this] {
      for (auto& p : probes) p->compare();
      switch_probes.compare();
    });
    hook = clk.add_pre_edge_hook([this] {
      if (!(rst.get() & 1)) return;
      for (auto& h : hbm) h->serve(clk.cycle());
      // the semaphore additions of this cycle, after this cycle's HBM writes
      const unsigned U = units();
      for (unsigned c = 0; c < chips(); ++c)
        for (unsigned u = 0; u < U; ++u)
          if (sem_valid.get_slice(c * U + u, 1))
            order.on_sem(c, u, static_cast<unsigned>(sem_idx.get_slice(c * 5, 5)), hbm[c]->mem.image().hbm,
                         clk.cycle());
      // bit errors the channel puts on a flit on the wire this cycle (the receiver must drop each)
      const Bits f = flip.bits();
      for (unsigned l = 0; l < model.links(); ++l)
        if (f.bit(l) && (link_sent[l]->get() & 1)) ++flits_hit[l];
      // a flit a router sends must find room in its link's replay buffer (a full buffer with
      // nothing offered is fine: every unacknowledged flit holds one of the router's credits)
      const Bits ready = link_ready.bits();
      for (unsigned l = 0; l < model.links(); ++l)
        check(ready.bit(l) || !(link_offer[l]->get() & 1), "cycle {}: {}: its sender's replay buffer refused a flit",
              clk.cycle(), link_name(model, l));
      for (unsigned l = 0; l < model.links(); ++l)
        if ((link_offer[l]->get() & 1) && (link_take[l]->get() & 1)) cover_packet(l, link_flit[l]->bits());
    });
  }
  ~SysBench() { clk.remove_hook(hook); }

  /// A flit taken by link l's sender ({vc, flit}): a packet's first flit counts its kind.
  void cover_packet(unsigned l, const Bits& d) {
    using namespace trn::sv::router_pkg;
    const unsigned w = d.width() - (prm.chip.v > 1 ? clog2(prm.chip.v) : 1);  // the flit, below the VC
    const auto kind = static_cast<flit_kind_e>(d.slice(w - 2, 2));
    if (kind != flit_kind_e::FlitHead && kind != flit_kind_e::FlitSingle) return;
    const head_t h = head_t::unpack(d, 0);
    std::size_t k;
    switch (h.ptype) {
      case pkt_type_e::PktWrite:
        k = 0;
        break;
      case pkt_type_e::PktAccWrite:
        k = d.bit(head_t::kWidth + 32) ? 1 : 2;
        break;  // pkt_hdr_t's esize4
      case pkt_type_e::PktSem:
        k = 3;
        break;
      default:
        check(false, "{}: a packet of type {} on the wire", link_name(model, l), static_cast<unsigned>(h.ptype));
    }
    check(link_bin[l] >= 0, "{}: a packet on a link no route takes", link_name(model, l));
    cov_link->hit_index(static_cast<std::size_t>(link_bin[l]) * kPacketKinds.size() + k);
    cov_mode->hit_index(k * 2 + (strong_mode ? 0 : 1));
  }

  unsigned chips() const { return model.chips(); }
  unsigned units() const { return prm.chip.units(); }
  unsigned cores() const { return prm.chip.cores; }
  unsigned cc() const { return prm.chip.cores; }  ///< the (first) collective core's unit index
  unsigned beat() const { return prm.chip.core.core.beat_bytes; }
  /// The chip halfway round the torus from chip c in every dimension (the farthest one; on a
  /// switch, the chip half the chips on).
  unsigned opposite(unsigned c) const {
    if (TRN_SYS_SWITCH) return (c + chips() / 2) % chips();
    const unsigned kx = prm.chip.kx, ky = prm.chip.ky;
    return (c / kx + ky / 2) % ky * kx + (c % kx + kx / 2) % kx;
  }

  Task<> cycle() {
    co_await RisingEdge(clk.signal());
    for (auto& h : hbm) h->drive(clk.cycle());
    // the channel: each link's wire corrupted at one bit with probability p_flip this cycle
    const unsigned L = model.links(), fb = model.fb();
    Bits f(L), fbits(L * fb);
    for (unsigned l = 0; l < L; ++l)
      if (p_flip > 0 && chan.chance(p_flip)) {
        f.set_bit(l, true);
        fbits.set_slice(l * fb, fb, chan.below(model.wire_bits()));
        ++flips;
      }
    flip.set(f);
    flip_bit.set(fbits);
  }

  /// Reset; every chip's DMA queues strong-order-write when `strong`, else write-after-write.
  Task<> begin(bool strong = true) {
    for (const char* s : {"im_valid_i", "im_chip_i", "start_i", "flip_i", "flip_bit_i"})
      env.sig(s).set(Bits(env.sig(s).width()));
    for (auto& v : view) v.strong(strong ? ~0ull : 0);
    strong_mode = strong;
    env.sig("sem_ext_en_i").set(1);
    for (auto& h : hbm) h->idle();
    clk.start();
    lockstep.start();
    co_await reset_dut(clk, rst);
  }

  Task<> load(unsigned chip, unsigned u, const std::string& text, const std::string& name) {
    co_await load_program(*this, env, prm.chip, chip, u, assemble_for(env, text, name));
  }

  /// The first error of any unit of any chip ("" if none).
  std::string first_error() const {
    for (const auto& v : view)
      for (unsigned u = 0; u < units(); ++u)
        if (std::string e = v.error_of(u); !e.empty()) return e;
    return "";
  }

  /// Start units (mask[c]: chip c's) and run until each is done, or a unit of any chip stops on an
  /// error, or `limit` cycles pass. Returns the error ("" when all finished); a limit is a failure.
  Task<std::string> run_until(std::vector<std::uint64_t> mask, std::uint64_t limit = 400000) {
    for (unsigned c = 0; c < chips(); ++c) view[c].start(mask[c]);
    co_await cycle();
    for (auto& v : view) v.start(0);
    const std::uint64_t c0 = clk.cycle();
    std::vector<std::uint64_t> fin(chips(), 0);
    for (;;) {
      co_await cycle();
      bool all = true;
      for (unsigned c = 0; c < chips(); ++c) {
        fin[c] |= view[c].done() & mask[c];
        all = all && fin[c] == mask[c];
      }
      if (std::string e = first_error(); !e.empty()) co_return e;
      if (all) break;
      std::string running;
      for (unsigned c = 0; c < chips(); ++c)
        if (mask[c] & ~fin[c]) running += fmt::format(" chip {} units {:#x}", c, mask[c] & ~fin[c]);
      check(clk.cycle() - c0 < limit, "not done in {} cycles; still running:{}", limit, running);
    }
    cycles = clk.cycle() - c0;
    co_return "";
  }
  /// run_until, where an error is a failure; the cycles it took.
  Task<std::uint64_t> run(std::vector<std::uint64_t> mask, std::uint64_t limit = 400000) {
    const std::string e = co_await run_until(std::move(mask), limit);
    check(e.empty(), "{}", e);
    co_return cycles;
  }
  std::uint64_t cycles = 0;
  /// Let the last remote packets land after the senders end (they end at their own completions).
  Task<> drain() {
    for (unsigned i = 0; i < 2000 && order.waiting() > 0; ++i) co_await cycle();
    check(order.waiting() == 0, "{} transfers' semaphores never came", order.waiting());
    order.final_check([this](unsigned c) -> const std::vector<std::uint8_t>& { return hbm[c]->mem.image().hbm; },
                      [this](unsigned c, unsigned u, unsigned s) { return view[c].sem(u, s); });
  }

  /// Seeded bytes at `addr` of chip c's HBM.
  std::vector<std::uint8_t> fill(unsigned c, Rng& r, std::uint32_t addr, std::uint32_t n) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = static_cast<std::uint8_t>(r.below(256));
    std::copy(v.begin(), v.end(), hbm[c]->mem.image().hbm.begin() + addr);
    return v;
  }
  /// Every flit the channel corrupted on a link was dropped there for its CRC (no more, no fewer:
  /// a single inverted bit always changes the CRC), and links that dropped flits replayed.
  void expect_link_recovery() {
    const Bits crc = env.sig("link_crc_err_o").bits(), rep = env.sig("link_replay_o").bits();
    std::uint64_t crc_errors = 0, replays = 0, hit = 0;
    for (unsigned l = 0; l < model.links(); ++l) {
      const std::uint64_t e = crc.slice(32 * l, 32), r = rep.slice(32 * l, 32);
      check(e == flits_hit[l], "{}: {} flits corrupted on the wire, {} dropped for their CRC", link_name(model, l),
            flits_hit[l], e);
      check(e == 0 || r > 0, "link {}: {} flits dropped for their CRC but no replay", l, e);
      crc_errors += e;
      replays += r;
      hit += flits_hit[l];
    }
    info("links: {} bits flipped, {} on flits, {} flits dropped for their CRC, {} replays", flips, hit, crc_errors,
         replays);
  }
};

/// The HBM address of chip c's byte `a` as another chip names it (docs/chip.md).
std::uint32_t remote(unsigned c, std::uint32_t a) { return (c + 1) << dma::kChipLsb | a; }

/// Chip `from`'s collective core sends `n` transfers to chip `to`: transfer t copies two pieces of
/// chip from's HBM at src + t * stride (a long one, then a short one whose completion adds 1 to
/// semaphore sem + t % 2 of chip to's collective core) to dst + t * stride of chip to, on queue
/// t % 2. Each queue signals its own semaphore: the queues run independently, so only a queue's
/// transfers land in order. `barrier` on the short one. Registers each transfer with the checker;
/// the program's lines.
std::string send_lines(SysBench& t, Rng& r, unsigned from, unsigned to, std::uint32_t src, std::uint32_t dst,
                       unsigned n, std::uint32_t stride, unsigned sem, bool barrier) {
  const unsigned beat = t.beat();
  std::string p;
  for (unsigned k = 0; k < n; ++k) {
    const std::uint32_t l1 = 4 * beat + 4 * static_cast<std::uint32_t>(r.below(beat / 4)), l2 = beat;
    const std::uint32_t s = src + k * stride, d = dst + k * stride;
    const auto a = t.fill(from, r, s, l1 + l2);
    p += fmt::format("    dma_start queue={} src=hbm:{:#x} dst=hbm:{:#x} len={}\n", k % 2, s, remote(to, d), l1);
    p += fmt::format(
        "    dma_start queue={} src=hbm:{:#x} dst=hbm:{:#x} len={} dsem={}+=1 dsem.unit={} dsem.chip={}{}\n", k % 2,
        s + l1, remote(to, d + l1), l2, sem + k % 2, t.cc() + 1, to + 1, barrier ? " barrier" : "");
    t.order.expect(to, t.cc(), sem + k % 2,
                   Transfer{{{d, a}}, fmt::format("transfer {} from chip {} to chip {}", k, from, to)});
  }
  return p;
}

/// Every chip's collective core sends transfers to its +x neighbour (semaphores 0, 1) and to the
/// chip opposite it (2, 3); where the chips have NeuronCores, each chip's last core sends one to
/// the next chip's last core, which waits for it. Every transfer is checked at its semaphore and in
/// the final images.
Task<> traffic(Env& env, bool strong, bool barrier, double p_flip = 0.02, unsigned n = 4) {
  SysBench t(env, {2, 100, 2, 0.9, 0.9, 0}, p_flip);
  auto r = env.rng("data");
  const unsigned N = t.chips(), len = 3 * t.beat();
  std::vector<std::string> cc(N), core(N);
  for (unsigned c = 0; c < N; ++c) {
    const unsigned next = t.model.neighbour(c, 0), far = t.opposite(c);
    // a transfer is at most 9 beats: 16 beats apart
    const std::uint32_t stride = 16 * t.beat();
    cc[c] = ".stream sync\n" + send_lines(t, r, c, next, 0x1000, 0x4000, n, stride, 0, barrier);
    if (far != c && far != next)
      cc[c] += send_lines(t, r, c, far, 0x1000 + n * stride, 0x4000 + n * stride, n, stride, 2, barrier);
    cc[c] += "    end\n";
    if (t.cores() == 0) continue;
    const unsigned k = t.cores() - 1;
    const auto v = t.fill(c, r, 0x8000, len);
    t.order.expect(next, k, 4, Transfer{{{0xA000, v}}, fmt::format("chip {} core {}'s transfer", c, k)});
    core[c] = fmt::format(
        ".stream sync\n    dma_start queue=0 src=hbm:0x8000 dst=hbm:{:#x} len={} dsem=4+=1 dsem.unit={} "
        "dsem.chip={}\n    sem_wait wait=4>=1\n    end\n",
        remote(next, 0xA000), len, k + 1, next + 1);
  }
  co_await t.begin(strong);
  std::vector<std::uint64_t> mask(N, 1ull << t.cc());
  for (unsigned c = 0; c < N; ++c) {
    co_await t.load(c, t.cc(), cc[c], fmt::format("send{}.s", c));
    if (t.cores() == 0) continue;
    co_await t.load(c, t.cores() - 1, core[c], fmt::format("core{}.s", c));
    mask[c] |= 1ull << (t.cores() - 1);
  }
  const std::uint64_t cycles = co_await t.run(mask);
  co_await t.drain();
  t.expect_link_recovery();
  info("{} transfers checked at their semaphores on {} chips: {} cycles", t.order.checked(), N, cycles);
}

}  // namespace

TRN_TEST(remote_writes_across_the_system_with_bit_errors, .timeout_ns = 1e12) { co_await traffic(env, true, false); }

/// Write-after-write queues, no barrier: a transfer's last descriptor completes onto the other chip's
/// semaphore once its own writes are out, while the long piece before it may still be reading: the
/// semaphore overtakes its data and the ordering checker reports it (SPEC 5.5).
TRN_TEST(waw_without_barrier_lets_a_semaphore_overtake_its_data, .timeout_ns = 1e12, .expect_fail = true) {
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("the semaphore overtook its data") != std::string::npos,
          "failed for another reason: {}", e.what());
  });
  co_await traffic(env, false, false, 0.0);
}
TRN_TEST(waw_with_a_barrier_keeps_the_semaphore_behind_its_data, .timeout_ns = 1e12) {
  co_await traffic(env, false, true, 0.0);
}

/// Every chip accumulates into its +x neighbour's HBM, FP32 and BF16: the images against the sums.
TRN_TEST(remote_accumulate_fp32_and_bf16, .timeout_ns = 1e12) {
  SysBench t(env);
  auto r = env.rng("data");
  const unsigned N = t.chips();
  std::vector<std::string> prog(N);
  for (unsigned from = 0; from < N; ++from) {
    const unsigned to = t.model.neighbour(from, 0);
    std::string p = ".stream sync\n";
    for (unsigned k = 0; k < 2; ++k) {
      const bool bf16 = k == 1;
      const unsigned es = bf16 ? 2 : 4, n = 3 * t.beat() / es;
      const std::uint32_t s = 0x1000 + 0x400 * k, d = 0x3000 + 0x400 * k;
      // finite values of both signs and moderate exponents, so the sums are ordinary numbers
      std::vector<std::uint8_t> a(n * es), sum(n * es);
      for (unsigned i = 0; i < n; ++i) {
        auto value = [&] {
          return static_cast<std::uint32_t>(r.below(1u << 23)) | (120u + r.below(16)) << 23 |
                 static_cast<std::uint32_t>(r.below(2)) << 31;
        };
        const std::uint32_t x = value(), y = value();
        const std::uint32_t xs = bf16 ? x >> 16 : x, ys = bf16 ? y >> 16 : y;
        const std::uint32_t z = dma::acc_add(bf16, ys, xs);
        for (unsigned j = 0; j < es; ++j) {
          a[i * es + j] = static_cast<std::uint8_t>(xs >> (8 * j));
          t.hbm[to]->mem.image().hbm[d + i * es + j] = static_cast<std::uint8_t>(ys >> (8 * j));
          sum[i * es + j] = static_cast<std::uint8_t>(z >> (8 * j));
        }
      }
      std::copy(a.begin(), a.end(), t.hbm[from]->mem.image().hbm.begin() + s);
      const char* ty = bf16 ? "bf16" : "fp32";
      p += fmt::format(
          "    dma_start queue=0 src=hbm:{:#x} dst=hbm:{:#x} len={} stype={} dtype={} dop=acc dsem={}+=1 dsem.unit={} "
          "dsem.chip={}\n",
          s, remote(to, d), n * es, ty, ty, 2 + k, t.cc() + 1, to + 1);
      t.order.expect(to, t.cc(), 2 + k, Transfer{{{d, sum}}, fmt::format("accumulate {} from chip {}", ty, from)});
    }
    prog[from] = p + "    end\n";
  }
  co_await t.begin();
  for (unsigned c = 0; c < N; ++c) co_await t.load(c, t.cc(), prog[c], fmt::format("acc{}.s", c));
  co_await t.run(std::vector<std::uint64_t>(N, 1ull << t.cc()));
  co_await t.drain();
  check(t.order.checked() == 2 * N, "{} accumulates checked of {}", t.order.checked(), 2 * N);
  t.expect_link_recovery();
}

/// A descriptor naming a chip past the system's last is refused at decode (ErrChip): the unit
/// stops, the run ends naming it, and no chip's HBM is written.
TRN_TEST(a_descriptor_for_a_missing_chip_is_refused, .timeout_ns = 1e11) {
  SysBench t(env);
  const unsigned N = t.chips(), bad = N - 1;
  co_await t.begin();
  co_await t.load(
      bad, t.cc(),
      fmt::format(".stream sync\n    dma_start queue=0 src=hbm:0 dst=hbm:{:#x} len=16\n    end\n", remote(N, 0x100)),
      "bad_chip.s");
  std::vector<std::uint64_t> mask(N, 0);
  mask[bad] = 1ull << t.cc();
  const std::string e = co_await t.run_until(mask, 2000);
  check(t.view[bad].err_code(t.cc()) == static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrDma) &&
            t.view[bad].err_detail(t.cc()) == static_cast<unsigned>(sv::dma_pkg::err_e::ErrChip),
        "'{}', expected a DMA error (chip) on chip {}", e, bad);
  for (unsigned c = 0; c < N; ++c) check(t.hbm[c]->writes == 0, "{} writes reached chip {}'s HBM", t.hbm[c]->writes, c);
}

/// Each chip in turn stops on an illegal descriptor (its first instruction) while every other chip
/// waits for a semaphore from the chip before it, which never comes: the run ends within a bounded
/// time at that error, naming the chip, the unit, the stream and the pc, instead of hanging.
TRN_TEST(a_core_error_on_one_chip_ends_the_run, .timeout_ns = 1e12) {
  const auto prm = sys_params(env.cfg().arch);
  CoverPoint& cov = cover_point(sys_name(prm) + ".error_stop", cover_names("chip", prm.chips()));
  for (unsigned bad = 0; bad < prm.chips(); ++bad) {
    SysBench t(env);
    const unsigned N = t.chips();
    co_await t.begin();
    for (unsigned c = 0; c < N; ++c) {
      const unsigned next = t.model.neighbour(c, 0);
      const std::string first =
          c == bad ? "    dma_start queue=0 src=hbm:0 dst=hbm:0x7f000000 len=16\n" : "    sem_wait wait=1>=1\n";
      co_await t.load(c, t.cc(),
                      fmt::format(".stream sync\n{}    dma_start queue=0 src=hbm:0 dst=hbm:{:#x} len=16 dsem=1+=1 "
                                  "dsem.unit={} dsem.chip={}\n    end\n",
                                  first, remote(next, 0x100), t.cc() + 1, next + 1),
                      fmt::format("wait{}.s", c));
    }
    const std::string e = co_await t.run_until(std::vector<std::uint64_t>(N, 1ull << t.cc()), 5000);
    const std::string want =
        fmt::format("chip {} unit {}: error {}", bad, t.cc(), static_cast<unsigned>(sv::isa_pkg::ctl_err_e::CtlErrDma));
    check(e.rfind(want, 0) == 0 && e.find("at pc 0") != std::string::npos,
          "the run ended with '{}', expected '{}... at pc 0'", e, want);
    info("chip {} stopped: the run ended after {} cycles: {}", bad, t.clk.cycle(), e);
    cov.hit_index(bad);
  }
}

namespace {

// ---------------------------------------------------------------- collectives

/// How a collective runs: the DMA queues' order, the barrier flag, the longest descriptor, the
/// chunk of a segment per pipelined instance, the channel's bit errors.
struct CollOpts {
  bool strong = true, barrier = false;
  std::uint32_t desc = 65536;
  std::uint64_t chunk = 0, bytes_per_rank_segment = 64;
  double p_flip = 0.02;
};

/// A collective compiled for this system (rank r as collective::place_torus puts it): the
/// programs, or why it cannot run here.
struct Compiled {
  collective::EmitConfig ec;
  collective::Programs P;
  std::string why;  ///< not "" when the schedule does not fit the system
};
Compiled compile(const SysModel::Params& prm, collective::Op op, collective::Algo algo, collective::Elem e,
                 const CollOpts& o, std::uint32_t base = 0x1000) {
  Compiled c;
  const unsigned N = prm.chips();
  c.ec.op = op;
  c.ec.algo = algo;
  c.ec.elem = e;
  c.ec.bytes = N * o.bytes_per_rank_segment;
  c.ec.chunk = o.chunk;
  c.ec.desc_bytes = o.desc;
  c.ec.barrier = o.barrier;
  c.ec.unit = prm.chip.cores;
  c.ec.queues = prm.chip.core.core.queues;
  c.ec.base = base;
  c.ec.hbm_bytes = prm.chip.core.core.hbm_bytes;
  try {
    c.ec.place = collective::place_torus(dims_of(prm), 0, algo);
    c.P = collective::emit(c.ec);
  } catch (const collective::Error& err) {
    c.why = err.what();
  }
  return c;
}

/// Load a compiled collective with seeded inputs onto t's chips; the inputs.
Task<std::vector<std::vector<std::uint32_t>>> load_collective(SysBench& t, const Compiled& c, std::uint64_t seed) {
  auto in = collective::seeded_inputs(c.P, c.ec.elem, seed);
  for (unsigned k = 0; k < c.P.schedule.ranks; ++k) {
    const unsigned chip = c.ec.place.chip[k];
    const auto b = collective::to_bytes(in[k], c.ec.elem);
    std::copy(b.begin(), b.end(), t.hbm[chip]->mem.image().hbm.begin() + c.ec.base);
    co_await t.load(chip, t.cc(), c.P.text[k], fmt::format("rank{}.s", k));
  }
  co_return in;
}

/// Every rank's result against the reference ("" when all equal).
std::string check_collective(SysBench& t, const Compiled& c, const std::vector<std::vector<std::uint32_t>>& in) {
  const auto& P = c.P;
  const auto want = collective::reference(c.ec.op, c.ec.algo, c.ec.elem, c.ec.place.levels,
                                          static_cast<unsigned>(P.seg_bytes / collective::elem_bytes(c.ec.elem)), in,
                                          c.ec.place.rings, c.ec.place.stripes);
  for (unsigned k = 0; k < P.schedule.ranks; ++k) {
    const auto& h = t.hbm[c.ec.place.chip[k]]->mem.image().hbm;
    const std::string d = collective::first_difference(
        k, collective::from_bytes(h.data() + P.output_addr(k, c.ec.base), P.output_bytes(), c.ec.elem), want[k]);
    if (!d.empty()) return fmt::format("chip {} ({})", c.ec.place.chip[k], d);
  }
  return "";
}

/// Run one collective on a fresh system; the difference from the reference ("" none). A unit's
/// error or a run past its limit is a failure.
Task<std::string> run_collective(Env& env, const Compiled& c, const CollOpts& o, std::uint64_t seed) {
  SysBench t(env, {2, 60, 2, 0.9, 0.9, 0}, o.p_flip);
  co_await t.begin(o.strong);
  const auto in = co_await load_collective(t, c, seed);
  std::vector<std::uint64_t> mask(t.chips(), 0);
  for (unsigned chip : c.ec.place.chip) mask[chip] = 1ull << t.cc();
  const std::uint64_t cycles = co_await t.run(mask, 2000000);
  const std::string d = check_collective(t, c, in);
  info("{} by {} ({}), {} B over {} ranks ({} instance(s), {} transfers in {} descriptors): {} cycles{}",
       collective::op_name(c.ec.op), collective::algo_name(c.ec.algo), collective::elem_name(c.ec.elem), c.ec.bytes,
       c.P.schedule.ranks, c.P.instances, c.P.transfers, c.P.descriptors, cycles, d.empty() ? "" : ": " + d);
  if (o.p_flip > 0) t.expect_link_recovery();
  co_return d;
}

/// The combinations a schedule does not exist for (collective::build's refusals): hierarchical
/// schedules (and striped ones, hrings) on a system without a second level (a ring) or for
/// all-to-all, striped rings for all-to-all, KangaRing (its ranks are pairs on a chip; a system top's ranks are chips),
/// and a permute by anything but mesh. Any other refusal is a failure.
bool refused_by_design(collective::Op op, collective::Algo a, bool two_levels) {
  if (op == collective::Op::permute) return a != collective::Algo::mesh;
  if (a == collective::Algo::hier || a == collective::Algo::hrings)
    return !two_levels || op == collective::Op::all_to_all;
  if (a == collective::Algo::rings) return op == collective::Op::all_to_all;
  if (a == collective::Algo::kangaring) return true;  // pairs of a chip's ranks; these ranks are chips
  return false;
}

/// The collectives this system runs, as cover bins "op*algo*elem": every combination a schedule
/// exists for on its topology (the others are refused by design, which every_algorithm checks).
CoverPoint& collective_point(const SysModel::Params& prm, bool two_levels) {
  std::vector<std::string> bins;
  for (collective::Op op : collective::kOps)
    for (collective::Algo a : collective::kAlgos)
      if (!refused_by_design(op, a, two_levels))
        for (collective::Elem e : {collective::Elem::fp32, collective::Elem::bf16})
          bins.push_back(
              fmt::format("{}*{}*{}", collective::op_name(op), collective::algo_name(a), collective::elem_name(e)));
  return cover_point(sys_name(prm) + ".collectives", std::move(bins));
}

/// `op` by every algorithm this system's topology runs, FP32 and BF16, under bit errors on every
/// link: every rank's result equals the reference bit for bit (the DMA's accumulate is the
/// reference's addition, in the algorithm's order).
Task<> every_algorithm(Env& env, collective::Op op) {
  const auto prm = sys_params(env.cfg().arch);
  const bool two_levels = dims_of(prm).size() > 1 && prm.chip.ky > 1;
  CoverPoint& cov = collective_point(prm, two_levels);
  unsigned ran = 0;
  for (collective::Algo a : collective::kAlgos)
    for (collective::Elem e : {collective::Elem::fp32, collective::Elem::bf16}) {
      const Compiled c = compile(prm, op, a, e, CollOpts{});
      if (!c.why.empty()) {
        check(refused_by_design(op, a, two_levels), "{} by {} ({}) was refused: {}", collective::op_name(op),
              collective::algo_name(a), collective::elem_name(e), c.why);
        info("{} by {}: no such schedule here ({})", collective::op_name(op), collective::algo_name(a), c.why);
        break;
      }
      check(!refused_by_design(op, a, two_levels), "{} by {} ran, but no such schedule should exist here",
            collective::op_name(op), collective::algo_name(a));
      const std::string d = co_await run_collective(env, c, CollOpts{}, env.rng("data").next());
      check(d.empty(), "{} by {} ({}): {}", collective::op_name(op), collective::algo_name(a), collective::elem_name(e),
            d);
      cov.hit(fmt::format("{}*{}*{}", collective::op_name(op), collective::algo_name(a), collective::elem_name(e)));
      ++ran;
    }
  unsigned want = 0;
  for (collective::Algo a : collective::kAlgos) want += refused_by_design(op, a, two_levels) ? 0 : 2;
  check(ran == want, "{} ran by {} algorithm-type pairs, expected {}", collective::op_name(op), ran, want);
}

}  // namespace

TRN_TEST(all_reduce_by_every_algorithm, .timeout_ns = 1e13) {
  co_await every_algorithm(env, collective::Op::all_reduce);
}
TRN_TEST(reduce_scatter_by_every_algorithm, .timeout_ns = 1e13) {
  co_await every_algorithm(env, collective::Op::reduce_scatter);
}
TRN_TEST(all_gather_by_every_algorithm, .timeout_ns = 1e13) {
  co_await every_algorithm(env, collective::Op::all_gather);
}
TRN_TEST(all_to_all_by_every_algorithm, .timeout_ns = 1e13) {
  co_await every_algorithm(env, collective::Op::all_to_all);
}
TRN_TEST(permute_by_every_algorithm, .timeout_ns = 1e13) { co_await every_algorithm(env, collective::Op::permute); }

/// A ring all-reduce pipelined in instances (half a segment each: 2 x 2(n - 1) rounds' semaphores
/// fit a collective core's 32 up to 8 ranks).
TRN_TEST(pipelined_ring_all_reduce, .timeout_ns = 1e13) {
  const auto prm = sys_params(env.cfg().arch);
  CollOpts o;
  o.bytes_per_rank_segment = 256;
  o.chunk = 128;
  const Compiled c = compile(prm, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32, o);
  check(c.why.empty(), "{}", c.why);
  const std::string d = co_await run_collective(env, c, o, env.rng("data").next());
  check(d.empty(), "{}", d);
}

namespace {
/// A ring all-reduce on write-after-write queues, each transfer cut into one-beat descriptors, so
/// a transfer's semaphore may overtake its data: `barrier` on the semaphore's descriptor or not.
/// Runs up to `tries` seeds; the first difference from the reference ("" when every run equals it).
Task<std::string> waw_all_reduce(Env& env, bool barrier, unsigned tries, bool with_bf16 = false) {
  const auto prm = sys_params(env.cfg().arch);
  CollOpts o;
  o.strong = false;
  o.barrier = barrier;
  o.desc = prm.chip.core.core.beat_bytes;
  o.bytes_per_rank_segment = 8 * prm.chip.core.core.beat_bytes;
  o.p_flip = 0;
  auto r = env.rng("data");
  for (unsigned k = 0; k < tries; ++k) {
    // with_bf16: every other try accumulates in BF16
    const auto e = with_bf16 && k % 2 == 1 ? collective::Elem::bf16 : collective::Elem::fp32;
    const Compiled c = compile(prm, collective::Op::all_reduce, collective::Algo::ring, e, o);
    check(c.why.empty(), "{}", c.why);
    if (std::string d = co_await run_collective(env, c, o, r.next()); !d.empty()) co_return d;
  }
  co_return "";
}
}  // namespace

/// Without the barrier a ring all-reduce on write-after-write queues computes on data that has
/// not landed: the result differs from the reference (SPEC 5.5), within four seeds.
TRN_TEST(waw_without_barrier_breaks_a_collective, .timeout_ns = 1e13, .expect_fail = true) {
  expect_failure([](const TestFailure& e) {
    check(std::string(e.what()).find("differ from the reference") != std::string::npos, "failed for another reason: {}",
          e.what());
  });
  const std::string d = co_await waw_all_reduce(env, false, 4);
  check(d.empty(), "write-after-write without the barrier: {}", d);
}
TRN_TEST(waw_with_a_barrier_keeps_a_collective_exact, .timeout_ns = 1e13) {
  const std::string d = co_await waw_all_reduce(env, true, 2, true);  // FP32, then BF16
  check(d.empty(), "write-after-write with the barrier: {}", d);
}

/// A GEMM on every chip's first NeuronCore while an all-reduce moves data between the chips'
/// collective cores, on the same HBM ports and fabrics: the kernel's result against its reference
/// and the all-reduce's against its own (the contention the system model alone cannot show).
TRN_TEST(a_gemm_beside_an_all_reduce, .timeout_ns = 1e13, .skip = kCores == 0) {
  const auto prm = sys_params(env.cfg().arch);
  check(prm.chip.cores > 0, "this system's chips have no NeuronCore");
  const std::uint32_t half = prm.chip.core.core.hbm_bytes / 2;
  CollOpts o;
  o.bytes_per_rank_segment = 256;
  const Compiled c = compile(prm, collective::Op::all_reduce, collective::Algo::ring, collective::Elem::fp32, o, half);
  check(c.why.empty(), "{}", c.why);
  const kernels::Kernel* k = kernels::find("gemm");
  check(k != nullptr, "no kernel gemm");
  SysBench t(env, {2, 60, 2, 0.9, 0.9, 0}, o.p_flip);
  std::vector<kernels::Case> cases;
  for (unsigned chip = 0; chip < t.chips(); ++chip) {
    cases.push_back(k->make(env.cfg().arch, env.rng(fmt::format("gemm{}", chip)).next(), {}));
    for (const auto& b : cases.back().outputs)
      check(b.addr + b.bytes.size() <= half, "the gemm case's output does not fit below the collective's memory");
    for (const auto& b : cases.back().inputs) {
      check(b.addr + b.bytes.size() <= half, "the gemm case does not fit below the collective's memory");
      std::copy(b.bytes.begin(), b.bytes.end(), t.hbm[chip]->mem.image().hbm.begin() + b.addr);
    }
  }
  co_await t.begin();
  const auto in = co_await load_collective(t, c, env.rng("data").next());
  std::vector<std::uint64_t> mask(t.chips(), 1ull << t.cc() | 1ull);
  for (unsigned chip = 0; chip < t.chips(); ++chip) {
    isa::Program p;
    try {
      p = kernels::assemble(*k, cases[chip], env.cfg().arch);
    } catch (const isa::Error& e) {
      check(false, "{}", e.what());
    }
    co_await load_program(t, env, prm.chip, chip, 0, p);
  }
  const std::uint64_t cycles = co_await t.run(mask, 2000000);
  const std::string d = check_collective(t, c, in);
  check(d.empty(), "the all-reduce beside the GEMMs: {}", d);
  for (unsigned chip = 0; chip < t.chips(); ++chip) {
    const std::string kd = kernels::compare(cases[chip], t.hbm[chip]->mem.image().hbm);
    check(kd.empty(), "chip {}'s GEMM beside the all-reduce differs from its reference:\n{}", chip, kd);
    for (const auto& [s, v] : cases[chip].sems)
      check(t.view[chip].sem(0, s) == v, "chip {}'s GEMM: semaphore {} is {}, expected {}", chip, s,
            t.view[chip].sem(0, s), v);
  }
  t.expect_link_recovery();
  info("a GEMM on every chip's core 0 beside a ring all-reduce of {} B: {} cycles", c.ec.bytes, cycles);
}

/// Throughput for `make bench`: the traffic above, BENCH_CYCLES long at least.
TRN_TEST(throughput, .timeout_ns = 1e13) {
  BenchTimer timer;
  std::uint64_t cycles = 0;
  const std::uint64_t want = bench_cycles(20000);
  while (cycles < want) {
    SysBench t(env, {4, 40, 2, 0.9, 0.9, 0}, 0.0);
    auto r = env.rng("data");
    co_await t.begin();
    for (unsigned c = 0; c < t.chips(); ++c)
      co_await t.load(c, t.cc(),
                      ".stream sync\n" +
                          send_lines(t, r, c, t.model.neighbour(c, 0), 0x1000, 0x4000, 8, 16 * t.beat(), 0, false) +
                          "    end\n",
                      fmt::format("send{}.s", c));
    co_await t.run(std::vector<std::uint64_t>(t.chips(), 1ull << t.cc()));
    cycles += t.clk.cycle();
  }
  timer.report(cycles);
}

/// A model wrong in one bit of one part's port at one cycle: a probe must fail there, naming it.
Task<> inject_selftest(Env& env, const std::string& signal, std::uint64_t cycle, unsigned bit) {
  InjectGuard wrong_model(signal, cycle, bit);
  expect_mismatch(signal, cycle);
  co_await traffic(env, true, false, 0.0);
}
TRN_TEST(selftest_probe_catches_wrong_nic_port, .timeout_ns = 1e12, .expect_fail = true) {
  co_await inject_selftest(env, fmt::format("{}.g_chip[2].u_chip.u_nic.rx_o.addr", kTop), 300, 3);
}
TRN_TEST(selftest_probe_catches_wrong_link_crc, .timeout_ns = 1e12, .expect_fail = true) {
  co_await inject_selftest(env, fmt::format("{}.g_chip[1].u_chip.g_link[0].u_tx.tx_crc_o", kTop), 300, 5);
}
TRN_TEST(selftest_probe_catches_wrong_collective_core_port, .timeout_ns = 1e12, .expect_fail = true) {
  co_await inject_selftest(env, fmt::format("{}.g_chip[3].u_chip.g_cc[0].u_cc.hbm_wr_o.addr", kTop), 300, 2);
}
/// On a switch: the switch router's output and a switch port's link sender.
TRN_TEST(selftest_probe_catches_wrong_switch_port, .timeout_ns = 1e12, .expect_fail = true, .skip = !TRN_SYS_SWITCH) {
  co_await inject_selftest(env, fmt::format("{}.u_switch.out_flit_o", kTop), 300, 7);
}
TRN_TEST(selftest_probe_catches_wrong_switch_link, .timeout_ns = 1e12, .expect_fail = true, .skip = !TRN_SYS_SWITCH) {
  co_await inject_selftest(env, fmt::format("{}.g_port[5].u_tx.tx_seq_o", kTop), 300, 1);
}

TRN_BENCH_MAIN(TRN_VTOP, TRN_BENCH_NAME)
