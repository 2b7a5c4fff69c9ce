// lane_engine — the vector engine (Engine = 0) and the scalar (activation) engine (Engine = 1) of
// SPEC 5.3: Lanes FP32 lanes, one per partition, streaming tensors from two read ports to one
// write port (model: trn::vector::LaneEngine; instruction set and timing in docs/vector.md).
//   Instructions over cmd_valid_i / cmd_ready_o, one at a time (cmd_ready_o while idle). Each is
//   checked as it is accepted: an illegal one raises cpl_o.err with its code the next cycle and reads
//   and writes nothing (le_pkg::le_err_e: access pattern, partition range, type, op).
//   Memory ports: SBUF's engine ports (sbuf_pkg::e_req_t): a request names one element (its size
//   from the operand's type, its element index from the instruction's byte address and the access
//   pattern) in every partition at once; responses carry the element zero-extended to 32 bits per
//   partition, come back in order, one per request, and are always accepted. Writes: wr_valid_o
//   until wr_ready_i, with a partition mask. quantize_mx writes each output element twice: the
//   codes, then the block's E8M0 scale byte in the block's first partition at sc_addr + offset.
//   Prologue: per-partition operands of tensor_scalar / activate are read on port 1 (s0, then s1).
//   Stream: each port issues one read per cycle along the 4-D access pattern while reads in flight
//   plus FIFO entries < FifoDepth; a step takes the FIFO heads, computes every lane and, when it
//   produces an element, loads the output register (free when empty or written this cycle).
//   cpl_o.done (with the tag) the cycle after the last write was accepted.
module lane_engine import numerics_pkg::*; import le_pkg::*; import sbuf_pkg::e_req_t; import sbuf_pkg::esize_e; #(
  parameter int unsigned Lanes = 4,
  parameter int unsigned SbufBytes = 1024,
  parameter int unsigned PsumBanks = 8,       /// PSUM banks ...
  parameter int unsigned PsumBankBytes = 64,  /// ... of this many bytes per partition
  parameter int unsigned Engine = 0,     /// 0 vector engine, 1 scalar engine
  parameter int unsigned FifoDepth = 8,  /// read FIFO entries per port
  localparam int unsigned PsumBytes = PsumBanks * PsumBankBytes,
  localparam int unsigned LW = Lanes * 32,
  localparam int unsigned G = (Lanes < 32) ? Lanes : 32,  // transpose group, MX block
  localparam int unsigned CW = $clog2(FifoDepth + 1),
  localparam int unsigned PW = (FifoDepth > 1) ? $clog2(FifoDepth) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // instructions
  input  logic              cmd_valid_i,
  output logic              cmd_ready_o,
  input  instr_t            cmd_i,           /// le_pkg::instr_t (docs/vector.md)
  // read ports
  output logic              rd0_req_valid_o,
  input  logic              rd0_req_ready_i,
  output e_req_t            rd0_req_o,
  input  logic              rd0_rsp_valid_i,
  input  logic [LW-1:0]     rd0_rsp_data_i,
  output logic              rd1_req_valid_o,
  input  logic              rd1_req_ready_i,
  output e_req_t            rd1_req_o,
  input  logic              rd1_rsp_valid_i,
  input  logic [LW-1:0]     rd1_rsp_data_i,
  // write port
  output logic              wr_valid_o,
  input  logic              wr_ready_i,
  output e_req_t            wr_o,
  output logic [Lanes-1:0]  wr_mask_o,
  output logic [LW-1:0]     wr_data_o,
  // status
  output le_cpl_t           cpl_o,           /// done and refused instructions, with their tags
  output logic [LW-1:0]     acc_o,           /// the scalar engine's per-lane accumulators
  output logic              busy_o
);
  typedef enum logic [1:0] {StIdle = 2'd0, StPro = 2'd1, StRun = 2'd2} st_e;
  typedef logic [63:0] idx_t;  // 4 x 16-bit indices, dim 0 in bits 15:0
  localparam int unsigned TW = $clog2(G);

  instr_t cmd;
  assign cmd = cmd_i;

  // ---- state
  st_e              st_q;
  instr_t           ins_q;
  logic             idom_q;
  idx_t             idx0_q, idx1_q, cidx_q, oidx_q;
  logic [1:0]       iss_done_q;
  logic [CW-1:0]    outst0_q, outst1_q, cnt0_q, cnt1_q;
  logic [PW-1:0]    rp0_q, wp0_q, rp1_q, wp1_q;
  logic [LW-1:0]    fifo0_q [FifoDepth];
  logic [LW-1:0]    fifo1_q [FifoDepth];
  logic [1:0]       pro_iss_q, pro_rcv_q;
  logic [LW-1:0]    s0_q, s1_q, red_q, acc_q, rng_q;
  logic             c_done_q, tph_q;
  logic [5:0]       tcnt_q;
  logic [LW-1:0]    tbuf_q [G];
  logic             wv_q;
  e_req_t           wreq_q;
  logic [Lanes-1:0] wmask_q;
  logic [LW-1:0]    wdata_q;
  logic             sc_q;       // quantize_mx: the scale write follows the codes' write
  e_req_t           sc_req_q;
  logic [Lanes-1:0] sc_mask_q;
  logic [LW-1:0]    sc_data_q;
  logic             done_q, err_q;
  logic [3:0]       done_tag_q, err_tag_q;
  le_err_e          err_code_q;

  // Advance a 4-D index over `size` (dim 0 fastest): {wrapped back to all zeros, the new index}.
  function automatic logic [64:0] advance(idx_t idx, logic [63:0] size);
    logic wrapped;
    wrapped = 1'b1;
    for (int d = 0; d < Dims; d++) begin
      if (wrapped) begin
        if (dim(idx, d) + 16'd1 < dim(size, d)) begin
          idx[16*d +: 16] = dim(idx, d) + 16'd1;
          wrapped = 1'b0;
        end else begin
          idx[16*d +: 16] = '0;
        end
      end
    end
    return {wrapped, idx};
  endfunction

  // The offset of a pattern index from its first element (elements).
  function automatic logic [23:0] offset(idx_t idx, logic [63:0] stride);
    logic [35:0] a;
    a = '0;
    for (int d = 0; d < Dims; d++) a = a + 36'(32'(dim(idx, d)) * 32'(dim(stride, d)));
    return a[23:0];
  endfunction
  // The request for element idx of a pattern of type t from byte address base (checked to fit).
  function automatic e_req_t elem_req(logic space, logic we, logic [23:0] base, logic [3:0] t, idx_t idx,
                                      logic [63:0] stride);
    e_req_t r;
    r.space = space;
    r.we = we;
    r.esize = esize_e'(dt_esize(t));
    r.idx = 24'(sbuf_pkg::base_idx(base, dt_esize(t))) + offset(idx, stride);
    return r;
  endfunction

  function automatic logic lane_active(instr_t s, int l);
    return l >= int'(s.ps) && l < int'(s.ps) + int'(s.pc);
  endfunction

  // ---- outputs of this cycle
  logic rd0_valid, rd1_valid;
  assign rd0_valid = st_q == StRun && !iss_done_q[0] && (32'(outst0_q) + 32'(cnt0_q) < FifoDepth);
  assign rd1_valid = (st_q == StPro) ? (pro_iss_q < prologue_reads(ins_q))
                                     : (st_q == StRun && !iss_done_q[1] && (32'(outst1_q) + 32'(cnt1_q) < FifoDepth));
  assign cmd_ready_o = st_q == StIdle;
  assign rd0_req_valid_o = rd0_valid;
  assign rd1_req_valid_o = rd1_valid;
  always_comb begin
    rd0_req_o = (st_q == StRun) ? elem_req(ins_q.a_space, 1'b0, ins_q.a_addr, ins_q.a_fmt, idx0_q, ins_q.a_stride) : '0;
    if (st_q == StPro)
      rd1_req_o = elem_req(1'b0, 1'b0, (pro_iss_q == '0 && ins_q.s0_vec) ? ins_q.s0_addr : ins_q.s1_addr, FmtFp32, '0, '0);
    else if (st_q == StRun) rd1_req_o = elem_req(ins_q.b_space, 1'b0, ins_q.b_addr, ins_q.b_fmt, idx1_q, ins_q.b_stride);
    else rd1_req_o = '0;
  end
  assign wr_valid_o = wv_q;
  assign wr_o = wreq_q;
  assign wr_mask_o = wmask_q;
  assign wr_data_o = wdata_q;
  assign cpl_o = '{done: done_q, tag: done_tag_q, err: err_q, err_tag: err_tag_q, code: err_code_q};
  assign acc_o = acc_q;
  assign busy_o = st_q != StIdle;

  // ---- one stream step: the FIFO heads -> every lane -> the output register
  logic          needs_in, have, produce, finishing, step;
  logic [LW-1:0] av, bv, vv;  // inputs after the cast, lane values
  logic [LW-1:0] act_v;       // scalar engine: f(a * s0 + s1) per lane
  logic [LW-1:0] exp_v;       // vector engine: fast_exp(a) per lane

  always_comb begin
    needs_in = reads_a(ins_q) && !(ins_q.op == OpTranspose && tph_q);
    have = !needs_in || (cnt0_q != '0 && (!reads_b(ins_q) || cnt1_q != '0));
    produce = (ins_q.op == OpTensorReduce) ? (dim(cidx_q, 0) + 16'd1 == dim(ins_q.size, 0))
                                           : (ins_q.op != OpTranspose || tph_q);
    finishing = st_q == StRun && c_done_q && !wv_q;
    // the output register is free when empty, or written this cycle with no scale write to follow
    step = st_q == StRun && !c_done_q && have && (!produce || !wv_q || (wr_ready_i && !sc_q));
    av = '0;
    bv = '0;
    for (int l = 0; l < Lanes; l++) begin
      if (lane_active(ins_q, l)) begin
        av[32*l +: 32] = in_cast(ins_q.a_fmt, ins_q.a_bias, fifo0_q[rp0_q][32*l +: 32], idom_q);
        if (reads_b(ins_q)) bv[32*l +: 32] = in_cast(ins_q.b_fmt, ins_q.b_bias, fifo1_q[rp1_q][32*l +: 32], idom_q);
      end
    end
  end

  if (Engine == 1) begin : g_act
    always_comb begin
      for (int l = 0; l < Lanes; l++)
        act_v[32*l +: 32] = act_pkg::activate(ins_q.func, fp32_add_f(fp32_mul_f(av[32*l +: 32], s0_q[32*l +: 32]),
                                                                        s1_q[32*l +: 32]));
    end
    assign exp_v = '0;
  end else begin : g_exp
    always_comb begin
      for (int l = 0; l < Lanes; l++) exp_v[32*l +: 32] = fast_exp(av[32*l +: 32]);
    end
    assign act_v = '0;
  end

  logic [LW-1:0] red_d, acc_d, rng_d, wdata_d, trow_d, scdata_d;
  logic [Lanes-1:0] wmask_d, scmask_d;

  always_comb begin
    logic [31:0] a, n, rnd;
    unpacked_t u;
    fmt_desc_t d;
    logic any, nan;
    logic signed [11:0] amax, emax, se;
    u = '0;
    d = '0;
    any = 1'b0;
    nan = 1'b0;
    amax = '0;
    emax = '0;
    se = '0;
    wdata_d = '0;
    n = '0;
    rnd = '0;
    vv = '0;
    red_d = red_q;
    acc_d = acc_q;
    trow_d = tbuf_q[TW'(tcnt_q)];
    for (int l = 0; l < Lanes; l++) begin
      a = av[32*l +: 32];
      if (lane_active(ins_q, l)) begin
        unique case (op_e'(ins_q.op))
          OpCopy, OpQuantizeMx: vv[32*l +: 32] = a;
          OpTensorTensor: vv[32*l +: 32] = alu(ins_q.alu0, a, bv[32*l +: 32], idom_q);
          OpTensorScalar:
            vv[32*l +: 32] = alu(ins_q.alu1, alu(ins_q.alu0, a, s0_q[32*l +: 32], idom_q), s1_q[32*l +: 32], idom_q);
          OpTensorReduce: begin
            if (dim(cidx_q, 0) == '0) vv[32*l +: 32] = (ins_q.alu0 == AluAbsmax) ? alu(AluAbsmax, a, a, idom_q) : a;
            else vv[32*l +: 32] = alu(ins_q.alu0, red_q[32*l +: 32], a, idom_q);
            red_d[32*l +: 32] = vv[32*l +: 32];
          end
          OpExp: vv[32*l +: 32] = exp_v[32*l +: 32];
          OpIota: begin
            n = ins_q.imm0 + ins_q.imm1 * 32'(l);
            for (int k = 0; k < Dims; k++) n = n + 32'(dim(oidx_q, k)) * 32'(dim(ins_q.a_stride, k));
            vv[32*l +: 32] = idom_q ? n : int_to_fp32(n);
          end
          OpMemset: vv[32*l +: 32] = ins_q.imm0;
          OpTranspose: begin
            if (tph_q) vv[32*l +: 32] = tbuf_q[l % G][32*((l / G) * G + int'(tcnt_q)) +: 32];
            else trow_d[32*l +: 32] = a;
          end
          OpActivate: begin
            vv[32*l +: 32] = act_v[32*l +: 32];
            if (ins_q.acc) acc_d[32*l +: 32] = fp32_add_f(acc_q[32*l +: 32], act_v[32*l +: 32]);
          end
          OpAccStore: vv[32*l +: 32] = acc_q[32*l +: 32];
          default: ;
        endcase
      end
    end

    // output cast (quantize_mx: one MX block of G partitions per group)
    wmask_d = '0;
    scmask_d = '0;
    scdata_d = '0;
    rng_d = rng_q;
    for (int l = 0; l < Lanes; l++) begin
      if (lane_active(ins_q, l)) begin
        wmask_d[l] = 1'b1;
        rnd = '0;
        if (ins_q.o_sr) begin
          rnd = xorshift32(rng_q[32*l +: 32]);
          rng_d[32*l +: 32] = rnd;
        end
        if (ins_q.op != OpQuantizeMx)
          wdata_d[32*l +: 32] = out_cast(ins_q.o_fmt, ins_q.o_bias, vv[32*l +: 32], idom_q, ins_q.o_sr, ins_q.o_sat, rnd);
      end
    end
    if (ins_q.op == OpQuantizeMx) begin
      for (int b = 0; b < Lanes / G; b++) begin
        d = fmt_desc(ins_q.o_fmt);
        any = 1'b0;
        nan = 1'b0;
        amax = '0;
        if (lane_active(ins_q, b * G)) begin
          for (int i = 0; i < G; i++) begin
            u = unpack(Fp32Desc, vv[32*(b*G + i) +: 32], 8'd127);
            if (u.nan || u.inf) nan = 1'b1;
            if (!u.zero && !u.nan && !u.inf) begin
              if (!any || u.exp > amax) amax = u.exp;
              any = 1'b1;
            end
          end
          emax = $signed({4'b0, 8'(max_mag(d) >> d.man_bits)}) - $signed({4'b0, d.bias});
          se = amax - emax + (ins_q.mx_neuron ? 12'sd1 : 12'sd0);
          if (!any || se < -12'sd127) se = -12'sd127;
          else if (se > 12'sd127) se = 12'sd127;
          for (int i = 0; i < G; i++) begin
            if (!nan) wdata_d[32*(b*G + i) +: 32] = {24'b0, 8'(encode(d, d.bias, vv[32*(b*G + i) +: 32], 1'b0, 32'd0,
                                                                        1'b1, se))};
          end
          scmask_d[b*G] = 1'b1;
          scdata_d[32*(b*G) +: 32] = {24'b0, nan ? 8'hFF : 8'(se + 12'sd127)};
        end
      end
    end
  end

  // ---- clock edge
  always_ff @(posedge clk_i or negedge rst_ni) begin
    logic [64:0] nx;
    if (!rst_ni) begin
      st_q <= StIdle;
      ins_q <= '0;
      idom_q <= 1'b0;
      idx0_q <= '0;
      idx1_q <= '0;
      cidx_q <= '0;
      oidx_q <= '0;
      iss_done_q <= 2'b11;
      outst0_q <= '0;
      outst1_q <= '0;
      cnt0_q <= '0;
      cnt1_q <= '0;
      rp0_q <= '0;
      wp0_q <= '0;
      rp1_q <= '0;
      wp1_q <= '0;
      pro_iss_q <= '0;
      pro_rcv_q <= '0;
      s0_q <= '0;
      s1_q <= '0;
      red_q <= '0;
      acc_q <= '0;
      for (int l = 0; l < Lanes; l++) rng_q[32*l +: 32] <= sr_lane_seed(32'd0, 32'(l));
      c_done_q <= 1'b0;
      tph_q <= 1'b0;
      tcnt_q <= '0;
      wv_q <= 1'b0;
      wreq_q <= '0;
      wmask_q <= '0;
      wdata_q <= '0;
      sc_q <= 1'b0;
      sc_req_q <= '0;
      sc_mask_q <= '0;
      sc_data_q <= '0;
      done_q <= 1'b0;
      err_q <= 1'b0;
      done_tag_q <= '0;
      err_tag_q <= '0;
      err_code_q <= LeErrNone;
    end else begin
      done_q <= 1'b0;
      err_q <= 1'b0;
      if (st_q == StIdle) begin
        if (cmd_valid_i) begin
          if (check(cmd, Engine == 1, Lanes, SbufBytes, PsumBytes, G) != 3'd0) begin
            err_q <= 1'b1;
            err_tag_q <= cmd.tag;
            err_code_q <= check(cmd, Engine == 1, Lanes, SbufBytes, PsumBytes, G);
          end else if (cmd.op == OpSetSeed) begin
            for (int l = 0; l < Lanes; l++) rng_q[32*l +: 32] <= sr_lane_seed(cmd.imm0, 32'(l));
            done_q <= 1'b1;
            done_tag_q <= cmd.tag;
          end else begin
            ins_q <= cmd;
            idom_q <= int_domain(cmd);
            idx0_q <= '0;
            idx1_q <= '0;
            cidx_q <= '0;
            oidx_q <= '0;
            iss_done_q <= {!reads_b(cmd), !reads_a(cmd)};
            pro_iss_q <= '0;
            pro_rcv_q <= '0;
            s0_q <= {Lanes{cmd.imm0}};
            s1_q <= {Lanes{cmd.imm1}};
            c_done_q <= 1'b0;
            tph_q <= 1'b0;
            tcnt_q <= '0;
            if (cmd.op == OpActivate && cmd.acc_clr) acc_q <= '0;
            st_q <= (prologue_reads(cmd) != '0) ? StPro : StRun;
          end
        end
      end else if (st_q == StPro) begin
        if (rd1_valid && rd1_req_ready_i) pro_iss_q <= pro_iss_q + 2'd1;
        if (rd1_rsp_valid_i) begin
          if (pro_rcv_q == '0 && ins_q.s0_vec) s0_q <= rd1_rsp_data_i;
          else s1_q <= rd1_rsp_data_i;
          pro_rcv_q <= pro_rcv_q + 2'd1;
          if (pro_rcv_q + 2'd1 == prologue_reads(ins_q)) st_q <= StRun;
        end
      end else if (st_q == StRun) begin
        if (wv_q && wr_ready_i) begin
          if (sc_q) begin  // the scale write of quantize_mx follows the codes
            wreq_q <= sc_req_q;
            wmask_q <= sc_mask_q;
            wdata_q <= sc_data_q;
            sc_q <= 1'b0;
          end else begin
            wv_q <= 1'b0;
          end
        end
        if (finishing) begin
          st_q <= StIdle;
          done_q <= 1'b1;
          done_tag_q <= ins_q.tag;
        end else begin
          // the stream step
          if (step) begin
            red_q <= red_d;
            acc_q <= acc_d;
            if (needs_in) begin
              nx = advance(cidx_q, ins_q.size);
              cidx_q <= nx[63:0];
              if (ins_q.op == OpTranspose) begin
                tbuf_q[TW'(tcnt_q)] <= trow_d;
                tcnt_q <= nx[64] ? '0 : tcnt_q + 6'd1;
                if (nx[64]) tph_q <= 1'b1;
              end
            end else if (ins_q.op == OpTranspose) begin
              tcnt_q <= tcnt_q + 6'd1;
            end
            if (produce) begin
              wv_q <= 1'b1;
              wreq_q <= elem_req(ins_q.o_space, 1'b1, ins_q.o_addr, ins_q.o_fmt, oidx_q, ins_q.o_stride);
              wmask_q <= wmask_d;
              wdata_q <= wdata_d;
              if (ins_q.op == OpQuantizeMx) begin
                sc_q <= 1'b1;
                sc_req_q <= '{space: 1'b0, we: 1'b1, esize: sbuf_pkg::ESize1, idx: ins_q.sc_addr + offset(oidx_q, ins_q.o_stride)};
                sc_mask_q <= scmask_d;
                sc_data_q <= scdata_d;
              end
              rng_q <= rng_d;
              nx = advance(oidx_q, out_sizes(ins_q));
              oidx_q <= nx[63:0];
              if (nx[64]) c_done_q <= 1'b1;
            end
          end
          // read issue and responses
          if (rd0_valid && rd0_req_ready_i) begin
            nx = advance(idx0_q, ins_q.size);
            idx0_q <= nx[63:0];
            if (nx[64]) iss_done_q[0] <= 1'b1;
          end
          if (rd1_valid && rd1_req_ready_i) begin
            nx = advance(idx1_q, ins_q.size);
            idx1_q <= nx[63:0];
            if (nx[64]) iss_done_q[1] <= 1'b1;
          end
          outst0_q <= outst0_q + CW'(rd0_valid && rd0_req_ready_i) - CW'(rd0_rsp_valid_i);
          outst1_q <= outst1_q + CW'(rd1_valid && rd1_req_ready_i) - CW'(rd1_rsp_valid_i);
          if (rd0_rsp_valid_i) begin
            fifo0_q[wp0_q] <= rd0_rsp_data_i;
            wp0_q <= (32'(wp0_q) == FifoDepth - 1) ? '0 : wp0_q + PW'(1);
          end
          if (rd1_rsp_valid_i) begin
            fifo1_q[wp1_q] <= rd1_rsp_data_i;
            wp1_q <= (32'(wp1_q) == FifoDepth - 1) ? '0 : wp1_q + PW'(1);
          end
          if (step && needs_in) begin
            rp0_q <= (32'(rp0_q) == FifoDepth - 1) ? '0 : rp0_q + PW'(1);
            if (reads_b(ins_q)) rp1_q <= (32'(rp1_q) == FifoDepth - 1) ? '0 : rp1_q + PW'(1);
          end
          cnt0_q <= cnt0_q + CW'(rd0_rsp_valid_i) - CW'(step && needs_in);
          cnt1_q <= cnt1_q + CW'(rd1_rsp_valid_i) - CW'(step && needs_in && reads_b(ins_q));
        end
      end
    end
  end
endmodule
