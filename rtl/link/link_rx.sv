// link_rx — the receiving end of a NeuronLink link (SPEC 5.6, docs/link.md). A flit whose CRC
// matches and whose sequence number is the expected one is delivered (out_*, registered) and
// acknowledged; any other flit is dropped. The first drop after a delivery asks for a replay
// (nack of the expected number); later drops of a good flit (duplicates of a replay) re-send the
// acknowledgement of the last delivered flit, so a lost acknowledgement heals.
// CheckCrc = 0 builds a receiver that trusts every CRC: a broken DUT for the bench's self-test.
module link_rx
  import link_pkg::*;
#(
  parameter int unsigned W        = 128,
  parameter int unsigned SB       = 6,
  parameter bit          CheckCrc = 1'b1
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          rx_valid_i,
  input  logic [SB-1:0] rx_seq_i,
  input  logic [W-1:0]  rx_data_i,
  input  logic [15:0]   rx_crc_i,
  output logic          out_valid_o,
  output logic [W-1:0]  out_data_o,
  output logic          ack_valid_o,
  output logic [SB-1:0] ack_seq_o,
  output logic          nack_valid_o,
  output logic [SB-1:0] nack_seq_o,
  output logic [31:0]   crc_errors_o,  // flits dropped for their CRC
  output logic [31:0]   drops_o        // good flits dropped out of sequence
);
  logic [SB-1:0] exp_q;
  logic          nacked_q;
  logic          ov_q, av_q, nv_q;
  logic [W-1:0]  od_q;
  logic [SB-1:0] as_q, ns_q;
  logic [31:0]   crc_err_q, drops_q;

  logic good, take;
  always_comb begin
    good = !CheckCrc || crc16(CrcMaxBits'({rx_seq_i, rx_data_i}), W + SB) == rx_crc_i;
    take = rx_valid_i && good && rx_seq_i == exp_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      exp_q <= '0;
      nacked_q <= 1'b0;
      ov_q <= 1'b0;
      od_q <= '0;
      av_q <= 1'b0;
      as_q <= '0;
      nv_q <= 1'b0;
      ns_q <= '0;
      crc_err_q <= '0;
      drops_q <= '0;
    end else begin
      ov_q <= take;
      av_q <= 1'b0;
      nv_q <= 1'b0;
      if (take) begin
        od_q <= rx_data_i;
        exp_q <= exp_q + 1'b1;
        nacked_q <= 1'b0;
        av_q <= 1'b1;
        as_q <= rx_seq_i;
      end else if (rx_valid_i) begin
        if (!good) crc_err_q <= crc_err_q + 1;
        else drops_q <= drops_q + 1;
        if (!nacked_q) begin
          nacked_q <= 1'b1;
          nv_q <= 1'b1;
          ns_q <= exp_q;
        end else if (good) begin
          av_q <= 1'b1;
          as_q <= exp_q - 1'b1;
        end
      end
    end
  end

  assign out_valid_o = ov_q;
  assign out_data_o = od_q;
  assign ack_valid_o = av_q;
  assign ack_seq_o = as_q;
  assign nack_valid_o = nv_q;
  assign nack_seq_o = ns_q;
  assign crc_errors_o = crc_err_q;
  assign drops_o = drops_q;
endmodule
