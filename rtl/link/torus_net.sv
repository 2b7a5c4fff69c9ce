// torus_net — a KX x KY (x KZ) torus of routers (docs/link.md) as a simulation top: router
// r = (z * KY + y) * KX + x has chip id r; its port 0 is endpoint r's injection (inj_*) and ejection
// (ej_*) port, ports 1..4 link to the +x, -x, +y and -y neighbours (wrapping), and in 3D (KZ > 1)
// ports 5, 6 to the +z and -z ones. Every router port's outputs and returned credits are visible
// on mon_* (router r, port q at r * P + q) so the lockstep compares every router port.
//
// Each directed link l = r * LP + (q - 1) (router r's port q) runs through the link layer: link_tx
// (replay buffer of RDepth flits) -> the wire -> link_rx at the neighbour, which delivers to the
// neighbour's router; the receiver's ack/nack go straight back. The wire carries {crc, seq, vc,
// flit}; flip_i[l] inverts bit flip_bit_i[l] of it this cycle (the bench's channel model). Credits
// travel on a reliable sideband. RDepth >= V * D keeps the replay buffer from ever refusing a flit:
// every flit not yet acknowledged holds one of the downstream buffer's V * D credits.
//
// The endpoint port's inputs (inj_* and ej_credit_*) pass a pipe_reg before they reach the router:
// one cycle, as if the endpoint drove the network from its own registers. The router's allocation
// reads its input flits in the cycle they arrive (the buffer bypass), so without the stage every
// router would depend on the top's inputs and a simulator would evaluate all of them whenever an
// input is written (docs/link.md).
module torus_net
  import router_pkg::*;
