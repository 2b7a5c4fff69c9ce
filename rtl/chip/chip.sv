// chip — a chip (SPEC 5.7, docs/chip.md): Cores NeuronCores and CcCores collective cores (the
// units: cores first), the memory and write fabric joining them on one HBM port (chip_xbar), the
// NeuronLink endpoint (nic) on the local port of the router, and the router's link ports, each
// through the link layer (link_tx out, link_rx in).
//
// Wiring:
//   - unit u's HBM port goes to the fabric; its writes go to HBM, to another unit's semaphores, or
//     to the NIC by their chip and unit fields (docs/chip.md, "Addressing"); the fabric's semaphore
//     additions reach unit u's sem_add_* port;
//   - the NIC sends the fabric's writes for other chips and returns what arrives for this chip;
//   - on a torus (Topo = TopoTorus) router port 0 is the NIC; port k + 1 is link port k: its
//     output {vc, flit} enters link_tx (the replay buffer holds RDepth >= V * D flits, so it
//     never refuses one: lk_tx_ready_o shows it), link_rx's output enters the router's input
//     k + 1; the link's acknowledgements and the router's credits for the port travel beside it
//     (lk_ack_*, lk_credit_*), as between the routers of rtl/link/torus_net.sv;
//   - in a switched system (Topo = TopoSwitch) the switch routes and the chip has no router: its
//     one link port carries the NIC's injection out (link_tx) and brings the NIC's ejection in
//     (link_rx), and the credits pass straight between the NIC and the switch's port (the NIC
//     keeps the router's credit protocol on both sides: D flits per VC, a credit per flit read).
// Programs are loaded through im_* (im_unit_i: which unit), each unit started by its start_i bit.
// Observation: each unit's status and semaphores, the semaphore additions the fabric makes
// (sem_ext_*, for the ordering checker), the HBM write's source, the router's, the NIC's and the
// fabric's drop counts, the links' error and replay counts.
module chip
  import isa_pkg::*;
  import dma_pkg::rd_req_t;
  import dma_pkg::wr_req_t;
  import dma_pkg::wr_info_t;
  import router_pkg::*;
