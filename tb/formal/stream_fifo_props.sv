// Properties of rtl/common/stream_fifo.sv for scripts/formal (docs/formal.md). The wrapper drives
// the FIFO's inputs freely (the producer holds its data while it waits, as the FIFO assumes) and
// checks, on the ports alone:
//   fifo_bound     the FIFO never holds more than Depth entries (no overflow)
//   fifo_flags     pop_valid_o exactly when it holds an entry, push_ready_o exactly when not full
//   fifo_count     each cycle the usage moves by the push accepted minus the pop taken
//   fifo_order     what leaves is what came in, in order, and nothing else (a shadow queue)
module stream_fifo_props #(
  parameter int unsigned Width = 4,
  parameter int unsigned Depth = 3
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             push_valid_i,
  input logic [Width-1:0] push_data_i,
  input logic             pop_ready_i
);
  localparam int unsigned CntW = $clog2(Depth + 1);
  logic             push_ready_o, pop_valid_o;
  logic [Width-1:0] pop_data_o;
  logic [CntW-1:0]  usage_o;
  stream_fifo #(.Width(Width), .Depth(Depth)) dut (.*);

  // the run starts in reset
  logic init_q;  // the first cycle, in reset
  formal_start u_start (.clk_i, .rst_ni, .init_o(init_q));

  // the last cycle's handshakes and usage
  logic            was_push_q, was_pop_q, was_run_q;
  logic [CntW-1:0] was_usage_q;
  always_ff @(posedge clk_i) begin
    was_push_q  <= push_valid_i && push_ready_o;
    was_pop_q   <= pop_valid_o && pop_ready_i;
    was_usage_q <= usage_o;
    was_run_q   <= rst_ni && !init_q;
  end

  // the shadow queue: what the FIFO must hold, oldest first
  logic [Width-1:0] shadow_q [Depth];
  logic [CntW-1:0]  shadow_n_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      shadow_n_q <= '0;
    end else begin
      automatic logic [CntW-1:0] n = shadow_n_q;
      if (pop_valid_o && pop_ready_i && n != 0) begin
        for (int unsigned i = 0; i + 1 < Depth; i++) shadow_q[i] <= shadow_q[i + 1];
        n = n - 1'b1;
      end
      if (push_valid_i && push_ready_o && n < Depth) shadow_q[n] <= push_data_i;
      if (push_valid_i && push_ready_o && n < Depth) n = n + 1'b1;
      shadow_n_q <= n;
    end
  end

  logic held;  // the entries from the read pointer on are the shadow queue's
  always_comb begin
    held = 1'b1;
    for (int unsigned i = 0; i < Depth; i++)
      if (i < 32'(shadow_n_q) && dut.mem_q[(32'(dut.rptr_q) + i) % Depth] != shadow_q[i]) held = 1'b0;
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      fifo_bound: assert (usage_o <= CntW'(Depth));
      fifo_flags: assert (pop_valid_o == (usage_o != '0) && push_ready_o == (usage_o != CntW'(Depth)));
      fifo_order: assert (usage_o == shadow_n_q && (!pop_valid_o || pop_data_o == shadow_q[0]));
      if (was_run_q)
        fifo_count: assert (usage_o == was_usage_q + CntW'(was_push_q) - CntW'(was_pop_q));
      // what makes fifo_order inductive: the pointers in range, the write pointer the read pointer
      // plus the usage, the entries from the read pointer on the shadow queue's
      fifo_ptrs: assert (32'(dut.rptr_q) < Depth && 32'(dut.wptr_q) < Depth);
      fifo_wptr: assert (32'(dut.wptr_q) == (32'(dut.rptr_q) + 32'(usage_o)) % Depth);
      fifo_held: assert (held);
    end
  end
endmodule
