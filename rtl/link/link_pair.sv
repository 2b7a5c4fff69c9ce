// link_pair — one NeuronLink link's two ends as a simulation top (docs/link.md): the sender
// (link_tx) and the receiver (link_rx) with their channels left open, so the bench carries the
// flits from tx_* to rx_* and the acknowledgements from rack_*/rnack_* back to ack_*/nack_*
// through its channel model (latency, bit errors, lost acknowledgements).
module link_pair #(
  parameter int unsigned W        = 128,
  parameter int unsigned Depth    = 16,
  parameter int unsigned Timeout  = 64,
  parameter bit          CheckCrc = 1'b1,
  localparam int unsigned DB = $clog2(Depth),
  localparam int unsigned SB = DB + 2
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          in_valid_i,
  output logic          in_ready_o,
  input  logic [W-1:0]  in_data_i,
  output logic          tx_valid_o,
  output logic [SB-1:0] tx_seq_o,
  output logic [W-1:0]  tx_data_o,
  output logic [15:0]   tx_crc_o,
  input  logic          ack_valid_i,
  input  logic [SB-1:0] ack_seq_i,
  input  logic          nack_valid_i,
  input  logic [SB-1:0] nack_seq_i,
  output logic [DB:0]   held_o,
  output logic [31:0]   replays_o,
  output logic [31:0]   timeouts_o,
  input  logic          rx_valid_i,
  input  logic [SB-1:0] rx_seq_i,
  input  logic [W-1:0]  rx_data_i,
  input  logic [15:0]   rx_crc_i,
  output logic          out_valid_o,
  output logic [W-1:0]  out_data_o,
  output logic          rack_valid_o,
  output logic [SB-1:0] rack_seq_o,
  output logic          rnack_valid_o,
  output logic [SB-1:0] rnack_seq_o,
  output logic [31:0]   crc_errors_o,
  output logic [31:0]   drops_o
);
  link_tx #(.W(W), .Depth(Depth), .Timeout(Timeout)) u_tx (
    .clk_i, .rst_ni, .in_valid_i, .in_ready_o, .in_data_i, .tx_valid_o, .tx_seq_o, .tx_data_o, .tx_crc_o,
    .ack_valid_i, .ack_seq_i, .nack_valid_i, .nack_seq_i, .held_o, .replays_o, .timeouts_o);
  link_rx #(.W(W), .SB(SB), .CheckCrc(CheckCrc)) u_rx (
    .clk_i, .rst_ni, .rx_valid_i, .rx_seq_i, .rx_data_i, .rx_crc_i, .out_valid_o, .out_data_o,
    .ack_valid_o(rack_valid_o), .ack_seq_o(rack_seq_o), .nack_valid_o(rnack_valid_o), .nack_seq_o(rnack_seq_o),
    .crc_errors_o, .drops_o);
endmodule
