// switch_net — an all-to-all domain of N endpoints through one switch router (docs/link.md) as a
// simulation top: endpoint e is on the switch's port e and reaches it through the link layer both
// ways. Link e carries endpoint e's injection (inj_*) to the switch, link N + e the switch's port e
// to endpoint e's ejection (ej_*). The switch's outputs and returned credits on every port are
// visible on mon_* (port q at q) so the lockstep compares every router port.
//
// Each link is link_tx (replay buffer of RDepth flits) -> the wire -> link_rx, with the receiver's
// ack/nack going straight back. The wire carries {crc, seq, vc, flit}; flip_i[l] inverts bit
// flip_bit_i[l] of it this cycle (the bench's channel model). Credits travel on a reliable
// sideband: inj_credit_* are the switch's input credits of port e, ej_credit_* go to its output
// port e. RDepth >= V * D keeps the replay buffers from ever refusing a flit. CheckCrc = 0 makes
// every link's receiver ignore the CRC: a broken network for the scoreboard's self-test.
module switch_net
  import router_pkg::*;
#(
  parameter int unsigned N  = 8,
  parameter int unsigned V  = 2,
  parameter int unsigned D  = 4,
  parameter int unsigned W  = 64,
  parameter int unsigned RDepth  = 8,
  parameter int unsigned Timeout = 64,
  parameter bit          CheckCrc = 1'b1,
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned SB = $clog2(RDepth) + 2,
  localparam int unsigned LW = W + VB,              // link payload: {vc, flit}
  localparam int unsigned FB = $clog2(16 + SB + LW),
  localparam int unsigned L  = 2 * N                // links
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic [N-1:0]       inj_valid_i,
  input  logic [N*VB-1:0]    inj_vc_i,
  input  logic [N*W-1:0]     inj_flit_i,
  output logic [N-1:0]       inj_credit_o,
  output logic [N*VB-1:0]    inj_credit_vc_o,
  output logic [N-1:0]       ej_valid_o,
  output logic [N*VB-1:0]    ej_vc_o,
  output logic [N*W-1:0]     ej_flit_o,
  input  logic [N-1:0]       ej_credit_i,
  input  logic [N*VB-1:0]    ej_credit_vc_i,
  output logic [N-1:0]       mon_valid_o,      // the switch's port q at bit q
  output logic [N*VB-1:0]    mon_vc_o,
  output logic [N*W-1:0]     mon_flit_o,
  output logic [N-1:0]       mon_credit_o,     // credits the switch returns on port q
  output logic [N*VB-1:0]    mon_credit_vc_o,
  output logic [15:0]        bad_dst_o,        // packets dropped for their destination
  input  logic [L-1:0]       flip_i,           // link l: corrupt its wire this cycle
  input  logic [L*FB-1:0]    flip_bit_i,       // ... at this bit of {crc, seq, vc, flit}
  output logic [L-1:0]       link_ready_o,     // link l's sender takes a flit (must be 1 whenever one comes)
  output logic [L*(SB-1)-1:0] link_held_o,     // link l's sender: flits in its replay buffer
  output logic [L*32-1:0]    link_crc_err_o,   // link l's receiver: flits dropped for their CRC
  output logic [L*32-1:0]    link_drop_o,      // link l's receiver: good flits dropped out of sequence
  output logic [L*32-1:0]    link_replay_o,    // link l's sender: replays on nack
  output logic [L*32-1:0]    link_timeout_o    // link l's sender: replays on timeout
);
  if (RDepth < V * D) $error("switch_net: RDepth must be at least V * D");
  // per link: what its sender is offered, what its receiver delivers
  logic [L-1:0]  sv, rv;
  logic [LW-1:0] sd [L], rd [L];
  logic [N-1:0]  ov, iv;
  logic [N*VB-1:0] ovc, ivc;
  logic [N*W-1:0]  of, ifl;

  always_comb begin
    for (int unsigned e = 0; e < N; e++) begin
      sv[e] = inj_valid_i[e];
      sd[e] = {inj_vc_i[e*VB +: VB], inj_flit_i[e*W +: W]};
      sv[N + e] = ov[e];
      sd[N + e] = {ovc[e*VB +: VB], of[e*W +: W]};
      iv[e] = rv[e];
      {ivc[e*VB +: VB], ifl[e*W +: W]} = rd[e];
      ej_valid_o[e] = rv[N + e];
      {ej_vc_o[e*VB +: VB], ej_flit_o[e*W +: W]} = rd[N + e];
    end
  end

  router #(.P(N), .V(V), .D(D), .W(W), .Topo(TopoSwitch)) u_switch (
    .clk_i, .rst_ni, .id_i('0),
    .in_valid_i(iv), .in_vc_i(ivc), .in_flit_i(ifl), .in_credit_o(inj_credit_o), .in_credit_vc_o(inj_credit_vc_o),
    .out_valid_o(ov), .out_vc_o(ovc), .out_flit_o(of), .out_credit_i(ej_credit_i), .out_credit_vc_i(ej_credit_vc_i),
    .bad_dst_o);
  assign mon_valid_o = ov;
  assign mon_vc_o = ovc;
  assign mon_flit_o = of;
  assign mon_credit_o = inj_credit_o;
  assign mon_credit_vc_o = inj_credit_vc_o;

  for (genvar l = 0; l < L; l++) begin : g_link
    link_chan #(.W(LW), .Depth(RDepth), .Timeout(Timeout), .CheckCrc(CheckCrc)) u_link (
      .clk_i, .rst_ni, .in_valid_i(sv[l]), .in_ready_o(link_ready_o[l]),
      .in_data_i(sd[l]), .out_valid_o(rv[l]), .out_data_o(rd[l]),
      .flip_i(flip_i[l]), .flip_bit_i(flip_bit_i[l*FB +: FB]), .held_o(link_held_o[l*(SB-1) +: SB-1]),
      .crc_errors_o(link_crc_err_o[l*32 +: 32]), .drops_o(link_drop_o[l*32 +: 32]),
      .replays_o(link_replay_o[l*32 +: 32]), .timeouts_o(link_timeout_o[l*32 +: 32]));
  end
endmodule
