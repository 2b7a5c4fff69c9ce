// chip_torus — a system of chips (SPEC 5.6, 5.7; docs/system.md, "Systems in RTL"): N = KX x KY x KZ
// chips of rtl/chip/chip.sv on a torus, chip c = (z * KY + y) * KX + x with id c. Link port k of
// a chip is its router's port k + 1: +x, -x, +y, -y (and +z, -z in 3D), each leading to the
// neighbour in that direction (wrapping), whose opposite port receives. A ring of chips is a
// KX x 1 torus; a dimension of size 1 loops a port pair back into the same chip, which the routes
// never use. The routers route dimension order with a dateline class per ring (SPEC 5.6), so
// every topology here is deadlock-free (docs/system.md).
//
// Each directed link l = c * LP + k (chip c's link port k, leaving chip c) passes a wire
// {crc, seq, {vc, flit}} that flip_i[l] corrupts at bit flip_bit_i[l] for the cycle (the bench's
// channel model); the receiver's acknowledgements and the router's credits travel back beside it,
// uncorrupted. Everything else is the chips' own ports, element c of each array: programs
// (im_chip_i selects the chip), starts, status, semaphores and each chip's HBM port.
module chip_torus
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
  parameter int unsigned Cores         = 1,      /// NeuronCores per chip (0: collective cores only)
  parameter int unsigned CcCores       = 1,
  parameter int unsigned W             = 64,
  parameter int unsigned V             = 2,
  parameter int unsigned D             = 4,
  parameter int unsigned RDepth        = 8,
  parameter int unsigned Timeout       = 64,
  parameter int unsigned KX            = 4,
  parameter int unsigned KY            = 1,
  parameter int unsigned KZ            = 1,
  parameter int unsigned LastHop       = 0,      /// 1: the routers' last-hop VC (V a multiple of 3; docs/link.md)
  localparam int unsigned N  = KX * KY * KZ,                       // chips
  localparam int unsigned CW = N > 1 ? $clog2(N) : 1,
  localparam int unsigned Units = Cores + CcCores,
  localparam int unsigned UW = Units > 1 ? $clog2(Units) : 1,
  localparam int unsigned XW = $clog2(Units + 1),
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned LP = KZ > 1 ? 6 : 4,                     // link ports per chip
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned SB = $clog2(RDepth) + 2,
  localparam int unsigned LW = W + VB,
  localparam int unsigned FB = $clog2(16 + SB + LW),
  localparam int unsigned L  = N * LP                              // directed links
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
  output logic [N-1:0][15:0]                  bad_dst_o,
  output logic [N-1:0][15:0]                  nic_drop_o,
  output logic [N-1:0][15:0]                  bad_sem_o
);
  logic [N-1:0][LP-1:0]    tx_valid, ack_valid, nack_valid, rx_valid, rack_valid, rnack_valid, credit, rcredit;
  logic [N-1:0][LP*SB-1:0] tx_seq, ack_seq, nack_seq, rx_seq, rack_seq, rnack_seq;
  logic [N-1:0][LP*LW-1:0] tx_data, rx_data;
  logic [N-1:0][LP*16-1:0] tx_crc, rx_crc;
  logic [N-1:0][LP*VB-1:0] credit_vc, rcredit_vc;
  logic [N-1:0][LP*32-1:0] crc_err, replays;
  logic [N-1:0][LP-1:0]    tx_ready;

  // the neighbour of chip c across link port k (0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z: router port
  // k + 1), and the link port there that faces back (router_pkg)
  function automatic int unsigned nb(int unsigned c, int unsigned k);
    return router_pkg::torus_nb(c, k + 1, KX, KY, KZ);
  endfunction
  function automatic int unsigned back(int unsigned k);
    return router_pkg::torus_back(k + 1) - 1;
  endfunction

  for (genvar c = 0; c < N; c++) begin : g_chip
    chip #(.Parts(Parts), .SbufBytes(SbufBytes), .SbufBanks(SbufBanks), .PsumBanks(PsumBanks),
           .PsumBankBytes(PsumBankBytes), .MaxN(MaxN), .Queues(Queues), .Slots(Slots), .BeatBytes(BeatBytes),
           .HbmBytes(HbmBytes), .ImemDepth(ImemDepth), .DmaEngines(DmaEngines), .Cores(Cores), .CcCores(CcCores),
           .Chips(N), .W(W), .V(V), .D(D), .RDepth(RDepth), .Timeout(Timeout), .Topo(router_pkg::TopoTorus),
           .KX(KX), .KY(KY), .KZ(KZ), .LastHop(LastHop)) u_chip (
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
      .bad_dst_o(bad_dst_o[c]), .nic_drop_o(nic_drop_o[c]), .bad_sem_o(bad_sem_o[c])
    );
  end

  // chip c's link port k sends to port back(k) of chip nb(c, k) through the wire of link c * LP + k;
  // that port's acknowledgements and credits come back to chip c's port k
  always_comb begin
    logic [16+SB+LW-1:0] w;
    int unsigned m, j;
    {rx_valid, rx_seq, rx_data, rx_crc} = '0;
    {ack_valid, ack_seq, nack_valid, nack_seq, rcredit, rcredit_vc} = '0;
    {link_ready_o, link_crc_err_o, link_replay_o} = '0;
    for (int unsigned c = 0; c < N; c++)
      for (int unsigned k = 0; k < LP; k++) begin
        m = nb(c, k);
        j = back(k);
        w = {tx_crc[c][k*16 +: 16], tx_seq[c][k*SB +: SB], tx_data[c][k*LW +: LW]}
            ^ ((16 + SB + LW)'(flip_i[c*LP + k]) << flip_bit_i[(c*LP + k)*FB +: FB]);
        rx_valid[m][j] = tx_valid[c][k];
        {rx_crc[m][j*16 +: 16], rx_seq[m][j*SB +: SB], rx_data[m][j*LW +: LW]} = w;
        ack_valid[c][k] = rack_valid[m][j];
        ack_seq[c][k*SB +: SB] = rack_seq[m][j*SB +: SB];
        nack_valid[c][k] = rnack_valid[m][j];
        nack_seq[c][k*SB +: SB] = rnack_seq[m][j*SB +: SB];
        rcredit[c][k] = credit[m][j];
        rcredit_vc[c][k*VB +: VB] = credit_vc[m][j*VB +: VB];
        link_ready_o[c*LP + k] = tx_ready[c][k];
        link_crc_err_o[(c*LP + k)*32 +: 32] = crc_err[m][j*32 +: 32];
        link_replay_o[(c*LP + k)*32 +: 32] = replays[c][k*32 +: 32];
      end
  end
endmodule
