// rr_arbiter — round-robin arbiter of N valid/ready requesters onto one valid/ready output.
//
// Arbitration: the requester with the highest priority wins; priority rotates so that the one
//   after the last winner (in index order, wrapping) comes first. A grant that is not accepted
//   (gnt_valid_o & !gnt_ready_i) is held: the same requester keeps the grant until the
//   handshake, even if a higher-priority request arrives. If a held requester withdraws its
//   request (a valid/ready protocol violation), the lock is dropped and arbitration restarts.
// Latency: combinational, zero cycles from req_valid_i to gnt_valid_o and from gnt_ready_i to
//   req_ready_o. Throughput: one grant per cycle.
// Fairness: a requester that keeps its request is granted within N handshakes.
// Outputs while nothing is requested: gnt_valid_o = 0, gnt_idx_o = 0, gnt_data_o = 0.
module rr_arbiter #(
  parameter int unsigned N     = 4,   /// requesters
  parameter int unsigned Width = 16,  /// payload bits per requester
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  // requesters
  input  logic [N-1:0]              req_valid_i,
  output logic [N-1:0]              req_ready_o,
  input  logic [N-1:0][Width-1:0]   req_data_i,
  // granted output
  output logic                      gnt_valid_o,
  input  logic                      gnt_ready_i,
  output logic [Width-1:0]          gnt_data_o,
  output logic [IdxW-1:0]           gnt_idx_o
);
  logic [IdxW-1:0] prio_q, prio_d;       // requester with the highest priority
  logic            lock_q, lock_d;       // a grant is being held
  logic [IdxW-1:0] lock_idx_q, lock_idx_d;

  logic            found;
  logic [IdxW-1:0] idx;
  logic [IdxW:0]   cand;                 // candidate index before wrapping

  always_comb begin
    found = 1'b0;
    idx   = '0;
    cand  = '0;
    if (lock_q && req_valid_i[lock_idx_q]) begin
      found = 1'b1;
      idx   = lock_idx_q;
    end else begin
      for (int unsigned i = 0; i < N; i++) begin
        // candidate (prio_q + i) mod N, wrapped without a modulo
        cand = {1'b0, prio_q} + (IdxW + 1)'(i);
        if (cand >= (IdxW + 1)'(N)) cand = cand - (IdxW + 1)'(N);
        if (!found && req_valid_i[cand[IdxW-1:0]]) begin
          found = 1'b1;
          idx   = cand[IdxW-1:0];
        end
      end
    end
  end

  assign gnt_valid_o = found;
  assign gnt_idx_o   = idx;
  assign gnt_data_o  = found ? req_data_i[idx] : '0;

  always_comb begin
    req_ready_o = '0;
    if (found && gnt_ready_i) req_ready_o[idx] = 1'b1;
  end

  always_comb begin
    prio_d     = prio_q;
    lock_d     = 1'b0;
    lock_idx_d = lock_idx_q;
    if (found && gnt_ready_i) begin
      prio_d = (idx == IdxW'(N - 1)) ? '0 : idx + 1'b1;
    end else if (found) begin
      lock_d     = 1'b1;
      lock_idx_d = idx;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prio_q     <= '0;
      lock_q     <= 1'b0;
      lock_idx_q <= '0;
    end else begin
      prio_q     <= prio_d;
      lock_q     <= lock_d;
      lock_idx_q <= lock_idx_d;
    end
  end

`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  // a grant not taken last cycle, to its requester
  logic            a_wait_q, a_wait_d;
  logic [IdxW-1:0] a_idx_q, a_idx_d;
  assign a_wait_d = found && !gnt_ready_i;
  assign a_idx_d = idx;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_wait_q <= 1'b0;
      a_idx_q <= '0;
    end else begin
      a_wait_q <= a_wait_d;
      a_idx_q <= a_idx_d;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      a_one_taken: assert ($onehot0(req_ready_o))
        else $error("requests taken at once: %b", req_ready_o);
      a_taken_was_granted: assert (req_ready_o == '0 || (found && gnt_ready_i && req_ready_o[idx]))
        else $error("request taken without its grant taken: %b, grant %0d", req_ready_o, idx);
      a_grant_requested: assert (!found || req_valid_i[idx])
        else $error("grant to requester %0d, which does not request", idx);
      a_grant_held: assert (!(a_wait_q && req_valid_i[a_idx_q]) || (found && idx == a_idx_q))
        else $error("requester %0d's grant waited and moved to %0d", a_idx_q, idx);
    end
  end
`endif
endmodule
