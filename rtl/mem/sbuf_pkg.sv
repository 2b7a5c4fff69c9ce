// sbuf_pkg — the typed interface of SBUF's engine ports (rtl/mem/sbuf.sv, docs/sbuf.md).
package sbuf_pkg;

  // The size of one element in SBUF (docs/core.md, byte layouts).
  typedef enum logic [1:0] {
    ESize4b = 2'd0,  // 4 bits, two per byte: element 2k in the low nibble, 2k + 1 in the high one
    ESize1  = 2'd1,  // 1 byte
    ESize2  = 2'd2,  // 2 bytes, little-endian
    ESize4  = 2'd3   // 4 bytes, little-endian
  } esize_e;

  // An engine request: one element in every partition at once (a write: in the partitions of its
  // mask). Element idx of a partition starts at byte idx * size (4-bit: byte idx / 2, the nibble
  // idx % 2). The element lies in one line: sizes are powers of two and lines at least 4 bytes.
  typedef struct packed {
    logic        space;  // 0 SBUF, 1 PSUM (FP32 words): decoded by the core; SBUF ignores it
    logic        we;     // write (1) or read (0)
    esize_e      esize;
    logic [23:0] idx;    // element index in the partition; beyond the partition: not allowed
  } e_req_t;

  // Element addresses (the engines compute their requests with these; docs/core.md, byte layouts).
  // The element index of byte address a for elements of 2^es nibbles (a aligned to the size).
  function automatic logic [24:0] base_idx(logic [23:0] a, logic [1:0] es);
    return 25'({a, 1'b0} >> es);
  endfunction
  // Is byte address a aligned to elements of 2^es nibbles?
  function automatic logic aligned(logic [23:0] a, logic [1:0] es);
    return ({a, 1'b0} & ((25'd1 << es) - 25'd1)) == '0;
  endfunction
  // Do `count` elements of 2^es nibbles from byte address a lie in a partition of `bytes`, a
  // aligned to the size?
  function automatic logic elems_fit(logic [23:0] a, logic [1:0] es, logic [39:0] count, int bytes);
    if (!aligned(a, es)) return 1'b0;
    return ((40'(base_idx(a, es)) + count) << es) <= 40'(2 * bytes);
  endfunction
  // The bank that element idx of 2^es nibbles lies in, with lines of line_bytes bytes and line l
  // in bank l % banks (rtl/mem/sbuf.sv; the tensor engine keeps its two read ports apart with it).
  function automatic int unsigned elem_bank(logic [23:0] idx, logic [1:0] es, int unsigned line_bytes,
                                            int unsigned banks);
    return int'(((32'(idx) << es) / (32'd2 * line_bytes)) % banks);
  endfunction
  // The byte offset within its partition of a DMA's SBUF address: the partition's index sits
  // above off_bits = $clog2(bytes a partition) (docs/dma.md). SBUF and the core decode with it.
  function automatic logic [31:0] dma_off(logic [31:0] a, int unsigned off_bits);
    return a & ((32'd1 << off_bits) - 32'd1);
  endfunction
  // The banks (bit b: bank b) that a row of `bytes` bytes from byte offset `off` of a partition
  // touches, with lines of line_bytes bytes and line l in bank l % banks: one line, or two
  // consecutive ones for a row that crosses a line (0 bytes count as 1). SBUF decodes its DMA
  // requests with it; the core matches the DMA engines' SBUF reads against SBUF's dr_busy_o.
  function automatic logic [63:0] row_banks(logic [31:0] off, logic [31:0] bytes, int unsigned line_bytes,
                                            int unsigned banks);
    logic [31:0] l0, l1;
    logic [63:0] s;
    l0 = off / line_bytes;
    l1 = bytes == '0 ? l0 : (off + bytes - 32'd1) / line_bytes;
    s = '0;
    s[l0 % banks] = 1'b1;
    s[l1 % banks] = 1'b1;
    return s;
  endfunction

endpackage
