// Properties of the NeuronLink link layer (rtl/link/link_tx.sv, link_rx.sv through link_pair.sv)
// for scripts/formal (docs/formal.md). The channel between the two ends is the solver's: a flit
// takes one cycle, and any flit may arrive with a bit flipped (corrupt) and any acknowledgement
// or negative acknowledgement may be lost. Whatever it does:
//   link_in_order   the k-th flit delivered is the k-th accepted (k the solver's, fixed): nothing
//                   lost, duplicated or reordered in between, and nothing delivered beyond what
//                   was accepted (the k-th delivered with no k-th accepted fails it)
module link_pair_props #(
  parameter int unsigned W       = 4,
  parameter int unsigned Depth   = 4,
  parameter int unsigned Timeout = 6
) (
  input logic         clk_i,
  input logic         rst_ni,
  input logic         in_valid_i,
  input logic [W-1:0] in_data_i,
  input logic         corrupt_i,   // the flit on the wire arrives with bit 0 of its data flipped
  input logic         lose_ack_i,  // the acknowledgement on the wire is lost
  input logic         lose_nack_i, // the negative acknowledgement on the wire is lost
  input logic [7:0]   k_i          // which flit is followed (held for the run)
);
  localparam int unsigned DB = $clog2(Depth), SB = DB + 2;
  logic in_ready_o, tx_valid_o, out_valid_o, rack_valid_o, rnack_valid_o;
  logic [SB-1:0] tx_seq_o, rack_seq_o, rnack_seq_o;
  logic [W-1:0] tx_data_o, out_data_o;
  logic [15:0] tx_crc_o;
  logic [DB:0] held_o;
  logic [31:0] replays_o, timeouts_o, crc_errors_o, drops_o;
  // the channel: a register each way
  logic          rx_valid_i, ack_valid_i, nack_valid_i;
  logic [SB-1:0] rx_seq_i, ack_seq_i, nack_seq_i;
  logic [W-1:0]  rx_data_i;
  logic [15:0]   rx_crc_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_valid_i <= 1'b0;
      ack_valid_i <= 1'b0;
      nack_valid_i <= 1'b0;
    end else begin
      rx_valid_i <= tx_valid_o;
      rx_seq_i <= tx_seq_o;
      rx_data_i <= tx_data_o ^ W'(corrupt_i);
      rx_crc_i <= tx_crc_o;
      ack_valid_i <= rack_valid_o && !lose_ack_i;
      ack_seq_i <= rack_seq_o;
      nack_valid_i <= rnack_valid_o && !lose_nack_i;
      nack_seq_i <= rnack_seq_o;
    end
  end
  link_pair #(.W(W), .Depth(Depth), .Timeout(Timeout)) dut (.*);

  logic init_q;  // the first cycle, in reset
  formal_start u_start (.clk_i, .rst_ni, .init_o(init_q));
  always_comb if (!init_q) assume (rst_ni);

  // the k-th flit: which one is the solver's, fixed for the run
  logic [7:0] k;
  always_ff @(posedge clk_i) k <= k_i;
  always_comb if (!init_q) assume (k_i == k);
  logic [7:0]   sent_q, got_q;
  logic [W-1:0] kth_q;
  logic         have_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sent_q <= '0;
      got_q  <= '0;
      have_q <= 1'b0;
    end else begin
      if (in_valid_i && in_ready_o) begin
        if (sent_q == k) begin
          kth_q  <= in_data_i;
          have_q <= 1'b1;
        end
        if (sent_q != 8'hff) sent_q <= sent_q + 1'b1;
      end
      if (out_valid_o && got_q != 8'hff) got_q <= got_q + 1'b1;
    end
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      if (out_valid_o && got_q == k) link_in_order: assert (have_q && out_data_o == kth_q);
    end
  end
endmodule
