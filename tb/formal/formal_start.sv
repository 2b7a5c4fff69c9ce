// formal_start — the first cycle of every proof of scripts/formal (docs/formal.md): init_o is high
// in the first cycle only, and reset is held low in it, so every trace starts in reset.
module formal_start (
  input  logic clk_i,
  input  logic rst_ni,
  output logic init_o
);
  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);
  assign init_o = init_q;
endmodule
