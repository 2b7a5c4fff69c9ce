// chip_xbar — the chip's memory and write fabric (SPEC 5.7, docs/chip.md): the units' HBM ports
// (the cores', then the collective cores'), the NIC and the semaphores, joined on the chip's one HBM
// port. Combinational: every path is a rr_arbiter or a multiplexer.
//
// Reads: the units' requests round-robin onto hbm_ar_* (u_rd_arb), the address's chip field
// cleared (a unit reads only its own chip: the DMA refuses a remote source) and the unit's index
// on hbm_ar_src_o. The memory returns {source, id} on hbm_r_id_i; the response goes to that unit,
// and hbm_r_ready_o is that unit's ready (0 for a source past the units).
// Writes: each write has one target, by its address and kind:
//   a data write to this chip (chip field 0, or this chip's id + 1)  -> HBM      (u_wr_arb)
//   a write of either kind to another chip                           -> the NIC  (u_tx_arb)
//   a semaphore write to this chip                                   -> the semaphores (u_sem_arb)
// The NIC's received writes join the HBM arbiter and its semaphore additions the semaphore
// arbiter as the last source. A write to HBM leaves with the chip field cleared and its source on
// hbm_wr_src_o (Units: the NIC). A semaphore addition goes to unit (unit field - 1) on sem_valid_o,
// its index and value on sem_idx_o, sem_val_o; one with a unit field of 0 (a unit fills its own in)
// or past the units is dropped and counted on bad_sem_o. A source is ready when its target's
// arbiter takes it; the semaphores always do.
module chip_xbar
  import dma_pkg::*;
