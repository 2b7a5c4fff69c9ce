// Properties of rtl/dma/dma_engine.sv for scripts/formal (docs/formal.md): the DMA's ordering rules
// (SPEC 5.5, docs/dma.md) at its ports, on a shrunk engine (two queues, two read slots, 4-byte
// beats, small memories). Its neighbours are the solver's: descriptors of any kind to either queue
// at any time (bad ones included: the queue stops; q_clr_i drops them whenever the solver likes),
// the read channel accepting and answering in any order and after any delay (a response only for a
// read that is outstanding), the write channel accepting whenever it likes. The ordering mode of
// each queue and the in-flight limit are the solver's too, fixed from reset. Then, for the writes
// the write channel accepts (wr_info_o names the queue, the descriptor, its first element and
// whether it is the completion write):
//   dma_strong_order  in a strong-order queue, data writes are accepted in issue order: each one's
//                     (descriptor, element) is past the one before
//   dma_sem_after     a descriptor's completion write comes after every data write of it: no data
//                     write of a descriptor follows its semaphore (in strong order, and for a
//                     `last` descriptor, of any earlier descriptor of its queue either)
//   dma_barrier       a barrier descriptor's data comes after every write of its queue's earlier
//                     descriptors: no data write of an earlier descriptor follows one of a barrier
//   dma_read_once     every read the channel accepts names a slot with no read outstanding
// A port-level statement each: they hold whatever the engine's slots and queues hold inside.
module dma_props
  import dma_pkg::*;
