// chip_switch — an all-to-all domain of chips through one switch (SPEC 5.6, 5.7; docs/system.md,
// "Systems in RTL"): the Trainium3/4 fabric in small. N chips of rtl/chip/chip.sv with
// Topo = TopoSwitch (no router of their own: each chip's NIC is on its one link port), chip c with
// id c on port c of a switch router (rtl/link/router.sv, TopoSwitch: a packet leaves on the port
// of its destination chip, on the VC of its traffic class). Every hop is chip -> switch -> chip,
// so no route waits on another link it holds: the system is deadlock-free with any VC count
// (docs/system.md).
//
// Each of the switch's ports has its own link layer: g_port[c].u_rx takes what chip c sends,
// g_port[c].u_tx sends the switch's output c to chip c. Directed link l: l = c is chip c to the
// switch, l = N + c the switch to chip c (as rtl/link/switch_net.sv numbers them). Each passes a
// wire {crc, seq, {vc, flit}} that flip_i[l] corrupts at bit flip_bit_i[l] for the cycle (the
// bench's channel model); the receiver's acknowledgements and the credits travel back beside it,
// uncorrupted. Everything else is the chips' own ports, element c of each array, as in
// rtl/system/chip_torus.sv.
module chip_switch
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
  parameter int unsigned Cores         = 0,      /// NeuronCores per chip (0: collective cores only)
  parameter int unsigned CcCores       = 1,
  parameter int unsigned W             = 64,
  parameter int unsigned V             = 2,
  parameter int unsigned D             = 4,
  parameter int unsigned RDepth        = 8,
  parameter int unsigned Timeout       = 64,
  parameter int unsigned N             = 8,      /// chips (the switch's ports)
  localparam int unsigned CW = N > 1 ? $clog2(N) : 1,
  localparam int unsigned Units = Cores + CcCores,
  localparam int unsigned UW = Units > 1 ? $clog2(Units) : 1,
  localparam int unsigned XW = $clog2(Units + 1),
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned SB = $clog2(RDepth) + 2,
  localparam int unsigned LW = W + VB,
  localparam int unsigned FB = $clog2(16 + SB + LW),
  localparam int unsigned L  = 2 * N                               // directed links
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  input  logic                                im_valid_i,
  input  logic [CW-1:0]                       im_chip_i,
  input  logic [UW-1:0]                       im_unit_i,
  input  stream_e                             im_stream_i,
  input  logic [PcBits-1:0]                   im_addr_i,
  input  logic [InstBits-1:0]                 im_data_i,
  input  logic [N-1:0][Units-1:0]             start_i,
  input  logic [N-1:0][Units-1:0]             dma_strong_i,
  input  logic                                sem_ext_en_i,
  output logic [N-1:0][Units-1:0]             running_o,
  output logic [N-1:0][Units-1:0]             done_o,
  output logic [N-1:0][Units-1:0]             err_o,
  output ctl_err_e [N-1:0][Units-1:0]         err_code_o,
  output logic [N-1:0][Units-1:0][2:0]        err_detail_o,
  output stream_e [N-1:0][Units-1:0]          err_stream_o,
  output logic [N-1:0][Units-1:0][PcBits-1:0] err_pc_o,
  output logic [N-1:0][Units-1:0][Sems-1:0][31:0] sem_o,
  output logic [N-1:0][Units-1:0]             sem_ext_valid_o,
  output logic [N-1:0][4:0]                   sem_ext_idx_o,
  output logic [N-1:0][31:0]                  sem_ext_val_o,
  // the chips' HBM ports
  output logic [N-1:0]                        hbm_ar_valid_o,
  input  logic [N-1:0]                        hbm_ar_ready_i,
  output rd_req_t [N-1:0]                     hbm_ar_o,
  output logic [N-1:0][UW-1:0]                hbm_ar_src_o,
  input  logic [N-1:0]                        hbm_r_valid_i,
  output logic [N-1:0]                        hbm_r_ready_o,
  input  logic [N-1:0][UW+SW-1:0]             hbm_r_id_i,
  input  logic [N-1:0][DW-1:0]                hbm_r_data_i,
  output logic [N-1:0]                        hbm_wr_valid_o,
  input  logic [N-1:0]                        hbm_wr_ready_i,
  output wr_req_t [N-1:0]                     hbm_wr_o,
  output logic [N-1:0][DW-1:0]                hbm_wr_data_o,
  output wr_info_t [N-1:0]                    hbm_wr_info_o,
  output logic [N-1:0][XW-1:0]                hbm_wr_src_o,
  // the links' channel
  input  logic [L-1:0]                        flip_i,       /// link l: corrupt its wire this cycle
  input  logic [L*FB-1:0]                     flip_bit_i,   /// ... at this bit of {crc, seq, vc, flit}
  output logic [L-1:0]                        link_ready_o, /// link l's sender takes a flit (1 whenever one comes)
  output logic [L*32-1:0]                     link_crc_err_o, /// link l's receiver: flits dropped for their CRC
  output logic [L*32-1:0]                     link_replay_o,  /// link l's sender: replays on nack
  output logic [15:0]                         bad_dst_o,    /// the switch's drops (no such chip)
  output logic [N-1:0][15:0]                  nic_drop_o,
  output logic [N-1:0][15:0]                  bad_sem_o
);
  if (N > 32 || N * V > 32) $error("chip_switch: the switch router takes at most 32 input VCs");

  // the chips' link port 0
  logic [N-1:0]      tx_valid, ack_valid, nack_valid, rx_valid, rack_valid, rnack_valid, credit, rcredit;
  logic [N-1:0][SB-1:0] tx_seq, ack_seq, nack_seq, rx_seq, rack_seq, rnack_seq;
  logic [N-1:0][LW-1:0] tx_data, rx_data;
  logic [N-1:0][15:0]   tx_crc, rx_crc;
  logic [N-1:0][VB-1:0] credit_vc, rcredit_vc;
  logic [N-1:0][31:0]   crc_err, replays;
  logic [N-1:0]         tx_ready;
  logic [N-1:0][15:0]   chip_bad_dst;

  for (genvar c = 0; c < N; c++) begin : g_chip
    chip #(.Parts(Parts), .SbufBytes(SbufBytes), .SbufBanks(SbufBanks), .PsumBanks(PsumBanks),
           .PsumBankBytes(PsumBankBytes), .MaxN(MaxN), .Queues(Queues), .Slots(Slots), .BeatBytes(BeatBytes),
           .HbmBytes(HbmBytes), .ImemDepth(ImemDepth), .DmaEngines(DmaEngines), .Cores(Cores), .CcCores(CcCores),
           .Chips(N), .W(W), .V(V), .D(D), .RDepth(RDepth), .Timeout(Timeout), .Topo(router_pkg::TopoSwitch),
           .KX(1), .KY(1), .KZ(1)) u_chip (
      .clk_i, .rst_ni, .id_i(router_pkg::IdBits'(c)),
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
      .bad_dst_o(chip_bad_dst[c]), .nic_drop_o(nic_drop_o[c]), .bad_sem_o(bad_sem_o[c])
    );
  end
  // a chip on a switch has no router: its drop count is always 0
  logic chip_bad_dst_unused;
  assign chip_bad_dst_unused = ^chip_bad_dst;

  // ---- the switch and its ports' link layer
  logic [N-1:0]         s_in_valid, s_in_credit, s_out_valid, s_out_credit;
  logic [N*VB-1:0]      s_in_vc, s_in_credit_vc, s_out_vc, s_out_credit_vc;
  logic [N*W-1:0]       s_in_flit, s_out_flit;
  // switch port c's link layer: its sender (toward chip c) and receiver (from chip c)
  logic [N-1:0]         p_tx_valid, p_ack_valid, p_nack_valid, p_rack_valid, p_rnack_valid, p_rx_out_valid;
  logic [N-1:0][SB-1:0] p_tx_seq, p_ack_seq, p_nack_seq, p_rack_seq, p_rnack_seq;
  logic [N-1:0][LW-1:0] p_tx_data, p_rx_out;
  logic [N-1:0][15:0]   p_tx_crc;
  logic [N-1:0][31:0]   p_crc_err, p_replays;
  logic [N-1:0]         p_tx_ready;
  logic [N-1:0]         p_rx_valid;
  logic [N-1:0][SB-1:0] p_rx_seq;
  logic [N-1:0][LW-1:0] p_rx_data;
  logic [N-1:0][15:0]   p_rx_crc;

  router #(.P(N), .V(V), .D(D), .W(W), .Topo(router_pkg::TopoSwitch)) u_switch (
    .clk_i, .rst_ni, .id_i('0),
    .in_valid_i(s_in_valid), .in_vc_i(s_in_vc), .in_flit_i(s_in_flit),
    .in_credit_o(s_in_credit), .in_credit_vc_o(s_in_credit_vc),
    .out_valid_o(s_out_valid), .out_vc_o(s_out_vc), .out_flit_o(s_out_flit),
    .out_credit_i(s_out_credit), .out_credit_vc_i(s_out_credit_vc),
    .bad_dst_o
  );

  for (genvar c = 0; c < N; c++) begin : g_port
    logic [SB-2:0] held_unused;
    logic [31:0]   timeouts_unused, drops_unused;
    link_tx #(.W(LW), .Depth(RDepth), .Timeout(Timeout)) u_tx (
      .clk_i, .rst_ni,
      .in_valid_i(s_out_valid[c]), .in_ready_o(p_tx_ready[c]),
      .in_data_i({s_out_vc[c*VB +: VB], s_out_flit[c*W +: W]}),
      .tx_valid_o(p_tx_valid[c]), .tx_seq_o(p_tx_seq[c]), .tx_data_o(p_tx_data[c]), .tx_crc_o(p_tx_crc[c]),
      .ack_valid_i(p_ack_valid[c]), .ack_seq_i(p_ack_seq[c]), .nack_valid_i(p_nack_valid[c]),
      .nack_seq_i(p_nack_seq[c]),
      .held_o(held_unused), .replays_o(p_replays[c]), .timeouts_o(timeouts_unused)
    );
    link_rx #(.W(LW), .SB(SB)) u_rx (
      .clk_i, .rst_ni,
      .rx_valid_i(p_rx_valid[c]), .rx_seq_i(p_rx_seq[c]), .rx_data_i(p_rx_data[c]), .rx_crc_i(p_rx_crc[c]),
      .out_valid_o(p_rx_out_valid[c]), .out_data_o(p_rx_out[c]),
      .ack_valid_o(p_rack_valid[c]), .ack_seq_o(p_rack_seq[c]),
      .nack_valid_o(p_rnack_valid[c]), .nack_seq_o(p_rnack_seq[c]),
      .crc_errors_o(p_crc_err[c]), .drops_o(drops_unused)
    );
  end

  // link c: chip c's link port -> switch port c's receiver; link N + c: switch port c's sender ->
  // chip c's link port. Acknowledgements go back to each sender; the switch's input credits of port
  // c go to chip c's NIC, chip c's NIC's credits to the switch's output c.
  always_comb begin
    logic [16+SB+LW-1:0] up, down;
    for (int unsigned c = 0; c < N; c++) begin
      up = {tx_crc[c], tx_seq[c], tx_data[c]} ^ ((16 + SB + LW)'(flip_i[c]) << flip_bit_i[c*FB +: FB]);
      down = {p_tx_crc[c], p_tx_seq[c], p_tx_data[c]} ^ ((16 + SB + LW)'(flip_i[N + c]) << flip_bit_i[(N + c)*FB +: FB]);
      p_rx_valid[c] = tx_valid[c];
      {p_rx_crc[c], p_rx_seq[c], p_rx_data[c]} = up;
      rx_valid[c] = p_tx_valid[c];
      {rx_crc[c], rx_seq[c], rx_data[c]} = down;
      ack_valid[c] = p_rack_valid[c];
      ack_seq[c] = p_rack_seq[c];
      nack_valid[c] = p_rnack_valid[c];
      nack_seq[c] = p_rnack_seq[c];
      p_ack_valid[c] = rack_valid[c];
      p_ack_seq[c] = rack_seq[c];
      p_nack_valid[c] = rnack_valid[c];
      p_nack_seq[c] = rnack_seq[c];
      s_in_valid[c] = p_rx_out_valid[c];
      {s_in_vc[c*VB +: VB], s_in_flit[c*W +: W]} = p_rx_out[c];
      rcredit[c] = s_in_credit[c];
      rcredit_vc[c] = s_in_credit_vc[c*VB +: VB];
      s_out_credit[c] = credit[c];
      s_out_credit_vc[c*VB +: VB] = credit_vc[c];
      link_ready_o[c] = tx_ready[c];
      link_ready_o[N + c] = p_tx_ready[c];
      link_crc_err_o[c*32 +: 32] = p_crc_err[c];
      link_crc_err_o[(N + c)*32 +: 32] = crc_err[c];
      link_replay_o[c*32 +: 32] = replays[c];
      link_replay_o[(N + c)*32 +: 32] = p_replays[c];
    end
  end
endmodule
