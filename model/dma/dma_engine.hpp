// trn::dma::DmaEngine — cycle-exact model of rtl/dma/dma_engine.sv, written from SPEC 5.5 and the
// timing contract in docs/dma.md: descriptor queues executed in order and arbitrated round-robin
// for one read per cycle, a pool of read slots (outstanding reads + reorder buffer), one write per
// cycle, per-queue write-after-write or strong-order-write.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "common/bits.hpp"
#include "dma/desc.hpp"

namespace trn::dma {

class DmaEngine {
 public:
  struct Params {
    unsigned queues = 2;
    unsigned qdepth = 4;
    unsigned slots = 16;
    Geometry geo;
  };
  struct In {
    bool rst_ni = false;
    bool desc_valid_i = false;
    std::uint64_t desc_queue_i = 0;
    bool desc_src_space_i = false;
    std::uint64_t desc_src_addr_i = 0;
    bool desc_dst_space_i = false;
    std::uint64_t desc_dst_addr_i = 0, desc_len_i = 0, desc_stype_i = 0, desc_dtype_i = 0, desc_layout_i = 0,
                  desc_cols_i = 0, desc_op_i = 0;
    bool desc_sem_i = false, desc_sem_space_i = false;
    std::uint64_t desc_sem_addr_i = 0, desc_sem_val_i = 0;
    bool desc_barrier_i = false, desc_last_i = false;
    std::uint64_t cfg_strong_i = 0, cfg_max_outst_i = 0, q_clr_i = 0;
    bool ar_ready_i = false;
    bool r_valid_i = false;
    std::uint64_t r_id_i = 0;
    Bits r_data_i;
    bool wr_ready_i = false;
  };
  struct Out {
    bool desc_ready_o = false;
    bool ar_valid_o = false, ar_space_o = false;
    std::uint64_t ar_addr_o = 0, ar_bytes_o = 0, ar_id_o = 0;
    bool wr_valid_o = false, wr_space_o = false, wr_col_o = false;
    std::uint64_t wr_esize_o = 0, wr_addr_o = 0, wr_n_o = 0;
    bool wr_acc_o = false;
    Bits wr_data_o;
    std::uint64_t wr_queue_o = 0, wr_desc_o = 0, wr_elem_o = 0;
    bool wr_sem_o = false;
    std::uint64_t q_idle_o = 0, q_err_o = 0;
    Bits q_code_o, q_done_o;
    std::uint64_t rob_o = 0, inflight_o = 0;
  };

