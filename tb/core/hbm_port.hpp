// trn::tb::HbmPort — a core top's HBM port (hbm_ar_*, hbm_r_*, hbm_wr_*: rtl/core/core.sv and
// rtl/core/neuron_core.sv) served by trn::dma::MemSystem: seeded random latency, out-of-order read
// responses, back-pressure, and a refused response offered again.
//   serve(): before the edge, the settled handshakes of the cycle go to the memory (an SBUF access
//            on the HBM port fails the test);
//   drive(): after the edge, the memory's port values of the next cycle go to the DUT.
#pragma once

#include <cstdint>
#include <optional>

#include "dma/dma_engine.hpp"
#include "dma/memsys.hpp"
#include "dma/runner.hpp"
#include "harness/env.hpp"
#include "sv/dma_pkg.hpp"

namespace trn::tb {

class HbmPort {
 public:
  HbmPort(Env& e, const dma::Geometry& g, dma::MemSystem::Params mp, std::uint64_t seed, unsigned beat_bytes)
      : mem(g, mp, seed),
        beat_(beat_bytes),
        ar_valid_(e.sig("hbm_ar_valid_o")),
        ar_ready_(e.sig("hbm_ar_ready_i")),
        ar_(e.sig("hbm_ar_o")),
        r_valid_(e.sig("hbm_r_valid_i")),
        r_ready_(e.sig("hbm_r_ready_o")),
        r_id_(e.sig("hbm_r_id_i")),
        r_data_(e.sig("hbm_r_data_i")),
        wr_valid_(e.sig("hbm_wr_valid_o")),
        wr_ready_(e.sig("hbm_wr_ready_i")),
        wr_(e.sig("hbm_wr_o")),
        wr_data_(e.sig("hbm_wr_data_o")),
        wr_info_(e.sig("hbm_wr_info_o")) {}

  dma::MemSystem mem;
  std::uint64_t writes = 0;  ///< writes the port took

  /// The port's inputs idle (before reset).
  void idle() {
    ar_ready_.set(0);
    r_valid_.set(0);
    wr_ready_.set(0);
  }

  void serve(std::uint64_t now) {
    std::optional<dma::ReadReq> rd;
    if ((ar_valid_.get() & 1) && (ar_ready_.get() & 1)) {
      const auto ar = sv::dma_pkg::rd_req_t::unpack(ar_.bits());
      check(!ar.space, "cycle {}: an SBUF read on the HBM port", now);
      rd = dma::ReadReq{dma::Space::hbm, ar.addr, ar.bytes, ar.id};
    }
    std::optional<dma::Write> wr;
    if ((wr_valid_.get() & 1) && (wr_ready_.get() & 1)) {
      dma::DmaEngine::Out d;
      d.wr_valid_o = true;
      d.wr_o = sv::dma_pkg::wr_req_t::unpack(wr_.bits());
      d.wr_data_o = wr_data_.bits();
      d.wr_info_o = sv::dma_pkg::wr_info_t::unpack(wr_info_.bits());
      check(!d.wr_o.space, "cycle {}: an SBUF write on the HBM port", now);
      wr = dma::write_of(d, beat_);
      ++writes;
    }
    mem.observe(now, rd, wr, r_ready_.get() & 1);
  }

  void drive(std::uint64_t now) {
    mem.advance(now);
    const auto& hp = mem.ports();
    ar_ready_.set(hp.ar_ready);
    wr_ready_.set(hp.wr_ready);
    r_valid_.set(hp.r_valid);
    r_id_.set(hp.r_id);
    Bits d(8 * beat_);
    if (hp.r_valid)
      for (unsigned b = 0; b < beat_; ++b) d.set_slice(8 * b, 8, hp.r_data[b]);
    r_data_.set(d);
  }

 private:
  unsigned beat_;
  Signal &ar_valid_, &ar_ready_, &ar_, &r_valid_, &r_ready_, &r_id_, &r_data_, &wr_valid_, &wr_ready_, &wr_, &wr_data_,
      &wr_info_;
};

}  // namespace trn::tb