#(
  parameter int unsigned Queues = 2,
  parameter int unsigned Slots  = 2,
  localparam int unsigned QDepth = 2,
  localparam int unsigned BeatBytes = 4,
  localparam int unsigned QW = Queues > 1 ? $clog2(Queues) : 1,
  localparam int unsigned SW = $clog2(Slots),
  localparam int unsigned DW = 8 * BeatBytes
) (
  input logic              clk_i,
  input logic              rst_ni,
  input logic              desc_valid_i,
  input logic [QW-1:0]     desc_queue_i,
  input desc_t             desc_i,
  input logic [Queues-1:0] cfg_strong_i,
  input logic [SW:0]       cfg_max_outst_i,
  input logic [Queues-1:0] q_clr_i,
  input logic              ar_ready_i,
  input logic              r_valid_i,
  input logic [SW-1:0]     r_id_i,
  input logic [DW-1:0]     r_data_i,
  input logic              wr_ready_i
);
  logic                  desc_ready_o, ar_valid_o, wr_valid_o;
  rd_req_t               ar_o;
  wr_req_t               wr_o;
  logic [DW-1:0]         wr_data_o;
  wr_info_t              wr_info_o;
  logic [Queues-1:0]     q_idle_o, q_err_o;
  err_e [Queues-1:0]     q_code_o;
  logic [16*Queues-1:0]  q_done_o;
  logic [SW:0]           rob_o, inflight_o;
  dma_engine #(.Queues(Queues), .QDepth(QDepth), .Slots(Slots), .BeatBytes(BeatBytes), .Parts(2), .PartBytes(64),
               .HbmBytes(256), .MaxLen(16), .Chips(1)) dut (.*);

  logic init_q;  // the first cycle, in reset
  formal_start u_start (.clk_i, .rst_ni, .init_o(init_q));
  always_comb if (!init_q) assume (rst_ni);

  // the configuration is fixed from reset
  logic [Queues-1:0] strong_q;
  logic [SW:0]       outst_q;
  always_ff @(posedge clk_i) begin
    strong_q <= cfg_strong_i;
    outst_q <= cfg_max_outst_i;
  end
  always_comb begin
    assume (cfg_max_outst_i != '0 && 32'(cfg_max_outst_i) <= Slots);
    if (!init_q) assume (cfg_strong_i == strong_q && cfg_max_outst_i == outst_q);
  end

  // the read channel: a response only for an outstanding read
  logic [Slots-1:0] out_q;
  logic ar_go, wr_go;
  assign ar_go = ar_valid_o && ar_ready_i;
  assign wr_go = wr_valid_o && wr_ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_q <= '0;
    else
      for (int unsigned s = 0; s < Slots; s++)
        out_q[s] <= (out_q[s] && !(r_valid_i && 32'(r_id_i) == s)) || (ar_go && 32'(ar_o.id) == s);
  end
  always_comb if (r_valid_i) assume (out_q[r_id_i]);

  // what the write channel accepted, per queue: the last data write (descriptor, element), the
  // highest descriptor whose semaphore was written (and whether it ordered earlier ones too), the
  // highest barrier descriptor with data written
  logic [Queues-1:0] seen_q, sem_q, semall_q, bar_q;
  logic [15:0]       ldesc_q [Queues], sdesc_q [Queues], bdesc_q [Queues];
  logic [31:0]       lelem_q [Queues];
  logic [QW-1:0]     wq;
  assign wq = QW'(wr_info_o.qid);

  // which descriptors carry `barrier`, `last` (numbered per queue as pushed; the engine numbers
  // the descriptors it takes off a queue the same way, dropped ones included)
  logic [15:0]  pushed_q [Queues];
  logic [15:0]  barrier_at_q [Queues][2], last_at_q [Queues][2];  // the two newest of each kind
  logic [1:0]   nbar_q [Queues], nlast_q [Queues];
  function automatic logic is_barrier(int unsigned q, logic [15:0] d);
    for (int unsigned k = 0; k < 2; k++) if (32'(k) < 32'(nbar_q[q]) && barrier_at_q[q][k] == d) return 1'b1;
    return 1'b0;
  endfunction
  function automatic logic is_last(int unsigned q, logic [15:0] d);
    for (int unsigned k = 0; k < 2; k++) if (32'(k) < 32'(nlast_q[q]) && last_at_q[q][k] == d) return 1'b1;
    return 1'b0;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      seen_q <= '0;
      sem_q <= '0;
      semall_q <= '0;
      bar_q <= '0;
      for (int unsigned q = 0; q < Queues; q++) begin
        ldesc_q[q] <= '0;
        lelem_q[q] <= '0;
        sdesc_q[q] <= '0;
        bdesc_q[q] <= '0;
        pushed_q[q] <= '0;
        nbar_q[q] <= '0;
        nlast_q[q] <= '0;
        for (int unsigned k = 0; k < 2; k++) begin
          barrier_at_q[q][k] <= '0;
          last_at_q[q][k] <= '0;
        end
      end
    end else begin
      if (desc_valid_i && desc_ready_o) begin
        pushed_q[desc_queue_i] <= pushed_q[desc_queue_i] + 16'd1;
        if (desc_i.barrier && nbar_q[desc_queue_i] != 2'd2) begin
          barrier_at_q[desc_queue_i][nbar_q[desc_queue_i][0]] <= pushed_q[desc_queue_i];
          nbar_q[desc_queue_i] <= nbar_q[desc_queue_i] + 2'd1;
        end
        if (desc_i.last && nlast_q[desc_queue_i] != 2'd2) begin
          last_at_q[desc_queue_i][nlast_q[desc_queue_i][0]] <= pushed_q[desc_queue_i];
          nlast_q[desc_queue_i] <= nlast_q[desc_queue_i] + 2'd1;
        end
      end
      if (wr_go && !wr_info_o.sem) begin
        seen_q[wq] <= 1'b1;
        ldesc_q[wq] <= wr_info_o.desc;
        lelem_q[wq] <= wr_info_o.elem;
        if (is_barrier(wq, wr_info_o.desc) && (!bar_q[wq] || wr_info_o.desc > bdesc_q[wq])) begin
          bar_q[wq] <= 1'b1;
          bdesc_q[wq] <= wr_info_o.desc;
        end
      end
      if (wr_go && wr_info_o.sem) begin
        sem_q[wq] <= 1'b1;
        sdesc_q[wq] <= wr_info_o.desc;
        semall_q[wq] <= strong_q[wq] || is_last(wq, wr_info_o.desc);
      end
    end
  end

  logic ok_strong, ok_sem, ok_bar, ok_read;
  always_comb begin
    ok_strong = 1'b1;
    ok_sem = 1'b1;
    ok_bar = 1'b1;
    ok_read = 1'b1;
    if (wr_go && !wr_info_o.sem) begin
      if (strong_q[wq] && seen_q[wq]
          && !(wr_info_o.desc > ldesc_q[wq] || (wr_info_o.desc == ldesc_q[wq] && wr_info_o.elem > lelem_q[wq])))
        ok_strong = 1'b0;
      if (sem_q[wq] && (wr_info_o.desc == sdesc_q[wq] || (semall_q[wq] && wr_info_o.desc < sdesc_q[wq])))
        ok_sem = 1'b0;
      if (bar_q[wq] && wr_info_o.desc < bdesc_q[wq]) ok_bar = 1'b0;
    end
    if (ar_go && out_q[ar_o.id[SW-1:0]]) ok_read = 1'b0;
  end

  always_comb begin
    if (rst_ni && !init_q) begin
      dma_strong_order: assert (ok_strong);
      dma_sem_after: assert (ok_sem);
      dma_barrier: assert (ok_bar);
      dma_read_once: assert (ok_read);
    end
  end
endmodule
