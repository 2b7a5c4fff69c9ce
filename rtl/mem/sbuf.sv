// sbuf — the state buffer of SPEC 5.4 (docs/sbuf.md): Parts partitions of PartBytes bytes.
//
// Storage. A partition is a sequence of lines of BeatBytes bytes; line l lives in bank l % Banks
// at index l / Banks. A bank holds the line of every partition at that index side by side (one
// row of Parts x BeatBytes bytes, written with a bit mask), so a column write, which touches one
// line in many partitions, is one bank write. Every bank has one read and one write port.
//
// Ports.
//   dw_*  DMA write (the DMA engine's write channel, dma_pkg::wr_req_t and the data): a row of n
//         bytes inside one partition (at most two lines), or a column of n elements of esize
//         bytes, element k into partition part(addr) + k at offset off(addr); a copy, or an
//         accumulate (BF16 or FP32 add). The space field is the core's to decode (ignored here).
//   dr_*  DMA read (dma_pkg::rd_req_t): up to BeatBytes bytes inside one partition; the data
//         returns the next cycle with the request's id. dr_busy_o: the banks that refuse a DMA
//         read this cycle (dr_ready_o is high iff the read's banks are all outside it); it does not
//         depend on the DMA read port's inputs, so a requester can choose a read that will go.
//   e_*   EPorts engine ports (sbuf_pkg::e_req_t each): one element of 4 bits, 1, 2 or 4 bytes at
//         element index idx in every partition, written in the partitions of its mask or read in
//         all, zero-extended to 32 bits; the read data returns the next cycle.
//
// Read-add-write unit. An accepted accumulate (stage 1) reads its lines, takes the bytes that stage
// 2 writes this cycle in their place (forwarding), adds in BF16 or FP32 and registers the sums;
// stage 2 writes them the next cycle. One accumulate per cycle, back to back to one address.
//
// Arbitration per bank, on the set of banks a request touches (whatever the partitions):
//   write port: 1. stage 2's write; 2. a DMA copy; 3. the engine writes, round-robin (rr_arbiter);
//   read port:  1. an accumulate's stage 1; 2. the engine reads, round-robin; 3. the DMA read.
//   A DMA accumulate needs its banks' read ports only (stage 2 takes the write ports the next
//   cycle); a copy needs its write ports free of stage 2; an engine access needs its bank free of
//   stage 2, an engine write also of the DMA write (never between an accumulate's read and its
//   write), an engine read of an accumulate's stage 1; a DMA read its banks free of stage 2, of an
//   accumulate and of engine reads. An engine port refused Starve cycles in a row claims its bank:
//   the DMA's requests touching it are refused until the port is served (the worst-case wait: docs/sbuf.md).
// So a read sees every write accepted in an earlier cycle, and an accumulate is never split by an
// engine write. Nothing is accepted during reset; reset does not clear the storage.
module sbuf
  import numerics_pkg::*;
  import dma_pkg::AddrBits;
  import dma_pkg::wr_req_t;
  import dma_pkg::rd_req_t;
  import sbuf_pkg::*;
