// Collective schedules (docs/collectives.md): placements, `auto`, and the phases every algorithm is
// built from.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <utility>

#include "collective/collective.hpp"
#include "system/system.hpp"

namespace trn::collective {

namespace {
constexpr const char* kOpNames[] = {"all-reduce", "reduce-scatter", "all-gather", "all-to-all", "permute"};
constexpr const char* kAlgoNames[] = {"auto", "ring", "mesh", "rdh", "hier", "rings", "kangaring", "hrings"};
constexpr const char* kElemNames[] = {"fp32", "bf16"};
constexpr const char* kFidNames[] = {"flow", "cycle"};

template <class E, std::size_t N>
std::optional<E> lookup(std::string_view s, const char* const (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  return std::nullopt;
}
bool pow2(unsigned n) { return n && !(n & (n - 1)); }
unsigned floor_pow2(unsigned n) {
  unsigned p = 1;
  while (2 * p <= n) p *= 2;
  return p;
}
}  // namespace

const char* op_name(Op o) { return kOpNames[static_cast<unsigned>(o)]; }
const char* algo_name(Algo a) { return kAlgoNames[static_cast<unsigned>(a)]; }
const char* elem_name(Elem e) { return kElemNames[static_cast<unsigned>(e)]; }
const char* fidelity_name(Fidelity f) { return kFidNames[static_cast<unsigned>(f)]; }
std::optional<Op> parse_op(std::string_view s) { return lookup<Op>(s, kOpNames); }

void check_elements(const char* what, std::uint64_t bytes, Elem e, bool zero_ok) {
  const unsigned es = elem_bytes(e);
  if (bytes % es || (bytes == 0 && !zero_ok))
    throw Error(fmt::format("{} {} B is not a whole number of {} elements ({} B each{})", what, bytes, elem_name(e), es,
                            zero_ok ? "; 0: whole segments" : ""));
}
std::optional<Algo> parse_algo(std::string_view s) { return lookup<Algo>(s, kAlgoNames); }
std::optional<Elem> parse_elem(std::string_view s) { return lookup<Elem>(s, kElemNames); }
// "flit", the name of the level the cycle level replaced (its packets went through the same
// network, from a transaction-level DMA), is the cycle level
std::optional<Fidelity> parse_fidelity(std::string_view s) {
  return s == "flit" ? std::optional{Fidelity::cycle} : lookup<Fidelity>(s, kFidNames);
}

double busbw_factor(Op o, unsigned n) {
  switch (o) {
    case Op::all_reduce:
      return 2.0 * (n - 1) / n;
    case Op::permute:
      return 1.0;
    default:
      return static_cast<double>(n - 1) / n;
  }
}

// ---------------------------------------------------------------- placement
namespace {
/// A boustrophedon walk through a torus of `dims` (first dimension fastest): consecutive entries
/// are neighbours, and with even sizes the last is a neighbour of the first.
std::vector<std::vector<unsigned>> snake(const std::vector<unsigned>& dims) {
  std::vector<std::vector<unsigned>> walk{{}};
  for (unsigned d : dims) {
    std::vector<std::vector<unsigned>> next;
    for (unsigned v = 0; v < d; ++v) {
      for (std::size_t i = 0; i < walk.size(); ++i) {
        auto c = walk[v % 2 ? walk.size() - 1 - i : i];
        c.push_back(v);
        next.push_back(std::move(c));
      }
    }
    walk = std::move(next);
  }
  return walk;
}
/// Edge-disjoint Hamiltonian cycles of a torus of `dims` (chip ids as torus_id numbers them), one
/// per dimension of more than one chip, that together take every link: a ring on each, both ways,
/// uses every link of the torus in both directions once. Found from the dimensions' own 2-factors
/// (factor d: every link of dimension d, a union of rings) by square switches: a square with two
/// opposite links in factor A and the other two in B trades them, which keeps every chip at two
/// links of each factor; a switch is kept when the factors have fewer cycles after it (and, to walk
/// over plateaus, one in four that leaves the count as it was), until each factor is one cycle.
/// Seeded, so the same dims give the same cycles. Empty where a dimension has two chips (its two
/// directions reach the same chip) or the search gives up.
std::vector<std::vector<unsigned>> disjoint_cycles(const std::vector<unsigned>& dims) {
  std::vector<unsigned> ds, stride;  // the dimensions of more than one chip, their torus_id strides
  unsigned n = 1, st = 1;
  for (unsigned d : dims) {
    if (d == 2) return {};
    if (d > 2) ds.push_back(d), stride.push_back(st);
    st *= d;
    n *= d;
  }
  const unsigned k = static_cast<unsigned>(ds.size());
  if (k == 0) return {};
  auto step = [&](unsigned v, unsigned d, bool up) {
    const unsigned c = v / stride[d] % ds[d], cn = (c + (up ? 1 : ds[d] - 1)) % ds[d];
    return v - c * stride[d] + cn * stride[d];
  };
  // link v * k + d joins v and its +1 neighbour in dimension d; f: its factor
  std::vector<unsigned> f(static_cast<std::size_t>(n) * k);
  for (unsigned v = 0; v < n; ++v)
    for (unsigned d = 0; d < k; ++d) f[v * k + d] = d;
  auto link = [&](unsigned v, unsigned d, bool up) { return up ? v * k + d : step(v, d, false) * k + d; };
  // the chips of factor c in cycle order from chip `from` (all of them when it is one cycle)
  auto walk = [&](unsigned c, unsigned from) {
    std::vector<unsigned> w{from};
    unsigned prev = ~0u, v = from;
    for (;;) {
      unsigned next = ~0u;
      for (unsigned d = 0; d < k && next == ~0u; ++d)
        for (bool up : {true, false}) {
          const unsigned u = step(v, d, up);
          if (f[link(v, d, up)] == c && u != prev) {
            next = u;
            break;
          }
        }
      if (next == from) return w;
      w.push_back(next);
      prev = v;
      v = next;
    }
  };
  auto cycles = [&](unsigned c) {
    std::vector<char> seen(n, 0);
    unsigned count = 0;
    for (unsigned v = 0; v < n; ++v)
      if (!seen[v]) {
        ++count;
        for (unsigned u : walk(c, v)) seen[u] = 1;
      }
    return count;
  };
  std::vector<unsigned> count(k);
  unsigned total = 0;
  for (unsigned c = 0; c < k; ++c) total += count[c] = cycles(c);
  std::mt19937 rng(1);
  const std::uint64_t budget = std::uint64_t{2000} * n * k;
  for (std::uint64_t t = 0; total > k && t < budget; ++t) {
    const unsigned v = static_cast<unsigned>(rng() % n), i = static_cast<unsigned>(rng() % k),
                   j = static_cast<unsigned>(rng() % k);
    if (i == j) continue;
    // the square v, v + e_i, v + e_i + e_j, v + e_j
    const unsigned a = link(v, i, true), b = link(step(v, i, true), j, true), c = link(step(v, j, true), i, true),
                   e = link(v, j, true);
    const unsigned A = f[a], B = f[b];
    if (A == B || f[c] != A || f[e] != B) continue;
    f[a] = f[c] = B;
    f[b] = f[e] = A;
    const unsigned na = cycles(A), nb = cycles(B), before = count[A] + count[B];
    if (na + nb < before || (na + nb == before && rng() % 4 == 0)) {
      total = total - before + na + nb;
      count[A] = na;
      count[B] = nb;
    } else {
      f[a] = f[c] = A;
      f[b] = f[e] = B;
    }
  }
  if (total > k) return {};
  std::vector<std::vector<unsigned>> out;
  for (unsigned c = 0; c < k; ++c) out.push_back(walk(c, 0));
  return out;
}

unsigned torus_id(const std::vector<unsigned>& dims, const std::vector<unsigned>& c) {
  unsigned id = 0;
  for (std::size_t i = dims.size(); i-- > 0;) id = id * dims[i] + c[i];
  return id;
}
}  // namespace

unsigned hier_group(const system::System& s, std::string* level) {
  const auto& t = s.preset().topo;
  std::string name;
  unsigned g = 0;
  switch (t.kind) {
    case system::TopoKind::torus:
      g = 1;
      for (std::size_t i = 0; i + 1 < t.dims.size(); ++i) g *= t.dims[i];
      name = t.dims.size() > 2 ? "instance" : "x ring";
      break;
    case system::TopoKind::neuronswitch:
      g = t.chips_per_server;
      name = "server";
      break;
    case system::TopoKind::planes:
      if (t.ultraservers > 1) {
        g = t.chips_per_ultraserver;
        name = "UltraServer";
      }
      break;
  }
  if (g >= s.chips()) g = 0;
  if (level) *level = g ? name : "";
  return g;
}

namespace {
/// hrings on a torus of `dims` (link rates per direction `rates`, one a dimension; empty: alike):
/// one hierarchy for each dimension o of more than one chip as its outer level, whose inner level
/// is the torus of the other dimensions (a chip's ranks innermost when it holds m > 1). The inner
/// level's rings are edge-disjoint Hamiltonian cycles of that torus where it has them (else a
/// snake), each both ways, paired with the outer ring the same way round: every link of the inner
/// torus carries one ring each way. The weights balance the links: dimension e's links carry the
/// inner rings of every hierarchy but e's, so hierarchy o's weight is proportional to
/// 1 - (D - 1) r_o / sum r (D dimensions), the slow dimension outermost most often (trn2-us64:
/// 3 : 1 : 1 with Z outer against X and Y). The ranks fill a chip, then the next along `walk`.
std::vector<Stripe> torus_stripes(const std::string& name, const std::vector<unsigned>& dims,
                                  const std::vector<double>& rates, const std::vector<unsigned>& walk, unsigned m,
                                  unsigned ranks) {
  std::vector<unsigned> ds;  // the dimensions of more than one chip
  for (unsigned d = 0; d < dims.size(); ++d)
    if (dims[d] > 1) ds.push_back(d);
  if (ds.size() < 2)
    throw Error(
        fmt::format("hrings: {} is not a torus of two or more dimensions (its hierarchies take each "
                    "dimension in turn as the outer level)",
                    name));
  unsigned chips = 1;
  for (unsigned d : dims) chips *= d;
  if (ranks != chips * m)
    throw Error(fmt::format("hrings: {} ranks are not the whole torus ({} ranks); every dimension is a level", ranks,
                            chips * m));
  std::vector<unsigned> rank_of(chips);  // a chip's first rank
  for (unsigned i = 0; i < chips; ++i) rank_of[walk[i]] = i * m;
  const unsigned D = static_cast<unsigned>(ds.size());
  double sum = 0;
  std::vector<double> w(D);
  for (unsigned i = 0; i < D; ++i) sum += rates.empty() ? 1.0 : rates.at(ds[i]);
  for (unsigned i = 0; i < D; ++i) w[i] = std::max(0.0, 1.0 - (D - 1) * (rates.empty() ? 1.0 : rates.at(ds[i])) / sum);
  // whole weights: the smallest scale q (1..16) whose rounding is within 5 % of every share
  const double top = *std::max_element(w.begin(), w.end());
  std::vector<unsigned> units(D, 1);
  for (unsigned q = 1; q <= 16; ++q) {
    bool ok = true;
    for (unsigned i = 0; i < D; ++i) {
      const double x = w[i] / top * q;
      units[i] = static_cast<unsigned>(std::lround(x));
      if (std::abs(units[i] - x) > 0.05 * q) ok = false;
    }
    if (ok) break;
  }
  std::vector<Stripe> out;
  for (unsigned i = 0; i < D; ++i) {
    if (units[i] == 0) continue;
    const unsigned o = ds[i], G = dims[o];
    std::vector<unsigned> inner, where;  // the inner torus's sizes, and their dimensions
    for (unsigned e : ds)
      if (e != o) inner.push_back(dims[e]), where.push_back(e);
    unsigned g = 1;
    for (unsigned x : inner) g *= x;
    std::vector<std::vector<unsigned>> cyc = disjoint_cycles(inner);
    if (cyc.empty()) {
      cyc.emplace_back();
      for (const auto& c : snake(inner)) cyc.back().push_back(torus_id(inner, c));
    }
    for (const auto& cy : cyc)
      for (bool back : {false, true}) {
        Stripe st;
        st.levels = {g, G};
        if (m > 1) st.levels.insert(st.levels.begin(), m);
        st.weight = units[i];
        st.order.resize(ranks);
        // id = (core c0, inner position c1, outer position c2) = (c0 g + c1) G + c2
        for (unsigned c0 = 0; c0 < m; ++c0)
          for (unsigned c1 = 0; c1 < g; ++c1)
            for (unsigned c2 = 0; c2 < G; ++c2) {
              unsigned v = cy[back ? (g - c1) % g : c1];  // the inner torus's chip
              std::vector<unsigned> coord(dims.size(), 0);
              for (unsigned j = 0; j < where.size(); ++j) {
                coord[where[j]] = v % inner[j];
                v /= inner[j];
              }
              coord[o] = back ? (G - c2) % G : c2;
              st.order[(c0 * g + c1) * G + c2] = rank_of[torus_id(dims, coord)] + c0;
            }
        out.push_back(std::move(st));
      }
  }
  return out;
}

/// The common part of place() and place_torus(): chips 0..chips-1 on a torus of `dims` (empty: not
/// a torus), hierarchical groups of g chips (0: none) called `level`, m ranks a chip.
Placement place_on(const std::string& name, unsigned chips, const std::vector<unsigned>& dims, unsigned g,
                   const std::string& level, unsigned ranks, Algo a, unsigned m = 1,
                   const std::vector<double>& rates = {}) {
  const unsigned slots = chips * m;
  if (ranks == 0) ranks = slots;
  if (ranks < 2) throw Error(fmt::format("--ranks {}: a collective needs at least 2 ranks", ranks));
  if (ranks > slots)
    throw Error(m > 1 ? fmt::format("--ranks {}: {} has {} ranks ({} chips of {} logical NeuronCores)", ranks, name,
                                    slots, chips, m)
                      : fmt::format("--ranks {}: {} has {} chips", ranks, name, chips));
  const bool torus = !dims.empty();
  // the chips in walk order: a snake through a torus (consecutive chips neighbours)
  std::vector<unsigned> walk;
  if (torus) {
    for (const auto& c : snake(dims)) walk.push_back(torus_id(dims, c));
  } else {
    for (unsigned c = 0; c < chips; ++c) walk.push_back(c);
  }
  Placement p;
  p.per_chip = m;
  if (a == Algo::hier) {
    // levels, innermost first: a chip's ranks (m > 1), a group's chips (g > 0), the groups
    if (m == 1 && g == 0)
      throw Error(fmt::format("hier: {} has no second level to run a hierarchical schedule over", name));
    const unsigned gchips = g ? g : 1, gm = gchips * m;  // chips and ranks of a group
    const std::string unit = g ? level : "chip";
    if (ranks % gm != 0 || ranks / gm < 2)
      throw Error(fmt::format("hier: {} ranks are not whole {}s of {} ranks (at least two)", ranks, unit, gm));
    const unsigned G = ranks / gm;
    if (m > 1) p.levels.push_back(m);
    if (g) p.levels.push_back(g);
    p.levels.push_back(G);
    p.level = m > 1 && g ? "chip, " + level : unit;
    std::vector<std::vector<unsigned>> inner;
    if (torus && g) inner = snake(std::vector<unsigned>(dims.begin(), dims.end() - 1));
    // rank r = (core c0, chip c1 of the group, group c2) as build() numbers levels: c0 N0 + c1 N1 + c2
    p.chip.resize(ranks);
    p.core.resize(ranks);
    for (unsigned c0 = 0; c0 < m; ++c0)
      for (unsigned c1 = 0; c1 < gchips; ++c1)
        for (unsigned gi = 0; gi < G; ++gi) {
          const unsigned r = (c0 * gchips + c1) * G + gi;
          unsigned chip = g ? gi * g + c1 : walk[gi];
          if (torus && g) {
            auto c = inner[c1];
            c.push_back(gi);
            chip = torus_id(dims, c);
          }
          p.chip[r] = chip;
          p.core[r] = c0;
        }
    return p;
  }
  if (a == Algo::hrings) {
    for (unsigned r = 0; r < ranks; ++r) {
      p.chip.push_back(walk[r / m]);
      p.core.push_back(r % m);
    }
    p.stripes = torus_stripes(name, dims, rates, walk, m, ranks);
    return p;
  }
  if (a == Algo::kangaring && m % 2)
    throw Error(fmt::format(
        "kangaring: pairs of a chip's ranks (a primary and a secondary), and {} has {} rank{} a chip (the flow "
        "level's default: a rank a logical NeuronCore; the cycle level's ranks are chips)",
        name, m, m == 1 ? "" : "s"));
  for (unsigned r = 0; r < ranks; ++r) {
    p.chip.push_back(walk[r / m]);
    p.core.push_back(r % m);
  }
  if (a == Algo::rings) {
    // on a torus, edge-disjoint Hamiltonian cycles (every link in one of them) where the torus has
    // them, else one walk through the chips for each torus dimension taken first (the placement's
    // is the first); each chip's ranks in turn along a walk, and every walk both ways
    std::vector<std::vector<unsigned>> at(chips);  // a chip's ranks, in core order
    for (unsigned r = 0; r < ranks; ++r) at[p.chip[r]].push_back(r);
    std::vector<std::vector<unsigned>> walks = torus ? disjoint_cycles(dims) : std::vector<std::vector<unsigned>>{};
    if (walks.empty()) walks.push_back(walk);
    for (std::size_t d = 1; torus && walks.size() == 1 && d < dims.size(); ++d) {
      if (dims[d] < 2) continue;         // a dimension of one chip starts no walk of its own
      std::vector<unsigned> order, rot;  // dimension order d, d + 1, ..., d - 1
      for (std::size_t i = 0; i < dims.size(); ++i) order.push_back(static_cast<unsigned>((d + i) % dims.size()));
      for (unsigned o : order) rot.push_back(dims[o]);
      std::vector<unsigned> w;
      for (const auto& c : snake(rot)) {
        std::vector<unsigned> coord(dims.size());
        for (std::size_t i = 0; i < order.size(); ++i) coord[order[i]] = c[i];
        w.push_back(torus_id(dims, coord));
      }
      if (std::find(walks.begin(), walks.end(), w) == walks.end()) walks.push_back(std::move(w));
    }
    for (const auto& w : walks) {
      std::vector<unsigned> ring;
      for (unsigned chip : w) ring.insert(ring.end(), at[chip].begin(), at[chip].end());
      p.rings.push_back(ring);
      p.rings.emplace_back(ring.rbegin(), ring.rend());
    }
  }
  return p;
}
}  // namespace

namespace {
/// hrings on a NeuronSwitch system: its levels of chips, innermost first (a chip's place in its
/// server, its server in the rack, its rack; a level of one left out), one hierarchy for each order
/// of them (a chip's ranks innermost when it holds m > 1). What a level's ring step puts on a chip's
/// links of each class is read from the system's own routes (every route key of a step from chip 0
/// to its neighbour in that level: each hop leaving a chip), so a server's ring spreads over the
/// server links and the rack planes as the routing does; the weights (twelfths) are those whose
/// hierarchies, running their same levels together, take the least time by that account: the sum
/// over levels of the busiest link class's load over its rate.
std::vector<Stripe> switch_stripes(const system::System& s, unsigned ranks, unsigned m) {
  const auto& t = s.preset().topo;
  if (t.kind != system::TopoKind::neuronswitch)
    throw Error(
        fmt::format("hrings: {} is neither a torus nor a NeuronSwitch system (its hierarchies take each level "
                    "of chips in turn as the outer one)",
                    s.preset().key));
  const unsigned all[3] = {t.chips_per_server, t.servers_per_rack, t.racks};
  std::vector<unsigned> size, stride;
  unsigned st = 1;
  for (unsigned x : all) {
    if (x > 1) size.push_back(x), stride.push_back(st);
    st *= x;
  }
  if (size.size() < 2)
    throw Error(
        fmt::format("hrings: {} has one level of chips; its hierarchies take each level in turn as the outer "
                    "one",
                    s.preset().key));
  if (ranks != s.chips() * m)
    throw Error(fmt::format("hrings: {} ranks are not the whole system ({} ranks); every level of chips is a level",
                            ranks, s.chips() * m));
  const unsigned D = static_cast<unsigned>(size.size()), nc = static_cast<unsigned>(s.link_classes().size());
  std::vector<double> cap(nc, 0.0);  // a chip's links of each class, GB/s
  for (const auto& l : s.links())
    if (l.a == 0 || l.b == 0) cap[l.cls] += s.link_classes()[l.cls].gbps;
  std::vector<std::vector<double>> use(D, std::vector<double>(nc, 0.0));  // per level: chip-out hops a step
  const unsigned keys = s.route_keys();
  for (unsigned i = 0; i < D; ++i)
    for (unsigned k = 0; k < keys; ++k)
      for (const system::Hop& h : s.route(0, stride[i], k)) {
        const auto& l = s.links()[h.channel / 2];
        const unsigned from = h.channel % 2 ? l.b : l.a;
        if (s.nodes()[from].kind == system::NodeKind::chip) use[i][l.cls] += 1.0 / keys;
      }
  std::vector<std::vector<unsigned>> perms;
  std::vector<unsigned> pi(D);
  std::iota(pi.begin(), pi.end(), 0u);
  do perms.push_back(pi);
  while (std::next_permutation(pi.begin(), pi.end()));
  const unsigned P = static_cast<unsigned>(perms.size()), U = 12;
  auto cost = [&](const std::vector<unsigned>& w) {
    double total = 0;
    for (unsigned k = 0; k < D; ++k) {
      std::vector<double> load(nc, 0.0);
      for (unsigned q = 0; q < P; ++q) {
        double f = 1.0;
        for (unsigned j = 0; j < k; ++j) f /= size[perms[q][j]];
        const unsigned lv = perms[q][k];
        for (unsigned c = 0; c < nc; ++c) load[c] += w[q] * f * (size[lv] - 1.0) / size[lv] * use[lv][c];
      }
      double worst = 0;
      for (unsigned c = 0; c < nc; ++c)
        if (cap[c] > 0) worst = std::max(worst, load[c] / cap[c]);
      total += worst;
    }
    return total;
  };
  std::vector<unsigned> w(P, 0), best;
  double best_cost = 0;
  std::function<void(unsigned, unsigned)> choose = [&](unsigned q, unsigned left) {
    if (q + 1 == P) {
      w[q] = left;
      const double c = cost(w);
      if (best.empty() || c < best_cost - 1e-12) best = w, best_cost = c;
      return;
    }
    for (unsigned x = 0; x <= left; ++x) {
      w[q] = x;
      choose(q + 1, left - x);
    }
  };
  choose(0, U);
  std::vector<Stripe> out;
  for (unsigned q = 0; q < P; ++q) {
    if (best[q] == 0) continue;
    Stripe sp;
    sp.weight = best[q];
    if (m > 1) sp.levels.push_back(m);
    for (unsigned k = 0; k < D; ++k) sp.levels.push_back(size[perms[q][k]]);
    sp.order.resize(ranks);
    const unsigned first = m > 1 ? 1 : 0;
    std::vector<unsigned> digit(sp.levels.size());
    for (unsigned id = 0; id < ranks; ++id) {
      // id's digits, innermost first: the core (m > 1), then the levels in the order perms[q]
      unsigned rest = id, chip = 0;
      for (std::size_t i = sp.levels.size(); i-- > 0;) digit[i] = rest % sp.levels[i], rest /= sp.levels[i];
      for (unsigned k = 0; k < D; ++k) chip += digit[first + k] * stride[perms[q][k]];
      sp.order[id] = chip * m + (m > 1 ? digit[0] : 0);
    }
    out.push_back(std::move(sp));
  }
  return out;
}
}  // namespace

Placement place(const system::System& s, unsigned ranks, Algo a, unsigned per_chip) {
  const auto& t = s.preset().topo;
  std::string level;
  const unsigned g = a == Algo::hier ? hier_group(s, &level) : 0;
  const std::vector<unsigned> dims =
      t.kind == system::TopoKind::torus ? std::vector<unsigned>(t.dims.begin(), t.dims.end()) : std::vector<unsigned>{};
  if (a == Algo::hrings && dims.empty()) {
    const unsigned m = std::max(1u, per_chip);
    const unsigned want = ranks ? ranks : s.chips() * m;
    Placement p = place_on(s.preset().key, s.chips(), dims, 0, "", want, Algo::ring, m);
    p.stripes = switch_stripes(s, want, m);
    return p;
  }
  std::vector<double> rates;  // each dimension's link rate, per direction
  for (std::size_t d = 0; a == Algo::hrings && d < t.classes.size(); ++d)
    for (const auto& lc : s.link_classes())
      if (lc.name == t.classes[d]) rates.push_back(lc.gbps);
  if (rates.size() != dims.size()) rates.clear();
  return place_on(s.preset().key, s.chips(), dims, g, level, ranks, a, per_chip, rates);
}

Placement place_torus(const std::vector<unsigned>& dims, unsigned ranks, Algo a) {
  unsigned chips = 1, g = 1;
  for (unsigned d : dims) chips *= d;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) g *= dims[i];
  if (g >= chips) g = 0;
  std::string name = "a";
  for (std::size_t i = 0; i < dims.size(); ++i) name += fmt::format("{}{}", i ? " x " : " ", dims[i]);
  return place_on(name + " torus", chips, dims, g, dims.size() > 2 ? "instance" : "x ring", ranks, a);
}

// ---------------------------------------------------------------- phases
namespace {

/// A ring reduce-scatter (kind rs) or all-gather (ag) in every ring of a family of rings of k
/// members each; block b of ring m is a range of segments.
class RingPhase : public Phase {
 public:
  using Member = std::function<unsigned(unsigned m, unsigned p)>;  // ring, position -> rank
  using Locate = std::function<bool(unsigned rank, unsigned& m, unsigned& p)>;
  using Block = std::function<Piece(unsigned m, unsigned b)>;  // ring, block -> segments
  /// ready: the receiver's ready flag gates every transfer (a ring whose members' blocks were
  /// added to by another schedule just before, which nothing orders against this ring's additions)
  RingPhase(bool rs, unsigned k, Member mem, Locate loc, Block blk, bool ready = false)
      : rs_(rs), ready_(ready), k_(k), mem_(std::move(mem)), loc_(std::move(loc)), blk_(std::move(blk)) {}
  bool needs_ready() const override { return ready_; }
  bool ready_once() const override { return ready_; }
  void senders(unsigned rank, unsigned, std::vector<unsigned>& out) const override {
    unsigned m = 0, p = 0;
    if (loc_(rank, m, p)) out.push_back(mem_(m, (p + k_ - 1) % k_));
  }
  unsigned rounds() const override { return k_ - 1; }
  void sends(unsigned rank, unsigned t, std::vector<Xfer>& out) const override {
    unsigned m = 0, p = 0;
    if (!loc_(rank, m, p)) return;
    // reduce-scatter: block (p - 1 - t) to the next member, added; all-gather: block (p - t), copied
    const unsigned b = (p + 2 * k_ - (rs_ ? 1 : 0) - t) % k_;
    Xfer x;
    x.src = rank;
    x.dst = mem_(m, (p + 1) % k_);
    x.reduce = rs_;
    x.pieces.push_back(blk_(m, b));
    out.push_back(std::move(x));
  }
  unsigned expect(unsigned rank, unsigned) const override {
    unsigned m = 0, p = 0;
    return loc_(rank, m, p) ? 1 : 0;
  }

