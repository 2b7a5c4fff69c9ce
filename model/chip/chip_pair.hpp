// trn::chip::ChipPair — cycle-exact model of rtl/chip/chip_pair.sv: two trn::chip::Chip (g_chip[0],
// g_chip[1]), chips 0 and 1 of a 2 x 1 torus, link port k of each wired to link port k of the other.
// Each direction of each link passes a wire {crc, seq, {vc, flit}} that flip_i corrupts at bit
// flip_bit_i; acknowledgements and credits travel beside it. Link l = 2 k + c is the direction of
// link port k leaving chip c. Everything else is the chips' own ports, element c of each array.
// Evaluation: both chips, then each one's link inputs from the other's outputs (every link output
// is a register), again until neither's inputs change.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "chip/chip.hpp"
#include "common/bits.hpp"
#include "common/ports.hpp"
#include "sv/ports/chip_pair.hpp"

namespace trn::chip {

class ChipPair {
 public:
  struct Params {
    Chip::Params chip;  ///< both chips' (chips 2, a 2 x 1 torus)
    static Params of(const cfg::Arch& a);
  };
  using rd_req_t = sv::dma_pkg::rd_req_t;
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using wr_info_t = sv::dma_pkg::wr_info_t;
  struct In {
    bool rst_ni = false;
    bool im_valid_i = false, im_chip_i = false;
    std::uint64_t im_unit_i = 0;
    unsigned im_stream_i = 0;
    std::uint32_t im_addr_i = 0;
    Bits im_data_i;
    Bits start_i, dma_strong_i;  ///< chip c's unit u at bit c * units + u
    bool sem_ext_en_i = false;
    Bits hbm_ar_ready_i, hbm_r_valid_i, hbm_r_id_i, hbm_r_data_i, hbm_wr_ready_i;  ///< chip c's element c
    Bits flip_i, flip_bit_i;
  };
  struct Out {
    Bits running_o, done_o, err_o, err_code_o, err_detail_o, err_stream_o, err_pc_o, sem_o;
    Bits sem_ext_valid_o, sem_ext_idx_o, sem_ext_val_o;
    Bits hbm_ar_valid_o;
    std::vector<rd_req_t> hbm_ar_o;
    Bits hbm_ar_src_o, hbm_r_ready_o, hbm_wr_valid_o;
    std::vector<wr_req_t> hbm_wr_o;
    Bits hbm_wr_data_o;
    std::vector<wr_info_t> hbm_wr_info_o;
    Bits hbm_wr_src_o;
    Bits link_ready_o, link_crc_err_o, link_replay_o;
    Bits bad_dst_o, nic_drop_o, bad_sem_o;
  };

  explicit ChipPair(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/chip/chip_pair.sv, generated from its header.
  sv::ports::chip_pair::Params sv_params() const;
  TRN_MODULE_PORTS(chip_pair)

  const Chip& chip(unsigned c) const { return chips_.at(c); }
  const Chip::In& chip_in(unsigned c) const { return ci_.at(c); }
  const Chip::Out& chip_out(unsigned c) const { return co_.at(c); }
  /// Bits of a link's wire {crc, seq, vc, flit} and of a flip_bit_i index.
  unsigned wire_bits() const { return 16 + chips_[0].sb() + chips_[0].lw(); }
  unsigned fb() const { return fb_; }
  unsigned links() const { return 2 * p_.chip.link_ports(); }

 private:
  /// chip c's inputs from the pair's and the other chip's outputs; true if they changed.
  bool wire(const In& in, unsigned c) const;
  Params p_;
  unsigned fb_;
  std::vector<Chip> chips_;
  mutable std::array<Chip::In, 2> ci_;
  mutable std::array<Chip::Out, 2> co_;
};

}  // namespace trn::chip