#(
  // the NeuronCores
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
  // the chip and its system
  parameter int unsigned Cores         = 2,
  parameter int unsigned CcCores       = 1,
  parameter int unsigned Chips         = 2,      /// chips an HBM address may name
  // NeuronLink
  parameter int unsigned W             = 64,     /// flit bits
  parameter int unsigned V             = 2,      /// virtual channels
  parameter int unsigned D             = 4,      /// flits per VC buffer
  parameter int unsigned RDepth        = 8,      /// link replay buffer (flits), >= V * D
  parameter int unsigned Timeout       = 64,
  parameter topo_e       Topo          = TopoTorus,
  parameter int unsigned KX            = 2,
  parameter int unsigned KY            = 1,
  parameter int unsigned KZ            = 1,
  parameter int unsigned LastHop       = 0,      /// 1: the torus router's last-hop VC (V a multiple of 3)
  localparam int unsigned Units = Cores + CcCores,
  localparam int unsigned UW = Units > 1 ? $clog2(Units) : 1,
  localparam int unsigned RW = Units > 1 ? $clog2(Units) : 1,   // a read's source on the HBM port
  localparam int unsigned XW = $clog2(Units + 1),                // a write's source (Units: the NIC)
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned P  = Topo == TopoSwitch ? 2 : KZ > 1 ? 7 : 5,  // router ports (switch: NIC, link)
  localparam int unsigned LP = P - 1,                            // link ports
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned SB = $clog2(RDepth) + 2,               // link sequence number bits
  localparam int unsigned LW = W + VB                            // link payload: {vc, flit}
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic [IdBits-1:0]            id_i,            /// this chip's id
  // programs and control
  input  logic                         im_valid_i,
  input  logic [UW-1:0]                im_unit_i,
  input  stream_e                      im_stream_i,
  input  logic [PcBits-1:0]            im_addr_i,
  input  logic [InstBits-1:0]          im_data_i,
  input  logic [Units-1:0]             start_i,
  input  logic [Units-1:0]             dma_strong_i,    /// unit u's DMA queues: strong-order-write (else WAW)
  input  logic                         sem_ext_en_i,    /// other units and chips may add to a unit's semaphores
  // status, per unit
  output logic [Units-1:0]             running_o,
  output logic [Units-1:0]             done_o,
  output logic [Units-1:0]             err_o,
  output ctl_err_e [Units-1:0]         err_code_o,
  output logic [Units-1:0][2:0]        err_detail_o,
  output stream_e [Units-1:0]          err_stream_o,
  output logic [Units-1:0][PcBits-1:0] err_pc_o,
  output logic [Units-1:0][Sems-1:0][31:0] sem_o,
  output logic [Units-1:0]             sem_ext_valid_o, /// the fabric adds sem_ext_val_o to unit u's semaphore
  output logic [4:0]                   sem_ext_idx_o,
  output logic [31:0]                  sem_ext_val_o,
  // the HBM port
  output logic                         hbm_ar_valid_o,
  input  logic                         hbm_ar_ready_i,
  output rd_req_t                      hbm_ar_o,
  output logic [RW-1:0]                hbm_ar_src_o,    /// the unit reading
  input  logic                         hbm_r_valid_i,
  output logic                         hbm_r_ready_o,
  input  logic [RW+SW-1:0]             hbm_r_id_i,      /// {source, id} of the request
  input  logic [DW-1:0]                hbm_r_data_i,
  output logic                         hbm_wr_valid_o,
  input  logic                         hbm_wr_ready_i,
  output wr_req_t                      hbm_wr_o,
  output logic [DW-1:0]                hbm_wr_data_o,
  output wr_info_t                     hbm_wr_info_o,
  output logic [XW-1:0]                hbm_wr_src_o,    /// the unit writing, or Units: the NIC
  // link ports: what this chip sends, and the acknowledgements of its receiver
  output logic [LP-1:0]                lk_tx_valid_o,
  output logic [LP*SB-1:0]             lk_tx_seq_o,
  output logic [LP*LW-1:0]             lk_tx_data_o,
  output logic [LP*16-1:0]             lk_tx_crc_o,
  input  logic [LP-1:0]                lk_ack_valid_i,
  input  logic [LP*SB-1:0]             lk_ack_seq_i,
  input  logic [LP-1:0]                lk_nack_valid_i,
  input  logic [LP*SB-1:0]             lk_nack_seq_i,
  // link ports: what this chip receives, and its receiver's acknowledgements
  input  logic [LP-1:0]                lk_rx_valid_i,
  input  logic [LP*SB-1:0]             lk_rx_seq_i,
  input  logic [LP*LW-1:0]             lk_rx_data_i,
  input  logic [LP*16-1:0]             lk_rx_crc_i,
  output logic [LP-1:0]                lk_ack_valid_o,
  output logic [LP*SB-1:0]             lk_ack_seq_o,
  output logic [LP-1:0]                lk_nack_valid_o,
  output logic [LP*SB-1:0]             lk_nack_seq_o,
  // link ports: the router's credits, each way
  output logic [LP-1:0]                lk_credit_o,
  output logic [LP*VB-1:0]             lk_credit_vc_o,
  input  logic [LP-1:0]                lk_credit_i,
  input  logic [LP*VB-1:0]             lk_credit_vc_i,
  // observation
  output logic [LP-1:0]                lk_tx_ready_o,   /// link_tx takes a flit (1 whenever the router sends)
  output logic [LP*32-1:0]             lk_crc_err_o,    /// flits the receiver dropped for their CRC
  output logic [LP*32-1:0]             lk_replays_o,    /// replays the sender started on a nack
  output logic [15:0]                  bad_dst_o,       /// the router's drops (no such chip)
  output logic [15:0]                  nic_drop_o,      /// the NIC's drops (another chip's packet)
  output logic [15:0]                  bad_sem_o        /// the fabric's drops (no such unit)
);
  localparam int unsigned CcSlots = Slots / DmaEngines;  // a collective core's DMA: one engine's slots
  localparam int unsigned CSW = $clog2(CcSlots);
  localparam int unsigned ESW = $clog2(Slots / DmaEngines);
  localparam int unsigned NQ = DmaEngines * Queues;

  if (Topo == TopoTable) $error("chip: a chip is on a torus or on a switch (docs/chip.md)");
  if (RDepth < V * D) $error("chip: the link replay buffer must hold V * D flits");
  if (Units > 31) $error("chip: at most 31 units (the semaphore address's unit field)");

  // ---- the units' HBM ports and semaphore additions
  logic [Units-1:0]           u_ar_valid, u_ar_ready, u_r_valid, u_r_ready, u_wr_valid, u_wr_ready;
  rd_req_t [Units-1:0]        u_ar;
  wr_req_t [Units-1:0]        u_wr;
  logic [Units-1:0][DW-1:0]   u_wr_data;
  wr_info_t [Units-1:0]       u_wr_info;
  logic [SW-1:0]              u_r_id;
  logic [DW-1:0]              u_r_data;
  logic [Units-1:0]           sem_valid;
  logic [4:0]                 sem_idx;
  logic [31:0]                sem_val;

  for (genvar c = 0; c < Cores; c++) begin : g_core
    stream_status_t [Streams-1:0] st_unused;
    logic [NQ-1:0]                q_idle_unused, q_err_unused;
    dma_pkg::err_e [NQ-1:0]       q_code_unused;
    logic [16*NQ-1:0]             q_done_unused;
    logic                         ve_busy_unused, se_busy_unused;
    logic [31:0]                  gp_rdata_unused, gp_pc_unused;  // (no GpSimd engine on a chip's cores yet)
    logic                         gp_proc_unused;
    neuron_core #(.Parts(Parts), .SbufBytes(SbufBytes), .SbufBanks(SbufBanks), .PsumBanks(PsumBanks),
                  .PsumBankBytes(PsumBankBytes), .MaxN(MaxN), .Queues(Queues), .Slots(Slots),
                  .BeatBytes(BeatBytes), .HbmBytes(HbmBytes), .ImemDepth(ImemDepth), .DmaEngines(DmaEngines),
                  .Chips(Chips), .Unit(c)) u_nc (
      .clk_i, .rst_ni, .start_i(start_i[c]),
      .im_valid_i(im_valid_i && 32'(im_unit_i) == c), .im_stream_i, .im_addr_i, .im_data_i,
      .dma_cfg_strong_i({NQ{dma_strong_i[c]}}), .dma_cfg_max_outst_i((ESW + 1)'(Slots / DmaEngines)),
      .sem_ext_en_i, .sem_add_valid_i(sem_valid[c]), .sem_add_idx_i(sem_idx), .sem_add_val_i(sem_val),
      .running_o(running_o[c]), .done_o(done_o[c]), .err_o(err_o[c]), .err_code_o(err_code_o[c]),
      .err_detail_o(err_detail_o[c]), .err_stream_o(err_stream_o[c]), .err_pc_o(err_pc_o[c]), .st_o(st_unused),
      .sem_o(sem_o[c]),
      .dma_q_idle_o(q_idle_unused), .dma_q_err_o(q_err_unused), .dma_q_code_o(q_code_unused),
      .dma_q_done_o(q_done_unused), .ve_busy_o(ve_busy_unused), .se_busy_o(se_busy_unused),
      .hbm_ar_valid_o(u_ar_valid[c]), .hbm_ar_ready_i(u_ar_ready[c]), .hbm_ar_o(u_ar[c]),
      .hbm_r_valid_i(u_r_valid[c]), .hbm_r_ready_o(u_r_ready[c]), .hbm_r_id_i(u_r_id), .hbm_r_data_i(u_r_data),
      .hbm_wr_valid_o(u_wr_valid[c]), .hbm_wr_ready_i(u_wr_ready[c]), .hbm_wr_o(u_wr[c]),
      .hbm_wr_data_o(u_wr_data[c]), .hbm_wr_info_o(u_wr_info[c]),
      .gp_host_we_i(1'b0), .gp_host_re_i(1'b0), .gp_host_all_i(1'b0), .gp_host_proc_i('0), .gp_host_addr_i('0),
      .gp_host_wdata_i('0), .gp_host_rdata_o(gp_rdata_unused), .gp_err_proc_o(gp_proc_unused),
      .gp_err_pc_o(gp_pc_unused)
    );
  end

  for (genvar k = 0; k < CcCores; k++) begin : g_cc
    localparam int unsigned U = Cores + k;
    stream_status_t [Streams-1:0] st_unused;
    logic [Queues-1:0]            q_idle_unused, q_err_unused;
    dma_pkg::err_e [Queues-1:0]   q_code_unused;
    logic [16*Queues-1:0]         q_done_unused;
    cc_core #(.Queues(Queues), .Slots(CcSlots), .BeatBytes(BeatBytes), .HbmBytes(HbmBytes),
              .ImemDepth(ImemDepth), .Chips(Chips), .Unit(U)) u_cc (
      .clk_i, .rst_ni, .start_i(start_i[U]),
      .im_valid_i(im_valid_i && 32'(im_unit_i) == U), .im_stream_i, .im_addr_i, .im_data_i,
      .dma_cfg_strong_i({Queues{dma_strong_i[U]}}),
      .sem_ext_en_i, .sem_add_valid_i(sem_valid[U]), .sem_add_idx_i(sem_idx), .sem_add_val_i(sem_val),
      .running_o(running_o[U]), .done_o(done_o[U]), .err_o(err_o[U]), .err_code_o(err_code_o[U]),
      .err_detail_o(err_detail_o[U]), .err_stream_o(err_stream_o[U]), .err_pc_o(err_pc_o[U]), .st_o(st_unused),
      .sem_o(sem_o[U]),
      .dma_q_idle_o(q_idle_unused), .dma_q_err_o(q_err_unused), .dma_q_code_o(q_code_unused),
      .dma_q_done_o(q_done_unused),
      .hbm_ar_valid_o(u_ar_valid[U]), .hbm_ar_ready_i(u_ar_ready[U]), .hbm_ar_o(u_ar[U]),
      .hbm_r_valid_i(u_r_valid[U]), .hbm_r_ready_o(u_r_ready[U]), .hbm_r_id_i(u_r_id[CSW-1:0]),
      .hbm_r_data_i(u_r_data),
      .hbm_wr_valid_o(u_wr_valid[U]), .hbm_wr_ready_i(u_wr_ready[U]), .hbm_wr_o(u_wr[U]),
      .hbm_wr_data_o(u_wr_data[U]), .hbm_wr_info_o(u_wr_info[U])
    );
  end

  // a chip of collective cores only reads the low CSW bits of the read ids
  logic r_id_unused;
  assign r_id_unused = ^u_r_id;

  // ---- the fabric
  logic          rx_valid, rx_ready, rx_sem, tx_valid, tx_ready, tx_sem;
  wr_req_t       rx, tx;
  logic [DW-1:0] rx_data, tx_data;
  chip_xbar #(.Units(Units), .IdW(SW), .BeatBytes(BeatBytes)) u_xbar (
    .clk_i, .rst_ni, .id_i,
    .u_ar_valid_i(u_ar_valid), .u_ar_ready_o(u_ar_ready), .u_ar_i(u_ar),
    .u_r_valid_o(u_r_valid), .u_r_ready_i(u_r_ready), .u_r_id_o(u_r_id), .u_r_data_o(u_r_data),
    .u_wr_valid_i(u_wr_valid), .u_wr_ready_o(u_wr_ready), .u_wr_i(u_wr), .u_wr_data_i(u_wr_data),
    .u_wr_info_i(u_wr_info),
    .rx_valid_i(rx_valid), .rx_ready_o(rx_ready), .rx_i(rx), .rx_sem_i(rx_sem), .rx_data_i(rx_data),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_o(tx), .tx_sem_o(tx_sem), .tx_data_o(tx_data),
    .sem_valid_o(sem_valid), .sem_idx_o(sem_idx), .sem_val_o(sem_val),
    .hbm_ar_valid_o, .hbm_ar_ready_i, .hbm_ar_o, .hbm_ar_src_o, .hbm_r_valid_i, .hbm_r_ready_o, .hbm_r_id_i,
    .hbm_r_data_i, .hbm_wr_valid_o, .hbm_wr_ready_i, .hbm_wr_o, .hbm_wr_data_o, .hbm_wr_info_o, .hbm_wr_src_o,
    .bad_sem_o
  );
  assign sem_ext_valid_o = sem_valid;
  assign sem_ext_idx_o = sem_idx;
  assign sem_ext_val_o = sem_val;

  // ---- the router: port 0 the NIC, port k + 1 link port k
  logic [P-1:0]    r_in_valid, r_in_credit, r_out_valid, r_out_credit;
  logic [P*VB-1:0] r_in_vc, r_in_credit_vc, r_out_vc, r_out_credit_vc;
  logic [P*W-1:0]  r_in_flit, r_out_flit;
  logic            inj_valid, ej_credit, rx_src_unused;
  logic [VB-1:0]   inj_vc, ej_credit_vc;
  logic [W-1:0]    inj_flit;
  logic [IdBits-1:0] rx_src;

  nic #(.W(W), .V(V), .D(D), .BeatBytes(BeatBytes)) u_nic (
    .clk_i, .rst_ni, .id_i,
    .tx_valid_i(tx_valid), .tx_ready_o(tx_ready), .tx_i(tx), .tx_sem_i(tx_sem), .tx_data_i(tx_data),
    .inj_valid_o(inj_valid), .inj_vc_o(inj_vc), .inj_flit_o(inj_flit),
    .inj_credit_i(r_in_credit[0]), .inj_credit_vc_i(r_in_credit_vc[0 +: VB]),
    .ej_valid_i(r_out_valid[0]), .ej_vc_i(r_out_vc[0 +: VB]), .ej_flit_i(r_out_flit[0 +: W]),
    .ej_credit_o(ej_credit), .ej_credit_vc_o(ej_credit_vc),
    .rx_valid_o(rx_valid), .rx_ready_i(rx_ready), .rx_o(rx), .rx_sem_o(rx_sem), .rx_data_o(rx_data),
    .rx_src_o(rx_src), .drop_o(nic_drop_o)
  );
  assign rx_src_unused = ^rx_src;

  if (Topo == TopoTorus) begin : g_router
    router #(.P(P), .V(V), .D(D), .W(W), .Topo(Topo), .KX(KX), .KY(KY), .KZ(KZ), .LastHop(LastHop)) u_router (
      .clk_i, .rst_ni, .id_i,
      .in_valid_i(r_in_valid), .in_vc_i(r_in_vc), .in_flit_i(r_in_flit),
      .in_credit_o(r_in_credit), .in_credit_vc_o(r_in_credit_vc),
      .out_valid_o(r_out_valid), .out_vc_o(r_out_vc), .out_flit_o(r_out_flit),
      .out_credit_i(r_out_credit), .out_credit_vc_i(r_out_credit_vc),
      .bad_dst_o
    );
  end else begin : g_direct
    // no router: port 0 (the NIC) and port 1 (the link port) joined, the credits each way with them
    always_comb begin
      r_out_valid = {r_in_valid[0], r_in_valid[1]};
      r_out_vc = {r_in_vc[0 +: VB], r_in_vc[VB +: VB]};
      r_out_flit = {r_in_flit[0 +: W], r_in_flit[W +: W]};
      r_in_credit = {r_out_credit[0], r_out_credit[1]};
      r_in_credit_vc = {r_out_credit_vc[0 +: VB], r_out_credit_vc[VB +: VB]};
    end
    assign bad_dst_o = '0;
  end

  // ---- the link ports
  logic [LP-1:0]   lk_rx_out_valid;
  logic [LW-1:0]   lk_rx_out [LP];
  for (genvar k = 0; k < LP; k++) begin : g_link
    logic [SB-2:0] held_unused;
    logic [31:0]   timeouts_unused, drops_unused;
    link_tx #(.W(LW), .Depth(RDepth), .Timeout(Timeout)) u_tx (
      .clk_i, .rst_ni,
      .in_valid_i(r_out_valid[k+1]), .in_ready_o(lk_tx_ready_o[k]),
      .in_data_i({r_out_vc[(k+1)*VB +: VB], r_out_flit[(k+1)*W +: W]}),
      .tx_valid_o(lk_tx_valid_o[k]), .tx_seq_o(lk_tx_seq_o[k*SB +: SB]), .tx_data_o(lk_tx_data_o[k*LW +: LW]),
      .tx_crc_o(lk_tx_crc_o[k*16 +: 16]),
      .ack_valid_i(lk_ack_valid_i[k]), .ack_seq_i(lk_ack_seq_i[k*SB +: SB]),
      .nack_valid_i(lk_nack_valid_i[k]), .nack_seq_i(lk_nack_seq_i[k*SB +: SB]),
      .held_o(held_unused), .replays_o(lk_replays_o[k*32 +: 32]), .timeouts_o(timeouts_unused)
    );
    link_rx #(.W(LW), .SB(SB)) u_rx (
      .clk_i, .rst_ni,
      .rx_valid_i(lk_rx_valid_i[k]), .rx_seq_i(lk_rx_seq_i[k*SB +: SB]), .rx_data_i(lk_rx_data_i[k*LW +: LW]),
      .rx_crc_i(lk_rx_crc_i[k*16 +: 16]),
      .out_valid_o(lk_rx_out_valid[k]), .out_data_o(lk_rx_out[k]),
      .ack_valid_o(lk_ack_valid_o[k]), .ack_seq_o(lk_ack_seq_o[k*SB +: SB]),
      .nack_valid_o(lk_nack_valid_o[k]), .nack_seq_o(lk_nack_seq_o[k*SB +: SB]),
      .crc_errors_o(lk_crc_err_o[k*32 +: 32]), .drops_o(drops_unused)
    );
  end

  always_comb begin
    r_in_valid = '0;
    r_in_vc = '0;
    r_in_flit = '0;
    r_out_credit = '0;
    r_out_credit_vc = '0;
    r_in_valid[0] = inj_valid;
    r_in_vc[0 +: VB] = inj_vc;
    r_in_flit[0 +: W] = inj_flit;
    r_out_credit[0] = ej_credit;
    r_out_credit_vc[0 +: VB] = ej_credit_vc;
    for (int unsigned k = 0; k < LP; k++) begin
      r_in_valid[k+1] = lk_rx_out_valid[k];
      {r_in_vc[(k+1)*VB +: VB], r_in_flit[(k+1)*W +: W]} = lk_rx_out[k];
      r_out_credit[k+1] = lk_credit_i[k];
      r_out_credit_vc[(k+1)*VB +: VB] = lk_credit_vc_i[k*VB +: VB];
    end
  end
  assign lk_credit_o = r_in_credit[P-1:1];
  assign lk_credit_vc_o = r_in_credit_vc[P*VB-1:VB];
endmodule