 private:
  bool rs_, ready_;
  unsigned k_;
  Member mem_;
  Locate loc_;
  Block blk_;
};

/// KangaRing (the Neuron runtime's, docs/collectives.md): ranks 2q and 2q + 1 (one chip) are pair
/// q's primary and secondary, and only the P = n / 2 primaries form a ring; pair q's block is
/// segments 2q and 2q + 1. Its ring reduce-scatter reads the sender's block and its secondary's in
/// one transfer (src2) and adds both into the next primary; its ring all-gather writes every block
/// to the next primary and, from the same read, to the sender's own secondary (dst2).
class KangaRingPhase : public Phase {
 public:
  KangaRingPhase(bool rs, unsigned n) : rs_(rs), p_(n / 2) {}
  unsigned rounds() const override { return p_ - 1; }
  void sends(unsigned rank, unsigned t, std::vector<Xfer>& out) const override {
    if (rank % 2) return;  // a secondary sends nothing on the ring
    const unsigned q = rank / 2;
    // reduce-scatter: block q - 1 - t, as a ring's; all-gather: block q - t
    const unsigned b = (q + 2 * p_ - (rs_ ? 1 : 0) - t) % p_;
    Xfer x;
    x.src = rank;
    x.dst = 2 * ((q + 1) % p_);
    x.reduce = rs_;
    x.pieces.push_back(Piece{2 * b, 2 * b, 2});
    (rs_ ? x.src2 : x.dst2) = rank + 1;
    out.push_back(std::move(x));
  }
  unsigned expect(unsigned rank, unsigned) const override { return rank % 2 == 0 || !rs_ ? 1 : 0; }

