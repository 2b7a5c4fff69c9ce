// sem_tap — the DMA write channel of a unit (a NeuronCore or a collective core) on its way out to
// the chip (SPEC 5.7, docs/chip.md). Combinational.
//   - A semaphore write (in_info_i.sem) whose chip and unit fields are both 0 is the unit's own: it
//     is taken at once and becomes the addition of its data's low 32 bits to semaphore
//     (address / 4) mod 32 (sem_*); one whose address has bit 12 set (dma_pkg::is_reg_addr's
//     form: a register load, docs/isa.md) is the write of those bits to register address[5:2] of
//     stream address[15:13] instead (sem_reg_o, sem_stream_o).
//   - Every other write passes to out_*, a semaphore write with its unit field 0 replaced by
//     Unit + 1, so that the chip routes every semaphore write by an explicit unit.
module sem_tap
  import dma_pkg::wr_req_t;
  import dma_pkg::wr_info_t;
  import dma_pkg::UnitLsb;
  import dma_pkg::UnitBits;
  import dma_pkg::ChipLsb;
  import dma_pkg::RegBit;
  import dma_pkg::RegStreamLsb;
#(
  parameter int unsigned Unit      = 0,   /// this unit's index on its chip
  parameter int unsigned BeatBytes = 16,
  localparam int unsigned DW = 8 * BeatBytes
) (
  input  logic          in_valid_i,
  output logic          in_ready_o,
  input  wr_req_t       in_i,
  input  logic [DW-1:0] in_data_i,
  input  wr_info_t      in_info_i,
  output logic          out_valid_o,
  input  logic          out_ready_i,
  output wr_req_t       out_o,
  output logic [DW-1:0] out_data_o,
  output wr_info_t      out_info_o,
  output logic          sem_valid_o,
  output logic [4:0]    sem_idx_o,
  output logic [31:0]   sem_val_o,
  output logic          sem_reg_o,     /// the own write is a register's: register sem_idx_o[3:0] ...
  output logic [2:0]    sem_stream_o   /// ... of this stream
);
  logic own;
  assign own = in_info_i.sem && in_i.addr[31:ChipLsb] == '0 && in_i.addr[UnitLsb +: UnitBits] == '0;
  assign sem_valid_o = in_valid_i && own;
  assign sem_idx_o = in_i.addr[6:2];
  assign sem_val_o = in_data_i[31:0];
  assign sem_reg_o = in_i.addr[RegBit];
  assign sem_stream_o = in_i.addr[RegStreamLsb +: 3];
  assign in_ready_o = own ? 1'b1 : out_ready_i;
  assign out_valid_o = in_valid_i && !own;
  always_comb begin
    out_o = in_i;
    if (in_info_i.sem && in_i.addr[UnitLsb +: UnitBits] == '0) out_o.addr[UnitLsb +: UnitBits] = UnitBits'(Unit + 1);
  end
  assign out_data_o = in_data_i;
  assign out_info_o = in_info_i;
endmodule
