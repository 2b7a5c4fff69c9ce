// sr_rng — the per-lane random words of stochastic rounding (SPEC section 4).
// Each lane owns a xorshift32 generator. load_i seeds lane l with seed_i ^ (l * 0x9E3779B9), 0
// replaced by 1 (reset loads seed 0). rnd_o[l] is the word lane l's next conversion uses, the state
// after one step (combinational from the state); advance_i[l] commits that step, once per converted
// element. load_i has priority over advance_i.
module sr_rng import numerics_pkg::*; #(
  parameter int unsigned Lanes = 4
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  load_i,     /// load seed_i into every lane
  input  logic [31:0]           seed_i,
  input  logic [Lanes-1:0]      advance_i,  /// lane l consumed rnd_o[l]
  output logic [Lanes*32-1:0]   rnd_o
);
  logic [31:0] state_q [Lanes];

  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    assign rnd_o[l*32 +: 32] = xorshift32(state_q[l]);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) state_q[l] <= sr_lane_seed(32'd0, 32'(l));
      else if (load_i) state_q[l] <= sr_lane_seed(seed_i, 32'(l));
      else if (advance_i[l]) state_q[l] <= rnd_o[l*32 +: 32];
    end
  end
endmodule
