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
  parameter int unsigned Vlen = 128,  /// vector register bits (a power of two, >= 64)
  parameter int unsigned SbufBytes = 1024,  /// bytes of an SBUF partition
  parameter int unsigned Sems = 32,  /// the core's semaphores (at most 32)
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
  input  logic           host_vre_i,     /// read word host_addr_i % (Vlen/32) of vector register
                                         /// host_addr_i / (Vlen/32) into host_rdata_o (while not busy)
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
  output logic [   31:0] ret_st_data_o,  /// the word's new bytes, in the mask's lanes (others 0)
  output logic                   vw_o,       /// the vector unit writes a register this cycle:
  output logic [            4:0] vw_reg_o,   /// the register,
  output logic [$clog2(Vlen)-1:0] vw_off_o,  /// the bit offset of the element (or mask bit),
  output logic                   vw_bit_o,   /// one mask bit (else an element of SEW bits),
  output logic [           31:0] vw_data_o,  /// its value
  // SBUF (sb.load, sb.store): one word request a cycle, taken when sb_gnt_i; a read's word comes
  // back later with sb_rvalid_i, the reads in order
  input  logic [           15:0] part_lo_i,  /// the partitions this processor owns: [part_lo_i,
  input  logic [           15:0] part_hi_i,  /// part_hi_i)
  output logic                   sb_req_o,
  output logic                   sb_we_o,
  output logic [           15:0] sb_part_o,
  output logic [           31:0] sb_off_o,   /// the word's byte offset in the partition (4-aligned)
  output logic [            3:0] sb_mask_o,  /// the bytes written (a write)
  output logic [           31:0] sb_wdata_o,
  input  logic                   sb_gnt_i,
  input  logic                   sb_rvalid_i,
  input  logic [           31:0] sb_rdata_i,
  // the core's semaphores (sem.wait, sem.add)
  input  logic [Sems-1:0][31:0]  sem_i,      /// their values
  output logic                   sem_add_o,  /// add sem_val_o to semaphore sem_idx_o this cycle
  output logic [            4:0] sem_idx_o,
  output logic [           31:0] sem_val_o
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
      OpcCustom0:
      legal = (f3 == F3OpEnd && ir_q[31:15] == '0 && rd == '0) ||
              ((f3 == F3SemWait || f3 == F3SemAdd) && f7 == '0 && rd == '0);
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

  // ---- the vector unit (docs/gpsimd.md "The vector unit"): vtype and vl, the register file, and
  // one element a cycle of the instruction in ir_q
  localparam int unsigned VB = $clog2(Vlen);  // a bit's offset in a register
  logic [Vlen-1:0] vrf_q[32];
  logic [15:0] vl_q, vl_d;
  logic [1:0] vsew_q, vsew_d;  // SEW = 8 << vsew
  logic vlmul_q, vlmul_d;  // LMUL = 1 << vlmul
  logic vill_q, vill_d;
  logic [15:0] ve_q, ve_d;  // the element a vector instruction is at
  logic [31:0] acc_q, acc_d;  // a reduction's running value
  logic lp_q, lp_d;  // a load's element ve_q - 1 is in dr_q
  logic [15:0] sbr_q, sbr_d;  // sb.load / sb.store: the elements requested so far (ve_q: those done)

  // an element of width 8 << sew of a register group, or a mask bit
  function automatic logic [31:0] vread(logic [Vlen-1:0] lo, logic [Vlen-1:0] hi, logic [1:0] sew,
                                        logic [15:0] i);
    logic [31:0] bit_at;
    logic [2*Vlen-1:0] grp;
    logic [31:0] e;
    bit_at = 32'(i) << (3 + sew);
    grp = {hi, lo};
    e = 32'(grp >> bit_at);
    unique case (sew)
      2'd0: return {24'b0, e[7:0]};
      2'd1: return {16'b0, e[15:0]};
      default: return e;
    endcase
  endfunction
  function automatic logic [31:0] vsext(logic [31:0] e, logic [1:0] sew);
    unique case (sew)
      2'd0: return {{24{e[7]}}, e[7:0]};
      2'd1: return {{16{e[15]}}, e[15:0]};
      default: return e;
    endcase
  endfunction
  function automatic logic [31:0] vtrunc(logic [31:0] e, logic [1:0] sew);
    return vread({{(Vlen - 32) {1'b0}}, e}, '0, sew, '0);
  endfunction
  // FP32 a < b and a == b for values that are not NaN (+0 and -0 equal)
  function automatic logic flt_num(logic [31:0] x, logic [31:0] y);
    if ((x[30:0] | y[30:0]) == '0) return 1'b0;
    if (x[31] != y[31]) return x[31];
    return x[31] ? x[30:0] > y[30:0] : x[30:0] < y[30:0];
  endfunction
  function automatic logic fnan(logic [30:0] x);  // the sign does not matter
    return x[30:23] == 8'hFF && x[22:0] != '0;
  endfunction
  // vfmin / vfmax: minimumNumber / maximumNumber (a NaN gives the other operand; -0 below +0)
  function automatic logic [31:0] fminmax(logic [31:0] x, logic [31:0] y, logic mx);
    if (fnan(x[30:0]) && fnan(y[30:0])) return numerics_pkg::CanonicalNaN;
    if (fnan(x[30:0])) return y;
    if (fnan(y[30:0])) return x;
    if (x == y || (x[30:0] | y[30:0]) == '0) return mx ? (x & y) : (x | y);
    return (mx ? flt_num(y, x) : flt_num(x, y)) ? x : y;
  endfunction

  // decode
  logic is_v, vm;
  logic [5:0] f6;
  logic vsb;  // sb.load, sb.store: vector transfers with SBUF
  assign vsb = opc == OpcCustom0 && (f3 == F3SbLoad || f3 == F3SbStore);
  assign is_v = opc == OpcV || opc == OpcVLoad || opc == OpcVStore || vsb;
  assign vm = ir_q[25];
  assign f6 = ir_q[31:26];
  logic vcfg, vmem, vmvxs, vmvsx, vred, vcmp, vmerge, vslide, vgath, vew, vlegal;
  logic [2:0] vcmp_k;  // 0 eq, 1 ne, 2 ltu, 3 lt, 4 feq, 5 fle, 6 flt
  logic [1:0] vred_k;  // 0 sum, 1 max, 2 fp ordered sum
  vop_e vop;
  logic [15:0] vlmax;
  logic [31:0] vscal;  // the .vx / .vi operand at SEW
  always_comb begin
    logic ivv, fvv, mvv, ivi, ivx, mvx, iv, fp, eew_ok;
    logic [1:0] lm;
    ivv = f3 == 3'd0;
    fvv = f3 == 3'd1;
    mvv = f3 == 3'd2;
    ivi = f3 == 3'd3;
    ivx = f3 == 3'd4;
    mvx = f3 == 3'd6;
    iv = ivv || ivx || ivi;
    lm = vlmul_q ? 2'd2 : 2'd1;
    vlmax = 16'(Vlen * 32'(lm) >> (3 + vsew_q));
    vscal = ivi ? vtrunc({{27{rs1[4]}}, rs1}, vsew_q) : vtrunc(a, vsew_q);
    vcfg = opc == OpcV && f3 == 3'd7;
    vmem = opc == OpcVLoad || opc == OpcVStore;
    vmvxs = opc == OpcV && f6 == 6'h10 && mvv && rs1 == '0;
    vmvsx = opc == OpcV && f6 == 6'h10 && mvx && rs2 == '0;
    vred_k = mvv && f6 == 6'h00 ? 2'd0 : mvv && f6 == 6'h07 ? 2'd1 : 2'd2;
    vred = opc == OpcV && ((mvv && (f6 == 6'h00 || f6 == 6'h07)) || (fvv && f6 == 6'h03));
    vcmp_k = 3'd0;
    vcmp = 1'b0;
    if (opc == OpcV && iv && f6 == 6'h18) {vcmp, vcmp_k} = {1'b1, 3'd0};
    if (opc == OpcV && iv && f6 == 6'h19) {vcmp, vcmp_k} = {1'b1, 3'd1};
    if (opc == OpcV && (ivv || ivx) && f6 == 6'h1A) {vcmp, vcmp_k} = {1'b1, 3'd2};
    if (opc == OpcV && (ivv || ivx) && f6 == 6'h1B) {vcmp, vcmp_k} = {1'b1, 3'd3};
    if (opc == OpcV && fvv && f6 == 6'h18) {vcmp, vcmp_k} = {1'b1, 3'd4};
    if (opc == OpcV && fvv && f6 == 6'h19) {vcmp, vcmp_k} = {1'b1, 3'd5};
    if (opc == OpcV && fvv && f6 == 6'h1B) {vcmp, vcmp_k} = {1'b1, 3'd6};
    vmerge = opc == OpcV && iv && f6 == 6'h17;
    vslide = opc == OpcV && (ivx || ivi) && (f6 == 6'h0E || f6 == 6'h0F);
    vgath = opc == OpcV && ivv && f6 == 6'h0C;
    vop = VNone;
    if (opc == OpcV && iv) begin
      unique case (f6)
        6'h00: vop = VAdd;
        6'h02: vop = ivi ? VNone : VSub;
        6'h04: vop = ivi ? VNone : VMinu;
        6'h05: vop = ivi ? VNone : VMin;
        6'h06: vop = ivi ? VNone : VMaxu;
        6'h07: vop = ivi ? VNone : VMax;
        6'h09: vop = VAnd;
        6'h0A: vop = VOr;
        6'h0B: vop = VXor;
        6'h25: vop = VSll;
        6'h28: vop = VSrl;
        6'h29: vop = VSra;
        default: vop = VNone;
      endcase
    end else if (opc == OpcV && (mvv || mvx) && f6 == 6'h25) begin
      vop = VMul;
    end else if (opc == OpcV && fvv) begin
      unique case (f6)
        6'h00: vop = VFadd;
        6'h02: vop = VFsub;
        6'h04: vop = VFmin;
        6'h06: vop = VFmax;
        6'h24: vop = VFmul;
        6'h2C: vop = VFmacc;
        default: vop = VNone;
      endcase
    end
    vew = vop != VNone;
    fp = fvv;
    // legality: the rules of docs/gpsimd.md (and the reference's)
    eew_ok = (f3 == 3'd0 && vsew_q == 2'd0) || (f3 == 3'd5 && vsew_q == 2'd1) || (f3 == 3'd6 && vsew_q == 2'd2);
    if (vcfg) begin
      vlegal = !ir_q[31] || ir_q[31:30] == 2'b11;
    end else if (vill_q) begin
      vlegal = 1'b0;
    end else if (vsb) begin
      // funct7 0, or 1 (BF16 in SBUF) at SEW 32; a register group at LMUL 2
      vlegal = (f7 == 7'd0 || (f7 == 7'd1 && vsew_q == 2'd2)) && (!vlmul_q || !rd[0]);
    end else if (vmem) begin
      vlegal = eew_ok && ir_q[31:28] == '0 && (ir_q[27:26] == 2'b00 || ir_q[27:26] == 2'b10) &&
               (ir_q[27:26] != 2'b00 || rs2 == '0) && (!vlmul_q || !rd[0]) && (vm || rd != '0 || opc == OpcVStore);
    end else if (vmvxs || vmvsx) begin
      vlegal = vm;
    end else if (vred) begin
      vlegal = (!fp || vsew_q == 2'd2) && (!vlmul_q || !rs2[0]);
    end else if (vcmp) begin
      vlegal = (vcmp_k < 3'd4 || vsew_q == 2'd2) && (!vlmul_q || (!rs2[0] && rd != (rs2 | 5'd1))) &&
               (!(ivv || fvv) || !vlmul_q || (!rs1[0] && rd != (rs1 | 5'd1)));
    end else if (vmerge || vslide || vgath || vew) begin
      vlegal = (!vlmul_q || (!rd[0] && !rs2[0] && (!(ivv || fvv || mvv) || !rs1[0]))) && (vm || rd != '0) &&
               (!vmerge || !vm || rs2 == '0) && (!fp || vsew_q == 2'd2) &&
               (!vslide || f6 == 6'h0F || (rd[4:1] != rs2[4:1] || (!vlmul_q && rd != rs2))) &&
               (!vgath || ((rd[4:1] != rs2[4:1] || (!vlmul_q && rd != rs2)) &&
                           (rd[4:1] != rs1[4:1] || (!vlmul_q && rd != rs1))));
    end else begin
      vlegal = 1'b0;
    end
  end

  // sb.load / sb.store, the request side (apart from the grant and the answers, which the
  // execution block below takes): checked first, the partition owned, the offset aligned to the
  // element, the last byte inside the partition (docs/gpsimd.md "Custom instructions"); then
  // element sbr_q requested, one SBUF word
  logic v_sbreq;  // an SBUF word request
  logic [31:0] v_sboff, v_sbdata;
  logic [3:0] v_sbmask;
  logic [2:0] sb_eb;  // bytes an element in SBUF
  gp_err_e v_code;  // the transfer's stop (else v_mis / v_oor say)
  always_comb begin : sb_req_c
    logic [47:0] end_b;
    logic [31:0] sa, sd;  // the requested element's byte offset and (a store) value
    v_sbreq = 1'b0;
    v_sboff = '0;
    v_sbmask = '0;
    v_sbdata = '0;
    v_code = GpErrNone;
    sb_eb = f7[0] ? 3'd2 : 3'(1 << vsew_q);
    end_b = 48'(b) + 48'(vl_q) * 48'(sb_eb);
    sa = b + 32'(sbr_q) * 32'(sb_eb);
    sd = vread(vrf_q[rd], vrf_q[rd|5'd1], vsew_q, sbr_q);
    if (run_q && vsb && vlegal && !fe_q) begin
      if (vl_q != '0 && (a >= 32'(part_hi_i) || a < 32'(part_lo_i))) v_code = GpErrPartition;
      else if (vl_q != '0 && (b & 32'(3'(sb_eb - 3'd1))) != '0) v_code = GpErrMisaligned;
      else if (vl_q != '0 && end_b > 48'(SbufBytes)) v_code = GpErrAccess;
      if (v_code == GpErrNone) begin
        v_sbreq = sbr_q < vl_q;
        v_sboff = {sa[31:2], 2'b0};
        v_sbmask = sb_eb == 3'd1 ? 4'b0001 << sa[1:0] : sb_eb == 3'd2 ? 4'b0011 << sa[1:0] : 4'b1111;
        v_sbdata = (f7[0] ? {16'b0, bf16_rne(sd)} : sd) << {sa[1:0], 3'b0};
      end
    end
  end

  // execution: element ve_q this cycle
  logic v_retire, v_wen, v_err, v_mis, v_oor;  // the instruction is done; writes rd; stops
  logic [31:0] v_wv;
  logic vw, vwbit;  // a register write: an element of width SEW, or one mask bit
  logic [4:0] vw_reg;
  logic [VB:0] vw_off;  // the bit offset in the group from vw_reg (an element past the first register: the second)
  logic [31:0] vw_data;
  logic v_rgo, v_st;  // a load's read request; a store of an element
  logic [31:0] v_addr;  // its byte address
  logic [3:0] v_smask;
  logic [31:0] v_sdata;
  logic [31:0] v_a, v_b, v_d, v_r;  // vs2[i] (or the source of a slide or gather), op1, vd[i], the result
  logic v_act;  // element ve_q is active (unmasked, or its v0 bit set)
  always_comb begin
    logic [15:0] i, src;
    logic [31:0] stride, off, mx;
    logic last, in_src;
    logic [4:0] sh;
    i = ve_q;
    stride = '0;
    mx = '0;
    last = i + 16'd1 >= vl_q;
    v_retire = 1'b0;
    v_wen = 1'b0;
    v_wv = '0;
    v_err = 1'b0;
    v_mis = 1'b0;
    v_oor = 1'b0;
    vw = 1'b0;
    vwbit = 1'b0;
    vw_reg = rd;
    vw_off = '0;
    vw_data = '0;
    v_rgo = 1'b0;
    v_st = 1'b0;
    v_addr = '0;
    v_smask = '0;
    v_sdata = '0;
    ve_d = ve_q;
    acc_d = acc_q;
    lp_d = 1'b0;
    sbr_d = sbr_q;
    vl_d = vl_q;
    vsew_d = vsew_q;
    vlmul_d = vlmul_q;
    vill_d = vill_q;
    v_act = vm || vrf_q[0][i[VB-1:0]];
    v_b = (f3 == 3'd0 || f3 == 3'd1 || f3 == 3'd2) ? vread(vrf_q[rs1], vrf_q[rs1|5'd1], vsew_q, i) : vscal;
    v_d = vread(vrf_q[rd], vrf_q[rd|5'd1], vsew_q, i);
    off = f3 == 3'd3 ? {27'b0, rs1} : a;
    // the source element: vs2[i], vs2[i - off] (slide up), vs2[i + off] (slide down), vs2[vs1[i]]
    src = i;
    in_src = 1'b1;
    if (vslide && f6 == 6'h0E) src = i - off[15:0];
    if (vslide && f6 == 6'h0F) begin
      src = i + off[15:0];
      in_src = 32'(i) + off < 32'(vlmax) && off < 32'(vlmax);
    end
    if (vgath) begin
      src = v_b[15:0];
      in_src = v_b < 32'(vlmax);
    end
    v_a = in_src ? vread(vrf_q[rs2], vrf_q[rs2|5'd1], vsew_q, src) : '0;
    sh = v_b[4:0] & (5'(8 << vsew_q) - 5'd1);
    unique case (vop)
      VAdd: v_r = vtrunc(v_a + v_b, vsew_q);
      VSub: v_r = vtrunc(v_a - v_b, vsew_q);
      VMinu: v_r = v_a < v_b ? v_a : v_b;
      VMin: v_r = $signed(vsext(v_a, vsew_q)) < $signed(vsext(v_b, vsew_q)) ? v_a : v_b;
      VMaxu: v_r = v_a > v_b ? v_a : v_b;
      VMax: v_r = $signed(vsext(v_a, vsew_q)) > $signed(vsext(v_b, vsew_q)) ? v_a : v_b;
      VAnd: v_r = v_a & v_b;
      VOr: v_r = v_a | v_b;
      VXor: v_r = v_a ^ v_b;
      VSll: v_r = vtrunc(v_a << sh, vsew_q);
      VSrl: v_r = v_a >> sh;
      VSra: v_r = vtrunc(32'($signed(vsext(v_a, vsew_q)) >>> sh), vsew_q);
      VMul: v_r = vtrunc(v_a * v_b, vsew_q);
      VFadd: v_r = numerics_pkg::fp32_add_f(v_a, v_b);
      VFsub: v_r = numerics_pkg::fp32_add_f(v_a, {~v_b[31], v_b[30:0]});
      VFmul: v_r = numerics_pkg::fp32_mul_f(v_a, v_b);
      VFmin: v_r = fminmax(v_a, v_b, 1'b0);
      VFmax: v_r = fminmax(v_a, v_b, 1'b1);
      VFmacc: v_r = numerics_pkg::fp32_add_f(numerics_pkg::fp32_mul_f(v_b, v_a), v_d);
      default: v_r = v_a;  // slides, gathers
    endcase
    if (run_q && is_v && vlegal && !fe_q) begin
      if (vsb) begin
        // element ve_q done: a read's word back (the request side is sb_req_c's)
        if (v_code != GpErrNone) begin
          v_err = 1'b1;
        end else begin
          if (v_sbreq && sb_gnt_i) sbr_d = sbr_q + 16'd1;
          if (f3 == F3SbLoad && sb_rvalid_i) begin
            logic [1:0] eo;  // the element's byte in the word
            logic [31:0] w;
            eo = 2'(b + 32'(ve_q) * 32'(sb_eb));
            w = sb_rdata_i >> {eo, 3'b0};
            vw = 1'b1;
            vw_off = (VB + 1)'(32'(ve_q) << (3 + vsew_q));
            vw_data = f7[0] ? {w[15:0], 16'b0} : w;
            ve_d = ve_q + 16'd1;
          end
          if (f3 == F3SbStore && v_sbreq && sb_gnt_i) ve_d = ve_q + 16'd1;
          if (32'(ve_d) >= 32'(vl_q)) begin
            v_retire = 1'b1;
            ve_d = '0;
            sbr_d = '0;
          end
        end
      end else if (vcfg) begin
        // vsetvli / vsetivli: SEW 8, 16, 32 and LMUL 1, 2, else vill and vl = 0
        logic [2:0] vt_rsv, vt_sew, vt_mul;  // vtype's reserved bits [10:8], vsew, vlmul (vta and
        logic [31:0] avl;                    // vma are taken: this unit leaves tails and masked-off
        logic keep;                          // elements undisturbed, which agnostic allows)
        vt_rsv = ir_q[31] ? {1'b0, ir_q[29:28]} : ir_q[30:28];
        vt_sew = ir_q[25:23];
        vt_mul = ir_q[22:20];
        keep = !ir_q[31] && rs1 == '0 && rd == '0;
        avl = ir_q[31] ? {27'b0, rs1} : rs1 != '0 ? a : 32'hFFFF_FFFF;
        if (vt_rsv != '0 || vt_sew > 3'd2 || vt_mul > 3'd1) begin
          vill_d = 1'b1;
          vl_d = '0;
        end else begin
          vill_d = 1'b0;
          vsew_d = vt_sew[1:0];
          vlmul_d = vt_mul[0];
          mx = (Vlen << vt_mul[0]) >> (3 + vt_sew[1:0]);
          vl_d = keep ? (32'(vl_q) < mx ? vl_q : 16'(mx)) : (avl < mx ? 16'(avl) : 16'(mx));
        end
        v_retire = 1'b1;
        v_wen = 1'b1;
        v_wv = 32'(vl_d);
      end else if (vmvxs) begin
        v_retire = 1'b1;
        v_wen = 1'b1;
        v_wv = vsext(vread(vrf_q[rs2], vrf_q[rs2], vsew_q, '0), vsew_q);
      end else if (vmvsx) begin
        v_retire = 1'b1;
        vw = vl_q != '0;
        vw_off = '0;
        vw_data = vscal;
      end else if (vmem) begin
        // element i: its address (unit stride: EEW / 8 bytes apart), checked, then read or written;
        // a load writes element i - 1 (its word came back) in the same cycle
        stride = ir_q[27] ? b : 32'(1) << vsew_q;
        v_addr = a + stride * 32'(i);
        if (lp_q) begin
          vw = 1'b1;
          vw_off = (VB + 1)'(32'(16'(i - 16'd1)) << (3 + vsew_q));
          vw_data = vread({{(Vlen - 32) {1'b0}}, dr_q >> {acc_q[1:0], 3'b0}}, '0, vsew_q, '0);
        end
        if (i < vl_q && v_act) begin
          v_mis = (vsew_q == 2'd1 && v_addr[0]) || (vsew_q == 2'd2 && v_addr[1:0] != '0);
          v_oor = v_addr >= 32'(TcmBytes);
        end
        if (v_mis || v_oor) begin
          v_err = 1'b1;
        end else begin
          if (i < vl_q && v_act) begin
            v_rgo = opc == OpcVLoad;
            v_st = opc == OpcVStore;
            unique case (vsew_q)
              2'd0: v_smask = 4'b0001 << v_addr[1:0];
              2'd1: v_smask = 4'b0011 << v_addr[1:0];
              default: v_smask = 4'b1111;
            endcase
            v_sdata = v_d << {v_addr[1:0], 3'b0};
          end
          acc_d = v_addr;  // a load's byte offset in its word, for the next cycle
          lp_d = v_rgo;
          if (opc == OpcVLoad ? i >= vl_q : last) begin
            v_retire = 1'b1;
            ve_d = '0;
          end else begin
            ve_d = i + 16'd1;
          end
        end
      end else if (vred) begin
        // vd[0] = vs1[0] op the active vs2[i], in order; nothing when vl = 0
        logic [31:0] cur, nx;
        cur = i == '0 ? vread(vrf_q[rs1], vrf_q[rs1], vsew_q, '0) : acc_q;
        unique case (vred_k)
          2'd0: nx = vtrunc(cur + v_a, vsew_q);
          2'd1: nx = $signed(vsext(v_a, vsew_q)) > $signed(vsext(cur, vsew_q)) ? v_a : cur;
          default: nx = numerics_pkg::fp32_add_f(cur, v_a);
        endcase
        acc_d = v_act ? nx : cur;
        if (last) begin  // also vl = 0: nothing done
          v_retire = 1'b1;
          ve_d = '0;
          vw = vl_q != '0;
          vw_reg = rd;
          vw_off = '0;
          vw_data = acc_d;
        end else begin
          ve_d = i + 16'd1;
        end
      end else begin
        // element-wise, compares, merges, slides, gathers: element i written (if active)
        if (vl_q != '0) begin
          if (vcmp) begin
            logic t;
            unique case (vcmp_k)
              3'd0: t = v_a == v_b;
              3'd1: t = v_a != v_b;
              3'd2: t = v_a < v_b;
              3'd3: t = $signed(vsext(v_a, vsew_q)) < $signed(vsext(v_b, vsew_q));
              3'd4: t = !fnan(v_a[30:0]) && !fnan(v_b[30:0]) && !flt_num(v_a, v_b) && !flt_num(v_b, v_a);
              3'd5: t = !fnan(v_a[30:0]) && !fnan(v_b[30:0]) && !flt_num(v_b, v_a);
              default: t = !fnan(v_a[30:0]) && !fnan(v_b[30:0]) && flt_num(v_a, v_b);
            endcase
            vw = v_act;
            vwbit = 1'b1;
            vw_off = {1'b0, i[VB-1:0]};
            vw_data = {31'b0, t};
          end else begin
            vw = vmerge || (v_act && !(vslide && f6 == 6'h0E && 32'(i) < off));
            vw_off = (VB + 1)'(32'(i) << (3 + vsew_q));
            vw_data = vmerge ? (vm || vrf_q[0][i[VB-1:0]] ? v_b : v_a) : v_r;
          end
        end
        if (last) begin  // also vl = 0: nothing done
          v_retire = 1'b1;
          ve_d = '0;
        end else begin
          ve_d = i + 16'd1;
        end
      end
    end
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
      end else if (is_v) begin
        if (!vlegal) code = GpErrIllegal;
        else if (v_err) code = v_code != GpErrNone ? v_code : v_mis ? GpErrMisaligned : GpErrAccess;
        else begin
          retire = v_retire;
          wen = v_wen;
          wv = v_wv;
        end
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
          default: begin  // custom-0: op.end, sem.wait, sem.add (sb.load and sb.store are the vector unit's)
            if (f3 == F3OpEnd) begin
              retire = 1'b1;
              stop = 1'b1;
            end else if (a >= 32'(Sems)) begin
              code = GpErrSem;
            end else begin
              retire = f3 == F3SemAdd || sem_i[a[4:0]] >= b;  // a wait holds until the value is there
            end
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
  assign dre = ld_go || v_rgo || (!run_q && host_re_i);
  assign dw = !run_q ? host_addr_i : is_v ? v_addr[WAW+1:2] : ea[WAW+1:2];
  assign mwe = (retire && st_mask != '0) || v_st || (!run_q && host_we_i);
  assign mmask = !run_q ? 4'b1111 : is_v ? v_smask : st_mask;
  assign mwa = !run_q ? host_addr_i : is_v ? v_addr[WAW+1:2] : ea[WAW+1:2];
  assign mwd = !run_q ? host_wdata_i : is_v ? v_sdata : st_data;

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
    if (!run_q && host_vre_i) dr_d = 32'(vrf_q[host_addr_i[VB-1:VB-5]] >> {host_addr_i[VB-6:0], 5'b0});
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
      vl_q <= '0;
      vsew_q <= '0;
      vlmul_q <= 1'b0;
      vill_q <= 1'b1;
      ve_q <= '0;
      acc_q <= '0;
      lp_q <= 1'b0;
      sbr_q <= '0;
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
      // a start: the vector state as after reset (vill: no vector instruction before a vsetvli)
      vl_q <= start ? '0 : vl_d;
      vsew_q <= start ? '0 : vsew_d;
      vlmul_q <= start ? 1'b0 : vlmul_d;
      vill_q <= start ? 1'b1 : vill_d;
      ve_q <= start || v_err ? '0 : ve_d;
      acc_q <= start ? '0 : acc_d;
      lp_q <= start ? 1'b0 : lp_d;
      sbr_q <= start || v_err ? '0 : sbr_d;
    end
  end

  // the vector registers: cleared by a start, one element or mask bit written a cycle
  logic [4:0] vw_r;
  logic [VB-1:0] vw_o_off;
  logic [31:0] vw_mask;
  assign vw_r = vw_reg + 5'(vw_off[VB]);
  assign vw_o_off = vw_off[VB-1:0];
  assign vw_mask = vwbit ? 32'd1 : vtrunc('1, vsew_q);
  logic [31:0] vw_val;
  assign vw_val = vw_data & vw_mask;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int r = 0; r < 32; r++) vrf_q[r] <= '0;
    end else if (start) begin
      for (int r = 0; r < 32; r++) vrf_q[r] <= '0;
    end else if (vw) begin
      vrf_q[vw_r] <= (vrf_q[vw_r] & ~(Vlen'(vw_mask) << vw_o_off)) | (Vlen'(vw_val) << vw_o_off);
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
  assign vw_o = vw;
  assign vw_reg_o = vw ? vw_r : '0;
  assign vw_off_o = vw ? vw_o_off : '0;
  assign vw_bit_o = vw && vwbit;
  assign vw_data_o = vw ? vw_data & vw_mask : '0;
  assign sb_req_o = v_sbreq;
  assign sb_we_o = v_sbreq && f3 == F3SbStore;
  assign sb_part_o = v_sbreq ? a[15:0] : '0;
  assign sb_off_o = v_sbreq ? v_sboff : '0;
  assign sb_mask_o = v_sbreq ? v_sbmask : '0;
  assign sb_wdata_o = v_sbreq && f3 == F3SbStore ? v_sbdata : '0;
  assign sem_add_o = retire && opc == OpcCustom0 && f3 == F3SemAdd;
  assign sem_idx_o = sem_add_o ? a[4:0] : '0;
  assign sem_val_o = sem_add_o ? b : '0;
endmodule