 private:
  bool rs_;
  unsigned p_;
};

/// KangaRing's local rounds between a pair's primary 2q and secondary 2q + 1: fold (all-reduce,
/// after the ring reduce-scatter: the secondary adds its block q into the primary's, once the
/// primary's last partial sum has landed, so it waits for the primary's ready flag), swap
/// (reduce-scatter: the secondary adds segment 2q into the primary, the primary segment 2q + 1 into
/// the secondary), gather (all-gather, first: the secondary's segment to the primary) and drop
/// (all-gather, last: the block the primary received last, q + 1, to the secondary, which the
/// ring's duplicated writes did not bring).
class KangaLocalPhase : public Phase {
 public:
  enum Kind { fold, swap, gather, drop };
  KangaLocalPhase(Kind k, unsigned n) : k_(k), p_(n / 2) {}
  unsigned rounds() const override { return 1; }
  bool needs_ready() const override { return k_ == fold || k_ == swap; }
  void senders(unsigned rank, unsigned, std::vector<unsigned>& out) const override {
    if (k_ == swap || rank % 2 == 0) out.push_back(rank ^ 1u);
  }
  void sends(unsigned rank, unsigned, std::vector<Xfer>& out) const override {
    const unsigned q = rank / 2;
    const bool primary = rank % 2 == 0;
    Xfer x;
    x.src = rank;
    x.dst = rank ^ 1u;
    switch (k_) {
      case fold:
        if (primary) return;
        x.reduce = true;
        x.pieces.push_back(Piece{2 * q, 2 * q, 2});
        break;
      case swap:
        x.reduce = true;
        x.pieces.push_back(primary ? Piece{2 * q + 1, 2 * q + 1, 1} : Piece{2 * q, 2 * q, 1});
        break;
      case gather:
        if (primary) return;
        x.pieces.push_back(Piece{2 * q + 1, 2 * q + 1, 1});
        break;
      case drop: {
        if (!primary) return;
        const unsigned b = (q + 1) % p_;
        x.pieces.push_back(Piece{2 * b, 2 * b, 2});
        break;
      }
    }
    out.push_back(std::move(x));
  }
  unsigned expect(unsigned rank, unsigned) const override {
    const bool primary = rank % 2 == 0;
    return k_ == swap || (primary == (k_ == fold || k_ == gather)) ? 1 : 0;
  }

