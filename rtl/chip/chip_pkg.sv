// chip_pkg — the chip's packets (SPEC 5.7, docs/chip.md). Its addresses are dma_pkg's (a chip
// field above every HBM address, a unit field in a semaphore address).
// A packet's head flit carries router_pkg::head_t in its low HeadBits bits and pkt_hdr_t above it;
// its body flits carry the payload bytes, body_bytes(W) a flit from bit 0.
package chip_pkg;
  import router_pkg::HeadBits;
  import dma_pkg::LocalBits;

  // The head flit's fields above head_t.
  typedef struct packed {
    logic                 esize4;  // the write's element size is 4 bytes (an accumulate: FP32, else BF16)
    logic [7:0]           n;       // payload bytes (a semaphore: 4, its value)
    logic [LocalBits-1:0] addr;    // the HBM byte address, or the semaphore address, in the destination
  } pkt_hdr_t;

  localparam int unsigned HdrBits = HeadBits + $bits(pkt_hdr_t);

  // Payload bytes of a body flit of W bits (its top two bits are the flit kind).
  function automatic int unsigned body_bytes(int unsigned w);
    return (w - 2) / 8;
  endfunction
endpackage
