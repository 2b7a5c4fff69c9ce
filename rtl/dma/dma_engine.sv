// dma_engine — the DMA engine of SPEC 5.5 (docs/dma.md): Queues descriptor queues, each executed
// in order and arbitrated round-robin for one read request per cycle; a pool of Slots read slots
// shared by all queues (outstanding reads and the reorder buffer); one write per cycle; per-queue
// ordering mode write-after-write or strong-order-write.
//
// Timing (the model trn::dma::DmaEngine follows it cycle by cycle):
//   - A pushed descriptor is checked when it reaches the head of its queue (state LOAD, one cycle).
//     A bad one stops the queue (q_err_o, q_code_o) until q_clr_i drops it; nothing of it is read
//     or written. A barrier descriptor then waits until the queue has no pending write.
//   - RUN: the queue offers its next chunk (at most BeatBytes source and destination bytes). The
//     queues in RUN are arbitrated round-robin (rr_arbiter). When the read register is free, a
//     slot is free and fewer than cfg_max_outst_i reads are in flight, the winner is checked
//     against every pending write's destination footprint (any queue); with no overlap it issues
//     (slot allocated, read register loaded), otherwise nothing issues this cycle. The priority
//     moves past the winner either way; while those resources are not free, the arbiter holds its
//     grant (rr_arbiter's lock) until they are.
//   - A read response (any order) is converted into its slot (cast via FP32 when the types differ).
//   - Write selection, when the write register is free or being accepted: a semaphore that may be
//     written (below; lowest queue first), else a slot with data that its queue may write (any, in
//     write-after-write mode; only its next in issue order, in strong mode): the first such slot
//     from the one after the last slot written, wrapping (round-robin over the slots), so data
//     waits at most Slots - 1 writes.
//   - After its last chunk, a descriptor with a semaphore waits until none of its own writes is
//     pending (in write-after-write mode an earlier descriptor's may still be: SPEC 5.5's hazard,
//     which strong order or a barrier removes), one with `last` until the queue has no pending
//     write; then the semaphore is written, and the descriptor completes (q_done_o).
// Stages, each a named block below: the descriptor queues (a stream_fifo per queue) and their
// state machines; read issue (queue choice on rr_arbiter, chunking, the hazard check); the read
// slots (an array of slot_t: the outstanding reads and the reorder buffer); the read response
// (conversion into its slot); write selection and the write register. Every register is written
// once, in the state block, from its _d value.
module dma_engine
  import dma_pkg::*;
