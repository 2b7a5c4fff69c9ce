// router — input-queued wormhole router with virtual channels and credit flow control
// (SPEC 5.6, docs/link.md).
//
// Every input port has one FIFO of D flits per virtual channel; the upstream sender holds a
// credit per free slot (in_credit_*: one credit returned per flit read). Per input VC:
//   IDLE   -> a head flit at the front: route computation and VC allocation in the same cycle;
//   ACTIVE -> holding an output port and VC: switch allocation, one flit per cycle, until the tail.
// VC allocation: per output port, round-robin among the input VCs asking for it for which a free
// output VC exists that their traffic class and route allow (vc_ok); the winner takes the lowest
// such VC. On a torus link that VC is unique, so a flow keeps one FIFO per hop and its order. Switch allocation (separable): every
// input port picks one of its ACTIVE VCs that has a flit and a downstream credit (round-robin),
// then every output port picks one of the input ports asking for it (round-robin). The winner's
// flit goes to the output register. A head flit whose destination does not exist (id >= KX * KY * KZ, or
// >= P for a switch) never enters allocation: its packet is read out and discarded, one flit per
// cycle when its port has no switch grant, its credits returned, and bad_dst_o counts it. Pipeline: a head flit written at edge E is allocated a VC in
// the next cycle and switched in the one after, and appears on the output after the edge E + 2: 3
// cycles per hop; body flits follow one per cycle.
module router
  import router_pkg::*;
