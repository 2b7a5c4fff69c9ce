// cc_core — a collective core (SPEC 5.7, docs/chip.md): one instruction stream of the sync class
// (dma_start, sem_wait, sem_add, end) driving a DMA engine of its own, with 32 semaphores. It is the
// NeuronCore's control (core_ctl with only its sync stream built) and a DMA engine with no SBUF
// (a descriptor naming SBUF is refused, ErrRange), joined as in the NeuronCore:
//   - the control's descriptors go to the DMA's descriptor port; the DMA's queue idle flags back;
//   - the DMA's reads and writes are the unit's HBM port; its own completion writes are taken off
//     the write channel by sem_tap and added to the semaphores, every other write leaves;
//   - the chip's semaphore additions (another unit's completions, another chip's) arrive on
//     sem_add_*.
// A program is loaded into the sync stream (im_stream_i = sync); words for the other streams are
// ignored.
module cc_core
  import isa_pkg::*;
  import dma_pkg::rd_req_t;
  import dma_pkg::wr_req_t;
  import dma_pkg::wr_info_t;
  import dma_pkg::desc_t;
  import dma_pkg::err_e;
  import te_pkg::te_cmd_t;
  import te_pkg::te_cpl_t;
  import le_pkg::instr_t;
  import le_pkg::le_cpl_t;
