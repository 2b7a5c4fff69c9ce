// router — input-queued wormhole router with virtual channels and credit flow control
// (SPEC 5.6, docs/link.md), built from rtl/common parts:
//   input VC buffers   one stream_fifo of D flits per input VC, with a bypass: a flit arriving on a
//                      VC whose buffer is empty is at its front in the same cycle;
//   VC allocator       per output port, an rr_arbiter among the input VCs whose head flit routes
//                      there and for which a free output VC of their class exists (vc_ok); the
//                      winner takes the lowest such VC. On a torus that VC is unique, on a link
//                      (its dateline class, or with LastHop the class's last-hop VC when the
//                      next router is the destination) and at the local port (the class's first
//                      VC), so a flow keeps one FIFO per hop and its order up to the endpoint;
//   switch allocator   separable, input first: per input port an rr_arbiter among its VCs that hold
//                      (or were granted this cycle) an output VC, have a flit and a downstream
//                      credit; per output port an rr_arbiter among the input ports asking for it.
//                      An input port's grant is held until its output port takes it;
//   output credits     a credit_counter per output VC. A credit that arrives in a cycle can be
//                      spent in that cycle (it then never enters the counter).
// The upstream sender holds a credit per free buffer slot: in_credit_* returns one, registered,
// per flit read. VC and switch allocation are chained in one cycle, so a flit on in_*_i in cycle
// n leaves on out_*_o in cycle n + 1 when its VC holds (or wins) an output VC, has a credit and
// wins the switch: 1 cycle per hop, head flits included; body flits follow one per cycle.
// A head flit whose destination does not exist (id >= KX * KY * KZ, or >= P for a switch) never
// enters allocation: its packet is read out and discarded, one flit per cycle when its port has no
// switch grant, its credits returned, and bad_dst_o counts it.
// Every output is a register; the inputs reach only registers (no combinational path through).
module router
  import router_pkg::*;