#(
  parameter int unsigned KX = 4,
  parameter int unsigned KY = 4,
  parameter int unsigned KZ = 1,
  parameter int unsigned V  = 2,
  parameter int unsigned D  = 4,
  parameter int unsigned W  = 64,
  parameter int unsigned RDepth  = 8,
  parameter int unsigned Timeout = 64,
  localparam int unsigned N  = KX * KY * KZ,
  localparam int unsigned LP = KZ > 1 ? 6 : 4,      // link ports per router
  localparam int unsigned P  = LP + 1,
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned SB = $clog2(RDepth) + 2,
  localparam int unsigned LW = W + VB,              // link payload: {vc, flit}
  localparam int unsigned FB = $clog2(16 + SB + LW)
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
  output logic [N*P-1:0]     mon_valid_o,      // router r, port q at bit r * P + q
  output logic [N*P*VB-1:0]  mon_vc_o,
  output logic [N*P*W-1:0]   mon_flit_o,
  output logic [N*P-1:0]     mon_credit_o,     // credits router r returns on port q
  output logic [N*P*VB-1:0]  mon_credit_vc_o,
  output logic [N*16-1:0]    bad_dst_o,        // router r's count of packets dropped for their destination
  input  logic [N*LP-1:0]     flip_i,           // link l: corrupt its wire this cycle
  input  logic [N*LP*FB-1:0]  flip_bit_i,       // ... at this bit of {crc, seq, vc, flit}
  output logic [N*LP-1:0]     link_ready_o,     // link l's sender takes a flit (must be 1 whenever one comes)
  output logic [N*LP*(SB-1)-1:0] link_held_o,   // link l's sender: flits in its replay buffer
  output logic [N*LP*32-1:0]  link_crc_err_o,   // link l's receiver: flits dropped for their CRC
  output logic [N*LP*32-1:0]  link_drop_o,      // link l's receiver: good flits dropped out of sequence
  output logic [N*LP*32-1:0]  link_replay_o,    // link l's sender: replays on nack
  output logic [N*LP*32-1:0]  link_timeout_o    // link l's sender: replays on timeout
);
  if (RDepth < V * D) $error("torus_net: RDepth must be at least V * D");
  logic [P-1:0]    ov [N], cr [N], iv [N], oc [N];
  logic [P*VB-1:0] ovc [N], crvc [N], ivc [N], ocvc [N];
  logic [P*W-1:0]  of [N], ifl [N];
  // per link: the receiver's delivery into the neighbour
  logic [N*LP-1:0]  lv;
  logic [LW-1:0]   ld [N*LP];
  // per endpoint: its injection {vc, flit} and its ejection credit's vc, one cycle later
  logic [N-1:0]    ep_iv, ep_oc;
  logic [LW-1:0]   ep_id [N];
  logic [VB-1:0]   ep_ocvc [N];

  // the neighbour of router r across link port q, and the port it uses back (router_pkg)
  function automatic int unsigned nb(int unsigned r, int unsigned q);
    return torus_nb(r, q, KX, KY, KZ);
  endfunction
  function automatic int unsigned back(int unsigned q);
    return torus_back(q);
  endfunction

  for (genvar r = 0; r < N; r++) begin : g_r
    pipe_reg #(.Width(LW)) u_inj (
      .clk_i, .rst_ni, .valid_i(inj_valid_i[r]), .data_i({inj_vc_i[r*VB +: VB], inj_flit_i[r*W +: W]}),
      .valid_o(ep_iv[r]), .data_o(ep_id[r]));
    pipe_reg #(.Width(VB)) u_ej_credit (
      .clk_i, .rst_ni, .valid_i(ej_credit_i[r]), .data_i(ej_credit_vc_i[r*VB +: VB]),
      .valid_o(ep_oc[r]), .data_o(ep_ocvc[r]));
    always_comb begin
      iv[r] = '0;
      ivc[r] = '0;
      ifl[r] = '0;
      oc[r] = '0;
      ocvc[r] = '0;
      iv[r][0] = ep_iv[r];
      {ivc[r][0 +: VB], ifl[r][0 +: W]} = ep_id[r];
      oc[r][0] = ep_oc[r];
      ocvc[r][0 +: VB] = ep_ocvc[r];
      for (int unsigned q = 1; q < P; q++) begin
        // flits arriving on port q left the neighbour on its port back(q); credits for what this
        // router sends on port q come back from the neighbour's input port back(q)
        // the link that ends here: the neighbour's port back(q)
        iv[r][q] = lv[nb(r, q) * LP + back(q) - 1];
        {ivc[r][q*VB +: VB], ifl[r][q*W +: W]} = ld[nb(r, q) * LP + back(q) - 1];
        oc[r][q] = cr[nb(r, q)][back(q)];
        ocvc[r][q*VB +: VB] = crvc[nb(r, q)][back(q)*VB +: VB];
      end
    end
    router #(.P(P), .V(V), .D(D), .W(W), .Topo(TopoTorus), .KX(KX), .KY(KY), .KZ(KZ)) u_router (
      .clk_i, .rst_ni, .id_i(IdBits'(r)),
      .in_valid_i(iv[r]), .in_vc_i(ivc[r]), .in_flit_i(ifl[r]), .in_credit_o(cr[r]), .in_credit_vc_o(crvc[r]),
      .out_valid_o(ov[r]), .out_vc_o(ovc[r]), .out_flit_o(of[r]), .out_credit_i(oc[r]), .out_credit_vc_i(ocvc[r]),
      .bad_dst_o(bad_dst_o[r*16 +: 16]));
    assign inj_credit_o[r] = cr[r][0];
    assign inj_credit_vc_o[r*VB +: VB] = crvc[r][0 +: VB];
    assign ej_valid_o[r] = ov[r][0];
    assign ej_vc_o[r*VB +: VB] = ovc[r][0 +: VB];
    assign ej_flit_o[r*W +: W] = of[r][0 +: W];
    assign mon_valid_o[r*P +: P] = ov[r];
    assign mon_vc_o[r*P*VB +: P*VB] = ovc[r];
    assign mon_flit_o[r*P*W +: P*W] = of[r];
    assign mon_credit_o[r*P +: P] = cr[r];
    assign mon_credit_vc_o[r*P*VB +: P*VB] = crvc[r];
    for (genvar k = 0; k < LP; k++) begin : g_link
      localparam int unsigned L = r * LP + k;
      link_chan #(.W(LW), .Depth(RDepth), .Timeout(Timeout)) u_link (
        .clk_i, .rst_ni, .in_valid_i(ov[r][k + 1]), .in_ready_o(link_ready_o[L]),
        .in_data_i({ovc[r][(k+1)*VB +: VB], of[r][(k+1)*W +: W]}), .out_valid_o(lv[L]), .out_data_o(ld[L]),
        .flip_i(flip_i[L]), .flip_bit_i(flip_bit_i[L*FB +: FB]), .held_o(link_held_o[L*(SB-1) +: SB-1]),
        .crc_errors_o(link_crc_err_o[L*32 +: 32]), .drops_o(link_drop_o[L*32 +: 32]),
        .replays_o(link_replay_o[L*32 +: 32]), .timeouts_o(link_timeout_o[L*32 +: 32]));
    end
  end
endmodule
