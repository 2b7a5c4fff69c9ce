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
//         returns the next cycle with the request's id.
//   e_*   engine: one 32-bit word (word index e_addr_i) in every partition, written in the
//         partitions of e_mask_i or read in all; the read data returns the next cycle.
//
// Read-add-write unit. An accepted accumulate (stage 1) reads its lines, takes the bytes that stage
// 2 writes this cycle in their place (forwarding), adds in BF16 or FP32 and registers the sums;
// stage 2 writes them the next cycle. One accumulate per cycle, back to back to one address.
//
// Arbitration: fixed priority per bank, on the set of banks a request touches (whatever the
// partitions):
//   1. stage 2's write: always;
//   2. the DMA write: an accumulate always (it uses the read ports); a copy when stage 2 does not
//      write its banks;
//   3. the engine: a write when its bank is free of stage 2 and of the DMA write (copy or
//      accumulate); a read when its bank is free of stage 2 and of an accumulate's read;
//   4. the DMA read: when its banks are free of stage 2, of an accumulate's read and of an engine
//      read.
// So a read sees every write accepted in an earlier cycle, and an accumulate is never split by an
// engine write. Nothing is accepted during reset; reset does not clear the storage.
module sbuf
  import numerics_pkg::*;
  import dma_pkg::AddrBits;
  import dma_pkg::wr_req_t;
  import dma_pkg::rd_req_t;
