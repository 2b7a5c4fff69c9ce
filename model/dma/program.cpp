#include "dma/program.hpp"

#include <algorithm>

namespace trn::dma {

namespace {

unsigned pick(std::mt19937_64& r, unsigned lo, unsigned hi) {  // inclusive
  return std::uniform_int_distribution<unsigned>(lo, hi)(r);
}
bool coin(std::mt19937_64& r, double p) { return std::uniform_real_distribution<double>(0, 1)(r) < p; }

constexpr unsigned kFloatTypes[] = {0, 1, 2, 3, 4, 5, 6, 7};

}  // namespace

Program random_program(const Geometry& g, unsigned queues, std::mt19937_64& r, const ProgramOptions& o) {
  const Plan plan{g, queues};
  Program p;
  p.queues.resize(queues);
  for (unsigned q = 0; q < queues; ++q) {
    p.strong.push_back(coin(r, o.p_strong));
    for (unsigned i = 0; i < o.descs_per_queue; ++i) {
      Desc d;
      d.dst_space = !o.hbm_dst || coin(r, 0.6) ? Space::sbuf : Space::hbm;
      d.src_space = o.sbuf_src && coin(r, 0.4) ? Space::sbuf : Space::hbm;
      const bool col = d.dst_space == Space::sbuf && coin(r, o.p_col);
      const bool acc = d.dst_space == Space::sbuf && coin(r, o.p_acc);
      if (acc) {
        d.dtype = coin(r, 0.5) ? 0 : 2;
        d.op = static_cast<unsigned>(Op::acc);
        d.stype = coin(r, o.p_cast) ? kFloatTypes[pick(r, 0, 7)] : d.dtype;
      } else if (col) {
        d.dtype = coin(r, 0.5) ? pick(r, 0, 1) : pick(r, 2, 3);
        d.stype = coin(r, o.p_cast) ? kFloatTypes[pick(r, 0, 7)] : d.dtype;
      } else if (coin(r, o.p_cast)) {
        d.stype = kFloatTypes[pick(r, 0, 7)];
        d.dtype = kFloatTypes[pick(r, 0, 7)];
      } else {
        d.stype = d.dtype = coin(r, 0.5) ? kTypeBytes : kFloatTypes[pick(r, 0, 7)];
      }
      const unsigned ss = type_size(d.stype), ds = type_size(d.dtype);
      // source range limit: the read-only region (SBUF: of one partition)
      const std::uint32_t src_lim = d.src_space == Space::hbm ? plan.hbm_ro() : plan.sbuf_ro();
      std::uint32_t nelem;
      if (col) {
        d.layout = ds == 2 ? 1 : 2;
        const unsigned p0 = pick(r, 0, g.parts - 1);
        d.cols = pick(r, 1, g.parts - p0);
        const std::uint32_t max_rows = std::max(1u, std::min(plan.sbuf_band() / ds, o.max_elems / d.cols));
        const std::uint32_t rows = pick(r, 1, std::max(1u, std::min(max_rows, src_lim / (d.cols * ss))));
        nelem = rows * d.cols;
        const std::uint32_t off = plan.sbuf_band_base(q) + pick(r, 0, (plan.sbuf_band() - rows * ds) / ds) * ds;
        d.dst_addr = g.sbuf_addr(p0, off);
      } else {
        const std::uint32_t band = d.dst_space == Space::hbm ? plan.hbm_band() : plan.sbuf_band();
        nelem = pick(r, 1, std::min({o.max_elems, band / ds, src_lim / ss}));
        const std::uint32_t off = pick(r, 0, (band - nelem * ds) / ds) * ds;
        d.dst_addr = d.dst_space == Space::hbm ? plan.hbm_band_base(q) + off
                                               : g.sbuf_addr(pick(r, 0, g.parts - 1), plan.sbuf_band_base(q) + off);
      }
      d.len = nelem * ss;
      const std::uint32_t soff = pick(r, 0, src_lim - d.len);
      d.src_addr = d.src_space == Space::hbm ? soff : g.sbuf_addr(pick(r, 0, g.parts - 1), soff);
      d.sem = coin(r, o.p_sem);
      if (d.sem) {
        d.sem_space = Space::hbm;
        d.sem_addr = plan.sem_base(q) + 4 * i;
        d.sem_val = 0x5E000000u | (q << 16) | i;
      }
      d.barrier = coin(r, o.p_barrier);
      d.last = coin(r, o.p_last);
      p.queues[q].push_back(d);
    }
  }
  return p;
}

void fill_random(Image& img, std::mt19937_64& r) {
  for (auto& b : img.hbm) b = static_cast<std::uint8_t>(r());
  for (auto& b : img.sbuf) b = static_cast<std::uint8_t>(r());
}

void reference_apply(Image& img, const Desc& d) {
  if (check(d, img.geo) != Err::none) return;
  const Geometry& g = img.geo;
  const unsigned ss = type_size(d.stype), ds = type_size(d.dtype);
  const std::uint32_t nelem = d.len / ss;
  std::vector<std::uint32_t> src(nelem);
  for (std::uint32_t e = 0; e < nelem; ++e) src[e] = img.load(d.src_space, d.src_addr + e * ss, ss);
  for (std::uint32_t e = 0; e < nelem; ++e) {
    std::uint32_t v = d.cast() ? cast_elem(d.stype, d.dtype, src[e]) : src[e];
    std::uint32_t a;
    if (d.layout == 0) {
      a = d.dst_addr + e * ds;
    } else {
      const std::uint32_t row = e / d.cols, c = e % d.cols;
      a = g.sbuf_addr(g.part_of(d.dst_addr) + c, g.off_of(d.dst_addr) + row * ds);
    }
    if (d.op == static_cast<unsigned>(Op::acc)) v = acc_add(ds == 2, img.load(d.dst_space, a, ds), v);
    img.store(d.dst_space, a, ds, v);
  }
  if (d.sem) img.store(d.sem_space, d.sem_addr, 4, d.sem_val);
}

void reference_run(Image& img, const Program& p) {
  for (const auto& q : p.queues)
    for (const Desc& d : q) reference_apply(img, d);
}

}  // namespace trn::dma