 private:
  Kind k_;
  unsigned p_;
};

/// Striped rings (rings): every ring of `rings` at once, each over all n ranks in its own order;
/// stripe j of every rank's share travels ring j. A reduce-scatter (rs) or all-gather round sends
/// one block on every ring, as RingPhase sends on its one: block b of ring j is stripe j of the
/// share of the rank at position b, which that rank ends with.
class StripedRingPhase : public Phase {
 public:
  StripedRingPhase(bool rs, const std::vector<std::vector<unsigned>>& rings) : rs_(rs), rings_(rings) {
    n_ = static_cast<unsigned>(rings_.front().size());
    pos_.assign(rings_.size(), std::vector<unsigned>(n_, 0));
    for (std::size_t j = 0; j < rings_.size(); ++j)
      for (unsigned q = 0; q < n_; ++q) pos_[j][rings_[j][q]] = q;
  }
  unsigned rounds() const override { return n_ - 1; }
  void sends(unsigned rank, unsigned t, std::vector<Xfer>& out) const override {
    const unsigned m = static_cast<unsigned>(rings_.size());
    for (unsigned j = 0; j < m; ++j) {
      const unsigned q = pos_[j][rank];
      const unsigned b = (q + 2 * n_ - (rs_ ? 1 : 0) - t) % n_;
      const unsigned seg = rings_[j][b] * m + j;
      Xfer x;
      x.src = rank;
      x.dst = rings_[j][(q + 1) % n_];
      x.reduce = rs_;
      x.pieces.push_back(Piece{seg, seg, 1});
      out.push_back(std::move(x));
    }
  }
  unsigned expect(unsigned, unsigned) const override { return static_cast<unsigned>(rings_.size()); }

