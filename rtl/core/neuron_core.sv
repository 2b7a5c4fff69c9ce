// neuron_core — a NeuronCore (SPEC 5.7, docs/isa.md): the control (core_ctl: five instruction
// streams, semaphores, errors) driving the datapath (core: tensor engine with PSUM, vector and
// scalar engines, DMA, SBUF, and with GpProcs > 0 the GpSimd engine).
//
// Wiring:
//   - the control's commands go to the engines' command ports and the DMA's descriptor port (the
//     queue's low QW bits: the control refuses a queue number at or past Queues); the engines'
//     ready, done and err and the DMA's queue idle flags go back to the control;
//   - a descriptor's completion write to the core itself (hbm_wr_info.sem, chip and unit fields 0:
//     docs/chip.md) never leaves the NeuronCore: sem_tap accepts it at once and it becomes the
//     semaphore addition of its data's low 32 bits to semaphore (address / 4) mod 32; a completion
//     for another unit or chip leaves on the HBM port with its unit field filled in (Unit + 1);
//   - a register load's word (a write marked as a semaphore write to a register address of the
//     core: dma_pkg::is_reg_addr) is taken the same way and becomes the write of that register of
//     its stream (sem_tap's sem_reg_o, sem_stream_o);
//   - the gpsimd stream's gpsimd_run starts the GpSimd engine; its processors see the semaphores
//     (sem_o) and their sem.add go to the control; an engine error stops the core (the control's
//     error gpsimd, detail the processor's code; gp_err_proc_o and gp_err_pc_o name the processor
//     and its pc). The gp_host_* port loads and reads the processors' local memories (before
//     start, like im_). GpProcs = 0 builds no engine and no gpsimd stream;
//   - every other HBM access passes through;
//   - a semaphore addition from outside (the chip: another unit's or another chip's completion)
//     arrives on sem_add_*; with sem_ext_en_i set a wait with nothing in flight is no deadlock.
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
  import te_pkg::te_cpl_t;
  import le_pkg::instr_t;
  import le_pkg::le_cpl_t;
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
  parameter int unsigned DmaEngines    = 1,      /// DMA engines of Queues queues, Slots / DmaEngines slots each
  parameter int unsigned Chips         = 1,      /// chips an HBM address may name (docs/chip.md)
  parameter int unsigned Unit          = 0,      /// this core's unit index on its chip
  parameter int unsigned GpProcs       = 0,      /// GpSimd processors (0: no GpSimd engine, no gpsimd stream)
  parameter int unsigned GpTcmBytes    = 4096,
  parameter int unsigned GpVlen        = 128,
  localparam int unsigned QW = Queues > 1 ? $clog2(Queues) : 1,
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned ESW = $clog2(Slots / DmaEngines),
  localparam int unsigned EW = DmaEngines > 1 ? $clog2(DmaEngines) : 1,
  localparam int unsigned NQ = DmaEngines * Queues,
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned LW = 32 * Parts,
  localparam int unsigned GPW = GpProcs > 1 ? $clog2(GpProcs) : 1,  // a GpSimd processor's index
  localparam int unsigned GAW = $clog2(GpTcmBytes / 4)              // a word index in its local memory
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        start_i,
  // instruction memories
  input  logic                        im_valid_i,
  input  stream_e                     im_stream_i,
  input  logic [PcBits-1:0]           im_addr_i,
  input  logic [InstBits-1:0]         im_data_i,
  // GpSimd local memories (gpsimd.sv's host port)
  input  logic                        gp_host_we_i,
  input  logic                        gp_host_re_i,
  input  logic                        gp_host_all_i,
  input  logic [GPW-1:0]              gp_host_proc_i,
  input  logic [GAW-1:0]              gp_host_addr_i,
  input  logic [31:0]                 gp_host_wdata_i,
  output logic [31:0]                 gp_host_rdata_o,
  // DMA configuration
  input  logic [NQ-1:0]               dma_cfg_strong_i,    /// engine e's queue q at bit e * Queues + q
  input  logic [ESW:0]                dma_cfg_max_outst_i, /// each engine's reads in flight at most
  // semaphore additions from outside the core (the chip)
  input  logic                        sem_ext_en_i,
  input  logic                        sem_add_valid_i,
  input  logic [SemBits-1:0]          sem_add_idx_i,
  input  logic [31:0]                 sem_add_val_i,
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
  output logic [GPW-1:0]              gp_err_proc_o,       /// the GpSimd engine's error: the processor ...
  output logic [31:0]                 gp_err_pc_o,         /// ... and its pc
  // observation
  output logic [NQ-1:0]               dma_q_idle_o,
  output logic [NQ-1:0]               dma_q_err_o,
  output err_e [NQ-1:0]               dma_q_code_o,
  output logic [16*NQ-1:0]            dma_q_done_o,
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
  logic          te_cmd_valid, te_cmd_ready;
  te_cmd_t       te_cmd;
  te_cpl_t       te_cpl;
  logic          ve_cmd_valid, ve_cmd_ready, se_cmd_valid, se_cmd_ready;
  instr_t        ve_cmd, se_cmd;
  le_cpl_t       ve_cpl, se_cpl;
  logic          dma_desc_valid, dma_desc_ready;
  logic [3:0]    dma_desc_engine, dma_desc_queue;
  desc_t         dma_desc;
  logic          sem_add_valid;
  logic [SemBits-1:0] sem_add_idx;
  logic [31:0]   sem_add_val;
  logic          sem_add_reg;
  stream_e       sem_add_stream;
  logic [2:0]    sem_add_stream_bits;
  // control <-> GpSimd engine
  localparam int unsigned GPN = GpProcs > 0 ? GpProcs : 1;
  logic          gp_start, gp_busy, gp_done, gp_err;
  logic [31:0]   gp_entry, gp_args;
  gpsimd_pkg::gp_err_e gp_code;
  logic [GPN-1:0] gp_sem_add;
  logic [GPN-1:0][SemBits-1:0] gp_sem_idx;
  logic [GPN-1:0][31:0] gp_sem_val;
  // the core's HBM write channel, before the semaphore writes are taken off it
  logic          core_wr_valid, core_wr_ready;
  wr_req_t       core_wr;
  logic [DW-1:0] core_wr_data;
  wr_info_t      core_wr_info;
  logic [LW-1:0] se_acc_unused;  // the scalar engine's accumulators: read only by acc_store

  core_ctl #(.Parts(Parts), .SbufBytes(SbufBytes), .PsumBanks(PsumBanks), .PsumBankBytes(PsumBankBytes),
             .Queues(Queues), .HbmBytes(HbmBytes), .ImemDepth(ImemDepth), .DmaEngines(DmaEngines),
             .Chips(Chips), .GpProcs(GPN),
             .StreamsOn(GpProcs > 0 ? (1 << Streams) - 1 : ((1 << Streams) - 1) & ~(1 << isa_pkg::StreamGpsimd))) u_ctl (
    .clk_i, .rst_ni, .start_i,
    .im_valid_i, .im_stream_i, .im_addr_i, .im_data_i,
    .te_cmd_valid_o(te_cmd_valid), .te_cmd_ready_i(te_cmd_ready), .te_cmd_o(te_cmd),
    .te_cpl_i(te_cpl),
    .ve_cmd_valid_o(ve_cmd_valid), .ve_cmd_ready_i(ve_cmd_ready), .ve_cmd_o(ve_cmd),
    .ve_cpl_i(ve_cpl),
    .se_cmd_valid_o(se_cmd_valid), .se_cmd_ready_i(se_cmd_ready), .se_cmd_o(se_cmd),
    .se_cpl_i(se_cpl),
    .dma_desc_valid_o(dma_desc_valid), .dma_desc_ready_i(dma_desc_ready), .dma_desc_engine_o(dma_desc_engine),
    .dma_desc_queue_o(dma_desc_queue), .dma_desc_o(dma_desc), .dma_q_idle_i(dma_q_idle_o),
    .sem_add_valid_i(sem_add_valid), .sem_add_idx_i(sem_add_idx), .sem_add_val_i(sem_add_val),
    .sem_add_reg_i(sem_add_reg), .sem_add_stream_i(sem_add_stream),
    .gp_start_o(gp_start), .gp_ready_i(!gp_busy), .gp_entry_o(gp_entry), .gp_args_o(gp_args),
    .gp_done_i(gp_done), .gp_err_i(gp_err), .gp_code_i(gp_code),
    .gp_sem_add_i(gp_sem_add), .gp_sem_idx_i(gp_sem_idx), .gp_sem_val_i(gp_sem_val),
    .sem_ext_en_i, .sem_ext_valid_i(sem_add_valid_i), .sem_ext_idx_i(sem_add_idx_i), .sem_ext_val_i(sem_add_val_i),
    .running_o, .done_o, .err_o, .err_code_o, .err_detail_o, .err_stream_o, .err_pc_o, .st_o, .sem_o
  );

  core #(.Parts(Parts), .SbufBytes(SbufBytes), .SbufBanks(SbufBanks), .PsumBanks(PsumBanks),
         .PsumBankBytes(PsumBankBytes), .MaxN(MaxN), .Queues(Queues), .Slots(Slots), .BeatBytes(BeatBytes),
         .HbmBytes(HbmBytes), .DmaEngines(DmaEngines), .Chips(Chips), .GpProcs(GpProcs),
         .GpTcmBytes(GpTcmBytes), .GpVlen(GpVlen)) u_core (
    .clk_i, .rst_ni,
    .te_cmd_valid_i(te_cmd_valid), .te_cmd_ready_o(te_cmd_ready), .te_cmd_i(te_cmd),
    .te_cpl_o(te_cpl),
    .ve_cmd_valid_i(ve_cmd_valid), .ve_cmd_ready_o(ve_cmd_ready), .ve_cmd_i(ve_cmd),
    .ve_cpl_o(ve_cpl), .ve_busy_o,
    .se_cmd_valid_i(se_cmd_valid), .se_cmd_ready_o(se_cmd_ready), .se_cmd_i(se_cmd),
    .se_cpl_o(se_cpl), .se_busy_o, .se_acc_o(se_acc_unused),
    .dma_desc_valid_i(dma_desc_valid), .dma_desc_ready_o(dma_desc_ready), .dma_desc_engine_i(dma_desc_engine[EW-1:0]),
    .dma_desc_queue_i(dma_desc_queue[QW-1:0]),
    .dma_desc_i(dma_desc), .dma_cfg_strong_i, .dma_cfg_max_outst_i, .dma_q_clr_i('0),
    .dma_q_idle_o, .dma_q_err_o, .dma_q_code_o, .dma_q_done_o,
    .hbm_ar_valid_o, .hbm_ar_ready_i, .hbm_ar_o, .hbm_r_valid_i, .hbm_r_ready_o, .hbm_r_id_i, .hbm_r_data_i,
    .hbm_wr_valid_o(core_wr_valid), .hbm_wr_ready_i(core_wr_ready), .hbm_wr_o(core_wr),
    .hbm_wr_data_o(core_wr_data), .hbm_wr_info_o(core_wr_info),
    .gp_start_i(gp_start), .gp_entry_i(gp_entry), .gp_args_i(gp_args), .gp_busy_o(gp_busy), .gp_done_o(gp_done),
    .gp_err_o(gp_err), .gp_err_proc_o, .gp_err_code_o(gp_code), .gp_err_pc_o,
    .gp_host_we_i, .gp_host_re_i, .gp_host_all_i, .gp_host_proc_i, .gp_host_addr_i, .gp_host_wdata_i,
    .gp_host_rdata_o,
    .gp_sem_i(sem_o), .gp_sem_add_o(gp_sem_add), .gp_sem_idx_o(gp_sem_idx), .gp_sem_val_o(gp_sem_val)
  );

  assign sem_add_stream = stream_e'(sem_add_stream_bits);

  // ---- the core's own completion writes: taken off the HBM port and added to the semaphores
  sem_tap #(.Unit(Unit), .BeatBytes(BeatBytes)) u_tap (
    .in_valid_i(core_wr_valid), .in_ready_o(core_wr_ready), .in_i(core_wr), .in_data_i(core_wr_data),
    .in_info_i(core_wr_info),
    .out_valid_o(hbm_wr_valid_o), .out_ready_i(hbm_wr_ready_i), .out_o(hbm_wr_o), .out_data_o(hbm_wr_data_o),
    .out_info_o(hbm_wr_info_o),
    .sem_valid_o(sem_add_valid), .sem_idx_o(sem_add_idx), .sem_val_o(sem_add_val), .sem_reg_o(sem_add_reg),
    .sem_stream_o(sem_add_stream_bits)
  );
endmodule
