// core — the NeuronCore datapath (SPEC 5.1–5.5, 5.7; docs/core.md): the tensor engine with PSUM,
// the vector and scalar engines, the DMA engines and SBUF, joined through their typed ports.
//
//   - SBUF is the one memory of the engines and the DMA. Engine ports: e0 tensor stationary, e1
//     tensor moving, e2/e3 vector A/B, e4 vector output, e5/e6 scalar A/B, e7 scalar output.
//   - An engine request with space = PSUM goes to the tensor engine's PSUM instead: reads to its
//     pr_ port (the four vector/scalar read ports round-robin), writes to its pe_ port (the two
//     output ports round-robin). Element idx of a PSUM partition is bank idx / Depth, element
//     idx % Depth. The data of a read comes back the next cycle on the port that asked, as SBUF's.
//   - DmaEngines DMA engines (g_dma[e].u_dma): a descriptor goes to engine dma_desc_engine_i; a
//     read's id is {engine, slot}, a write's qid e * Queues + q; the per-queue ports are arrays of
//     DmaEngines * Queues, queue q of engine e at e * Queues + q.
//   - Two DMA channels, one per space, each with a read and a write path: the engines' reads
//     round-robin by their space onto the HBM port (u_hbm_ar_arb) or SBUF's DMA read port
//     (u_sb_ar_arb), their writes onto the HBM port (u_hbm_wr_arb) or SBUF's DMA write port
//     (u_sb_wr_arb). So a cycle can move a beat on each of the four paths (an HBM -> SBUF copy's
//     read and write beside an SBUF -> HBM copy's). An SBUF read takes part in u_sb_ar_arb only in
//     a cycle its banks are free for it (SBUF's dr_busy_o), so a read waiting for a bank that an
//     engine holds does not hold the grant, and the other engines' reads go on.
//   - Read responses go to the engine of their id. SBUF's (the cycle after its request) and the HBM
//     port's reach different engines in one cycle; for the same engine SBUF's has priority and the
//     HBM port's r_ready is low in that cycle (the memory offers it again).
//   - The GpSimd engine (GpProcs > 0 processors, rtl/gpsimd/gpsimd.sv; docs/gpsimd.md "In the
//     NeuronCore"): its SBUF word port is engine port e9. A write of a whole word is one 4-byte
//     element at offset / 4 in the partition of its mask; of two or one bytes (a BF16 or 8-bit
//     store: mask 0011 << k or 0001 << k) a 2- or 1-byte element at (offset + k) / 2 or offset + k.
//     A read is the word's 4-byte element; its data (the lane of the partition that asked,
//     registered with the request) returns the next cycle. GpProcs = 0 builds no engine: its
//     outputs are 0 and SBUF has the nine ports e0..e8.
// Commands come from the control (neuron_core) or the testbench: one port per engine, the DMA's
// descriptor port and the GpSimd engine's start.
module core
  import dma_pkg::*;
  import sbuf_pkg::e_req_t;
  import te_pkg::te_cmd_t;
  import te_pkg::te_cpl_t;
  import te_pkg::psum_addr_t;
  import le_pkg::instr_t;
  import le_pkg::le_cpl_t;
