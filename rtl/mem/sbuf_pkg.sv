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

endpackage
