// fp_decode — Lanes conversions fmt_i (BF16, FP16, each FP8 variant with the 6-bit bias register
// bias_i, E2M1, E8M0) -> FP32 per cycle, exact; every NaN gives 0x7FC00000. Codes sit in the low
// bits of each 16-bit lane (higher bits ignored). A fmt_i outside the list gives 0.
// Latency 1, one value per lane per cycle; data_o holds while valid_i is low.
module fp_decode import numerics_pkg::*; #(
  parameter int unsigned Lanes = 4
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  valid_i,
  input  logic [3:0]            fmt_i,
  input  logic [5:0]            bias_i,
  input  logic [Lanes*16-1:0]   code_i,
  output logic                  valid_o,
  output logic [Lanes*32-1:0]   data_o
);
  logic [Lanes*32-1:0] data_d;
  fmt_desc_t d;

  always_comb begin
    d = fmt_desc(fmt_i);
    for (int unsigned l = 0; l < Lanes; l++)
      data_d[l*32 +: 32] = is_convert_fmt(fmt_i) ? decode(d, eff_bias(d, bias_i), {16'b0, code_i[l*16 +: 16]})
                                                 : 32'd0;
  end

  pipe_reg #(.Width(Lanes*32)) u_out (
    .clk_i, .rst_ni, .valid_i, .data_i(data_d), .valid_o, .data_o(data_o)
  );
endmodule
