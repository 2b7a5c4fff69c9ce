// stream_fifo — a valid/ready FIFO of Depth entries of Width bits.
//
// Latency: an item accepted at clock edge n is offered on the pop side from edge n (one cycle,
//   no fall-through from push to pop).
// Throughput: one push and one pop per cycle. A push is accepted only while the FIFO is not full;
//   a pop in the same cycle does not make room for it (push_ready_o depends on state only).
// Outputs: all registered (functions of state only), so the FIFO breaks every combinational path.
// Reset: asynchronous, active low; clears the storage too, so every output is defined.
// Assumes: Depth >= 1; the producer keeps push_data_i stable while push_valid_i waits for ready.
module stream_fifo #(
  parameter int unsigned Width = 16,  /// payload bits
  parameter int unsigned Depth = 4    /// entries
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // push side
  input  logic                       push_valid_i,
  output logic                       push_ready_o,
  input  logic [Width-1:0]           push_data_i,
  // pop side
  output logic                       pop_valid_o,
  input  logic                       pop_ready_i,
  output logic [Width-1:0]           pop_data_o,
  /// number of entries held
  output logic [$clog2(Depth+1)-1:0] usage_o
);
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntW = $clog2(Depth + 1);
  localparam logic [PtrW-1:0] LastPtr = PtrW'(Depth - 1);

  logic [Width-1:0] mem_q [Depth];
  logic [PtrW-1:0]  rptr_q, rptr_d, wptr_q, wptr_d;
  logic [CntW-1:0]  count_q, count_d;
  logic             push, pop;

  assign push_ready_o = (count_q != CntW'(Depth));
  assign pop_valid_o  = (count_q != '0);
  assign pop_data_o   = mem_q[rptr_q];
  assign usage_o      = count_q;

  assign push = push_valid_i & push_ready_o;
  assign pop  = pop_valid_o & pop_ready_i;

  always_comb begin
    rptr_d  = rptr_q;
    wptr_d  = wptr_q;
    count_d = count_q;
    if (push) wptr_d = (wptr_q == LastPtr) ? '0 : wptr_q + 1'b1;
    if (pop)  rptr_d = (rptr_q == LastPtr) ? '0 : rptr_q + 1'b1;
    unique case ({push, pop})
      2'b10:   count_d = count_q + 1'b1;
      2'b01:   count_d = count_q - 1'b1;
      default: count_d = count_q;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rptr_q  <= '0;
      wptr_q  <= '0;
      count_q <= '0;
    end else begin
      rptr_q  <= rptr_d;
      wptr_q  <= wptr_d;
      count_q <= count_d;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned i = 0; i < Depth; i++) mem_q[i] <= '0;
    end else if (push) begin
      mem_q[wptr_q] <= push_data_i;
    end
  end

`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      a_count_in_range: assert (count_q <= CntW'(Depth))
        else $error("holds %0d entries, has %0d", count_q, Depth);
      a_pointers_agree: assert ((32'(wptr_q) + Depth - 32'(rptr_q)) % Depth == 32'(count_q) % Depth)
        else $error("write pointer %0d, read pointer %0d, %0d entries", wptr_q, rptr_q, count_q);
    end
  end
`endif
endmodule
