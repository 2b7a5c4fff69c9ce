// act_pkg — the scalar engine's activation functions (SPEC 5.3, docs/activations.md), bit-exact
// with trn::scalar::activate: six piecewise-polynomial kernels from the coefficient table
// (act_coeffs_pkg, generated from rtl/scalar/act_coeffs.mem) evaluated by Horner's rule with the
// IEEE FP32 multiply and add of numerics_pkg, and the reductions around them.
// The functions' case statements are plain `case` with a default (not `unique case`): each
// function is inlined at every call, and Verilator's --assert puts a parallel-case check that
// cannot fire (the items are distinct constants) at each one (docs/formal.md).
package act_pkg;
  import numerics_pkg::*;
  import act_coeffs_pkg::*;

  typedef enum logic [3:0] {
    ActIdentity = 4'd0, ActRelu = 4'd1, ActExp = 4'd2, ActLog = 4'd3, ActTanh = 4'd4, ActSigmoid = 4'd5,
    ActGelu = 4'd6, ActSilu = 4'd7, ActRecip = 4'd8, ActRsqrt = 4'd9, ActSqrt = 4'd10, ActSquare = 4'd11
  } act_e;

  localparam int KRecip = 0, KRsqrt = 1, KSqrt = 2, KLog1p = 3, KExp = 4, KTanh = 5;
  localparam logic [31:0] One = 32'h3F80_0000, PosInf = 32'h7F80_0000, NegZero = 32'h8000_0000;
  localparam logic [31:0] Ln2Hi = 32'h3F31_7200, Ln2Lo = 32'h35BF_BE8E;

  function automatic logic [31:0] neg(logic [31:0] x);
    return x ^ 32'h8000_0000;
  endfunction
  function automatic logic is_nan(logic [31:0] x);
    return x[30:0] > PosInf[30:0];
  endfunction
  function automatic logic is_inf(logic [31:0] x);
    return x[30:0] == PosInf[30:0];
  endfunction
  function automatic logic is_zero(logic [31:0] x);
    return x[30:0] == '0;
  endfunction

  // 2^k as FP32, k in [-126, 127].
  function automatic logic [31:0] pow2(int k);
    return {1'b0, 8'(k + 127), 23'd0};
  endfunction

  // p * 2^k with one rounding: an exact first step by 2^+-64 when 2^k is not a normal value.
  function automatic logic [31:0] scale(logic [31:0] p, int k);
    logic [31:0] q;
    int kk;
    q = p;
    kk = k;
    if (k > 127) begin
      q = fp32_mul_f(p, pow2(64));
      kk = k - 64;
    end else if (k < -126) begin
      q = fp32_mul_f(p, pow2(-64));
      kk = k + 64;
    end
    return fp32_mul_f(q, pow2(kk));
  endfunction

  // |x| = m * 2^e with m in [1, 2) as FP32 (x finite, nonzero); subnormals normalized.
  function automatic void split(logic [31:0] x, output logic [31:0] m, output int e);
    logic [22:0] fr;
    logic [4:0] lz;
    fr = x[22:0];
    if (x[30:23] == '0) begin
      lz = lzc24({1'b0, fr});  // leading zeros above the top set bit, counting the hidden position
      e = -126 - int'(lz);
      fr = fr << lz;  // the leading one moves past bit 22 and drops out (the hidden bit)
    end else begin
      e = int'(x[30:23]) - 127;
    end
    m = {One[31:23], fr};
  endfunction

  // The value of an integer-valued FP32 with |x| < 2^23.
  function automatic int f32_to_int(logic [31:0] x);
    int e;
    int mag;
    if (is_zero(x)) return 0;
    e = int'(x[30:23]) - 127;
    mag = int'(32'({1'b1, x[22:0]}) >> (23 - e));
    return x[31] ? -mag : mag;
  endfunction

  // A small integer (|n| < 2^23) as FP32, exactly.
  function automatic logic [31:0] int_to_f32(int n);
    logic [31:0] mag;
    int msb;
    if (n == 0) return '0;
    mag = 32'(n < 0 ? -n : n);
    msb = 0;
    for (int i = 0; i < 24; i++) if (mag[i]) msb = i;
    return {n < 0, 8'(127 + msb), 23'(mag << (23 - msb))};
  endfunction

  // A kernel: segment by exponent and top Mbits mantissa bits of |v| (or the small segment),
  // u = |v| - segment start (exact), p(u) by Horner's rule.
  function automatic logic [31:0] eval_kernel(int k, logic [31:0] v);
    logic [31:0] a, start, u, p;
    logic [159:0] row;
    int e, mb, per_sign, idx, j;
    a = {1'b0, v[30:0]};
    e = int'(a[30:23]) - 127;
    mb = KernelMbits[k];
    per_sign = KernelSmall[k] + (KernelEmax[k] - KernelEmin[k]) * (1 << mb);
    if (a == '0 || e < KernelEmin[k]) begin
      idx = 0;
      start = '0;
    end else begin
      j = int'(a >> (23 - mb)) & ((1 << mb) - 1);
      idx = KernelSmall[k] + (e - KernelEmin[k]) * (1 << mb) + j;
      start = a & ~((32'd1 << (23 - mb)) - 32'd1);
    end
    if (KernelSigned[k] != 0 && v[31]) idx = idx + per_sign;
    u = fp32_add_f(a, neg(start));
    row = CoeffRows[KernelRow[k] + idx];  // the segment's c4 .. c0
    p = row[4*32 +: 32];
    for (int i = 3; i >= 0; i--) p = fp32_add_f(fp32_mul_f(p, u), row[i*32 +: 32]);
    return p;
  endfunction

  function automatic logic [31:0] act_exp(logic [31:0] x);
    logic [31:0] kf, r;
    int k;
    if (is_nan(x)) return CanonicalNaN;
    if (!x[31] && x[30:0] > 31'h42B1_7218) return PosInf;  // x > 88.7228...
    if (x[31] && x[30:0] > 31'h42D0_0000) return '0;       // x < -104
    kf = fp32_add_f(fp32_add_f(fp32_mul_f(x, 32'h3FB8_AA3B), 32'h4B40_0000), neg(32'h4B40_0000));
    k = f32_to_int(kf);
    r = fp32_add_f(fp32_add_f(x, neg(fp32_mul_f(kf, Ln2Hi))), neg(fp32_mul_f(kf, Ln2Lo)));
    return scale(eval_kernel(KExp, r), k);
  endfunction

  function automatic logic [31:0] act_log(logic [31:0] x);
    logic [31:0] m, t, ef;
    int e;
    if (is_nan(x)) return CanonicalNaN;
    if (is_zero(x)) return {1'b1, PosInf[30:0]};
    if (x[31]) return CanonicalNaN;
    if (is_inf(x)) return PosInf;
    split(x, m, e);
    if (m > 32'h3FB5_04F3) begin  // m > sqrt(2): m / 2 (exact)
      m = m - (32'd1 << 23);
      e = e + 1;
    end
    t = fp32_add_f(m, neg(One));
    ef = int_to_f32(e);
    return fp32_add_f(fp32_add_f(fp32_mul_f(ef, Ln2Lo), eval_kernel(KLog1p, t)), fp32_mul_f(ef, Ln2Hi));
  endfunction

  function automatic logic [31:0] act_tanh(logic [31:0] x);
    if (is_nan(x)) return CanonicalNaN;
    if (x[30:0] >= 31'h4180_0000) return {x[31], One[30:0]};  // |x| >= 16
    return {x[31], 31'd0} ^ eval_kernel(KTanh, {1'b0, x[30:0]});
  endfunction

  function automatic logic [31:0] act_recip(logic [31:0] x);
    logic [31:0] m;
    int e;
    if (is_nan(x)) return CanonicalNaN;
    if (is_zero(x)) return {x[31], PosInf[30:0]};
    if (is_inf(x)) return {x[31], 31'd0};
    split(x, m, e);
    return {x[31], 31'd0} | scale(eval_kernel(KRecip, m), -e);
  endfunction

  // v in [1, 4) and an even e2 with |x| = v * 2^e2.
  function automatic void split_even(logic [31:0] x, output logic [31:0] v, output int e2);
    logic [31:0] m;
    int e;
    split(x, m, e);
    if (e % 2 != 0) begin
      v = m + (32'd1 << 23);
      e2 = e - 1;
    end else begin
      v = m;
      e2 = e;
    end
  endfunction

  function automatic logic [31:0] act_rsqrt(logic [31:0] x);
    logic [31:0] v;
    int e2;
    if (is_nan(x)) return CanonicalNaN;
    if (is_zero(x)) return {x[31], PosInf[30:0]};
    if (x[31]) return CanonicalNaN;
    if (is_inf(x)) return '0;
    split_even(x, v, e2);
    return scale(eval_kernel(KRsqrt, v), -(e2 / 2));
  endfunction

  function automatic logic [31:0] act_sqrt(logic [31:0] x);
    logic [31:0] v;
    int e2;
    if (is_nan(x)) return CanonicalNaN;
    if (is_zero(x)) return x;
    if (x[31]) return CanonicalNaN;
    if (is_inf(x)) return PosInf;
    split_even(x, v, e2);
    return scale(eval_kernel(KSqrt, v), e2 / 2);
  endfunction

  // f(x) for the function code f (act_e); an unknown code gives the canonical NaN. One exp, one
  // reciprocal and one of each other kernel per lane: sigmoid, silu and gelu share the exp and
  // reciprocal of exp and reciprocal (the same operations as act_sigmoid, selected by f).
  function automatic logic [31:0] activate(logic [3:0] f, logic [31:0] x);
    logic [31:0] x3, z, e, rin, rcp;
    logic sig;  // sigmoid, silu or gelu
    sig = f == ActSigmoid || f == ActSilu || f == ActGelu;
    // gelu: z = 2 sqrt(2/pi) (x + 0.044715 x^3); sigmoid and silu: z = x
    x3 = fp32_mul_f(fp32_mul_f(x, x), x);
    z = (f == ActGelu) ? fp32_mul_f(32'h3FCC_422A, fp32_add_f(x, fp32_mul_f(32'h3D37_2713, x3))) : x;
    e = act_exp(sig ? neg(z) : x);
    rin = sig ? fp32_add_f(One, e) : x;
    rcp = act_recip(rin);
    case (act_e'(f))
      ActIdentity: return is_nan(x) ? CanonicalNaN : x;
      ActRelu:     return is_nan(x) ? CanonicalNaN : ((x[31] || is_zero(x)) ? '0 : x);
      ActExp:      return e;
      ActLog:      return act_log(x);
      ActTanh:     return act_tanh(x);
      ActSigmoid:  return is_nan(x) ? CanonicalNaN : rcp;
      ActSilu: begin
        if (x == {1'b1, PosInf[30:0]}) return NegZero;
        return fp32_mul_f(x, is_nan(z) ? CanonicalNaN : rcp);
      end
      ActGelu: begin
        if (is_nan(x)) return CanonicalNaN;
        if (x == {1'b1, PosInf[30:0]}) return NegZero;
        return fp32_mul_f(x, is_nan(z) ? CanonicalNaN : rcp);
      end
      ActRecip:    return rcp;
      ActRsqrt:    return act_rsqrt(x);
      ActSqrt:     return act_sqrt(x);
      ActSquare:   return fp32_mul_f(x, x);
      default:     return CanonicalNaN;
    endcase
  endfunction
endpackage