 private:
  bool rs_;
  std::vector<std::vector<unsigned>> rings_;
  unsigned n_ = 0;
  std::vector<std::vector<unsigned>> pos_;  // per ring, a rank's position
};

/// Recursive halving (reduce-scatter) or doubling (all-gather) among ranks 0..p-1 (p a power of
/// two) over n segments (p <= n < 2p), segment s held in the end by rank s mod p.
class RdhPhase : public Phase {
 public:
  RdhPhase(bool rs, unsigned p, unsigned n) : rs_(rs), p_(p), n_(n) {
    while ((1u << lg_) < p_) ++lg_;
  }
  unsigned rounds() const override { return lg_; }
  void sends(unsigned i, unsigned t, std::vector<Xfer>& out) const override {
    if (i >= p_) return;
    Xfer x;
    x.src = i;
    x.reduce = rs_;
    unsigned h0 = 0, hn = 0;  // the holder range sent
    if (rs_) {
      const unsigned b = p_ >> (t + 1);
      const unsigned lo = i & ~(2 * b - 1);
      h0 = lo + ((i & b) ? 0 : b);
      hn = b;
      x.dst = i ^ b;
    } else {
      const unsigned b = 1u << t;
      h0 = i & ~(b - 1);
      hn = b;
      x.dst = i ^ b;
    }
    x.pieces.push_back(Piece{h0, h0, hn});
    if (h0 + p_ < n_) {
      const unsigned c = std::min(hn, n_ - (h0 + p_));
      x.pieces.push_back(Piece{h0 + p_, h0 + p_, c});
    }
    out.push_back(std::move(x));
  }
  unsigned expect(unsigned i, unsigned) const override { return i < p_ ? 1 : 0; }
  bool needs_ready() const override { return rs_; }
  void senders(unsigned i, unsigned t, std::vector<unsigned>& out) const override {
    if (i < p_) out.push_back(i ^ (p_ >> (t + 1)));
  }

 private:
  bool rs_;
  unsigned p_, n_, lg_ = 0;
};

/// The fold of a non-power-of-two rank count onto p ranks: extra rank e = q + p pairs with q.
/// pre_all: e adds all its segments into q; pre_own: e copies its segment e to q; post_all: q
/// copies every segment to e; post_own: q copies segment e to e.
class FoldPhase : public Phase {
 public:
  enum Kind { pre_all, pre_own, post_all, post_own };
  FoldPhase(Kind k, unsigned p, unsigned n) : k_(k), p_(p), n_(n) {}
  unsigned rounds() const override { return 1; }
  void sends(unsigned r, unsigned, std::vector<Xfer>& out) const override {
    const bool pre = k_ == pre_all || k_ == pre_own;
    const bool from_extra = r >= p_;
    if (pre != from_extra) return;
    if (!pre && r + p_ >= n_) return;
    const unsigned e = pre ? r : r + p_;
    Xfer x;
    x.src = r;
    x.dst = pre ? r - p_ : r + p_;
    x.reduce = k_ == pre_all;
    if (k_ == pre_all || k_ == post_all)
      x.pieces.push_back(Piece{0, 0, n_});
    else
      x.pieces.push_back(Piece{e, e, 1});
    out.push_back(std::move(x));
  }
  unsigned expect(unsigned r, unsigned) const override {
    const bool pre = k_ == pre_all || k_ == pre_own;
    return pre ? (r < p_ && r + p_ < n_ ? 1 : 0) : (r >= p_ ? 1 : 0);
  }

 private:
  Kind k_;
  unsigned p_, n_;
};

/// Direct (mesh) rounds among all n ranks.
class MeshPhase : public Phase {
 public:
  enum Kind {
    scatter,       ///< reduce-scatter, part 1: segment q of every rank into rank q's scratch slot (source rank)
    local_reduce,  ///< part 2: each rank adds the slots into its segment, in rank order from itself
    gather,        ///< all-gather: segment r of rank r to every rank
    a2a,           ///< all-to-all: segment q of rank r to rank q's output segment r (own one by a local copy)
    permute,       ///< the whole data region to permute_peer(r)'s output region
  };
  MeshPhase(Kind k, unsigned n) : k_(k), n_(n) {}
  unsigned rounds() const override { return 1; }
  void sends(unsigned r, unsigned, std::vector<Xfer>& out) const override {
    auto add = [&](unsigned dst, Piece pc, bool reduce, Region sr, Region dr) {
      Xfer x;
      x.src = r;
      x.dst = dst;
      x.reduce = reduce;
      x.src_reg = sr;
      x.dst_reg = dr;
      x.pieces.push_back(pc);
      out.push_back(std::move(x));
    };
    switch (k_) {
      case scatter:
        for (unsigned j = 1; j < n_; ++j) {
          const unsigned q = (r + j) % n_;
          add(q, Piece{q, r, 1}, false, Region::data, Region::scratch);
        }
        break;
      case local_reduce:
        for (unsigned j = 1; j < n_; ++j) add(r, Piece{(r + j) % n_, r, 1}, true, Region::scratch, Region::data);
        break;
      case gather:
        for (unsigned j = 1; j < n_; ++j) add((r + j) % n_, Piece{r, r, 1}, false, Region::data, Region::data);
        break;
      case a2a:
        add(r, Piece{r, r, 1}, false, Region::data, Region::out);
        for (unsigned j = 1; j < n_; ++j) {
          const unsigned q = (r + j) % n_;
          add(q, Piece{q, r, 1}, false, Region::data, Region::out);
        }
        break;
      case permute:
        add(permute_peer(r, n_), Piece{0, 0, n_}, false, Region::data, Region::out);
        break;
    }
  }
  unsigned expect(unsigned, unsigned) const override {
    switch (k_) {
      case a2a:
        return n_;
      case permute:
        return 1;
      default:
        return n_ - 1;
    }
  }

