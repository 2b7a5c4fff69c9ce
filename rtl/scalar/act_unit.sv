// act_unit — Lanes activation units of the scalar engine: y = f(x) for the function code func_i
// (act_pkg::act_e), FP32 in and out, bit-exact with trn::scalar::activate (docs/activations.md).
// Latency 1, one result per lane per cycle; y_o holds while valid_i is low; no back-pressure.
// The datapath is combinational in one stage (the deepest function, gelu, chains the exp and
// reciprocal kernels): a model of the arithmetic, not of a timing-closed pipeline.
module act_unit import act_pkg::*; #(
  parameter int unsigned Lanes = 4
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  valid_i,
  input  logic [3:0]            func_i,
  input  logic [Lanes*32-1:0]   x_i,
  output logic                  valid_o,
  output logic [Lanes*32-1:0]   y_o
);
  logic [Lanes*32-1:0] y_d;

  always_comb begin
    for (int unsigned l = 0; l < Lanes; l++) y_d[l*32 +: 32] = activate(func_i, x_i[l*32 +: 32]);
  end

  pipe_reg #(.Width(Lanes*32)) u_out (
    .clk_i, .rst_ni, .valid_i, .data_i(y_d), .valid_o, .data_o(y_o)
  );
endmodule