#(
  parameter int unsigned P    = 5,    // ports (torus: 5; switch: the endpoints)
  parameter int unsigned V    = 2,    // virtual channels per port (torus: even, for the classes)
  parameter int unsigned D    = 4,    // flits per input VC buffer (and the credits of each output VC)
  parameter int unsigned W    = 64,   // flit bits
  parameter int unsigned Topo = TopoTorus,
  parameter int unsigned KX   = 4,
  parameter int unsigned KY   = 4,
  parameter int unsigned KZ   = 1,    // > 1: a 3D torus (7 ports: also 5 +z, 6 -z)
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned PB = P > 1 ? $clog2(P) : 1,
  localparam int unsigned DB = $clog2(D + 1)
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
  if (Topo == TopoTorus && (P != (KZ > 1 ? 7 : 5) || V % 2 != 0))
    $error("router: a 2D (3D) torus router has 5 (7) ports and an even V");

  localparam int unsigned NV = P * V;  // input VCs, index p * V + v
  localparam int unsigned NC = Topo == TopoSwitch ? V : V / 2;  // traffic classes
  localparam int unsigned AB = D > 1 ? $clog2(D) : 1;

  // ---- route computation: output port and the VC class it allows (2: any) ----
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
    cls = 2'd2;
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
    return {cls, PB'(op)};
  endfunction

  // May a packet of traffic class tc (the head's field, modulo NC) take output VC v on a hop whose
  // route allows dateline class cls (2: any)? Torus: VCs 2 tc and 2 tc + 1 belong to class tc, and
  // a link hop takes the one of its dateline class; switch: VC tc.
  function automatic logic vc_ok(int unsigned v, logic [1:0] cls, logic [1:0] tc);
    int unsigned c;
    c = int'(tc) % NC;
    if (Topo == TopoSwitch) return v == c;
    return v / 2 == c && (cls == 2'd2 || v % 2 == int'(cls));
  endfunction

  // ---- state ----
  logic [W-1:0]    fifo_q [NV][D];
  logic [AB-1:0]   rd_q [NV], wr_q [NV];
  logic [DB-1:0]   cnt_q [NV];
  logic [NV-1:0]   act_q;                // input VC holds an output VC
  logic [PB-1:0]   iop_q [NV];           // its output port
  logic [VB-1:0]   iov_q [NV];           // its output VC
  logic [P*V-1:0]  obusy_q;              // output VC (o * V + v) allocated
  logic [DB-1:0]   cred_q [P*V];         // credits of output VC (o * V + v)
  logic [4:0]      va_prio_q [P], sa_in_prio_q [P], sa_out_prio_q [P];
  logic [P-1:0]    ov_q;
  logic [P*VB-1:0] ovc_q;
  logic [P*W-1:0]  oflit_q;
  logic [P-1:0]    cr_q;
  logic [NV-1:0]   drop_q;               // input VC is discarding a packet with a bad destination
  logic [15:0]     bad_q;
  logic [P*VB-1:0] crvc_q;

  // ---- per input VC: the front flit and its route ----
  logic [W-1:0]  front [NV];
  logic [NV-1:0] nonempty, is_head, is_tail;
  logic [PB-1:0] rop [NV];
  logic [1:0]    rcls [NV], rtc [NV];
  always_comb begin
    for (int unsigned i = 0; i < NV; i++) begin
      front[i] = fifo_q[i][rd_q[i]];
      nonempty[i] = cnt_q[i] != '0;
      is_head[i] = front[i][W-2];             // kinds 1 and 3
      is_tail[i] = front[i][W-1];             // kinds 2 and 3
      {rcls[i], rop[i]} = route(front[i][IdBits-1:0], id_i, i / V, 1'((i % V) % 2));
      rtc[i] = front[i][27:26];
    end
  end

  // ---- destinations that do not exist: the packet is read and discarded, its credits returned ----
  logic [NV-1:0] bad_head, drop_rd;
  always_comb begin
    for (int unsigned i = 0; i < NV; i++)
      bad_head[i] = is_head[i] && int'(front[i][IdBits-1:0]) >= (Topo == TopoSwitch ? P : KX * KY * KZ);
  end

  // ---- VC allocation ----
  logic [NV-1:0] va_req, va_gnt;
  logic [VB-1:0] va_vc [NV];
  logic [P*V-1:0] va_take;
  logic [5:0]    pick;
  logic [5:0]    va_pick [P];      // the input VC each output port's VC allocation took (32: none)
  logic [31:0]   va_cand;          // the input VCs competing for one output port
  logic          found;
  always_comb begin
    va_gnt = '0;
    va_take = '0;
    pick = '0;
    va_cand = '0;
    found = 1'b0;
    for (int unsigned i = 0; i < NV; i++) begin
      va_req[i] = !act_q[i] && nonempty[i] && is_head[i] && !bad_head[i];
      va_vc[i] = '0;
    end
    for (int unsigned o = 0; o < P; o++) begin
      // only requests a free output VC of their class can satisfy take part, so a blocked class
      // never holds up another (that would make class-1 channels wait for class-0 ones)
      va_cand = '0;
      for (int unsigned i = 0; i < NV; i++) begin
        va_cand[i] = 1'b0;
        if (va_req[i] && 32'(rop[i]) == o)
          for (int unsigned v = 0; v < V; v++)
            if (!obusy_q[o * V + v] && vc_ok(v, rcls[i], rtc[i])) va_cand[i] = 1'b1;
      end
      pick = rr_pick(va_cand, va_prio_q[o], NV);
      va_pick[o] = 6'd32;
      if (pick != 6'd32) begin
        // the lowest free output VC of the allowed class
        found = 1'b0;
        for (int unsigned v = 0; v < V; v++) begin
          if (!found && !obusy_q[o * V + v] && vc_ok(v, rcls[int'(pick)], rtc[int'(pick)])) begin
            found = 1'b1;
            va_gnt[int'(pick)] = 1'b1;
            va_vc[int'(pick)] = VB'(v);
            va_pick[o] = pick;
            va_take[o * V + v] = 1'b1;
          end
        end
      end
    end
  end

  // ---- switch allocation ----
  logic [5:0]    in_pick [P];      // the input VC (index within the port) each input port offers
  logic [P-1:0]  sa_gnt;           // input port p won its output port
  logic [5:0]    out_pick [P];     // the input port each output port takes
  logic [NV-1:0] rd_en;
  logic [31:0]   sa_cand;          // the VCs (inputs) competing for one input (output) port
  always_comb begin
    rd_en = '0;
    sa_gnt = '0;
    for (int unsigned p = 0; p < P; p++) begin
      sa_cand = '0;
      for (int unsigned v = 0; v < V; v++)
        sa_cand[v] = act_q[p * V + v] && nonempty[p * V + v] && cred_q[32'(iop_q[p * V + v]) * V + 32'(iov_q[p * V + v])] != '0;
      in_pick[p] = rr_pick(sa_cand, sa_in_prio_q[p], V);
    end
    for (int unsigned o = 0; o < P; o++) begin
      sa_cand = '0;
      for (int unsigned p = 0; p < P; p++)
        sa_cand[p] = in_pick[p] != 6'd32 && 32'(iop_q[p * V + 32'(in_pick[p])]) == o;
      out_pick[o] = rr_pick(sa_cand, sa_out_prio_q[o], P);
      if (out_pick[o] != 6'd32) begin
        sa_gnt[int'(out_pick[o])] = 1'b1;
        rd_en[32'(out_pick[o]) * V + 32'(in_pick[int'(out_pick[o])])] = 1'b1;
      end
    end
  end

  // a port with no switch grant this cycle discards one flit (its lowest discarding VC), so that it
  // returns at most one credit per cycle
  logic [5:0] drop_vc [P];
  always_comb begin
    drop_rd = '0;
    for (int unsigned p = 0; p < P; p++) begin
      drop_vc[p] = 6'd32;
      for (int unsigned v = 0; v < V; v++)
        if (drop_vc[p] == 6'd32 && !sa_gnt[p] && nonempty[p * V + v] && !act_q[p * V + v]
            && (drop_q[p * V + v] || bad_head[p * V + v])) drop_vc[p] = 6'(v);
      if (drop_vc[p] != 6'd32) drop_rd[p * V + 32'(drop_vc[p])] = 1'b1;
    end
  end

  // ---- output VCs: a flit sent on each, and whether it was a tail ----
  logic [P*V-1:0] ovc_sent, ovc_freed;
  always_comb begin
    ovc_sent = '0;
    ovc_freed = '0;
    for (int unsigned i = 0; i < NV; i++) begin
      if (rd_en[i]) begin
        ovc_sent[32'(iop_q[i]) * V + 32'(iov_q[i])] = 1'b1;
        ovc_freed[32'(iop_q[i]) * V + 32'(iov_q[i])] = is_tail[i];
      end
    end
  end

  // ---- registers ----
  always_ff @(posedge clk_i) begin
    for (int unsigned p = 0; p < P; p++)
      if (in_valid_i[p]) fifo_q[p * V + 32'(in_vc_i[p*VB +: VB])][wr_q[p * V + 32'(in_vc_i[p*VB +: VB])]] <= in_flit_i[p*W +: W];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned i = 0; i < NV; i++) begin
        rd_q[i] <= '0;
        wr_q[i] <= '0;
        cnt_q[i] <= '0;
        iop_q[i] <= '0;
        iov_q[i] <= '0;
      end
      act_q <= '0;
      obusy_q <= '0;
      drop_q <= '0;
      bad_q <= '0;
      for (int unsigned j = 0; j < P * V; j++) cred_q[j] <= DB'(D);
      for (int unsigned p = 0; p < P; p++) begin
        va_prio_q[p] <= '0;
        sa_in_prio_q[p] <= '0;
        sa_out_prio_q[p] <= '0;
      end
      ov_q <= '0;
      ovc_q <= '0;
      oflit_q <= '0;
      cr_q <= '0;
      crvc_q <= '0;
    end else begin
      // buffers
      for (int unsigned i = 0; i < NV; i++) begin
        if (rd_en[i] || drop_rd[i]) rd_q[i] <= AB'((32'(rd_q[i]) + 1) % D);
        if (in_valid_i[i / V] && 32'(in_vc_i[(i / V)*VB +: VB]) == i % V) wr_q[i] <= AB'((32'(wr_q[i]) + 1) % D);
        cnt_q[i] <= cnt_q[i] + DB'(in_valid_i[i / V] && 32'(in_vc_i[(i / V)*VB +: VB]) == i % V)
                    - DB'(rd_en[i] || drop_rd[i]);
        if (drop_rd[i]) drop_q[i] <= !is_tail[i];
        if (va_gnt[i]) begin
          act_q[i] <= 1'b1;
          iop_q[i] <= rop[i];
          iov_q[i] <= va_vc[i];
        end else if (rd_en[i] && is_tail[i]) begin
          act_q[i] <= 1'b0;
        end
      end
      bad_q <= bad_q + 16'($countones(drop_rd & bad_head & ~drop_q));
      // output VCs and credits
      for (int unsigned j = 0; j < P * V; j++) begin
        cred_q[j] <= cred_q[j] - DB'(ovc_sent[j])
                     + DB'(out_credit_i[j / V] && 32'(out_credit_vc_i[(j / V)*VB +: VB]) == j % V);
        if (va_take[j]) obusy_q[j] <= 1'b1;
        else if (ovc_freed[j]) obusy_q[j] <= 1'b0;
      end
      // arbiter priorities: one past the winner
      for (int unsigned o = 0; o < P; o++) begin
        if (va_pick[o] != 6'd32) va_prio_q[o] <= 5'((32'(va_pick[o]) + 1) % NV);
        if (out_pick[o] != 6'd32) sa_out_prio_q[o] <= 5'((32'(out_pick[o]) + 1) % P);
      end
      for (int unsigned p = 0; p < P; p++)
        if (sa_gnt[p]) sa_in_prio_q[p] <= 5'((32'(in_pick[p]) + 1) % V);
      // output registers and returned credits
      for (int unsigned o = 0; o < P; o++) begin
        ov_q[o] <= out_pick[o] != 6'd32;
        if (out_pick[o] != 6'd32) begin
          ovc_q[o*VB +: VB] <= iov_q[32'(out_pick[o]) * V + 32'(in_pick[int'(out_pick[o])])];
          oflit_q[o*W +: W] <= front[32'(out_pick[o]) * V + 32'(in_pick[int'(out_pick[o])])];
        end
      end
      for (int unsigned p = 0; p < P; p++) begin
        cr_q[p] <= sa_gnt[p] || drop_vc[p] != 6'd32;
        if (sa_gnt[p]) crvc_q[p*VB +: VB] <= VB'(in_pick[p]);
        else if (drop_vc[p] != 6'd32) crvc_q[p*VB +: VB] <= VB'(drop_vc[p]);
      end
    end
  end

  assign in_credit_o = cr_q;
  assign in_credit_vc_o = crvc_q;
  assign out_valid_o = ov_q;
  assign out_vc_o = ovc_q;
  assign out_flit_o = oflit_q;
  assign bad_dst_o = bad_q;
endmodule