#(
  parameter int unsigned Parts     = 4,
  parameter int unsigned PartBytes = 1024,
  parameter int unsigned BeatBytes = 16,
  parameter int unsigned Banks     = 4,
  // 1 in every real configuration. 0 builds a deliberately broken read-add-write unit (no
  // forwarding from stage 2) for the bench's self-test, which must catch it.
  parameter bit          Forward   = 1'b1,
  localparam int unsigned NB = $clog2(BeatBytes) + 1,
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned EW = $clog2(PartBytes / 4)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // DMA write port
  input  logic                dw_valid_i,
  output logic                dw_ready_o,
  input  wr_req_t             dw_i,
  input  logic [DW-1:0]       dw_data_i,
  // DMA read port
  input  logic                dr_valid_i,
  output logic                dr_ready_o,
  input  rd_req_t             dr_i,
  output logic                dr_rvalid_o,
  output logic [7:0]          dr_rid_o,
  output logic [DW-1:0]       dr_rdata_o,
  // engine port
  input  logic                e_valid_i,
  output logic                e_ready_o,
  input  logic                e_we_i,
  input  logic [EW-1:0]       e_addr_i,
  input  logic [Parts-1:0]    e_mask_i,
  input  logic [32*Parts-1:0] e_wdata_i,
  output logic                e_rvalid_o,
  output logic [32*Parts-1:0] e_rdata_o,
  // stage 2 of the read-add-write unit holds an accumulate
  output logic                acc_busy_o
);
  localparam int unsigned OffBits = $clog2(PartBytes);
  localparam int unsigned LW = $clog2(BeatBytes);
  localparam int unsigned NL = PartBytes / BeatBytes;      // lines per partition
  localparam int unsigned NI = (NL + Banks - 1) / Banks;   // lines per bank
  localparam int unsigned IW = NI > 1 ? $clog2(NI) : 1;
  localparam int unsigned PW = Parts * DW;                 // one bank row: a line of every partition
  localparam int unsigned NE = BeatBytes / 2;              // elements of an accumulate, at most
  localparam logic [31:0] OffMask = (32'd1 << OffBits) - 32'd1;

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
    return 32'(a) & OffMask;
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
    logic [31:0] l0, l1;
    logic [Banks-1:0] s;
    l0 = off_of(a) >> LW;
    l1 = (col || n == '0) ? l0 : (off_of(a) + 32'(n) - 32'd1) >> LW;
    s = '0;
    s[bank_of(l0)] = 1'b1;
    s[bank_of(l1)] = 1'b1;
    return s;
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
      for (int unsigned k = 0; k < NE; k++) begin
        if (k < 32'(r.n)) begin
          o.m |= PW'(em) << ((p + k) * DW + 8 * lo);
          ed = 32'(r.data >> (8 * k * 32'(r.esize))) & em;
          o.d |= PW'(ed) << ((p + k) * DW + 8 * lo);
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

  // ---- state ----
  wreq_t s2_q;             // stage 2: the sums of the accumulate accepted in the previous cycle
  logic  s2_v_q;
  logic  dr_v_q, e_v_q;
  logic [7:0] dr_id_q;
  logic [DW-1:0] dr_q;
  logic [32*Parts-1:0] e_q;
  logic [PW-1:0] rd [Banks];     // each bank's read port, this cycle
  logic [PW-1:0] racc [Banks];   // the accumulate's view of it, stage 2 forwarded

  // ---- requests and arbitration ----
  // the DMA ports' fields (the request's space is decoded by the core; SBUF ignores it)
  logic dw_col_i, dw_acc_i;
  logic [2:0] dw_esize_i;
  logic [AddrBits-1:0] dw_addr_i, dr_addr_i;
  logic [NB-1:0] dw_n_i, dr_bytes_i;
  assign dw_col_i = dw_i.col;
  assign dw_acc_i = dw_i.acc;
  assign dw_esize_i = dw_i.esize;
  assign dw_addr_i = dw_i.addr;
  assign dw_n_i = NB'(dw_i.n);
  assign dr_addr_i = dr_i.addr;
  assign dr_bytes_i = NB'(dr_i.bytes);
  wreq_t dw;
  logic [Banks-1:0] s2_banks, dw_banks, e_banks, dr_banks;
  logic [31:0] e_off, e_line, dw_l0, dr_l0;
  logic dw_go, dwc_go, dwa_go, e_go, er_go, ew_go, dr_go;
  always_comb begin
    dw = '{col: dw_col_i, esize: dw_esize_i, addr: dw_addr_i, n: dw_n_i, data: dw_data_i};
    dw_l0 = off_of(dw_addr_i) >> LW;
    dr_l0 = off_of(dr_addr_i) >> LW;
    e_off = 32'(e_addr_i) * 32'd4;
    e_line = e_off >> LW;
    s2_banks = s2_v_q ? banks_of(s2_q.col, s2_q.addr, s2_q.n) : '0;
    dw_banks = banks_of(dw_col_i, dw_addr_i, dw_n_i);
    e_banks = '0;
    e_banks[bank_of(e_line)] = 1'b1;
    dr_banks = banks_of(1'b0, dr_addr_i, dr_bytes_i);

    dw_ready_o = rst_ni && (dw_acc_i || (dw_banks & s2_banks) == '0);
    dw_go = dw_valid_i && dw_ready_o;
    dwc_go = dw_go && !dw_acc_i;
    dwa_go = dw_go && dw_acc_i;
    e_ready_o = rst_ni && (e_banks & (s2_banks | (e_we_i ? (dw_go ? dw_banks : '0)
                                                          : (dwa_go ? dw_banks : '0)))) == '0;
    e_go = e_valid_i && e_ready_o;
    ew_go = e_go && e_we_i;
    er_go = e_go && !e_we_i;
    dr_ready_o = rst_ni && (dr_banks & (s2_banks | (dwa_go ? dw_banks : '0) | (er_go ? e_banks : '0))) == '0;
    dr_go = dr_valid_i && dr_ready_o;
  end

  // ---- banks ----
  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic [PW-1:0] mem [NI];
    bop_t s2w, dcw, ew, wsel;
    logic [IW-1:0] ridx;
    always_comb begin
      s2w = bank_write(s2_q, b);
      dcw = bank_write(dw, b);
      ew = '0;
      ew.en = ew_go && bank_of(e_line) == b;
      ew.idx = idx_of(e_line);
      for (int unsigned p = 0; p < Parts; p++) begin
        if (e_mask_i[p]) begin
          ew.m |= PW'(32'hFFFF_FFFF) << (p * DW + 8 * (e_off % BeatBytes));
          ew.d |= PW'(e_wdata_i[32*p +: 32]) << (p * DW + 8 * (e_off % BeatBytes));
        end
      end
      // the write port: stage 2, then a DMA copy, then the engine
      if (s2_v_q && s2w.en) wsel = s2w;
      else if (dwc_go && dcw.en) wsel = dcw;
      else wsel = ew;
      // the read port: an accumulate's line, then the engine's, then the DMA read's
      if (dwa_go && dw_banks[b]) ridx = idx_of(line_in_bank(dw_l0, b));
      else if (er_go && bank_of(e_line) == b) ridx = idx_of(e_line);
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
  logic [31:0] dw_p, dw_lo, a, s, sum, em;
  always_comb begin
    dw_p = part_of(dw_addr_i);
    dw_lo = off_of(dw_addr_i) % BeatBytes;
    em = dw_esize_i == 3'd4 ? 32'hFFFF_FFFF : 32'h0000_FFFF;
    win = {DW'(racc[bank_of(dw_l0 + 32'd1)] >> (dw_p * DW)), DW'(racc[bank_of(dw_l0)] >> (dw_p * DW))};
    s1 = dw;
    s1.data = '0;
    a = '0;
    s = '0;
    sum = '0;
    for (int unsigned k = 0; k < NE; k++) begin
      if (dw_col_i ? k < 32'(dw_n_i) : (k + 1) * 32'(dw_esize_i) <= 32'(dw_n_i)) begin
        a = dw_col_i ? 32'(racc[bank_of(dw_l0)] >> ((dw_p + k) * DW + 8 * dw_lo))
                     : 32'(win >> (8 * (dw_lo + k * 32'(dw_esize_i))));
        s = 32'(dw_data_i >> (8 * k * 32'(dw_esize_i)));
        sum = acc_add(dw_esize_i, a & em, s & em) & em;
        s1.data |= DW'(sum) << (8 * k * 32'(dw_esize_i));
      end
    end
  end

  // ---- the DMA read's bytes: two lines of its partition, shifted and cut to dr_bytes_i ----
  logic [2*DW-1:0] dr_win, dr_mask;
  logic [DW-1:0] dr_data;
  always_comb begin
    dr_win = {DW'(rd[bank_of(dr_l0 + 32'd1)] >> (part_of(dr_addr_i) * DW)),
              DW'(rd[bank_of(dr_l0)] >> (part_of(dr_addr_i) * DW))} >> (8 * (off_of(dr_addr_i) % BeatBytes));
    dr_mask = ((2 * DW)'(1) << (8 * 32'(dr_bytes_i))) - (2 * DW)'(1);
    dr_data = DW'(dr_win & dr_mask);
  end

  // ---- registers ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_v_q <= 1'b0;
      s2_q <= '0;
      dr_v_q <= 1'b0;
      dr_id_q <= '0;
      dr_q <= '0;
      e_v_q <= 1'b0;
      e_q <= '0;
    end else begin
      s2_v_q <= dwa_go;
      if (dwa_go) s2_q <= s1;
      dr_v_q <= dr_go;
      if (dr_go) begin
        dr_q <= dr_data;
        dr_id_q <= dr_i.id;
      end
      e_v_q <= er_go;
      if (er_go)
        for (int unsigned p = 0; p < Parts; p++)
          e_q[32*p +: 32] <= 32'(rd[bank_of(e_line)] >> (p * DW + 8 * (e_off % BeatBytes)));
    end
  end

  assign dr_rvalid_o = dr_v_q;
  assign dr_rid_o = dr_id_q;
  assign dr_rdata_o = dr_q;
  assign e_rvalid_o = e_v_q;
  assign e_rdata_o = e_q;
  assign acc_busy_o = s2_v_q;

endmodule
