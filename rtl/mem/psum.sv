// psum — PSUM storage (SPEC 5.2): Banks x Parts x Depth FP32 words. Each partition has Ports
// combinational read ports and Ports write ports (written at the edge), so a read-add-write issued
// every cycle sees the previous cycle's write: back-to-back accumulation to one address is exact
// at full rate. The tensor engine's row groups write through ports of their own, always to
// different banks in one cycle (docs/tensor.md); were two ports to write one entry, the higher
// port's write would stand. A registered read port (pr_*) reads all partitions at one bank/offset
// for tests and the engines that drain PSUM. Reset clears every entry.
//   Port k of partition p: rd_bank_i[(k * Parts + p) * BW +: BW], the same layout for every port field.
module psum #(
  parameter int unsigned Banks = 8,
  parameter int unsigned Parts = 4,
  parameter int unsigned Depth = 16,
  parameter int unsigned Ports = 1,
  localparam int unsigned BW = 4,
  localparam int unsigned OW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned AW = (Banks * Depth > 1) ? $clog2(Banks * Depth) : 1
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic [Ports*Parts*BW-1:0] rd_bank_i,
  input  logic [Ports*Parts*OW-1:0] rd_off_i,
  output logic [Ports*Parts*32-1:0] rd_data_o,
  input  logic [Ports*Parts-1:0]    we_i,
  input  logic [Ports*Parts*BW-1:0] wr_bank_i,
  input  logic [Ports*Parts*OW-1:0] wr_off_i,
  input  logic [Ports*Parts*32-1:0] wr_data_i,
  input  logic                      pr_valid_i,
  input  logic [BW-1:0]             pr_bank_i,
  input  logic [OW-1:0]             pr_off_i,
  output logic [Parts*32-1:0]       pr_data_o
);
  logic [31:0] mem_q [Parts][Banks*Depth];
  // Reset clears PSUM through one valid bit per entry (a packed vector, reset in one step); an
  // entry not written since reset reads 0. The words themselves are never reset.
  logic [Banks*Depth-1:0] vld_q [Parts];
  logic [Parts*32-1:0] pr_q;

  function automatic logic [AW-1:0] at(logic [BW-1:0] bank, logic [OW-1:0] off);
    return AW'((int'(bank) * Depth + int'(off)) % (Banks * Depth));
  endfunction

  always_comb begin
    for (int unsigned k = 0; k < Ports; k++)
      for (int unsigned p = 0; p < Parts; p++) begin
        logic [AW-1:0] a;
        a = at(rd_bank_i[(k * Parts + p)*BW +: BW], rd_off_i[(k * Parts + p)*OW +: OW]);
        rd_data_o[(k * Parts + p)*32 +: 32] = vld_q[p][a] ? mem_q[p][a] : 32'd0;
      end
  end

  for (genvar p = 0; p < Parts; p++) begin : g_part
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        vld_q[p] <= '0;
      end else begin
        for (int unsigned k = 0; k < Ports; k++)
          if (we_i[k * Parts + p]) begin
            mem_q[p][at(wr_bank_i[(k * Parts + p)*BW +: BW], wr_off_i[(k * Parts + p)*OW +: OW])] <=
                wr_data_i[(k * Parts + p)*32 +: 32];
            vld_q[p][at(wr_bank_i[(k * Parts + p)*BW +: BW], wr_off_i[(k * Parts + p)*OW +: OW])] <= 1'b1;
          end
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
