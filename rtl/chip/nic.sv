// nic — the chip's NeuronLink endpoint (SPEC 5.7, docs/chip.md): it turns the chip's remote writes
// into packets on the router's local port and the packets the router ejects into writes and
// semaphore additions for this chip.
//
// Send (tx_*): a write whose address names another chip (a data write, an accumulate, or a
// semaphore write: tx_sem_i) becomes one packet of 1 + ceil(n / B) flits, B = body_bytes(W):
//   head  head_t {tc 0, len, type (PktWrite, PktAccWrite, PktSem), src id_i, dst chip field - 1}
//         and above it pkt_hdr_t {esize4, n, the address's low 24 bits};
//   body  the write's bytes, B a flit from bit 0.
// The packet leaves one flit a cycle on VC 0 of the router's local port while a credit for it is
// held (D credits, a credit_counter; a returned credit counts from the next cycle). A request is
// taken (tx_ready_o) when none is held or the held one's last flit leaves this cycle, so packets
// follow each other without a gap; tx_ready_o depends on registers only.
// Receive (ej_*): a stream_fifo of D flits per VC (the router's credits for the port: a credit goes
// back, registered, for every flit read from it). One assembler takes a packet at a time from the
// VC whose front flit is a head (rr_arbiter among them), one flit a cycle, then offers it on rx_*
// until taken:
//   PktWrite, PktAccWrite  a write of n bytes to HBM address {8'b0, addr} (acc for PktAccWrite,
//                          esize 4 if esize4, else 2 for an accumulate and 1 for a copy);
//   PktSem                 rx_sem_o: add the value (data[31:0]) to the semaphore at addr.
// A packet for another chip id, or of a type the NIC does not take (read request, read response),
// is read and dropped, and drop_o counts it.
// Every output is a register, or a function of registers (tx_ready_o, rx_*).
module nic
  import router_pkg::*;
  import chip_pkg::*;
  import dma_pkg::wr_req_t;
  import dma_pkg::SpaceHbm;
  import dma_pkg::LocalBits;
  import dma_pkg::chip_of;
