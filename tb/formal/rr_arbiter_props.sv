// Properties of rtl/common/rr_arbiter.sv for scripts/formal (docs/formal.md). Requesters hold
// their request and data until it is taken (the valid/ready rule); the grant side takes freely.
//   arb_onehot     at most one request is taken a cycle, and only through the grant
//   arb_granted    a grant names a requester that asks, carries its data, and there is a grant
//                  whenever anyone asks (work conserving)
//   arb_hold       a grant not taken stays on the same requester the next cycle
//   arb_fair       (Fair = 1) a requester that keeps asking is taken before any other requester is
//                  taken N times: round robin serves everyone
module rr_arbiter_props #(
  parameter int unsigned N     = 3,
  parameter int unsigned Width = 2,
  parameter bit          Fair  = 0
) (
  input logic                    clk_i,
  input logic                    rst_ni,
  input logic [N-1:0]            req_valid_i,
  input logic [N-1:0][Width-1:0] req_data_i,
  input logic                    gnt_ready_i
);
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1;
  logic [N-1:0]     req_ready_o;
  logic             gnt_valid_o;
  logic [Width-1:0] gnt_data_o;
  logic [IdxW-1:0]  gnt_idx_o;
  rr_arbiter #(.N(N), .Width(Width)) dut (.*);

  logic init_q;  // the first cycle, in reset
  formal_start u_start (.clk_i, .rst_ni, .init_o(init_q));

  logic [N-1:0]            was_wait_q;  // asked and not taken last cycle
  logic [N-1:0][Width-1:0] was_data_q;
  logic                    was_hold_q, was_run_q;
  logic [IdxW-1:0]         was_idx_q;
  logic [N-1:0][7:0]       others_q;    // per requester: others taken while it waits
  always_ff @(posedge clk_i) begin
    was_wait_q <= req_valid_i & ~req_ready_o;
    was_data_q <= req_data_i;
    was_hold_q <= gnt_valid_o && !gnt_ready_i;
    was_idx_q  <= gnt_idx_o;
    was_run_q  <= rst_ni && !init_q;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      others_q <= '0;
    end else begin
      for (int unsigned i = 0; i < N; i++)
        if (!req_valid_i[i] || req_ready_o[i]) others_q[i] <= '0;
        else if (|req_ready_o && others_q[i] != 8'hff) others_q[i] <= others_q[i] + 1'b1;
    end
  end

  logic served;  // no requester has waited while others were taken N times
  always_comb begin
    served = 1'b1;
    for (int unsigned i = 0; i < N; i++) if (32'(others_q[i]) >= N) served = 1'b0;
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      if (was_run_q)
        for (int unsigned i = 0; i < N; i++)
          if (was_wait_q[i]) assume (req_valid_i[i] && req_data_i[i] == was_data_q[i]);
      arb_onehot: assert ($onehot0(req_ready_o) && (req_ready_o == '0 ||
                          (gnt_valid_o && gnt_ready_i && req_ready_o == N'(1) << gnt_idx_o)));
      arb_granted: assert (gnt_valid_o == (req_valid_i != '0) &&
                           (!gnt_valid_o || (32'(gnt_idx_o) < N && req_valid_i[gnt_idx_o] &&
                                             gnt_data_o == req_data_i[gnt_idx_o])));
      if (was_run_q && was_hold_q) arb_hold: assert (gnt_idx_o == was_idx_q);
      if (Fair) arb_fair: assert (served);
    end
  end
endmodule
