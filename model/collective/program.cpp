// Collective schedules compiled into collective-core programs (program.hpp, docs/collectives.md).
#include "collective/program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "dma/desc.hpp"
#include "numerics/format.hpp"

namespace trn::collective {

namespace {

/// A run of bytes a transfer moves: source and destination offsets from the rank's base.
struct Run {
  std::uint64_t src = 0, dst = 0, bytes = 0;
};

std::string hbm(unsigned my_chip, unsigned chip, std::uint64_t addr) {
  if (chip == my_chip) return fmt::format("hbm:{:#x}", addr);
  return fmt::format("hbm:{:#x}", (std::uint64_t{chip} + 1) << dma::kChipLsb | addr);
}

}  // namespace

std::uint32_t Programs::output_addr(unsigned rank, std::uint32_t base) const {
  switch (schedule.op) {
    case Op::reduce_scatter:
      return base + static_cast<std::uint32_t>(rank * schedule.stripes * seg_bytes);  // its share: its stripes
    case Op::all_to_all:
    case Op::permute:
      return region_addr(Region::out, base);
    default:
      return base;
  }
}

std::uint64_t Programs::output_bytes() const {
  return schedule.op == Op::reduce_scatter ? schedule.stripes * seg_bytes : region_bytes;
}

std::vector<std::vector<std::uint32_t>> seeded_inputs(const Programs& p, Elem e, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  const unsigned n = p.schedule.ranks;
  std::vector<std::vector<std::uint32_t>> in(n, std::vector<std::uint32_t>(p.region_bytes / elem_bytes(e)));
  for (auto& v : in)
    for (auto& x : v) {
      const float f = d(g);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &f, 4);
      x = e == Elem::fp32 ? bits : numerics::encode(numerics::Format::bf16, bits);
    }
  return in;
}

std::vector<std::uint8_t> to_bytes(const std::vector<std::uint32_t>& codes, Elem e) {
  const unsigned es = elem_bytes(e);
  std::vector<std::uint8_t> b(codes.size() * es);
  for (std::size_t i = 0; i < codes.size(); ++i)
    for (unsigned j = 0; j < es; ++j) b[i * es + j] = static_cast<std::uint8_t>(codes[i] >> (8 * j));
  return b;
}

std::vector<std::uint32_t> from_bytes(const std::uint8_t* bytes, std::uint64_t n_bytes, Elem e) {
  const unsigned es = elem_bytes(e);
  std::vector<std::uint32_t> v(n_bytes / es);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (unsigned j = 0; j < es; ++j) v[i] |= std::uint32_t{bytes[i * es + j]} << (8 * j);
  return v;
}

std::string first_difference(unsigned rank, const std::vector<std::uint32_t>& got,
                             const std::vector<std::uint32_t>& want) {
  if (got.size() != want.size())
    return fmt::format("rank {}: {} elements of output, the reference has {}", rank, got.size(), want.size());
  unsigned bad = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  if (!bad) return "";
  return fmt::format(
      "rank {}: {} of {} elements differ from the reference, the first element {} is {:#x}, expected {:#x}", rank, bad,
      got.size(), first, got[first], want[first]);
}

