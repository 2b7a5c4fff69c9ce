// gpsimd_proc — one GpSimd processor (SPEC 5.8, docs/gpsimd.md): an RV32IM scalar core in machine
// mode without interrupts, executing from its local memory (TcmBytes of code and data).
//
// Timing (the model, model/gpsimd/proc.hpp, keeps it): the local memory reads synchronously, one
// port for instructions, one for data. The word an instruction needs is fetched at the edge its
// predecessor retires on, so a retiring instruction decides the next fetch address the same cycle:
//   - every instruction takes one cycle, jumps and taken branches too;
//   - a load takes two (its address to the data port, then its word back);
//   - a division or remainder takes gpsimd_pkg::DivCycles (one quotient bit a cycle).
// A store writes at its retiring edge; a fetch of the same word at that edge reads the old word.
//
// start_i (while not busy) clears the registers, sets a0 = arg0_i and a1 = arg1_i, and fetches
// entry_i. The processor runs until op.end retires (done_o) or an error stops it (err_o, with the
// code and the pc gpsimd_pkg::gp_err_e gives); an instruction that errs changes nothing.
// The host port reads and writes local memory words while the processor is not busy.
// The retire outputs trace every instruction that completes: its pc and word, the register it
// writes and the value (0 and 0 for none), and the bytes it stores.
module gpsimd_proc
  import gpsimd_pkg::*;
