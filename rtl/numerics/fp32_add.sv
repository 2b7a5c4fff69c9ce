// fp32_add — Lanes IEEE binary32 adders (RNE, subnormals kept, every NaN result 0x7FC00000).
// Latency 1: y_o holds the sums of the operands presented with valid_i on the previous cycle;
// throughput one result per lane per cycle; y_o keeps its value while valid_i is low. No
// back-pressure: the consumer takes every result. Datapath: numerics_pkg::fp32_add_f.
module fp32_add import numerics_pkg::*; #(
  parameter int unsigned Lanes = 4
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  valid_i,
  input  logic [Lanes*32-1:0]   a_i,
  input  logic [Lanes*32-1:0]   b_i,
  output logic                  valid_o,
  output logic [Lanes*32-1:0]   y_o
);
  logic [Lanes*32-1:0] y_d;

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) y_d[l*32 +: 32] = fp32_add_f(a_i[l*32 +: 32], b_i[l*32 +: 32]);
  end

  pipe_reg #(.Width(Lanes*32)) u_out (
    .clk_i, .rst_ni, .valid_i, .data_i(y_d), .valid_o, .data_o(y_o)
  );
endmodule
