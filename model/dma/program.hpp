// trn::dma descriptor programs: random legal programs over several queues (the tests' stimulus),
// and the functional reference that computes a program's final memory image with plain loops.
//
// Memory plan of a random program (docs/dma.md): sources come from read-only regions (the low
// quarter of HBM and of every SBUF partition), each queue writes only its own band (of HBM and of
// every partition) and its semaphores to its own words at the top of HBM, so the final image does
// not depend on how queues interleave; within a queue destinations overlap freely.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "dma/desc.hpp"
#include "dma/memsys.hpp"

namespace trn::dma {

struct Program {
  std::vector<std::vector<Desc>> queues;
  std::vector<bool> strong;
};

struct ProgramOptions {
  unsigned descs_per_queue = 8;
  unsigned max_elems = 96;  ///< elements per descriptor at most
  double p_cast = 0.3, p_col = 0.25, p_acc = 0.25, p_sem = 0.3, p_barrier = 0.15, p_last = 0.1;
  double p_strong = 0.5;  ///< per queue
  bool hbm_dst = true, sbuf_src = true;
};

/// Regions of the memory plan.
struct Plan {
  Geometry g;
  unsigned queues;
  std::uint32_t hbm_ro() const { return g.hbm_bytes / 4; }
  std::uint32_t hbm_band() const { return (g.hbm_bytes / 2) / queues; }  ///< per queue, after the read-only part
  std::uint32_t hbm_band_base(unsigned q) const { return hbm_ro() + q * hbm_band(); }
  std::uint32_t sem_base(unsigned q) const { return g.hbm_bytes - g.hbm_bytes / 8 + q * (g.hbm_bytes / 8 / queues); }
  std::uint32_t sbuf_ro() const { return g.part_bytes / 4; }
  std::uint32_t sbuf_band() const { return ((g.part_bytes - sbuf_ro()) / queues) & ~3u; }
  std::uint32_t sbuf_band_base(unsigned q) const { return sbuf_ro() + q * sbuf_band(); }
};

Program random_program(const Geometry& g, unsigned queues, std::mt19937_64& rng, const ProgramOptions& o = {});
/// Random bytes in the whole image.
void fill_random(Image& img, std::mt19937_64& rng);
/// Apply one descriptor (if legal) to the image, element by element.
void reference_apply(Image& img, const Desc& d);
/// The program's final image from `img`: each queue's descriptors in order.
void reference_run(Image& img, const Program& p);

}  // namespace trn::dma