 private:
  Kind k_;
  unsigned n_;
};

/// All-to-all in n rounds: round 0 the own segment by a local copy; round j, segment (r + j) to
/// rank r + j (ring: shift) or segment r ^ j to rank r ^ j (rdh: pairwise exchange, n a power of two).
class ExchangePhase : public Phase {
 public:
  ExchangePhase(bool xor_, unsigned n) : xor_(xor_), n_(n) {}
  unsigned rounds() const override { return n_; }
  void sends(unsigned r, unsigned t, std::vector<Xfer>& out) const override {
    const unsigned q = t == 0 ? r : xor_ ? r ^ t : (r + t) % n_;
    Xfer x;
    x.src = r;
    x.dst = q;
    x.src_reg = Region::data;
    x.dst_reg = Region::out;
    x.pieces.push_back(Piece{q, r, 1});
    out.push_back(std::move(x));
  }
  unsigned expect(unsigned, unsigned) const override { return 1; }

 private:
  bool xor_;
  unsigned n_;
};

/// Striped hierarchies (hrings): phase `p` of every stripe's hierarchical schedule at once, each
/// over its renumbered ranks (Stripe::order) and on its part of every segment. A stripe's schedule
/// numbers segment i as its member i's share; it is that rank's segments off .. off + weight - 1 of
/// the K = sum of the weights. The stripes' phase p is the same level of the same kind in each, so
/// their ready flags agree. Where the stripes' phase p has different round counts (the levels of a
/// switched system in different orders, a torus of unequal sides) the phase takes the most, R, and
/// a stripe of r < R rounds spreads each of its rounds over the R rounds in turn: its round u's
/// transfers go in parts, one a round, each a contiguous run of the transfer's segments (part j of
/// n: its units j U / n .. (j + 1) U / n - 1), so every stripe keeps sending all through the phase.
/// A round's parts all land before the next of its rounds starts (a rank's round waits for every
/// transfer of the one before), so each stripe's additions keep their order.
class StripesPhase : public Phase {
 public:
  struct Part {
    std::shared_ptr<const Schedule> sub;
    std::vector<unsigned> order, id;  // id -> rank, rank -> id
    unsigned off = 0, weight = 1;
  };
  StripesPhase(std::shared_ptr<const std::vector<Part>> parts, std::size_t phase, unsigned K)
      : parts_(std::move(parts)), p_(phase), K_(K) {
    const Phase& f = parts_->front().sub->phase(p_);
    for (const Part& q : *parts_) {
      const Phase& ph = q.sub->phase(p_);
      rounds_ = std::max(rounds_, ph.rounds());
      if (ph.needs_ready() != f.needs_ready() || ph.ready_once() != f.ready_once())
        throw std::logic_error("build: striped hierarchies whose phases gate differently");
    }
    // a transfer's units in each round of each stripe: a level's ring moves blocks of one size, so
    // member 0's transfer tells every member's (whether a part of it is empty)
    units_.resize(parts_->size());
    for (std::size_t i = 0; i < parts_->size(); ++i) {
      const Part& q = (*parts_)[i];
      const Phase& ph = q.sub->phase(p_);
      for (unsigned u = 0; u < ph.rounds(); ++u) {
        std::vector<Xfer> xs;
        ph.sends(0, u, xs);
        std::uint64_t n = 0;
        for (const Xfer& x : xs)
          for (const Piece& pc : x.pieces) n += std::uint64_t{pc.count} * q.weight;
        units_[i].push_back(xs.size() == 1 ? n : 0);  // 0: not one transfer a member, cut nothing
      }
    }
  }
  unsigned rounds() const override { return rounds_; }
  bool needs_ready() const override { return parts_->front().sub->phase(p_).needs_ready(); }
  bool ready_once() const override { return parts_->front().sub->phase(p_).ready_once(); }
  /// Stripes whose rings take the same step in a round (a chip's ranks, innermost in every one)
  /// send it as one transfer, their pieces one after another: one DMA transfer, one semaphore.
  void sends(unsigned rank, unsigned t, std::vector<Xfer>& out) const override {
    const std::size_t first = out.size();
    for (const Part& q : *parts_) {
      unsigned u = 0, j = 0, n = 1;
      if (!locate(q, t, u, j, n)) continue;
      std::vector<Xfer> xs;
      q.sub->phase(p_).sends(q.id[rank], u, xs);
      for (Xfer& x : xs) {
        if (!remap(q, x, j, n)) continue;
        auto same = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [&](const Xfer& y) {
          return y.dst == x.dst && y.reduce == x.reduce && y.src_reg == x.src_reg && y.dst_reg == x.dst_reg;
        });
        if (same == out.end())
          out.push_back(std::move(x));
        else
          same->pieces.insert(same->pieces.end(), x.pieces.begin(), x.pieces.end());
      }
    }
  }
  /// The ranks that send to `rank` in round t, each once (their stripes' transfers are one).
  unsigned expect(unsigned rank, unsigned t) const override {
    std::vector<unsigned> from;
    for (std::size_t i = 0; i < parts_->size(); ++i) {
      const Part& q = (*parts_)[i];
      unsigned u = 0, j = 0, n = 1;
      if (!locate(q, t, u, j, n)) continue;
      const Phase& ph = q.sub->phase(p_);
      if (ph.expect(q.id[rank], u) == 0) continue;
      // part j of a transfer of U units is empty when no unit falls in it
      const std::uint64_t U = units_[i][u];
      if (U == 0) throw std::logic_error("build: a striped hierarchy's round without one transfer a member");
      if (n > 1 && U * (j + 1) / n == U * j / n) continue;
      std::vector<unsigned> ids;
      ph.senders(q.id[rank], u, ids);
      if (ids.size() != 1) throw std::logic_error("build: a striped hierarchy's ring round without one sender");
      if (std::find(from.begin(), from.end(), q.order[ids[0]]) == from.end()) from.push_back(q.order[ids[0]]);
    }
    return static_cast<unsigned>(from.size());
  }
  void senders(unsigned rank, unsigned t, std::vector<unsigned>& out) const override {
    const std::size_t first = out.size();
    for (const Part& q : *parts_) {
      unsigned u = 0, j = 0, n = 1;
      if (!locate(q, t, u, j, n)) continue;
      std::vector<unsigned> ids;
      q.sub->phase(p_).senders(q.id[rank], u, ids);
      for (unsigned i : ids)
        if (std::find(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), q.order[i]) == out.end())
          out.push_back(q.order[i]);
    }
  }

