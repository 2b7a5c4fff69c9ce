// link_chan — one directed link inside a network top (docs/link.md): link_tx (replay buffer of
// Depth flits) -> the wire -> link_rx, the receiver's ack/nack going straight back. The wire
// carries {crc, seq, data}; flip_i inverts bit flip_bit_i of it this cycle (the bench's channel
// model). CheckCrc = 0 builds a receiver that ignores the CRC (a broken link for self-tests).
module link_chan #(
  parameter int unsigned W       = 66,
  parameter int unsigned Depth   = 8,
  parameter int unsigned Timeout = 64,
  parameter bit          CheckCrc = 1'b1,
  localparam int unsigned SB = $clog2(Depth) + 2,
  localparam int unsigned FB = $clog2(16 + SB + W)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          in_valid_i,
  output logic          in_ready_o,
  input  logic [W-1:0]  in_data_i,
  output logic          out_valid_o,
  output logic [W-1:0]  out_data_o,
  input  logic          flip_i,
  input  logic [FB-1:0] flip_bit_i,
  output logic [SB-2:0] held_o,
  output logic [31:0]   crc_errors_o,
  output logic [31:0]   drops_o,
  output logic [31:0]   replays_o,
  output logic [31:0]   timeouts_o
);
  logic          tv, av, nv;
  logic [SB-1:0] ts, as, ns;
  logic [W-1:0]  td;
  logic [15:0]   tc;
  logic [16+SB+W-1:0] wire_v;
  link_tx #(.W(W), .Depth(Depth), .Timeout(Timeout)) u_tx (
    .clk_i, .rst_ni, .in_valid_i, .in_ready_o, .in_data_i, .tx_valid_o(tv), .tx_seq_o(ts), .tx_data_o(td),
    .tx_crc_o(tc), .ack_valid_i(av), .ack_seq_i(as), .nack_valid_i(nv), .nack_seq_i(ns), .held_o, .replays_o,
    .timeouts_o);
  assign wire_v = {tc, ts, td} ^ ((16 + SB + W)'(flip_i) << flip_bit_i);
  link_rx #(.W(W), .SB(SB), .CheckCrc(CheckCrc)) u_rx (
    .clk_i, .rst_ni, .rx_valid_i(tv), .rx_seq_i(wire_v[W +: SB]), .rx_data_i(wire_v[W-1:0]),
    .rx_crc_i(wire_v[W+SB +: 16]), .out_valid_o, .out_data_o, .ack_valid_o(av), .ack_seq_o(as),
    .nack_valid_o(nv), .nack_seq_o(ns), .crc_errors_o, .drops_o);
endmodule