  explicit DmaEngine(Params p);
  const Params& params() const { return p_; }
  unsigned qw() const { return qw_; }
  unsigned sw() const { return sw_; }
  unsigned nb() const { return nb_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  static Desc decode(const In& in);
  static void encode(const Desc& d, In& in);

  template <class V>
  void visit_in(In& in, V&& v) const {
    v("rst_ni", in.rst_ni, 1);
    v("desc_valid_i", in.desc_valid_i, 1);
    v("desc_queue_i", in.desc_queue_i, qw_);
    v("desc_src_space_i", in.desc_src_space_i, 1);
    v("desc_src_addr_i", in.desc_src_addr_i, 32);
    v("desc_dst_space_i", in.desc_dst_space_i, 1);
    v("desc_dst_addr_i", in.desc_dst_addr_i, 32);
    v("desc_len_i", in.desc_len_i, 32);
    v("desc_stype_i", in.desc_stype_i, 4);
    v("desc_dtype_i", in.desc_dtype_i, 4);
    v("desc_layout_i", in.desc_layout_i, 2);
    v("desc_cols_i", in.desc_cols_i, 16);
    v("desc_op_i", in.desc_op_i, 2);
    v("desc_sem_i", in.desc_sem_i, 1);
    v("desc_sem_space_i", in.desc_sem_space_i, 1);
    v("desc_sem_addr_i", in.desc_sem_addr_i, 32);
    v("desc_sem_val_i", in.desc_sem_val_i, 32);
    v("desc_barrier_i", in.desc_barrier_i, 1);
    v("desc_last_i", in.desc_last_i, 1);
    v("cfg_strong_i", in.cfg_strong_i, p_.queues);
    v("cfg_max_outst_i", in.cfg_max_outst_i, sw_ + 1);
    v("q_clr_i", in.q_clr_i, p_.queues);
    v("ar_ready_i", in.ar_ready_i, 1);
    v("r_valid_i", in.r_valid_i, 1);
    v("r_id_i", in.r_id_i, sw_);
    v("r_data_i", in.r_data_i, 8 * p_.geo.beat_bytes);
    v("wr_ready_i", in.wr_ready_i, 1);
  }
  template <class V>
  void visit_out(Out& out, V&& v) const {
    v("desc_ready_o", out.desc_ready_o, 1);
    v("ar_valid_o", out.ar_valid_o, 1);
    v("ar_space_o", out.ar_space_o, 1);
    v("ar_addr_o", out.ar_addr_o, 32);
    v("ar_bytes_o", out.ar_bytes_o, nb_);
    v("ar_id_o", out.ar_id_o, sw_);
    v("wr_valid_o", out.wr_valid_o, 1);
    v("wr_space_o", out.wr_space_o, 1);
    v("wr_col_o", out.wr_col_o, 1);
    v("wr_esize_o", out.wr_esize_o, 3);
    v("wr_addr_o", out.wr_addr_o, 32);
    v("wr_n_o", out.wr_n_o, nb_);
    v("wr_acc_o", out.wr_acc_o, 1);
    v("wr_data_o", out.wr_data_o, 8 * p_.geo.beat_bytes);
    v("wr_queue_o", out.wr_queue_o, qw_);
    v("wr_desc_o", out.wr_desc_o, 16);
    v("wr_elem_o", out.wr_elem_o, 32);
    v("wr_sem_o", out.wr_sem_o, 1);
    v("q_idle_o", out.q_idle_o, p_.queues);
    v("q_err_o", out.q_err_o, p_.queues);
    v("q_code_o", out.q_code_o, 3 * p_.queues);
    v("q_done_o", out.q_done_o, 16 * p_.queues);
    v("rob_o", out.rob_o, sw_ + 1);
    v("inflight_o", out.inflight_o, sw_ + 1);
  }

 private:
  enum class Q : std::uint8_t { load, bar, run, semw, sema, err };
  enum class S : std::uint8_t { free, wait, data, wr };
  struct Queue {
    std::deque<Desc> fifo;
    Q st = Q::load;
    Err code = Err::none;
    std::uint32_t elem = 0, row = 0, nelem = 0;
    std::uint32_t col = 0;
    unsigned ss = 0, ds = 0, ecap = 0;
    std::uint16_t iseq = 0, wseq = 0, dseq = 0, done = 0;
    unsigned pend = 0;
  };
  struct Slot {
    S st = S::free;
    unsigned q = 0;
    std::uint16_t seq = 0, desc = 0;
    std::uint32_t elem = 0;
    bool space = false, col = false, acc = false, cast = false;
    unsigned esize = 0, ss = 0, stype = 0, dtype = 0;
    std::uint32_t addr = 0;
    unsigned n = 0, cnt = 0;
    std::uint64_t lo = 0, hi = 0;
    Bits data;
  };
  /// This cycle's combinational decisions (the RTL's always_comb blocks).
  struct Comb {
    bool res_ok = false, any_req = false, issue = false, hazard = false, chunk_last = false, src_space = false;
    unsigned win = 0, free_slot = 0;
    unsigned cn = 0, es = 0;
    std::uint32_t src = 0, dst = 0;
    unsigned wn = 0;
    std::uint64_t lo = 0, hi = 0;
    bool wfree = false, sem_pick = false, data_pick = false;
    unsigned sem_q = 0, data_slot = 0;
    std::vector<bool> pop, drop;
  };
  void reset();
  Comb comb(const In& in) const;
  Bits convert(const Slot& s, const Bits& data) const;
  bool strong(const In& in, unsigned q) const { return (in.cfg_strong_i >> q) & 1; }

  Params p_;
  unsigned qw_, sw_, nb_;
  std::vector<Queue> q_;
  std::vector<Slot> s_;
  unsigned rr_ = 0, inflight_ = 0, rob_ = 0;
  bool ar_v_ = false, ar_space_ = false;
  std::uint32_t ar_addr_ = 0;
  unsigned ar_bytes_ = 0, ar_id_ = 0;
  bool w_v_ = false, w_sem_ = false;
  unsigned w_slot_ = 0, w_q_ = 0;
};

}  // namespace trn::dma