#(
  parameter int unsigned Parts     = 4,
  parameter int unsigned PartBytes = 1024,
  parameter int unsigned BeatBytes = 16,
  parameter int unsigned Banks     = 4,
  parameter int unsigned EPorts    = 8,  // engine ports (docs/core.md: e0..e7)
  parameter int unsigned Starve    = 8,  // refused cycles after which an engine port claims its bank
  // 1 in every real configuration. 0 builds a deliberately broken read-add-write unit (no
  // forwarding from stage 2) for the bench's self-test, which must catch it.
  parameter bit          Forward   = 1'b1,
  localparam int unsigned NB = $clog2(BeatBytes) + 1,
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned LaneW = 32 * Parts
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // DMA write port
  input  logic                          dw_valid_i,
  output logic                          dw_ready_o,
  input  wr_req_t                       dw_i,
  input  logic [DW-1:0]                 dw_data_i,
  // DMA read port
  input  logic                          dr_valid_i,
  output logic                          dr_ready_o,
  output logic [Banks-1:0]              dr_busy_o,   /// banks refusing a DMA read this cycle
  input  rd_req_t                       dr_i,
  output logic                          dr_rvalid_o,
  output logic [7:0]                    dr_rid_o,
  output logic [DW-1:0]                 dr_rdata_o,
  // engine ports
  input  logic [EPorts-1:0]             e_valid_i,
  output logic [EPorts-1:0]             e_ready_o,
  input  e_req_t [EPorts-1:0]           e_i,
  input  logic [EPorts-1:0][Parts-1:0]  e_mask_i,
  input  logic [EPorts-1:0][LaneW-1:0]  e_wdata_i,
  output logic [EPorts-1:0]             e_rvalid_o,
  output logic [EPorts-1:0][LaneW-1:0]  e_rdata_o,
  // stage 2 of the read-add-write unit holds an accumulate
  output logic                          acc_busy_o
);
  localparam int unsigned OffBits = $clog2(PartBytes);
  localparam int unsigned LW = $clog2(BeatBytes);
  localparam int unsigned NL = PartBytes / BeatBytes;      // lines per partition
  localparam int unsigned NI = (NL + Banks - 1) / Banks;   // lines per bank
  localparam int unsigned IW = NI > 1 ? $clog2(NI) : 1;
  localparam int unsigned PW = Parts * DW;                 // one bank row: a line of every partition
  localparam int unsigned NE = BeatBytes / 2;              // elements of an accumulate, at most

  if (Banks < 2) $error("sbuf: Banks must be at least 2 (a row write may span two lines)");
  if ((1 << LW) != BeatBytes || (1 << OffBits) < PartBytes || PartBytes % BeatBytes != 0 || BeatBytes < 4)
    $error("sbuf: BeatBytes must be a power of two >= 4 dividing PartBytes");

  typedef struct packed {
    logic                col;
    logic [2:0]          esize;
    logic [AddrBits-1:0] addr;
    logic [NB-1:0]       n;
    logic [DW-1:0]       data;
  } wreq_t;

  // One bank write: the row index, the bits written and their values.
  typedef struct packed {
    logic          en;
    logic [IW-1:0] idx;
    logic [PW-1:0] m;
    logic [PW-1:0] d;
  } bop_t;

  function automatic logic [31:0] off_of(logic [AddrBits-1:0] a);
    return dma_off(32'(a), OffBits);
  endfunction
  function automatic logic [31:0] part_of(logic [AddrBits-1:0] a);
    return 32'(a >> OffBits);
  endfunction
  function automatic logic [IW-1:0] idx_of(logic [31:0] line);
    return (line / Banks < NI) ? IW'(line / Banks) : '0;  // the line after the last one: unused
  endfunction
  function automatic int unsigned bank_of(logic [31:0] line);
    return int'(line % Banks);
  endfunction

  // The banks an access touches: a row of n bytes (one or two lines), or one line (a column).
  function automatic logic [Banks-1:0] banks_of(logic col, logic [AddrBits-1:0] a, logic [NB-1:0] n);
    return Banks'(row_banks(off_of(a), col ? 32'd1 : 32'(n), BeatBytes, Banks));
  endfunction

  // The line of bank b among the (at most two) lines an access starting at line l0 touches.
  function automatic logic [31:0] line_in_bank(logic [31:0] l0, int unsigned b);
    return bank_of(l0) == b ? l0 : l0 + 32'd1;
  endfunction

  // The write of request r into bank b.
  function automatic bop_t bank_write(wreq_t r, int unsigned b);
    bop_t o;
    logic [31:0] off, p, lo, l0;
    logic [2*DW-1:0] wm, wd;
    logic [31:0] em, ed;
    o = '0;
    ed = '0;
    off = off_of(r.addr);
    p = part_of(r.addr);
    lo = off % BeatBytes;
    l0 = off >> LW;
    wm = '0;
    wd = '0;
    em = '0;
    if (!r.col) begin
      wm = (((2 * DW)'(1) << (8 * 32'(r.n))) - (2 * DW)'(1)) << (8 * lo);
      wd = (2 * DW)'(r.data) << (8 * lo);
      if (bank_of(l0) == b) begin
        o.en = 1'b1;
        o.idx = idx_of(l0);
        o.m = PW'(wm[DW-1:0]) << (p * DW);
        o.d = PW'(wd[DW-1:0]) << (p * DW);
      end else if (bank_of(l0 + 32'd1) == b && wm[2*DW-1:DW] != '0) begin
        o.en = 1'b1;
        o.idx = idx_of(l0 + 32'd1);
        o.m = PW'(wm[2*DW-1:DW]) << (p * DW);
        o.d = PW'(wd[2*DW-1:DW]) << (p * DW);
      end
    end else if (bank_of(l0) == b) begin
      o.en = 1'b1;
      o.idx = idx_of(l0);
      em = (32'd1 << (8 * 32'(r.esize))) - 32'd1;
      if (r.esize == 3'd4) em = '1;
      for (int unsigned el = 0; el < NE; el++) begin
        if (el < 32'(r.n)) begin
          o.m |= PW'(em) << ((p + el) * DW + 8 * lo);
          ed = 32'(r.data >> (8 * el * 32'(r.esize))) & em;
          o.d |= PW'(ed) << ((p + el) * DW + 8 * lo);
        end
      end
    end
    return o;
  endfunction

  // One element of an accumulate: dst + src in BF16 (es = 2) or FP32 (es = 4).
  function automatic logic [31:0] acc_add(logic [2:0] es, logic [31:0] a, logic [31:0] s);
    logic [15:0] r;
    if (es == 3'd4) return fp32_add_f(a, s);
    r = 16'(encode(fmt_desc(FmtBf16), 8'd127, fp32_add_f({a[15:0], 16'b0}, {s[15:0], 16'b0}), 1'b0, 32'd0, 1'b0,
                   12'sd0));
    return {16'b0, r[15:0]};
  endfunction

  // The engine port's element: its line, its bit position in the line, its bits.
  function automatic logic [31:0] e_nib(logic [23:0] idx, esize_e es);  // the element's first nibble
    return 32'(idx) << es;
  endfunction
  function automatic logic [31:0] e_bits_mask(esize_e es);
    return es == ESize4 ? 32'hFFFF_FFFF : (32'd1 << (32'd4 << es)) - 32'd1;
  endfunction

  localparam int unsigned SW = $clog2(Starve + 1);
  localparam int unsigned GW = (EPorts > 1) ? $clog2(EPorts) : 1;

  // ---- state (each register through its _d / _q pair) ----
  wreq_t               s2_q, s2_d;        // stage 2: the sums of the accumulate accepted in the previous cycle
  logic                s2_v_q, s2_v_d;
  logic                dr_v_q, dr_v_d;
  logic [7:0]          dr_id_q, dr_id_d;
  logic [DW-1:0]       dr_q, dr_d;
  logic [EPorts-1:0]   e_v_q, e_v_d;
  logic [LaneW-1:0]    e_q [EPorts];
  logic [LaneW-1:0]    e_d [EPorts];
  logic [SW-1:0]       wait_q [EPorts];   // cycles each engine port has been refused in a row
  logic [SW-1:0]       wait_d [EPorts];
  logic [PW-1:0]       rd [Banks];        // each bank's read port, this cycle
  logic [PW-1:0]       racc [Banks];      // the accumulate's view of it, stage 2 forwarded

  // ---- requests and arbitration ----
  // the DMA ports' fields (the request's space is decoded by the core; SBUF ignores it)
  logic dwi_col, dwi_acc;
  logic [2:0] dwi_esize;
  logic [AddrBits-1:0] dwi_addr, dri_addr;
  logic [NB-1:0] dwi_n, dri_bytes;
  assign dwi_col = dw_i.col;
  assign dwi_acc = dw_i.acc;
  assign dwi_esize = dw_i.esize;
  assign dwi_addr = dw_i.addr;
  assign dwi_n = NB'(dw_i.n);
  assign dri_addr = dr_i.addr;
  assign dri_bytes = NB'(dr_i.bytes);
  wreq_t dw;
  logic [Banks-1:0] s2_banks, dw_banks, dr_banks, claim, r_free, w_free;
  logic [31:0] dw_l0, dr_l0;
  logic [31:0] e_line [EPorts];
  logic [31:0] e_pos [EPorts];
  logic [Banks-1:0] e_bank [EPorts];
  logic dw_go, dwc_go, dwa_go, dr_go;
  always_comb begin
    dw = '{col: dwi_col, esize: dwi_esize, addr: dwi_addr, n: dwi_n, data: dw_data_i};
    dw_l0 = off_of(dwi_addr) >> LW;
    s2_banks = s2_v_q ? banks_of(s2_q.col, s2_q.addr, s2_q.n) : '0;
    dw_banks = banks_of(dwi_col, dwi_addr, dwi_n);
    claim = '0;
    for (int unsigned i = 0; i < EPorts; i++) begin
      e_line[i] = e_nib(e_i[i].idx, e_i[i].esize) >> (LW + 1);
      e_pos[i] = 32'd4 * (e_nib(e_i[i].idx, e_i[i].esize) % (2 * BeatBytes));
      e_bank[i] = '0;
      e_bank[i][elem_bank(e_i[i].idx, e_i[i].esize, BeatBytes, Banks)] = 1'b1;
      if (e_valid_i[i] && 32'(wait_q[i]) == Starve) claim |= e_bank[i];
    end
    dw_ready_o = rst_ni && (dwi_acc || (dw_banks & s2_banks) == '0) && (dw_banks & claim) == '0;
    dw_go = dw_valid_i && dw_ready_o;
    dwc_go = dw_go && !dwi_acc;
    dwa_go = dw_go && dwi_acc;
    r_free = rst_ni ? ~(s2_banks | (dwa_go ? dw_banks : '0)) : '0;
    w_free = rst_ni ? ~(s2_banks | (dw_go ? dw_banks : '0)) : '0;
  end

  // The engine ports, per bank: a round-robin arbiter for its read port and one for its write port.
  logic [EPorts-1:0] rreq [Banks];
  logic [EPorts-1:0] wreq [Banks];
  logic [EPorts-1:0] rgnt [Banks];
  logic [EPorts-1:0] wgnt [Banks];
  logic [Banks-1:0]  rgo, wgo;
  logic [GW-1:0]     rwin [Banks];
  logic [GW-1:0]     wwin [Banks];
  for (genvar b = 0; b < Banks; b++) begin : g_arb
    logic [EPorts-1:0][0:0] nodata;
    logic rv_unused, wv_unused;
    logic [0:0] rd_unused, wd_unused;
    always_comb begin
      for (int unsigned i = 0; i < EPorts; i++) begin
        rreq[b][i] = e_valid_i[i] && !e_i[i].we && e_bank[i][b];
        wreq[b][i] = e_valid_i[i] && e_i[i].we && e_bank[i][b];
      end
    end
    assign nodata = '0;
    rr_arbiter #(.N(EPorts), .Width(1)) u_rd (
      .clk_i, .rst_ni, .req_valid_i(rreq[b]), .req_ready_o(rgnt[b]), .req_data_i(nodata),
      .gnt_valid_o(rv_unused), .gnt_ready_i(r_free[b]), .gnt_data_o(rd_unused), .gnt_idx_o(rwin[b]));
    rr_arbiter #(.N(EPorts), .Width(1)) u_wr (
      .clk_i, .rst_ni, .req_valid_i(wreq[b]), .req_ready_o(wgnt[b]), .req_data_i(nodata),
      .gnt_valid_o(wv_unused), .gnt_ready_i(w_free[b]), .gnt_data_o(wd_unused), .gnt_idx_o(wwin[b]));
    assign rgo[b] = rgnt[b] != '0;
    assign wgo[b] = wgnt[b] != '0;
  end

  always_comb begin
    e_ready_o = '0;
    for (int unsigned b = 0; b < Banks; b++) e_ready_o |= rgnt[b] | wgnt[b];
  end
  // the DMA read: banks free of stage 2, an accumulate, an engine read (rgo) and a claim (dr_busy_o
  // apart from the read's own inputs: the core chooses its read with it)
  assign dr_busy_o = rst_ni ? s2_banks | (dwa_go ? dw_banks : '0) | rgo | claim : '1;
  assign dr_l0 = off_of(dri_addr) >> LW;
  assign dr_banks = banks_of(1'b0, dri_addr, dri_bytes);
  assign dr_ready_o = (dr_banks & dr_busy_o) == '0;
  assign dr_go = dr_valid_i && dr_ready_o;

  // ---- banks ----
  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic [PW-1:0] mem [NI];
    bop_t s2w, dcw, ew, wsel;
    logic [IW-1:0] ridx;
    logic [31:0] ewm, ewd;
    always_comb begin
      s2w = bank_write(s2_q, b);
      dcw = bank_write(dw, b);
      ew = '0;
      ew.en = wgo[b];
      ew.idx = idx_of(e_line[wwin[b]]);
      ewm = e_bits_mask(e_i[wwin[b]].esize);
      ewd = '0;
      for (int unsigned p = 0; p < Parts; p++) begin
        if (e_mask_i[wwin[b]][p]) begin
          ewd = e_wdata_i[wwin[b]][32*p +: 32] & ewm;
          ew.m |= PW'(ewm) << (p * DW + e_pos[wwin[b]]);
          ew.d |= PW'(ewd) << (p * DW + e_pos[wwin[b]]);
        end
      end
      // the write port: stage 2, then a DMA copy, then the engine
      if (s2_v_q && s2w.en) wsel = s2w;
      else if (dwc_go && dcw.en) wsel = dcw;
      else wsel = ew;
      // the read port: an accumulate's line, then the engine's, then the DMA read's
      if (dwa_go && dw_banks[b]) ridx = idx_of(line_in_bank(dw_l0, b));
      else if (rgo[b]) ridx = idx_of(e_line[rwin[b]]);
      else ridx = idx_of(line_in_bank(dr_l0, b));
      rd[b] = mem[ridx];
      racc[b] = rd[b];
      if (Forward && s2_v_q && s2w.en && s2w.idx == ridx) racc[b] = (rd[b] & ~s2w.m) | (s2w.d & s2w.m);
    end
    always_ff @(posedge clk_i) begin
      if (wsel.en) mem[wsel.idx] <= (mem[wsel.idx] & ~wsel.m) | (wsel.d & wsel.m);
    end
  end

  // ---- read-add-write unit, stage 1: the sums ----
  wreq_t s1;
  logic [2*DW-1:0] win;
  logic [31:0] dw_p, dw_lo, rmw_old, rmw_in, sum, rmw_mask;
  always_comb begin
    dw_p = part_of(dwi_addr);
    dw_lo = off_of(dwi_addr) % BeatBytes;
    rmw_mask = dwi_esize == 3'd4 ? 32'hFFFF_FFFF : 32'h0000_FFFF;
    win = {DW'(racc[bank_of(dw_l0 + 32'd1)] >> (dw_p * DW)), DW'(racc[bank_of(dw_l0)] >> (dw_p * DW))};
    s1 = dw;
    s1.data = '0;
    rmw_old = '0;
    rmw_in = '0;
    sum = '0;
    for (int unsigned k = 0; k < NE; k++) begin
      if (dwi_col ? k < 32'(dwi_n) : (k + 1) * 32'(dwi_esize) <= 32'(dwi_n)) begin
        rmw_old = dwi_col ? 32'(racc[bank_of(dw_l0)] >> ((dw_p + k) * DW + 8 * dw_lo))
                     : 32'(win >> (8 * (dw_lo + k * 32'(dwi_esize))));
        rmw_in = 32'(dw_data_i >> (8 * k * 32'(dwi_esize)));
        sum = acc_add(dwi_esize, rmw_old & rmw_mask, rmw_in & rmw_mask) & rmw_mask;
        s1.data |= DW'(sum) << (8 * k * 32'(dwi_esize));
      end
    end
  end

  // ---- the DMA read's bytes: two lines of its partition, shifted and cut to dri_bytes ----
  logic [2*DW-1:0] dr_win, dr_mask;
  logic [DW-1:0] dr_data;
  always_comb begin
    dr_win = {DW'(rd[bank_of(dr_l0 + 32'd1)] >> (part_of(dri_addr) * DW)),
              DW'(rd[bank_of(dr_l0)] >> (part_of(dri_addr) * DW))} >> (8 * (off_of(dri_addr) % BeatBytes));
    dr_mask = ((2 * DW)'(1) << (8 * 32'(dri_bytes))) - (2 * DW)'(1);
    dr_data = DW'(dr_win & dr_mask);
  end

  // ---- next state ----
  always_comb begin
    s2_v_d = dwa_go;
    s2_d = dwa_go ? s1 : s2_q;
    dr_v_d = dr_go;
    dr_d = dr_go ? dr_data : dr_q;
    dr_id_d = dr_go ? dr_i.id : dr_id_q;
    for (int unsigned i = 0; i < EPorts; i++) begin
      e_v_d[i] = e_valid_i[i] && e_ready_o[i] && !e_i[i].we;
      e_d[i] = e_q[i];
      if (e_v_d[i])
        for (int unsigned p = 0; p < Parts; p++)
          e_d[i][32*p +: 32] = 32'(rd[bank_of(e_line[i])] >> (p * DW + e_pos[i])) & e_bits_mask(e_i[i].esize);
      if (!e_valid_i[i] || e_ready_o[i]) wait_d[i] = '0;
      else if (32'(wait_q[i]) < Starve) wait_d[i] = wait_q[i] + SW'(1);
      else wait_d[i] = wait_q[i];
    end
  end

  // ---- registers ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_v_q <= 1'b0;
      s2_q <= '0;
      dr_v_q <= 1'b0;
      dr_id_q <= '0;
      dr_q <= '0;
      e_v_q <= '0;
      for (int unsigned i = 0; i < EPorts; i++) begin
        e_q[i] <= '0;
        wait_q[i] <= '0;
      end
    end else begin
      s2_v_q <= s2_v_d;
      s2_q <= s2_d;
      dr_v_q <= dr_v_d;
      dr_id_q <= dr_id_d;
      dr_q <= dr_d;
      e_v_q <= e_v_d;
      for (int unsigned i = 0; i < EPorts; i++) begin
        e_q[i] <= e_d[i];
        wait_q[i] <= wait_d[i];
      end
    end
  end

  assign dr_rvalid_o = dr_v_q;
  assign dr_rid_o = dr_id_q;
  assign dr_rdata_o = dr_q;
  assign e_rvalid_o = e_v_q;
  for (genvar i = 0; i < EPorts; i++) begin : g_eout
    assign e_rdata_o[i] = e_q[i];
  end
  assign acc_busy_o = s2_v_q;


`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  // cycles each engine port has been refused in a row (wait_q stops counting at Starve)
  logic [15:0] a_wait_q [EPorts], a_wait_d [EPorts];
  always_comb begin
    for (int unsigned i = 0; i < EPorts; i++)
      a_wait_d[i] = (e_valid_i[i] && !e_ready_o[i]) ? a_wait_q[i] + 16'd1 : 16'd0;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned i = 0; i < EPorts; i++) a_wait_q[i] <= '0;
    end else begin
      for (int unsigned i = 0; i < EPorts; i++) a_wait_q[i] <= a_wait_d[i];
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      a_grant_requested: assert ((e_ready_o & ~e_valid_i) == '0)
        else $error("engine ports granted without a request: %b", e_ready_o & ~e_valid_i);
      // the claim bounds an engine request's wait: Starve refusals, then one per other port
      // (docs/sbuf.md, "The claim")
      for (int unsigned i = 0; i < EPorts; i++) begin
        a_engine_wait_bounded: assert (32'(a_wait_q[i]) <= Starve + EPorts)
          else $error("engine port %0d refused %0d cycles in a row (bound %0d)", i, a_wait_q[i], Starve + EPorts);
      end
    end
  end
`endif
endmodule