#(
  parameter int unsigned W         = 64,  /// flit bits
  parameter int unsigned V         = 2,   /// VCs of the router's local port
  parameter int unsigned D         = 4,   /// flits per VC buffer (the credits of each side)
  parameter int unsigned BeatBytes = 16,  /// bytes of a write's data
  localparam int unsigned VB = V > 1 ? $clog2(V) : 1,
  localparam int unsigned DW = 8 * BeatBytes
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic [IdBits-1:0] id_i,             /// this chip's id
  // writes to other chips
  input  logic              tx_valid_i,
  output logic              tx_ready_o,
  input  wr_req_t           tx_i,              /// addr: chip field (another chip) and its HBM address
  input  logic              tx_sem_i,          /// a semaphore write (value in tx_data_i[31:0])
  input  logic [DW-1:0]     tx_data_i,
  // the router's local port: injection
  output logic              inj_valid_o,
  output logic [VB-1:0]     inj_vc_o,
  output logic [W-1:0]      inj_flit_o,
  input  logic              inj_credit_i,
  input  logic [VB-1:0]     inj_credit_vc_i,
  // the router's local port: ejection
  input  logic              ej_valid_i,
  input  logic [VB-1:0]     ej_vc_i,
  input  logic [W-1:0]      ej_flit_i,
  output logic              ej_credit_o,
  output logic [VB-1:0]     ej_credit_vc_o,
  // writes and semaphore additions from other chips
  output logic              rx_valid_o,
  input  logic              rx_ready_i,
  output wr_req_t           rx_o,              /// an HBM write of this chip (addr: chip field 0)
  output logic              rx_sem_o,          /// a semaphore addition (value in rx_data_o[31:0])
  output logic [DW-1:0]     rx_data_o,
  output logic [IdBits-1:0] rx_src_o,          /// the chip the packet came from
  output logic [15:0]       drop_o             /// packets dropped: another chip's, or a type not taken
);
  localparam int unsigned B = body_bytes(W);
  localparam int unsigned MaxLen = 1 + (BeatBytes + B - 1) / B;
  localparam int unsigned CB = $clog2(D + 1);
  localparam int unsigned KB = $clog2(MaxLen + 1);

  if (W < HdrBits + 2) $error("nic: a head flit holds at least its kind, head_t and pkt_hdr_t");
  if (BeatBytes > 255) $error("nic: a packet carries at most 255 bytes");

  // ---- send: the request being sent, flit by flit
  logic          tx_v_q, tx_v_d, tx_sem_q, tx_sem_d;
  wr_req_t       tx_req_q, tx_req_d;
  logic [DW-1:0] tx_data_q, tx_data_d;
  logic [KB-1:0] tx_k_q, tx_k_d, tx_len_q, tx_len_d;  // next flit; flits in the packet
  logic          inj_v_q, inj_v_d;
  logic [W-1:0]  inj_flit_q, inj_flit_d;
  logic          cr_avail, cr_take, cr_give, cr_full_unused, cr_error_unused;
  logic [CB-1:0] cr_count_unused;
  logic          send, send_last;

  credit_counter #(.MaxCredits(D)) u_credit (
    .clk_i, .rst_ni, .take_i(cr_take), .give_i(cr_give), .count_o(cr_count_unused), .avail_o(cr_avail),
    .full_o(cr_full_unused), .error_o(cr_error_unused));

  // flit k of the held request
  function automatic logic [W-1:0] tx_flit(wr_req_t r, logic sem, logic [DW-1:0] data, logic [KB-1:0] k,
                                           logic [KB-1:0] len, logic [IdBits-1:0] id);
    logic [W-1:0] f;
    head_t h;
    pkt_hdr_t p;
    flit_kind_e kind;
    f = '0;
    if (k == '0) begin
      h = '{tc: 2'd0, len: LenBits'(len), ptype: sem ? PktSem : (r.acc ? PktAccWrite : PktWrite), src: id,
            dst: chip_of(r.addr) - 8'd1};
      p = '{esize4: r.esize == 3'd4, n: r.n, addr: r.addr[LocalBits-1:0]};
      f[HdrBits-1:0] = {p, h};
      kind = len == KB'(1) ? FlitSingle : FlitHead;
    end else begin
      for (int unsigned b = 0; b < B; b++)
        if ((32'(k) - 1) * B + b < BeatBytes) f[8*b +: 8] = data[8*((32'(k) - 1) * B + b) +: 8];
      kind = k == len - KB'(1) ? FlitTail : FlitBody;
    end
    f[W-1 -: 2] = kind;
    return f;
  endfunction

  always_comb begin
    send = tx_v_q && cr_avail;
    send_last = send && tx_k_q == tx_len_q - KB'(1);
    tx_ready_o = !tx_v_q || send_last;
    cr_take = send;
    cr_give = inj_credit_i && inj_credit_vc_i == '0;
    tx_v_d = tx_v_q;
    tx_sem_d = tx_sem_q;
    tx_req_d = tx_req_q;
    tx_data_d = tx_data_q;
    tx_k_d = tx_k_q;
    tx_len_d = tx_len_q;
    if (send) tx_k_d = tx_k_q + KB'(1);
    if (send_last) tx_v_d = 1'b0;
    if (tx_valid_i && tx_ready_o) begin
      tx_v_d = 1'b1;
      tx_sem_d = tx_sem_i;
      tx_req_d = tx_i;
      tx_data_d = tx_data_i;
      tx_k_d = '0;
      tx_len_d = KB'(1 + (32'(tx_i.n) + B - 1) / B);
    end
    inj_v_d = send;
    inj_flit_d = send ? tx_flit(tx_req_q, tx_sem_q, tx_data_q, tx_k_q, tx_len_q, id_i) : inj_flit_q;
  end

  // ---- receive: a flit buffer per VC
  logic [V-1:0]  f_push, f_ready_unused, f_valid, f_pop;
  logic [W-1:0]  f_data [V];
  for (genvar v = 0; v < V; v++) begin : g_vc
    logic [CB-1:0] f_usage_unused;
    assign f_push[v] = ej_valid_i && ej_vc_i == VB'(v);
    stream_fifo #(.Width(W), .Depth(D)) u_fifo (
      .clk_i, .rst_ni, .push_valid_i(f_push[v]), .push_ready_o(f_ready_unused[v]), .push_data_i(ej_flit_i),
      .pop_valid_o(f_valid[v]), .pop_ready_i(f_pop[v]), .pop_data_o(f_data[v]), .usage_o(f_usage_unused));
  end

  // ---- receive: the assembler
  typedef enum logic [1:0] { RxIdle, RxCollect, RxHold, RxDrop } rx_st_e;
  rx_st_e        rx_st_q, rx_st_d;
  logic [VB-1:0] rx_vc_q, rx_vc_d;
  head_t         rx_head_q, rx_head_d;
  pkt_hdr_t      rx_hdr_q, rx_hdr_d;
  logic [DW-1:0] rx_data_q, rx_data_d;
  logic [KB-1:0] rx_k_q, rx_k_d;           // body flits taken
  logic [15:0]   drop_q, drop_d;
  logic          cr_v_q, cr_v_d;
  logic [VB-1:0] cr_vc_q, cr_vc_d;

  // a VC whose front flit is a head, for the idle assembler
  logic [V-1:0]  heads, arb_ready_unused;
  logic          arb_valid, arb_data_unused;
  logic [VB-1:0] arb_idx;
  always_comb begin
    for (int unsigned v = 0; v < V; v++)
      heads[v] = f_valid[v] && (flit_kind_e'(f_data[v][W-1 -: 2]) == FlitHead ||
                                flit_kind_e'(f_data[v][W-1 -: 2]) == FlitSingle);
  end
  rr_arbiter #(.N(V), .Width(1)) u_vc_arb (
    .clk_i, .rst_ni, .req_valid_i(rx_st_q == RxIdle ? heads : '0), .req_ready_o(arb_ready_unused),
    .req_data_i('0), .gnt_valid_o(arb_valid), .gnt_ready_i(1'b1), .gnt_data_o(arb_data_unused),
    .gnt_idx_o(arb_idx));

  logic [W-1:0] fl;
  flit_kind_e   fk;
  head_t        fh;
  always_comb begin
    rx_st_d = rx_st_q;
    rx_vc_d = rx_vc_q;
    rx_head_d = rx_head_q;
    rx_hdr_d = rx_hdr_q;
    rx_data_d = rx_data_q;
    rx_k_d = rx_k_q;
    drop_d = drop_q;
    f_pop = '0;
    fl = f_data[rx_vc_q];
    fk = flit_kind_e'(fl[W-1 -: 2]);
    fh = head_t'(fl[HeadBits-1:0]);
    unique case (rx_st_q)
      RxIdle: if (arb_valid) begin
        fl = f_data[arb_idx];
        fk = flit_kind_e'(fl[W-1 -: 2]);
        fh = head_t'(fl[HeadBits-1:0]);
        f_pop[arb_idx] = 1'b1;
        rx_vc_d = arb_idx;
        rx_head_d = fh;
        rx_hdr_d = pkt_hdr_t'(fl[HdrBits-1:HeadBits]);
        rx_data_d = '0;
        rx_k_d = '0;
        if (fh.dst != id_i || !(fh.ptype == PktWrite || fh.ptype == PktAccWrite || fh.ptype == PktSem)) begin
          drop_d = drop_q + 16'd1;
          rx_st_d = fk == FlitSingle ? RxIdle : RxDrop;
        end else begin
          rx_st_d = fk == FlitSingle ? RxHold : RxCollect;
        end
      end
      RxCollect: if (f_valid[rx_vc_q]) begin
        f_pop[rx_vc_q] = 1'b1;
        for (int unsigned b = 0; b < B; b++)
          if (32'(rx_k_q) * B + b < BeatBytes) rx_data_d[8*(32'(rx_k_q) * B + b) +: 8] = fl[8*b +: 8];
        rx_k_d = rx_k_q + KB'(1);
        if (fk == FlitTail) rx_st_d = RxHold;
      end
      RxHold: if (rx_ready_i) rx_st_d = RxIdle;
      RxDrop: if (f_valid[rx_vc_q]) begin
        f_pop[rx_vc_q] = 1'b1;
        if (fk == FlitTail) rx_st_d = RxIdle;
      end
      default: rx_st_d = RxIdle;
    endcase
    cr_v_d = |f_pop;
    cr_vc_d = rx_st_q == RxIdle ? arb_idx : rx_vc_q;
  end

  // ---- state
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tx_v_q <= 1'b0;
      tx_sem_q <= 1'b0;
      tx_req_q <= '0;
      tx_data_q <= '0;
      tx_k_q <= '0;
      tx_len_q <= '0;
      inj_v_q <= 1'b0;
      inj_flit_q <= '0;
      rx_st_q <= RxIdle;
      rx_vc_q <= '0;
      rx_head_q <= '0;
      rx_hdr_q <= '0;
      rx_data_q <= '0;
      rx_k_q <= '0;
      drop_q <= '0;
      cr_v_q <= 1'b0;
      cr_vc_q <= '0;
    end else begin
      tx_v_q <= tx_v_d;
      tx_sem_q <= tx_sem_d;
      tx_req_q <= tx_req_d;
      tx_data_q <= tx_data_d;
      tx_k_q <= tx_k_d;
      tx_len_q <= tx_len_d;
      inj_v_q <= inj_v_d;
      inj_flit_q <= inj_flit_d;
      rx_st_q <= rx_st_d;
      rx_vc_q <= rx_vc_d;
      rx_head_q <= rx_head_d;
      rx_hdr_q <= rx_hdr_d;
      rx_data_q <= rx_data_d;
      rx_k_q <= rx_k_d;
      drop_q <= drop_d;
      cr_v_q <= cr_v_d;
      cr_vc_q <= cr_vc_d;
    end
  end

  // ---- outputs
  assign inj_valid_o = inj_v_q;
  assign inj_vc_o = '0;
  assign inj_flit_o = inj_flit_q;
  assign ej_credit_o = cr_v_q;
  assign ej_credit_vc_o = cr_vc_q;
  assign rx_valid_o = rx_st_q == RxHold;
  assign rx_sem_o = rx_head_q.ptype == PktSem;
  assign rx_o = '{space: SpaceHbm, col: 1'b0,
                  esize: rx_hdr_q.esize4 ? 3'd4 : (rx_head_q.ptype == PktAccWrite ? 3'd2 : 3'd1),
                  addr: {8'b0, rx_hdr_q.addr}, n: rx_hdr_q.n, acc: rx_head_q.ptype == PktAccWrite};
  assign rx_data_o = rx_data_q;
  assign rx_src_o = rx_head_q.src;
  assign drop_o = drop_q;
endmodule