#(
  parameter int unsigned Units     = 3,   /// the units with an HBM port: cores, then collective cores
  parameter int unsigned IdW       = 7,   /// a unit's read id bits
  parameter int unsigned BeatBytes = 16,
  localparam int unsigned DW = 8 * BeatBytes,
  localparam int unsigned RW = Units > 1 ? $clog2(Units) : 1,  // a read's source
  localparam int unsigned SW = $clog2(Units + 1)               // a write's source (Units: the NIC)
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic [7:0]                  id_i,
  // the units' HBM ports
  input  logic [Units-1:0]            u_ar_valid_i,
  output logic [Units-1:0]            u_ar_ready_o,
  input  rd_req_t [Units-1:0]         u_ar_i,
  output logic [Units-1:0]            u_r_valid_o,
  input  logic [Units-1:0]            u_r_ready_i,
  output logic [IdW-1:0]              u_r_id_o,
  output logic [DW-1:0]               u_r_data_o,
  input  logic [Units-1:0]            u_wr_valid_i,
  output logic [Units-1:0]            u_wr_ready_o,
  input  wr_req_t [Units-1:0]         u_wr_i,
  input  logic [Units-1:0][DW-1:0]    u_wr_data_i,
  input  wr_info_t [Units-1:0]        u_wr_info_i,
  // the NIC: writes and semaphore additions from other chips, writes to other chips
  input  logic                        rx_valid_i,
  output logic                        rx_ready_o,
  input  wr_req_t                     rx_i,
  input  logic                        rx_sem_i,
  input  logic [DW-1:0]               rx_data_i,
  output logic                        tx_valid_o,
  input  logic                        tx_ready_i,
  output wr_req_t                     tx_o,
  output logic                        tx_sem_o,
  output logic [DW-1:0]               tx_data_o,
  // semaphore additions to the units
  output logic [Units-1:0]            sem_valid_o,
  output logic [4:0]                  sem_idx_o,
  output logic [31:0]                 sem_val_o,
  // the HBM port
  output logic                        hbm_ar_valid_o,
  input  logic                        hbm_ar_ready_i,
  output rd_req_t                     hbm_ar_o,
  output logic [RW-1:0]               hbm_ar_src_o,
  input  logic                        hbm_r_valid_i,
  output logic                        hbm_r_ready_o,
  input  logic [RW+IdW-1:0]           hbm_r_id_i,     /// {source, id}
  input  logic [DW-1:0]               hbm_r_data_i,
  output logic                        hbm_wr_valid_o,
  input  logic                        hbm_wr_ready_i,
  output wr_req_t                     hbm_wr_o,
  output logic [DW-1:0]               hbm_wr_data_o,
  output wr_info_t                    hbm_wr_info_o,
  output logic [SW-1:0]               hbm_wr_src_o,   /// the unit, or Units: the NIC
  output logic [15:0]                 bad_sem_o
);
  localparam int unsigned NW = Units + 1;  // write sources: the units, then the NIC
  localparam int unsigned LocalMask = (1 << LocalBits) - 1;

  // ---- reads
  rd_req_t                               rd_gnt;
  logic [RW-1:0]                         rd_src;
  logic [Units-1:0][$bits(rd_req_t)-1:0] ar;  // the arbiter's request words
  always_comb begin
    for (int unsigned u = 0; u < Units; u++) ar[u] = u_ar_i[u];
  end
  rr_arbiter #(.N(Units), .Width($bits(rd_req_t))) u_rd_arb (
    .clk_i, .rst_ni, .req_valid_i(u_ar_valid_i), .req_ready_o(u_ar_ready_o), .req_data_i(ar),
    .gnt_valid_o(hbm_ar_valid_o), .gnt_ready_i(hbm_ar_ready_i), .gnt_data_o(rd_gnt), .gnt_idx_o(rd_src));
  always_comb begin
    hbm_ar_o = rd_gnt;
    hbm_ar_o.addr = rd_gnt.addr & AddrBits'(LocalMask);
  end
  assign hbm_ar_src_o = rd_src;
  // a source past the units (never one the memory was given) goes nowhere and is not taken
  logic [RW-1:0] r_src;
  assign r_src = hbm_r_id_i[IdW +: RW];
  always_comb begin
    u_r_valid_o = '0;
    for (int unsigned u = 0; u < Units; u++) u_r_valid_o[u] = hbm_r_valid_i && 32'(r_src) == u;
    hbm_r_ready_o = 1'b0;
    for (int unsigned u = 0; u < Units; u++) if (32'(r_src) == u) hbm_r_ready_o = u_r_ready_i[u];
  end
  assign u_r_id_o = hbm_r_id_i[IdW-1:0];
  assign u_r_data_o = hbm_r_data_i;

  // ---- writes: every source's target
  typedef struct packed {
    wr_req_t       wr;
    logic [DW-1:0] data;
    wr_info_t      info;
  } hw_t;  // a write to HBM
  typedef struct packed {
    wr_req_t       wr;
    logic          sem;
    logic [DW-1:0] data;
  } tw_t;  // a write to the NIC
  typedef struct packed {
    logic [UnitBits-1:0] unit;
    logic [4:0]          idx;
    logic [31:0]         val;
  } sa_t;  // a semaphore addition

  logic [NW-1:0]       to_hbm, to_sem, hbm_ready, sem_ready;
  logic [Units-1:0]    to_nic, nic_ready;
  // the arbiters' request words
  logic [NW-1:0][$bits(hw_t)-1:0]    hw;
  logic [NW-1:0][$bits(sa_t)-1:0]    sa;
  logic [Units-1:0][$bits(tw_t)-1:0] tw;
  always_comb begin
    for (int unsigned u = 0; u < Units; u++) begin
      to_nic[u] = u_wr_valid_i[u] && !is_local(u_wr_i[u].addr, id_i);
      to_sem[u] = u_wr_valid_i[u] && is_local(u_wr_i[u].addr, id_i) && u_wr_info_i[u].sem;
      to_hbm[u] = u_wr_valid_i[u] && is_local(u_wr_i[u].addr, id_i) && !u_wr_info_i[u].sem;
      hw[u] = hw_t'{wr: u_wr_i[u], data: u_wr_data_i[u], info: u_wr_info_i[u]};
      tw[u] = tw_t'{wr: u_wr_i[u], sem: u_wr_info_i[u].sem, data: u_wr_data_i[u]};
      sa[u] = sa_t'{unit: unit_of(u_wr_i[u].addr), idx: u_wr_i[u].addr[6:2], val: u_wr_data_i[u][31:0]};
    end
    to_hbm[Units] = rx_valid_i && !rx_sem_i;
    to_sem[Units] = rx_valid_i && rx_sem_i;
    hw[Units] = hw_t'{wr: rx_i, data: rx_data_i, info: '0};
    sa[Units] = sa_t'{unit: unit_of(rx_i.addr), idx: rx_i.addr[6:2], val: rx_data_i[31:0]};
  end
  // the readies, apart from the requests (the arbiters' readies depend on the requests)
  always_comb begin
    for (int unsigned u = 0; u < Units; u++)
      u_wr_ready_o[u] = !is_local(u_wr_i[u].addr, id_i) ? nic_ready[u]
                        : u_wr_info_i[u].sem ? sem_ready[u] : hbm_ready[u];
    rx_ready_o = rx_sem_i ? sem_ready[Units] : hbm_ready[Units];
  end

  // ---- HBM writes
  hw_t           hw_gnt;
  rr_arbiter #(.N(NW), .Width($bits(hw_t))) u_wr_arb (
    .clk_i, .rst_ni, .req_valid_i(to_hbm), .req_ready_o(hbm_ready), .req_data_i(hw),
    .gnt_valid_o(hbm_wr_valid_o), .gnt_ready_i(hbm_wr_ready_i), .gnt_data_o(hw_gnt), .gnt_idx_o(hbm_wr_src_o));
  always_comb begin
    hbm_wr_o = hw_gnt.wr;
    hbm_wr_o.addr = hw_gnt.wr.addr & AddrBits'(LocalMask);
  end
  assign hbm_wr_data_o = hw_gnt.data;
  assign hbm_wr_info_o = hw_gnt.info;

  // ---- writes to other chips
  tw_t           tw_gnt;
  logic [RW-1:0] tw_src_unused;
  rr_arbiter #(.N(Units), .Width($bits(tw_t))) u_tx_arb (
    .clk_i, .rst_ni, .req_valid_i(to_nic), .req_ready_o(nic_ready), .req_data_i(tw),
    .gnt_valid_o(tx_valid_o), .gnt_ready_i(tx_ready_i), .gnt_data_o(tw_gnt), .gnt_idx_o(tw_src_unused));
  assign tx_o = tw_gnt.wr;
  assign tx_sem_o = tw_gnt.sem;
  assign tx_data_o = tw_gnt.data;

  // ---- semaphore additions
  logic          sa_valid;
  sa_t           sa_gnt;
  logic [SW-1:0] sa_src_unused;
  logic [15:0]   bad_q, bad_d;
  logic          sa_good;
  rr_arbiter #(.N(NW), .Width($bits(sa_t))) u_sem_arb (
    .clk_i, .rst_ni, .req_valid_i(to_sem), .req_ready_o(sem_ready), .req_data_i(sa),
    .gnt_valid_o(sa_valid), .gnt_ready_i(1'b1), .gnt_data_o(sa_gnt), .gnt_idx_o(sa_src_unused));
  always_comb begin
    sa_good = sa_gnt.unit != '0 && 32'(sa_gnt.unit) <= Units;
    for (int unsigned u = 0; u < Units; u++) sem_valid_o[u] = sa_valid && sa_good && 32'(sa_gnt.unit) == u + 1;
    bad_d = bad_q + 16'(sa_valid && !sa_good);
  end
  assign sem_idx_o = sa_gnt.idx;
  assign sem_val_o = sa_gnt.val;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) bad_q <= '0;
    else bad_q <= bad_d;
  end
  assign bad_sem_o = bad_q;
endmodule