#(
  parameter int unsigned Queues    = 2,
  parameter int unsigned Slots     = 64,
  parameter int unsigned BeatBytes = 16,
  parameter int unsigned HbmBytes  = 65536,
  parameter int unsigned ImemDepth = 256,
  parameter int unsigned Chips     = 1,
  parameter int unsigned Unit      = 0,   /// this unit's index on its chip (after the cores)
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned DW = 8 * BeatBytes
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         start_i,
  input  logic                         im_valid_i,
  input  stream_e                      im_stream_i,
  input  logic [PcBits-1:0]            im_addr_i,
  input  logic [InstBits-1:0]          im_data_i,
  input  logic [Queues-1:0]            dma_cfg_strong_i,
  input  logic                         sem_ext_en_i,   /// another unit may add to the semaphores
  input  logic                         sem_add_valid_i,
  input  logic [SemBits-1:0]           sem_add_idx_i,
  input  logic [31:0]                  sem_add_val_i,
  output logic                         running_o,
  output logic                         done_o,
  output logic                         err_o,
  output ctl_err_e                     err_code_o,
  output logic [2:0]                   err_detail_o,
  output stream_e                      err_stream_o,
  output logic [PcBits-1:0]            err_pc_o,
  output stream_status_t [Streams-1:0] st_o,
  output logic [Sems-1:0][31:0]        sem_o,
  output logic [Queues-1:0]            dma_q_idle_o,
  output logic [Queues-1:0]            dma_q_err_o,
  output err_e [Queues-1:0]            dma_q_code_o,
  output logic [16*Queues-1:0]         dma_q_done_o,
  output logic                         hbm_ar_valid_o,
  input  logic                         hbm_ar_ready_i,
  output rd_req_t                      hbm_ar_o,
  input  logic                         hbm_r_valid_i,
  output logic                         hbm_r_ready_o,
  input  logic [SW-1:0]                hbm_r_id_i,
  input  logic [DW-1:0]                hbm_r_data_i,
  output logic                         hbm_wr_valid_o,
  input  logic                         hbm_wr_ready_i,
  output wr_req_t                      hbm_wr_o,
  output logic [DW-1:0]                hbm_wr_data_o,
  output wr_info_t                     hbm_wr_info_o
);
  localparam int unsigned QW = Queues > 1 ? $clog2(Queues) : 1;

  logic          desc_valid, desc_ready;
  logic [3:0]    desc_engine_unused;
  logic [3:0]    desc_queue;
  desc_t         desc;
  logic          own_valid;
  logic [4:0]    own_idx;
  logic [31:0]   own_val;
  logic          own_reg;
  stream_e       own_stream;
  logic [2:0]    own_stream_bits;
  logic          gp_start_unused;
  logic [31:0]   gp_entry_unused, gp_args_unused;
  logic          dma_wr_valid, dma_wr_ready;
  wr_req_t       dma_wr;
  logic [DW-1:0] dma_wr_data;
  wr_info_t      dma_wr_info;
  logic [SW:0]   dma_rob_unused, dma_inflight_unused;
  te_cmd_t       te_cmd_unused;
  instr_t        ve_cmd_unused, se_cmd_unused;
  logic          te_valid_unused, ve_valid_unused, se_valid_unused;

  core_ctl #(.Queues(Queues), .HbmBytes(HbmBytes), .ImemDepth(ImemDepth), .Chips(Chips), .DmaParts(0),
             .StreamsOn(1 << StreamSync)) u_ctl (
    .clk_i, .rst_ni, .start_i, .im_valid_i, .im_stream_i, .im_addr_i, .im_data_i,
    .te_cmd_valid_o(te_valid_unused), .te_cmd_ready_i(1'b0), .te_cmd_o(te_cmd_unused), .te_cpl_i(te_cpl_t'('0)),
    .ve_cmd_valid_o(ve_valid_unused), .ve_cmd_ready_i(1'b0), .ve_cmd_o(ve_cmd_unused), .ve_cpl_i(le_cpl_t'('0)),
    .se_cmd_valid_o(se_valid_unused), .se_cmd_ready_i(1'b0), .se_cmd_o(se_cmd_unused), .se_cpl_i(le_cpl_t'('0)),
    .dma_desc_valid_o(desc_valid), .dma_desc_ready_i(desc_ready), .dma_desc_engine_o(desc_engine_unused),
    .dma_desc_queue_o(desc_queue), .dma_desc_o(desc), .dma_q_idle_i(dma_q_idle_o),
    .sem_add_valid_i(own_valid), .sem_add_idx_i(own_idx), .sem_add_val_i(own_val), .sem_add_reg_i(own_reg),
    .sem_add_stream_i(own_stream),
    .gp_start_o(gp_start_unused), .gp_ready_i(1'b0), .gp_entry_o(gp_entry_unused), .gp_args_o(gp_args_unused),
    .gp_done_i(1'b0), .gp_err_i(1'b0), .gp_code_i(gpsimd_pkg::GpErrNone), .gp_sem_add_i(1'b0), .gp_sem_idx_i('0), .gp_sem_val_i('0),
    .sem_ext_en_i, .sem_ext_valid_i(sem_add_valid_i), .sem_ext_idx_i(sem_add_idx_i),
    .sem_ext_val_i(sem_add_val_i),
    .running_o, .done_o, .err_o, .err_code_o, .err_detail_o, .err_stream_o, .err_pc_o, .st_o, .sem_o
  );

  dma_engine #(.Queues(Queues), .Slots(Slots), .BeatBytes(BeatBytes), .Parts(0), .PartBytes(BeatBytes),
               .HbmBytes(HbmBytes), .Chips(Chips)) u_dma (
    .clk_i, .rst_ni,
    .desc_valid_i(desc_valid), .desc_ready_o(desc_ready), .desc_queue_i(desc_queue[QW-1:0]), .desc_i(desc),
    .cfg_strong_i(dma_cfg_strong_i), .cfg_max_outst_i((SW + 1)'(Slots)), .q_clr_i('0),
    .ar_valid_o(hbm_ar_valid_o), .ar_ready_i(hbm_ar_ready_i), .ar_o(hbm_ar_o),
    .r_valid_i(hbm_r_valid_i), .r_id_i(hbm_r_id_i), .r_data_i(hbm_r_data_i),
    .wr_valid_o(dma_wr_valid), .wr_ready_i(dma_wr_ready), .wr_o(dma_wr), .wr_data_o(dma_wr_data),
    .wr_info_o(dma_wr_info),
    .q_idle_o(dma_q_idle_o), .q_err_o(dma_q_err_o), .q_code_o(dma_q_code_o), .q_done_o(dma_q_done_o),
    .rob_o(dma_rob_unused), .inflight_o(dma_inflight_unused)
  );
  assign hbm_r_ready_o = 1'b1;

  sem_tap #(.Unit(Unit), .BeatBytes(BeatBytes)) u_tap (
    .in_valid_i(dma_wr_valid), .in_ready_o(dma_wr_ready), .in_i(dma_wr), .in_data_i(dma_wr_data),
    .in_info_i(dma_wr_info),
    .out_valid_o(hbm_wr_valid_o), .out_ready_i(hbm_wr_ready_i), .out_o(hbm_wr_o), .out_data_o(hbm_wr_data_o),
    .out_info_o(hbm_wr_info_o),
    .sem_valid_o(own_valid), .sem_idx_o(own_idx), .sem_val_o(own_val), .sem_reg_o(own_reg),
    .sem_stream_o(own_stream_bits)
  );
  assign own_stream = stream_e'(own_stream_bits);
endmodule
