// chip_pair — two chips (SPEC 5.7, docs/chip.md), chip 0 and chip 1 of a 2 x 1 torus: link port k
// of each chip wired to link port k of the other, so a remote write crosses the link layer into the
// other chip. Each direction of each link passes a wire {crc, seq, {vc, flit}} that flip_i corrupts
// at bit flip_bit_i for the cycle (the bench's channel model); the receiver's acknowledgements and
// the routers' credits travel beside it, uncorrupted. Everything else of the chips is the top's:
// programs, starts, status and each chip's HBM port (index c: chip c).
// Link l = 2 k + c is the direction of link port k leaving chip c.
module chip_pair
  import isa_pkg::*;
  import dma_pkg::rd_req_t;
  import dma_pkg::wr_req_t;
  import dma_pkg::wr_info_t;
#(
  parameter int unsigned Parts         = 4,
  parameter int unsigned SbufBytes     = 1024,
  parameter int unsigned SbufBanks     = 4,
  parameter int unsigned PsumBanks     = 8,
  parameter int unsigned PsumBankBytes = 64,
  parameter int unsigned MaxN          = 16,
  parameter int unsigned Queues        = 2,
  parameter int unsigned Slots         = 128,
  parameter int unsigned BeatBytes     = 16,
  parameter int unsigned HbmBytes      = 65536,
  parameter int unsigned ImemDepth     = 256,
  parameter int unsigned DmaEngines    = 2,
  parameter int unsigned Cores         = 2,
  parameter int unsigned CcCores       = 1,
  parameter int unsigned W             = 64,
  parameter int unsigned V             = 2,
  parameter int unsigned D             = 4,
  parameter int unsigned RDepth        = 8,
  parameter int unsigned Timeout       = 64,
  localparam int unsigned Units = Cores + CcCores,
  localparam int unsigned UW = Units > 1 ? $clog2(Units) : 1,
  localparam int unsigned RW = Units > 1 ? $clog2(Units) : 1,
  localparam int unsigned XW = $clog2(Units + 1),
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned LP = 4,                                 // link ports of a 2D torus chip
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned SB = $clog2(RDepth) + 2,
  localparam int unsigned LW = W + VB,
  localparam int unsigned FB = $clog2(16 + SB + LW),
  localparam int unsigned L  = 2 * LP                             // directed links
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  input  logic                                im_valid_i,
  input  logic                                im_chip_i,
  input  logic [UW-1:0]                       im_unit_i,
  input  stream_e                             im_stream_i,
  input  logic [PcBits-1:0]                   im_addr_i,
  input  logic [InstBits-1:0]                 im_data_i,
  input  logic [1:0][Units-1:0]               start_i,
  input  logic [1:0][Units-1:0]               dma_strong_i,
  input  logic                                sem_ext_en_i,
  output logic [1:0][Units-1:0]               running_o,
  output logic [1:0][Units-1:0]               done_o,
  output logic [1:0][Units-1:0]               err_o,
  output ctl_err_e [1:0][Units-1:0]           err_code_o,
  output logic [1:0][Units-1:0][2:0]          err_detail_o,
  output stream_e [1:0][Units-1:0]            err_stream_o,
  output logic [1:0][Units-1:0][PcBits-1:0]   err_pc_o,
  output logic [1:0][Units-1:0][Sems-1:0][31:0] sem_o,
  output logic [1:0][Units-1:0]               sem_ext_valid_o,
  output logic [1:0][4:0]                     sem_ext_idx_o,
  output logic [1:0][31:0]                    sem_ext_val_o,
  // the chips' HBM ports
  output logic [1:0]                          hbm_ar_valid_o,
  input  logic [1:0]                          hbm_ar_ready_i,
  output rd_req_t [1:0]                       hbm_ar_o,
  output logic [1:0][RW-1:0]                  hbm_ar_src_o,
  input  logic [1:0]                          hbm_r_valid_i,
  output logic [1:0]                          hbm_r_ready_o,
  input  logic [1:0][RW+SW-1:0]               hbm_r_id_i,
  input  logic [1:0][DW-1:0]                  hbm_r_data_i,
  output logic [1:0]                          hbm_wr_valid_o,
  input  logic [1:0]                          hbm_wr_ready_i,
  output wr_req_t [1:0]                       hbm_wr_o,
  output logic [1:0][DW-1:0]                  hbm_wr_data_o,
  output wr_info_t [1:0]                      hbm_wr_info_o,
  output logic [1:0][XW-1:0]                  hbm_wr_src_o,
  // the links' channel
  input  logic [L-1:0]                        flip_i,       /// link l: corrupt its wire this cycle
  input  logic [L*FB-1:0]                     flip_bit_i,   /// ... at this bit of {crc, seq, vc, flit}
  output logic [L-1:0]                        link_ready_o, /// link l's sender takes a flit (1 whenever one comes)
  output logic [L*32-1:0]                     link_crc_err_o,
  output logic [L*32-1:0]                     link_replay_o,
  output logic [1:0][15:0]                    bad_dst_o,
  output logic [1:0][15:0]                    nic_drop_o,
  output logic [1:0][15:0]                    bad_sem_o
);
  logic [1:0][LP-1:0]      tx_valid, ack_valid, nack_valid, rx_valid, rack_valid, rnack_valid, credit, rcredit;
  logic [1:0][LP*SB-1:0]   tx_seq, ack_seq, nack_seq, rx_seq, rack_seq, rnack_seq;
  logic [1:0][LP*LW-1:0]   tx_data, rx_data;
  logic [1:0][LP*16-1:0]   tx_crc, rx_crc;
  logic [1:0][LP*VB-1:0]   credit_vc, rcredit_vc;
  logic [1:0][LP*32-1:0]   crc_err, replays;
  logic [1:0][LP-1:0]      tx_ready;

  for (genvar c = 0; c < 2; c++) begin : g_chip
    chip #(.Parts(Parts), .SbufBytes(SbufBytes), .SbufBanks(SbufBanks), .PsumBanks(PsumBanks),
           .PsumBankBytes(PsumBankBytes), .MaxN(MaxN), .Queues(Queues), .Slots(Slots), .BeatBytes(BeatBytes),
           .HbmBytes(HbmBytes), .ImemDepth(ImemDepth), .DmaEngines(DmaEngines), .Cores(Cores), .CcCores(CcCores),
           .Chips(2), .W(W), .V(V), .D(D), .RDepth(RDepth), .Timeout(Timeout), .Topo(router_pkg::TopoTorus),
           .KX(2), .KY(1), .KZ(1)) u_chip (
      .clk_i, .rst_ni, .id_i(8'(c)),
      .im_valid_i(im_valid_i && 32'(im_chip_i) == c), .im_unit_i, .im_stream_i, .im_addr_i, .im_data_i,
      .start_i(start_i[c]), .dma_strong_i(dma_strong_i[c]), .sem_ext_en_i,
      .running_o(running_o[c]), .done_o(done_o[c]), .err_o(err_o[c]), .err_code_o(err_code_o[c]),
      .err_detail_o(err_detail_o[c]), .err_stream_o(err_stream_o[c]), .err_pc_o(err_pc_o[c]), .sem_o(sem_o[c]),
      .sem_ext_valid_o(sem_ext_valid_o[c]), .sem_ext_idx_o(sem_ext_idx_o[c]), .sem_ext_val_o(sem_ext_val_o[c]),
      .hbm_ar_valid_o(hbm_ar_valid_o[c]), .hbm_ar_ready_i(hbm_ar_ready_i[c]), .hbm_ar_o(hbm_ar_o[c]),
      .hbm_ar_src_o(hbm_ar_src_o[c]), .hbm_r_valid_i(hbm_r_valid_i[c]), .hbm_r_ready_o(hbm_r_ready_o[c]),
      .hbm_r_id_i(hbm_r_id_i[c]), .hbm_r_data_i(hbm_r_data_i[c]),
      .hbm_wr_valid_o(hbm_wr_valid_o[c]), .hbm_wr_ready_i(hbm_wr_ready_i[c]), .hbm_wr_o(hbm_wr_o[c]),
      .hbm_wr_data_o(hbm_wr_data_o[c]), .hbm_wr_info_o(hbm_wr_info_o[c]), .hbm_wr_src_o(hbm_wr_src_o[c]),
      .lk_tx_valid_o(tx_valid[c]), .lk_tx_seq_o(tx_seq[c]), .lk_tx_data_o(tx_data[c]), .lk_tx_crc_o(tx_crc[c]),
      .lk_ack_valid_i(ack_valid[c]), .lk_ack_seq_i(ack_seq[c]), .lk_nack_valid_i(nack_valid[c]),
      .lk_nack_seq_i(nack_seq[c]),
      .lk_rx_valid_i(rx_valid[c]), .lk_rx_seq_i(rx_seq[c]), .lk_rx_data_i(rx_data[c]), .lk_rx_crc_i(rx_crc[c]),
      .lk_ack_valid_o(rack_valid[c]), .lk_ack_seq_o(rack_seq[c]), .lk_nack_valid_o(rnack_valid[c]),
      .lk_nack_seq_o(rnack_seq[c]),
      .lk_credit_o(credit[c]), .lk_credit_vc_o(credit_vc[c]), .lk_credit_i(rcredit[c]),
      .lk_credit_vc_i(rcredit_vc[c]),
      .lk_tx_ready_o(tx_ready[c]), .lk_crc_err_o(crc_err[c]), .lk_replays_o(replays[c]),
      .bad_dst_o(bad_dst_o[c]), .nic_drop_o(nic_drop_o[c]), .bad_sem_o(bad_sem_o[c])
    );
  end

  // chip c's link port k sends to chip 1 - c's link port k through the wire of link 2 k + c
  always_comb begin
    logic [16+SB+LW-1:0] w;
    for (int unsigned c = 0; c < 2; c++)
      for (int unsigned k = 0; k < LP; k++) begin
        w = {tx_crc[c][k*16 +: 16], tx_seq[c][k*SB +: SB], tx_data[c][k*LW +: LW]}
            ^ ((16 + SB + LW)'(flip_i[2*k + c]) << flip_bit_i[(2*k + c)*FB +: FB]);
        rx_valid[1-c][k] = tx_valid[c][k];
        {rx_crc[1-c][k*16 +: 16], rx_seq[1-c][k*SB +: SB], rx_data[1-c][k*LW +: LW]} = w;
        link_ready_o[2*k + c] = tx_ready[c][k];
        link_crc_err_o[(2*k + c)*32 +: 32] = crc_err[1-c][k*32 +: 32];
        link_replay_o[(2*k + c)*32 +: 32] = replays[c][k*32 +: 32];
      end
    for (int unsigned c = 0; c < 2; c++) begin
      ack_valid[c] = rack_valid[1-c];
      ack_seq[c] = rack_seq[1-c];
      nack_valid[c] = rnack_valid[1-c];
      nack_seq[c] = rnack_seq[1-c];
      rcredit[c] = credit[1-c];
      rcredit_vc[c] = credit_vc[1-c];
    end
  end
endmodule
