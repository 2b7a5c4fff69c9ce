// The plain reference of every collective: what each rank must end with, written from the
// definitions in docs/collectives.md (who adds what, in which order) with plain loops, independent of
// the schedule code. Additions are the DMA's accumulate (trn::dma::acc_add), so results are
// bit-exact in both types.
#include <fmt/format.h>

#include <functional>

#include "collective/collective.hpp"
#include "dma/desc.hpp"

namespace trn::collective {

namespace {
/// A hierarchical sum (levels s_0 .. s_{k-1}, the innermost first) of one element of segment
/// `owner` (whose owner is rank `owner`): x(r), rank r's input. Rank r has digit d_i = r / N_i mod
/// s_i (N_i the product of the later sizes). Level i adds, around each ring of ranks that differ in
/// digit i only, what the levels before left there: from the member after the owner's digit s_i,
/// each adding its own, so a digit-i ring's sum for segment s starts at digit s_i + 1 and ends at
/// s_i. Levels 0 .. i - 1 leave on the rank with digits (s_0 .. s_{i-1}, d_i ..) the sum over
/// everything in its level-i ring's reach.
std::uint32_t hier_sum(const std::vector<unsigned>& levels, unsigned owner,
                       const std::function<std::uint32_t(unsigned)>& x,
                       const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& add) {
  const unsigned nl = static_cast<unsigned>(levels.size());
  std::vector<unsigned> N(nl, 1);
  for (std::size_t i = nl; i-- > 1;) N[i - 1] = N[i] * levels[i];
  // value(i, r): what rank r (its digits 0 .. i - 1 those of the owner) holds after levels 0 .. i - 1
  std::function<std::uint32_t(unsigned, unsigned)> value = [&](unsigned i, unsigned r) -> std::uint32_t {
    if (i == 0) return x(r);
    const unsigned l = i - 1, sl = levels[l], own = owner / N[l] % sl, base = r - r / N[l] % sl * N[l];
    std::uint32_t acc = value(l, base + (own + 1) % sl * N[l]);
    for (unsigned m = 2; m <= sl; ++m) acc = add(acc, value(l, base + (own + m) % sl * N[l]));
    return acc;
  };
  return value(nl, owner);
}
}  // namespace

std::vector<std::vector<std::uint32_t>> reference(Op op, Algo algo, Elem e, const std::vector<unsigned>& levels,
                                                  unsigned se, const std::vector<std::vector<std::uint32_t>>& in,
                                                  const std::vector<std::vector<unsigned>>& rings,
                                                  const std::vector<Stripe>& stripes) {
  const unsigned n = static_cast<unsigned>(in.size());
  // striped rings: rank r's share is stripes m of segments, r m .. r m + m - 1, stripe j on ring j
  const std::vector<std::vector<unsigned>> rs =
      algo == Algo::rings && rings.empty() ? default_rings(n) : rings;  // build()'s default
  // striped hierarchies: rank r's share is the weights' sum m of segments, stripe j's part of it
  // weight_j of them from the sum of the weights before j
  unsigned m = algo == Algo::rings ? static_cast<unsigned>(rs.size()) : 1;
  std::vector<unsigned> part_of, id_in;  // hrings: a share's segment's stripe; per stripe, rank -> member
  if (algo == Algo::hrings) {
    if (stripes.empty()) throw std::logic_error("reference: striped hierarchies without their stripes");
    m = 0;
    for (unsigned j = 0; j < stripes.size(); ++j) {
      part_of.insert(part_of.end(), stripes[j].weight, j);
      m += stripes[j].weight;
      std::vector<unsigned> id(n);
      for (unsigned i = 0; i < n; ++i) id.at(stripes[j].order.at(i)) = i;
      id_in.insert(id_in.end(), id.begin(), id.end());
    }
  }
  const bool bf16 = e == Elem::bf16;
  auto add = [bf16](std::uint32_t a, std::uint32_t b) { return dma::acc_add(bf16, a, b); };
  // element k of segment s on rank r
  auto x = [&](unsigned r, unsigned s, unsigned k) { return in.at(r).at(static_cast<std::size_t>(s) * se + k); };

  // the reduced value of element k of segment s
  std::function<std::uint32_t(unsigned, unsigned)> reduced;
  switch (algo) {
    case Algo::ring:
      // the block travels the ring from rank s + 1 to rank s, each rank adding its own
      reduced = [&](unsigned s, unsigned k) {
        std::uint32_t acc = x((s + 1) % n, s, k);
        for (unsigned m = 2; m <= n; ++m) acc = add(acc, x((s + m) % n, s, k));
        return acc;
      };
      break;
    case Algo::mesh:
      // rank s adds the others' copies into its own, in rank order from s + 1
      reduced = [&](unsigned s, unsigned k) {
        std::uint32_t acc = x(s, s, k);
        for (unsigned j = 1; j < n; ++j) acc = add(acc, x((s + j) % n, s, k));
        return acc;
      };
      break;
    case Algo::rdh:
      // fold ranks p.. onto 0.., then pairwise over a hypercube, highest dimension first
      reduced = [&](unsigned s, unsigned k) {
        unsigned p = 1, lg = 0;
        while (2 * p <= n) p *= 2, ++lg;
        auto v = [&](unsigned i) { return i + p < n ? add(x(i, s, k), x(i + p, s, k)) : x(i, s, k); };
        std::function<std::uint32_t(unsigned, unsigned)> tree = [&](unsigned i, unsigned j) -> std::uint32_t {
          if (j == 0) return v(i);
          return add(tree(i, j - 1), tree(i ^ (p >> j), j - 1));
        };
        return tree(s % p, lg);
      };
      break;
    case Algo::hier:
      // segment s's owner is rank s
      reduced = [&](unsigned s, unsigned k) {
        return hier_sum(
            levels, s, [&](unsigned r) { return x(r, s, k); }, add);
      };
      break;
    case Algo::hrings:
      // segment s is part of rank o = s / m's share that stripe j carries: a hierarchical sum over
      // stripe j's members, member i being rank order[i], owned by o's member number
      reduced = [&](unsigned s, unsigned k) {
        const unsigned j = part_of.at(s % m);
        const Stripe& st = stripes[j];
        return hier_sum(
            st.levels, id_in[j * n + s / m], [&](unsigned i) { return x(st.order[i], s, k); }, add);
      };
      break;
    case Algo::kangaring:
      // pairs (2q, 2q + 1), primaries in a ring; segment s is pair o = s / 2's block. Its chain
      // starts at pair o + 1, whose primary's block and secondary's leave as one sum; each later
      // primary adds what arrives into its own, and sends that plus its secondary's; primary o adds
      // the last arrival into its own, then its secondary's (the fold). Reduce-scatter: segment
      // 2o + 1 is the secondary's own plus the primary's sum before the fold.
      reduced = [&](unsigned s, unsigned k) {
        const unsigned P = n / 2, o = s / 2;
        auto pri = [&](unsigned q) { return x(2 * (q % P), s, k); };
        auto sec = [&](unsigned q) { return x(2 * (q % P) + 1, s, k); };
        std::uint32_t cur = pri(o);
        if (P > 1) {
          std::uint32_t sent = add(pri(o + 1), sec(o + 1));
          for (unsigned m = 2; m < P; ++m) sent = add(add(pri(o + m), sent), sec(o + m));
          cur = add(pri(o), sent);
        }
        return op == Op::reduce_scatter && s % 2 ? add(sec(o), cur) : add(cur, sec(o));
      };
      break;
    case Algo::rings:
      // segment s is stripe j = s mod m of rank o = s / m's share: it travels ring j from the rank
      // after o to o, each rank adding its own
      reduced = [&](unsigned s, unsigned k) {
        const std::vector<unsigned>& ring = rs.at(s % m);
        const unsigned o = s / m;
        unsigned b = 0;
        while (ring.at(b) != o) ++b;
        std::uint32_t acc = x(ring[(b + 1) % n], s, k);
        for (unsigned i = 2; i <= n; ++i) acc = add(acc, x(ring[(b + i) % n], s, k));
        return acc;
      };
      break;
    default:
      throw std::logic_error("reference: no algorithm");
  }

  std::vector<std::vector<std::uint32_t>> out(n);
  const unsigned segs = n * m;
  const std::size_t all = static_cast<std::size_t>(segs) * se;
  switch (op) {
    case Op::all_reduce: {
      std::vector<std::uint32_t> r(all);
      for (unsigned s = 0; s < segs; ++s)
        for (unsigned k = 0; k < se; ++k) r[static_cast<std::size_t>(s) * se + k] = reduced(s, k);
      for (auto& o : out) o = r;
      break;
    }
    case Op::reduce_scatter:  // rank r: its share, segments r m .. r m + m - 1
      for (unsigned r = 0; r < n; ++r)
        for (unsigned s = r * m; s < (r + 1) * m; ++s)
          for (unsigned k = 0; k < se; ++k) out[r].push_back(reduced(s, k));
      break;
    case Op::all_gather:  // every rank: each rank's share from its owner
      for (unsigned r = 0; r < n; ++r)
        for (unsigned s = 0; s < segs; ++s)
          for (unsigned k = 0; k < se; ++k) out[r].push_back(x(s / m, s, k));
      break;
    case Op::all_to_all:
      for (unsigned r = 0; r < n; ++r)
        for (unsigned q = 0; q < n; ++q)
          for (unsigned k = 0; k < se; ++k) out[r].push_back(x(q, r, k));
      break;
    case Op::permute:
      for (unsigned r = 0; r < n; ++r) out[permute_peer(r, n)] = in[r];
      break;
  }
  return out;
}

}  // namespace trn::collective
