// link_tx — the sending end of a NeuronLink link (SPEC 5.6, docs/link.md): go-back-N with a replay
// buffer. Every flit accepted on in_* gets the next sequence number (SB bits, modulo) and waits in
// the replay buffer (Depth flits) until the receiver acknowledges it. One flit leaves per cycle on
// tx_* (registered), with CRC-16 over {seq, data}; the link has no back-pressure.
//   - ack(s): the receiver holds every flit up to s: they leave the buffer.
//   - nack(s): the receiver holds every flit before s and dropped s: resend from s (go back).
//   - No acknowledgement progress for Timeout cycles while flits are held: resend from the oldest.
// Acknowledgements out of the window (stale, duplicated) are ignored; a nack in the same cycle as
// an ack wins.
module link_tx
  import link_pkg::*;
#(
  parameter int unsigned W       = 128,
  parameter int unsigned Depth   = 16,
  parameter int unsigned Timeout = 64,
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
  output logic [DB:0]   held_o,      // flits in the replay buffer
  output logic [31:0]   replays_o,   // go-back-N replays started by a nack
  output logic [31:0]   timeouts_o   // replays started by the timeout
);
  if ((1 << DB) != Depth || W + SB > CrcMaxBits) $error("link_tx: Depth must be a power of two");
  localparam int unsigned TW = $clog2(Timeout + 1);

  logic [W-1:0]  buf_q [Depth];
  logic [SB-1:0] base_q, next_q, send_q;
  logic [TW-1:0] timer_q;
  logic          v_q;
  logic [SB-1:0] seq_q;
  logic [W-1:0]  data_q;
  logic [15:0]   crc_q;
  logic [31:0]   replays_q, timeouts_q;

  logic [SB-1:0] count, base_n, send_n, d;
  logic          nack_ok, ack_ok, timeout, send;
  always_comb begin
    count = next_q - base_q;
    in_ready_o = rst_ni && count < SB'(Depth);
    base_n = base_q;
    send_n = send_q;
    d = nack_seq_i - base_q;
    nack_ok = nack_valid_i && d <= count;
    d = ack_seq_i + 1'b1 - base_q;
    ack_ok = !nack_ok && ack_valid_i && d != '0 && d <= count;
    if (nack_ok) begin
      base_n = nack_seq_i;
      send_n = nack_seq_i;
    end else if (ack_ok) begin
      base_n = ack_seq_i + 1'b1;
      if (SB'(send_q - base_n) > SB'(next_q - base_n)) send_n = base_n;  // send was behind the new base
    end
    timeout = !nack_ok && !ack_ok && count != '0 && timer_q == TW'(Timeout - 1);
    if (timeout) send_n = base_n;
    send = send_n != next_q;
  end

  always_ff @(posedge clk_i) begin
    if (in_valid_i && in_ready_o) buf_q[next_q[DB-1:0]] <= in_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      base_q <= '0;
      next_q <= '0;
      send_q <= '0;
      timer_q <= '0;
      v_q <= 1'b0;
      seq_q <= '0;
      data_q <= '0;
      crc_q <= '0;
      replays_q <= '0;
      timeouts_q <= '0;
    end else begin
      base_q <= base_n;
      if (in_valid_i && in_ready_o) next_q <= next_q + 1'b1;
      send_q <= send ? send_n + 1'b1 : send_n;
      timer_q <= (nack_ok || ack_ok || timeout || count == '0) ? '0 : timer_q + 1'b1;
      v_q <= send;
      if (send) begin
        seq_q <= send_n;
        data_q <= buf_q[send_n[DB-1:0]];
        crc_q <= crc16(CrcMaxBits'({send_n, buf_q[send_n[DB-1:0]]}), W + SB);
      end
      if (nack_ok) replays_q <= replays_q + 1;
      if (timeout) timeouts_q <= timeouts_q + 1;
    end
  end

  assign tx_valid_o = v_q;
  assign tx_seq_o = seq_q;
  assign tx_data_o = data_q;
  assign tx_crc_o = crc_q;
  assign held_o = count[DB:0];
  assign replays_o = replays_q;
  assign timeouts_o = timeouts_q;

`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // the replay buffer never holds more than Depth flits (a new flit waits for an acknowledgement)
      a_replay_in_range: assert (32'(count) <= Depth)
        else $error("%0d flits unacknowledged, the replay buffer holds %0d", count, Depth);
      // a replay resends only what was sent and not yet acknowledged
      a_send_in_window: assert (SB'(send_q - base_q) <= count)
        else $error("next flit to send %0d is outside the window %0d..%0d", send_q, base_q, next_q);
    end
  end
`endif
endmodule
