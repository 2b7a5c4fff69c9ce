// mx_quantize — one MX block per cycle (OCP MX v1.0, SPEC section 4): 32 FP32 values in, one E8M0
// scale and 32 element codes out. Latency 2, throughput one block per cycle, no back-pressure.
//   stage 1: floor(log2(amax)) over the nonzero values and Inf/NaN detection -> shared exponent
//            = amax exponent - emax(elem) (+1 when neuron_i: Neuron's variant, scale 2x larger),
//            clamped to [-127, 127]; an all-zero block gets -127. Registered with the values.
//   stage 2: each element = RNE(v / 2^shared), exact before the one rounding, saturated to +-max.
// elem_i: FmtE4m3fn or FmtE5m2 (MXFP8) or FmtE2m1 (MXFP4, code in the low 4 bits of its byte).
// Any Inf or NaN in the block, or another elem_i, gives scale 0xFF (NaN) and zero codes.
module mx_quantize import numerics_pkg::*; (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          valid_i,
  input  logic [3:0]    elem_i,
  input  logic          neuron_i,
  input  logic [1023:0] data_i,    /// value i in data_i[32*i +: 32]
  output logic          valid_o,
  output logic [7:0]    scale_o,
  output logic [255:0]  codes_o    /// code i in codes_o[8*i +: 8]
);
  localparam int unsigned N = 32;

  function automatic logic is_mx_elem(logic [3:0] f);
    return f == FmtE4m3fn || f == FmtE5m2 || f == FmtE2m1;
  endfunction

  typedef struct packed {
    logic [1023:0]      data;
    logic [3:0]         elem;
    logic               nan;
    logic signed [11:0] exp;  // shared exponent
  } stage1_t;

  // ---- stage 1
  stage1_t s1_d, s1_q;
  logic s1_valid;

  always_comb begin
    unpacked_t u;
    fmt_desc_t d;
    logic any;
    logic signed [11:0] amax, emax, se;
    d = fmt_desc(elem_i);
    any = 1'b0;
    amax = '0;
    s1_d = '0;
    s1_d.data = data_i;
    s1_d.elem = elem_i;
    for (int unsigned i = 0; i < N; i++) begin
      u = unpack(Fp32Desc, data_i[32*i +: 32], 8'd127);
      if (u.nan || u.inf) s1_d.nan = 1'b1;
      if (!u.zero && !u.nan && !u.inf) begin
        if (!any || u.exp > amax) amax = u.exp;
        any = 1'b1;
      end
    end
    emax = $signed({4'b0, 8'(max_mag(d) >> d.man_bits)}) - $signed({4'b0, d.bias});
    se = amax - emax + (neuron_i ? 12'sd1 : 12'sd0);
    if (!any || se < -12'sd127) se = -12'sd127;
    else if (se > 12'sd127) se = 12'sd127;
    s1_d.exp = is_mx_elem(elem_i) ? se : 12'sd0;
  end

  pipe_reg #(.Width($bits(stage1_t))) u_s1 (
    .clk_i, .rst_ni, .valid_i, .data_i(s1_d), .valid_o(s1_valid), .data_o(s1_q)
  );

  // ---- stage 2
  logic [263:0] s2_d;  // {scale, codes}

  always_comb begin
    fmt_desc_t d;
    d = fmt_desc(s1_q.elem);
    s2_d = '0;
    if (s1_q.nan || !is_mx_elem(s1_q.elem)) begin
      s2_d[263:256] = 8'hFF;
    end else begin
      s2_d[263:256] = 8'(s1_q.exp + 12'sd127);
      for (int unsigned i = 0; i < N; i++)
        s2_d[8*i +: 8] = 8'(encode(d, d.bias, s1_q.data[32*i +: 32], 1'b0, 32'd0, 1'b1, s1_q.exp));
    end
  end

  pipe_reg #(.Width(264)) u_s2 (
    .clk_i, .rst_ni, .valid_i(s1_valid), .data_i(s2_d), .valid_o, .data_o({scale_o, codes_o})
  );
endmodule
