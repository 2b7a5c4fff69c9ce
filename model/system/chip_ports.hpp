// trn::system::ChipPorts — the ports a system of chips shares with its chips (rtl/system/chip_torus.sv,
// rtl/system/chip_switch.sv): element c of each array is chip c's own port (programs, starts,
// status, semaphores, HBM), beside the links' channel and counts, which each system wires its own
// way. The systems' models (ChipTorus, ChipSwitch) take their In and Out from here and wire every
// chip's own ports through the two functions below, so both tops mean one thing by them.
#pragma once

#include <cstdint>
#include <vector>

#include "chip/chip.hpp"
#include "common/bits.hpp"

namespace trn::system {

struct ChipPorts {
  using rd_req_t = sv::dma_pkg::rd_req_t;
  using wr_req_t = sv::dma_pkg::wr_req_t;
  using wr_info_t = sv::dma_pkg::wr_info_t;
  struct In {
    bool rst_ni = false;
    bool im_valid_i = false;
    std::uint64_t im_chip_i = 0, im_unit_i = 0;
    unsigned im_stream_i = 0;
    std::uint32_t im_addr_i = 0;
    Bits im_data_i;
    Bits start_i, dma_strong_i;  ///< chip c's unit u at bit c * units + u
    bool sem_ext_en_i = false;
    Bits hbm_ar_ready_i, hbm_r_valid_i, hbm_r_id_i, hbm_r_data_i, hbm_wr_ready_i;  ///< chip c's element c
    Bits flip_i, flip_bit_i;                                                       ///< link l's at l
    bool operator==(const In&) const = default;
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
  /// The ports of a system of n chips like `chip` with `links` directed links (fb bits a flip
  /// index) and `routers` 16-bit drop counts (a torus: one a chip; a switch: the switch's).
  static In make_in(const chip::Chip::Params& chip, unsigned n, unsigned links, unsigned fb);
  static Out make_out(const chip::Chip& chip, unsigned n, unsigned links, unsigned routers);
  /// Chip c's own inputs (all but its link ports) from the system's.
  static void own_in(const chip::Chip::Params& chip, const In& in, unsigned c, chip::Chip::In& k);
  /// Chip c's own outputs (all but its link ports and its router's drops) into the system's.
  static void own_out(const chip::Chip::Params& chip, const chip::Chip::Out& o, unsigned c, Out& out);
};

}  // namespace trn::system
