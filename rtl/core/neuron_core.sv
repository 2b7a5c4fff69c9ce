// neuron_core — a NeuronCore (SPEC 5.7, docs/isa.md): the control (core_ctl: four instruction
// streams, semaphores, errors) driving the datapath (core: tensor engine with PSUM, vector and
// scalar engines, DMA, SBUF).
//
// Wiring:
//   - the control's commands go to the engines' command ports and the DMA's descriptor port (the
//     queue's low QW bits: the control refuses a queue number at or past Queues); the engines'
//     ready, done and err and the DMA's queue idle flags go back to the control;
//   - a descriptor's completion write (hbm_wr_info.sem on the core's HBM write channel) never
//     leaves the NeuronCore: it is accepted at once and becomes the semaphore addition of its data's
//     low 32 bits to semaphore (address / 4) mod 32;
//   - every other HBM access passes through.
// The program is loaded through im_ before start_i; status and semaphores are outputs. The DMA
// queues' idle, error and done counters and the lane engines' busy flags are outputs for
// observation (timelines, figures).
module neuron_core
  import isa_pkg::InstBits;
  import isa_pkg::Sems;
  import isa_pkg::SemBits;
  import isa_pkg::Streams;
  import isa_pkg::PcBits;
  import isa_pkg::stream_e;
  import isa_pkg::ctl_err_e;
  import isa_pkg::stream_status_t;
  import dma_pkg::rd_req_t;
  import dma_pkg::wr_req_t;
  import dma_pkg::wr_info_t;
  import dma_pkg::desc_t;
  import dma_pkg::err_e;
  import te_pkg::te_cmd_t;
  import te_pkg::te_err_e;
  import le_pkg::instr_t;
  import le_pkg::le_err_e;
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
  localparam int unsigned QW = Queues > 1 ? $clog2(Queues) : 1,
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned LW = 32 * Parts
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        start_i,
  // instruction memories
  input  logic                        im_valid_i,
  input  stream_e                     im_stream_i,
  input  logic [PcBits-1:0]           im_addr_i,
  input  logic [InstBits-1:0]         im_data_i,
  // DMA configuration
  input  logic [Queues-1:0]           dma_cfg_strong_i,
  input  logic [SW:0]                 dma_cfg_max_outst_i,
  // status
  output logic                        running_o,
  output logic                        done_o,
  output logic                        err_o,
  output ctl_err_e                    err_code_o,
  output logic [2:0]                  err_detail_o,
  output stream_e                     err_stream_o,
  output logic [PcBits-1:0]           err_pc_o,
  output stream_status_t [Streams-1:0] st_o,
  output logic [Sems-1:0][31:0]       sem_o,
  // observation
  output logic [Queues-1:0]           dma_q_idle_o,
  output logic [Queues-1:0]           dma_q_err_o,
  output err_e [Queues-1:0]           dma_q_code_o,
  output logic [16*Queues-1:0]        dma_q_done_o,
  output logic                        ve_busy_o,
  output logic                        se_busy_o,
  // HBM port
  output logic                        hbm_ar_valid_o,
  input  logic                        hbm_ar_ready_i,
  output rd_req_t                     hbm_ar_o,
  input  logic                        hbm_r_valid_i,
  output logic                        hbm_r_ready_o,
  input  logic [SW-1:0]               hbm_r_id_i,
  input  logic [DW-1:0]               hbm_r_data_i,
  output logic                        hbm_wr_valid_o,
  input  logic                        hbm_wr_ready_i,
  output wr_req_t                     hbm_wr_o,
  output logic [DW-1:0]               hbm_wr_data_o,
  output wr_info_t                    hbm_wr_info_o
);
  // control <-> core
  logic          te_cmd_valid, te_cmd_ready, te_ls_done, te_mm_done, te_err;
  te_cmd_t       te_cmd;
  logic [3:0]    te_ls_done_tag, te_mm_done_tag, te_err_tag;
  te_err_e       te_err_code;
  logic          ve_cmd_valid, ve_cmd_ready, ve_done, ve_err;
  logic          se_cmd_valid, se_cmd_ready, se_done, se_err;
  instr_t        ve_cmd, se_cmd;
  logic [3:0]    ve_done_tag, ve_err_tag, se_done_tag, se_err_tag;
  le_err_e       ve_err_code, se_err_code;
  logic          dma_desc_valid, dma_desc_ready;
  logic [3:0]    dma_desc_queue;
  desc_t         dma_desc;
  logic          sem_add_valid;
  logic [SemBits-1:0] sem_add_idx;
  logic [31:0]   sem_add_val;
  // the core's HBM write channel, before the semaphore writes are taken off it
  logic          core_wr_valid, core_wr_ready;
  wr_req_t       core_wr;
  logic [DW-1:0] core_wr_data;
  wr_info_t      core_wr_info;
  logic [LW-1:0] se_acc_unused;  // the scalar engine's accumulators: read only by acc_store

  core_ctl #(.Parts(Parts), .SbufBytes(SbufBytes), .PsumBanks(PsumBanks), .PsumBankBytes(PsumBankBytes),
             .Queues(Queues), .HbmBytes(HbmBytes), .ImemDepth(ImemDepth)) u_ctl (
    .clk_i, .rst_ni, .start_i,
    .im_valid_i, .im_stream_i, .im_addr_i, .im_data_i,
    .te_cmd_valid_o(te_cmd_valid), .te_cmd_ready_i(te_cmd_ready), .te_cmd_o(te_cmd),
    .te_ls_done_i(te_ls_done), .te_ls_done_tag_i(te_ls_done_tag), .te_mm_done_i(te_mm_done),
    .te_mm_done_tag_i(te_mm_done_tag), .te_err_i(te_err), .te_err_tag_i(te_err_tag), .te_err_code_i(te_err_code),
    .ve_cmd_valid_o(ve_cmd_valid), .ve_cmd_ready_i(ve_cmd_ready), .ve_cmd_o(ve_cmd),
    .ve_done_i(ve_done), .ve_done_tag_i(ve_done_tag), .ve_err_i(ve_err), .ve_err_tag_i(ve_err_tag),
    .ve_err_code_i(ve_err_code),
    .se_cmd_valid_o(se_cmd_valid), .se_cmd_ready_i(se_cmd_ready), .se_cmd_o(se_cmd),
    .se_done_i(se_done), .se_done_tag_i(se_done_tag), .se_err_i(se_err), .se_err_tag_i(se_err_tag),
    .se_err_code_i(se_err_code),
    .dma_desc_valid_o(dma_desc_valid), .dma_desc_ready_i(dma_desc_ready), .dma_desc_queue_o(dma_desc_queue),
    .dma_desc_o(dma_desc), .dma_q_idle_i(dma_q_idle_o),
    .sem_add_valid_i(sem_add_valid), .sem_add_idx_i(sem_add_idx), .sem_add_val_i(sem_add_val),
    .running_o, .done_o, .err_o, .err_code_o, .err_detail_o, .err_stream_o, .err_pc_o, .st_o, .sem_o
  );

  core #(.Parts(Parts), .SbufBytes(SbufBytes), .SbufBanks(SbufBanks), .PsumBanks(PsumBanks),
         .PsumBankBytes(PsumBankBytes), .MaxN(MaxN), .Queues(Queues), .Slots(Slots), .BeatBytes(BeatBytes),
         .HbmBytes(HbmBytes)) u_core (
    .clk_i, .rst_ni,
    .te_cmd_valid_i(te_cmd_valid), .te_cmd_ready_o(te_cmd_ready), .te_cmd_i(te_cmd),
    .te_ls_done_o(te_ls_done), .te_ls_done_tag_o(te_ls_done_tag), .te_mm_done_o(te_mm_done),
    .te_mm_done_tag_o(te_mm_done_tag), .te_err_o(te_err), .te_err_tag_o(te_err_tag), .te_err_code_o(te_err_code),
    .ve_cmd_valid_i(ve_cmd_valid), .ve_cmd_ready_o(ve_cmd_ready), .ve_cmd_i(ve_cmd),
    .ve_done_o(ve_done), .ve_done_tag_o(ve_done_tag), .ve_err_o(ve_err), .ve_err_tag_o(ve_err_tag),
    .ve_err_code_o(ve_err_code), .ve_busy_o,
    .se_cmd_valid_i(se_cmd_valid), .se_cmd_ready_o(se_cmd_ready), .se_cmd_i(se_cmd),
    .se_done_o(se_done), .se_done_tag_o(se_done_tag), .se_err_o(se_err), .se_err_tag_o(se_err_tag),
    .se_err_code_o(se_err_code), .se_busy_o, .se_acc_o(se_acc_unused),
    .dma_desc_valid_i(dma_desc_valid), .dma_desc_ready_o(dma_desc_ready), .dma_desc_queue_i(dma_desc_queue[QW-1:0]),
    .dma_desc_i(dma_desc), .dma_cfg_strong_i, .dma_cfg_max_outst_i, .dma_q_clr_i('0),
    .dma_q_idle_o, .dma_q_err_o, .dma_q_code_o, .dma_q_done_o,
    .hbm_ar_valid_o, .hbm_ar_ready_i, .hbm_ar_o, .hbm_r_valid_i, .hbm_r_ready_o, .hbm_r_id_i, .hbm_r_data_i,
    .hbm_wr_valid_o(core_wr_valid), .hbm_wr_ready_i(core_wr_ready), .hbm_wr_o(core_wr),
    .hbm_wr_data_o(core_wr_data), .hbm_wr_info_o(core_wr_info)
  );

  // ---- semaphore writes: taken off the HBM port and added to the control's semaphores
  assign sem_add_valid = core_wr_valid && core_wr_info.sem;
  assign sem_add_idx = core_wr.addr[2 +: SemBits];
  assign sem_add_val = core_wr_data[31:0];
  assign core_wr_ready = core_wr_info.sem ? 1'b1 : hbm_wr_ready_i;
  assign hbm_wr_valid_o = core_wr_valid && !core_wr_info.sem;
  assign hbm_wr_o = core_wr;
  assign hbm_wr_data_o = core_wr_data;
  assign hbm_wr_info_o = core_wr_info;
endmodule
