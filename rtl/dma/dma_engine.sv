// dma_engine — the DMA engine of SPEC 5.5 (docs/dma.md): Queues descriptor queues, each executed
// in order and arbitrated round-robin for one read request per cycle; a pool of Slots read slots
// shared by all queues (outstanding reads and the reorder buffer); one write per cycle; per-queue
// ordering mode write-after-write or strong-order-write.
//
// Timing (the model trn::dma::DmaEngine follows it cycle by cycle):
//   - A pushed descriptor is checked when it reaches the head of its queue (state LOAD, one cycle).
//     A bad one stops the queue (q_err_o, q_code_o) until q_clr_i drops it; nothing of it is read
//     or written. A barrier descriptor then waits until the queue has no pending write.
//   - RUN: the queue offers its next chunk (at most BeatBytes source and destination bytes). When
//     the read register is free, a slot is free and fewer than cfg_max_outst_i reads are in flight,
//     the round-robin winner is checked against every pending write's destination footprint (any
//     queue); with no overlap it issues (slot allocated, read register loaded), otherwise nothing
//     issues this cycle. The pointer moves past the winner either way.
//   - A read response (any order) is converted into its slot (cast via FP32 when the types differ).
//   - Write selection, when the write register is free or being accepted: a semaphore whose queue
//     has no pending write (lowest queue first), else the lowest slot with data that its queue may
//     write: any, in write-after-write mode; only its next in issue order, in strong mode.
//   - After its last chunk, a descriptor with a semaphore or `last` waits until the queue has no
//     pending write; then the semaphore is written, and the descriptor completes (q_done_o).
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

  // ---- queues ----
  desc_t         fifo_q [Queues][QDepth];
  logic [FW-1:0] frd_q [Queues], fwr_q [Queues];
  logic [FW:0]   fcnt_q [Queues];
  qst_e          st_q [Queues];
  err_e          code_q [Queues];
  logic [31:0]   elem_q [Queues], row_q [Queues], nelem_q [Queues];
  logic [15:0]   col_q [Queues];
  logic [2:0]    ss_q [Queues], ds_q [Queues];
  logic [NB-1:0] ecap_q [Queues];
  logic [15:0]   iseq_q [Queues], wseq_q [Queues], dseq_q [Queues], done_q [Queues];
  logic [SW:0]   pend_q [Queues];
  logic [QW-1:0] rr_q;

  // ---- slots ----
  sst_e [Slots-1:0] sst_q;  // packed: reset in one assignment
  logic [QW-1:0] sq_q [Slots];
  logic [15:0]   sseq_q [Slots], sdesc_q [Slots];
  logic [31:0]   selem_q [Slots];
  logic          sspace_q [Slots], scol_q [Slots], sacc_q [Slots], scast_q [Slots];
  logic [2:0]    sesize_q [Slots], sss_q [Slots];
  logic [3:0]    sstype_q [Slots], sdtype_q [Slots];
  logic [AddrBits-1:0] saddr_q [Slots];
  logic [NB-1:0] sn_q [Slots], scnt_q [Slots];
  logic [33:0]   slo_q [Slots], shi_q [Slots];
  logic [DW-1:0] sdata_q [Slots];
  logic [SW:0]   inflight_q, rob_q;

  // ---- read and write registers ----
  logic                ar_v_q, ar_space_q;
  logic [AddrBits-1:0] ar_addr_q;
  logic [NB-1:0]       ar_bytes_q;
  logic [SW-1:0]       ar_id_q;
  logic                w_v_q, w_sem_q;
  logic [SW-1:0]       w_slot_q;
  logic [QW-1:0]       w_qid_q;

  function automatic logic [2:0] lg(logic [2:0] s);
    return s == 3'd4 ? 3'd2 : (s == 3'd2 ? 3'd1 : 3'd0);
  endfunction

  assign desc_ready_o = fcnt_q[desc_queue_i] < (FW + 1)'(QDepth);
  wire push = desc_valid_i && desc_ready_o;

  // ---- head descriptors and their checks (LOAD) ----
  desc_t      head [Queues];
  err_e       hcode [Queues];
  always_comb begin
    for (int q = 0; q < Queues; q++) begin
      head[q] = fifo_q[q][frd_q[q]];
      hcode[q] = check(head[q], HbmBytes, Parts, OffBits, PartBytes, MaxLen);
    end
  end

  // ---- read issue ----
  logic          res_ok, any_req, issue, hazard, chunk_last;
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
  always_comb begin
    have_free = 1'b0;
    free_slot = '0;
    for (int i = Slots - 1; i >= 0; i--)
      if (sst_q[i] == SFree) begin
        have_free = 1'b1;
        free_slot = SW'(i);
      end
    res_ok = (!ar_v_q || ar_ready_i) && have_free && inflight_q < cfg_max_outst_i;
    any_req = 1'b0;
    win = '0;
    for (int k = Queues - 1; k >= 0; k--) begin
      if (st_q[(int'(rr_q) + k) % Queues] == QRun) begin
        any_req = 1'b1;
        win = QW'((int'(rr_q) + k) % Queues);
      end
    end
    wd = head[win];
    rem = nelem_q[win] - elem_q[win];
    if (wd.layout == LayoutRow) cn = rem < 32'(ecap_q[win]) ? NB'(rem) : ecap_q[win];
    else cn = 16'(wd.cols - col_q[win]) < 16'(ecap_q[win]) ? NB'(wd.cols - col_q[win]) : ecap_q[win];
    es = wd.layout == LayoutCol2 ? 3'd2 : 3'd4;
    c_src = wd.src_addr + (elem_q[win] << lg(ss_q[win]));
    if (wd.layout == LayoutRow) begin
      c_dst = wd.dst_addr + (elem_q[win] << lg(ds_q[win]));
      c_wn = NB'(32'(cn) << lg(ds_q[win]));
      c_lo = {1'b0, wd.dst_space, c_dst};
      c_hi = c_lo + 34'(c_wn);
    end else begin
      c_dst = wd.dst_addr + (32'(col_q[win]) << OffBits) + (row_q[win] << lg(es));
      c_wn = cn;
      c_lo = {1'b0, wd.dst_space, c_dst};
      c_hi = c_lo + ((34'(cn) - 34'd1) << OffBits) + 34'(es);
    end
    hazard = 1'b0;
    for (int i = 0; i < Slots; i++)
      if (sst_q[i] != SFree && c_lo < shi_q[i] && slo_q[i] < c_hi) hazard = 1'b1;
    issue = res_ok && any_req && !hazard;
    chunk_last = elem_q[win] + 32'(cn) == nelem_q[win];
  end

  // ---- read response: conversion into the slot ----
  logic [DW-1:0] rx;
  always_comb begin
    rx = '0;
    if (!scast_q[r_id_i]) begin
      for (int b = 0; b < BeatBytes; b++)
        if (32'(b) < 32'(scnt_q[r_id_i]) * 32'(sss_q[r_id_i])) rx[8*b +: 8] = r_data_i[8*b +: 8];
    end else begin
      for (int j = 0; j < Lanes4; j++) begin
        logic [31:0] code, v;
        code = '0;
        unique case (sss_q[r_id_i])
          3'd4: code = r_data_i[32*j +: 32];
          3'd2: code = {16'b0, r_data_i[16*j +: 16]};
          default: code = {24'b0, r_data_i[8*j +: 8]};
        endcase
        v = cast(sstype_q[r_id_i], sdtype_q[r_id_i], code);
        if (32'(j) < 32'(scnt_q[r_id_i])) begin
          unique case (sesize_q[r_id_i])
            3'd4: rx[32*j +: 32] = v;
            3'd2: rx[16*j +: 16] = v[15:0];
            default: rx[8*j +: 8] = v[7:0];
          endcase
        end
      end
    end
  end

  // ---- write selection ----
  logic          wfree, sem_pick, data_pick;
  logic [QW-1:0] sem_q;
  logic [SW-1:0] data_slot;
  wire           w_acc = w_v_q && wr_ready_i;
  always_comb begin
    wfree = !w_v_q || wr_ready_i;
    sem_pick = 1'b0;
    sem_q = '0;
    for (int q = Queues - 1; q >= 0; q--) begin
      if (st_q[q] == QSemw && pend_q[q] == '0 && fifo_q[q][frd_q[q]].sem) begin
        sem_pick = 1'b1;
        sem_q = QW'(q);
      end
    end
    data_pick = 1'b0;
    data_slot = '0;
    for (int i = Slots - 1; i >= 0; i--) begin
      if (sst_q[i] == SData && (!cfg_strong_i[sq_q[i]] || sseq_q[i] == wseq_q[sq_q[i]])) begin
        data_pick = 1'b1;
        data_slot = SW'(i);
      end
    end
    sem_pick = sem_pick && wfree;
    data_pick = data_pick && wfree && !sem_pick;
  end

  // ---- descriptor completion (pop) and dropping a bad one (drop) ----
  logic [Queues-1:0] pop, drop;
  always_comb begin
    for (int q = 0; q < Queues; q++) begin
      pop[q] = 1'b0;
      unique case (st_q[q])
        QRun: pop[q] = issue && win == QW'(q) && chunk_last && !head[q].sem && !head[q].last;
        QSemw: pop[q] = pend_q[q] == '0 && !head[q].sem;
        QSema: pop[q] = w_acc && w_sem_q && w_qid_q == QW'(q);
        default: ;
      endcase
      drop[q] = st_q[q] == QErr && q_clr_i[q];
    end
  end

  // ---- state ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int q = 0; q < Queues; q++) begin
        frd_q[q] <= '0;
        fwr_q[q] <= '0;
        fcnt_q[q] <= '0;
        st_q[q] <= QLoad;
        code_q[q] <= ErrNone;
        elem_q[q] <= '0;
        row_q[q] <= '0;
        col_q[q] <= '0;
        nelem_q[q] <= '0;
        ss_q[q] <= '0;
        ds_q[q] <= '0;
        ecap_q[q] <= '0;
        iseq_q[q] <= '0;
        wseq_q[q] <= '0;
        dseq_q[q] <= '0;
        done_q[q] <= '0;
        pend_q[q] <= '0;
      end
      sst_q <= '0;
      rr_q <= '0;
      ar_space_q <= 1'b0;
      ar_addr_q <= '0;
      ar_bytes_q <= '0;
      ar_id_q <= '0;
      inflight_q <= '0;
      rob_q <= '0;
      ar_v_q <= 1'b0;
      w_v_q <= 1'b0;
      w_sem_q <= 1'b0;
      w_slot_q <= '0;
      w_qid_q <= '0;
    end else begin
      for (int q = 0; q < Queues; q++) begin
        unique case (st_q[q])
          QLoad: if (fcnt_q[q] != '0) begin
            if (hcode[q] != ErrNone) begin
              st_q[q] <= QErr;
              code_q[q] <= hcode[q];
            end else begin
              ss_q[q] <= type_size(head[q].stype);
              ds_q[q] <= type_size(head[q].dtype);
              nelem_q[q] <= head[q].len >> lg(type_size(head[q].stype));
              ecap_q[q] <= head[q].stype != head[q].dtype ? NB'(Lanes4)
                                                          : NB'(BeatBytes >> lg(type_size(head[q].stype)));
              elem_q[q] <= '0;
              row_q[q] <= '0;
              col_q[q] <= '0;
              st_q[q] <= head[q].barrier ? QBar : QRun;
            end
          end
          QBar: if (pend_q[q] == '0) st_q[q] <= QRun;
          QRun: if (issue && win == QW'(q)) begin
            elem_q[q] <= elem_q[q] + 32'(cn);
            if (head[q].layout != LayoutRow) begin
              if (col_q[q] + 16'(cn) == head[q].cols) begin
                col_q[q] <= '0;
                row_q[q] <= row_q[q] + 32'd1;
              end else begin
                col_q[q] <= col_q[q] + 16'(cn);
              end
            end
            if (chunk_last && (head[q].sem || head[q].last)) st_q[q] <= QSemw;
          end
          QSemw: if (pend_q[q] == '0 && sem_pick && sem_q == QW'(q)) st_q[q] <= QSema;
          QErr: if (q_clr_i[q]) begin
            st_q[q] <= QLoad;
            code_q[q] <= ErrNone;
          end
          default: ;
        endcase
        if (pop[q]) begin
          st_q[q] <= QLoad;
          done_q[q] <= done_q[q] + 16'd1;
        end
        if (pop[q] || drop[q]) begin
          frd_q[q] <= frd_q[q] + FW'(1);
          dseq_q[q] <= dseq_q[q] + 16'd1;
        end
        if (push && desc_queue_i == QW'(q)) begin
          fifo_q[q][fwr_q[q]] <= desc_i;
          fwr_q[q] <= fwr_q[q] + FW'(1);
        end
        fcnt_q[q] <= fcnt_q[q] + (FW + 1)'(push && desc_queue_i == QW'(q)) - (FW + 1)'(pop[q] || drop[q]);
        pend_q[q] <= pend_q[q] + (SW + 1)'(issue && win == QW'(q))
                     - (SW + 1)'(w_acc && !w_sem_q && sq_q[w_slot_q] == QW'(q));
        if (issue && win == QW'(q)) iseq_q[q] <= iseq_q[q] + 16'd1;
        if (data_pick && sq_q[data_slot] == QW'(q)) wseq_q[q] <= wseq_q[q] + 16'd1;
      end

      // read issue
      if (res_ok && any_req) rr_q <= QW'((int'(win) + 1) % Queues);
      if (issue) begin
        sst_q[free_slot] <= SWait;
        sq_q[free_slot] <= win;
        sseq_q[free_slot] <= iseq_q[win];
        sdesc_q[free_slot] <= dseq_q[win];
        selem_q[free_slot] <= elem_q[win];
        sspace_q[free_slot] <= wd.dst_space;
        scol_q[free_slot] <= wd.layout != LayoutRow;
        sacc_q[free_slot] <= wd.op == OpAcc;
        scast_q[free_slot] <= wd.stype != wd.dtype;
        sesize_q[free_slot] <= wd.layout != LayoutRow ? es : ds_q[win];
        sss_q[free_slot] <= ss_q[win];
        sstype_q[free_slot] <= wd.stype;
        sdtype_q[free_slot] <= wd.dtype;
        saddr_q[free_slot] <= c_dst;
        sn_q[free_slot] <= c_wn;
        scnt_q[free_slot] <= cn;
        slo_q[free_slot] <= c_lo;
        shi_q[free_slot] <= c_hi;
        ar_v_q <= 1'b1;
        ar_space_q <= wd.src_space;
        ar_addr_q <= c_src;
        ar_bytes_q <= NB'(32'(cn) << lg(ss_q[win]));
        ar_id_q <= free_slot;
      end else if (ar_ready_i) begin
        ar_v_q <= 1'b0;
      end

      // read response
      if (r_valid_i) begin
        sst_q[r_id_i] <= SData;
        sdata_q[r_id_i] <= rx;
      end
      inflight_q <= inflight_q + (SW + 1)'(issue) - (SW + 1)'(r_valid_i);
      rob_q <= rob_q + (SW + 1)'(r_valid_i) - (SW + 1)'(data_pick);

      // write register
      if (w_acc && !w_sem_q) sst_q[w_slot_q] <= SFree;
      if (sem_pick) begin
        w_v_q <= 1'b1;
        w_sem_q <= 1'b1;
        w_qid_q <= sem_q;
      end else if (data_pick) begin
        w_v_q <= 1'b1;
        w_sem_q <= 1'b0;
        w_slot_q <= data_slot;
        w_qid_q <= sq_q[data_slot];
        sst_q[data_slot] <= SWr;
      end else if (wr_ready_i) begin
        w_v_q <= 1'b0;
      end
    end
  end

  // ---- outputs ----
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
      wr_info_o = '{qid: 8'(w_qid_q), desc: dseq_q[w_qid_q], elem: nelem_q[w_qid_q], sem: 1'b1};
    end else if (w_v_q) begin
      wr_o = '{space: sspace_q[w_slot_q], col: scol_q[w_slot_q], esize: sesize_q[w_slot_q],
               addr: saddr_q[w_slot_q], n: 8'(sn_q[w_slot_q]), acc: sacc_q[w_slot_q]};
      wr_data_o = sdata_q[w_slot_q];
      wr_info_o = '{qid: 8'(w_qid_q), desc: sdesc_q[w_slot_q], elem: selem_q[w_slot_q], sem: 1'b0};
    end
  end

  always_comb begin
    for (int q = 0; q < Queues; q++) begin
      q_idle_o[q] = st_q[q] == QLoad && fcnt_q[q] == '0 && pend_q[q] == '0;
      q_err_o[q] = st_q[q] == QErr;
      q_code_o[q] = code_q[q];
      q_done_o[16*q +: 16] = done_q[q];
    end
  end
  assign rob_o = rob_q;
  assign inflight_o = inflight_q;

endmodule