#(
  parameter int unsigned Queues    = 2,
  parameter int unsigned QDepth    = 4,
  parameter int unsigned Slots     = 16,
  parameter int unsigned BeatBytes = 16,
  parameter int unsigned Parts     = 4,
  parameter int unsigned PartBytes = 1024,
  parameter int unsigned HbmBytes  = 65536,
  parameter int unsigned MaxLen    = 65536,
  parameter int unsigned Chips     = 1,      /// chips an HBM address may name (docs/chip.md)
  localparam int unsigned QW  = Queues > 1 ? $clog2(Queues) : 1,
  localparam int unsigned SW  = $clog2(Slots),
  localparam int unsigned NB  = $clog2(BeatBytes) + 1,
  localparam int unsigned DW  = 8 * BeatBytes,
  localparam int unsigned FW  = $clog2(QDepth)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // descriptors
  input  logic                  desc_valid_i,
  output logic                  desc_ready_o,
  input  logic [QW-1:0]         desc_queue_i,
  input  desc_t                 desc_i,
  // configuration and control
  input  logic [Queues-1:0]     cfg_strong_i,     /// per queue: 1 strong-order-write, 0 write-after-write
  input  logic [SW:0]           cfg_max_outst_i,  /// reads in flight at most (1..Slots)
  input  logic [Queues-1:0]     q_clr_i,          /// drop a stopped queue's bad descriptor, resume
  // read channel (source memory): the request's id (a read slot) comes back with its data
  output logic                  ar_valid_o,
  input  logic                  ar_ready_i,
  output rd_req_t               ar_o,
  input  logic                  r_valid_i,
  input  logic [SW-1:0]         r_id_i,
  input  logic [DW-1:0]         r_data_i,
  // write channel (destination memory): visible when accepted
  output logic                  wr_valid_o,
  input  logic                  wr_ready_i,
  output wr_req_t               wr_o,
  output logic [DW-1:0]         wr_data_o,
  output wr_info_t              wr_info_o,        /// where the write comes from (for checkers)
  // status
  output logic [Queues-1:0]     q_idle_o,
  output logic [Queues-1:0]     q_err_o,
  output err_e [Queues-1:0]     q_code_o,
  output logic [16*Queues-1:0]  q_done_o,
  output logic [SW:0]           rob_o,           /// slots holding data not yet written
  output logic [SW:0]           inflight_o       /// reads issued, data not yet returned
);
  localparam int unsigned OffBits = $clog2(PartBytes);
  localparam int unsigned Lanes4 = BeatBytes / 4;

  if (Slots > 256 || BeatBytes > 128 || Queues > 256)
    $error("dma_engine: the typed channels carry at most 256 slots, 128-byte beats and 256 queues");

  typedef enum logic [2:0] { QLoad, QBar, QRun, QSemw, QSema, QErr } qst_e;
  typedef enum logic [1:0] { SFree, SWait, SData, SWr } sst_e;

  // One descriptor queue's execution state (its descriptors are in its stream_fifo).
  typedef struct packed {
    qst_e          st;
    err_e          code;
    logic [31:0]   elem, row, nelem;   // next element; column layouts: row and column of it
    logic [15:0]   col;
    logic [2:0]    ss, ds;             // source / destination element size
    logic [NB-1:0] ecap;               // elements per chunk
    logic [15:0]   iseq, wseq, dseq, done;  // chunks issued, chunks written, descriptor number, done count
    logic [SW:0]   pend;               // chunks issued and not yet written
  } queue_t;

  // One read slot: an outstanding read, then its data in the reorder buffer, then its write.
  typedef struct packed {
    sst_e          st;
    logic [QW-1:0] q;
    logic [15:0]   seq, desc;
    logic [31:0]   elem;
    logic          space, col, acc, cast, rg;  // rg: an OpReg write (marked as a semaphore write)
    logic [2:0]    esize, ss;
    logic [3:0]    stype, dtype;
    logic [AddrBits-1:0] addr;
    logic [NB-1:0] n, cnt;
    logic [33:0]   lo, hi;             // destination footprint {space, address}
    logic [DW-1:0] data;
  } slot_t;

  localparam queue_t QueueReset = '{st: QLoad, code: ErrNone, default: '0};
  localparam slot_t SlotReset = '{st: SFree, default: '0};

  // ---- registers (each written once, in the state block, from its _d)
  queue_t        qs_q [Queues], qs_d [Queues];
  slot_t         sl_q [Slots], sl_d [Slots];
  logic [SW:0]   inflight_q, inflight_d, rob_q, rob_d;
  // the read register
  logic                ar_v_q, ar_v_d, ar_space_q, ar_space_d;
  logic [AddrBits-1:0] ar_addr_q, ar_addr_d;
  logic [NB-1:0]       ar_bytes_q, ar_bytes_d;
  logic [SW-1:0]       ar_id_q, ar_id_d;
  // the write register
  logic                w_v_q, w_v_d, w_sem_q, w_sem_d;
  logic [SW-1:0]       w_slot_q, w_slot_d;
  logic [QW-1:0]       w_qid_q, w_qid_d;

  function automatic logic [2:0] lg(logic [2:0] s);
    return s == 3'd4 ? 3'd2 : (s == 3'd2 ? 3'd1 : 3'd0);
  endfunction

  // ---- stage: descriptor queues (a stream_fifo each) and the head descriptors' checks (LOAD)
  logic [Queues-1:0] f_push_ready, f_valid, pop, drop;
  desc_t      head [Queues];
  err_e       hcode [Queues];
  for (genvar q = 0; q < Queues; q++) begin : g_queue
    logic [FW:0] f_usage;  // (the queue's state uses f_valid)
    stream_fifo #(.Width($bits(desc_t)), .Depth(QDepth)) u_fifo (
      .clk_i, .rst_ni,
      .push_valid_i(desc_valid_i && desc_queue_i == QW'(q)), .push_ready_o(f_push_ready[q]), .push_data_i(desc_i),
      .pop_valid_o(f_valid[q]), .pop_ready_i(pop[q] || drop[q]), .pop_data_o(head[q]), .usage_o(f_usage)
    );
    assign hcode[q] = check(head[q], HbmBytes, Parts, OffBits, PartBytes, MaxLen, Chips);
  end
  assign desc_ready_o = f_push_ready[desc_queue_i];

  // ---- stage: read issue (queue choice, chunk, hazard check)
  logic          res_ok, any_req, issue, hazard, chunk_last;
  logic [Queues-1:0] q_run;
  logic [QW-1:0] win;
  logic [SW-1:0] free_slot;
  logic          have_free;
  desc_t         wd;
  logic [NB-1:0] cn;
  logic [31:0]   rem;
  logic [2:0]    es;
  logic [AddrBits-1:0] c_src, c_dst;
  logic [NB-1:0] c_wn;
  logic [33:0]   c_lo, c_hi;
  logic [Queues-1:0] qarb_ready;  // (the issue decision uses res_ok and the hazard check)
  logic          qarb_data;

  always_comb begin
    have_free = 1'b0;
    free_slot = '0;
    for (int i = Slots - 1; i >= 0; i--)
      if (sl_q[i].st == SFree) begin
        have_free = 1'b1;
        free_slot = SW'(i);
      end
    res_ok = (!ar_v_q || ar_ready_i) && have_free && inflight_q < cfg_max_outst_i;
    for (int q = 0; q < Queues; q++) q_run[q] = qs_q[q].st == QRun;
  end

  rr_arbiter #(.N(Queues), .Width(1)) u_qarb (
    .clk_i, .rst_ni,
    .req_valid_i(q_run), .req_ready_o(qarb_ready), .req_data_i('0),
    .gnt_valid_o(any_req), .gnt_ready_i(res_ok), .gnt_data_o(qarb_data), .gnt_idx_o(win)
  );

  always_comb begin
    wd = head[win];
    rem = qs_q[win].nelem - qs_q[win].elem;
    if (wd.layout == LayoutRow) cn = rem < 32'(qs_q[win].ecap) ? NB'(rem) : qs_q[win].ecap;
    else cn = 16'(wd.cols - qs_q[win].col) < 16'(qs_q[win].ecap) ? NB'(wd.cols - qs_q[win].col) : qs_q[win].ecap;
    es = wd.layout == LayoutCol2 ? 3'd2 : 3'd4;
    c_src = wd.src_addr + (qs_q[win].elem << lg(qs_q[win].ss));
    if (wd.layout == LayoutRow) begin
      c_dst = wd.dst_addr + (qs_q[win].elem << lg(qs_q[win].ds));
      c_wn = NB'(32'(cn) << lg(qs_q[win].ds));
      c_lo = {1'b0, wd.dst_space, c_dst};
      c_hi = c_lo + 34'(c_wn);
    end else begin
      c_dst = wd.dst_addr + (32'(qs_q[win].col) << OffBits) + (qs_q[win].row << lg(es));
      c_wn = cn;
      c_lo = {1'b0, wd.dst_space, c_dst};
      c_hi = c_lo + ((34'(cn) - 34'd1) << OffBits) + 34'(es);
    end
    hazard = 1'b0;
    for (int i = 0; i < Slots; i++)
      if (sl_q[i].st != SFree && c_lo < sl_q[i].hi && sl_q[i].lo < c_hi) hazard = 1'b1;
    issue = res_ok && any_req && !hazard;
    chunk_last = qs_q[win].elem + 32'(cn) == qs_q[win].nelem;
  end

  // ---- stage: read response, converted into its slot. Every byte of rx is written once per
  // evaluation, its condition on the data: a conditional write of a slice inside the unrolled
  // loops reads to synthesis as a feedback of rx through its own multiplexers.
  logic [DW-1:0]           rx;
  slot_t                   rs;  // the responding slot
  slot_t                   ws;  // the slot in the write register
  logic [Lanes4-1:0][31:0] cv4;  // element j converted, zero past the response's count
  logic [Lanes4-1:0][15:0] cv2;
  logic [Lanes4-1:0][7:0]  cv1;
  logic [DW-1:0]           rx_copy, rx_cast;
  // The slots are read and written through a comparison with each slot's index, never through a
  // variable index into the array: a write through a variable index reaches synthesis as a
  // bit-wise multiplexer over all Slots x $bits(slot_t) bits under a decoded mask, one per port,
  // and Yosys's optimisation did not finish on four of them (docs/synthesis.md).
  always_comb begin
    rs = '0;
    ws = '0;
    for (int i = 0; i < Slots; i++) begin
      if (r_id_i == SW'(i)) rs = sl_q[i];
      if (w_slot_q == SW'(i)) ws = sl_q[i];
    end
  end

  always_comb begin
    for (int b = 0; b < BeatBytes; b++)
      rx_copy[8*b +: 8] = 32'(b) < 32'(rs.cnt) * 32'(rs.ss) ? r_data_i[8*b +: 8] : 8'h00;
    for (int j = 0; j < Lanes4; j++) begin
      logic [31:0] code;
      unique case (rs.ss)
        3'd4: code = r_data_i[32*j +: 32];
        3'd2: code = {16'b0, r_data_i[16*j +: 16]};
        default: code = {24'b0, r_data_i[8*j +: 8]};
      endcase
      cv4[j] = 32'(j) < 32'(rs.cnt) ? cast(rs.stype, rs.dtype, code) : 32'h0;
      cv2[j] = cv4[j][15:0];
      cv1[j] = cv4[j][7:0];
    end
    unique case (rs.esize)
      3'd4: rx_cast = DW'(cv4);
      3'd2: rx_cast = DW'(cv2);
      default: rx_cast = DW'(cv1);
    endcase
    rx = rs.cast ? rx_cast : rx_copy;
  end

  // ---- stage: a descriptor's own pending writes, and whether its semaphore may be written: its
  // own writes all visible (a `last` descriptor: every write of the queue)
  logic [Queues-1:0] own_pend, sem_ready;
  always_comb begin
    for (int unsigned q = 0; q < Queues; q++) begin
      own_pend[q] = 1'b0;
      for (int unsigned i = 0; i < Slots; i++)
        if (sl_q[i].st != SFree && 32'(sl_q[i].q) == q && sl_q[i].desc == qs_q[q].dseq) own_pend[q] = 1'b1;
      sem_ready[q] = head[q].last ? qs_q[q].pend == '0 : !own_pend[q];
    end
  end

  // ---- stage: write selection
  logic          wfree, sem_pick, data_pick;
  logic [QW-1:0] sem_q;
  logic [SW-1:0] data_slot;
  logic [QW-1:0] data_q;  // its queue
  logic [Slots-1:0] wcand;  // slots with data their queue may write
  logic [Slots-1:0] wup;    // those after w_slot_q, the slot last written
  logic          w_acc;
  always_comb begin
    w_acc = w_v_q && wr_ready_i;
    wfree = !w_v_q || wr_ready_i;
    sem_pick = 1'b0;
    sem_q = '0;
    for (int q = Queues - 1; q >= 0; q--) begin
      if (qs_q[q].st == QSemw && sem_ready[q] && head[q].sem) begin
        sem_pick = 1'b1;
        sem_q = QW'(q);
      end
    end
    // round-robin over the slots: the first slot with data that its queue may write after w_slot_q
    // (the slot last written; Slots - 1 from reset), wrapping
    for (int i = 0; i < Slots; i++)
      wcand[i] = sl_q[i].st == SData && (!cfg_strong_i[sl_q[i].q] || sl_q[i].seq == qs_q[sl_q[i].q].wseq);
    // two priority passes instead of a rotation: the lowest candidate after w_slot_q, else the
    // lowest of all (linear in Slots, where a rotated index is quadratic in synthesis)
    for (int i = 0; i < Slots; i++) wup[i] = wcand[i] && SW'(i) > w_slot_q;
    data_pick = |wcand;
    data_slot = '0;
    for (int i = Slots - 1; i >= 0; i--)
      if (wcand[i]) data_slot = SW'(i);
    for (int i = Slots - 1; i >= 0; i--)
      if (wup[i]) data_slot = SW'(i);
    data_q = sl_q[data_slot].q;
    sem_pick = sem_pick && wfree;
    data_pick = data_pick && wfree && !sem_pick;
  end

  // ---- descriptor completion (pop) and dropping a bad one (drop)
  always_comb begin
    for (int q = 0; q < Queues; q++) begin
      pop[q] = 1'b0;
      unique case (qs_q[q].st)
        QRun: pop[q] = issue && win == QW'(q) && chunk_last && !head[q].sem && !head[q].last;
        QSemw: pop[q] = qs_q[q].pend == '0 && !head[q].sem;
        QSema: pop[q] = w_acc && w_sem_q && w_qid_q == QW'(q);
        default: ;
      endcase
      drop[q] = qs_q[q].st == QErr && q_clr_i[q];
    end
  end

  // ---- next state
  always_comb begin
    qs_d = qs_q;
    sl_d = sl_q;
    inflight_d = inflight_q;
    rob_d = rob_q;
    ar_v_d = ar_v_q;
    ar_space_d = ar_space_q;
    ar_addr_d = ar_addr_q;
    ar_bytes_d = ar_bytes_q;
    ar_id_d = ar_id_q;
    w_v_d = w_v_q;
    w_sem_d = w_sem_q;
    w_slot_d = w_slot_q;
    w_qid_d = w_qid_q;
    // the queues
    for (int q = 0; q < Queues; q++) begin
      unique case (qs_q[q].st)
        QLoad: if (f_valid[q]) begin
          if (hcode[q] != ErrNone) begin
            qs_d[q].st = QErr;
            qs_d[q].code = hcode[q];
          end else begin
            qs_d[q].ss = type_size(head[q].stype);
            qs_d[q].ds = type_size(head[q].dtype);
            qs_d[q].nelem = head[q].len >> lg(type_size(head[q].stype));
            qs_d[q].ecap = head[q].stype != head[q].dtype ? NB'(Lanes4)
                                                         : NB'(BeatBytes >> lg(type_size(head[q].stype)));
            qs_d[q].elem = '0;
            qs_d[q].row = '0;
            qs_d[q].col = '0;
            qs_d[q].st = head[q].barrier ? QBar : QRun;
          end
        end
        QBar: if (qs_q[q].pend == '0) qs_d[q].st = QRun;
        QRun: if (issue && win == QW'(q)) begin
          qs_d[q].elem = qs_q[q].elem + 32'(cn);
          if (head[q].layout != LayoutRow) begin
            if (qs_q[q].col + 16'(cn) == head[q].cols) begin
              qs_d[q].col = '0;
              qs_d[q].row = qs_q[q].row + 32'd1;
            end else begin
              qs_d[q].col = qs_q[q].col + 16'(cn);
            end
          end
          if (chunk_last && (head[q].sem || head[q].last)) qs_d[q].st = QSemw;
        end
        QSemw: if (sem_ready[q] && sem_pick && sem_q == QW'(q)) qs_d[q].st = QSema;
        QErr: if (q_clr_i[q]) begin
          qs_d[q].st = QLoad;
          qs_d[q].code = ErrNone;
        end
        default: ;
      endcase
      if (pop[q]) begin
        qs_d[q].st = QLoad;
        qs_d[q].done = qs_q[q].done + 16'd1;
      end
      if (pop[q] || drop[q]) qs_d[q].dseq = qs_q[q].dseq + 16'd1;
      qs_d[q].pend = qs_q[q].pend + (SW + 1)'(issue && win == QW'(q))
                     - (SW + 1)'(w_acc && !w_sem_q && ws.q == QW'(q));
      if (issue && win == QW'(q)) qs_d[q].iseq = qs_q[q].iseq + 16'd1;
      if (data_pick && data_q == QW'(q)) qs_d[q].wseq = qs_q[q].wseq + 16'd1;
    end

    // the slots, each compared with the index of each port that writes one (in this order: issue,
    // read response, write accepted, write selected)
    for (int i = 0; i < Slots; i++) begin
      if (issue && free_slot == SW'(i))
        sl_d[i] = '{st: SWait, q: win, seq: qs_q[win].iseq, desc: qs_q[win].dseq, elem: qs_q[win].elem,
                    space: wd.dst_space, col: wd.layout != LayoutRow, acc: wd.op == OpAcc,
                    cast: wd.stype != wd.dtype, rg: wd.op == OpReg, esize: wd.layout != LayoutRow ? es : qs_q[win].ds,
                    ss: qs_q[win].ss, stype: wd.stype, dtype: wd.dtype, addr: c_dst, n: c_wn, cnt: cn,
                    lo: c_lo, hi: c_hi, data: sl_q[i].data};
      if (r_valid_i && r_id_i == SW'(i)) begin
        sl_d[i].st = SData;
        sl_d[i].data = rx;
      end
      if (w_acc && !w_sem_q && w_slot_q == SW'(i)) sl_d[i].st = SFree;
      if (data_pick && data_slot == SW'(i)) sl_d[i].st = SWr;
    end

    // read issue: the read register
    if (issue) begin
      ar_v_d = 1'b1;
      ar_space_d = wd.src_space;
      ar_addr_d = c_src;
      ar_bytes_d = NB'(32'(cn) << lg(qs_q[win].ss));
      ar_id_d = free_slot;
    end else if (ar_ready_i) begin
      ar_v_d = 1'b0;
    end

    inflight_d = inflight_q + (SW + 1)'(issue) - (SW + 1)'(r_valid_i);
    rob_d = rob_q + (SW + 1)'(r_valid_i) - (SW + 1)'(data_pick);

    // the write register
    if (sem_pick) begin
      w_v_d = 1'b1;
      w_sem_d = 1'b1;
      w_qid_d = sem_q;
    end else if (data_pick) begin
      w_v_d = 1'b1;
      w_sem_d = 1'b0;
      w_slot_d = data_slot;
      w_qid_d = data_q;
    end else if (wr_ready_i) begin
      w_v_d = 1'b0;
    end
  end

  // ---- state
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      qs_q <= '{default: QueueReset};
      sl_q <= '{default: SlotReset};
      inflight_q <= '0;
      rob_q <= '0;
      ar_v_q <= 1'b0;
      ar_space_q <= 1'b0;
      ar_addr_q <= '0;
      ar_bytes_q <= '0;
      ar_id_q <= '0;
      w_v_q <= 1'b0;
      w_sem_q <= 1'b0;
      w_slot_q <= SW'(Slots - 1);  // the write selection starts from slot 0
      w_qid_q <= '0;
    end else begin
      qs_q <= qs_d;
      sl_q <= sl_d;
      inflight_q <= inflight_d;
      rob_q <= rob_d;
      ar_v_q <= ar_v_d;
      ar_space_q <= ar_space_d;
      ar_addr_q <= ar_addr_d;
      ar_bytes_q <= ar_bytes_d;
      ar_id_q <= ar_id_d;
      w_v_q <= w_v_d;
      w_sem_q <= w_sem_d;
      w_slot_q <= w_slot_d;
      w_qid_q <= w_qid_d;
    end
  end

  // ---- outputs
  assign ar_valid_o = ar_v_q;
  assign ar_o = '{space: ar_space_q, addr: ar_addr_q, bytes: 8'(ar_bytes_q), id: 8'(ar_id_q)};

  desc_t wh;
  always_comb begin
    wh = head[w_qid_q];
    wr_valid_o = w_v_q;
    wr_o = '0;
    wr_data_o = '0;
    wr_info_o = '0;
    if (w_v_q && w_sem_q) begin
      wr_o = '{space: wh.sem_space, col: 1'b0, esize: 3'd4, addr: wh.sem_addr, n: 8'd4, acc: 1'b0};
      wr_data_o = DW'(wh.sem_val);
      wr_info_o = '{qid: 8'(w_qid_q), desc: qs_q[w_qid_q].dseq, elem: qs_q[w_qid_q].nelem, sem: 1'b1};
    end else if (w_v_q) begin
      wr_o = '{space: ws.space, col: ws.col, esize: ws.esize, addr: ws.addr, n: 8'(ws.n), acc: ws.acc};
      wr_data_o = ws.data;
      wr_info_o = '{qid: 8'(w_qid_q), desc: ws.desc, elem: ws.elem, sem: ws.rg};
    end
  end

  always_comb begin
    for (int q = 0; q < Queues; q++) begin
      q_idle_o[q] = qs_q[q].st == QLoad && !f_valid[q] && qs_q[q].pend == '0;
      q_err_o[q] = qs_q[q].st == QErr;
      q_code_o[q] = qs_q[q].code;
      q_done_o[16*q +: 16] = qs_q[q].done;
    end
  end
  assign rob_o = rob_q;
  assign inflight_o = inflight_q;


`ifndef SYNTHESIS
  // ---- assertions (docs/formal.md "Assertions"): checked every cycle of every simulation
  // (Verilator --assert; a failure ends the test naming the assertion, the instance and the cycle)
  // The ordering rules of SPEC 5.5, stated on the writes as they become visible (accepted by the
  // write channel) and on the reads as they issue, apart from the selection logic that keeps them.
  function automatic logic a_older(logic [15:0] a, logic [15:0] b);  // a issued before b (wrapping)
    logic [15:0] d;
    d = b - a;
    return d != 16'd0 && !d[15];
  endfunction
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int unsigned i = 0; i < Slots; i++) begin
        // strong order: a queue's writes become visible in issue order
        a_strong_order: assert (!(w_acc && !w_sem_q && cfg_strong_i[ws.q] && SW'(i) != w_slot_q
                                  && sl_q[i].st != SFree && sl_q[i].q == ws.q && a_older(sl_q[i].seq, ws.seq)))
          else $error("queue %0d (strong): chunk %0d written while chunk %0d (slot %0d) is pending", ws.q, ws.seq,
                      sl_q[i].seq, i);
        // write after write: when a write becomes visible no other write to its bytes is pending
        a_waw_one_pending: assert (!(w_acc && !w_sem_q && SW'(i) != w_slot_q && sl_q[i].st != SFree
                                     && sl_q[i].lo < ws.hi && ws.lo < sl_q[i].hi))
          else $error("a write of queue %0d to %0h..%0h visible while slot %0d (queue %0d) writes %0h..%0h", ws.q, ws.lo,
                      ws.hi, i, sl_q[i].q, sl_q[i].lo, sl_q[i].hi);
        // a semaphore after its data: none of its descriptor's writes (a `last` one: of its queue's)
        // is pending when it becomes visible
        a_sem_after_data: assert (!(w_acc && w_sem_q && sl_q[i].st != SFree && sl_q[i].q == w_qid_q
                                    && (head[w_qid_q].last || sl_q[i].desc == qs_q[w_qid_q].dseq)))
          else $error("queue %0d: semaphore written while slot %0d of descriptor %0d is pending", w_qid_q, i,
                      sl_q[i].desc);
        // a barrier: no read of it issues while an earlier descriptor of its queue has a write pending
        a_barrier_drained: assert (!(issue && head[win].barrier && sl_q[i].st != SFree && sl_q[i].q == win
                                     && sl_q[i].desc != qs_q[win].dseq))
          else $error("queue %0d: a barrier's read issued while slot %0d of descriptor %0d is pending", win, i,
                      sl_q[i].desc);
      end
    end
  end
`endif
endmodule
