// tensor_engine — weight-stationary systolic array, controller and PSUM (SPEC 5.1, 5.2; model:
// trn::tensor::TensorEngine, docs in model/tensor/tensor_engine.hpp).
//   R = Rows (K per pass), C = Cols (M). Commands over cmd_valid_i/cmd_ready_o, dispatched in
//   order: LoadStationary (op 0) reads stationary[K, M] column by column through the st_ read port
//   into the weight bank the next MultiplyMoving uses, in the background; MultiplyMoving (op 1)
//   streams moving[K, N] through the mv_ read port, one column per cycle as responses arrive,
//   and writes dst[M, N] to PSUM (bank, off.., overwrite or accumulate).
//   SBUF ports: SBUF's engine requests (sbuf_pkg::e_req_t: the operand's element size and element
//   index, from the command's byte address); responses in order, the element zero-extended to 32
//   bits per partition, always accepted; at most MaxOut moving reads in flight. An MX operand reads
//   each column's block scales first (one byte per block at sc_addr + j of the block's first
//   partition), then the column: two reads per column. With four rows per PE (kpe 2, MX on v4) a
//   multiply's scales come through the third read port, sx_, four columns a read (a 4-byte word at
//   sc_addr + 4t of each block's first partition, blocks of 8 partitions), at most SxMax words ahead
//   of the moving reads, which wait for their column's word; a LoadStationary keeps its two reads.
//   Timing: a moving column whose response arrives in cycle t reaches PSUM column c at the edge
//   ending cycle t + R + c (fill R + C - 1 cycles); one column per cycle at steady state.
//   Transpose (cmd_i.tr): a LoadStationary keeps the raw codes of a [K, M] tile; the next
//   MultiplyMoving with cmd_i.tr writes it to PSUM as [M, K] (N <= K columns, generated here with
//   no SBUF reads; each column takes one row's weights bit for bit, NaN payloads included).
//   BF16 PSUM (cmd_i.pbf, v4): the column's FP32 sum (accumulate: stored entry + sum) is rounded
//   once to BF16 as it is written, RNE or stochastically (cmd_i.sr: a xorshift32 generator per PSUM
//   partition, seeded by a multiply's seed_ld, stepping once per entry it rounds); the entry holds
//   the value as an FP32 word (BF16 code in bits 31:16).
//   Row groups (cmd_i.rg, log2 G): the array as G groups of R / G rows, each an independent matmul
//   of K <= R / G rows on its own partitions (the weights and moving column of every group come in
//   one read); group g's sums restart at its first row, and its last row writes PSUM bank bank + g
//   through a PSUM port of its own (the taps below; the last group's is the array's bottom), so G
//   matmuls take one multiply's cycles. The bank is a multiple of G, so in any cycle the ports write
//   different banks; a multiply whose rg differs from the columns' in the array waits for them to
//   leave (a later group's tap would otherwise overtake an earlier column's write).
//   Commands are te_pkg::te_cmd_t. Illegal ones are accepted and answered on err_* with a
//   te_pkg::te_err_e (shape, range, type, no weights, the wrong kind of weights) without touching
//   anything.
module tensor_engine import numerics_pkg::*; import te_pkg::*; import sbuf_pkg::e_req_t; import sbuf_pkg::esize_e;
  import sbuf_pkg::elems_fit; import sbuf_pkg::base_idx; import sbuf_pkg::elem_bank; #(
  parameter int unsigned Rows = 4,
  parameter int unsigned Cols = 4,
  parameter int unsigned MaxN = 16,
  parameter int unsigned Banks = 8,
  parameter int unsigned PsumBankBytes = 64,
  parameter int unsigned SbufBytes = 1024,
  parameter int unsigned MaxOut = 8,
  // SBUF's geometry (rtl/mem/sbuf.sv): banks and line bytes, for the stationary loader's yield
  parameter int unsigned SbufBanks = 4,
  parameter int unsigned SbufLineBytes = 16,
  localparam int unsigned Depth = PsumBankBytes / 4,
  localparam int unsigned KW = $clog2(4 * Rows + 1),  // K: up to 4 R with four rows per PE
  localparam int unsigned MW = $clog2(Cols + 1),
  localparam int unsigned NW = $clog2(MaxN + 1),
  localparam int unsigned OW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CW = (Cols > 1) ? $clog2(Cols) : 1,
  localparam int unsigned BS = (Rows < 32) ? Rows : 32,  // rows of an MX block
  localparam int unsigned NB = Rows / BS,                 // MX blocks per pass
  localparam int unsigned BSQ = (Rows < 8) ? Rows : 8,    // partitions of an MX block, four rows per PE
  localparam int unsigned NBQ = Rows / BSQ,               // MX blocks per pass, four rows per PE (>= NB)
  // four rows per PE: scale words held or in flight. The reader yields to the moving stream's bank
  // for at most one SBUF line of moving elements (SbufLineBytes / 2 columns of 2-byte E2M1
  // quads: SbufLineBytes / 8 words), and a word arrives 2 cycles after its read.
  localparam int unsigned SxMax = SbufLineBytes / 8 + 2,
  localparam int unsigned SxDepth = 1 << $clog2(SxMax + 1),  // (a power of two above SxMax)
  localparam int unsigned SxW = $clog2(SxMax + 1),
  // row groups: the rows of a group of two and of four (rg 1, 2; commands refuse a split that does
  // not divide the rows), and the group taps: tap q (1..3) is row q R / 4 - 1, the last row of
  // group q - 1 of four; tap 2 (row R / 2 - 1) is also the last row of group 0 of two
  localparam int unsigned GR1 = Rows / 2,
  localparam int unsigned GR2 = (Rows >= 4) ? Rows / 4 : 1,
  localparam int unsigned PsumPorts = 4  // the array's bottom (or the engines' write), taps 1..3
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  te_gen_e              gen_i,           // the generation (a strap, stable while commands run)
  // commands
  input  logic                 cmd_valid_i,
  output logic                 cmd_ready_o,
  input  te_cmd_t              cmd_i,
  // SBUF read port for stationary data
  output logic                 st_req_valid_o,
  input  logic                 st_req_ready_i,
  output e_req_t               st_req_o,
  input  logic                 st_rsp_valid_i,
  input  logic [Rows*32-1:0]   st_rsp_data_i,
  // SBUF read port for moving data
  output logic                 mv_req_valid_o,
  input  logic                 mv_req_ready_i,
  output e_req_t               mv_req_o,
  input  logic                 mv_rsp_valid_i,
  input  logic [Rows*32-1:0]   mv_rsp_data_i,
  // SBUF read port for a four-row MX multiply's scale words
  output logic                 sx_req_valid_o,
  input  logic                 sx_req_ready_i,
  output e_req_t               sx_req_o,
  input  logic                 sx_rsp_valid_i,
  input  logic [Rows*32-1:0]   sx_rsp_data_i,
  // completions and rejections (one cycle each)
  output te_cpl_t              cpl_o,           /// done and refused commands, with their tags
  // PSUM writes of this cycle (observation) and the PSUM read port
  output logic [Cols-1:0]      pw_valid_o,
  output logic [Cols*32-1:0]   pw_data_o,
  input  logic                 pr_valid_i,
  input  psum_addr_t           pr_i,
  output logic [Cols*32-1:0]   pr_data_o,
  // PSUM write port of the vector and scalar engines: element (bank, off) of the partitions in
  // pe_mask_i, accepted in a cycle where the array writes none of them (the array always wins)
  input  logic                 pe_valid_i,
  output logic                 pe_ready_o,
  input  psum_addr_t           pe_i,
  input  logic [Cols-1:0]      pe_mask_i,
  input  logic [Cols*32-1:0]   pe_data_i
);
  localparam logic [31:0] NegZero = 32'h8000_0000;

  if (Rows < 2 || Cols < 2) begin : g_check_size
    $error("tensor_engine: the array needs at least 2 rows and 2 columns (Rows %0d, Cols %0d)", Rows, Cols);
  end
  if (Rows > 32 && Rows % 32 != 0) begin : g_check_rows
    $error("tensor_engine: Rows (%0d) above 32 must be a multiple of the MX block (32)", Rows);
  end

  typedef struct packed {
    logic          wsel;
    logic [3:0]    bank;
    logic [OW-1:0] off;
    logic [MW-1:0] m;
    logic [3:0]    tag;
    logic          acc;
    logic          ints;  // INT32 sums: PSUM accumulates in integer
    logic          pbf;   // BF16 PSUM entries: the sum rounded to BF16 as it is written
    logic          sr;    // (pbf) stochastically, with the partition's generator
    logic [1:0]    rg;    // row groups, log2: group g writes bank + g
    logic          last;
  } meta_t;
  typedef meta_t [Cols-1:0] meta_row_t;
  typedef meta_t [Rows-1:0] meta_skew_t;

  typedef struct packed {  // a moving value, decoded to FP32 where it entered
    logic        valid;
    logic        wsel;
    logic        tr;    // transpose: code is the row whose weight the column takes
    logic [31:0] code;
    logic [7:0]  sx;    // E8M0 scale of this row's block (127 = 1.0 for non-MX operands)
    logic [3:0]  xf;    // the moving format (four rows per PE: the PE decodes the codes)
    // its weights' record as it entered (a load may refill the bank behind the column)
    logic [KW-1:0] wk;
    logic [3:0]  wf;    // the weights' format
    logic [1:0]  wkpe;
    logic [1:0]  wrg;
    logic        wints;
    logic        wmx;
  } tok_t;
  typedef tok_t [Cols-1:0] tok_row_t;   // a row of the array's moving values
  typedef tok_t [Rows-1:0] tok_skew_t;  // a row's skew stages

  typedef struct packed {
    logic [KW-1:0] k;
    logic [MW-1:0] m;
    logic [3:0]    fmt;
    logic [5:0]    bias;
    logic          loaded;
    logic          raw;   // loaded for a transpose: codes kept as they are
    logic          mx;    // MX elements with E8M0 scales
    logic [1:0]    kpe;   // K-rows per PE, log2
    logic          ints;  // INT8/UINT8
    logic [2:0]    spm;   // sparse: log2 M (0 dense)
    logic [1:0]    spq;   // sparse: log2 (M / N)
    logic [1:0]    rg;    // row groups, log2
  } bank_t;

  typedef struct packed {
    logic       sc;    // the response carries the column's block scales, not its elements
    logic       wsel;
    logic [3:0] fmt;
    logic [5:0] bias;
    logic       mx;
    logic [1:0] kpe;
    logic [NBQ-1:0][7:0] sxv;  // four rows per PE: the column's block scales
    logic [2:0] spm;   // sparse weights: each row takes its kept row's value from the column
    logic [1:0] spq;
    meta_t      meta;
  } pend_t;

  typedef struct packed {  // the stationary loader
    logic          busy;
    logic [23:0]   idx;       // element index of the next column's read
    logic [23:0]   sc;        // MX: the next column's scale byte
    logic          iph;       // MX: the next read is a scale read
    logic          rph;       // MX: the next response is a scale response
    logic [1:0]    es;        // element size (sbuf_pkg::esize_e)
    logic [MW-1:0] req_left;  // reads still to issue
    logic [MW-1:0] rsp_idx;   // the column the next response fills
    logic [MW-1:0] m;
    logic [3:0]    tag;
    logic          bank;      // the weight bank it fills
    logic [1:0]    cj, rj;    // four rows per PE: the next read's, the next response's column in its scale word
    logic          mph;       // sparse: the next read is the index metadata's
    logic          mrph;      // sparse: the metadata's response is awaited (no column read before it)
  } ls_t;

  typedef struct packed {  // a loaded column on its way down: row r is written r cycles after its response
    logic          valid;
    logic          bank;
    logic [CW-1:0] col;
    logic          quad;   // four rows per PE: MX blocks of BSQ partitions (else BS)
    logic          mx;
    logic [NBQ-1:0][7:0]  sc;    // MX: the column's scale per block
    logic [Rows-1:0][31:0] data;  // per row: the weight, decoded (raw for a transpose)
  } wev_t;

  typedef struct packed {  // the moving-read issuer (or a transpose's column generator)
    logic          busy;
    logic          wsel;      // the weight bank it multiplies with
    logic          acc;
    logic          tr;
    logic          mx;
    logic [1:0]    kpe;
    logic          ints;
    logic          pbf;       // BF16 PSUM entries
    logic          sr;
    logic [2:0]    spm;       // sparse weights
    logic [1:0]    spq;
    logic [1:0]    rg;        // row groups, log2
    logic [1:0]    gap;       // FP32: cycles until the next column's read (a quarter of the rate)
    logic [1:0]    sj;        // four rows per PE: the next column's byte in its scale word
    logic          iph;       // MX: the next read is a scale read
    logic [NW-1:0] n;
    logic [NW-1:0] left;      // columns still to issue
    logic [23:0]   idx;       // element index of the next column's read
    logic [23:0]   sc;        // MX: the next column's scale byte
    logic [1:0]    es;
    logic [OW-1:0] off;       // the PSUM element of the next column
    logic [3:0]    bank;
    logic [3:0]    tag;
    logic [3:0]    fmt;
    logic [5:0]    bias;
    logic [MW-1:0] m;
  } mm_t;

  typedef struct packed {  // the scale-word reader of a four-row MX multiply
    logic [23:0]   idx;       // ESize4 index of the next word
    logic [NW-1:0] left;      // words still to read
    logic [SxW-1:0] out;      // reads in flight
  } sx_t;

  // ---- state: every register is written once, in the register block, from its _d
  // The array state is an unpacked array of packed rows: a whole-array register update then costs
  // one delayed-assignment temporary per row in the simulator (per element when fully unpacked:
  // 63 MB of C++ at 128 x 128), and each row stays under the 64k-bit limit for packed vectors.
  // The R x C arrays are left out of FST waves (their trace code is 30 times the design's at
  // 128 x 128); the ports, the controller and the PSUM writes (pw_*) are traced.
  /* verilator tracing_off */
  logic [Cols-1:0][31:0] w_q [2][Rows], w_d [2][Rows];   // weights, decoded to FP32 as they load
  logic [Cols-1:0][7:0]  ws_q [2][NBQ], ws_d [2][NBQ];   // weight E8M0 scale per column and block-end row / BSQ
  /* verilator tracing_on */
  bank_t       bank_q [2], bank_d [2];
  logic [Rows-1:0][3:0] sidx_q [2], sidx_d [2];  // sparse weights: row r's index in its group of M rows
  logic        cur_bank_q, cur_bank_d;          // the bank the next MultiplyMoving uses
  logic        next_ls_bank_q, next_ls_bank_d;  // the bank the next LoadStationary fills
  logic [15:0] inflight_q, inflight_d;  // moving columns issued and not yet out of the array
  logic [$clog2(MaxOut+1)-1:0] pnd_q [2], pnd_d [2];  // per bank: moving reads issued, not answered
  logic [NBQ-1:0][31:0] lsh_q, lsh_d;           // MX: the load's scale response, held for its columns
  logic [1:0]  arr_rg_q, arr_rg_d;              // the row groups of the last multiply dispatched
  ls_t         ls_q, ls_d;
  mm_t         mm_q, mm_d;
  sx_t         sx_q, sx_d;
  logic [NB-1:0][7:0] mx_sx_q, mx_sx_d;         // MX: the block scales of the moving column next in
  te_cpl_t     cpl_q, cpl_d;
  // array
  /* verilator tracing_off */
  tok_t  [Rows-1:0]       sk_q [Rows], sk_d [Rows];  // row r uses stages 0..r-1
  meta_t [Rows-1:0]       skm_q, skm_d;              // the last row's meta, stages 0..Rows-2
  tok_t  [Cols-1:0]       x_q [Rows], x_d [Rows];
  meta_t [Cols-1:0]       xm_q, xm_d;                // meta of the last row's tokens
  logic  [Cols-1:0][31:0] ps_q [Rows], ps_d [Rows];  // the block's partial sum
  logic  [Cols-1:0][31:0] ts_q [Rows], ts_d [Rows];  // the sum of the scaled blocks above
  logic  [Cols-1:0]       psv_q [Rows], psv_d [Rows];
  meta_t [Cols-1:0]       bmeta_q, bmeta_d;
  meta_t [Cols-1:0]       xmt_q [1:3], xmt_d [1:3];    // taps: meta of the tap row's tokens
  meta_t [Cols-1:0]       bmt_q [1:3], bmt_d [1:3];    // taps: meta of the tap row's sums
  wev_t                   wev_q [Rows-1], wev_d [Rows-1];  // stage s: the loaded column of s + 1 cycles ago
  /* verilator tracing_on */

  // ---- command check and dispatch
  te_err_e    cmd_err;
  wire        cmd_int = te_is_int(cmd_i.fmt);
  // the rows-per-PE modes (SPEC 5.1): double row for FP8 on v3 and later, and for INT8/UINT8
  wire        cmd_kpe_ok = cmd_i.kpe == 2'd0 ||
                           (cmd_i.kpe == 2'd1 && !cmd_i.mx && !cmd_i.tr && (cmd_int || (te_is_fp8(cmd_i.fmt) && gen_i != TeGenV2))) ||
                           (cmd_i.kpe == 2'd2 && cmd_i.mx && gen_i == TeGenV4);
  // the element a partition holds per column: one operand, two codes in 2 bytes (double row), or
  // four MX codes in 4 bytes (E2M1: 2)
  wire        cmd_sp = cmd_i.spm != '0;  // structured sparsity (below)
  // (a sparse multiply: 1 << spq rows in an element)
  wire [1:0]  cmd_es = (cmd_i.kpe == 2'd1 || (cmd_i.kpe == 2'd2 && cmd_i.fmt == FmtE2m1)) ? 2'(sbuf_pkg::ESize2)
                     : (cmd_i.kpe == 2'd2) ? 2'(sbuf_pkg::ESize4)
                     : (cmd_sp && cmd_i.op == TeMultiplyMoving) ? 2'(fmt_esize(cmd_i.fmt) + cmd_i.spq)
                     : fmt_esize(cmd_i.fmt);
  // a four-row multiply's scale words: 4-byte words, four columns each
  // BF16 PSUM entries on v4, for FP sums written by a multiply; stochastic rounding only with them
  // structured sparsity (v3+): M = 2 .. 16 rows a group, N = M / 2 or M / 4 kept; one row per PE, no
  // MX or transpose; a multiply's element (its type's size << spq) at most 4 bytes
  wire        cmd_sp_ok = !cmd_sp ? cmd_i.spq == '0
                        : gen_i != TeGenV2 && cmd_i.spm <= 3'd4 && cmd_i.spq != '0 && cmd_i.spq <= 2'd2 &&
                          3'(cmd_i.spq) <= cmd_i.spm && !cmd_i.mx && !cmd_i.tr && cmd_i.kpe == '0 &&
                          (cmd_i.op == TeLoadStationary || 3'(fmt_esize(cmd_i.fmt)) + 3'(cmd_i.spq) <= 3'd3);
  wire        cmd_psum_ok = (!cmd_i.pbf || (gen_i == TeGenV4 && !cmd_int && !cmd_i.tr)) && (!cmd_i.sr || cmd_i.pbf);
  // row groups: two on every generation, four on v3+; plain dense matmuls with RNE PSUM only
  wire        cmd_rg_ok = cmd_i.rg == '0 ||
                          (cmd_i.rg != 2'd3 && (cmd_i.rg == 2'd1 || gen_i != TeGenV2) && !cmd_i.mx && !cmd_sp &&
                           !cmd_i.tr && !cmd_i.sr);
  wire [4:0]  cmd_groups = 5'd1 << cmd_i.rg;
  wire        cmd_rg_split = (Rows % (32'd1 << cmd_i.rg)) == 0;  // the groups divide the rows
  wire [16:0] cmd_sx_words = (17'(cmd_i.n) + 17'd3) >> 2;
  wire [16:0] cmd_sx_words_m = (17'(cmd_i.m) + 17'd3) >> 2;  // a four-row load's scale words
  wire        cmd_sx_fits_m = elems_fit(cmd_i.sc_addr, 2'(sbuf_pkg::ESize4), 40'(cmd_sx_words_m), SbufBytes);
  wire        cmd_sx_fits = elems_fit(cmd_i.sc_addr, 2'(sbuf_pkg::ESize4), 40'(cmd_sx_words), SbufBytes);
  always_comb begin
    cmd_err = TeErrNone;
    if (!te_is_pe_fmt(cmd_i.fmt) || !cmd_kpe_ok ||
        (cmd_i.mx && (cmd_i.tr || !(cmd_i.fmt == FmtE4m3fn || cmd_i.fmt == FmtE5m2 || cmd_i.fmt == FmtE2m1))) ||
        (cmd_i.op == TeMultiplyMoving && !cmd_psum_ok) || !cmd_sp_ok || !cmd_rg_ok)
      cmd_err = TeErrType;
    else if (!cmd_rg_split) cmd_err = TeErrShape;
    else if (cmd_i.op == TeLoadStationary) begin
      if (cmd_i.k == '0 || 32'(cmd_i.k) > ((Rows >> cmd_i.rg) << cmd_i.kpe) || cmd_i.m == '0 || 32'(cmd_i.m) > Cols)
        cmd_err = TeErrShape;
      else if (!elems_fit(cmd_i.addr, cmd_es, 40'(cmd_i.m), SbufBytes) ||
               (cmd_i.mx && cmd_i.kpe != 2'd2 && !elems_fit(cmd_i.sc_addr, 2'd1, 40'(cmd_i.m), SbufBytes)) ||
               (cmd_i.mx && cmd_i.kpe == 2'd2 && !cmd_sx_fits_m) ||
               (cmd_sp && !elems_fit(cmd_i.sc_addr, 2'(sbuf_pkg::ESize1), 40'd1, SbufBytes))) cmd_err = TeErrRange;
    end else begin
      if (cmd_i.n == '0 || 32'(cmd_i.n) > MaxN) cmd_err = TeErrShape;
      else if (32'(cmd_i.bank) + 32'(cmd_groups) > Banks || (32'(cmd_i.bank) % 32'(cmd_groups)) != 0 ||
               32'(cmd_i.off) + 32'(cmd_i.n) > Depth ||
               (!cmd_i.tr && (!elems_fit(cmd_i.addr, cmd_es, 40'(cmd_i.n), SbufBytes) ||
                              (cmd_i.mx && cmd_i.kpe != 2'd2 && !elems_fit(cmd_i.sc_addr, 2'd1, 40'(cmd_i.n), SbufBytes)) ||
                              (cmd_i.mx && cmd_i.kpe == 2'd2 && !cmd_sx_fits)))) cmd_err = TeErrRange;
      else if (!ls_q.busy) begin  // the weights' checks wait for the load
        if (!bank_q[cur_bank_q].loaded) cmd_err = TeErrNoWeights;
        else if (bank_q[cur_bank_q].raw != cmd_i.tr ||
                 (!cmd_i.tr && (bank_q[cur_bank_q].kpe != cmd_i.kpe || bank_q[cur_bank_q].ints != cmd_int ||
                                bank_q[cur_bank_q].spm != cmd_i.spm || bank_q[cur_bank_q].spq != cmd_i.spq ||
                                bank_q[cur_bank_q].rg != cmd_i.rg)))
          cmd_err = TeErrKind;
        else if (cmd_i.tr && 32'(cmd_i.n) > 32'(bank_q[cur_bank_q].k)) cmd_err = TeErrShape;
      end
    end
  end

  // the queue of moving reads in flight (its instance is with the SBUF requests below)
  logic pend_push_ready, pend_valid;  // push_ready: usage < MaxOut is checked before each push
  wire cmd_fire = cmd_valid_i && cmd_ready_o;
  // MX elements use their standard bias; the bias register is for plain FP8 operands.
  fmt_desc_t cmd_desc;
  assign cmd_desc = fmt_desc(cmd_i.fmt);
  wire [5:0] op_bias = cmd_i.mx ? cmd_desc.bias[5:0] : cmd_i.bias;

  // ---- SBUF requests
  // The stationary loader yields to the moving stream: it asks for no read in a cycle where the
  // moving port asks for one in the same SBUF bank. SBUF serves one read per bank per cycle, its
  // ports round-robin; without the yield a background load on the moving stream's bank would take
  // every other cycle from the multiply (SPEC 5.1: a background load keeps the array busy).
  logic [$clog2(MaxOut+1)-1:0] pend_usage;
  pend_t pend_in, pend_head;
  logic st_yield;
  // (four rows per PE: the column's scale word must be in)
  logic sxb_valid;
  assign mv_req_valid_o = mm_q.busy && !mm_q.tr && mm_q.left != '0 && mm_q.gap == '0 && 32'(pend_usage) < MaxOut &&
                          (mm_q.kpe != 2'd2 || sxb_valid);
  assign mv_req_o = mm_q.iph ? '{space: 1'b0, we: 1'b0, esize: sbuf_pkg::ESize1, idx: mm_q.sc}
                             : '{space: 1'b0, we: 1'b0, esize: esize_e'(mm_q.es), idx: mm_q.idx};
  // (MX: one scale byte per column; four rows per PE: a 4-byte scale word per four columns)
  wire ls_quad = bank_q[ls_q.bank].kpe == 2'd2;
  // (sparse: the index metadata first, a byte a partition at sc_addr)
  assign st_req_o = (ls_q.iph || ls_q.mph) ? '{space: 1'b0, we: 1'b0, esize: ls_quad ? sbuf_pkg::ESize4 : sbuf_pkg::ESize1,
                                               idx: ls_q.sc}
                                           : '{space: 1'b0, we: 1'b0, esize: esize_e'(ls_q.es), idx: ls_q.idx};
  assign st_yield = mv_req_valid_o &&
                    elem_bank(st_req_o.idx, st_req_o.esize, SbufLineBytes, SbufBanks) ==
                    elem_bank(mv_req_o.idx, mv_req_o.esize, SbufLineBytes, SbufBanks);
  assign st_req_valid_o = ls_q.busy && (ls_q.mph || (!ls_q.mrph && ls_q.req_left != '0)) && !st_yield;
  // the scale-word reader: at most SxMax words held or in flight (enough to ride out a line of
  // yielding to the moving stream, which it does like the loader, plus the SBUF's latency)
  logic [$clog2(SxDepth+1)-1:0] sxb_usage;
  logic [NBQ*32-1:0] sxb_head;  // block b's word at [32b +: 32]
  assign sx_req_o = '{space: 1'b0, we: 1'b0, esize: sbuf_pkg::ESize4, idx: sx_q.idx};
  wire sx_yield = mv_req_valid_o &&
                  elem_bank(sx_req_o.idx, sx_req_o.esize, SbufLineBytes, SbufBanks) ==
                  elem_bank(mv_req_o.idx, mv_req_o.esize, SbufLineBytes, SbufBanks);
  assign sx_req_valid_o = sx_q.left != '0 && 32'(sxb_usage) + 32'(sx_q.out) < SxMax && !sx_yield;
  wire sx_fire = sx_req_valid_o && sx_req_ready_i;
  wire st_fire = st_req_valid_o && st_req_ready_i;
  wire mv_fire = mv_req_valid_o && mv_req_ready_i;
  wire mv_fire_col = mv_fire && !mm_q.iph;  // a column's element read (MX: after its scale read)
  // four rows per PE: a column's read takes its scales from the head word, the word's last takes it
  wire sxb_pop = mv_fire_col && mm_q.kpe == 2'd2 && (mm_q.sj == 2'd3 || mm_q.left == NW'(1));
  logic [NBQ*32-1:0] sxb_in;
  always_comb for (int unsigned b = 0; b < NBQ; b++) sxb_in[b*32 +: 32] = sx_rsp_data_i[b * BSQ * 32 +: 32];
  // (four entries, one spare: a power of two keeps the FIFO's count check meaningful)
  logic sxb_push_ready;  // SxMax words held or in flight at most: never full when one arrives
  stream_fifo #(.Width(NBQ * 32), .Depth(SxDepth)) u_sxb (
    .clk_i, .rst_ni,
    .push_valid_i(sx_rsp_valid_i), .push_ready_o(sxb_push_ready), .push_data_i(sxb_in),
    .pop_valid_o(sxb_valid), .pop_ready_i(sxb_pop), .pop_data_o(sxb_head),
    .usage_o(sxb_usage)
  );
  wire sx_in = mv_rsp_valid_i && pend_valid && pend_head.sc;
  wire col_in = mv_rsp_valid_i && pend_valid && !pend_head.sc;
  wire tr_col = mm_q.busy && mm_q.tr;  // a transpose generates one column per cycle
  // the issuer is free at the edge: its last column issues now (the next multiply dispatches in this
  // cycle, and its first read goes out in the next: no idle cycle between back-to-back multiplies)
  wire mm_last = mm_q.left == NW'(1) && (tr_col || mv_fire_col);

  // no column left to issue or in the array
  wire arr_drained = !mm_q.busy && inflight_q == '0;
  always_comb begin
    cmd_ready_o = 1'b0;
    // (while a sparse load's metadata is checked no command is taken: its verdict uses cpl_o.err)
    if (cmd_valid_i && !ls_q.mrph) begin
      if (cmd_err != TeErrNone) cmd_ready_o = 1'b1;
      // a LoadStationary's bank: no column still to issue from it and no read of one unanswered (the
      // columns in the array keep their weights: the load's rows are written in the skew behind them)
      else if (cmd_i.op == TeLoadStationary) cmd_ready_o = !ls_q.busy && pnd_q[next_ls_bank_q] == '0 &&
                                        !(mm_q.busy && mm_q.wsel == next_ls_bank_q);
      // a transpose's generated columns take the array's entry: no moving read in flight or issued now
      else cmd_ready_o = !ls_q.busy && (!mm_q.busy || mm_last) && (!cmd_i.tr || (!pend_valid && !mv_fire)) &&
                         // a seed load: the array drained (none is written with the old seed after it)
                         (!cmd_i.seed_ld || arr_drained) &&
                         // other row groups than the columns in the array: the array drained
                         (cmd_i.rg == arr_rg_q || arr_drained);
    end
  end

  always_comb begin
    pend_in = '0;
    pend_in.sc = mm_q.iph;
    pend_in.wsel = mm_q.wsel;
    pend_in.fmt = mm_q.fmt;
    pend_in.bias = mm_q.bias;
    pend_in.mx = mm_q.mx;
    pend_in.kpe = mm_q.kpe;
    pend_in.spm = mm_q.spm;
    pend_in.spq = mm_q.spq;
    for (int unsigned b = 0; b < NBQ; b++) pend_in.sxv[b] = sxb_head[b*32 + 8 * mm_q.sj +: 8];
    pend_in.meta = '{wsel: mm_q.wsel, bank: mm_q.bank, off: mm_q.off, m: mm_q.m, tag: mm_q.tag, acc: mm_q.acc,
                     ints: mm_q.ints, pbf: mm_q.pbf, sr: mm_q.sr, rg: mm_q.rg, last: mm_q.left == NW'(1)};
  end

  stream_fifo #(.Width($bits(pend_t)), .Depth(MaxOut)) u_pend (
    .clk_i, .rst_ni,
    .push_valid_i(mv_fire), .push_ready_o(pend_push_ready), .push_data_i(pend_in),
    .pop_valid_o(pend_valid), .pop_ready_i(mv_rsp_valid_i), .pop_data_o(pend_head),
    .usage_o(pend_usage)
  );

  // ---- PSUM: port 0 takes the array's bottom row (else the engines' write), ports 1..3 the taps
  // Tap q (1..3) is row q R / 4 - 1 (when R / 4 divides it): the last row of group q - 1 of four,
  // and tap 2 also of group 0 of two. A column's group g writes bank + g at its group's last row.
  function automatic logic tap_ok(int unsigned q);
    return (q * Rows) % 4 == 0 && q * Rows >= 4;
  endfunction
  function automatic int unsigned tap_row(int unsigned q);
    return tap_ok(q) ? (q * Rows) / 4 - 1 : 0;
  endfunction
  // the group a tap ends for a column of rg row groups (none: 4)
  function automatic logic [2:0] tap_group(int unsigned q, logic [1:0] rg);
    return (rg == 2'd2) ? 3'(q - 1) : (rg == 2'd1 && q == 2) ? 3'd0 : 3'd4;
  endfunction
  // the value a path writes: the column's sum (accumulate: entry + sum, one FP32 or INT32 addition),
  // BF16 entries rounded once (stochastically with the partition's next random word `rnd`)
  function automatic logic [31:0] psum_value(logic [31:0] old, logic [31:0] t, logic acc, logic ints, logic pbf,
                                             logic sr, logic [31:0] rnd);
    logic [31:0] sum;
    sum = !acc ? t : ints ? old + t : fp32_add_f(old, t);
    return !pbf ? sum : {16'(encode(fmt_desc(FmtBf16), 8'd127, sum, sr, rnd, 1'b0, 12'sd0)), 16'd0};
  endfunction

  localparam int unsigned PC = PsumPorts * Cols;
  logic [PC*4-1:0]  rd_bank, wr_bank;
  logic [PC*OW-1:0] rd_off, wr_off;
  logic [PC*32-1:0] rd_data, wr_data;
  logic [PC-1:0]    we;
  always_comb begin
    for (int unsigned c = 0; c < Cols; c++) begin  // the bottom row: the last group's bank
      rd_bank[c*4 +: 4] = bmeta_q[c].bank + 4'((4'd1 << bmeta_q[c].rg) - 4'd1);
      rd_off[c*OW +: OW] = bmeta_q[c].off;
    end
    for (int unsigned q = 1; q <= 3; q++)
      for (int unsigned c = 0; c < Cols; c++) begin
        rd_bank[(q * Cols + c)*4 +: 4] = bmt_q[q][c].bank + 4'(tap_group(q, bmt_q[q][c].rg));
        rd_off[(q * Cols + c)*OW +: OW] = bmt_q[q][c].off;
      end
  end
  // the taps' writes of this cycle
  logic [Cols-1:0] tw_valid [1:3];
  logic [Cols-1:0][31:0] tw_data [1:3];
  always_comb begin
    for (int unsigned q = 1; q <= 3; q++)
      for (int unsigned c = 0; c < Cols; c++) begin
        tw_valid[q][c] = tap_ok(q) && psv_q[tap_row(q)][c] && tap_group(q, bmt_q[q][c].rg) != 3'd4 &&
                         32'(bmt_q[q][c].m) > c;
        tw_data[q][c] = psum_value(rd_data[(q * Cols + c)*32 +: 32], ts_q[tap_row(q)][c], bmt_q[q][c].acc,
                                   bmt_q[q][c].ints, bmt_q[q][c].pbf, 1'b0, 32'd0);
      end
  end
  // Each partition's port 0: the array's write, else the engines' write when accepted (when no
  // port writes the partition).
  assign pe_ready_o = ((pw_valid_o | tw_valid[1] | tw_valid[2] | tw_valid[3]) & pe_mask_i) == '0;
  // the PSUM ports' elements inside this configuration's PSUM
  logic pr_in, pe_in;
  assign pr_in = 32'(pr_i.bank) < Banks && 32'(pr_i.off) < Depth;
  assign pe_in = 32'(pe_i.bank) < Banks && 32'(pe_i.off) < Depth;
  always_comb begin
    for (int unsigned c = 0; c < Cols; c++) begin
      we[c] = pw_valid_o[c] || (pe_valid_i && pe_ready_o && pe_in && pe_mask_i[c]);
      wr_bank[c*4 +: 4] = pw_valid_o[c] ? rd_bank[c*4 +: 4] : pe_i.bank;
      wr_off[c*OW +: OW] = pw_valid_o[c] ? rd_off[c*OW +: OW] : pe_i.off[OW-1:0];
      wr_data[c*32 +: 32] = pw_valid_o[c] ? pw_data_o[c*32 +: 32] : pe_data_i[c*32 +: 32];
    end
    for (int unsigned q = 1; q <= 3; q++)
      for (int unsigned c = 0; c < Cols; c++) begin
        we[q * Cols + c] = tw_valid[q][c];
        wr_bank[(q * Cols + c)*4 +: 4] = rd_bank[(q * Cols + c)*4 +: 4];
        wr_off[(q * Cols + c)*OW +: OW] = rd_off[(q * Cols + c)*OW +: OW];
        wr_data[(q * Cols + c)*32 +: 32] = tw_data[q][c];
      end
  end

  // Stochastic rounding of BF16 PSUM entries: a xorshift32 generator per PSUM partition (SPEC 4),
  // seeded by a multiply's seed_ld (reset: seed 0), stepping once per entry it rounds (row-grouped
  // multiplies, which write through the taps too, round to nearest only).
  logic [Cols-1:0][31:0] rng_q, rng_d, rng_0;  // (rng_0: the reset seeds)
  always_comb begin
    for (int unsigned c = 0; c < Cols; c++) begin
      pw_valid_o[c] = psv_q[Rows-1][c] && 32'(bmeta_q[c].m) > c;
      pw_data_o[c*32 +: 32] = pw_valid_o[c] ? psum_value(rd_data[c*32 +: 32], ts_q[Rows-1][c], bmeta_q[c].acc,
                                                         bmeta_q[c].ints, bmeta_q[c].pbf, bmeta_q[c].sr,
                                                         xorshift32(rng_q[c]))
                                            : '0;
    end
  end
  always_comb begin
    for (int unsigned c = 0; c < Cols; c++) begin
      rng_0[c] = sr_lane_seed(32'd0, 32'(c));
      rng_d[c] = rng_q[c];
      if (cmd_fire && cmd_err == TeErrNone && cmd_i.op == TeMultiplyMoving && cmd_i.seed_ld)
        rng_d[c] = sr_lane_seed(cmd_i.seed, 32'(c));
      else if (pw_valid_o[c] && bmeta_q[c].pbf && bmeta_q[c].sr) rng_d[c] = xorshift32(rng_q[c]);
    end
  end

  psum #(.Banks(Banks), .Parts(Cols), .Depth(Depth), .Ports(PsumPorts)) u_psum (
    .clk_i, .rst_ni,
    .rd_bank_i(rd_bank), .rd_off_i(rd_off), .rd_data_o(rd_data),
    .we_i(we), .wr_bank_i(wr_bank), .wr_off_i(wr_off), .wr_data_i(wr_data),
    .pr_valid_i(pr_valid_i && pr_in), .pr_bank_i(pr_i.bank), .pr_off_i(pr_i.off[OW-1:0]), .pr_data_o
  );

  // ---- the array (next state)
  // A sparse multiply: row r (group g = r / N, index idx) takes original row o = g M + idx of the
  // column, lane o % (M / N) of partition o / (M / N) (lanes of 4 << fmt_esize bits).
  logic [31:0] sp_code [Rows];
  always_comb begin
    logic [2:0] nlog;
    logic [4:0] lw;
    nlog = pend_head.spm - 3'(pend_head.spq);
    lw = 5'd4 << fmt_esize(pend_head.fmt);
    for (int unsigned r = 0; r < Rows; r++) begin
      int unsigned o, p;
      logic [31:0] word;
      o = ((r >> nlog) << pend_head.spm) + 32'(sidx_q[pend_head.wsel][r]);
      p = o >> pend_head.spq;
      word = (p < Rows) ? mv_rsp_data_i[((p < Rows) ? p : 0)*32 +: 32] : 32'd0;
      sp_code[r] = (word >> (32'(lw) * (o % (32'd1 << pend_head.spq)))) & ((32'd1 << lw) - 32'd1);
    end
  end

  tok_t col [Rows];
  meta_t col_meta;
  always_comb begin
    for (int unsigned r = 0; r < Rows; r++) begin
      col[r] = '0;
      if (tr_col) col[r] = '{valid: 1'b1, wsel: mm_q.wsel, tr: 1'b1, code: 32'(NW'(mm_q.n - mm_q.left)), sx: 8'd0,
                             xf: 4'd0, wk: bank_q[mm_q.wsel].k, wf: bank_q[mm_q.wsel].fmt,
                             wkpe: bank_q[mm_q.wsel].kpe, wrg: bank_q[mm_q.wsel].rg, wints: bank_q[mm_q.wsel].ints,
                             wmx: bank_q[mm_q.wsel].mx};
      else if (col_in) col[r] = '{valid: 1'b1, wsel: pend_head.wsel, tr: 1'b0,
                                  code: te_operand(pend_head.spm != '0 ? sp_code[r] : mv_rsp_data_i[r*32 +: 32],
                                                   pend_head.fmt, pend_head.bias, pend_head.kpe),
                                  sx: !pend_head.mx ? 8'd127 : (pend_head.kpe == 2'd2) ? pend_head.sxv[r / BSQ]
                                                                                       : mx_sx_q[r / BS],
                                  xf: pend_head.fmt, wk: bank_q[pend_head.wsel].k, wf: bank_q[pend_head.wsel].fmt,
                                  wkpe: bank_q[pend_head.wsel].kpe, wrg: bank_q[pend_head.wsel].rg,
                                  wints: bank_q[pend_head.wsel].ints, wmx: bank_q[pend_head.wsel].mx};
    end
    col_meta = '0;
    if (tr_col) col_meta = '{wsel: mm_q.wsel, bank: mm_q.bank, off: mm_q.off, m: mm_q.m, tag: mm_q.tag, acc: 1'b0,
                             ints: 1'b0, pbf: 1'b0, sr: 1'b0, rg: 2'd0, last: mm_q.left == NW'(1)};
    else if (col_in) col_meta = pend_head.meta;
  end

  // ---- array and weights: next state
  wire ls_rsp = st_rsp_valid_i && ls_q.busy && ls_q.rsp_idx < ls_q.m;
  wire ls_rsp_meta = ls_rsp && ls_q.mrph;             // sparse: the index metadata
  wire ls_rsp_sc = ls_rsp && !ls_q.mrph && ls_q.rph;   // MX: the column's block scales
  wire ls_rsp_col = ls_rsp && !ls_q.mrph && !ls_q.rph;  // the column's elements

  // Sparse metadata (a byte in each of the load's K partitions): row r of group g = r / N keeps row
  // g M + idx of its group; idx must be below M, above the index of the row before it in its group,
  // and name a row the array reads (its partition (g M + idx) / (M / N) below R).
  logic meta_bad;
  logic [Rows-1:0][3:0] meta_idx;
  always_comb begin
    logic [2:0] spm, nlog;
    logic [1:0] spq;
    spm = bank_q[ls_q.bank].spm;
    spq = bank_q[ls_q.bank].spq;
    nlog = spm - 3'(spq);
    meta_bad = 1'b0;
    for (int unsigned r = 0; r < Rows; r++) begin
      logic [7:0] idx, prev;
      idx = st_rsp_data_i[r*32 +: 8];
      prev = (r == 0) ? 8'd0 : st_rsp_data_i[((r == 0) ? 0 : r - 1)*32 +: 8];
      meta_idx[r] = idx[3:0];
      if (32'(r) < 32'(bank_q[ls_q.bank].k) &&
          (32'(idx) >= (32'd1 << spm) || (r % (32'd1 << nlog) != 0 && idx <= prev) ||
           ((((r >> nlog) << spm) + 32'(idx)) >> spq) >= Rows))
        meta_bad = 1'b1;
    end
  end

  // a column's elements arriving: its weights decoded (raw for a transpose) and, MX, its block
  // scales from the held scale response (four rows per PE: byte rj of each block's word)
  wev_t wev_in;
  always_comb begin
    wev_in = '0;
    wev_in.valid = ls_rsp_col;
    wev_in.bank = ls_q.bank;
    wev_in.col = CW'(ls_q.rsp_idx);
    wev_in.quad = ls_quad;
    wev_in.mx = bank_q[ls_q.bank].mx;
    for (int unsigned b = 0; b < NBQ; b++) wev_in.sc[b] = ls_quad ? lsh_q[b][8 * ls_q.rj +: 8] : lsh_q[b][7:0];
    for (int unsigned r = 0; r < Rows; r++)
      wev_in.data[r] = bank_q[ls_q.bank].raw ? st_rsp_data_i[r*32 +: 32]
                                             : te_operand(st_rsp_data_i[r*32 +: 32], bank_q[ls_q.bank].fmt,
                                                          bank_q[ls_q.bank].bias, bank_q[ls_q.bank].kpe);
  end

  // The PEs read registers only: kept apart from the logic that reads the module's inputs, this
  // block is evaluated once per clock edge, not at every change of an input (in Verilator, a
  // process that reads an input is evaluated whenever an input changes).
  always_comb begin
    // PEs: two sums flow down (row 0 starts both at -0, integers at 0): P, the current block's
    // partial sum, and T, the sum of the finished blocks, each scaled by its weight and moving E8M0
    // scales (1.0 for non-MX operands) at the block's last row: T += (P * Sw) * Sx, then P
    // restarts (integers: T += P). Row groups: a group's first row starts both again, and its last
    // row ends a block too (its T is the group's result, written through the group's tap).
    for (int unsigned r = 0; r < Rows; r++)
      for (int unsigned c = 0; c < Cols; c++) begin
        logic [31:0] in_p, in_t, pv, tv, zero;
        logic [KW-1:0] bk_k;
        logic [1:0] bk_kpe, bk_rg;
        logic bk_ints, blk_end, grp_top, grp_end;
        int unsigned lr;  // the row in its group
        logic [3:0] en;
        logic [7:0] sw;
        bk_k = x_q[r][c].wk;
        bk_kpe = x_q[r][c].wkpe;
        bk_ints = x_q[r][c].wints;
        bk_rg = x_q[r][c].wrg;
        lr = (bk_rg == 2'd2) ? r % GR2 : (bk_rg == 2'd1) ? r % GR1 : r;
        grp_top = bk_rg != '0 && lr == 0;
        grp_end = (bk_rg == 2'd2 && lr == GR2 - 1) || (bk_rg == 2'd1 && lr == GR1 - 1);
        // this PE's K rows (lr << kpe) + j of its group below K; the block (32 rows: BS partitions,
        // four rows per PE BSQ) ends at this row, as does a group
        for (int unsigned j = 0; j < 4; j++) en[j] = j < (32'd1 << bk_kpe) && 32'(bk_k) > (lr << bk_kpe) + j;
        blk_end = ((bk_kpe == 2'd2) ? (r % BSQ == BSQ - 1) : (r % BS == BS - 1)) || grp_end;
        sw = x_q[r][c].wmx ? ws_q[x_q[r][c].wsel][r / BSQ][c] : 8'd127;
        zero = bk_ints ? 32'd0 : NegZero;
        in_p = (r == 0 || grp_top) ? zero : ps_q[(r == 0) ? 0 : r - 1][c];
        in_t = (r == 0 || grp_top) ? zero : ts_q[(r == 0) ? 0 : r - 1][c];
        psv_d[r][c] = x_q[r][c].valid;
        pv = 32'd0;
        tv = 32'd0;
        if (x_q[r][c].valid) begin
          if (x_q[r][c].tr) begin  // transpose: the column takes row `code`'s weight, bits unchanged
            pv = in_p;
            tv = (x_q[r][c].code == r) ? w_q[x_q[r][c].wsel][r][c] : in_t;
          end else begin
            pv = te_pe(in_p, en, bk_kpe, bk_ints, x_q[r][c].wf, x_q[r][c].xf,
                       w_q[x_q[r][c].wsel][r][c], x_q[r][c].code);
            tv = in_t;
            if (blk_end && bk_ints) begin
              tv = in_t + pv;
              pv = 32'd0;
            end else if (blk_end) begin
              tv = fp32_add_f(in_t, fp32_mul_f(fp32_mul_f(pv, decode(fmt_desc(FmtE8m0), 8'd127, {24'd0, sw})),
                                               decode(fmt_desc(FmtE8m0), 8'd127, {24'd0, x_q[r][c].sx})));
              pv = NegZero;
            end
          end
        end
        ps_d[r][c] = pv;
        ts_d[r][c] = tv;
      end
    for (int unsigned c = 0; c < Cols; c++) bmeta_d[c] = xm_q[c];
    for (int unsigned q = 1; q <= 3; q++) bmt_d[q] = xmt_q[q];
  end

  always_comb begin
    // moving values: right by one; column 0 from the skew (row r delayed r cycles)
    // (whole-row shifts: one wide copy per row, where a loop over elements inserts each one)
    for (int unsigned r = 0; r < Rows; r++) begin
      x_d[r] = tok_row_t'({x_q[r][Cols-2:0], (r == 0) ? col[r] : sk_q[r][(r == 0) ? 0 : r - 1]});
      sk_d[r] = tok_skew_t'({sk_q[r][Rows-2:0], col[r]});
    end
    xm_d = meta_row_t'({xm_q[Cols-2:0], skm_q[Rows-2]});
    skm_d = meta_skew_t'({skm_q[Rows-2:0], col_meta});
    // the taps' meta: tap row tr's tokens entered column 0 tr + 1 cycles after their column
    for (int unsigned q = 1; q <= 3; q++)
      xmt_d[q] = meta_row_t'({xmt_q[q][Cols-2:0], (tap_row(q) == 0) ? col_meta : skm_q[(tap_row(q) == 0) ? 0 : tap_row(q) - 1]});
    // weights: row r of a loaded column is written r cycles after its response, as the moving
    // values' skew delays row r: a column still in the array passes each row with the weights it
    // entered with, and the next multiply's first column reaches each row after its weight. An MX
    // column's block scale is written with its block's last row, the one row that reads it, into
    // the slot of that row (r / BSQ: one slot per 8 rows, whatever the block size), so a load of
    // one block size never rewrites a scale the other's rows below still read.
    w_d = w_q;
    ws_d = ws_q;
    for (int unsigned r = 0; r < Rows; r++) begin
      wev_t e;
      e = (r == 0) ? wev_in : wev_q[(r == 0) ? 0 : r - 1];
      if (e.valid) begin
        w_d[e.bank][r][e.col] = e.data[r];
        if (e.mx && e.quad && r % BSQ == BSQ - 1) ws_d[e.bank][r / BSQ][e.col] = e.sc[r / BSQ];
        if (e.mx && !e.quad && r % BS == BS - 1) ws_d[e.bank][r / BSQ][e.col] = e.sc[r / BS];
      end
    end
    for (int unsigned s = 0; s + 1 < Rows; s++) wev_d[s] = (s == 0) ? wev_in : wev_q[(s == 0) ? 0 : s - 1];
  end

  // Reset values of the row arrays (Verilator 5.006 takes neither '{default: ...} for them nor
  // non-blocking writes to array elements inside large loops).
  /* verilator tracing_off */
  tok_t  [Rows-1:0]       sk_0 [Rows];
  tok_t  [Cols-1:0]       x_0 [Rows];
  logic  [Cols-1:0][31:0] ps_0 [Rows];
  logic  [Cols-1:0]       psv_0 [Rows];
  logic  [Cols-1:0][31:0] w_0 [2][Rows];
  logic  [Cols-1:0][7:0]  ws_0 [2][NBQ];
  wev_t                   wev_0 [Rows-1];
  /* verilator tracing_on */
  always_comb begin
    for (int unsigned r = 0; r < Rows; r++) begin
      sk_0[r] = '0;
      x_0[r] = '0;
      ps_0[r] = '0;
      psv_0[r] = '0;
      w_0[0][r] = '0;
      w_0[1][r] = '0;
    end
    for (int unsigned b = 0; b < NBQ; b++) begin
      ws_0[0][b] = '0;
      ws_0[1][b] = '0;
    end
    for (int unsigned s = 0; s + 1 < Rows; s++) wev_0[s] = '0;
  end

  // ---- control: next state (the loader, the issuer, the weight banks' records, completions)
  always_comb begin
    ls_d = ls_q;
    mm_d = mm_q;
    bank_d = bank_q;
    cur_bank_d = cur_bank_q;
    next_ls_bank_d = next_ls_bank_q;
    mx_sx_d = mx_sx_q;
    sx_d = sx_q;
    cpl_d = '0;
    arr_rg_d = arr_rg_q;

    // bottom of the array: the MultiplyMoving finishing, a column leaving the array
    cpl_d.mm_done = psv_q[Rows-1][Cols-1] && bmeta_q[Cols-1].last;
    cpl_d.mm_tag = cpl_d.mm_done ? bmeta_q[Cols-1].tag : 4'd0;
    inflight_d = inflight_q - 16'(psv_q[Rows-1][Cols-1]) + 16'(mv_fire_col || tr_col);
    for (int unsigned b = 0; b < 2; b++)
      pnd_d[b] = pnd_q[b] + $bits(pnd_q[b])'(mv_fire && mm_q.wsel == 1'(b))
                          - $bits(pnd_q[b])'(mv_rsp_valid_i && pend_valid && pend_head.wsel == 1'(b));

    // stationary loader
    sidx_d = sidx_q;
    if (st_fire && ls_q.mph) begin  // sparse: the metadata read, the columns' once it is checked
      ls_d.mph = 1'b0;
    end else if (st_fire && ls_q.iph) begin  // MX: a column's scale read, its element read next
      ls_d.sc = ls_q.sc + 24'd1;
      ls_d.iph = 1'b0;
    end else if (st_fire) begin
      ls_d.idx = ls_q.idx + 24'd1;
      ls_d.req_left = ls_q.req_left - MW'(1);
      ls_d.iph = bank_q[ls_q.bank].mx && (!ls_quad || ls_q.cj == 2'd3);
      ls_d.cj = ls_q.cj + 2'd1;
    end
    if (ls_rsp_meta && meta_bad) begin  // dropped: its bank stays unloaded (the next load fills it), the
      ls_d.busy = 1'b0;                 // weights in use stay
      next_ls_bank_d = ls_q.bank;
      ls_d.mrph = 1'b0;
      cpl_d.err = 1'b1;
      cpl_d.err_tag = ls_q.tag;
      cpl_d.code = TeErrMeta;
    end else if (ls_rsp_meta) begin
      ls_d.mrph = 1'b0;
      sidx_d[ls_q.bank] = meta_idx;
    end
    // MX: the scales, held for the column's elements, from each block's first partition: four rows
    // per PE a word of the scales of columns rsp_idx .. rsp_idx + 3, else the column's byte
    lsh_d = lsh_q;
    if (ls_rsp_sc) begin
      ls_d.rph = 1'b0;
      for (int unsigned b = 0; b < NBQ; b++)
        if (ls_quad) lsh_d[b] = st_rsp_data_i[b * BSQ * 32 +: 32];
        else if (b < NB) lsh_d[b] = {24'd0, st_rsp_data_i[((b < NB) ? b : 0) * BS * 32 +: 8]};
    end
    if (ls_rsp_col) begin
      ls_d.rph = bank_q[ls_q.bank].mx && (!ls_quad || ls_q.rj == 2'd3);
      ls_d.rj = ls_q.rj + 2'd1;
      ls_d.rsp_idx = ls_q.rsp_idx + MW'(1);
      if (ls_q.rsp_idx + MW'(1) == ls_q.m) begin
        ls_d.busy = 1'b0;
        cur_bank_d = ls_q.bank;
        bank_d[ls_q.bank].loaded = 1'b1;
        cpl_d.ls_done = 1'b1;
        cpl_d.ls_tag = ls_q.tag;
      end
    end

    // moving-read issuer (a transpose generates its columns instead)
    if (tr_col || mv_fire_col) begin
      mm_d.off = mm_q.off + OW'(1);
      mm_d.left = mm_q.left - NW'(1);
      if (mm_q.left == NW'(1)) mm_d.busy = 1'b0;
    end
    if (sx_in)
      for (int unsigned b = 0; b < NB; b++) mx_sx_d[b] = mv_rsp_data_i[b * BS * 32 +: 8];
    if (mv_fire && mm_q.iph) begin  // MX: a column's scale read, its element read next
      mm_d.sc = mm_q.sc + 24'd1;
      mm_d.iph = 1'b0;
    end
    if (mv_fire_col) begin
      mm_d.idx = mm_q.idx + 24'd1;
      mm_d.iph = mm_q.mx && mm_q.kpe != 2'd2;
      mm_d.sj = mm_q.sj + 2'd1;
    end
    // the scale-word reader
    if (sx_fire) begin
      sx_d.idx = sx_q.idx + 24'd1;
      sx_d.left = sx_q.left - NW'(1);
    end
    sx_d.out = sx_q.out + SxW'(sx_fire) - SxW'(sx_rsp_valid_i);
    if (mv_fire_col && mm_q.fmt == FmtFp32) mm_d.gap = 2'd3;  // FP32: a column every fourth cycle
    else if (mm_q.gap != '0) mm_d.gap = mm_q.gap - 2'd1;

    // dispatch
    if (cmd_fire) begin
      if (cmd_err != TeErrNone) begin
        cpl_d.err = 1'b1;
        cpl_d.err_tag = cmd_i.tag;
        cpl_d.code = cmd_err;
      end else if (cmd_i.op == TeLoadStationary) begin
        ls_d = '{busy: 1'b1, idx: 24'(base_idx(cmd_i.addr, cmd_es)),
                 sc: (cmd_i.kpe == 2'd2) ? 24'(base_idx(cmd_i.sc_addr, 2'(sbuf_pkg::ESize4))) : cmd_i.sc_addr,
                 iph: cmd_i.mx, rph: cmd_i.mx, es: cmd_es, req_left: MW'(cmd_i.m), rsp_idx: '0, m: MW'(cmd_i.m),
                 tag: cmd_i.tag, bank: next_ls_bank_q, cj: 2'd0, rj: 2'd0, mph: cmd_sp, mrph: cmd_sp};
        bank_d[next_ls_bank_q] = '{k: KW'(cmd_i.k), m: MW'(cmd_i.m), fmt: cmd_i.fmt, bias: op_bias, loaded: 1'b0,
                                   raw: cmd_i.tr, mx: cmd_i.mx, kpe: cmd_i.kpe, ints: cmd_int, spm: cmd_i.spm,
                                   spq: cmd_i.spq, rg: cmd_i.rg};
        next_ls_bank_d = !next_ls_bank_q;
      end else begin
        mm_d = '{busy: 1'b1, wsel: cur_bank_q, acc: cmd_i.acc && !cmd_i.tr, tr: cmd_i.tr, mx: cmd_i.mx,
                 kpe: cmd_i.kpe, ints: cmd_int, pbf: cmd_i.pbf, sr: cmd_i.sr, spm: cmd_i.spm, spq: cmd_i.spq,
                 rg: cmd_i.rg, gap: mm_d.gap,  // the FP32 spacing carries over
                 sj: 2'd0, iph: cmd_i.mx && !cmd_i.tr && cmd_i.kpe != 2'd2, n: NW'(cmd_i.n), left: NW'(cmd_i.n),
                 idx: 24'(base_idx(cmd_i.addr, cmd_es)), sc: cmd_i.sc_addr, es: cmd_es,
                 off: OW'(cmd_i.off), bank: cmd_i.bank, tag: cmd_i.tag, fmt: cmd_i.fmt, bias: op_bias,
                 m: bank_q[cur_bank_q].m};
        arr_rg_d = cmd_i.rg;
        // four rows per PE: its scale words, four columns each (the previous multiply's were all read
        // and taken before its last column issued)
        if (cmd_i.kpe == 2'd2)
          sx_d = '{idx: 24'(base_idx(cmd_i.sc_addr, 2'(sbuf_pkg::ESize4))),
                   left: NW'((32'(cmd_i.n) + 32'd3) / 32'd4), out: sx_d.out};
      end
    end
  end

  // ---- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_q <= w_0;
      ws_q <= ws_0;
      sk_q <= sk_0;
      skm_q <= '0;
      x_q <= x_0;
      xm_q <= '0;
      ps_q <= ps_0;
      ts_q <= ps_0;  // the same zero rows as ps_q
      psv_q <= psv_0;
      bmeta_q <= '0;
      xmt_q[1] <= '0;
      xmt_q[2] <= '0;
      xmt_q[3] <= '0;
      bmt_q[1] <= '0;
      bmt_q[2] <= '0;
      bmt_q[3] <= '0;
      arr_rg_q <= '0;
      bank_q[0] <= '0;
      bank_q[1] <= '0;
      sidx_q[0] <= '0;
      sidx_q[1] <= '0;
      cur_bank_q <= 1'b0;
      next_ls_bank_q <= 1'b0;
      inflight_q <= '0;
      pnd_q[0] <= '0;
      pnd_q[1] <= '0;
      lsh_q <= '0;
      wev_q <= wev_0;
      ls_q <= '0;
      mm_q <= '0;
      sx_q <= '0;
      mx_sx_q <= '0;
      cpl_q <= '0;
      rng_q <= rng_0;
    end else begin
      w_q <= w_d;
      ws_q <= ws_d;
      sk_q <= sk_d;
      skm_q <= skm_d;
      x_q <= x_d;
      xm_q <= xm_d;
      ps_q <= ps_d;
      ts_q <= ts_d;
      psv_q <= psv_d;
      bmeta_q <= bmeta_d;
      xmt_q <= xmt_d;
      bmt_q <= bmt_d;
      arr_rg_q <= arr_rg_d;
      bank_q <= bank_d;
      sidx_q <= sidx_d;
      cur_bank_q <= cur_bank_d;
      next_ls_bank_q <= next_ls_bank_d;
      inflight_q <= inflight_d;
      pnd_q <= pnd_d;
      lsh_q <= lsh_d;
      wev_q <= wev_d;
      ls_q <= ls_d;
      mm_q <= mm_d;
      sx_q <= sx_d;
      mx_sx_q <= mx_sx_d;
      cpl_q <= cpl_d;
      rng_q <= rng_d;
    end
  end

  assign cpl_o = cpl_q;
endmodule
