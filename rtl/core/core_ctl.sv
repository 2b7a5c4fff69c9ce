// core_ctl — the NeuronCore's control (SPEC 5.7, docs/isa.md): five instruction streams (tensor,
// vector, scalar, sync, gpsimd) that meet only through 32 hardware semaphores.
//
// Stages, per stream s (StreamsOn: the streams built; a collective core builds only the sync
// stream, and the others have ended from every start):
//   - instruction memory: ImemDepth words of isa_pkg::inst_t, written through the im_ port (before
//     start); not reset.
//   - fetch: {pc, word} into a two-entry stream_fifo each cycle it has room, from pc 0 after start,
//     until it fetches an `end` or runs past the memory (the error imem).
//   - decode (the head of the queue): the table's legality rules (isa_pkg: op known and on this
//     stream, unused fields zero, enables, needs), the lane engine's check (le_pkg::check) on the
//     vector and scalar streams, the DMA engine and queue numbers and the descriptor check
//     (dma_pkg::check) on the sync stream. A failing head stops the core; it never issues.
//     The head is checked as it issues: with each field that names a register plus that register
//     (isa_pkg::subst; a sum that does not fit is the error range), and a loop whose counter is 0
//     is the error loop. A head that names a register still pending (reg_load) is not checked
//     until the register arrives.
//   - issue: when the head's wait holds (semaphore >= value, at the start of the cycle) and, for a
//     unit op, a tag is free and the unit is ready. A unit op takes the engine's next tag (16 per
//     engine); its pc and post wait in the tag's slot until the unit reports the tag done. The
//     gpsimd stream's gpsimd_run has one slot: it issues when the slot is free and the GpSimd
//     engine is not busy (gp_ready_i), starting it (gp_start_o, gp_entry_o, gp_args_o); gp_done_i
//     (every processor ran op.end) while the slot is busy frees it and adds its post, gp_err_i
//     (a processor stopped) while the slot is busy is the unit error gpsimd (detail gp_code_i).
//   - control flow (docs/isa.md, "Registers and control flow"): 16 registers per stream (r0 reads
//     0), written by reg_set, reg_add, reg_mul and loop as they issue and read by the next
//     instruction. A branch or loop that is taken sets the pc to its target and clears the fetched
//     end; the word fetched behind it (the queue's second entry, if any) is stale and dropped the
//     next cycle without a check, while the target is fetched: a taken branch costs one cycle.
//   - reg_load (any stream): a register-load descriptor (dma_pkg::OpReg, checked with
//     dma_pkg::check_reg) on the DMA descriptor port, which the streams share with the sync
//     stream's dma_start (lowest stream first). Its register is pending until the word comes back
//     as an own write to its register address (sem_add_* with sem_add_reg_i); a head that names a
//     pending register (any register field) waits, shown busy.
// Semaphores: every addition of a cycle counts (issue-time posts of the five streams, the tensor
// engine's two completions, the vector and scalar completions (te_cpl_i, ve_cpl_i, se_cpl_i), the
// GpSimd operator's completion, each GpSimd processor's sem.add (gp_sem_*), the unit's own DMA
// completion write on sem_add_*, and one from outside the unit on sem_ext_*: another unit's or
// another chip's); the sum is visible the next cycle. start clears them.
// Errors: the first is kept (code, detail, stream, pc); lowest stream first, and within a stream
// the unit's report, then decode, then fetch; a deadlock (every stream not ended waits on its
// semaphore, nothing in flight, no addition) is one too, unless sem_ext_en_i says another unit may
// still add (on a chip: the chip's bench sees a system-wide hang). From the error's cycle on
// nothing is fetched or issued; reset clears it.
// Latency: a word fetched at edge n can issue in the cycle after edge n; one issue per stream per
// cycle. Outputs: the commands are functions of the queue heads, tags and semaphores (registered
// state) and of the units' ready, done and err inputs (issue and done_o); nothing depends on the
// command ports' own valid.
module core_ctl
  import isa_pkg::InstBits;
  import isa_pkg::Sems;
  import isa_pkg::SemBits;
  import isa_pkg::Streams;
  import isa_pkg::PcBits;
  import isa_pkg::inst_t;
  import isa_pkg::stream_e;
  import isa_pkg::StreamTensor;
  import isa_pkg::StreamVector;
  import isa_pkg::StreamScalar;
  import isa_pkg::StreamSync;
  import isa_pkg::StreamGpsimd;
  import isa_pkg::ctl_err_e;
  import isa_pkg::ctl_state_e;
  import isa_pkg::stream_status_t;
  import isa_pkg::regs_t;
  import te_pkg::te_cmd_t;
  import te_pkg::te_cpl_t;
  import le_pkg::instr_t;
  import le_pkg::le_err_e;
  import le_pkg::le_cpl_t;
  import dma_pkg::desc_t;
