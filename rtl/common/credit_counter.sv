// credit_counter — sender-side credit counter for credit-based flow control.
//
// Holds the number of free buffer slots at the receiver. Starts (after reset) with MaxCredits.
// take_i spends a credit (a flit was sent); give_i returns one (the receiver freed a slot);
// both in one cycle leave the count unchanged.
// Outputs: all registered. avail_o = count > 0; full_o = every credit is home.
// Errors: taking while count = 0, or returning while count = MaxCredits, leaves the count
//   unchanged and sets the sticky error_o until reset. (A take and a give in the same cycle at
//   count = 0 is a take without a credit: an error.)
module credit_counter #(
  parameter int unsigned MaxCredits = 4,  /// receiver buffer slots
  localparam int unsigned CntW = $clog2(MaxCredits + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            take_i,   /// spend one credit; legal only while avail_o
  input  logic            give_i,   /// one credit returned by the receiver
  output logic [CntW-1:0] count_o,
  output logic            avail_o,
  output logic            full_o,
  output logic            error_o   /// sticky: a take without a credit or a give beyond MaxCredits
);
  localparam logic [CntW-1:0] Max = CntW'(MaxCredits);

  logic [CntW-1:0] count_q, count_d;
  logic            error_q, error_d;

  always_comb begin
    count_d = count_q;
    error_d = error_q;
    if (take_i && count_q == '0) begin
      error_d = 1'b1;  // no credit to spend: the count stays, whether or not one returns
    end else if (take_i && !give_i) begin
      count_d = count_q - 1'b1;
    end else if (give_i && !take_i) begin
      if (count_q == Max) error_d = 1'b1;
      else count_d = count_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q <= Max;
      error_q <= 1'b0;
    end else begin
      count_q <= count_d;
      error_q <= error_d;
    end
  end

  assign count_o = count_q;
  assign avail_o = (count_q != '0);
  assign full_o  = (count_q == Max);
  assign error_o = error_q;

`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      a_count_in_range: assert (count_q <= Max) else $error("%0d credits, at most %0d", count_q, MaxCredits);
    end
  end
`endif
endmodule