#(
  parameter int unsigned P    = 5,    // ports (torus: 5; switch: the endpoints)
  parameter int unsigned V    = 2,    // virtual channels per port (torus: even, for the classes)
  parameter int unsigned D    = 4,    // flits per input VC buffer (and the credits of each output VC)
  parameter int unsigned W    = 64,   // flit bits
  parameter topo_e       Topo = TopoTorus,
  parameter int unsigned KX   = 4,
  parameter int unsigned KY   = 4,
  parameter int unsigned KZ   = 1,    // > 1: a 3D torus (7 ports: also 5 +z, 6 -z)
  // torus: a third VC per traffic class for the hops whose next router is the packet's destination
  // (the ejecting traffic never waits behind traffic passing through); V a multiple of 3
  parameter int unsigned LastHop = 0,    // 0 or 1
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned PB = P > 1 ? $clog2(P) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [IdBits-1:0] id_i,
  input  logic [P-1:0]     in_valid_i,
  input  logic [P*VB-1:0]  in_vc_i,
  input  logic [P*W-1:0]   in_flit_i,
  output logic [P-1:0]     in_credit_o,
  output logic [P*VB-1:0]  in_credit_vc_o,
  output logic [P-1:0]     out_valid_o,
  output logic [P*VB-1:0]  out_vc_o,
  output logic [P*W-1:0]   out_flit_o,
  input  logic [P-1:0]     out_credit_i,
  input  logic [P*VB-1:0]  out_credit_vc_i,
  output logic [15:0]      bad_dst_o      // packets dropped for a destination that does not exist
);
  if (P * V > 32 || P > 32) $error("router: at most 32 input VCs");
  if (Topo == TopoTable) $error("router: the RTL router routes a torus or a switch (TopoTable is the model's)");
  if (W < HeadBits + 2) $error("router: a flit holds at least its kind and the head fields");
  if (Topo == TopoTorus && (P != (KZ > 1 ? 7 : 5) || V % (LastHop != 0 ? 3 : 2) != 0))
    $error("router: a 2D (3D) torus router has 5 (7) ports and V a multiple of 2 (with LastHop, of 3)");
  if (LastHop > 1 || (LastHop == 1 && Topo != TopoTorus)) $error("router: LastHop is 0 or 1, and 1 only on a torus");

  localparam int unsigned NV = P * V;  // input VCs, index p * V + v; output VCs likewise o * V + v
  localparam int unsigned S  = LastHop != 0 ? 3 : 2;  // torus: VCs of a traffic class
  localparam int unsigned NC = Topo == TopoSwitch ? V : V / S;  // traffic classes
  localparam int unsigned IB = NV > 1 ? $clog2(NV) : 1;
  localparam int unsigned CB = $clog2(D + 1);
  localparam int unsigned Ids = Topo == TopoSwitch ? P : KX * KY * KZ;

  // ---- route computation: output port and the VC class it allows (2: any; 3: the last hop) ----
  function automatic logic [PB+1:0] route(logic [IdBits-1:0] dst, logic [IdBits-1:0] me, int unsigned in_port,
                                          logic in_class);
    int unsigned x, y, z, dx, dy, dz, op, fwd;
    logic [1:0] cls;
    if (Topo == TopoSwitch) return {2'd2, PB'(int'(dst) % P)};
    x = int'(me) % KX;
    y = int'(me) / KX % KY;
    z = int'(me) / (KX * KY);
    dx = int'(dst) % KX;
    dy = int'(dst) / KX % KY;
    dz = int'(dst) / (KX * KY);
    op = 0;
    cls = 2'd0;  // ejection: the class's first VC, so every flow reaches the endpoint in one FIFO
    if (dx != x) begin
      fwd = (dx + KX - x) % KX;
      op = (2 * fwd <= KX) ? 1 : 2;
      cls = (in_port == 1 || in_port == 2) ? {1'b0, in_class} : 2'd0;
      if ((op == 1 && x == KX - 1) || (op == 2 && x == 0)) cls = 2'd1;
    end else if (dy != y) begin
      fwd = (dy + KY - y) % KY;
      op = (2 * fwd <= KY) ? 3 : 4;
      cls = (in_port == 3 || in_port == 4) ? {1'b0, in_class} : 2'd0;
      if ((op == 3 && y == KY - 1) || (op == 4 && y == 0)) cls = 2'd1;
    end else if (dz != z) begin
      fwd = (dz + KZ - z) % KZ;
      op = (2 * fwd <= KZ) ? 5 : 6;
      cls = (in_port == 5 || in_port == 6) ? {1'b0, in_class} : 2'd0;
      if ((op == 5 && z == KZ - 1) || (op == 6 && z == 0)) cls = 2'd1;
    end
    // with LastHop, a hop whose next router is the destination takes the class's last-hop VC
    if (LastHop != 0 && op != 0) begin
      case (op)
        1: x = (x + 1) % KX;
        2: x = (x + KX - 1) % KX;
        3: y = (y + 1) % KY;
        4: y = (y + KY - 1) % KY;
        5: z = (z + 1) % KZ;
        default: z = (z + KZ - 1) % KZ;
      endcase
      if (x == dx && y == dy && z == dz) cls = 2'd3;
    end
    return {cls, PB'(op)};
  endfunction

  // May a packet of traffic class tc (the head's field, modulo NC) take output VC v on a hop whose
  // route allows dateline class cls (2: any; 3: the last hop)? Torus: VCs S tc and S tc + 1 belong
  // to class tc, and a link hop takes the one of its dateline class (with LastHop also S tc + 2,
  // which a hop to the destination takes); switch: VC tc.
  function automatic logic vc_ok(int unsigned v, logic [1:0] cls, logic [1:0] tc);
    int unsigned c;
    c = int'(tc) % NC;
    if (Topo == TopoSwitch) return v == c;
    if (cls == 2'd3) return v / S == c && v % S == 2;
    return v / S == c && (cls == 2'd2 || v % S == int'(cls));
  endfunction

  // ---- state (besides the parts') ----
  logic [NV-1:0]   act_q, act_d;         // input VC holds an output VC ...
  logic [PB-1:0]   iop_q [NV], iop_d [NV];  // ... on this output port
  logic [VB-1:0]   iov_q [NV], iov_d [NV];  // ... and this VC of it
  logic [NV-1:0]   drop_q, drop_d;       // input VC is discarding a packet with a bad destination
  logic [NV-1:0]   obusy_q, obusy_d;     // output VC allocated to an input VC
  logic [15:0]     bad_q, bad_d;
  logic [P-1:0]    ov_q, ov_d;           // output registers
  logic [P*VB-1:0] ovc_q, ovc_d;
  logic [P*W-1:0]  oflit_q, oflit_d;
  logic [P-1:0]    cr_q, cr_d;           // returned credits
  logic [P*VB-1:0] crvc_q, crvc_d;

  // ---- input VC buffers ----
  logic [NV-1:0] arrive;                 // a flit arrives on the VC this cycle
  logic [NV-1:0] buf_push, buf_pop, buf_valid, buf_ready;
  logic [W-1:0]  buf_data [NV];
  logic [CB-1:0] buf_usage [NV];
  logic [NV-1:0] rd;                     // the VC's front flit leaves (switched or discarded)
  for (genvar i = 0; i < NV; i++) begin : g_in
    stream_fifo #(.Width(W), .Depth(D)) u_buf (
      .clk_i, .rst_ni, .push_valid_i(buf_push[i]), .push_ready_o(buf_ready[i]),
      .push_data_i(in_flit_i[(i / V) * W +: W]), .pop_valid_o(buf_valid[i]), .pop_ready_i(buf_pop[i]),
      .pop_data_o(buf_data[i]), .usage_o(buf_usage[i]));
  end

  // the front flit of every input VC (the buffer's, or the arriving one when the buffer is empty),
  // its kind, its head fields and its route
  logic [W-1:0]  front [NV];
  flit_kind_e    fkind [NV];
  head_t         fhead [NV];
  logic [NV-1:0] has_flit, is_head, is_tail, bad_head;
  logic [PB-1:0] rop [NV];
  logic [1:0]    rcls [NV], rtc [NV];
  always_comb begin
    for (int unsigned i = 0; i < NV; i++) begin
      arrive[i] = in_valid_i[i / V] && 32'(in_vc_i[(i / V) * VB +: VB]) == i % V;
      front[i] = buf_valid[i] ? buf_data[i] : in_flit_i[(i / V) * W +: W];
      has_flit[i] = buf_valid[i] || arrive[i];
      fkind[i] = flit_kind_e'(front[i][W-1 -: 2]);
      fhead[i] = head_t'(front[i][HeadBits-1:0]);
      is_head[i] = fkind[i] == FlitHead || fkind[i] == FlitSingle;
      is_tail[i] = fkind[i] == FlitTail || fkind[i] == FlitSingle;
      {rcls[i], rop[i]} = route(fhead[i].dst, id_i, i / V, (i % V) % S == 1);
      rtc[i] = fhead[i].tc;
      bad_head[i] = is_head[i] && int'(fhead[i].dst) >= Ids;
    end
  end

  // a flit read from an empty buffer was the arriving one: it is not stored
  always_comb begin
    for (int unsigned i = 0; i < NV; i++) begin
      buf_pop[i] = rd[i] && buf_valid[i];
      buf_push[i] = arrive[i] && !(rd[i] && !buf_valid[i]);
    end
  end

  // ---- VC allocation ----
  logic [NV-1:0] va_req [P];             // per output port: the input VCs a free output VC can take
  logic [P-1:0]  va_valid;
  logic [IB-1:0] va_idx [P];
  logic [NV-1:0] va_arb_ready [P];
  logic [P-1:0]  va_arb_data;
  always_comb begin
    for (int unsigned o = 0; o < P; o++) begin
      // only requests a free output VC of their class can satisfy take part, so a blocked class
      // never holds up another (that would make class-1 channels wait for class-0 ones)
      va_req[o] = '0;
      for (int unsigned i = 0; i < NV; i++)
        if (!act_q[i] && has_flit[i] && is_head[i] && !bad_head[i] && 32'(rop[i]) == o)
          for (int unsigned v = 0; v < V; v++)
            if (!obusy_q[o * V + v] && vc_ok(v, rcls[i], rtc[i])) va_req[o][i] = 1'b1;
    end
  end
  for (genvar o = 0; o < P; o++) begin : g_va
    rr_arbiter #(.N(NV), .Width(1)) u_arb (
      .clk_i, .rst_ni, .req_valid_i(va_req[o]), .req_ready_o(va_arb_ready[o]), .req_data_i('0),
      .gnt_valid_o(va_valid[o]), .gnt_ready_i(1'b1), .gnt_data_o(va_arb_data[o]), .gnt_idx_o(va_idx[o]));
  end

  // the winner of each output port takes its lowest free output VC of the allowed class
  logic [NV-1:0] va_gnt;
  logic [VB-1:0] va_vc [NV];
  logic [NV-1:0] va_take;                // output VCs allocated this cycle
  always_comb begin
    logic found;
    va_gnt = '0;
    va_take = '0;
    for (int unsigned i = 0; i < NV; i++) va_vc[i] = '0;
    for (int unsigned o = 0; o < P; o++) begin
      found = 1'b0;
      if (va_valid[o])
        for (int unsigned v = 0; v < V; v++)
          if (!found && !obusy_q[o * V + v] && vc_ok(v, rcls[va_idx[o]], rtc[va_idx[o]])) begin
            found = 1'b1;
            va_gnt[va_idx[o]] = 1'b1;
            va_vc[va_idx[o]] = VB'(v);
            va_take[o * V + v] = 1'b1;
          end
    end
  end

  // every input VC's output port and VC: held, or granted this cycle
  logic [NV-1:0] alloc;
  logic [PB-1:0] aop [NV];
  logic [VB-1:0] aov [NV];
  always_comb begin
    for (int unsigned i = 0; i < NV; i++) begin
      alloc[i] = act_q[i] || va_gnt[i];
      aop[i] = act_q[i] ? iop_q[i] : rop[i];
      aov[i] = act_q[i] ? iov_q[i] : va_vc[i];
    end
  end

  // ---- output credits ----
  logic [NV-1:0] give, cred_avail, cred_ok, sent, freed, cc_take, cc_give, cc_full, cc_error;
  logic [CB-1:0] cc_count [NV];
  always_comb begin
    for (int unsigned j = 0; j < NV; j++) begin
      give[j] = out_credit_i[j / V] && 32'(out_credit_vc_i[(j / V) * VB +: VB]) == j % V;
      cred_ok[j] = cred_avail[j] || give[j];
    end
  end
  // a credit spent in the cycle it arrives does not pass through the counter
  always_comb begin
    cc_take = sent & ~give;
    cc_give = give & ~sent;
  end
  for (genvar j = 0; j < NV; j++) begin : g_cred
    credit_counter #(.MaxCredits(D)) u_cred (
      .clk_i, .rst_ni, .take_i(cc_take[j]), .give_i(cc_give[j]), .count_o(cc_count[j]), .avail_o(cred_avail[j]),
      .full_o(cc_full[j]), .error_o(cc_error[j]));
  end

  // ---- switch allocation ----
  logic [V-1:0]  sa_in_req [P];          // per input port: its VCs that can send
  logic [P-1:0]  sa_in_valid, sa_gnt;    // input port offers a VC; its output port took it
  logic [VB-1:0] in_pick [P];
  logic [V-1:0]  sa_in_ready [P];
  logic [P-1:0]  sa_in_data;
  always_comb begin
    for (int unsigned p = 0; p < P; p++)
      for (int unsigned v = 0; v < V; v++)
        sa_in_req[p][v] = alloc[p * V + v] && has_flit[p * V + v]
                          && cred_ok[32'(aop[p * V + v]) * V + 32'(aov[p * V + v])];
  end
  for (genvar p = 0; p < P; p++) begin : g_sa_in
    rr_arbiter #(.N(V), .Width(1)) u_arb (
      .clk_i, .rst_ni, .req_valid_i(sa_in_req[p]), .req_ready_o(sa_in_ready[p]), .req_data_i('0),
      .gnt_valid_o(sa_in_valid[p]), .gnt_ready_i(sa_gnt[p]), .gnt_data_o(sa_in_data[p]), .gnt_idx_o(in_pick[p]));
  end

  logic [P-1:0]  sa_out_req [P];         // per output port: the input ports asking for it
  logic [P-1:0]  sa_out_valid;
  logic [PB-1:0] out_pick [P];
  logic [P-1:0]  sa_out_ready [P];
  logic [P-1:0]  sa_out_data;
  always_comb begin
    for (int unsigned o = 0; o < P; o++)
      for (int unsigned p = 0; p < P; p++)
        sa_out_req[o][p] = sa_in_valid[p] && 32'(aop[p * V + 32'(in_pick[p])]) == o;
  end
  for (genvar o = 0; o < P; o++) begin : g_sa_out
    rr_arbiter #(.N(P), .Width(1)) u_arb (
      .clk_i, .rst_ni, .req_valid_i(sa_out_req[o]), .req_ready_o(sa_out_ready[o]), .req_data_i('0),
      .gnt_valid_o(sa_out_valid[o]), .gnt_ready_i(1'b1), .gnt_data_o(sa_out_data[o]), .gnt_idx_o(out_pick[o]));
  end

  // the winners: input VC read, output VC sent on (and freed by a tail)
  logic [NV-1:0] rd_en;
  logic [IB-1:0] win [P];                // input VC switched to output port o
  always_comb begin
    sa_gnt = '0;
    rd_en = '0;
    sent = '0;
    freed = '0;
    for (int unsigned o = 0; o < P; o++) begin
      win[o] = IB'(32'(out_pick[o]) * V + 32'(in_pick[out_pick[o]]));
      if (sa_out_valid[o]) begin
        sa_gnt[out_pick[o]] = 1'b1;
        rd_en[win[o]] = 1'b1;
        sent[32'(aop[win[o]]) * V + 32'(aov[win[o]])] = 1'b1;
        freed[32'(aop[win[o]]) * V + 32'(aov[win[o]])] = is_tail[win[o]];
      end
    end
  end

  // ---- destinations that do not exist: a port with no switch grant this cycle discards one flit
  // (its lowest discarding VC), so that it returns at most one credit per cycle ----
  logic [NV-1:0] drop_rd;
  logic [P-1:0]  drop_any;
  logic [VB-1:0] drop_vc [P];
  always_comb begin
    drop_rd = '0;
    for (int unsigned p = 0; p < P; p++) begin
      drop_any[p] = 1'b0;
      drop_vc[p] = '0;
      for (int unsigned v = 0; v < V; v++)
        if (!drop_any[p] && !sa_gnt[p] && has_flit[p * V + v] && !act_q[p * V + v]
            && (drop_q[p * V + v] || bad_head[p * V + v])) begin
          drop_any[p] = 1'b1;
          drop_vc[p] = VB'(v);
          drop_rd[p * V + v] = 1'b1;
        end
    end
    rd = rd_en | drop_rd;
  end

  // ---- next state ----
  always_comb begin
    act_d = (act_q | va_gnt) & ~(rd_en & is_tail);
    for (int unsigned i = 0; i < NV; i++) begin
      iop_d[i] = va_gnt[i] ? rop[i] : iop_q[i];
      iov_d[i] = va_gnt[i] ? va_vc[i] : iov_q[i];
    end
    drop_d = (drop_q & ~drop_rd) | (drop_rd & ~is_tail);
    obusy_d = (obusy_q | va_take) & ~freed;
    bad_d = bad_q + 16'($countones(drop_rd & bad_head & ~drop_q));
    ov_d = sa_out_valid;
    ovc_d = ovc_q;
    oflit_d = oflit_q;
    for (int unsigned o = 0; o < P; o++)
      if (sa_out_valid[o]) begin
        ovc_d[o * VB +: VB] = aov[win[o]];
        oflit_d[o * W +: W] = front[win[o]];
      end
    cr_d = sa_gnt | drop_any;
    crvc_d = crvc_q;
    for (int unsigned p = 0; p < P; p++)
      if (sa_gnt[p]) crvc_d[p * VB +: VB] = in_pick[p];
      else if (drop_any[p]) crvc_d[p * VB +: VB] = drop_vc[p];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_q <= '0;
      for (int unsigned i = 0; i < NV; i++) begin
        iop_q[i] <= '0;
        iov_q[i] <= '0;
      end
      drop_q <= '0;
      obusy_q <= '0;
      bad_q <= '0;
      ov_q <= '0;
      ovc_q <= '0;
      oflit_q <= '0;
      cr_q <= '0;
      crvc_q <= '0;
    end else begin
      act_q <= act_d;
      iop_q <= iop_d;
      iov_q <= iov_d;
      drop_q <= drop_d;
      obusy_q <= obusy_d;
      bad_q <= bad_d;
      ov_q <= ov_d;
      ovc_q <= ovc_d;
      oflit_q <= oflit_d;
      cr_q <= cr_d;
      crvc_q <= crvc_d;
    end
  end

  assign in_credit_o = cr_q;
  assign in_credit_vc_o = crvc_q;
  assign out_valid_o = ov_q;
  assign out_vc_o = ovc_q;
  assign out_flit_o = oflit_q;
  assign bad_dst_o = bad_q;

`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int unsigned j = 0; j < NV; j++) begin
        // a credit is never spent without one, nor returned beyond D (the counter's error)
        a_credits_legal: assert (!cc_error[j])
          else $error("output VC %0d of port %0d: a credit spent without one or returned beyond %0d", j % V, j / V, D);
        // an output VC is allocated to one input VC at a time, and busy exactly while it is
        a_vc_held_once: assert (a_holders(j) == (obusy_q[j] ? 1 : 0))
          else $error("output VC %0d of port %0d: busy %0b, held by %0d input VCs", j % V, j / V, obusy_q[j], a_holders(j));
      end
      for (int unsigned i = 0; i < NV; i++) begin
        // the upstream spends a credit per flit: an arriving flit always finds a free slot
        a_arrival_fits: assert (!arrive[i] || buf_ready[i] || (rd[i] && !buf_valid[i]))
          else $error("input VC %0d of port %0d: a flit arrived with its buffer full", i % V, i / V);
      end
    end
  end
  function automatic int unsigned a_holders(int unsigned j);
    int unsigned n;
    n = 0;
    for (int unsigned i = 0; i < NV; i++)
      if (act_q[i] && 32'(iop_q[i]) * V + 32'(iov_q[i]) == j) n++;
    return n;
  endfunction
`endif
endmodule
