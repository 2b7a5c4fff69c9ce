// gpsimd_pkg — the GpSimd processors' shared definitions (SPEC 5.8, docs/gpsimd.md).
package gpsimd_pkg;
  // Why a processor stopped (err_code_o); the pc it reports is given with each. Three bits: the
  // NeuronCore's control reports it as the detail of its error gpsimd (rtl/core/core_ctl.sv).
  typedef enum logic [2:0] {
    GpErrNone = 3'd0,
    GpErrIllegal = 3'd1,     // not an RV32IM or GpSimd custom instruction (pc: the instruction)
    GpErrFetch = 3'd2,       // an instruction fetched from outside local memory, or a start address
                             // not a multiple of 4 (pc: the address)
    GpErrMisaligned = 3'd3,  // a jump or taken branch to an address not a multiple of 4, or a load or
                             // store not aligned to its size (pc: the instruction)
    GpErrAccess = 3'd4,      // a load or store outside local memory, an SBUF transfer past the
                             // partition (pc: the instruction)
    GpErrPartition = 3'd5,   // an SBUF transfer to a partition the processor does not own
    GpErrSem = 3'd6          // a semaphore index past the core's
  } gp_err_e;

  // Opcodes (the instruction's bits [6:0]) of RV32IM and the custom-0 space.
  localparam logic [6:0] OpcLui = 7'b0110111;
  localparam logic [6:0] OpcAuipc = 7'b0010111;
  localparam logic [6:0] OpcJal = 7'b1101111;
  localparam logic [6:0] OpcJalr = 7'b1100111;
  localparam logic [6:0] OpcBranch = 7'b1100011;
  localparam logic [6:0] OpcLoad = 7'b0000011;
  localparam logic [6:0] OpcStore = 7'b0100011;
  localparam logic [6:0] OpcOpImm = 7'b0010011;
  localparam logic [6:0] OpcOp = 7'b0110011;
  localparam logic [6:0] OpcMiscMem = 7'b0001111;
  localparam logic [6:0] OpcCustom0 = 7'b0001011;

  localparam logic [6:0] OpcV = 7'b1010111;  // OP-V
  localparam logic [6:0] OpcVLoad = 7'b0000111;  // LOAD-FP: the vector loads
  localparam logic [6:0] OpcVStore = 7'b0100111;  // STORE-FP: the vector stores

  // The vector unit's element operations (docs/gpsimd.md "The vector unit").
  typedef enum logic [4:0] {
    VAdd, VSub, VMinu, VMin, VMaxu, VMax, VAnd, VOr, VXor, VSll, VSrl, VSra, VMul,
    VFadd, VFsub, VFmul, VFmin, VFmax, VFmacc, VNone
  } vop_e;

  // custom-0 funct3 values (docs/gpsimd.md "Custom instructions")
  localparam logic [2:0] F3OpEnd = 3'd0;  // op.end
  localparam logic [2:0] F3SbLoad = 3'd1;  // sb.load vd, (partition rs1, byte offset rs2); funct7 1: BF16 -> FP32
  localparam logic [2:0] F3SbStore = 3'd2;  // sb.store vs3, (rs1, rs2); funct7 1: FP32 -> BF16 (RNE)
  localparam logic [2:0] F3SemWait = 3'd3;  // sem.wait rs1 (semaphore), rs2 (until it is >= this)
  localparam logic [2:0] F3SemAdd = 3'd4;  // sem.add rs1 (semaphore), rs2 (added)

  // FP32 -> BF16, round to nearest even; a NaN gives the canonical quiet NaN (SPEC 4)
  function automatic logic [15:0] bf16_rne(logic [31:0] x);
    if (x[30:23] == 8'hFF && x[22:0] != '0) return 16'h7FC0;
    return 16'((x + 32'h7FFF + {31'b0, x[16]}) >> 16);
  endfunction

  // Cycles a division or remainder occupies the processor: one to start, one a quotient bit, one
  // to finish.
  localparam int unsigned DivCycles = 34;
endpackage
