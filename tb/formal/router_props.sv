// Properties of rtl/link/router.sv for scripts/formal (docs/formal.md): a switch router of P ports
// and V virtual channels (one per traffic class) with D-flit buffers. Its neighbours are the
// solver's, bound only by the link protocol: upstream, a flit arrives on an input VC only while the
// sender holds a credit for it (a shadow of the credits the router returned), and each input VC
// carries well-formed packets (a head or single flit first, then body flits and a tail), to any
// destination, one that does not exist included; downstream, a credit comes back on an output VC
// only for a flit the router sent there and the receiver still holds. Then:
//   rt_out_credits   per output VC, the router's credits, its flit on the wire and the flits the
//                    receiver holds are always D: a credit is never spent twice nor made up, and
//                    the router never sends without one
//   rt_in_credits    per input VC, the sender's credits, the flits buffered and the credit on its
//                    way back are always D: every flit read returns one credit, none is lost
//   rt_vc_held_once  an output VC is busy exactly while one input VC holds it
//   rt_wormhole      on every output VC packets leave whole, one after another (a head only after
//                    a tail, a body or tail only inside a packet): no two packets interleave
//   rt_route         a head leaves on the port of its destination and the VC of its class
//   rt_no_error      no credit counter reports an error
module router_props
  import router_pkg::*;
#(
  parameter int unsigned P = 2,
  parameter int unsigned V = 2,
  parameter int unsigned D = 2,
  localparam int unsigned W  = HeadBits + 2,
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned NV = P * V,
  localparam int unsigned CB = $clog2(D + 1)
) (
  input logic            clk_i,
  input logic            rst_ni,
  input logic [P-1:0]    in_valid_i,
  input logic [P*VB-1:0] in_vc_i,
  input logic [P*W-1:0]  in_flit_i,
  input logic [P-1:0]    out_credit_i,
  input logic [P*VB-1:0] out_credit_vc_i
);
  logic [IdBits-1:0] id_i;
  logic [P-1:0]      in_credit_o, out_valid_o;
  logic [P*VB-1:0]   in_credit_vc_o, out_vc_o;
  logic [P*W-1:0]    out_flit_o;
  logic [15:0]       bad_dst_o;
  assign id_i = '0;  // a switch routes by destination alone
  router #(.P(P), .V(V), .D(D), .W(W), .Topo(TopoSwitch), .KX(P), .KY(1)) dut (.*);

  logic init_q;  // the first cycle, in reset
  formal_start u_start (.clk_i, .rst_ni, .init_o(init_q));
  always_comb if (!init_q) assume (rst_ni);

  // what each side holds: the sender's credits per input VC, the receiver's flits per output VC,
  // and whether an input VC or an output VC is inside a packet
  logic [CB-1:0] up_q [NV], dn_q [NV];
  logic [NV-1:0] in_pkt_q, out_pkt_q;
  logic [NV-1:0] arrive, ret, got, give;
  flit_kind_e    in_kind [P], out_kind [P];
  always_comb begin
    for (int unsigned p = 0; p < P; p++) begin
      in_kind[p] = flit_kind_e'(in_flit_i[p * W + W - 2 +: 2]);
      out_kind[p] = flit_kind_e'(out_flit_o[p * W + W - 2 +: 2]);
    end
    for (int unsigned i = 0; i < NV; i++) begin
      arrive[i] = in_valid_i[i / V] && 32'(in_vc_i[(i / V) * VB +: VB]) == i % V;
      ret[i] = in_credit_o[i / V] && 32'(in_credit_vc_o[(i / V) * VB +: VB]) == i % V;
      got[i] = out_valid_o[i / V] && 32'(out_vc_o[(i / V) * VB +: VB]) == i % V;
      give[i] = out_credit_i[i / V] && 32'(out_credit_vc_i[(i / V) * VB +: VB]) == i % V;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned i = 0; i < NV; i++) begin
        up_q[i] <= CB'(D);
        dn_q[i] <= '0;
      end
      in_pkt_q <= '0;
      out_pkt_q <= '0;
    end else begin
      for (int unsigned i = 0; i < NV; i++) begin
        up_q[i] <= up_q[i] - CB'(arrive[i]) + CB'(ret[i]);
        dn_q[i] <= dn_q[i] + CB'(got[i]) - CB'(give[i]);
        if (arrive[i]) in_pkt_q[i] <= in_kind[i / V] == FlitHead || in_kind[i / V] == FlitBody;
        if (got[i]) out_pkt_q[i] <= out_kind[i / V] == FlitHead || out_kind[i / V] == FlitBody;
      end
    end
  end

  // the properties, each folded over the VCs first (one label a property)
  logic ok_out, ok_in, ok_held, ok_worm, ok_route, ok_err;
  int unsigned holders;
  head_t h;
  always_comb begin
    ok_out = 1'b1;
    ok_in = 1'b1;
    ok_held = 1'b1;
    ok_worm = 1'b1;
    ok_route = 1'b1;
    ok_err = 1'b1;
    for (int unsigned j = 0; j < NV; j++) begin
      if (32'(dut.cc_count[j]) + 32'(dn_q[j]) + 32'(got[j]) != D) ok_out = 1'b0;
      if (32'(up_q[j]) + 32'(dut.buf_usage[j]) + 32'(ret[j]) != D) ok_in = 1'b0;
      holders = 0;
      for (int unsigned i = 0; i < NV; i++)
        if (dut.act_q[i] && 32'(dut.iop_q[i]) * V + 32'(dut.iov_q[i]) == j) holders++;
      if (holders != (dut.obusy_q[j] ? 1 : 0)) ok_held = 1'b0;
      if (got[j]) begin
        if ((out_kind[j / V] == FlitHead || out_kind[j / V] == FlitSingle) == out_pkt_q[j]) ok_worm = 1'b0;
        if (out_kind[j / V] == FlitHead || out_kind[j / V] == FlitSingle) begin
          h = head_t'(out_flit_o[(j / V) * W +: HeadBits]);
          if (32'(h.dst) != j / V || 32'(h.tc) % V != j % V) ok_route = 1'b0;
        end
      end
      if (dut.cc_error[j]) ok_err = 1'b0;
    end
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      for (int unsigned i = 0; i < NV; i++) begin
        assume (!arrive[i] || up_q[i] != '0);
        assume (!give[i] || dn_q[i] != '0);
        if (arrive[i])
          assume ((in_kind[i / V] == FlitHead || in_kind[i / V] == FlitSingle) != in_pkt_q[i]);
      end
      rt_out_credits: assert (ok_out);
      rt_in_credits: assert (ok_in);
      rt_vc_held_once: assert (ok_held);
      rt_wormhole: assert (ok_worm);
      rt_route: assert (ok_route);
      rt_no_error: assert (ok_err);
    end
  end
endmodule
