// Properties of rtl/common/credit_counter.sv for scripts/formal (docs/formal.md). The sender takes
// a credit only while one is available and the receiver returns only credits it holds (a shadow of
// the credits out); then:
//   credit_conserved  the credits held plus the credits out are always MaxCredits: a credit is never
//                     spent twice nor made up
//   credit_flags      avail_o exactly when a credit is held, full_o exactly when all are
//   credit_no_error   error_o never rises
// and, the environment left free (credit_error): a take without a credit or a give beyond
// MaxCredits raises error_o the next cycle, and it stays.
module credit_counter_props #(
  parameter int unsigned MaxCredits = 3,
  parameter bit          Legal      = 1  // 1: the environment above; 0: free, for credit_error
) (
  input logic clk_i,
  input logic rst_ni,
  input logic take_i,
  input logic give_i
);
  localparam int unsigned CntW = $clog2(MaxCredits + 1);
  logic [CntW-1:0] count_o;
  logic            avail_o, full_o, error_o;
  credit_counter #(.MaxCredits(MaxCredits)) dut (.*);

  logic init_q;  // the first cycle, in reset
  formal_start u_start (.clk_i, .rst_ni, .init_o(init_q));

  logic [CntW-1:0] out_q;  // credits the receiver holds
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_q <= '0;
    else if (take_i && !give_i && avail_o) out_q <= out_q + 1'b1;
    else if (give_i && !take_i && out_q != '0) out_q <= out_q - 1'b1;
  end

  logic bad_q, was_run_q;  // the last cycle was an illegal take or give
  always_ff @(posedge clk_i) begin
    bad_q     <= (take_i && count_o == '0) || (give_i && !take_i && count_o == CntW'(MaxCredits));
    was_run_q <= rst_ni && !init_q;
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      if (Legal) begin
        assume (!take_i || avail_o);
        assume (!give_i || out_q != '0 || take_i);
        credit_conserved: assert (32'(count_o) + 32'(out_q) == MaxCredits);
        credit_flags: assert (avail_o == (count_o != '0) && full_o == (count_o == CntW'(MaxCredits)));
        credit_no_error: assert (!error_o);
      end else if (was_run_q && bad_q) begin
        credit_error: assert (error_o);
      end
    end
  end
endmodule