 private:
  /// Round t of the phase for stripe q: its round u, part j of n (false: it has no rounds).
  bool locate(const Part& q, unsigned t, unsigned& u, unsigned& j, unsigned& n) const {
    const unsigned r = q.sub->phase(p_).rounds();
    if (r == 0) return false;
    u = static_cast<unsigned>(std::uint64_t{t} * r / rounds_);
    auto start = [&](unsigned v) { return static_cast<unsigned>((std::uint64_t{v} * rounds_ + r - 1) / r); };
    j = t - start(u);
    n = start(u + 1) - start(u);
    return true;
  }
  /// x in ranks and the region's segments, part j of n of its units (false: that part is empty).
  bool remap(const Part& q, Xfer& x, unsigned j, unsigned n) const {
    x.src = q.order[x.src];
    x.dst = q.order[x.dst];
    std::vector<Piece> units;  // each segment's part, one unit a segment of the region
    for (const Piece& pc : x.pieces)
      for (unsigned c = 0; c < pc.count; ++c)
        units.push_back(Piece{q.order[pc.src_seg + c] * K_ + q.off, q.order[pc.dst_seg + c] * K_ + q.off, q.weight});
    std::vector<Piece> pieces;
    if (n == 1) {
      pieces = std::move(units);
    } else {
      std::uint64_t U = 0;
      for (const Piece& pc : units) U += pc.count;
      const std::uint64_t lo = U * j / n, hi = U * (j + 1) / n;
      std::uint64_t at = 0;
      for (const Piece& pc : units) {
        const std::uint64_t a = std::max(at, lo), b = std::min(at + pc.count, hi);
        if (a < b) {
          const auto d = static_cast<unsigned>(a - at);
          pieces.push_back(Piece{pc.src_seg + d, pc.dst_seg + d, static_cast<unsigned>(b - a)});
        }
        at += pc.count;
      }
    }
    x.pieces = std::move(pieces);
    return !x.pieces.empty();
  }
  std::shared_ptr<const std::vector<Part>> parts_;
  std::size_t p_;
  unsigned K_, rounds_ = 0;
  std::vector<std::vector<std::uint64_t>> units_;  // per stripe and round: a transfer's units
};

}  // namespace

void Schedule::add(std::unique_ptr<Phase> p) {
  first_.push_back(rounds_);
  rounds_ += p->rounds();
  phases_.push_back(std::move(p));
}

const Phase& Schedule::at(unsigned round, unsigned& local) const {
  std::size_t i = phases_.size();
  while (i-- > 0)
    if (first_[i] <= round && phases_[i]->rounds() > 0) break;
  local = round - first_[i];
  return *phases_[i];
}

void Schedule::sends(unsigned rank, unsigned round, std::vector<Xfer>& out) const {
  unsigned local = 0;
  at(round, local).sends(rank, local, out);
}

unsigned Schedule::expect(unsigned rank, unsigned round) const {
  unsigned local = 0;
  return at(round, local).expect(rank, local);
}

int Schedule::gate(unsigned round, bool& once) const {
  unsigned local = 0;
  const Phase& p = at(round, local);
  once = p.ready_once();
  if (!p.needs_ready()) return -1;
  return static_cast<int>(once ? round - local : round);
}

void Schedule::senders(unsigned rank, unsigned round, std::vector<unsigned>& out) const {
  unsigned local = 0;
  at(round, local).senders(rank, local, out);
}

std::vector<std::vector<unsigned>> default_rings(unsigned n) {
  std::vector<std::vector<unsigned>> rs(1, std::vector<unsigned>(n));
  std::iota(rs[0].begin(), rs[0].end(), 0u);
  rs.emplace_back(rs[0].rbegin(), rs[0].rend());
  return rs;
}

