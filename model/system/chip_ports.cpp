#include "system/chip_ports.hpp"

#include "common/clog2.hpp"
#include "isa/isa.hpp"

namespace trn::system {

namespace {
unsigned read_id_bits(const chip::Chip::Params& p) {
  const unsigned U = p.units();
  return (U > 1 ? clog2(U) : 1) + clog2(p.core.core.slots);
}
}  // namespace

ChipPorts::In ChipPorts::make_in(const chip::Chip::Params& chip, unsigned n, unsigned links, unsigned fb) {
  const unsigned U = chip.units(), DW = 8 * chip.core.core.beat_bytes, idw = read_id_bits(chip);
  In in;
  in.im_data_i = Bits(isa::tbl::kInstBits);
  in.start_i = Bits(n * U);
  in.dma_strong_i = Bits(n * U);
  in.hbm_ar_ready_i = Bits(n);
  in.hbm_r_valid_i = Bits(n);
  in.hbm_r_id_i = Bits(n * idw);
  in.hbm_r_data_i = Bits(n * DW);
  in.hbm_wr_ready_i = Bits(n);
  in.flip_i = Bits(links);
  in.flip_bit_i = Bits(links * fb);
  return in;
}

ChipPorts::Out ChipPorts::make_out(const chip::Chip& chip, unsigned n, unsigned links, unsigned routers) {
  const chip::Chip::Out o = chip.make_out();
  const unsigned U = chip.params().units();
  Out out;
  auto all = [n](const Bits& b) { return Bits(n * b.width()); };
  out.running_o = out.done_o = out.err_o = Bits(n * U);
  out.err_code_o = all(o.err_code_o);
  out.err_detail_o = all(o.err_detail_o);
  out.err_stream_o = all(o.err_stream_o);
  out.err_pc_o = all(o.err_pc_o);
  out.sem_o = all(o.sem_o);
  out.sem_ext_valid_o = Bits(n * U);
  out.sem_ext_idx_o = Bits(n * 5);
  out.sem_ext_val_o = Bits(n * 32);
  out.hbm_ar_valid_o = out.hbm_r_ready_o = out.hbm_wr_valid_o = Bits(n);
  out.hbm_ar_o.resize(n);
  out.hbm_ar_src_o = Bits(n * (U > 1 ? clog2(U) : 1));
  out.hbm_wr_o.resize(n);
  out.hbm_wr_data_o = all(o.hbm_wr_data_o);
  out.hbm_wr_info_o.resize(n);
  out.hbm_wr_src_o = Bits(n * clog2(U + 1));
  out.link_ready_o = Bits(links);
  out.link_crc_err_o = Bits(links * 32);
  out.link_replay_o = Bits(links * 32);
  out.bad_dst_o = Bits(routers * 16);
  out.nic_drop_o = out.bad_sem_o = Bits(n * 16);
  return out;
}

void ChipPorts::own_in(const chip::Chip::Params& chip, const In& in, unsigned c, chip::Chip::In& k) {
  const unsigned U = chip.units(), DW = 8 * chip.core.core.beat_bytes, idw = read_id_bits(chip);
  k.rst_ni = in.rst_ni;
  k.id_i = c;
  k.im_valid_i = in.im_valid_i && in.im_chip_i == c;
  k.im_unit_i = in.im_unit_i;
  k.im_stream_i = in.im_stream_i;
  k.im_addr_i = in.im_addr_i;
  k.im_data_i = in.im_data_i;
  k.start_i = in.start_i.slice(c * U, U);
  k.dma_strong_i = in.dma_strong_i.slice(c * U, U);
  k.sem_ext_en_i = in.sem_ext_en_i;
  k.hbm_ar_ready_i = in.hbm_ar_ready_i.bit(c);
  k.hbm_r_valid_i = in.hbm_r_valid_i.bit(c);
  k.hbm_r_id_i = in.hbm_r_id_i.slice(c * idw, idw);
  k.hbm_r_data_i.copy(0, in.hbm_r_data_i, c * DW, DW);
  k.hbm_wr_ready_i = in.hbm_wr_ready_i.bit(c);
}

void ChipPorts::own_out(const chip::Chip::Params& chip, const chip::Chip::Out& o, unsigned c, Out& out) {
  const unsigned U = chip.units();
  const unsigned aw = U > 1 ? clog2(U) : 1, xw = clog2(U + 1), DW = 8 * chip.core.core.beat_bytes;
  out.running_o.set_slice(c * U, U, o.running_o);
  out.done_o.set_slice(c * U, U, o.done_o);
  out.err_o.set_slice(c * U, U, o.err_o);
  auto put = [c](Bits& dst, const Bits& src) { dst.copy(c * src.width(), src, 0, src.width()); };
  put(out.err_code_o, o.err_code_o);
  put(out.err_detail_o, o.err_detail_o);
  put(out.err_stream_o, o.err_stream_o);
  put(out.err_pc_o, o.err_pc_o);
  put(out.sem_o, o.sem_o);
  out.sem_ext_valid_o.set_slice(c * U, U, o.sem_ext_valid_o);
  out.sem_ext_idx_o.set_slice(c * 5, 5, o.sem_ext_idx_o);
  out.sem_ext_val_o.set_slice(c * 32, 32, o.sem_ext_val_o);
  out.hbm_ar_valid_o.set_bit(c, o.hbm_ar_valid_o);
  out.hbm_ar_o[c] = o.hbm_ar_o;
  out.hbm_ar_src_o.set_slice(c * aw, aw, o.hbm_ar_src_o);
  out.hbm_r_ready_o.set_bit(c, o.hbm_r_ready_o);
  out.hbm_wr_valid_o.set_bit(c, o.hbm_wr_valid_o);
  out.hbm_wr_o[c] = o.hbm_wr_o;
  out.hbm_wr_data_o.copy(c * DW, o.hbm_wr_data_o, 0, DW);
  out.hbm_wr_info_o[c] = o.hbm_wr_info_o;
  out.hbm_wr_src_o.set_slice(c * xw, xw, o.hbm_wr_src_o);
  out.nic_drop_o.set_slice(c * 16, 16, o.nic_drop_o);
  out.bad_sem_o.set_slice(c * 16, 16, o.bad_sem_o);
}

}  // namespace trn::system