#(
  parameter int unsigned Parts         = 4,      /// partitions (lanes)
  parameter int unsigned SbufBytes     = 1024,   /// SBUF bytes per partition
  parameter int unsigned PsumBanks     = 8,
  parameter int unsigned PsumBankBytes = 64,
  parameter int unsigned Queues        = 2,      /// DMA queues
  parameter int unsigned HbmBytes      = 65536,
  parameter int unsigned ImemDepth     = 256,    /// words per stream's instruction memory
  parameter int unsigned DmaMaxLen     = 65536,  /// the DMA's longest descriptor (dma_engine MaxLen)
  parameter int unsigned DmaEngines    = 1,      /// DMA engines, each of Queues queues
  parameter int unsigned Chips         = 1,      /// chips a descriptor may name (docs/chip.md)
  parameter int unsigned DmaParts      = Parts,  /// SBUF partitions the DMA reaches (0: none, a collective core)
  parameter int unsigned StreamsOn     = (1 << Streams) - 1,  /// the streams built, bit s stream s (a collective core: the sync stream)
  parameter int unsigned GpProcs       = 1,      /// GpSimd processors whose sem.add come in (gp_sem_*)
  localparam int unsigned Tags = 16,
  localparam int unsigned Engines = 3,           // streams with tags: tensor, vector, scalar
  localparam int unsigned IW = ImemDepth > 1 ? $clog2(ImemDepth) : 1
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        start_i,        /// begin a run (taken when not running and no error)
  // instruction memories
  input  logic                        im_valid_i,
  input  stream_e                     im_stream_i,
  input  logic [PcBits-1:0]           im_addr_i,      /// word address (ignored at or past ImemDepth)
  input  logic [InstBits-1:0]         im_data_i,
  // tensor engine
  output logic                        te_cmd_valid_o,
  input  logic                        te_cmd_ready_i,
  output te_cmd_t                     te_cmd_o,
  input  te_cpl_t                     te_cpl_i,
  // vector engine
  output logic                        ve_cmd_valid_o,
  input  logic                        ve_cmd_ready_i,
  output instr_t                      ve_cmd_o,
  input  le_cpl_t                     ve_cpl_i,
  // scalar engine
  output logic                        se_cmd_valid_o,
  input  logic                        se_cmd_ready_i,
  output instr_t                      se_cmd_o,
  input  le_cpl_t                     se_cpl_i,
  // DMA
  output logic                        dma_desc_valid_o,
  input  logic                        dma_desc_ready_i,
  output logic [3:0]                  dma_desc_engine_o, /// the instruction's engine field (< DmaEngines when valid)
  output logic [3:0]                  dma_desc_queue_o,  /// the instruction's queue field (< Queues when valid)
  output desc_t                       dma_desc_o,
  input  logic [DmaEngines*Queues-1:0] dma_q_idle_i,     /// engine e's queue q at bit e * Queues + q
  input  logic                        sem_add_valid_i,   /// a descriptor's completion: add sem_add_val_i ...
  input  logic [SemBits-1:0]          sem_add_idx_i,     /// ... to this semaphore
  input  logic [31:0]                 sem_add_val_i,
  input  logic                        sem_add_reg_i,     /// ... or a register load: sem_add_val_i to register
  input  stream_e                     sem_add_stream_i,  /// sem_add_idx_i[3:0] of this stream
  // GpSimd engine (the gpsimd stream's gpsimd_run)
  output logic                        gp_start_o,
  input  logic                        gp_ready_i,        /// not busy: a start is taken
  output logic [31:0]                 gp_entry_o,
  output logic [31:0]                 gp_args_o,
  input  logic                        gp_done_i,         /// every processor ran op.end since the start
  input  logic                        gp_err_i,          /// a processor stopped since the start
  input  gpsimd_pkg::gp_err_e         gp_code_i,         /// its code
  input  logic [GpProcs-1:0]          gp_sem_add_i,      /// processor i's sem.add: gp_sem_val_i[i] ...
  input  logic [GpProcs-1:0][SemBits-1:0] gp_sem_idx_i,  /// ... to this semaphore
  input  logic [GpProcs-1:0][31:0]    gp_sem_val_i,

  // semaphore additions from outside the unit (another unit's or another chip's completions)
  input  logic                        sem_ext_en_i,      /// they may come: a wait with nothing in flight is no deadlock
  input  logic                        sem_ext_valid_i,
  input  logic [SemBits-1:0]          sem_ext_idx_i,
  input  logic [31:0]                 sem_ext_val_i,
  // status
  output logic                        running_o,
  output logic                        done_o,            /// every stream ended, nothing in flight (one cycle)
  output logic                        err_o,
  output ctl_err_e                    err_code_o,
  output logic [2:0]                  err_detail_o,      /// the unit's code (te_err_e, le_err_e, dma_pkg::err_e)
  output stream_e                     err_stream_o,
  output logic [PcBits-1:0]           err_pc_o,
  output stream_status_t [Streams-1:0] st_o,
  output logic [Sems-1:0][31:0]       sem_o
);
  localparam int unsigned PsumBytes = PsumBanks * PsumBankBytes;
  localparam int unsigned Group = Parts < 32 ? Parts : 32;  // the lane engines' transpose group
  localparam int unsigned OffBits = $clog2(SbufBytes);
  localparam int unsigned QW = PcBits + InstBits;            // a queue entry: {pc, word}
  localparam logic [PcBits:0] Depth = (PcBits + 1)'(ImemDepth);

  if (ImemDepth < 1 || ImemDepth >= (1 << PcBits)) $error("core_ctl: ImemDepth must be 1 .. 2^PcBits - 1");
  if (Queues > 16 || DmaEngines > 16) $error("core_ctl: at most 16 DMA engines of 16 queues (the instruction's fields)");

  // a tag's slot: the pc of its instruction and the post added when its unit reports it done
  typedef struct packed {
    logic                busy;
    logic [PcBits-1:0]   pc;
    logic                post_en;
    logic [SemBits-1:0]  post_sem;
    logic [7:0]          post_val;
  } slot_t;

  // ---- the unit commands of an instruction (docs/isa.md, "The instruction format")
  function automatic te_cmd_t te_cmd(inst_t i, logic [3:0] tag);
    te_cmd_t c;
    c.op = i.op == isa_pkg::OpMultiplyMoving ? te_pkg::TeMultiplyMoving : te_pkg::TeLoadStationary;
    c.tag = tag;
    c.fmt = i.a_fmt;
    c.bias = i.a_bias;
    c.addr = i.a_addr;
    c.k = i.k;
    c.m = i.m;
    c.n = i.n;
    c.bank = i.bank;
    c.off = i.off;
    c.acc = i.acc;
    c.tr = i.tr;
    c.mx = i.mx;
    c.sc_addr = i.sc_addr;
    c.kpe = i.kpe;
    c.pbf = i.pbf;
    c.sr = i.o_sr;
    c.seed_ld = i.seed_ld;
    c.seed = i.imm0;
    c.spm = i.spm;
    c.spq = i.spq;
    c.rg = i.rg;
    return c;
  endfunction

  function automatic instr_t lane_cmd(inst_t i, logic [3:0] tag);
    instr_t c;
    c.op = le_pkg::op_e'(isa_pkg::lane_op(i.op));
    c.tag = tag;
    c.ps = i.ps;
    c.pc = i.pc;
    c.a_addr = i.a_addr;
    c.b_addr = i.b_addr;
    c.o_addr = i.o_addr;
    c.s0_addr = i.s0_addr;
    c.s1_addr = i.s1_addr;
    c.sc_addr = i.sc_addr;
    c.a_space = i.a_space;
    c.b_space = i.b_space;
    c.o_space = i.o_space;
    c.a_fmt = i.a_fmt;
    c.a_bias = i.a_bias;
    c.b_fmt = i.b_fmt;
    c.b_bias = i.b_bias;
    c.o_fmt = i.o_fmt;
    c.o_bias = i.o_bias;
    c.o_sr = i.o_sr;
    c.o_sat = i.o_sat;
    c.o_mx = i.o_mx;
    c.mx_neuron = i.mx_neuron;
    c.size = i.size;
    c.a_stride = i.a_stride;
    c.b_stride = i.b_stride;
    c.o_stride = i.o_stride;
    c.alu0 = i.alu0;
    c.alu1 = i.alu1;
    c.imm0 = i.imm0;
    c.imm1 = i.imm1;
    c.s0_vec = i.s0_vec;
    c.s1_vec = i.s1_vec;
    c.func = i.func;
    c.acc = i.acc;
    c.acc_clr = i.acc_clr;
    return c;
  endfunction

  // reg_load's descriptor: 4 bytes from src to register rd of stream s (docs/isa.md)
  function automatic desc_t reg_desc(inst_t i, stream_e s);
    desc_t d;
    d = '0;
    d.src_space = i.src_space;
    d.src_addr = i.src_addr;
    d.dst_space = dma_pkg::SpaceHbm;
    d.dst_addr = dma_pkg::reg_addr(s, i.rd);
    d.len = 32'd4;
    d.stype = dma_pkg::TypeBytes;
    d.dtype = dma_pkg::TypeBytes;
    d.op = dma_pkg::OpReg;
    return d;
  endfunction

  function automatic desc_t dma_desc(inst_t i);
    desc_t d;
    d.src_space = i.src_space;
    d.src_addr = i.src_addr;
    d.dst_space = i.dst_space;
    d.dst_addr = i.dst_addr;
    d.len = i.len;
    d.stype = i.stype;
    d.dtype = i.dtype;
    d.layout = i.layout;
    d.cols = i.cols;
    d.op = i.dop;
    d.sem = i.dsem_en;
    d.sem_space = dma_pkg::SpaceHbm;  // the unit's own is taken off its HBM port (sem_tap)
    d.sem_addr = {i.dsem_chip, 12'b0, i.dsem_unit, i.dsem, 2'b0};
    d.sem_val = {24'b0, i.dsem_val};
    d.barrier = i.barrier;
    d.last = 1'b0;
    return d;
  endfunction

  // ---- state
  logic [Streams-1:0][PcBits-1:0] pc_q, pc_d;
  logic [Streams-1:0]  fetched_end_q, fetched_end_d, ended_q, ended_d;
  slot_t [Engines-1:0][Tags-1:0] slot_q, slot_d;
  slot_t               gp_slot_q, gp_slot_d;  // the gpsimd stream's operator in flight
  logic [Engines-1:0][3:0] tag_q, tag_d;
  logic [Sems-1:0][31:0] sem_q, sem_d;
  logic                running_q, running_d, err_q, err_d;
  ctl_err_e            err_code_q, err_code_d;
  logic [2:0]          err_detail_q, err_detail_d;
  stream_e             err_stream_q, err_stream_d;
  logic [PcBits-1:0]   err_pc_q, err_pc_d;
  regs_t [Streams-1:0] reg_q, reg_d;
  logic [Streams-1:0][isa_pkg::Regs-1:0] pend_q, pend_d;  // registers a reg_load has yet to write
  logic [Streams-1:0]  stale_q, stale_d;  // the queue's head was fetched behind a taken branch

  // ---- stages: instruction memories (a write port for the loader, a read port per stream; a
  // stream not built has none: it fetches nothing and has ended from the start) and fetch queues
  logic [Streams-1:0]          fetch, issue, pop, q_push_ready, head_valid;
  logic [Streams-1:0][QW-1:0]  q_push_data, q_pop_data;
  inst_t [Streams-1:0]         head, eff, fetch_word;
  logic [Streams-1:0][PcBits-1:0] head_pc;

  logic [Streams-1:0][1:0]     q_usage;
  for (genvar s = 0; s < Streams; s++) begin : g_stream
    if (StreamsOn[s]) begin : g_imem
      logic [InstBits-1:0] imem_q [ImemDepth];
      always_ff @(posedge clk_i) begin
        if (im_valid_i && im_stream_i == stream_e'(s) && {1'b0, im_addr_i} < Depth)
          imem_q[IW'(im_addr_i)] <= im_data_i;
      end
      assign fetch_word[s] = inst_t'(imem_q[IW'(pc_q[s])]);
    end else begin : g_no_imem
      assign fetch_word[s] = '0;
    end
    assign q_push_data[s] = {pc_q[s], fetch_word[s]};
    stream_fifo #(.Width(QW), .Depth(2)) u_queue (
      .clk_i, .rst_ni,
      .push_valid_i(fetch[s]), .push_ready_o(q_push_ready[s]), .push_data_i(q_push_data[s]),
      .pop_valid_o(head_valid[s]), .pop_ready_i(pop[s]), .pop_data_o(q_pop_data[s]), .usage_o(q_usage[s])
    );
    assign head[s] = inst_t'(q_pop_data[s][InstBits-1:0]);
    assign eff[s] = isa_pkg::subst(head[s], reg_q[s]);
    assign head_pc[s] = q_pop_data[s][InstBits +: PcBits];
  end

  // ---- stage: decode (the heads' checks)
  ctl_err_e [Streams-1:0]   dec_code;
  logic [Streams-1:0][2:0]  dec_detail;
  le_err_e                  ve_chk, se_chk;
  dma_pkg::err_e            dma_chk;
  instr_t                   ve_head_cmd, se_head_cmd;
  desc_t                    dma_head_desc;
  logic                     lane, dma;  // (decode's loop: the head's unit)
  logic [Streams-1:0]       rl;         // the head is a reg_load
  desc_t [Streams-1:0]      head_desc;  // the descriptor a DMA op at the head sends
  dma_pkg::err_e [Streams-1:0] rl_chk;

  assign ve_head_cmd = lane_cmd(eff[StreamVector], tag_q[1]);
  assign se_head_cmd = lane_cmd(eff[StreamScalar], tag_q[2]);
  assign dma_head_desc = dma_desc(eff[StreamSync]);
  assign ve_chk = le_pkg::check(ve_head_cmd, 1'b0, Parts, SbufBytes, PsumBytes, Group);
  assign se_chk = le_pkg::check(se_head_cmd, 1'b1, Parts, SbufBytes, PsumBytes, Group);
  assign dma_chk = dma_pkg::check(dma_head_desc, HbmBytes, DmaParts, OffBits, SbufBytes, DmaMaxLen, Chips);
  for (genvar s = 0; s < Streams; s++) begin : g_rl
    assign rl[s] = head[s].op == isa_pkg::OpRegLoad;
    assign rl_chk[s] = dma_pkg::check_reg(eff[s].src_space, eff[s].src_addr, HbmBytes, DmaParts, OffBits, SbufBytes);
    if (s == 32'(StreamSync)) begin : g_sync
      assign head_desc[s] = rl[s] ? reg_desc(eff[s], stream_e'(s)) : dma_head_desc;
    end else begin : g_other
      assign head_desc[s] = reg_desc(eff[s], stream_e'(s));
    end
  end

  always_comb begin
    for (int unsigned s = 0; s < Streams; s++) begin
      lane = isa_pkg::op_unit(head[s].op) == isa_pkg::UnitLane;
      dma = isa_pkg::op_unit(head[s].op) == isa_pkg::UnitDma;
      dec_code[s] = isa_pkg::CtlErrNone;
      dec_detail[s] = '0;
      if (!isa_pkg::op_known(head[s].op) || !isa_pkg::op_on_stream(head[s].op, stream_e'(s)) ||
          (head[s] & ~inst_t'(isa_pkg::used_mask(head[s].op))) != '0 || !isa_pkg::groups_ok(head[s]) ||
          !isa_pkg::needs_ok(head[s]) || (head[s].op == isa_pkg::OpBranch && !isa_pkg::cond_known(head[s].cond))) begin
        dec_code[s] = isa_pkg::CtlErrIllegal;
      end else if (!isa_pkg::subst_ok(head[s], reg_q[s])) begin
        dec_code[s] = isa_pkg::CtlErrRange;
      end else if (head[s].op == isa_pkg::OpLoop && reg_q[s][head[s].rd] == '0) begin
        dec_code[s] = isa_pkg::CtlErrLoop;
      end else if (s == 32'(StreamVector) && lane && ve_chk != le_pkg::LeErrNone) begin
        dec_code[s] = isa_pkg::CtlErrVector;
        dec_detail[s] = ve_chk;
      end else if (s == 32'(StreamScalar) && lane && se_chk != le_pkg::LeErrNone) begin
        dec_code[s] = isa_pkg::CtlErrScalar;
        dec_detail[s] = se_chk;
      end else if (dma && (32'(head[s].queue) >= Queues || 32'(head[s].engine) >= DmaEngines)) begin
        dec_code[s] = isa_pkg::CtlErrIllegal;
      end else if (rl[s] && rl_chk[s] != dma_pkg::ErrNone) begin
        dec_code[s] = isa_pkg::CtlErrDma;
        dec_detail[s] = rl_chk[s];
      end else if (s == 32'(StreamSync) && dma && !rl[s] && dma_chk != dma_pkg::ErrNone) begin
        dec_code[s] = isa_pkg::CtlErrDma;
        dec_detail[s] = dma_chk;
      end
    end
  end

  // ---- stage: errors, fetch, wait and issue
  logic               live, go, err_now, any_add, slots_busy, dma_idle, done;
  ctl_err_e           err_now_code;
  logic [2:0]         err_now_detail;
  stream_e            err_now_stream;
  logic [PcBits-1:0]  err_now_pc;
  logic [Streams-1:0] wait_ok, unit_op, tag_op, dma_op, reg_busy, tag_free, valid, ready, waits;
  logic [Streams-1:0] dma_req, dma_gnt;
  // per stream (the sync stream has no tags and no unit report)
  logic [Streams-1:0] unit_err, tag_busy;
  logic [Streams-1:0][2:0] unit_err_code;
  logic [Streams-1:0][PcBits-1:0] unit_err_pc;
  logic [Sems-1:0][31:0] add;

  // a unit op's unit is ready: the engine of its stream, or the DMA port (the lowest stream that
  // asks for it has it)
  logic dma_lower;  // (the grant's loop: a lower stream asks)
  logic [Streams-1:0] eng_ready;
  assign eng_ready = {gp_ready_i, 1'b0, se_cmd_ready_i, ve_cmd_ready_i, te_cmd_ready_i};
  always_comb begin
    dma_lower = 1'b0;
    for (int unsigned s = 0; s < Streams; s++) begin
      dma_req[s] = valid[s] && dma_op[s];
      dma_gnt[s] = dma_req[s] && !dma_lower;
      dma_lower |= dma_req[s];
    end
  end
  always_comb begin
    for (int unsigned s = 0; s < Streams; s++) ready[s] = dma_op[s] ? dma_desc_ready_i && dma_gnt[s] : eng_ready[s];
  end
  // a head that names a register a reg_load has yet to write waits (and is not checked)
  always_comb begin
    for (int unsigned s = 0; s < Streams; s++) reg_busy[s] = (isa_pkg::regs_named(head[s]) & pend_q[s]) != '0;
  end

  assign unit_err = {gp_err_i && gp_slot_q.busy, 1'b0, se_cpl_i.err, ve_cpl_i.err, te_cpl_i.err};
  assign unit_err_code[StreamTensor] = 3'(te_cpl_i.code);
  assign unit_err_code[StreamVector] = 3'(ve_cpl_i.code);
  assign unit_err_code[StreamScalar] = 3'(se_cpl_i.code);
  assign unit_err_code[StreamSync] = 3'd0;
  assign unit_err_code[StreamGpsimd] = 3'(gp_code_i);
  assign unit_err_pc = {gp_slot_q.pc, PcBits'(0), slot_q[2][se_cpl_i.err_tag].pc, slot_q[1][ve_cpl_i.err_tag].pc,
                        slot_q[0][te_cpl_i.err_tag].pc};
  assign tag_busy = {gp_slot_q.busy, 1'b0, slot_q[2][tag_q[2]].busy, slot_q[1][tag_q[1]].busy,
                     slot_q[0][tag_q[0]].busy};
  assign live = running_q && !err_q;
  assign dma_idle = &dma_q_idle_i;

  always_comb begin
    slots_busy = gp_slot_q.busy;
    for (int unsigned e = 0; e < Engines; e++)
      for (int unsigned t = 0; t < Tags; t++) slots_busy |= slot_q[e][t].busy;
  end

  // the errors of this cycle, lowest stream first (the deadlock below)
  always_comb begin
    err_now = 1'b0;
    err_now_code = isa_pkg::CtlErrNone;
    err_now_detail = '0;
    err_now_stream = isa_pkg::StreamTensor;
    err_now_pc = '0;
    if (live) begin
      for (int unsigned s = 0; s < Streams; s++) begin
        if (!err_now) begin
          if (unit_err[s]) begin
            err_now = 1'b1;
            err_now_code = s == 32'(StreamGpsimd) ? isa_pkg::CtlErrGpsimd
                                                  : ctl_err_e'(4'(isa_pkg::CtlErrTensor) + 4'(s));
            err_now_detail = unit_err_code[s];
            err_now_stream = stream_e'(s);
            err_now_pc = unit_err_pc[s];
          end else if (head_valid[s] && !stale_q[s] && !reg_busy[s] && dec_code[s] != isa_pkg::CtlErrNone) begin
            err_now = 1'b1;
            err_now_code = dec_code[s];
            err_now_detail = dec_detail[s];
            err_now_stream = stream_e'(s);
            err_now_pc = head_pc[s];
          end
          if (!err_now && !fetched_end_q[s] && !head_valid[s] && {1'b0, pc_q[s]} >= Depth) begin
            err_now = 1'b1;
            err_now_code = isa_pkg::CtlErrImem;
            err_now_stream = stream_e'(s);
            err_now_pc = pc_q[s];
          end
        end
      end
    end
  end
  assign go = live && !err_now;

  // control flow: the register an instruction writes, and whether a branch or loop is taken
  logic [Streams-1:0]       taken, redirect, reg_we;
  logic [Streams-1:0][31:0] reg_wv, opa, opb;
  always_comb begin
    for (int unsigned s = 0; s < Streams; s++) begin
      opa[s] = reg_q[s][head[s].ra];
      opb[s] = reg_q[s][head[s].rb] + head[s].imm0;
      taken[s] = 1'b0;
      reg_we[s] = 1'b0;
      reg_wv[s] = '0;
      unique case (isa_pkg::op_e'(head[s].op))
        isa_pkg::OpRegSet: begin
          reg_we[s] = 1'b1;
          reg_wv[s] = opb[s];
        end
        isa_pkg::OpRegAdd: begin
          reg_we[s] = 1'b1;
          reg_wv[s] = opa[s] + opb[s];
        end
        isa_pkg::OpRegMul: begin
          reg_we[s] = 1'b1;
          reg_wv[s] = opa[s] * opb[s];
        end
        isa_pkg::OpBranch: begin
          unique case (isa_pkg::cond_e'(head[s].cond))
            isa_pkg::CondEq: taken[s] = opa[s] == opb[s];
            isa_pkg::CondNe: taken[s] = opa[s] != opb[s];
            isa_pkg::CondLt: taken[s] = $signed(opa[s]) < $signed(opb[s]);
            isa_pkg::CondGe: taken[s] = $signed(opa[s]) >= $signed(opb[s]);
            isa_pkg::CondLtu: taken[s] = opa[s] < opb[s];
            isa_pkg::CondGeu: taken[s] = opa[s] >= opb[s];
            default: taken[s] = 1'b0;
          endcase
        end
        isa_pkg::OpLoop: begin
          reg_we[s] = 1'b1;
          reg_wv[s] = reg_q[s][head[s].rd] - 32'd1;
          taken[s] = reg_wv[s] != '0;
        end
        default: ;
      endcase
    end
  end

  always_comb begin
    for (int unsigned s = 0; s < Streams; s++) begin
      wait_ok[s] = !head[s].wait_en || sem_q[head[s].wait_sem] >= {12'b0, eff[s].wait_val};
      unit_op[s] = isa_pkg::op_unit(head[s].op) != isa_pkg::UnitCtl;
      dma_op[s] = isa_pkg::op_unit(head[s].op) == isa_pkg::UnitDma;
      tag_op[s] = unit_op[s] && !dma_op[s];  // a tensor, lane or GpSimd op: it takes a tag (slot) of its engine
      tag_free[s] = !tag_op[s] || !tag_busy[s];
      valid[s] = go && head_valid[s] && !stale_q[s] && wait_ok[s] && tag_free[s] && !reg_busy[s];
      waits[s] = head_valid[s] && !stale_q[s] && !wait_ok[s];
    end
  end

  assign issue = valid & (~unit_op | ready);
  assign redirect = issue & taken;
  assign pop = issue | ({Streams{go}} & head_valid & stale_q);
  always_comb begin
    for (int unsigned s = 0; s < Streams; s++)
      fetch[s] = go && !fetched_end_q[s] && q_push_ready[s] && {1'b0, pc_q[s]} < Depth && !redirect[s];
  end

  // the units' completions: the tensor engine's two, the vector engine's, the scalar engine's
  logic [3:0]      done_v;
  logic [3:0][1:0] done_e;
  logic [3:0][3:0] done_t;
  assign done_v = {se_cpl_i.done, ve_cpl_i.done, te_cpl_i.mm_done, te_cpl_i.ls_done};
  assign done_e = {2'd2, 2'd1, 2'd0, 2'd0};
  assign done_t = {se_cpl_i.tag, ve_cpl_i.tag, te_cpl_i.mm_tag, te_cpl_i.ls_tag};

  // ---- semaphore additions (every source of the cycle counts)
  always_comb begin
    add = '0;
    any_add = 1'b0;
    for (int unsigned s = 0; s < Streams; s++) begin
      if (issue[s] && isa_pkg::done_at_issue(head[s].op) && head[s].post_en) begin
        add[head[s].post_sem] += {24'b0, head[s].post_val};
        any_add = 1'b1;
      end
    end
    for (int unsigned k = 0; k < 4; k++) begin
      if (done_v[k] && slot_q[done_e[k]][done_t[k]].busy && slot_q[done_e[k]][done_t[k]].post_en) begin
        add[slot_q[done_e[k]][done_t[k]].post_sem] += {24'b0, slot_q[done_e[k]][done_t[k]].post_val};
        any_add = 1'b1;
      end
    end
    if (gp_done_i && gp_slot_q.busy && gp_slot_q.post_en) begin
      add[gp_slot_q.post_sem] += {24'b0, gp_slot_q.post_val};
      any_add = 1'b1;
    end
    for (int unsigned i = 0; i < GpProcs; i++) begin
      if (gp_sem_add_i[i]) begin
        add[gp_sem_idx_i[i]] += gp_sem_val_i[i];
        any_add = 1'b1;
      end
    end
    if (sem_add_valid_i && !sem_add_reg_i) begin
      add[sem_add_idx_i] += sem_add_val_i;
      any_add = 1'b1;
    end
    if (sem_ext_valid_i) begin
      add[sem_ext_idx_i] += sem_ext_val_i;
      any_add = 1'b1;
    end
  end

  // ---- deadlock and done
  logic          deadlock, all_wait, some_wait, all_ended;
  stream_e       first_wait;
  always_comb begin
    all_wait = 1'b1;
    some_wait = 1'b0;
    first_wait = isa_pkg::StreamTensor;
    for (int s = Streams - 1; s >= 0; s--) begin
      if (!ended_q[s]) begin
        all_wait &= waits[s];
        some_wait |= waits[s];
        if (waits[s]) first_wait = stream_e'(s);
      end
    end
  end
  assign deadlock = go && !sem_ext_en_i && !slots_busy && pend_q == '0 && dma_idle && !any_add && all_wait &&
                    some_wait;
  assign all_ended = &ended_q;
  assign done = live && !err_now && !deadlock && all_ended && !slots_busy && pend_q == '0 && dma_idle;

  // ---- next state
  always_comb begin
    pc_d = pc_q;
    fetched_end_d = fetched_end_q;
    ended_d = ended_q;
    slot_d = slot_q;
    gp_slot_d = gp_slot_q;
    tag_d = tag_q;
    sem_d = sem_q;
    running_d = running_q;
    err_d = err_q;
    err_code_d = err_code_q;
    err_detail_d = err_detail_q;
    err_stream_d = err_stream_q;
    err_pc_d = err_pc_q;
    reg_d = reg_q;
    pend_d = pend_q;
    stale_d = stale_q & ~pop;
    if (start_i && !running_q && !err_q) begin
      // a new run (the queues are empty after reset and after done)
      pc_d = '0;
      fetched_end_d = ~Streams'(StreamsOn);
      ended_d = ~Streams'(StreamsOn);
      slot_d = '0;
      gp_slot_d = '0;
      tag_d = '0;
      sem_d = '0;
      reg_d = '0;
      pend_d = '0;
      stale_d = '0;
      running_d = 1'b1;
    end else begin
      for (int unsigned s = 0; s < Streams; s++) begin
        if (fetch[s]) begin
          if (fetch_word[s].op == isa_pkg::OpEnd) fetched_end_d[s] = 1'b1;
          pc_d[s] = pc_q[s] + 1'b1;
        end
        if (issue[s] && reg_we[s] && head[s].rd != '0) reg_d[s][head[s].rd] = reg_wv[s];
        if (issue[s] && rl[s] && head[s].rd != '0) pend_d[s][head[s].rd] = 1'b1;
        if (redirect[s]) begin
          pc_d[s] = head[s].target;
          fetched_end_d[s] = 1'b0;
          stale_d[s] = q_usage[s] == 2'd2;  // the word behind the branch
        end
      end
      // completions free their slots, issues take one
      for (int unsigned k = 0; k < 4; k++)
        if (done_v[k]) slot_d[done_e[k]][done_t[k]].busy = 1'b0;
      if (gp_done_i) gp_slot_d.busy = 1'b0;
      if (issue[StreamGpsimd] && tag_op[StreamGpsimd])
        gp_slot_d = '{busy: 1'b1, pc: head_pc[StreamGpsimd], post_en: head[StreamGpsimd].post_en,
                      post_sem: head[StreamGpsimd].post_sem, post_val: head[StreamGpsimd].post_val};
      for (int unsigned s = 0; s < Streams; s++)
        if (issue[s] && head[s].op == isa_pkg::OpEnd) ended_d[s] = 1'b1;
      for (int unsigned e = 0; e < Engines; e++) begin
        if (issue[e] && tag_op[e]) begin
          slot_d[e][tag_q[e]] = '{busy: 1'b1, pc: head_pc[e],
                                 post_en: !isa_pkg::done_at_issue(head[e].op) && head[e].post_en,
                                 post_sem: head[e].post_sem, post_val: head[e].post_val};
          tag_d[e] = tag_q[e] + 1'b1;
        end
      end
      for (int unsigned i = 0; i < Sems; i++) sem_d[i] = sem_q[i] + add[i];
      // a register load's word (a register it names is pending, so nothing else writes it now)
      if (sem_add_valid_i && sem_add_reg_i && sem_add_idx_i[3:0] != '0 && 32'(sem_add_stream_i) < Streams) begin
        reg_d[sem_add_stream_i][sem_add_idx_i[3:0]] = sem_add_val_i;
        pend_d[sem_add_stream_i][sem_add_idx_i[3:0]] = 1'b0;
      end
      if ((err_now || deadlock) && !err_q) begin
        err_d = 1'b1;
        err_code_d = deadlock ? isa_pkg::CtlErrDeadlock : err_now_code;
        err_detail_d = deadlock ? 3'd0 : err_now_detail;
        err_stream_d = deadlock ? first_wait : err_now_stream;
        err_pc_d = deadlock ? head_pc[first_wait] : err_now_pc;
      end
      if (done) running_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pc_q <= '0;
      fetched_end_q <= '0;
      ended_q <= '0;
      slot_q <= '0;
      gp_slot_q <= '0;
      tag_q <= '0;
      sem_q <= '0;
      running_q <= 1'b0;
      err_q <= 1'b0;
      err_code_q <= isa_pkg::CtlErrNone;
      err_detail_q <= '0;
      err_stream_q <= isa_pkg::StreamTensor;
      err_pc_q <= '0;
      reg_q <= '0;
      pend_q <= '0;
      stale_q <= '0;
    end else begin
      pc_q <= pc_d;
      fetched_end_q <= fetched_end_d;
      ended_q <= ended_d;
      slot_q <= slot_d;
      gp_slot_q <= gp_slot_d;
      tag_q <= tag_d;
      sem_q <= sem_d;
      running_q <= running_d;
      err_q <= err_d;
      err_code_q <= err_code_d;
      err_detail_q <= err_detail_d;
      err_stream_q <= err_stream_d;
      err_pc_q <= err_pc_d;
      reg_q <= reg_d;
      pend_q <= pend_d;
      stale_q <= stale_d;
    end
  end

  // ---- outputs
  assign te_cmd_valid_o = valid[StreamTensor] && tag_op[StreamTensor];
  assign te_cmd_o = te_cmd(eff[StreamTensor], tag_q[0]);
  assign ve_cmd_valid_o = valid[StreamVector] && tag_op[StreamVector];
  assign ve_cmd_o = ve_head_cmd;
  assign se_cmd_valid_o = valid[StreamScalar] && tag_op[StreamScalar];
  assign se_cmd_o = se_head_cmd;
  assign gp_start_o = valid[StreamGpsimd] && tag_op[StreamGpsimd];
  assign gp_entry_o = eff[StreamGpsimd].gp_entry;
  assign gp_args_o = eff[StreamGpsimd].gp_args;
  // the DMA port: the granted stream's descriptor (the sync stream's when none asks)
  always_comb begin
    dma_desc_engine_o = eff[StreamSync].engine;
    dma_desc_queue_o = eff[StreamSync].queue;
    dma_desc_o = head_desc[StreamSync];
    for (int s = Streams - 1; s >= 0; s--) begin
      if (dma_gnt[s]) begin
        dma_desc_engine_o = eff[s].engine;
        dma_desc_queue_o = eff[s].queue;
        dma_desc_o = head_desc[s];
      end
    end
  end
  assign dma_desc_valid_o = |dma_req;
  assign running_o = running_q;
  assign done_o = done;
  assign err_o = err_q;
  assign err_code_o = err_code_q;
  assign err_detail_o = err_detail_q;
  assign err_stream_o = err_stream_q;
  assign err_pc_o = err_pc_q;
  assign sem_o = sem_q;

  always_comb begin
    for (int unsigned s = 0; s < Streams; s++) begin
      if (err_q) st_o[s].state = isa_pkg::StHalt;
      else if (ended_q[s]) st_o[s].state = isa_pkg::StEnd;
      else if (!running_q) st_o[s].state = isa_pkg::StIdle;
      else if (waits[s]) st_o[s].state = isa_pkg::StWait;
      else if (head_valid[s] && !stale_q[s] && (reg_busy[s] || (unit_op[s] && !(ready[s] && tag_free[s]))))
        st_o[s].state = isa_pkg::StBusy;
      else st_o[s].state = isa_pkg::StRun;
      st_o[s].pc = head_valid[s] && !stale_q[s] ? head_pc[s] : pc_q[s];
      st_o[s].wait_sem = (head_valid[s] && !stale_q[s] && head[s].wait_en) ? head[s].wait_sem : '0;
      st_o[s].wait_val = (head_valid[s] && !stale_q[s] && head[s].wait_en) ? eff[s].wait_val : '0;
    end
  end

`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int unsigned s = 0; s < Streams; s++) begin
        // an instruction issues only when its wait holds: semaphore >= value at the start of the cycle
        a_wait_holds: assert (!(issue[s] && head[s].wait_en) || sem_q[head[s].wait_sem] >= {12'b0, eff[s].wait_val})
          else $error("stream %0d issued at pc %0d waiting for semaphore %0d >= %0d, which holds %0d", s, head_pc[s],
                      head[s].wait_sem, eff[s].wait_val, sem_q[head[s].wait_sem]);
        // a stale word is the one fetched behind a taken branch: it is in the queue until dropped
        a_stale_in_queue: assert (!stale_q[s] || head_valid[s])
          else $error("stream %0d: a stale word is marked with the queue empty", s);
        // r0 reads 0
        a_r0_zero: assert (reg_q[s][0] == '0) else $error("stream %0d: r0 is %0d", s, reg_q[s][0]);
      end
    end
  end
`endif
endmodule
