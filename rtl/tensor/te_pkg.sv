// te_pkg — the tensor engine's processing element (SPEC 5.1) as a function, so the array is one
// loop over R x C PEs: Verilator keeps large loops compact, where R x C module instances would be
// inlined one by one (SPEC section 8: the 128 x 128 build cost).
package te_pkg;
  import numerics_pkg::*;

  typedef enum logic [0:0] {
    TeLoadStationary = 1'b0,  // read stationary[K, M] into the background weight bank
    TeMultiplyMoving = 1'b1   // stream moving[K, N] through the array into PSUM
  } te_op_e;

  // The NeuronCore generation (gen_i, a strap): which K-rows-per-PE modes a command may ask for
  // (SPEC 5.1): double row for FP8 on v3 and later (INT8/UINT8 on every generation), four rows for
  // MX operands on v4.
  typedef enum logic [1:0] {
    TeGenV2 = 2'd0,
    TeGenV3 = 2'd1,
    TeGenV4 = 2'd2
  } te_gen_e;

  // The integer operand types (the vector engine's data-type codes, le_pkg: DtInt8, DtUint8):
  // exact products summed into INT32 PSUM entries with two's-complement wrap.
  localparam logic [3:0] TeInt8 = 4'd12, TeUint8 = 4'd13;

  // Why a command was rejected (err_code_o); nothing of it runs.
  typedef enum logic [2:0] {
    TeErrNone      = 3'd0,
    TeErrShape     = 3'd1,  // K, M or N zero or above the array; a transpose wider than the loaded K
    TeErrRange     = 3'd2,  // SBUF or PSUM range outside its memory, PSUM bank outside the banks
    TeErrType      = 3'd3,  // not a PE format; MX with a non-MX element type or with transpose; BF16
                            // PSUM before v4, with an integer type or a transpose; sr without BF16 PSUM
    TeErrNoWeights = 3'd4,  // MultiplyMoving with no LoadStationary before it
    TeErrKind      = 3'd5,  // transpose on multiply weights, multiply on transpose weights, or a multiply
                            // whose rows per PE, integer-ness or sparsity differ from the loaded weights'
    TeErrMeta      = 3'd6   // a sparse LoadStationary's index metadata: an index not below M, not strictly
                            // increasing within its group, or naming a row past the array's (reported when
                            // the metadata arrives; the load is dropped)
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
    logic [1:0]  kpe;   // log2 of the K-rows each PE takes a cycle: 0 one; 1 two ("double row": FP8 on
                        // v3+, INT8/UINT8; partition r holds rows 2r (low byte) and 2r + 1 of a column
                        // in one 2-byte element, K <= 2 R); 2 four (MX on v4: rows 4r + j in byte j of
                        // a 4-byte element, E2M1 in nibble j of a 2-byte one, K <= 4 R; the multiply's
                        // scales read beside its elements, 4 columns a read: sc_addr 4-aligned); 3 reserved
    logic        pbf;   // MultiplyMoving (v4): BF16 PSUM entries: the FP32 sum (accumulate: the stored entry
                        // + the new sum, one FP32 addition) rounded once to BF16; the entry is the 32-bit
                        // word of that value (BF16 code in bits 31:16, the low half zero)
    logic        sr;    // with pbf: stochastic rounding with the PSUM partition's generator, else RNE
    logic        seed_ld;  // MultiplyMoving: first load `seed` into every partition's generator (the
                           // command waits until the array holds no column)
    logic [31:0] seed;
    logic [2:0]  spm;   // structured sparsity (v3+): log2 M, the group of K rows (1..4: M = 2..16); 0 dense
    logic [1:0]  spq;   // log2 (M / N), N rows kept of every M (1 or 2: half or a quarter; <= spm). A load's
                        // K is its kept rows (one a PE; sc_addr: byte of partition r = row r's index in its
                        // group, the same for every column); the multiply's element holds 1 << spq rows
                        // (row (r << spq) + j in lane j: 2-byte types 2 rows, 1-byte types 2 or 4)
    logic [1:0]  rg;    // row groups, log2 (v2: 1; v3+: 1 or 2): the array as 1 << rg groups of R >> rg rows,
                        // each an independent matmul of K <= its rows on its own partitions (a load's
                        // column fills every group; K rows from each group's first partition), writing
                        // PSUM bank `bank` + g (bank a multiple of the groups); no MX, sparsity,
                        // transpose or stochastic rounding; a multiply's rg is its weights'
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

  function automatic logic te_is_int(logic [3:0] fmt);
    return fmt == TeInt8 || fmt == TeUint8;
  endfunction

  function automatic logic te_is_fp8(logic [3:0] fmt);
    return fmt >= FmtE5m2 && fmt <= FmtE3m4;
  endfunction

  // Code j of a four-row MX element (kpe 2): E2M1 nibble j, else byte j.
  function automatic logic [7:0] te_mx_lane(logic [31:0] code, logic [3:0] fmt, int unsigned j);
    return (fmt == FmtE2m1) ? {4'd0, code[4*j +: 4]} : code[8*j +: 8];
  endfunction

  // An integer code as a 16-bit lane (INT8 sign-, UINT8 zero-extended).
  function automatic logic [15:0] te_int_lane(logic [7:0] code, logic [3:0] fmt);
    return (fmt == TeInt8) ? {{8{code[7]}}, code} : {8'd0, code};
  endfunction

  // An operand as the array holds it. One row per PE (kpe 0): FP32, narrow codes decoded exactly
  // (FP8 with its bias), TF32 = FP32 rounded to 10 mantissa bits (RNE), FP32 as is (NaN
  // canonical); an integer in the low 16-bit lane (the high one unread). Two rows per PE (kpe 1): the element's two
  // codes as two 16-bit lanes, row 2r in the low one: an FP8 code decoded to BF16 (exact: every
  // FP8 value with any bias is a BF16 normal number or zero, Inf, NaN), an integer extended. Four
  // rows per PE (kpe 2, MX): the element's raw codes, decoded in the PE.
  function automatic logic [31:0] te_operand(logic [31:0] code, logic [3:0] fmt, logic [5:0] bias, logic [1:0] kpe);
    fmt_desc_t d;
    if (kpe == 2'd2) return code;
    // (one row: the element is one byte, so the high lane is 0, and the PE never reads it)
    if (te_is_int(fmt)) return {te_int_lane(code[15:8], fmt), te_int_lane(code[7:0], fmt)};
    if (kpe != 2'd0) begin
      d = fmt_desc(fmt);
      return {16'(decode(d, eff_bias(d, bias), {24'd0, code[15:8]}) >> 16),
              16'(decode(d, eff_bias(d, bias), {24'd0, code[7:0]}) >> 16)};
    end
    if (fmt == FmtTf32) return decode(fmt_desc(FmtTf32), 8'd127, encode(fmt_desc(FmtTf32), 8'd127, code, 1'b0,
                                                                         32'd0, 1'b0, 12'sd0));
    d = fmt_desc(fmt);
    return decode(d, eff_bias(d, bias), code);
  endfunction

  // Formats a PE multiplies: FP32, TF32, BF16, FP16, the FP8 variants, E2M1, INT8, UINT8.
  function automatic logic te_is_pe_fmt(logic [3:0] fmt);
    return fmt <= FmtE2m1 || te_is_int(fmt);
  endfunction

  // One PE on operands as te_operand gives them; row j of the PE (K row (r << kpe) + j) adds only
  // with en[j] (below K). FP: ps_out = ps_in + w * x (exact product for narrow types, one rounding
  // for FP32; one IEEE FP32 addition); with two rows (kpe 1) the low lanes' product is added
  // first, then the high lanes'; with four (kpe 2) the MX codes j = 0..3 in order, each decoded
  // with its format's standard bias (wf, xf) and the product exact. Integer (ints): ps_in + w0 * x0
  // (+ w1 * x1) in INT32 with wrap.
  function automatic logic [31:0] te_pe(logic [31:0] ps_in, logic [3:0] en, logic [1:0] kpe, logic ints,
                                        logic [3:0] wf, logic [3:0] xf, logic [31:0] w, logic [31:0] x);
    logic [31:0] s;
    fmt_desc_t dw, dx;
    s = ps_in;
    if (ints) begin
      if (en[0]) s = s + 32'($signed(w[15:0]) * $signed(x[15:0]));
      if (en[1]) s = s + 32'($signed(w[31:16]) * $signed(x[31:16]));
    end else if (kpe == 2'd2) begin
      dw = fmt_desc(wf);
      dx = fmt_desc(xf);
      for (int unsigned j = 0; j < 4; j++)
        if (en[j]) s = fp32_add_f(s, fp32_mul_f(decode(dw, dw.bias, {24'd0, te_mx_lane(w, wf, j)}),
                                               decode(dx, dx.bias, {24'd0, te_mx_lane(x, xf, j)})));
    end else begin
      if (en[0]) s = fp32_add_f(s, fp32_mul_f(kpe[0] ? {w[15:0], 16'd0} : w, kpe[0] ? {x[15:0], 16'd0} : x));
      if (en[1]) s = fp32_add_f(s, fp32_mul_f({w[31:16], 16'd0}, {x[31:16], 16'd0}));
    end
    return s;
  endfunction
endpackage
