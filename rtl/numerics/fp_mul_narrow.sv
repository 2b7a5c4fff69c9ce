// fp_mul_narrow — Lanes products of two narrow operands as FP32: BF16, FP16, each FP8 variant with
// its 6-bit bias register, or E2M1; a and b each have their own format (fmt_*_i, numerics_pkg::fmt_e).
// The significands (at most 11 bits) meet in an 11x11 multiplier, so the product is exact wherever
// FP32 can hold it (BF16 extremes round once, RNE). NaN -> 0x7FC00000; Inf x 0 -> NaN. An operand
// format outside the list gives +0. Operand codes sit in the low bits of each 16-bit lane.
// Latency 1, one product per lane per cycle; y_o holds while valid_i is low.
module fp_mul_narrow import numerics_pkg::*; #(
  parameter int unsigned Lanes = 4
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  valid_i,
  input  logic [3:0]            fmt_a_i,
  input  logic [5:0]            bias_a_i,
  input  logic [3:0]            fmt_b_i,
  input  logic [5:0]            bias_b_i,
  input  logic [Lanes*16-1:0]   a_i,
  input  logic [Lanes*16-1:0]   b_i,
  output logic                  valid_o,
  output logic [Lanes*32-1:0]   y_o
);
  logic [Lanes*32-1:0] y_d;

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++)
      y_d[l*32 +: 32] = mul_narrow_f(fmt_a_i, bias_a_i, a_i[l*16 +: 16], fmt_b_i, bias_b_i, b_i[l*16 +: 16]);
  end

  pipe_reg #(.Width(Lanes*32)) u_out (
    .clk_i, .rst_ni, .valid_i, .data_i(y_d), .valid_o, .data_o(y_o)
  );
endmodule