Schedule build(Op op, Algo algo, unsigned n, const std::vector<unsigned>& levels,
               const std::vector<std::vector<unsigned>>& rings, const std::vector<Stripe>& stripes) {
  if (n < 2) throw Error(fmt::format("a collective needs at least 2 ranks, not {}", n));
  Schedule s;
  s.op = op;
  s.algo = algo;
  s.ranks = n;
  const std::string what = fmt::format("{} by {}", op_name(op), algo_name(algo));
  if (op == Op::permute && algo != Algo::mesh)
    throw Error(fmt::format("{}: a permute is one direct transfer per rank; use --algorithm mesh or auto", what));
  auto flat_ring = [&](bool rs) {
    return std::make_unique<RingPhase>(
        rs, n, [](unsigned, unsigned p) { return p; },
        [n](unsigned r, unsigned& m, unsigned& p) {
          m = 0;
          p = r;
          return r < n;
        },
        [](unsigned, unsigned b) {
          return Piece{b, b, 1};
        });
  };
  switch (algo) {
    case Algo::automatic:
      throw std::logic_error("build: choose an algorithm first");
    case Algo::ring:
      switch (op) {
        case Op::all_reduce:
          s.add(flat_ring(true));
          s.add(flat_ring(false));
          s.describe = fmt::format("ring reduce-scatter ({} rounds), ring all-gather ({} rounds)", n - 1, n - 1);
          break;
        case Op::reduce_scatter:
          s.add(flat_ring(true));
          s.describe = fmt::format("ring reduce-scatter ({} rounds)", n - 1);
          break;
        case Op::all_gather:
          s.add(flat_ring(false));
          s.describe = fmt::format("ring all-gather ({} rounds)", n - 1);
          break;
        default:
          s.add(std::make_unique<ExchangePhase>(false, n));
          s.uses_out = true;
          s.describe = fmt::format("local copy, then {} shifted rounds (rank r to r + j)", n - 1);
          break;
      }
      break;
    case Algo::mesh:
      switch (op) {
        case Op::all_reduce:
        case Op::reduce_scatter:
          s.add(std::make_unique<MeshPhase>(MeshPhase::scatter, n));
          s.add(std::make_unique<MeshPhase>(MeshPhase::local_reduce, n));
          s.uses_scratch = true;
          s.describe = "direct scatter into staging slots, local reduce in rank order";
          if (op == Op::all_reduce) {
            s.add(std::make_unique<MeshPhase>(MeshPhase::gather, n));
            s.describe += ", direct all-gather";
          }
          break;
        case Op::all_gather:
          s.add(std::make_unique<MeshPhase>(MeshPhase::gather, n));
          s.describe = "direct all-gather";
          break;
        case Op::all_to_all:
          s.add(std::make_unique<MeshPhase>(MeshPhase::a2a, n));
          s.uses_out = true;
          s.describe = "direct all-to-all";
          break;
        case Op::permute:
          s.add(std::make_unique<MeshPhase>(MeshPhase::permute, n));
          s.uses_out = true;
          s.describe = "direct: rank r to rank r + 1";
          break;
      }
      break;
    case Algo::rings: {
      if (op == Op::all_to_all)
        throw Error(fmt::format("{}: striped rings reduce or gather; use ring, mesh or rdh", what));
      const std::vector<std::vector<unsigned>> rs = rings.empty() ? default_rings(n) : rings;
      for (const auto& r : rs) {
        std::vector<unsigned> sorted = r;
        std::sort(sorted.begin(), sorted.end());
        for (unsigned i = 0; i < n; ++i)
          if (sorted.size() != n || sorted[i] != i)
            throw std::logic_error("build: a striped ring is not an order of every rank");
      }
      s.stripes = static_cast<unsigned>(rs.size());
      const std::string phases = fmt::format("{} rings at once, each a stripe of every share", rs.size());
      if (op != Op::all_gather) s.add(std::make_unique<StripedRingPhase>(true, rs));
      if (op != Op::reduce_scatter) s.add(std::make_unique<StripedRingPhase>(false, rs));
      s.describe = op == Op::all_reduce       ? fmt::format("ring reduce-scatter and all-gather on {}", phases)
                   : op == Op::reduce_scatter ? fmt::format("ring reduce-scatter on {}", phases)
                                              : fmt::format("ring all-gather on {}", phases);
      break;
    }
    case Algo::kangaring: {
      if (op == Op::all_to_all)
        throw Error(fmt::format("{}: KangaRing reduces or gathers; use ring, mesh or rdh", what));
      if (n % 2)
        throw Error(fmt::format("{}: KangaRing pairs the ranks of a chip, and {} ranks are not pairs", what, n));
      const unsigned P = n / 2;
      if (op == Op::all_gather) s.add(std::make_unique<KangaLocalPhase>(KangaLocalPhase::gather, n));
      if (op != Op::all_gather) s.add(std::make_unique<KangaRingPhase>(true, n));
      if (op == Op::all_reduce) s.add(std::make_unique<KangaLocalPhase>(KangaLocalPhase::fold, n));
      if (op == Op::reduce_scatter) s.add(std::make_unique<KangaLocalPhase>(KangaLocalPhase::swap, n));
      if (op != Op::reduce_scatter) {
        s.add(std::make_unique<KangaRingPhase>(false, n));
        s.add(std::make_unique<KangaLocalPhase>(KangaLocalPhase::drop, n));
      }
      s.describe = fmt::format(
          "KangaRing: the {} primaries (a chip's even ranks) in a ring, each with its secondary (the rank after "
          "it){}{}",
          P, op != Op::all_gather ? "; reduce-scatter reading the secondary's block in the same transfer" : "",
          op != Op::reduce_scatter ? "; all-gather writing each block to the next primary and the secondary at once"
                                   : "");
      break;
    }
    case Algo::rdh: {
      if (op == Op::all_to_all) {
        if (!pow2(n))
          throw Error(fmt::format("{}: the pairwise exchange needs a power-of-two rank count, not {}", what, n));
        s.add(std::make_unique<ExchangePhase>(true, n));
        s.uses_out = true;
        s.describe = fmt::format("local copy, then {} pairwise-exchange rounds (rank r with r ^ j)", n - 1);
        break;
      }
      const unsigned p = floor_pow2(n);
      const bool fold = p != n;
      std::string d;
      if (op == Op::all_gather) {
        if (fold) s.add(std::make_unique<FoldPhase>(FoldPhase::pre_own, p, n));
        s.add(std::make_unique<RdhPhase>(false, p, n));
        if (fold) s.add(std::make_unique<FoldPhase>(FoldPhase::post_all, p, n));
        d = "recursive doubling";
      } else {
        if (fold) s.add(std::make_unique<FoldPhase>(FoldPhase::pre_all, p, n));
        s.add(std::make_unique<RdhPhase>(true, p, n));
        d = "recursive halving";
        if (op == Op::all_reduce) {
          s.add(std::make_unique<RdhPhase>(false, p, n));
          d += ", recursive doubling";
          if (fold) s.add(std::make_unique<FoldPhase>(FoldPhase::post_all, p, n));
        } else if (fold) {
          s.add(std::make_unique<FoldPhase>(FoldPhase::post_own, p, n));
        }
      }
      s.describe = fold ? fmt::format("fold {} ranks onto {}, {}, unfold", n, p, d) : d;
      break;
    }
    case Algo::hrings: {
      if (op == Op::all_to_all) throw Error(fmt::format("{}: not available; use ring, mesh or rdh", what));
      if (stripes.empty())
        throw Error(fmt::format("{}: striped hierarchies need a torus placement (their orders and weights)", what));
      auto parts = std::make_shared<std::vector<StripesPhase::Part>>();
      unsigned K = 0;
      std::vector<std::string> each;  // runs of alike stripes
      std::vector<unsigned> counts;
      for (const Stripe& st : stripes) {
        StripesPhase::Part q;
        q.sub = std::make_shared<const Schedule>(build(op, Algo::hier, n, st.levels));
        q.order = st.order;
        q.id.assign(n, kNoRank);
        for (unsigned i = 0; i < st.order.size(); ++i)
          if (st.order[i] < n && q.id[st.order[i]] == kNoRank) q.id[st.order[i]] = i;
        if (st.order.size() != n || std::count(q.id.begin(), q.id.end(), kNoRank) || st.weight == 0)
          throw std::logic_error("build: a striped hierarchy is not an order of every rank with a weight");
        q.off = K;
        q.weight = st.weight;
        K += st.weight;
        const std::string e = fmt::format("{} of levels {}, weight {}", "{}", fmt::join(st.levels, "x"), st.weight);
        if (each.empty() || each.back() != e) each.push_back(e), counts.push_back(0);
        ++counts.back();
        parts->push_back(std::move(q));
      }
      for (const auto& q : *parts)
        if (q.sub->phases() != parts->front().sub->phases())
          throw std::logic_error("build: striped hierarchies of different depths");
      s.stripes = K;
      for (std::size_t p = 0; p < parts->front().sub->phases(); ++p) s.add(std::make_unique<StripesPhase>(parts, p, K));
      for (std::size_t i = 0; i < each.size(); ++i) each[i] = fmt::format(fmt::runtime(each[i]), counts[i]);
      s.describe = fmt::format(
          "{} hierarchies at once, each on its part of every share ({}), each level outermost in some; "
          "in each, {}",
          stripes.size(), fmt::join(each, "; "), parts->front().sub->describe);
      break;
    }
    case Algo::hier: {
      if (op == Op::all_to_all) throw Error(fmt::format("{}: not available; use ring, mesh or rdh", what));
      std::uint64_t prod = 1;
      for (unsigned l : levels) prod *= l;
      if (levels.size() < 2 || prod != n || std::any_of(levels.begin(), levels.end(), [](unsigned l) { return l < 2; }))
        throw Error(fmt::format("{}: {} ranks are not levels of groups of at least two ({})", what, n,
                                fmt::join(levels, " x ")));
      // rank r = sum over levels i of c_i N_i, N_i the ranks of the levels after i: member c_i of
      // level i's ring (innermost first). Level i's block b of the ring whose other coordinates
      // are those of rank m (c_i = 0) is the N_i segments at (m - m mod (s_i N_i)) + b N_i, so
      // every reduce-scatter level narrows the range a rank holds and the last leaves segment r
      // on rank r.
      const unsigned k = static_cast<unsigned>(levels.size());
      std::vector<unsigned> below(k, 1);  // N_i
      for (unsigned i = k - 1; i-- > 0;) below[i] = below[i + 1] * levels[i + 1];
      auto level = [&](unsigned i, bool rs) {
        const unsigned si = levels[i], Ni = below[i];
        return std::make_unique<RingPhase>(
            rs, si, [Ni](unsigned m, unsigned p) { return m + p * Ni; },
            [si, Ni](unsigned r, unsigned& m, unsigned& p) {
              p = r / Ni % si;
              m = r - p * Ni;
              return true;
            },
            [si, Ni](unsigned m, unsigned b) {
              const unsigned at = m - m % (si * Ni) + b * Ni;
              return Piece{at, at, Ni};
            },
            // a later level's reduce-scatter adds into a block that the receiver's own ring of the
            // level before may still be adding into: ready flags order them
            rs && i > 0);
      };
      const std::string sizes = fmt::format("{}", fmt::join(levels, ", "));
      if (op != Op::all_gather)
        for (unsigned i = 0; i < k; ++i) s.add(level(i, true));
      if (op != Op::reduce_scatter)
        for (unsigned i = k; i-- > 0;) s.add(level(i, false));
      s.describe =
          op == Op::all_reduce ? fmt::format(
                                     "ring reduce-scatter in each group of each level (groups of {}, the "
                                     "innermost first), then ring all-gather from the outermost",
                                     sizes)
          : op == Op::reduce_scatter
              ? fmt::format("ring reduce-scatter in each group of each level (groups of {}, the innermost first)",
                            sizes)
              : fmt::format("ring all-gather in each group of each level (groups of {}, the outermost first)", sizes);
      break;
    }
  }
  return s;
}

}  // namespace trn::collective
