// le_pkg — the per-lane operations of the vector and scalar engines (SPEC 5.3, docs/vector.md),
// bit-exact with trn::vector (model/vector/ops.hpp): instruction and ALU codes, data types (the
// numerics_pkg formats 0..9 and the integer types 10..13), the casts on the way in and out, the
// ALU, and the vector engine's fast exponential.
// The functions' case statements are plain `case` with a default (not `unique case`): each
// function is inlined at every call, and Verilator's --assert puts a parallel-case check that
// cannot fire (the items are distinct constants) at each one (docs/formal.md).
package le_pkg;
  import numerics_pkg::*;

  typedef enum logic [3:0] {
    OpCopy = 4'd0, OpTensorTensor = 4'd1, OpTensorScalar = 4'd2, OpTensorReduce = 4'd3, OpExp = 4'd4,
    OpIota = 4'd5, OpMemset = 4'd6, OpQuantizeMx = 4'd7, OpTranspose = 4'd8, OpActivate = 4'd9,
    OpAccStore = 4'd10, OpSetSeed = 4'd11
  } op_e;

  typedef enum logic [3:0] {
    AluAdd = 4'd0, AluSub = 4'd1, AluMul = 4'd2, AluMax = 4'd3, AluMin = 4'd4, AluAnd = 4'd5,
    AluOr = 4'd6, AluXor = 4'd7, AluAbsmax = 4'd8, AluBypass = 4'd9, AluDiv = 4'd10
  } alu_e;

  localparam logic [3:0] DtInt32 = 4'd10, DtInt16 = 4'd11, DtInt8 = 4'd12, DtUint8 = 4'd13;

  // Why an instruction was rejected (err_code_o); nothing of it runs.
  typedef enum logic [2:0] {
    LeErrNone       = 3'd0,
    LeErrPattern    = 3'd1,  // an access pattern: a zero size, out of the memory, a transpose not one group
    LeErrPartitions = 3'd2,  // no partitions, or past the last lane (transpose: not whole groups)
    LeErrType       = 3'd3,  // a data type the operation does not take
    LeErrOp         = 3'd4   // an operation this engine does not run
  } le_err_e;

  // What the engine reports of its instructions (cpl_o), each a one-cycle pulse with its
  // instruction's tag: done, or refused with its code.
  typedef struct packed {
    logic       done;
    logic [3:0] tag;
    logic       err;
    logic [3:0] err_tag;
    le_err_e    code;
  } le_cpl_t;

  function automatic logic is_int_dt(logic [3:0] t);
    return t >= DtInt32 && t <= DtUint8;
  endfunction

  function automatic logic is_nan32(logic [31:0] x);
    return x[30:0] > 31'h7F80_0000;
  endfunction

  // int32 -> FP32, RNE.
  function automatic logic [31:0] int_to_fp32(logic [31:0] v);
    logic [31:0] mag;
    logic [4:0] msb;
    if (v == '0) return '0;
    mag = v[31] ? (32'd0 - v) : v;
    msb = '0;
    for (int i = 0; i < 32; i++) if (mag[i]) msb = 5'(i);
    return round_pack(Fp32Desc, 8'd127, v[31], 12'($signed({7'b0, msb})), 56'({mag, 24'b0}) << (5'd31 - msb),
                      1'b0, 1'b0, 32'd0, 1'b0);
  endfunction

  // FP32 -> integer, RNE, saturated to [lo, hi] (lo <= 0 <= hi); NaN -> 0. Returned as int32 bits.
  function automatic logic [31:0] fp32_to_int(logic [31:0] x, logic signed [32:0] lo, logic signed [32:0] hi);
    logic signed [11:0] e;
    logic [23:0] sig;
    logic [31:0] q, rem, half;
    logic signed [32:0] r;
    int sh;
    if (is_nan32(x)) return '0;
    e = $signed({4'b0, x[30:23]}) - 12'sd127;
    sig = (x[30:23] == '0) ? {1'b0, x[22:0]} : {1'b1, x[22:0]};
    if (x[30:23] == 8'hFF || e >= 12'sd31) begin
      r = x[31] ? -33'sd2147483648 : 33'sd2147483647;  // beyond every integer type: saturates below
    end else if (e >= 12'sd23) begin
      r = $signed({1'b0, 32'({8'b0, sig} << (e - 12'sd23))});
      if (x[31]) r = -r;
    end else if (e < -12'sd1) begin
      r = '0;
    end else begin
      sh = 23 - int'(e);  // 1 .. 24
      q = 32'({8'b0, sig} >> sh);
      rem = {8'b0, sig} & ((32'd1 << sh) - 32'd1);
      half = 32'd1 << (sh - 1);
      if (rem > half || (rem == half && q[0])) q = q + 32'd1;
      r = $signed({1'b0, q});
      if (x[31]) r = -r;
    end
    if (r < lo) r = lo;
    if (r > hi) r = hi;
    return r[31:0];
  endfunction

  function automatic logic signed [32:0] int_lo(logic [3:0] t);
    case (t)
      DtInt16: return -33'sd32768;
      DtInt8:  return -33'sd128;
      DtUint8: return 33'sd0;
      default: return -33'sd2147483648;
    endcase
  endfunction
  function automatic logic signed [32:0] int_hi(logic [3:0] t);
    case (t)
      DtInt16: return 33'sd32767;
      DtInt8:  return 33'sd127;
      DtUint8: return 33'sd255;
      default: return 33'sd2147483647;
    endcase
  endfunction

  // Stored code -> lane value (FP32, or int32 in the integer domain).
  function automatic logic [31:0] in_cast(logic [3:0] t, logic [5:0] bias, logic [31:0] code, logic idom);
    fmt_desc_t d;
    logic [31:0] v;
    if (!is_int_dt(t)) begin
      d = fmt_desc(t);
      return decode(d, eff_bias(d, bias), code);
    end
    case (t)
      DtInt16: v = {{16{code[15]}}, code[15:0]};
      DtInt8:  v = {{24{code[7]}}, code[7:0]};
      DtUint8: v = {24'b0, code[7:0]};
      default: v = code;
    endcase
    return idom ? v : int_to_fp32(v);
  endfunction

  // Lane value -> code of type t.
  function automatic logic [31:0] out_cast(logic [3:0] t, logic [5:0] bias, logic [31:0] v, logic idom,
                                           logic sr, logic sat, logic [31:0] rnd);
    fmt_desc_t d;
    logic signed [32:0] i;
    logic [31:0] r;
    if (is_int_dt(t)) begin
      if (idom) begin
        i = $signed({v[31], v});
        if (i < int_lo(t)) i = int_lo(t);
        if (i > int_hi(t)) i = int_hi(t);
        r = i[31:0];
      end else begin
        r = fp32_to_int(v, int_lo(t), int_hi(t));
      end
      case (t)
        DtInt16: return {16'b0, r[15:0]};
        DtInt8, DtUint8: return {24'b0, r[7:0]};
        default: return r;
      endcase
    end
    d = fmt_desc(t);
    return encode(d, eff_bias(d, bias), v, sr, rnd, sat, 12'sd0);
  endfunction


  localparam int unsigned Dims = 4;

  // One instruction (the cmd_* ports).
  typedef struct packed {
    logic [3:0]  op;
    logic [3:0]  tag;
    logic [7:0]  ps;
    logic [7:0]  pc;
    logic [23:0] a_addr;
    logic [23:0] b_addr;
    logic [23:0] o_addr;
    logic [23:0] s0_addr;
    logic [23:0] s1_addr;
    logic [23:0] sc_addr;   // quantize_mx: the scale tensor (bytes), in each block's first partition
    logic        a_space;   // where A, B and the output are: 0 SBUF, 1 PSUM (FP32 or INT32 only)
    logic        b_space;
    logic        o_space;
    logic [3:0]  a_fmt;
    logic [5:0]  a_bias;
    logic [3:0]  b_fmt;
    logic [5:0]  b_bias;
    logic [3:0]  o_fmt;
    logic [5:0]  o_bias;
    logic        o_sr;
    logic        o_sat;
    logic        o_mx;
    logic        mx_neuron;
    logic [63:0] size;      // 4 x 16 bits, dim 0 in bits 15:0
    logic [63:0] a_stride;
    logic [63:0] b_stride;
    logic [63:0] o_stride;
    logic [3:0]  alu0;
    logic [3:0]  alu1;
    logic [31:0] imm0;
    logic [31:0] imm1;
    logic        s0_vec;
    logic        s1_vec;
    logic [3:0]  func;
    logic        acc;
    logic        acc_clr;
  } instr_t;

  function automatic logic [15:0] dim(logic [63:0] v, int d);
    return v[16*d +: 16];
  endfunction

  function automatic logic reads_a(instr_t s);
    return op_e'(s.op) inside {OpCopy, OpTensorTensor, OpTensorScalar, OpTensorReduce, OpExp, OpQuantizeMx,
                        OpTranspose, OpActivate};
  endfunction
  function automatic logic reads_b(instr_t s);
    return s.op == OpTensorTensor;
  endfunction
  function automatic logic [1:0] prologue_reads(instr_t s);
    if (s.op != OpTensorScalar && s.op != OpActivate) return 2'd0;
    return {1'b0, s.s0_vec} + {1'b0, s.s1_vec};
  endfunction
  function automatic logic int_domain(instr_t s);
    case (op_e'(s.op))
      OpCopy, OpTensorScalar, OpTensorReduce, OpTranspose: return is_int_dt(s.a_fmt) && is_int_dt(s.o_fmt);
      OpTensorTensor: return is_int_dt(s.a_fmt) && is_int_dt(s.b_fmt) && is_int_dt(s.o_fmt);
      OpIota, OpMemset: return is_int_dt(s.o_fmt);
      default: return 1'b0;
    endcase
  endfunction
  // The output pattern's sizes: reduce drops dim 0, acc_store writes one element.
  function automatic logic [63:0] out_sizes(instr_t s);
    logic [63:0] z;
    z = s.size;
    if (s.op == OpTensorReduce) z[15:0] = 16'd1;
    if (s.op == OpAccStore) z = {16'd1, 16'd1, 16'd1, 16'd1};
    return z;
  endfunction
  // The SBUF element size of data type t (sbuf_pkg::esize_e): the format's (numerics_pkg), and for
  // the integer types 4 bytes (int32), 2 (int16) or 1 (int8, uint8).
  function automatic logic [1:0] dt_esize(logic [3:0] t);
    if (t == DtInt32) return 2'd3;
    if (t == DtInt16) return 2'd2;
    if (t == DtInt8 || t == DtUint8) return 2'd1;
    return fmt_esize(t);
  endfunction
  // The elements a pattern spans from its first: 1 + sum of (size - 1) * stride.
  function automatic logic [39:0] span(logic [63:0] size, logic [63:0] stride);
    logic [39:0] e;
    e = 40'd1;
    for (int d = 0; d < Dims; d++) e = e + (40'(dim(size, d)) - 40'd1) * 40'(dim(stride, d));
    return e;
  endfunction
  // Does a pattern of elements of type t from byte address a fit in `bytes` (and is a aligned)?
  function automatic logic fits(logic [23:0] a, logic [3:0] t, logic [63:0] size, logic [63:0] stride, int bytes);
    return sbuf_pkg::elems_fit(a, dt_esize(t), span(size, stride), bytes);
  endfunction

  function automatic logic is_bitwise(logic [3:0] a);
    return a == AluAnd || a == AluOr || a == AluXor;
  endfunction
  function automatic logic ts_alu(logic [3:0] a);
    return a <= AluXor || a == AluBypass || a == AluDiv;
  endfunction

  // The dispatch check (0: legal). Order: op, type, partitions, pattern. `bytes`: SBUF bytes per
  // partition; every address is a byte address aligned to its element size.
  function automatic le_err_e check(instr_t s, logic scalar, int lanes, int bytes, int psum_bytes, int group);
    logic op_ok, idom;
    logic [63:0] n;
    case (op_e'(s.op))
      OpCopy, OpExp, OpIota, OpMemset, OpQuantizeMx, OpTranspose: op_ok = !scalar;
      OpTensorTensor: op_ok = !scalar && (s.alu0 <= AluXor || s.alu0 == AluDiv);
      OpTensorScalar: op_ok = !scalar && ts_alu(s.alu0) && ts_alu(s.alu1);
      OpTensorReduce: op_ok = !scalar && alu_e'(s.alu0) inside {AluAdd, AluMax, AluMin, AluAbsmax};
      OpActivate:     op_ok = scalar && s.func <= 4'd11;
      OpAccStore:     op_ok = scalar;
      OpSetSeed:      op_ok = 1'b1;
      default:        op_ok = 1'b0;
    endcase
    if (!op_ok) return LeErrOp;
    if (s.op == OpSetSeed) return LeErrNone;
    // types
    idom = int_domain(s);
    if (s.o_fmt > DtUint8) return LeErrType;
    if (reads_a(s) && s.a_fmt > DtUint8) return LeErrType;
    if (reads_b(s) && s.b_fmt > DtUint8) return LeErrType;
    if (idom && (s.op == OpTensorTensor || s.op == OpTensorScalar) && (s.alu0 == AluDiv || s.alu1 == AluDiv))
      return LeErrType;
    if (!idom && s.op == OpTensorTensor && is_bitwise(s.alu0)) return LeErrType;
    if (!idom && s.op == OpTensorScalar && (is_bitwise(s.alu0) || is_bitwise(s.alu1))) return LeErrType;
    // PSUM holds FP32, or INT32 (an integer matmul's sums)
    if ((reads_a(s) && s.a_space && s.a_fmt != FmtFp32 && s.a_fmt != DtInt32) ||
        (reads_b(s) && s.b_space && s.b_fmt != FmtFp32 && s.b_fmt != DtInt32) ||
        (s.o_space && s.o_fmt != FmtFp32 && s.o_fmt != DtInt32))
      return LeErrType;
    if (s.op == OpQuantizeMx) begin
      if (!s.o_mx || s.o_sr || !(fmt_e'(s.a_fmt) inside {FmtFp32, FmtBf16}) || !(fmt_e'(s.o_fmt) inside {FmtE4m3fn, FmtE5m2, FmtE2m1}))
        return LeErrType;
    end else if (s.o_mx) begin
      return LeErrType;
    end
    // partitions
    if (s.pc == '0 || int'(s.ps) + int'(s.pc) > lanes) return LeErrPartitions;
    if ((s.op == OpQuantizeMx || s.op == OpTranspose) && (int'(s.ps) % group != 0 || int'(s.pc) % group != 0))
      return LeErrPartitions;
    // access patterns
    if (s.op == OpAccStore)
      return fits(s.o_addr, s.o_fmt, 64'h0001_0001_0001_0001, '0, s.o_space ? psum_bytes : bytes) ? LeErrNone : LeErrPattern;
    n = 64'd1;
    for (int d = 0; d < Dims; d++) begin
      if (dim(s.size, d) == '0) return LeErrPattern;
      n = n * 64'(dim(s.size, d));
    end
    if (s.op == OpTranspose && n != 64'(group)) return LeErrPattern;
    if (reads_a(s) && !fits(s.a_addr, s.a_fmt, s.size, s.a_stride, s.a_space ? psum_bytes : bytes)) return LeErrPattern;
    if (reads_b(s) && !fits(s.b_addr, s.b_fmt, s.size, s.b_stride, s.b_space ? psum_bytes : bytes)) return LeErrPattern;
    if (!fits(s.o_addr, s.o_fmt, out_sizes(s), s.o_stride, s.o_space ? psum_bytes : bytes)) return LeErrPattern;
    // quantize_mx: one E8M0 scale byte per output element, at the element's offset from sc_addr
    if (s.op == OpQuantizeMx && !fits(s.sc_addr, FmtE8m0, s.size, s.o_stride, bytes)) return LeErrPattern;
    if (prologue_reads(s) != '0) begin
      if (s.s0_vec && !fits(s.s0_addr, FmtFp32, 64'h0001_0001_0001_0001, '0, bytes)) return LeErrPattern;
      if (s.s1_vec && !fits(s.s1_addr, FmtFp32, 64'h0001_0001_0001_0001, '0, bytes)) return LeErrPattern;
    end
    return LeErrNone;
  endfunction

  // IEEE binary32 division, RNE: a 50-by-24-bit integer quotient (26 or 27 bits: the 24 kept, two
  // or three more and the remainder as sticky) into the one rounding routine.
  function automatic logic [31:0] fp32_div_f(logic [31:0] a, logic [31:0] b);
    unpacked_t ua, ub;
    logic [49:0] num, q, rem;
    logic sign;
    ua = unpack(Fp32Desc, a, 8'd127);
    ub = unpack(Fp32Desc, b, 8'd127);
    sign = ua.sign ^ ub.sign;
    if (ua.nan || ub.nan || (ua.inf && ub.inf) || (ua.zero && ub.zero)) return CanonicalNaN;
    if (ua.inf || ub.zero) return {sign, 31'h7F80_0000};
    if (ua.zero || ub.inf) return {sign, 31'b0};
    num = {ua.sig, 26'b0};
    q = num / {26'b0, ub.sig};
    rem = num - q * {26'b0, ub.sig};
    if (q[26]) return round_pack(Fp32Desc, 8'd127, sign, ua.exp - ub.exp, {q[26:0], 29'b0}, rem != '0, 1'b0, 32'd0, 1'b0);
    return round_pack(Fp32Desc, 8'd127, sign, ua.exp - ub.exp - 12'sd1, {q[25:0], 30'b0}, rem != '0, 1'b0, 32'd0,
                      1'b0);
  endfunction

  // A key whose unsigned order is the FP32 order with -0 < +0.
  function automatic logic [31:0] order_key(logic [31:0] x);
    return x[31] ? ~x : (x | 32'h8000_0000);
  endfunction

  function automatic logic [31:0] alu(logic [3:0] op, logic [31:0] a, logic [31:0] b, logic idom);
    logic [31:0] ma, mb;
    logic gt;
    if (idom) begin
      case (alu_e'(op))
        AluAdd:    return a + b;
        AluSub:    return a - b;
        AluMul:    return a * b;
        AluMax:    return ($signed(a) > $signed(b)) ? a : b;
        AluMin:    return ($signed(a) < $signed(b)) ? a : b;
        AluAnd:    return a & b;
        AluOr:     return a | b;
        AluXor:    return a ^ b;
        AluAbsmax: begin
          ma = a[31] ? (32'd0 - a) : a;
          mb = b[31] ? (32'd0 - b) : b;
          return ($signed(ma) > $signed(mb)) ? ma : mb;
        end
        default:   return a;
      endcase
    end
    case (alu_e'(op))
      AluAdd: return fp32_add_f(a, b);
      AluSub: return fp32_add_f(a, b ^ 32'h8000_0000);
      AluMul: return fp32_mul_f(a, b);
      AluMax, AluMin, AluAbsmax: begin
        ma = (op == AluAbsmax) ? {1'b0, a[30:0]} : a;
        mb = (op == AluAbsmax) ? {1'b0, b[30:0]} : b;
        if (is_nan32(ma) || is_nan32(mb)) return CanonicalNaN;
        gt = order_key(ma) > order_key(mb);
        if (op == AluMin) return gt ? mb : ma;
        return gt ? ma : mb;
      end
      AluBypass: return a;
      AluDiv: return fp32_div_f(a, b);
      default: return CanonicalNaN;
    endcase
  endfunction

  localparam logic [31:0] FastExpC0 = 32'h3F7F_FB49, FastExpC1 = 32'h3F31_798F, FastExpC2 = 32'h3E78_6F0A,
                          FastExpC3 = 32'h3D61_FB30;

  // The fast exponential: t = x log2(e), k = nearest integer (the 1.5 * 2^23 shifter), f = t - k
  // (exact), 2^f by a degree-3 polynomial, times 2^k.
  function automatic logic [31:0] fast_exp(logic [31:0] x);
    logic [31:0] t, kf, f, p;
    if (is_nan32(x)) return CanonicalNaN;
    if (!x[31] && x[30:0] > 31'h42B1_7218) return 32'h7F80_0000;
    if (x[31] && x[30:0] > 31'h42D0_0000) return '0;
    t = fp32_mul_f(x, 32'h3FB8_AA3B);
    kf = fp32_add_f(fp32_add_f(t, 32'h4B40_0000), 32'hCB40_0000);
    f = fp32_add_f(t, kf ^ 32'h8000_0000);
    p = fp32_add_f(fp32_mul_f(FastExpC3, f), FastExpC2);
    p = fp32_add_f(fp32_mul_f(p, f), FastExpC1);
    p = fp32_add_f(fp32_mul_f(p, f), FastExpC0);
    return act_pkg::scale(p, act_pkg::f32_to_int(kf));
  endfunction

endpackage