#(
  parameter int unsigned TcmBytes = 4096,  /// local memory (a power of two, >= 64)
  localparam int unsigned Words = TcmBytes / 4,
  localparam int unsigned WAW = $clog2(Words)
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           start_i,        /// start at entry_i (ignored while busy_o)
  input  logic [   31:0] entry_i,
  input  logic [   31:0] arg0_i,         /// a0 at the start (the processor's index)
  input  logic [   31:0] arg1_i,         /// a1 at the start (the operator's argument address)
  output logic           busy_o,
  output logic           done_o,         /// op.end retired since the last start
  output logic           err_o,          /// stopped by an error since the last start
  output gp_err_e        err_code_o,
  output logic [   31:0] err_pc_o,
  input  logic           host_we_i,      /// write host_wdata_i to word host_addr_i (while not busy)
  input  logic           host_re_i,      /// read word host_addr_i into host_rdata_o (while not busy)
  input  logic [WAW-1:0] host_addr_i,
  input  logic [   31:0] host_wdata_i,
  output logic [   31:0] host_rdata_o,   /// the word of the last read
  output logic           ret_o,          /// an instruction retires this cycle
  output logic [   31:0] ret_pc_o,
  output logic [   31:0] ret_insn_o,
  output logic [    4:0] ret_rd_o,       /// the register it writes (0: none)
  output logic [   31:0] ret_wdata_o,    /// the value written (0 when ret_rd_o is 0)
  output logic [    3:0] ret_st_mask_o,  /// the bytes of the word it stores (0: no store)
  output logic [   31:0] ret_st_addr_o,  /// that word's byte address
  output logic [   31:0] ret_st_data_o   /// the word's new bytes, in the mask's lanes (others 0)
);
  // ---- state
  logic [31:0] mem_q[Words];  // local memory
  logic [31:0] regs_q[32];  // x0 .. x31 (x0 is never written)
  logic run_q, run_d;
  logic done_q, done_d;
  logic err_q, err_d;
  gp_err_e err_code_q, err_code_d;
  logic [31:0] err_pc_q, err_pc_d;
  logic [31:0] ir_q, ir_d;  // the fetched word (the fetch port's read register)
  logic [31:0] pc_q, pc_d;  // its address
  logic fe_q, fe_d;  // ... which was outside local memory: nothing was read
  logic [31:0] dr_q, dr_d;  // the data port's read register
  logic ld_q, ld_d;  // a load's second cycle: its word is in dr_q
  logic dv_q, dv_d;  // a division in progress
  logic [5:0] dcnt_q, dcnt_d;  // quotient bits still to find
  logic [31:0] quo_q, quo_d, rem_q, rem_d, dsor_q, dsor_d;

  // ---- decode
  logic [6:0] opc;
  logic [4:0] rd, rs1, rs2;
  logic [2:0] f3;
  logic [6:0] f7;
  logic [31:0] imm_i, imm_s, imm_b, imm_u, imm_j, a, b;
  assign opc = ir_q[6:0];
  assign rd = ir_q[11:7];
  assign f3 = ir_q[14:12];
  assign rs1 = ir_q[19:15];
  assign rs2 = ir_q[24:20];
  assign f7 = ir_q[31:25];
  assign imm_i = {{20{ir_q[31]}}, ir_q[31:20]};
  assign imm_s = {{20{ir_q[31]}}, ir_q[31:25], ir_q[11:7]};
  assign imm_b = {{19{ir_q[31]}}, ir_q[31], ir_q[7], ir_q[30:25], ir_q[11:8], 1'b0};
  assign imm_u = {ir_q[31:12], 12'b0};
  assign imm_j = {{11{ir_q[31]}}, ir_q[31], ir_q[19:12], ir_q[20], ir_q[30:21], 1'b0};
  assign a = regs_q[rs1];
  assign b = regs_q[rs2];

  logic legal;
  always_comb begin
    unique case (opc)
      OpcLui, OpcAuipc, OpcJal: legal = 1'b1;
      OpcJalr: legal = f3 == 3'd0;
      OpcBranch: legal = f3 != 3'd2 && f3 != 3'd3;
      OpcLoad: legal = f3 != 3'd3 && f3 != 3'd6 && f3 != 3'd7;
      OpcStore: legal = f3 <= 3'd2;
      OpcOpImm:
      legal = f3 == 3'd1 ? f7 == 7'b0 : f3 == 3'd5 ? (f7 == 7'b0 || f7 == 7'b0100000) : 1'b1;
      OpcOp: legal = f7 == 7'b0 || f7 == 7'b0000001 || (f7 == 7'b0100000 && (f3 == 3'd0 || f3 == 3'd5));
      OpcMiscMem: legal = f3 == 3'd0;
      OpcCustom0: legal = f3 == F3OpEnd && ir_q[31:15] == '0 && rd == '0;
      default: legal = 1'b0;
    endcase
  end

  // the integer operations of OP and OP-IMM (f3, and bit 30 for sub and sra); shift by y[4:0]
  function automatic logic [31:0] alu(logic [2:0] op, logic alt, logic [31:0] x, logic [31:0] y);
    unique case (op)
      3'd0: return alt ? x - y : x + y;
      3'd1: return x << y[4:0];
      3'd2: return {31'b0, $signed(x) < $signed(y)};
      3'd3: return {31'b0, x < y};
      3'd4: return x ^ y;
      3'd5: return alt ? 32'($signed(x) >>> y[4:0]) : x >> y[4:0];
      3'd6: return x | y;
      default: return x & y;
    endcase
  endfunction

  // the products of MUL, MULH, MULHSU, MULHU (f3 0 .. 3)
  logic [63:0] prod;
  always_comb begin
    unique case (f3[1:0])
      2'd1: prod = 64'($signed({a[31], a}) * $signed({b[31], b}));
      2'd2: prod = 64'($signed({a[31], a}) * $signed({1'b0, b}));
      default: prod = {32'b0, a} * {32'b0, b};
    endcase
  end

  // ---- the instruction in ir_q: what it does this cycle
  logic is_m, is_div, sgn, neg_q, neg_r;
  logic [31:0] ea, br_t, nxt, wv, st_data;
  logic [3:0] st_mask;
  logic retire, stop, wen, mis, oor, taken, ld_go;
  gp_err_e code;
  logic [31:0] lw;
  logic [32:0] r33;
  logic ge;
  assign is_m = opc == OpcOp && f7 == 7'b0000001;
  assign is_div = is_m && f3[2];
  assign sgn = !f3[0];  // div, rem
  assign ea = a + (opc == OpcStore ? imm_s : imm_i);
  assign mis = (f3[1:0] == 2'd1 && ea[0]) || (f3[1:0] == 2'd2 && ea[1:0] != 2'd0);
  assign oor = ea >= 32'(TcmBytes);
  assign neg_q = sgn && (a[31] ^ b[31]) && b != '0;
  assign neg_r = sgn && a[31];
  // a restoring division step: the next dividend bit into the partial remainder
  assign r33 = {rem_q, quo_q[31]};
  assign ge = r33 >= {1'b0, dsor_q};
  // the loaded word, shifted and extended by f3
  always_comb begin
    logic [31:0] sh;
    sh = dr_q >> {ea[1:0], 3'b0};
    unique case (f3)
      3'd0: lw = {{24{sh[7]}}, sh[7:0]};
      3'd1: lw = {{16{sh[15]}}, sh[15:0]};
      3'd4: lw = {24'b0, sh[7:0]};
      3'd5: lw = {16'b0, sh[15:0]};
      default: lw = sh;
    endcase
  end

  always_comb begin
    logic [31:0] c;
    retire = 1'b0;
    stop = 1'b0;
    wen = 1'b0;
    wv = '0;
    nxt = pc_q + 32'd4;
    code = GpErrNone;
    st_mask = '0;
    st_data = '0;
    ld_go = 1'b0;
    taken = 1'b0;
    br_t = pc_q + imm_b;
    dv_d = dv_q;
    dcnt_d = dcnt_q;
    quo_d = quo_q;
    rem_d = rem_q;
    dsor_d = dsor_q;
    c = '0;
    if (run_q) begin
      if (fe_q) begin
        code = GpErrFetch;
      end else if (!legal) begin
        code = GpErrIllegal;
      end else begin
        unique case (opc)
          OpcLui: begin
            retire = 1'b1;
            wen = 1'b1;
            wv = imm_u;
          end
          OpcAuipc: begin
            retire = 1'b1;
            wen = 1'b1;
            wv = pc_q + imm_u;
          end
          OpcJal, OpcJalr: begin
            c = opc == OpcJal ? pc_q + imm_j : (a + imm_i) & ~32'd1;
            if (c[1]) begin
              code = GpErrMisaligned;
            end else begin
              retire = 1'b1;
              wen = 1'b1;
              wv = pc_q + 32'd4;
              nxt = c;
            end
          end
          OpcBranch: begin
            unique case (f3)
              3'd0: taken = a == b;
              3'd1: taken = a != b;
              3'd4: taken = $signed(a) < $signed(b);
              3'd5: taken = $signed(a) >= $signed(b);
              3'd6: taken = a < b;
              default: taken = a >= b;
            endcase
            if (taken && br_t[1]) begin
              code = GpErrMisaligned;
            end else begin
              retire = 1'b1;
              if (taken) nxt = br_t;
            end
          end
          OpcLoad: begin
            if (mis) code = GpErrMisaligned;
            else if (oor) code = GpErrAccess;
            else if (!ld_q) ld_go = 1'b1;
            else begin
              retire = 1'b1;
              wen = 1'b1;
              wv = lw;
            end
          end
          OpcStore: begin
            if (mis) code = GpErrMisaligned;
            else if (oor) code = GpErrAccess;
            else begin
              retire = 1'b1;
              unique case (f3[1:0])
                2'd0: st_mask = 4'b0001 << ea[1:0];
                2'd1: st_mask = 4'b0011 << ea[1:0];
                default: st_mask = 4'b1111;
              endcase
              st_data = (b << {ea[1:0], 3'b0}) & {{8{st_mask[3]}}, {8{st_mask[2]}}, {8{st_mask[1]}}, {8{st_mask[0]}}};
            end
          end
          OpcOpImm: begin
            retire = 1'b1;
            wen = 1'b1;
            wv = alu(f3, f3 == 3'd5 && ir_q[30], a, imm_i);
          end
          OpcOp: begin
            if (!is_m) begin
              retire = 1'b1;
              wen = 1'b1;
              wv = alu(f3, ir_q[30], a, b);
            end else if (!is_div) begin
              retire = 1'b1;
              wen = 1'b1;
              wv = f3[1:0] == 2'd0 ? prod[31:0] : prod[63:32];
            end else if (!dv_q) begin
              // start: the magnitudes (unsigned ops: the operands)
              dv_d = 1'b1;
              dcnt_d = 6'(DivCycles - 2);  // 32 quotient bits
              quo_d = sgn && a[31] ? -a : a;
              rem_d = '0;
              dsor_d = sgn && b[31] ? -b : b;
            end else if (dcnt_q != '0) begin
              dcnt_d = dcnt_q - 6'd1;
              quo_d = {quo_q[30:0], ge};
              rem_d = ge ? 32'(r33 - {1'b0, dsor_q}) : r33[31:0];
            end else begin
              dv_d = 1'b0;
              retire = 1'b1;
              wen = 1'b1;
              if (f3[1]) wv = neg_r ? -rem_q : rem_q;
              else wv = neg_q ? -quo_q : quo_q;
            end
          end
          OpcMiscMem: retire = 1'b1;  // fence: one hart, one memory; nothing to order
          default: begin  // op.end (the only legal custom-0 instruction)
            retire = 1'b1;
            stop = 1'b1;
          end
        endcase
      end
    end
  end

  // ---- next state
  logic start, fetch, fbad;
  logic [31:0] fa;
  logic [WAW-1:0] dw;  // the data port's word
  logic dre;
  logic mwe;
  logic [3:0] mmask;
  logic [WAW-1:0] mwa;
  logic [31:0] mwd;
  assign start = start_i && !run_q;
  assign fetch = start || (retire && !stop);
  assign fa = start ? entry_i : nxt;
  assign fbad = fa[1:0] != 2'd0 || fa >= 32'(TcmBytes);
  assign dre = ld_go || (!run_q && host_re_i);
  assign dw = run_q ? ea[WAW+1:2] : host_addr_i;
  assign mwe = (retire && st_mask != '0) || (!run_q && host_we_i);
  assign mmask = run_q ? st_mask : 4'b1111;
  assign mwa = run_q ? ea[WAW+1:2] : host_addr_i;
  assign mwd = run_q ? st_data : host_wdata_i;

  always_comb begin
    run_d = run_q;
    done_d = done_q;
    err_d = err_q;
    err_code_d = err_code_q;
    err_pc_d = err_pc_q;
    ir_d = ir_q;
    pc_d = pc_q;
    fe_d = fe_q;
    dr_d = dre ? mem_q[dw] : dr_q;
    ld_d = ld_go;
    if (start) begin
      run_d = 1'b1;
      done_d = 1'b0;
      err_d = 1'b0;
      err_code_d = GpErrNone;
      err_pc_d = '0;
    end else if (code != GpErrNone) begin
      run_d = 1'b0;
      err_d = 1'b1;
      err_code_d = code;
      err_pc_d = pc_q;  // a fetch error's pc_q is the address fetched
    end else if (stop) begin
      run_d = 1'b0;
      done_d = 1'b1;
    end
    if (fetch) begin
      pc_d = fa;
      fe_d = fbad;
      ir_d = fbad ? ir_q : mem_q[fa[WAW+1:2]];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
      done_q <= 1'b0;
      err_q <= 1'b0;
      err_code_q <= GpErrNone;
      err_pc_q <= '0;
      ir_q <= '0;
      pc_q <= '0;
      fe_q <= 1'b0;
      dr_q <= '0;
      ld_q <= 1'b0;
      dv_q <= 1'b0;
      dcnt_q <= '0;
      quo_q <= '0;
      rem_q <= '0;
      dsor_q <= '0;
    end else begin
      run_q <= run_d;
      done_q <= done_d;
      err_q <= err_d;
      err_code_q <= err_code_d;
      err_pc_q <= err_pc_d;
      ir_q <= ir_d;
      pc_q <= pc_d;
      fe_q <= fe_d;
      dr_q <= dr_d;
      ld_q <= ld_d;
      dv_q <= dv_d;
      dcnt_q <= dcnt_d;
      quo_q <= quo_d;
      rem_q <= rem_d;
      dsor_q <= dsor_d;
    end
  end

  // the register file: cleared by a start (a0, a1 set), written by a retiring instruction
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < 32; i++) regs_q[i] <= '0;
    end else if (start) begin
      for (int i = 0; i < 32; i++) regs_q[i] <= i == 10 ? arg0_i : i == 11 ? arg1_i : '0;
    end else if (retire && wen && rd != '0) begin
      regs_q[rd] <= wv;
    end
  end

  // local memory: one write port (a store, or the host while idle), byte lanes
  always_ff @(posedge clk_i) begin
    if (mwe)
      for (int l = 0; l < 4; l++) if (mmask[l]) mem_q[mwa][8*l+:8] <= mwd[8*l+:8];
  end

  assign busy_o = run_q;
  assign done_o = done_q;
  assign err_o = err_q;
  assign err_code_o = err_code_q;
  assign err_pc_o = err_pc_q;
  assign host_rdata_o = dr_q;
  assign ret_o = retire;
  assign ret_pc_o = retire ? pc_q : '0;
  assign ret_insn_o = retire ? ir_q : '0;
  assign ret_rd_o = retire && wen ? rd : '0;
  assign ret_wdata_o = retire && wen && rd != '0 ? wv : '0;
  assign ret_st_mask_o = retire ? st_mask : '0;
  assign ret_st_addr_o = retire && st_mask != '0 ? {ea[31:2], 2'b0} : '0;
  assign ret_st_data_o = retire ? st_data : '0;
endmodule
