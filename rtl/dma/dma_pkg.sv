// dma_pkg — the DMA descriptor of SPEC 5.5 (docs/dma.md), its legality check, and the element
// conversion (cast via FP32) of the DMA path.
//
// Addresses (docs/chip.md): an HBM address carries a chip field in [31:24] (0: this chip; c: chip
// c - 1 of the system) above the byte address in that chip's HBM ([23:0]). A semaphore address adds
// a unit field in [11:7] (0: the issuing unit; u: unit u - 1 of the chip) and the semaphore in
// [6:2]; a register address (docs/isa.md, reg_load) sets bit 12 and names a stream in [14:13] and
// a register in [5:2], with the chip and unit fields 0 (the issuing unit). SBUF addresses are {partition, offset} of the issuing core's SBUF: the partition in the
// bits above OffBits (= clog2(bytes per partition)), the byte offset below; SBUF is never remote.
// The functions' case statements are plain `case` with a default (not `unique case`): each
// function is inlined at every call, and Verilator's --assert puts a parallel-case check that
// cannot fire (the items are distinct constants) at each one (docs/formal.md).
package dma_pkg;
  import numerics_pkg::*;

  localparam int unsigned AddrBits = 32;
  localparam int unsigned ChipLsb = 24;    // the chip field of an HBM address: [31:24]
  localparam int unsigned LocalBits = 24;  // the byte address in a chip's HBM
  localparam int unsigned UnitLsb = 7;     // the unit field of a semaphore address: [11:7]
  localparam int unsigned UnitBits = 5;
  localparam int unsigned RegBit = 12;     // a register address (OpReg's destination): [12] set,
  localparam int unsigned RegStreamLsb = 13;  // [15:13] the stream, [5:2] the register
  localparam logic SpaceHbm = 1'b0;
  localparam logic SpaceSbuf = 1'b1;

  // Element types: numerics_pkg::fmt_e codes 0..9, and raw bytes.
  localparam logic [3:0] TypeBytes = 4'd15;

  typedef enum logic [1:0] {
    LayoutRow  = 2'd0,  // contiguous bytes (in SBUF: within one partition)
    LayoutCol2 = 2'd1,  // source element (r, c) -> SBUF partition p0 + c, offset o0 + 2r
    LayoutCol4 = 2'd2   // the same with 4-byte elements
  } layout_e;

  typedef enum logic [1:0] {
    OpCopy = 2'd0,
    OpAcc  = 2'd1, // destination = destination + source, in the destination type (BF16 or FP32)
    OpReg  = 2'd2  // 4 bytes from a 4-aligned source to a register address: one write marked as a
                   // semaphore write (wr_info_t.sem), which the issuing unit takes (sem_tap)
  } op_e;

  // Error codes of a queue's status (docs/dma.md), in the order they are checked.
  typedef enum logic [2:0] {
    ErrNone     = 3'd0,
    ErrRange    = 3'd1,  // an address range (source, destination or semaphore) outside its memory
    ErrZeroLen  = 3'd2,
    ErrLongLen  = 3'd3,  // longer than MaxLen
    ErrTranspose = 3'd4, // column layout: not to SBUF, element size, cols, length or offset misaligned
    ErrMxCast   = 3'd5,  // an MX element or scale type (FP4, E8M0) as source or destination type
    ErrFormat   = 3'd6,  // unknown type, op or layout; a cast from/to bytes; accumulate not BF16/FP32;
                         // a length that is not a whole number of source elements
    ErrChip     = 3'd7   // a destination or semaphore chip field past the system's chips, or a
                         // source naming another chip (remote reads are not built)
  } err_e;

  typedef struct packed {
    logic                src_space;
    logic [AddrBits-1:0] src_addr;
    logic                dst_space;
    logic [AddrBits-1:0] dst_addr;
    logic [31:0]         len;       // source bytes
    logic [3:0]          stype;
    logic [3:0]          dtype;
    logic [1:0]          layout;
    logic [15:0]         cols;      // column layouts: source row length in elements
    logic [1:0]          op;
    logic                sem;       // write sem_val to sem_addr once all the data is visible
    logic                sem_space;
    logic [AddrBits-1:0] sem_addr;
    logic [31:0]         sem_val;
    logic                barrier;   // wait until every earlier write of the queue is visible
    logic                last;      // complete only when every write of the queue is visible
  } desc_t;

  // A read request on the DMA's read channel (ar_*) and the SBUF's DMA read port (dr_*): `bytes`
  // bytes (1 .. a beat) from `addr` in `space`; the response carries `id` back.
  typedef struct packed {
    logic                space;
    logic [AddrBits-1:0] addr;
    logic [7:0]          bytes;
    logic [7:0]          id;
  } rd_req_t;

  // A write on the DMA's write channel (wr_*) and the SBUF's DMA write port (dw_*), the data beside
  // it: a row of `n` bytes from `addr`, or a column of `n` elements of `esize` bytes, element k to
  // partition part(addr) + k at offset off(addr); `acc`: accumulate (BF16 if esize is 2, else
  // FP32) instead of copy.
  typedef struct packed {
    logic                space;
    logic                col;
    logic [2:0]          esize;
    logic [AddrBits-1:0] addr;
    logic [7:0]          n;
    logic                acc;
  } wr_req_t;

  // Where a write on the DMA's write channel comes from (observation for checkers): queue (qid),
  // descriptor number in its queue (from 0), first source element; `sem`: the completion write.
  typedef struct packed {
    logic [7:0]  qid;
    logic [15:0] desc;
    logic [31:0] elem;
    logic        sem;
  } wr_info_t;

  function automatic logic type_known(logic [3:0] t);
    return t <= 4'd9 || t == TypeBytes;
  endfunction
  function automatic logic type_mx(logic [3:0] t);
    return t == 4'd8 || t == 4'd9;
  endfunction
  // Element size in bytes (types accepted by check only).
  function automatic logic [2:0] type_size(logic [3:0] t);
    case (t)
      4'd0, 4'd1: return 3'd4;
      4'd2, 4'd3: return 3'd2;
      default: return 3'd1;
    endcase
  endfunction

  // The chip field of an HBM address, and whether it names this chip (id: the chip's own id).
  function automatic logic [7:0] chip_of(logic [AddrBits-1:0] a);
    return a[AddrBits-1:ChipLsb];
  endfunction
  function automatic logic is_local(logic [AddrBits-1:0] a, logic [7:0] id);
    return a[AddrBits-1:ChipLsb] == 8'd0 || a[AddrBits-1:ChipLsb] == id + 8'd1;
  endfunction
  // Is a an address of a register of the issuing unit (OpReg's destination)?
  function automatic logic is_reg_addr(logic [AddrBits-1:0] a);
    return a[AddrBits-1:RegStreamLsb+3] == '0 && a[RegBit] && a[RegBit-1:6] == '0 && a[1:0] == 2'b0;
  endfunction
  // The register address of register r of stream s.
  function automatic logic [AddrBits-1:0] reg_addr(logic [2:0] s, logic [3:0] r);
    return {16'b0, s, 1'b1, 6'b0, r, 2'b0};
  endfunction
  // The unit field of a semaphore address.
  function automatic logic [UnitBits-1:0] unit_of(logic [AddrBits-1:0] a);
    return a[UnitLsb +: UnitBits];
  endfunction

  // Is [addr, addr + bytes) inside the memory `space`? HBM: the local part of the address, in
  // whichever chip it names; SBUF ranges stay in one partition.
  function automatic logic in_range(logic space, logic [AddrBits-1:0] addr, logic [33:0] bytes,
                                    int unsigned hbm_bytes, int unsigned parts, int unsigned off_bits,
                                    int unsigned part_bytes);
    logic [33:0] off, part;
    if (space == SpaceHbm) return {10'b0, addr[LocalBits-1:0]} + bytes <= 34'(hbm_bytes);
    off = {2'b0, addr} & ((34'd1 << off_bits) - 34'd1);
    part = {2'b0, addr} >> off_bits;
    return part < 34'(parts) && off + bytes <= 34'(part_bytes);
  endfunction

  // A chip field a descriptor may carry in a space: HBM names chip 0 .. chips (0: this chip).
  function automatic logic chip_ok(logic space, logic [AddrBits-1:0] addr, int unsigned chips);
    return space != SpaceHbm || 32'(chip_of(addr)) <= chips;
  endfunction

  // The check of an OpReg descriptor from src (4 bytes, types bytes, to a register address): the
  // answer check gives it, from the source alone (a control checks its reg_load with this).
  function automatic err_e check_reg(logic src_space, logic [AddrBits-1:0] src_addr, int unsigned hbm_bytes,
                                     int unsigned parts, int unsigned off_bits, int unsigned part_bytes);
    if (src_addr[1:0] != 2'b0) return ErrFormat;
    if (src_space == SpaceHbm && chip_of(src_addr) != 8'd0) return ErrChip;
    if (!in_range(src_space, src_addr, 34'd4, hbm_bytes, parts, off_bits, part_bytes)) return ErrRange;
    return ErrNone;
  endfunction

  function automatic err_e check(desc_t d, int unsigned hbm_bytes, int unsigned parts,
                                       int unsigned off_bits, int unsigned part_bytes, int unsigned max_len,
                                       int unsigned chips);
    logic [2:0] ss, ds, es;
    logic [33:0] nelem, rows, dbytes, obase, pbase;
    if (!type_known(d.stype) || !type_known(d.dtype) || d.op > 2'd2 || d.layout > 2'd2) return ErrFormat;
    if (type_mx(d.stype) || type_mx(d.dtype)) return ErrMxCast;
    if ((d.stype == TypeBytes) != (d.dtype == TypeBytes)) return ErrFormat;
    if (d.len == 32'd0) return ErrZeroLen;
    if (d.len > max_len) return ErrLongLen;
    ss = type_size(d.stype);
    ds = type_size(d.dtype);
    if ({2'b0, d.len} % {31'b0, ss} != 34'd0) return ErrFormat;
    if (d.op == OpAcc && !(d.dtype == FmtFp32 || d.dtype == FmtBf16)) return ErrFormat;
    if (d.op == OpReg && (d.stype != TypeBytes || d.len != 32'd4 || d.layout != LayoutRow || d.sem ||
                          d.src_addr[1:0] != 2'b0))
      return ErrFormat;
    if ((d.src_space == SpaceHbm && chip_of(d.src_addr) != 8'd0) || !chip_ok(d.dst_space, d.dst_addr, chips) ||
        (d.sem && !chip_ok(d.sem_space, d.sem_addr, chips)))
      return ErrChip;
    nelem = {2'b0, d.len} / {31'b0, ss};
    dbytes = nelem * {31'b0, ds};
    es = d.layout == LayoutCol2 ? 3'd2 : 3'd4;
    obase = {2'b0, d.dst_addr} & ((34'd1 << off_bits) - 34'd1);
    pbase = {2'b0, d.dst_addr} >> off_bits;
    rows = 34'd0;
    if (d.layout != LayoutRow) begin
      if (d.dst_space != SpaceSbuf || ds != es || d.cols == 16'd0 || nelem % {18'b0, d.cols} != 34'd0 ||
          obase % {31'b0, es} != 34'd0)
        return ErrTranspose;
      rows = nelem / {18'b0, d.cols};
    end
    if (!in_range(d.src_space, d.src_addr, {2'b0, d.len}, hbm_bytes, parts, off_bits, part_bytes)) return ErrRange;
    if (d.op == OpReg) begin
      if (d.dst_space != SpaceHbm || !is_reg_addr(d.dst_addr)) return ErrRange;
    end else if (d.layout == LayoutRow) begin
      if (!in_range(d.dst_space, d.dst_addr, dbytes, hbm_bytes, parts, off_bits, part_bytes)) return ErrRange;
    end else if (pbase + {18'b0, d.cols} > 34'(parts) || obase + rows * {31'b0, es} > 34'(part_bytes)) begin
      return ErrRange;
    end
    if (d.sem && (d.sem_addr[1:0] != 2'b0 ||
                  !in_range(d.sem_space, d.sem_addr, 34'd4, hbm_bytes, parts, off_bits, part_bytes)))
      return ErrRange;
    return ErrNone;
  endfunction

  // One element: source code -> destination code via FP32, RNE, standard biases.
  function automatic logic [31:0] cast(logic [3:0] st, logic [3:0] dt, logic [31:0] code);
    fmt_desc_t sd, dd;
    sd = fmt_desc(st);
    dd = fmt_desc(dt);
    return encode(dd, dd.bias, decode(sd, sd.bias, code), 1'b0, 32'd0, 1'b0, 12'sd0);
  endfunction

endpackage
