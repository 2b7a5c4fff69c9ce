// psum — PSUM storage (SPEC 5.2): Banks x Parts x Depth FP32 words. Each partition has one
// combinational read port and one write port (written at the edge), so a read-add-write issued
// every cycle sees the previous cycle's write: back-to-back accumulation to one address is exact
// at full rate. A registered read port (pr_*) reads all partitions at one bank/offset for tests
// and the engines that drain PSUM. Reset clears every entry.
module psum #(
  parameter int unsigned Banks = 8,
  parameter int unsigned Parts = 4,
  parameter int unsigned Depth = 16,
  localparam int unsigned BW = 4,
  localparam int unsigned OW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [Parts*BW-1:0]   rd_bank_i,
  input  logic [Parts*OW-1:0]   rd_off_i,
  output logic [Parts*32-1:0]   rd_data_o,
  input  logic [Parts-1:0]      we_i,
  input  logic [Parts*BW-1:0]   wr_bank_i,
  input  logic [Parts*OW-1:0]   wr_off_i,
  input  logic [Parts*32-1:0]   wr_data_i,
  input  logic                  pr_valid_i,
  input  logic [BW-1:0]         pr_bank_i,
  input  logic [OW-1:0]         pr_off_i,
  output logic [Parts*32-1:0]   pr_data_o
);
  logic [31:0] mem_q [Parts][Banks*Depth];
  // Reset clears PSUM through one valid bit per entry (a packed vector, reset in one step); an
  // entry not written since reset reads 0. The words themselves are never reset.
  logic [Banks*Depth-1:0] vld_q [Parts];
  logic [Parts*32-1:0] pr_q;

  function automatic int unsigned at(logic [BW-1:0] bank, logic [OW-1:0] off);
    return int'(bank) * Depth + int'(off);
  endfunction

  always_comb begin
    for (int unsigned p = 0; p < Parts; p++)
      rd_data_o[p*32 +: 32] = vld_q[p][at(rd_bank_i[p*BW +: BW], rd_off_i[p*OW +: OW]) % (Banks*Depth)]
                              ? mem_q[p][at(rd_bank_i[p*BW +: BW], rd_off_i[p*OW +: OW]) % (Banks*Depth)] : 32'd0;
  end


  for (genvar p = 0; p < Parts; p++) begin : g_part
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        vld_q[p] <= '0;
      end else if (we_i[p]) begin
        mem_q[p][at(wr_bank_i[p*BW +: BW], wr_off_i[p*OW +: OW]) % (Banks*Depth)] <= wr_data_i[p*32 +: 32];
        vld_q[p][at(wr_bank_i[p*BW +: BW], wr_off_i[p*OW +: OW]) % (Banks*Depth)] <= 1'b1;
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) pr_q[p*32 +: 32] <= '0;
      else pr_q[p*32 +: 32] <= (pr_valid_i && int'(pr_bank_i) < Banks && int'(pr_off_i) < Depth)
                               && vld_q[p][at(pr_bank_i, pr_off_i)] ? mem_q[p][at(pr_bank_i, pr_off_i)] : 32'd0;
    end
  end

  assign pr_data_o = pr_q;
endmodule
