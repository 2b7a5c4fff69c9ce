// fp_encode — Lanes conversions FP32 -> fmt_i (BF16, FP16, each FP8 variant with the 6-bit bias
// register bias_i, E2M1, E8M0) per cycle, RNE or stochastic (sr_i), with saturation (sat_i).
// Lane l converts when lane_en_i[l] (code 0 otherwise); in stochastic mode it takes the next word
// of its own generator (sr_rng), which steps once per converted element. seed_load_i loads seed_i
// into the generators (the conversion of the same cycle still uses the old words). Codes are
// zero-extended to 16 bits per lane. A fmt_i outside the list gives 0.
// Latency 1, one code per lane per cycle; code_o holds while valid_i is low.
module fp_encode import numerics_pkg::*; #(
  parameter int unsigned Lanes = 4
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  valid_i,
  input  logic [3:0]            fmt_i,        /// numerics_pkg::fmt_e
  input  logic [5:0]            bias_i,       /// FP8 exponent-bias register
  input  logic                  sr_i,         /// 1: stochastic rounding, 0: RNE
  input  logic                  sat_i,        /// overflow and Inf saturate to +-max
  input  logic [Lanes-1:0]      lane_en_i,
  input  logic                  seed_load_i,
  input  logic [31:0]           seed_i,
  input  logic [Lanes*32-1:0]   data_i,
  output logic                  valid_o,
  output logic [Lanes*16-1:0]   code_o
);
  logic [Lanes*32-1:0] rnd;
  logic [Lanes-1:0] advance;
  logic [Lanes*16-1:0] code_d;
  fmt_desc_t d;

  assign advance = (valid_i && sr_i && !seed_load_i) ? lane_en_i : '0;

  sr_rng #(.Lanes(Lanes)) u_rng (
    .clk_i, .rst_ni, .load_i(seed_load_i), .seed_i, .advance_i(advance), .rnd_o(rnd)
  );

  always_comb begin
    d = fmt_desc(fmt_i);
    for (int unsigned l = 0; l < Lanes; l++) begin
      code_d[l*16 +: 16] = '0;
      if (is_convert_fmt(fmt_i) && lane_en_i[l])
        code_d[l*16 +: 16] = 16'(encode(d, eff_bias(d, bias_i), data_i[l*32 +: 32], sr_i, rnd[l*32 +: 32], sat_i,
                                        12'sd0));
    end
  end

  pipe_reg #(.Width(Lanes*16)) u_out (
    .clk_i, .rst_ni, .valid_i, .data_i(code_d), .valid_o, .data_o(code_o)
  );
endmodule
