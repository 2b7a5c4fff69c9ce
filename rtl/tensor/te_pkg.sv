// te_pkg — the tensor engine's processing element (SPEC 5.1) as a function, so the array is one
// loop over R x C PEs: Verilator keeps large loops compact, where R x C module instances would be
// inlined one by one (SPEC section 8: the 128 x 128 build cost).
package te_pkg;
  import numerics_pkg::*;

  typedef enum logic [0:0] {
    TeLoadStationary = 1'b0,  // read stationary[K, M] into the background weight bank
    TeMultiplyMoving = 1'b1   // stream moving[K, N] through the array into PSUM
  } te_op_e;

  // Why a command was rejected (err_code_o); nothing of it runs.
  typedef enum logic [2:0] {
    TeErrNone      = 3'd0,
    TeErrShape     = 3'd1,  // K, M or N zero or above the array; a transpose wider than the loaded K
    TeErrRange     = 3'd2,  // SBUF or PSUM range outside its memory, PSUM bank outside the banks
    TeErrType      = 3'd3,  // not a PE format; MX with a non-MX element type or with transpose
    TeErrNoWeights = 3'd4,  // MultiplyMoving with no LoadStationary before it
    TeErrKind      = 3'd5   // transpose on multiply weights, or multiply on transpose weights
  } te_err_e;

  // A command (cmd_i). Fields are wide enough for every configuration; a value beyond this
  // configuration's array or memories is a shape or range error, never truncated.
  typedef struct packed {
    te_op_e      op;
    logic [3:0]  tag;   // echoed on ls_done / mm_done / err
    logic [3:0]  fmt;   // numerics_pkg::fmt_e of the operand read
    logic [5:0]  bias;  // FP8 bias register
    logic [23:0] addr;  // the operand's SBUF byte address, aligned to its element size
    logic [15:0] k;     // LoadStationary: K rows
    logic [15:0] m;     // LoadStationary: M columns
    logic [15:0] n;     // MultiplyMoving: N columns
    logic [3:0]  bank;  // MultiplyMoving: PSUM bank
    logic [15:0] off;   // MultiplyMoving: first PSUM element
    logic        acc;   // MultiplyMoving: accumulate into PSUM
    logic        tr;    // transpose: LoadStationary keeps raw codes; MultiplyMoving writes [K, M] as [M, K]
    logic        mx;    // MX operand (E4M3FN, E5M2, E2M1 elements) with E8M0 scales
    logic [23:0] sc_addr;  // MX: the scale tensor's byte address; column j's scale of block b at
                           // byte sc_addr + j of partition b * 32 (docs/core.md)
  } te_cmd_t;

  // What the engine reports of its commands (cpl_o), each a one-cycle pulse with its command's tag:
  // a LoadStationary done, a MultiplyMoving done, a refused command with its code.
  typedef struct packed {
    logic       ls_done;
    logic [3:0] ls_tag;
    logic       mm_done;
    logic [3:0] mm_tag;
    logic       err;
    logic [3:0] err_tag;
    te_err_e    code;
  } te_cpl_t;

  // One element of every PSUM partition (the pr_ and pe_ ports, for the vector and scalar
  // engines): bank and element in the bank. An element beyond the configuration's banks or bank
  // depth reads 0 and is not written.
  typedef struct packed {
    logic [3:0]  bank;
    logic [15:0] off;
  } psum_addr_t;

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
