// te_pkg — the tensor engine's processing element (SPEC 5.1) as a function, so the array is one
// loop over R x C PEs: Verilator keeps large loops compact, where R x C module instances would be
// inlined one by one (SPEC section 8: the 128 x 128 build cost).
package te_pkg;
  import numerics_pkg::*;

  // An operand as FP32: narrow codes decoded exactly (FP8 with its bias), TF32 = FP32 rounded to
  // 10 mantissa bits (RNE), FP32 as is (NaN canonical).
  function automatic logic [31:0] te_operand(logic [31:0] code, logic [3:0] fmt, logic [5:0] bias);
    fmt_desc_t d;
    if (fmt == FmtTf32) return decode(fmt_desc(FmtTf32), 8'd127, encode(fmt_desc(FmtTf32), 8'd127, code, 1'b0,
                                                                         32'd0, 1'b0, 12'sd0));
    d = fmt_desc(fmt);
    return decode(d, eff_bias(d, bias), code);
  endfunction

  // Formats a PE multiplies: FP32, TF32, BF16, FP16, the FP8 variants, E2M1.
  function automatic logic te_is_pe_fmt(logic [3:0] fmt);
    return fmt <= FmtE2m1;
  endfunction

  // One PE: ps_out = ps_in + w * x on operands already decoded to FP32 where they entered the
  // array (exact product for narrow types, one rounding for FP32; one IEEE FP32 addition); a
  // disabled row (r >= K) passes ps_in through.
  function automatic logic [31:0] te_pe(logic [31:0] ps_in, logic en, logic [31:0] w, logic [31:0] x);
    if (!en) return ps_in;
    return fp32_add_f(ps_in, fp32_mul_f(w, x));
  endfunction
endpackage