#(
  parameter int unsigned Parts         = 4,      /// partitions = tensor rows = columns = lanes
  parameter int unsigned SbufBytes     = 1024,   /// SBUF bytes per partition
  parameter int unsigned SbufBanks     = 4,
  parameter int unsigned PsumBanks     = 8,
  parameter int unsigned PsumBankBytes = 64,
  parameter int unsigned MaxN          = 16,
  parameter int unsigned Queues        = 2,
  parameter int unsigned Slots         = 128,
  parameter int unsigned BeatBytes     = 16,
  parameter int unsigned HbmBytes      = 65536,
  parameter int unsigned DmaEngines    = 1,      /// DMA engines, Slots / DmaEngines read slots each
  parameter int unsigned Chips         = 1,      /// chips an HBM address may name (docs/chip.md)
  parameter int unsigned TeGen         = 2,      /// the tensor engine's generation: 0 v2, 1 v3, 2 v4 (te_pkg::te_gen_e)
  parameter int unsigned GpProcs       = 0,      /// GpSimd processors (0: no GpSimd engine)
  parameter int unsigned GpTcmBytes    = 4096,   /// each one's local memory
  parameter int unsigned GpVlen        = 128,    /// its vector registers' bits
  localparam int unsigned Depth = PsumBankBytes / 4,
  localparam int unsigned OW    = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned LW    = 32 * Parts,
  localparam int unsigned QW    = Queues > 1 ? $clog2(Queues) : 1,
  localparam int unsigned SW    = $clog2(Slots),                    // a DMA read's id: engine, slot
  localparam int unsigned ESW   = $clog2(Slots / DmaEngines),       // an engine's slot
  localparam int unsigned EW    = DmaEngines > 1 ? $clog2(DmaEngines) : 1,
  localparam int unsigned NQ    = DmaEngines * Queues,              // every engine's queues
  localparam int unsigned DW    = 8 * BeatBytes,
  localparam int unsigned GPN   = GpProcs > 0 ? GpProcs : 1,
  localparam int unsigned GPW   = GpProcs > 1 ? $clog2(GpProcs) : 1,  // a processor's index
  localparam int unsigned GAW   = $clog2(GpTcmBytes / 4)              // a word index in its local memory
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // tensor engine
  input  logic                  te_cmd_valid_i,
  output logic                  te_cmd_ready_o,
  input  te_cmd_t               te_cmd_i,
  output te_cpl_t               te_cpl_o,
  // vector engine
  input  logic                  ve_cmd_valid_i,
  output logic                  ve_cmd_ready_o,
  input  instr_t                ve_cmd_i,
  output le_cpl_t               ve_cpl_o,
  output logic                  ve_busy_o,
  // scalar engine
  input  logic                  se_cmd_valid_i,
  output logic                  se_cmd_ready_o,
  input  instr_t                se_cmd_i,
  output le_cpl_t               se_cpl_o,
  output logic                  se_busy_o,
  output logic [LW-1:0]         se_acc_o,
  // DMA engine: descriptors, configuration, status
  // DMA engines: descriptors, configuration, status (engine e's queue q at index e * Queues + q)
  input  logic                  dma_desc_valid_i,
  output logic                  dma_desc_ready_o,
  input  logic [EW-1:0]         dma_desc_engine_i,
  input  logic [QW-1:0]         dma_desc_queue_i,
  input  desc_t                 dma_desc_i,
  input  logic [NQ-1:0]         dma_cfg_strong_i,
  input  logic [ESW:0]          dma_cfg_max_outst_i,  /// each engine's reads in flight at most
  input  logic [NQ-1:0]         dma_q_clr_i,
  output logic [NQ-1:0]         dma_q_idle_o,
  output logic [NQ-1:0]         dma_q_err_o,
  output err_e [NQ-1:0]         dma_q_code_o,
  output logic [16*NQ-1:0]      dma_q_done_o,
  // HBM port: the DMA's reads and writes with space = HBM
  output logic                  hbm_ar_valid_o,
  input  logic                  hbm_ar_ready_i,
  output rd_req_t               hbm_ar_o,
  input  logic                  hbm_r_valid_i,
  output logic                  hbm_r_ready_o,
  input  logic [SW-1:0]         hbm_r_id_i,
  input  logic [DW-1:0]         hbm_r_data_i,
  output logic                  hbm_wr_valid_o,
  input  logic                  hbm_wr_ready_i,
  output wr_req_t               hbm_wr_o,
  output logic [DW-1:0]         hbm_wr_data_o,
  output wr_info_t              hbm_wr_info_o,    /// where the write comes from (for checkers)
  // GpSimd engine: start, status, the host port to the local memories, semaphores
  input  logic                  gp_start_i,       /// start an operator (taken when not busy)
  input  logic [31:0]           gp_entry_i,
  input  logic [31:0]           gp_args_i,
  output logic                  gp_busy_o,
  output logic                  gp_done_o,        /// every processor ran op.end since the start
  output logic                  gp_err_o,         /// a processor stopped since the start ...
  output logic [GPW-1:0]        gp_err_proc_o,    /// ... the lowest-numbered one, its code and pc
  output gpsimd_pkg::gp_err_e   gp_err_code_o,
  output logic [31:0]           gp_err_pc_o,
  input  logic                  gp_host_we_i,
  input  logic                  gp_host_re_i,
  input  logic                  gp_host_all_i,    /// a write to every processor's local memory
  input  logic [GPW-1:0]        gp_host_proc_i,
  input  logic [GAW-1:0]        gp_host_addr_i,   /// a word index in the local memory
  input  logic [31:0]           gp_host_wdata_i,
  output logic [31:0]           gp_host_rdata_o,  /// the word the last read asked for
  input  logic [31:0][31:0]     gp_sem_i,         /// the control's semaphores (sem.wait)
  output logic [GPN-1:0]        gp_sem_add_o,     /// processor i's sem.add
  output logic [GPN-1:0][4:0]   gp_sem_idx_o,
  output logic [GPN-1:0][31:0]  gp_sem_val_o
);
  localparam int unsigned NE = GpProcs > 0 ? 10 : 9;  // SBUF engine ports
  // The vector/scalar engines' memory ports, in the order of the PSUM arbiters.
  localparam int unsigned NRd = 4;  // ve rd0, ve rd1, se rd0, se rd1
  localparam int unsigned NWr = 2;  // ve wr, se wr
  localparam int unsigned RdPort [NRd] = '{2, 3, 5, 6};  // their SBUF engine ports
  localparam int unsigned WrPort [NWr] = '{4, 7};

  if (Depth < 2 || (1 << OW) != Depth) $error("core: PSUM bank depth (%0d) must be a power of two", Depth);
  if (Slots > 256) $error("core: at most 256 DMA read slots (SBUF's read id is 8 bits)");
  if (DmaEngines < 1 || (1 << EW) < DmaEngines || Slots % DmaEngines != 0 || (1 << ESW) != Slots / DmaEngines)
    $error("core: DmaEngines must divide Slots into a power of two per engine");

  // ---- the units' ports
  // tensor engine
  logic               te_st_req_valid, te_st_req_ready, te_st_rsp_valid;
  e_req_t             te_st_req;
  logic [LW-1:0]      te_st_rsp_data;
  logic               te_mv_req_valid, te_mv_req_ready, te_mv_rsp_valid;
  e_req_t             te_mv_req;
  logic [LW-1:0]      te_mv_rsp_data;
  logic               te_sx_req_valid, te_sx_req_ready, te_sx_rsp_valid;
  e_req_t             te_sx_req;
  logic [LW-1:0]      te_sx_rsp_data;
  logic [Parts-1:0]   te_pw_valid;
  logic [LW-1:0]      te_pw_data;
  logic               te_pr_valid;
  psum_addr_t         te_pr;
  logic [LW-1:0]      te_pr_data;
  logic               te_pe_valid, te_pe_ready;
  psum_addr_t         te_pe;
  logic [Parts-1:0]   te_pe_mask;
  logic [LW-1:0]      te_pe_data;
  // vector and scalar engines: index 0 vector, 1 scalar
  logic [1:0]            le_rd0_valid, le_rd0_ready, le_rd0_rsp_valid;
  logic [1:0]            le_rd1_valid, le_rd1_ready, le_rd1_rsp_valid;
  e_req_t [1:0]          le_rd0_req, le_rd1_req;
  logic [1:0][LW-1:0]    le_rd0_rsp_data, le_rd1_rsp_data;
  logic [1:0]            le_wr_valid, le_wr_ready;
  e_req_t [1:0]          le_wr;
  logic [1:0][Parts-1:0] le_wr_mask;
  logic [1:0][LW-1:0]    le_wr_data;
  logic [LW-1:0]         ve_acc;
  // DMA engines: their channels, and the core's after the arbiters
  logic [DmaEngines-1:0]          e_desc_valid, e_desc_ready, e_ar_valid, e_ar_ready, e_r_valid;
  logic [DmaEngines-1:0]          e_wr_valid, e_wr_ready;
  logic [DmaEngines-1:0][$bits(rd_req_t)-1:0] e_ar;  // the read arbiter's request words
  wr_req_t [DmaEngines-1:0]       e_wr;
  logic [DmaEngines-1:0][DW-1:0]  e_wr_data;
  wr_info_t [DmaEngines-1:0]      e_wr_info;
  logic [DmaEngines-1:0]          e_ar_hbm, e_ar_sb, e_wr_hbm, e_wr_sb;  // valid, by the request's space
  logic [DmaEngines-1:0]          hbm_ar_ready, sb_ar_ready, hbm_wr_ready, sb_wr_ready;
  rd_req_t                        sb_dr;
  logic [SW-1:0]                  sb_r_id;
  wr_req_t                        sb_dw;
  logic [DW-1:0]                  sb_dw_data;
  wr_info_t                       sb_dw_info_unused;
  // SBUF
  logic               sb_dw_valid, sb_dw_ready, sb_dr_valid, sb_dr_ready, sb_dr_rvalid, sb_acc_busy;
  logic [SbufBanks-1:0] sb_dr_busy;
  logic [7:0]         sb_dr_rid;
  logic [DW-1:0]      sb_dr_rdata;
  logic [NE-1:0]      sb_e_valid, sb_e_ready, sb_e_rvalid;
  e_req_t [NE-1:0]    sb_e;
  logic [NE-1:0][Parts-1:0] sb_e_mask;
  logic [NE-1:0][LW-1:0]    sb_e_wdata, sb_e_rdata;

  // ---- the units
  tensor_engine #(.Rows(Parts), .Cols(Parts), .MaxN(MaxN), .Banks(PsumBanks), .PsumBankBytes(PsumBankBytes),
                  .SbufBytes(SbufBytes), .SbufBanks(SbufBanks), .SbufLineBytes(BeatBytes)) u_te (
    .clk_i, .rst_ni, .gen_i(te_pkg::te_gen_e'(TeGen)),
    .cmd_valid_i(te_cmd_valid_i), .cmd_ready_o(te_cmd_ready_o), .cmd_i(te_cmd_i),
    .st_req_valid_o(te_st_req_valid), .st_req_ready_i(te_st_req_ready), .st_req_o(te_st_req),
    .st_rsp_valid_i(te_st_rsp_valid), .st_rsp_data_i(te_st_rsp_data),
    .mv_req_valid_o(te_mv_req_valid), .mv_req_ready_i(te_mv_req_ready), .mv_req_o(te_mv_req),
    .mv_rsp_valid_i(te_mv_rsp_valid), .mv_rsp_data_i(te_mv_rsp_data),
    .sx_req_valid_o(te_sx_req_valid), .sx_req_ready_i(te_sx_req_ready), .sx_req_o(te_sx_req),
    .sx_rsp_valid_i(te_sx_rsp_valid), .sx_rsp_data_i(te_sx_rsp_data),
    .cpl_o(te_cpl_o),
    .pw_valid_o(te_pw_valid), .pw_data_o(te_pw_data),
    .pr_valid_i(te_pr_valid), .pr_i(te_pr), .pr_data_o(te_pr_data),
    .pe_valid_i(te_pe_valid), .pe_ready_o(te_pe_ready), .pe_i(te_pe),
    .pe_mask_i(te_pe_mask), .pe_data_i(te_pe_data)
  );

  lane_engine #(.Lanes(Parts), .SbufBytes(SbufBytes), .PsumBanks(PsumBanks), .PsumBankBytes(PsumBankBytes),
                .Engine(0)) u_ve (
    .clk_i, .rst_ni,
    .cmd_valid_i(ve_cmd_valid_i), .cmd_ready_o(ve_cmd_ready_o), .cmd_i(ve_cmd_i),
    .rd0_req_valid_o(le_rd0_valid[0]), .rd0_req_ready_i(le_rd0_ready[0]), .rd0_req_o(le_rd0_req[0]),
    .rd0_rsp_valid_i(le_rd0_rsp_valid[0]), .rd0_rsp_data_i(le_rd0_rsp_data[0]),
    .rd1_req_valid_o(le_rd1_valid[0]), .rd1_req_ready_i(le_rd1_ready[0]), .rd1_req_o(le_rd1_req[0]),
    .rd1_rsp_valid_i(le_rd1_rsp_valid[0]), .rd1_rsp_data_i(le_rd1_rsp_data[0]),
    .wr_valid_o(le_wr_valid[0]), .wr_ready_i(le_wr_ready[0]), .wr_o(le_wr[0]), .wr_mask_o(le_wr_mask[0]),
    .wr_data_o(le_wr_data[0]),
    .cpl_o(ve_cpl_o), .acc_o(ve_acc), .busy_o(ve_busy_o)
  );

  lane_engine #(.Lanes(Parts), .SbufBytes(SbufBytes), .PsumBanks(PsumBanks), .PsumBankBytes(PsumBankBytes),
                .Engine(1)) u_se (
    .clk_i, .rst_ni,
    .cmd_valid_i(se_cmd_valid_i), .cmd_ready_o(se_cmd_ready_o), .cmd_i(se_cmd_i),
    .rd0_req_valid_o(le_rd0_valid[1]), .rd0_req_ready_i(le_rd0_ready[1]), .rd0_req_o(le_rd0_req[1]),
    .rd0_rsp_valid_i(le_rd0_rsp_valid[1]), .rd0_rsp_data_i(le_rd0_rsp_data[1]),
    .rd1_req_valid_o(le_rd1_valid[1]), .rd1_req_ready_i(le_rd1_ready[1]), .rd1_req_o(le_rd1_req[1]),
    .rd1_rsp_valid_i(le_rd1_rsp_valid[1]), .rd1_rsp_data_i(le_rd1_rsp_data[1]),
    .wr_valid_o(le_wr_valid[1]), .wr_ready_i(le_wr_ready[1]), .wr_o(le_wr[1]), .wr_mask_o(le_wr_mask[1]),
    .wr_data_o(le_wr_data[1]),
    .cpl_o(se_cpl_o), .acc_o(se_acc_o), .busy_o(se_busy_o)
  );

  // The DMA engines: a descriptor goes to the engine it names; a read's id is {engine, slot}
  // (engine e's slot k: e * Slots / DmaEngines + k); a write's qid is the engine's queue index
  // e * Queues + q.
  for (genvar e = 0; e < DmaEngines; e++) begin : g_dma
    logic [ESW-1:0] r_id;
    logic [DW-1:0]  r_data;
    logic           r_sb;  // this cycle's SBUF response is for this engine
    rd_req_t        ar, ar_id;
    wr_info_t       info;
    logic [ESW:0]   rob_unused, inflight_unused;  // (observed by the probes)
    assign e_desc_valid[e] = dma_desc_valid_i && 32'(dma_desc_engine_i) == e;
    assign r_sb = sb_dr_rvalid && (32'(sb_r_id) >> ESW) == e;
    assign e_r_valid[e] = r_sb || (hbm_r_valid_i && (32'(hbm_r_id_i) >> ESW) == e);
    assign r_id = r_sb ? ESW'(sb_r_id) : ESW'(hbm_r_id_i);
    assign r_data = r_sb ? sb_dr_rdata : hbm_r_data_i;
    dma_engine #(.Queues(Queues), .Slots(Slots / DmaEngines), .BeatBytes(BeatBytes), .Parts(Parts),
                 .PartBytes(SbufBytes), .HbmBytes(HbmBytes), .Chips(Chips)) u_dma (
      .clk_i, .rst_ni,
      .desc_valid_i(e_desc_valid[e]), .desc_ready_o(e_desc_ready[e]), .desc_queue_i(dma_desc_queue_i),
      .desc_i(dma_desc_i), .cfg_strong_i(dma_cfg_strong_i[e*Queues +: Queues]),
      .cfg_max_outst_i(dma_cfg_max_outst_i), .q_clr_i(dma_q_clr_i[e*Queues +: Queues]),
      .ar_valid_o(e_ar_valid[e]), .ar_ready_i(e_ar_ready[e]), .ar_o(ar),
      .r_valid_i(e_r_valid[e]), .r_id_i(r_id), .r_data_i(r_data),
      .wr_valid_o(e_wr_valid[e]), .wr_ready_i(e_wr_ready[e]), .wr_o(e_wr[e]), .wr_data_o(e_wr_data[e]),
      .wr_info_o(info),
      .q_idle_o(dma_q_idle_o[e*Queues +: Queues]), .q_err_o(dma_q_err_o[e*Queues +: Queues]),
      .q_code_o(dma_q_code_o[e*Queues +: Queues]), .q_done_o(dma_q_done_o[16*e*Queues +: 16*Queues]),
      .rob_o(rob_unused), .inflight_o(inflight_unused)
    );
    always_comb begin
      ar_id = ar;
      ar_id.id = 8'(e * (Slots / DmaEngines)) | ar.id;
      e_ar[e] = ar_id;
      e_wr_info[e] = info;
      e_wr_info[e].qid = 8'(e * Queues) + info.qid;
    end
    assign e_ar_hbm[e] = e_ar_valid[e] && ar.space == SpaceHbm;
    assign e_ar_sb[e] = e_ar_valid[e] && ar.space == SpaceSbuf &&
                        (SbufBanks'(sbuf_pkg::row_banks(sbuf_pkg::dma_off(32'(ar.addr), $clog2(SbufBytes)),
                                                        32'(ar.bytes), BeatBytes, SbufBanks)) & sb_dr_busy) == '0;
    assign e_ar_ready[e] = hbm_ar_ready[e] || sb_ar_ready[e];
    assign e_wr_hbm[e] = e_wr_valid[e] && e_wr[e].space == SpaceHbm;
    assign e_wr_sb[e] = e_wr_valid[e] && e_wr[e].space == SpaceSbuf;
    assign e_wr_ready[e] = hbm_wr_ready[e] || sb_wr_ready[e];
  end
  assign dma_desc_ready_o = e_desc_ready[dma_desc_engine_i];

  // the engines' reads and writes, round-robin by space onto the HBM port and SBUF's DMA ports
  logic [EW-1:0] hbm_ar_gnt_unused, sb_ar_gnt_unused, hbm_wr_gnt_unused, sb_wr_gnt_unused;
  typedef struct packed {
    wr_req_t       wr;
    logic [DW-1:0] data;
    wr_info_t      info;
  } dwr_t;
  logic [DmaEngines-1:0][$bits(dwr_t)-1:0] e_dwr;  // the write arbiter's request words
  dwr_t                                    hbm_dwr, sb_dwr;
  for (genvar e = 0; e < DmaEngines; e++) begin : g_dwr
    assign e_dwr[e] = dwr_t'{wr: e_wr[e], data: e_wr_data[e], info: e_wr_info[e]};
  end
  rr_arbiter #(.N(DmaEngines), .Width($bits(rd_req_t))) u_hbm_ar_arb (
    .clk_i, .rst_ni, .req_valid_i(e_ar_hbm), .req_ready_o(hbm_ar_ready), .req_data_i(e_ar),
    .gnt_valid_o(hbm_ar_valid_o), .gnt_ready_i(hbm_ar_ready_i), .gnt_data_o(hbm_ar_o),
    .gnt_idx_o(hbm_ar_gnt_unused));
  rr_arbiter #(.N(DmaEngines), .Width($bits(rd_req_t))) u_sb_ar_arb (
    .clk_i, .rst_ni, .req_valid_i(e_ar_sb), .req_ready_o(sb_ar_ready), .req_data_i(e_ar),
    .gnt_valid_o(sb_dr_valid), .gnt_ready_i(sb_dr_ready), .gnt_data_o(sb_dr), .gnt_idx_o(sb_ar_gnt_unused));
  rr_arbiter #(.N(DmaEngines), .Width($bits(dwr_t))) u_hbm_wr_arb (
    .clk_i, .rst_ni, .req_valid_i(e_wr_hbm), .req_ready_o(hbm_wr_ready), .req_data_i(e_dwr),
    .gnt_valid_o(hbm_wr_valid_o), .gnt_ready_i(hbm_wr_ready_i), .gnt_data_o(hbm_dwr),
    .gnt_idx_o(hbm_wr_gnt_unused));
  rr_arbiter #(.N(DmaEngines), .Width($bits(dwr_t))) u_sb_wr_arb (
    .clk_i, .rst_ni, .req_valid_i(e_wr_sb), .req_ready_o(sb_wr_ready), .req_data_i(e_dwr),
    .gnt_valid_o(sb_dw_valid), .gnt_ready_i(sb_dw_ready), .gnt_data_o(sb_dwr), .gnt_idx_o(sb_wr_gnt_unused));
  assign hbm_wr_o = hbm_dwr.wr;
  assign hbm_wr_data_o = hbm_dwr.data;
  assign hbm_wr_info_o = hbm_dwr.info;
  assign sb_dw = sb_dwr.wr;
  assign sb_dw_data = sb_dwr.data;
  assign sb_dw_info_unused = sb_dwr.info;
  assign sb_r_id = sb_dr_rid[SW-1:0];
  assign hbm_r_ready_o = !(sb_dr_rvalid && (32'(sb_r_id) >> ESW) == (32'(hbm_r_id_i) >> ESW));

  sbuf #(.Parts(Parts), .PartBytes(SbufBytes), .BeatBytes(BeatBytes), .Banks(SbufBanks), .EPorts(NE)) u_sbuf (
    .clk_i, .rst_ni,
    .dw_valid_i(sb_dw_valid), .dw_ready_o(sb_dw_ready), .dw_i(sb_dw), .dw_data_i(sb_dw_data),
    .dr_valid_i(sb_dr_valid), .dr_ready_o(sb_dr_ready), .dr_busy_o(sb_dr_busy), .dr_i(sb_dr),
    .dr_rvalid_o(sb_dr_rvalid), .dr_rid_o(sb_dr_rid), .dr_rdata_o(sb_dr_rdata),
    .e_valid_i(sb_e_valid), .e_ready_o(sb_e_ready), .e_i(sb_e), .e_mask_i(sb_e_mask), .e_wdata_i(sb_e_wdata),
    .e_rvalid_o(sb_e_rvalid), .e_rdata_o(sb_e_rdata),
    .acc_busy_o(sb_acc_busy)
  );

  // ---- the GpSimd engine and its SBUF word port (e9)
  logic               gp_e_valid;
  e_req_t             gp_e;
  logic [Parts-1:0]   gp_e_mask;
  logic [LW-1:0]      gp_e_wdata;
  if (GpProcs > 0) begin : g_gp
    logic        req, we, gnt, rvalid;
    logic [15:0] part;
    logic [31:0] off, wdata, rdata;
    logic [3:0]  mask;
    logic [1:0]  k;                    // the lowest byte a write's mask names
    logic [15:0] rpart_q, rpart_d;     // the partition of the read whose data returns this cycle
    gpsimd #(.Procs(GpProcs), .TcmBytes(GpTcmBytes), .Vlen(GpVlen), .Parts(Parts), .SbufBytes(SbufBytes),
             .Sems(32)) u_gp (
      .clk_i, .rst_ni,
      .start_i(gp_start_i), .entry_i(gp_entry_i), .args_i(gp_args_i),
      .busy_o(gp_busy_o), .done_o(gp_done_o), .err_o(gp_err_o), .err_proc_o(gp_err_proc_o), .err_code_o(gp_err_code_o),
      .err_pc_o(gp_err_pc_o),
      .host_we_i(gp_host_we_i), .host_re_i(gp_host_re_i), .host_all_i(gp_host_all_i),
      .host_proc_i(gp_host_proc_i), .host_addr_i(gp_host_addr_i), .host_wdata_i(gp_host_wdata_i),
      .host_rdata_o(gp_host_rdata_o),
      .sb_req_o(req), .sb_we_o(we), .sb_part_o(part), .sb_off_o(off), .sb_mask_o(mask), .sb_wdata_o(wdata),
      .sb_gnt_i(gnt), .sb_rvalid_i(rvalid), .sb_rdata_i(rdata),
      .sem_i(gp_sem_i), .sem_add_o(gp_sem_add_o), .sem_idx_o(gp_sem_idx_o), .sem_val_o(gp_sem_val_o)
    );
    always_comb begin
      k = mask[0] ? 2'd0 : mask[1] ? 2'd1 : mask[2] ? 2'd2 : 2'd3;
      gp_e = '0;
      gp_e.we = we;
      if (!we || mask == 4'b1111) begin
        gp_e.esize = sbuf_pkg::ESize4;
        gp_e.idx = 24'(off >> 2);
      end else if ({1'b0, mask} == 5'b00011 << k) begin  // (five bits: 0011 << 3 is no halfword)
        gp_e.esize = sbuf_pkg::ESize2;
        gp_e.idx = 24'((off + 32'(k)) >> 1);
      end else begin
        gp_e.esize = sbuf_pkg::ESize1;
        gp_e.idx = 24'(off + 32'(k));
      end
      gp_e_wdata = {Parts{wdata >> {k, 3'b0}}};
    end
    assign gp_e_valid = req;
    assign gp_e_mask = Parts'(1) << part;
    assign gnt = sb_e_ready[NE-1];
    assign rvalid = sb_e_rvalid[NE-1];
    assign rdata = sb_e_rdata[NE-1][32*rpart_q +: 32];
    assign rpart_d = req && gnt && !we ? part : rpart_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) rpart_q <= '0;
      else rpart_q <= rpart_d;
    end
  end else begin : g_no_gp
    logic in_unused;  // the engine's inputs, read by nothing without it
    assign in_unused = ^{gp_start_i, gp_entry_i, gp_args_i, gp_host_we_i, gp_host_re_i, gp_host_all_i, gp_host_proc_i,
                         gp_host_addr_i, gp_host_wdata_i, gp_sem_i};
    assign gp_e_valid = 1'b0;
    assign gp_e = '0;
    assign gp_e_mask = '0;
    assign gp_e_wdata = '0;
    assign gp_busy_o = 1'b0;
    assign gp_done_o = 1'b0;
    assign gp_err_o = 1'b0;
    assign gp_err_proc_o = '0;
    assign gp_err_code_o = gpsimd_pkg::GpErrNone;
    assign gp_err_pc_o = '0;
    assign gp_host_rdata_o = '0;
    assign gp_sem_add_o = '0;
    assign gp_sem_idx_o = '0;
    assign gp_sem_val_o = '0;
  end

  // ---- SBUF engine ports: the tensor engine always; the others when their request is for SBUF
  always_comb begin
    sb_e_valid = '0;
    sb_e = '0;
    sb_e_mask = '0;
    sb_e_wdata = '0;
    sb_e_valid[0] = te_st_req_valid;
    sb_e[0] = te_st_req;
    sb_e_valid[1] = te_mv_req_valid;
    sb_e[1] = te_mv_req;
    sb_e_valid[8] = te_sx_req_valid;
    sb_e[8] = te_sx_req;
    if (GpProcs > 0) begin
      sb_e_valid[NE-1] = gp_e_valid;
      sb_e[NE-1] = gp_e;
      sb_e_mask[NE-1] = gp_e_mask;
      sb_e_wdata[NE-1] = gp_e_wdata;
    end
    for (int unsigned k = 0; k < 2; k++) begin
      sb_e_valid[RdPort[2*k]] = le_rd0_valid[k] && !le_rd0_req[k].space;
      sb_e[RdPort[2*k]] = le_rd0_req[k];
      sb_e_valid[RdPort[2*k+1]] = le_rd1_valid[k] && !le_rd1_req[k].space;
      sb_e[RdPort[2*k+1]] = le_rd1_req[k];
      sb_e_valid[WrPort[k]] = le_wr_valid[k] && !le_wr[k].space;
      sb_e[WrPort[k]] = le_wr[k];
      sb_e_mask[WrPort[k]] = le_wr_mask[k];
      sb_e_wdata[WrPort[k]] = le_wr_data[k];
    end
  end
  assign te_st_req_ready = sb_e_ready[0];
  assign te_st_rsp_valid = sb_e_rvalid[0];
  assign te_st_rsp_data = sb_e_rdata[0];
  assign te_mv_req_ready = sb_e_ready[1];
  assign te_mv_rsp_valid = sb_e_rvalid[1];
  assign te_mv_rsp_data = sb_e_rdata[1];
  assign te_sx_req_ready = sb_e_ready[8];
  assign te_sx_rsp_valid = sb_e_rvalid[8];
  assign te_sx_rsp_data = sb_e_rdata[8];

  // ---- PSUM reads of the vector and scalar engines: round-robin onto the tensor engine's pr_
  logic [NRd-1:0]        prd_valid, prd_ready;
  logic [NRd-1:0][23:0]  prd_idx;
  logic                  prd_gnt;
  logic [23:0]           prd_gnt_idx;
  logic [1:0]            prd_gnt_port;
  // the port whose PSUM data arrives this cycle
  logic                  prv_d, prv_q;
  logic [1:0]            prp_d, prp_q;

  always_comb begin
    for (int unsigned k = 0; k < 2; k++) begin
      prd_valid[2*k] = le_rd0_valid[k] && le_rd0_req[k].space;
      prd_idx[2*k] = le_rd0_req[k].idx;
      prd_valid[2*k+1] = le_rd1_valid[k] && le_rd1_req[k].space;
      prd_idx[2*k+1] = le_rd1_req[k].idx;
    end
  end

  rr_arbiter #(.N(NRd), .Width(24)) u_prd_arb (
    .clk_i, .rst_ni,
    .req_valid_i(prd_valid), .req_ready_o(prd_ready), .req_data_i(prd_idx),
    .gnt_valid_o(prd_gnt), .gnt_ready_i(1'b1), .gnt_data_o(prd_gnt_idx), .gnt_idx_o(prd_gnt_port)
  );

  assign te_pr_valid = prd_gnt;
  assign te_pr = '{bank: 4'(prd_gnt_idx >> OW), off: 16'(prd_gnt_idx[OW-1:0])};
  assign prv_d = prd_gnt;
  assign prp_d = prd_gnt_port;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prv_q <= 1'b0;
      prp_q <= '0;
    end else begin
      prv_q <= prv_d;
      prp_q <= prp_d;
    end
  end

  // ---- PSUM writes of the vector and scalar engines: round-robin onto the tensor engine's pe_
  typedef struct packed {
    logic [23:0]      idx;
    logic [Parts-1:0] mask;
    logic [LW-1:0]    data;
  } pwr_t;
  logic [NWr-1:0] pwr_valid, pwr_ready;
  logic [NWr-1:0][$bits(pwr_t)-1:0] pwr;  // the arbiter's request words
  pwr_t           pwr_gnt;
  logic           pwr_gnt_unused;

  always_comb begin
    for (int unsigned k = 0; k < NWr; k++) begin
      pwr_valid[k] = le_wr_valid[k] && le_wr[k].space;
      pwr[k] = pwr_t'{idx: le_wr[k].idx, mask: le_wr_mask[k], data: le_wr_data[k]};
    end
  end

  rr_arbiter #(.N(NWr), .Width($bits(pwr_t))) u_pwr_arb (
    .clk_i, .rst_ni,
    .req_valid_i(pwr_valid), .req_ready_o(pwr_ready), .req_data_i(pwr),
    .gnt_valid_o(te_pe_valid), .gnt_ready_i(te_pe_ready), .gnt_data_o(pwr_gnt), .gnt_idx_o(pwr_gnt_unused)
  );

  assign te_pe = '{bank: 4'(pwr_gnt.idx >> OW), off: 16'(pwr_gnt.idx[OW-1:0])};
  assign te_pe_mask = pwr_gnt.mask;
  assign te_pe_data = pwr_gnt.data;

  // ---- the vector and scalar engines' readies and responses
  always_comb begin
    for (int unsigned k = 0; k < 2; k++) begin
      le_rd0_ready[k] = le_rd0_req[k].space ? prd_ready[2*k] : sb_e_ready[RdPort[2*k]];
      le_rd1_ready[k] = le_rd1_req[k].space ? prd_ready[2*k+1] : sb_e_ready[RdPort[2*k+1]];
      le_wr_ready[k] = le_wr[k].space ? pwr_ready[k] : sb_e_ready[WrPort[k]];
      le_rd0_rsp_valid[k] = sb_e_rvalid[RdPort[2*k]] || (prv_q && prp_q == 2'(2*k));
      le_rd0_rsp_data[k] = (prv_q && prp_q == 2'(2*k)) ? te_pr_data : sb_e_rdata[RdPort[2*k]];
      le_rd1_rsp_valid[k] = sb_e_rvalid[RdPort[2*k+1]] || (prv_q && prp_q == 2'(2*k+1));
      le_rd1_rsp_data[k] = (prv_q && prp_q == 2'(2*k+1)) ? te_pr_data : sb_e_rdata[RdPort[2*k+1]];
    end
  end
endmodule