Programs emit(const EmitConfig& c) {
  if (c.algo == Algo::automatic) throw Error("emit: name the algorithm (not auto)");
  const unsigned n = static_cast<unsigned>(c.place.chip.size());
  const unsigned es = elem_bytes(c.elem);
  check_elements("size", c.bytes, c.elem);
  check_elements("chunk", c.chunk, c.elem, true);
  if (c.queues == 0) throw Error("emit: the collective core has no DMA queue");
  if (c.desc_bytes == 0) throw Error("emit: a descriptor of 0 bytes");
  if (c.channels == 0 || c.unit + c.channels > 31)
    throw Error(fmt::format("emit: {} channels from unit {}: a chip addresses 31 units", c.channels, c.unit));
  Programs P;
  P.channels = c.channels;
  P.schedule = build(c.op, c.algo, n, c.place.levels, c.place.rings, c.place.stripes);
  const Schedule& S = P.schedule;
  const unsigned T = S.rounds();
  P.seg_bytes = (c.bytes / es + S.segments() - 1) / S.segments() * es;
  P.region_bytes = P.seg_bytes * S.segments();
  P.regions = S.uses_scratch ? 3 : S.uses_out ? 2 : 1;
  const std::uint64_t cs = chunk_bytes(c.chunk, es, P.seg_bytes, S.stripes);
  P.chunk_bytes = cs;
  P.instances = static_cast<unsigned>((P.seg_bytes + cs - 1) / cs);
  const std::uint64_t flag = c.base + P.regions * P.region_bytes;  // channel k's flag word at flag + 16 k
  const std::uint64_t end = flag + 16 * c.channels;
  if (end > (std::uint64_t{1} << dma::kLocalBits) || (c.hbm_bytes && end > c.hbm_bytes))
    throw Error(
        fmt::format("emit: {} region(s) of {} B from {:#x} and the flag word end at {:#x}, beyond the HBM's {} B",
                    P.regions, P.region_bytes, c.base, end, c.hbm_bytes ? c.hbm_bytes : 1u << dma::kLocalBits));
  P.flag_addr = static_cast<std::uint32_t>(flag);
  // the rounds that send ready flags (every rank at the same rounds), and the semaphores
  std::vector<int> flag_slot(T, -1);
  unsigned gated = 0;
  for (unsigned t = 0; t < T; ++t) {
    bool once = false;
    if (S.gate(t, once) == static_cast<int>(t)) flag_slot[t] = static_cast<int>(gated++);
  }
  const unsigned C = P.instances;
  const unsigned K = c.channels;
  const unsigned CL = (C + K - 1) / K;  // instances a channel runs (the most), each with its semaphores
  // who sends to whom in every round: recv[t][x] lists the senders of x's round-t transfers (a
  // sender once per transfer)
  std::vector<std::vector<std::vector<unsigned>>> recv(T, std::vector<std::vector<unsigned>>(n));
  {
    std::vector<Xfer> xs0;
    for (unsigned t = 0; t < T; ++t)
      for (unsigned r = 0; r < n; ++r) {
        xs0.clear();
        S.sends(r, t, xs0);
        for (const Xfer& x : xs0) recv[t].at(x.dst).push_back(r);
      }
  }
  // Semaphores: one per (instance, round) where they fit (a count never mixes rounds); otherwise
  // one per (instance, sender) holding the running count of that sender's transfers, which a
  // strong-order-write queue delivers in order (docs/collectives.md, "Programs for the RTL").
  std::vector<std::vector<unsigned>> slot(n);  // per rank: its senders, each one's slot
  unsigned width = 0;
  for (unsigned x = 0; x < n; ++x) {
    for (unsigned t = 0; t < T; ++t)
      for (unsigned q : recv[t][x])
        if (std::find(slot[x].begin(), slot[x].end(), q) == slot[x].end()) slot[x].push_back(q);
    width = std::max(width, static_cast<unsigned>(slot[x].size()));
  }
  P.per_sender = CL * (T + gated) > 32;
  P.semaphores = P.per_sender ? CL * (width + gated) : CL * (T + gated);
  if (P.semaphores > 32)
    throw Error(fmt::format(
        "emit: {} instances x ({} rounds + {} gated rounds) need {} semaphores a round, or {} x ({} senders + {}) a "
        "sender; a collective core has 32 (use a larger --chunk)",
        CL, T, gated, CL * (T + gated), CL, width, gated, CL * (width + gated)));
  const unsigned D = P.per_sender ? width : T;  // data semaphores per instance
  auto sender_slot = [&](unsigned x, unsigned q) {
    return static_cast<unsigned>(std::find(slot[x].begin(), slot[x].end(), q) - slot[x].begin());
  };
  // the semaphore transfer (sender q to rank x, round t, instance inst) adds to on its channel's
  // core, and the waits of rank x after round t: (semaphore, value) pairs
  auto data_sem = [&](unsigned inst, unsigned t, unsigned x, unsigned q) {
    return inst / K * D + (P.per_sender ? sender_slot(x, q) : t);
  };
  auto waits = [&](unsigned inst, unsigned t, unsigned x) {
    inst /= K;
    std::vector<std::pair<unsigned, unsigned>> w;
    if (!P.per_sender) {
      if (S.expect(x, t) > 0) w.emplace_back(inst * D + t, S.expect(x, t));
      return w;
    }
    for (unsigned q : recv[t][x]) {
      if (std::any_of(w.begin(), w.end(), [&](const auto& e) { return e.first == inst * D + sender_slot(x, q); }))
        continue;
      unsigned total = 0;  // q's transfers to x in rounds 0..t
      for (unsigned u = 0; u <= t; ++u)
        total += static_cast<unsigned>(std::count(recv[u][x].begin(), recv[u][x].end(), q));
      w.emplace_back(inst * D + sender_slot(x, q), total);
    }
    return w;
  };
  auto flag_sem = [&](unsigned inst, unsigned t) {
    return CL * D + inst / K * gated + static_cast<unsigned>(flag_slot[t]);
  };
  // flags owed to rank r at gated round g: one from every rank that r adds into from then on
  std::vector<std::vector<unsigned>> owed(n, std::vector<unsigned>(T, 0));
  std::vector<unsigned> peers;
  for (unsigned t = 0; t < T; ++t)
    if (flag_slot[t] >= 0)
      for (unsigned q = 0; q < n; ++q) {
        peers.clear();
        S.senders(q, t, peers);
        for (unsigned p : peers) ++owed.at(p)[t];
      }

  const char* ty = c.elem == Elem::fp32 ? "fp32" : "bf16";
  std::vector<Xfer> xs;
  std::vector<Run> runs;
  P.text.resize(std::size_t{n} * K);
  P.sends.resize(n);
  for (unsigned r = 0; r < n; ++r)
    for (unsigned ch = 0; ch < K; ++ch) {
      const unsigned me = c.place.chip[r];
      const unsigned unit = c.unit + ch;
      const std::uint64_t fw = flag + 16 * ch;
      std::string& o = P.text[r * K + ch];
      o += fmt::format("; {} by {} of {} B ({}) over {} ranks: rank {} on chip {}, collective core unit {}\n",
                       op_name(S.op), algo_name(S.algo), c.bytes, elem_name(c.elem), n, r, me, unit);
      o += fmt::format("; {}\n", S.describe);
      o += fmt::format("; segments of {} B from {:#x}; {} instance(s) of {} B a segment; flag word {:#x}\n",
                       P.seg_bytes, c.base, C, cs, fw);
      if (K > 1)
        o += fmt::format("; channel {} of {}: instances i = {} mod {}, semaphores of instance i at i / {}\n", ch, K, ch,
                         K, K);
      if (P.per_sender)
        o += fmt::format(
            "; semaphore i * {} + s: the running count of transfers of instance i from this rank's s-th sender\n", D);
      else
        o += fmt::format("; semaphore i * {} + t: transfers to this rank in round t of instance i\n", T);
      if (gated) o += fmt::format("; semaphore {} + i * {} + k: ready flags of the k-th gated round\n", CL * D, gated);
      o += ".stream sync\n";
      for (unsigned t = 0; t < T; ++t) {
        bool once = false;
        const int g = S.gate(t, once);
        xs.clear();
        S.sends(r, t, xs);
        for (unsigned inst = ch; inst < C; inst += K) {
          o += fmt::format("; round {} instance {}\n", t, inst);
          if (t > 0)
            for (const auto& [sem, val] : waits(inst, t - 1, r))
              o += fmt::format("    sem_wait wait={}>={}\n", sem, val);
          if (g == static_cast<int>(t)) {
            peers.clear();
            S.senders(r, t, peers);
            for (unsigned q : peers) {
              const unsigned qc = c.place.chip[q];
              o += fmt::format("    dma_start queue={} src={} dst={} len=4 dsem={}+=1 dsem.unit={} dsem.chip={}\n",
                               qc % c.queues, hbm(me, me, fw), hbm(me, qc, fw), flag_sem(inst, t),
                               qc == me ? 0 : unit + 1, qc == me ? 0 : qc + 1);
              ++P.descriptors;
              if (qc != me)
                P.sends[r].push_back(Programs::Send{qc, inst, t, ch, {{static_cast<std::uint32_t>(fw), 4u}}, 4});
            }
          }
          const std::uint64_t lo = inst * cs, len = std::min(cs, P.seg_bytes - lo);
          bool waited = false;
          for (const Xfer& x : xs) {
            if (g >= 0 && x.dst != r && !waited && owed[r][static_cast<unsigned>(g)] > 0) {
              o += fmt::format("    sem_wait wait={}>={}\n", flag_sem(inst, static_cast<unsigned>(g)),
                               owed[r][static_cast<unsigned>(g)]);
              waited = true;
            }
            runs.clear();
            for (const Piece& p : x.pieces) {
              const unsigned step = len == P.seg_bytes ? p.count : 1;
              for (unsigned k = 0; k < p.count; k += step) {
                const std::uint64_t so =
                    static_cast<unsigned>(x.src_reg) * P.region_bytes + (p.src_seg + k) * P.seg_bytes + lo;
                const std::uint64_t d =
                    static_cast<unsigned>(x.dst_reg) * P.region_bytes + (p.dst_seg + k) * P.seg_bytes + lo;
                if (!runs.empty() && runs.back().src + runs.back().bytes == so &&
                    runs.back().dst + runs.back().bytes == d)
                  runs.back().bytes += step * len;
                else
                  runs.push_back(Run{so, d, step * len});
              }
            }
            const unsigned dc = c.place.chip[x.dst];
            std::vector<Run> descs;
            for (const Run& run : runs)
              for (std::uint64_t off = 0; off < run.bytes; off += c.desc_bytes)
                descs.push_back(
                    Run{run.src + off, run.dst + off, std::min<std::uint64_t>(c.desc_bytes, run.bytes - off)});
            for (std::size_t i = 0; i < descs.size(); ++i) {
              const Run& d = descs[i];
              o += fmt::format("    dma_start queue={} src={} dst={} len={}", dc % c.queues,
                               hbm(me, me, c.base + d.src), hbm(me, dc, c.base + d.dst), d.bytes);
              o += x.reduce ? fmt::format(" stype={} dtype={} dop=acc", ty, ty)
                            : std::string(" stype=bytes dtype=bytes");
              if (i + 1 == descs.size()) {
                o += fmt::format(" dsem={}+=1 dsem.unit={} dsem.chip={}", data_sem(inst, t, x.dst, r),
                                 dc == me ? 0 : unit + 1, dc == me ? 0 : dc + 1);
                if (c.barrier) o += " barrier";
              }
              o += "\n";
            }
            if (dc != me) {
              Programs::Send sd{dc, inst, t, ch, {}, 0};
              for (const Run& d : descs) {
                sd.ranges.emplace_back(static_cast<std::uint32_t>(c.base + d.dst), static_cast<std::uint32_t>(d.bytes));
                sd.bytes += d.bytes;
              }
              P.sends[r].push_back(std::move(sd));
            }
            P.descriptors += descs.size();
            ++P.transfers;
          }
        }
      }
      if (T > 0)
        for (unsigned inst = ch; inst < C; inst += K)
          for (const auto& [sem, val] : waits(inst, T - 1, r)) o += fmt::format("    sem_wait wait={}>={}\n", sem, val);
      o += "    end\n";
    }
  return P;
}

}  // namespace trn::collective
