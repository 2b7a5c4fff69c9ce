// gpsimd — the GpSimd engine (SPEC 5.8, docs/gpsimd.md "The engine"): Procs processors
// (gpsimd_proc), processor i owning SBUF partitions [i·Parts/Procs, (i+1)·Parts/Procs).
//
// - An operator starts on every processor at once (start_i, entry_i, args_i; a0 = the processor's
//   index); done_o once every processor has retired op.end since, err_o once one stopped with an
//   error (the lowest-numbered such processor's code and pc, held until the next start).
// - The host port reaches processor host_proc_i's local memory (host_all_i: a write to every
//   processor's), and host_rdata_o is the word the last read asked for.
// - The processors share one SBUF word port: a round-robin arbiter (rtl/common/rr_arbiter) picks
//   a requester, the port's sb_gnt_i takes it; a read's processor goes into a FIFO
//   (rtl/common/stream_fifo, ReadDepth entries: a read is not granted while it is full), so the
//   in-order answers (sb_rvalid_i) go back to the processor that asked.
// - Each processor's semaphore addition has its own port (sem_add_o[i]); all see sem_i.
module gpsimd
  import gpsimd_pkg::*;
#(
  parameter int unsigned Procs = 2,
  parameter int unsigned TcmBytes = 4096,
  parameter int unsigned Vlen = 128,
  parameter int unsigned Parts = 4,  /// SBUF partitions (a multiple of Procs)
  parameter int unsigned SbufBytes = 1024,
  parameter int unsigned Sems = 32,
  parameter int unsigned ReadDepth = 4,  /// SBUF reads in flight
  localparam int unsigned PW = Procs > 1 ? $clog2(Procs) : 1,
  localparam int unsigned WAW = $clog2(TcmBytes / 4)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       start_i,      /// start the operator (ignored while busy_o)
  input  logic [               31:0] entry_i,
  input  logic [               31:0] args_i,
  output logic                       busy_o,       /// a processor is running
  output logic                       done_o,       /// every processor retired op.end since the start
  output logic                       err_o,        /// a processor stopped with an error since the start
  output logic [             PW-1:0] err_proc_o,   /// the lowest-numbered one
  output gp_err_e                    err_code_o,
  output logic [               31:0] err_pc_o,
  input  logic                       host_we_i,
  input  logic                       host_re_i,
  input  logic                       host_all_i,   /// a write to every processor's local memory
  input  logic [             PW-1:0] host_proc_i,
  input  logic [            WAW-1:0] host_addr_i,
  input  logic [               31:0] host_wdata_i,
  output logic [               31:0] host_rdata_o,
  output logic                       sb_req_o,
  output logic                       sb_we_o,
  output logic [               15:0] sb_part_o,
  output logic [               31:0] sb_off_o,
  output logic [                3:0] sb_mask_o,
  output logic [               31:0] sb_wdata_o,
  input  logic                       sb_gnt_i,
  input  logic                       sb_rvalid_i,
  input  logic [               31:0] sb_rdata_i,
  input  logic [Sems-1:0][31:0]      sem_i,
  output logic [Procs-1:0]           sem_add_o,
  output logic [Procs-1:0][4:0]      sem_idx_o,
  output logic [Procs-1:0][31:0]     sem_val_o
);
  localparam int unsigned PerProc = Parts / Procs;
  localparam int unsigned ReqW = 1 + 16 + 32 + 4 + 32;  // we, partition, offset, mask, data

  logic [Procs-1:0] busy, done, err, req, gnt, rvalid;
  gp_err_e [Procs-1:0] code;
  logic [Procs-1:0][31:0] pc, rdata;
  logic [Procs-1:0][ReqW-1:0] req_data;

  for (genvar i = 0; i < Procs; i++) begin : g_proc
    // the retire and vector-write traces: the processor bench's (observed by the probes here)
    logic ret_unused, vw_unused, vw_bit_unused;
    logic [31:0] ret_pc_unused, ret_insn_unused, ret_wdata_unused, ret_st_addr_unused, ret_st_data_unused;
    logic [4:0] ret_rd_unused, vw_reg_unused;
    logic [3:0] ret_st_mask_unused;
    logic [$clog2(Vlen)-1:0] vw_off_unused;
    logic [31:0] vw_data_unused;
    logic we_o;
    logic [15:0] part_o;
    logic [31:0] off_o, wdata_o;
    logic [3:0] mask_o;
    gpsimd_proc #(
      .TcmBytes(TcmBytes),
      .Vlen(Vlen),
      .SbufBytes(SbufBytes),
      .Sems(Sems)
    ) u_proc (
      .clk_i,
      .rst_ni,
      .start_i(start_i && !busy_o),
      .entry_i,
      .arg0_i(32'(i)),
      .arg1_i(args_i),
      .busy_o(busy[i]),
      .done_o(done[i]),
      .err_o(err[i]),
      .err_code_o(code[i]),
      .err_pc_o(pc[i]),
      .host_we_i(host_we_i && (host_all_i || host_proc_i == PW'(i))),
      .host_re_i(host_re_i && host_proc_i == PW'(i)),
      .host_vre_i(1'b0),
      .host_addr_i,
      .host_wdata_i,
      .host_rdata_o(rdata[i]),
      .ret_o(ret_unused),
      .ret_pc_o(ret_pc_unused),
      .ret_insn_o(ret_insn_unused),
      .ret_rd_o(ret_rd_unused),
      .ret_wdata_o(ret_wdata_unused),
      .ret_st_mask_o(ret_st_mask_unused),
      .ret_st_addr_o(ret_st_addr_unused),
      .ret_st_data_o(ret_st_data_unused),
      .vw_o(vw_unused),
      .vw_reg_o(vw_reg_unused),
      .vw_off_o(vw_off_unused),
      .vw_bit_o(vw_bit_unused),
      .vw_data_o(vw_data_unused),
      .part_lo_i(16'(i * PerProc)),
      .part_hi_i(16'((i + 1) * PerProc)),
      .sb_req_o(req[i]),
      .sb_we_o(we_o),
      .sb_part_o(part_o),
      .sb_off_o(off_o),
      .sb_mask_o(mask_o),
      .sb_wdata_o(wdata_o),
      .sb_gnt_i(gnt[i]),
      .sb_rvalid_i(rvalid[i]),
      .sb_rdata_i,
      .sem_i,
      .sem_add_o(sem_add_o[i]),
      .sem_idx_o(sem_idx_o[i]),
      .sem_val_o(sem_val_o[i])
    );
    assign req_data[i] = {we_o, part_o, off_o, mask_o, wdata_o};
  end

  // the SBUF port: a round-robin pick among the requesters; a read only while its FIFO has room
  logic arb_valid, arb_ready, fifo_ready, fifo_valid;
  logic [ReqW-1:0] arb_data;
  logic [PW-1:0] arb_idx, fifo_idx;
  logic [$clog2(ReadDepth+1)-1:0] reads_unused;
  rr_arbiter #(
    .N(Procs),
    .Width(ReqW)
  ) u_arb (
    .clk_i,
    .rst_ni,
    .req_valid_i(req),
    .req_ready_o(gnt),
    .req_data_i(req_data),
    .gnt_valid_o(arb_valid),
    .gnt_ready_i(arb_ready),
    .gnt_data_o(arb_data),
    .gnt_idx_o(arb_idx)
  );
  assign arb_ready = sb_gnt_i && (arb_data[ReqW-1] || fifo_ready);
  stream_fifo #(
    .Width(PW),
    .Depth(ReadDepth)
  ) u_reads (
    .clk_i,
    .rst_ni,
    .push_valid_i(arb_valid && arb_ready && !arb_data[ReqW-1]),
    .push_ready_o(fifo_ready),
    .push_data_i(arb_idx),
    .pop_valid_o(fifo_valid),
    .pop_ready_i(sb_rvalid_i),
    .pop_data_o(fifo_idx),
    .usage_o(reads_unused)
  );
  for (genvar i = 0; i < Procs; i++) begin : g_rvalid
    assign rvalid[i] = sb_rvalid_i && fifo_valid && fifo_idx == PW'(i);
  end
  assign sb_req_o = arb_valid && (arb_data[ReqW-1] || fifo_ready);
  assign {sb_we_o, sb_part_o, sb_off_o, sb_mask_o, sb_wdata_o} = sb_req_o ? arb_data : '0;

  // the operator's state
  logic [PW-1:0] host_q, host_d;  // the processor the last host read went to
  logic [PW-1:0] first;  // the lowest-numbered processor with an error
  always_comb begin
    first = '0;
    for (int i = Procs - 1; i >= 0; i--) if (err[i]) first = PW'(i);
  end
  assign host_d = host_re_i ? host_proc_i : host_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) host_q <= '0;
    else host_q <= host_d;
  end

  assign busy_o = |busy;
  assign done_o = &done;
  assign err_o = |err;
  assign err_proc_o = first;
  assign err_code_o = err_o ? code[first] : GpErrNone;
  assign err_pc_o = err_o ? pc[first] : '0;
  assign host_rdata_o = rdata[host_q];
endmodule
