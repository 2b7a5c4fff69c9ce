// torus_net — a KX x KY 2D torus of routers (docs/link.md) as a simulation top: router r = y * KX + x
// has chip id r; its port 0 is endpoint r's injection (inj_*) and ejection (ej_*) port, ports 1..4
// link to the +x, -x, +y and -y neighbours (wrapping). Every router's link outputs and returned
// credits are visible on mon_* so the lockstep compares every router port.
module torus_net
  import router_pkg::*;
#(
  parameter int unsigned KX = 4,
  parameter int unsigned KY = 4,
  parameter int unsigned V  = 2,
  parameter int unsigned D  = 4,
  parameter int unsigned W  = 64,
  localparam int unsigned N  = KX * KY,
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1
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
  output logic [N*4-1:0]     mon_valid_o,      // router r, link port 1 + k at bit r * 4 + k
  output logic [N*4*VB-1:0]  mon_vc_o,
  output logic [N*4*W-1:0]   mon_flit_o,
  output logic [N*4-1:0]     mon_credit_o,     // credits router r returns on link port 1 + k
  output logic [N*4*VB-1:0]  mon_credit_vc_o,
  output logic [N*16-1:0]    bad_dst_o         // router r's count of packets dropped for their destination
);
  localparam int unsigned P = 5;
  logic [P-1:0]    ov [N], cr [N], iv [N], oc [N];
  logic [P*VB-1:0] ovc [N], crvc [N], ivc [N], ocvc [N];
  logic [P*W-1:0]  of [N], ifl [N];

  // the neighbour of router r across link port q (1 +x, 2 -x, 3 +y, 4 -y), and the port it uses back
  function automatic int unsigned nb(int unsigned r, int unsigned q);
    int unsigned x, y;
    x = r % KX;
    y = r / KX;
    case (q)
      1: x = (x + 1) % KX;
      2: x = (x + KX - 1) % KX;
      3: y = (y + 1) % KY;
      default: y = (y + KY - 1) % KY;
    endcase
    return y * KX + x;
  endfunction
  function automatic int unsigned back(int unsigned q);
    return q == 1 ? 2 : q == 2 ? 1 : q == 3 ? 4 : 3;
  endfunction

  for (genvar r = 0; r < N; r++) begin : g_r
    always_comb begin
      iv[r] = '0;
      ivc[r] = '0;
      ifl[r] = '0;
      oc[r] = '0;
      ocvc[r] = '0;
      iv[r][0] = inj_valid_i[r];
      ivc[r][0 +: VB] = inj_vc_i[r*VB +: VB];
      ifl[r][0 +: W] = inj_flit_i[r*W +: W];
      oc[r][0] = ej_credit_i[r];
      ocvc[r][0 +: VB] = ej_credit_vc_i[r*VB +: VB];
      for (int unsigned q = 1; q < P; q++) begin
        // flits arriving on port q left the neighbour on its port back(q); credits for what this
        // router sends on port q come back from the neighbour's input port back(q)
        iv[r][q] = ov[nb(r, q)][back(q)];
        ivc[r][q*VB +: VB] = ovc[nb(r, q)][back(q)*VB +: VB];
        ifl[r][q*W +: W] = of[nb(r, q)][back(q)*W +: W];
        oc[r][q] = cr[nb(r, q)][back(q)];
        ocvc[r][q*VB +: VB] = crvc[nb(r, q)][back(q)*VB +: VB];
      end
    end
    router #(.P(P), .V(V), .D(D), .W(W), .Topo(TopoTorus), .KX(KX), .KY(KY)) u_router (
      .clk_i, .rst_ni, .id_i(IdBits'(r)),
      .in_valid_i(iv[r]), .in_vc_i(ivc[r]), .in_flit_i(ifl[r]), .in_credit_o(cr[r]), .in_credit_vc_o(crvc[r]),
      .out_valid_o(ov[r]), .out_vc_o(ovc[r]), .out_flit_o(of[r]), .out_credit_i(oc[r]), .out_credit_vc_i(ocvc[r]),
      .bad_dst_o(bad_dst_o[r*16 +: 16]));
    assign inj_credit_o[r] = cr[r][0];
    assign inj_credit_vc_o[r*VB +: VB] = crvc[r][0 +: VB];
    assign ej_valid_o[r] = ov[r][0];
    assign ej_vc_o[r*VB +: VB] = ovc[r][0 +: VB];
    assign ej_flit_o[r*W +: W] = of[r][0 +: W];
    assign mon_valid_o[r*4 +: 4] = ov[r][4:1];
    assign mon_vc_o[r*4*VB +: 4*VB] = ovc[r][P*VB-1:VB];
    assign mon_flit_o[r*4*W +: 4*W] = of[r][P*W-1:W];
    assign mon_credit_o[r*4 +: 4] = cr[r][4:1];
    assign mon_credit_vc_o[r*4*VB +: 4*VB] = crvc[r][P*VB-1:VB];
  end
endmodule
