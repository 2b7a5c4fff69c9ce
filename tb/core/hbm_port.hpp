// trn::tb::HbmPort — an HBM port (hbm_ar_*, hbm_r_*, hbm_wr_*: rtl/core/core.sv,
// rtl/core/neuron_core.sv, rtl/chip/chip.sv) served by trn::dma::MemSystem: seeded random latency,
// out-of-order read responses, back-pressure, and a refused response offered again.
//   serve(): before the edge, the settled handshakes of the cycle go to the memory (an SBUF access
//            on the HBM port fails the test);
//   drive(): after the edge, the memory's port values of the next cycle go to the DUT.
// A chip's port also says which unit reads (hbm_ar_src_o): the response's id is {source, id}, the
// source above `id_bits` bits. The port's signals may be whole ports or one element of packed
// arrays (a system of chips: chip c's port is element c of every hbm_* array), as HbmWires says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dma/dma_engine.hpp"
#include "dma/memsys.hpp"
#include "dma/runner.hpp"
#include "harness/env.hpp"
#include "sv/dma_pkg.hpp"

namespace trn::tb {

/// The signals of one HBM port.
struct HbmWires {
  Field ar_valid, ar_ready, ar, ar_src, r_valid, r_ready, r_id, r_data, wr_valid, wr_ready, wr, wr_data, wr_info;
  bool has_src = false;

  /// The top's own hbm_* ports (and hbm_ar_src_o if it has one).
  static HbmWires named(Env& e) {
    HbmWires w{&e.sig("hbm_ar_valid_o"), &e.sig("hbm_ar_ready_i"), &e.sig("hbm_ar_o"),   {},
               &e.sig("hbm_r_valid_i"),  &e.sig("hbm_r_ready_o"),  &e.sig("hbm_r_id_i"), &e.sig("hbm_r_data_i"),
               &e.sig("hbm_wr_valid_o"), &e.sig("hbm_wr_ready_i"), &e.sig("hbm_wr_o"),   &e.sig("hbm_wr_data_o"),
               &e.sig("hbm_wr_info_o")};
    if (Signal* s = e.find("hbm_ar_src_o")) {
      w.ar_src = Field(s);
      w.has_src = true;
    }
    return w;
  }
  /// Element c of n-element packed arrays of hbm_* ports (each element a port's width).
  static HbmWires element(Env& e, unsigned c, unsigned n) {
    auto f = [&](const char* name) {
      Signal& s = e.sig(name);
      return Field(&s, c * (s.width() / n), s.width() / n);
    };
    HbmWires w{f("hbm_ar_valid_o"), f("hbm_ar_ready_i"), f("hbm_ar_o"),     f("hbm_ar_src_o"),   f("hbm_r_valid_i"),
               f("hbm_r_ready_o"),  f("hbm_r_id_i"),     f("hbm_r_data_i"), f("hbm_wr_valid_o"), f("hbm_wr_ready_i"),
               f("hbm_wr_o"),       f("hbm_wr_data_o"),  f("hbm_wr_info_o")};
    w.has_src = true;
    return w;
  }
};

class HbmPort {
 public:
  /// id_bits: where a chip's read source goes in the response id (above a unit's id bits).
  HbmPort(const dma::Geometry& g, dma::MemSystem::Params mp, std::uint64_t seed, unsigned beat_bytes, HbmWires w,
          unsigned id_bits = 0)
      : mem(g, mp, seed), beat_(beat_bytes), w_(w), id_bits_(id_bits) {}
  HbmPort(Env& e, const dma::Geometry& g, dma::MemSystem::Params mp, std::uint64_t seed, unsigned beat_bytes)
      : HbmPort(g, mp, seed, beat_bytes, HbmWires::named(e)) {}

  dma::MemSystem mem;
  std::uint64_t writes = 0;  ///< writes the port took

  /// The port's inputs idle (before reset).
  void idle() {
    w_.ar_ready.set(0);
    w_.r_valid.set(0);
    w_.wr_ready.set(0);
  }

  void serve(std::uint64_t now) {
    std::optional<dma::ReadReq> rd;
    if ((w_.ar_valid.get() & 1) && (w_.ar_ready.get() & 1)) {
      const auto ar = sv::dma_pkg::rd_req_t::unpack(w_.ar.bits());
      check(!ar.space, "cycle {}: an SBUF read on the HBM port", now);
      const unsigned src = w_.has_src ? static_cast<unsigned>(w_.ar_src.get()) : 0;
      rd = dma::ReadReq{dma::Space::hbm, ar.addr, ar.bytes, ar.id | (src << id_bits_)};
    }
    std::optional<dma::Write> wr;
    if ((w_.wr_valid.get() & 1) && (w_.wr_ready.get() & 1)) {
      dma::DmaEngine::Out d;
      d.wr_valid_o = true;
      d.wr_o = sv::dma_pkg::wr_req_t::unpack(w_.wr.bits());
      d.wr_data_o = w_.wr_data.bits();
      d.wr_info_o = sv::dma_pkg::wr_info_t::unpack(w_.wr_info.bits());
      check(!d.wr_o.space, "cycle {}: an SBUF write on the HBM port", now);
      wr = dma::write_of(d, beat_);
      ++writes;
    }
    mem.observe(now, rd, wr, w_.r_ready.get() & 1);
  }

  void drive(std::uint64_t now) {
    mem.advance(now);
    const auto& hp = mem.ports();
    w_.ar_ready.set(hp.ar_ready);
    w_.wr_ready.set(hp.wr_ready);
    w_.r_valid.set(hp.r_valid);
    w_.r_id.set(hp.r_id);
    Bits d(8 * beat_);
    if (hp.r_valid)
      for (unsigned b = 0; b < beat_; ++b) d.set_slice(8 * b, 8, hp.r_data[b]);
    w_.r_data.set(d);
  }

 private:
  unsigned beat_;
  HbmWires w_;
  unsigned id_bits_;
};

}  // namespace trn::tb
