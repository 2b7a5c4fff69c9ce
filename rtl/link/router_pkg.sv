// router_pkg — NeuronLink packets and routing (SPEC 5.6, 5.7; docs/link.md).
//
// Flit (W bits): its kind (flit_kind_e) in the top two bits. A head flit carries head_t in its low
// HeadBits bits (the destination chip id at bit 0); the bits between are payload.
//
// Topologies (topo_e):
//   TopoTorus  2D torus KX x KY (ports 0 local, 1 +x, 2 -x, 3 +y, 4 -y; chip id = y * KX + x),
//              dimension order (x first, the shorter way round, ties to +), with dateline VC
//              classes: virtual channel v has class v % 2; a packet enters each dimension in class
//              0 and moves to class 1 on the hop that crosses that dimension's dateline (the wrap
//              link between coordinates K-1 and 0). 3D torus KX x KY x KZ: also ports 5 +z, 6 -z;
//              chip id = (z * KY + y) * KX + x; x, then y, then z. With the router's LastHop, a
//              class has three VCs (v % 3: dateline classes 0 and 1, and 2 for the hop into the
//              destination's router).
//   TopoSwitch one router whose port i is endpoint i.
//   TopoTable  a routing table per router (destination -> output port): the model's composed
//              networks of chip and switch routers; the RTL router has no table (an elaboration
//              error).
// Traffic class c owns VCs 2c and 2c + 1 on a torus (one per dateline class) and VC c on a switch,
// so every hop of a packet has one VC and packets of one (source, destination, class) stay in order.
// The functions' case statements are plain `case` with a default (not `unique case`): each
// function is inlined at every call, and Verilator's --assert puts a parallel-case check that
// cannot fire (the items are distinct constants) at each one (docs/formal.md).
package router_pkg;
  localparam int unsigned IdBits = 8;
  localparam int unsigned LenBits = 8;

  typedef enum logic [1:0] {
    TopoTorus  = 2'd0,
    TopoSwitch = 2'd1,
    TopoTable  = 2'd2
  } topo_e;

  typedef enum logic [1:0] {
    FlitBody   = 2'd0,
    FlitHead   = 2'd1,
    FlitTail   = 2'd2,
    FlitSingle = 2'd3   // head and tail: a one-flit packet
  } flit_kind_e;

  // Packet types (SPEC 5.6, 5.7; the chip's packets: docs/chip.md).
  typedef enum logic [2:0] {
    PktWrite    = 3'd0,  // payload bytes to a memory address of the destination chip
    PktReadReq  = 3'd1,
    PktReadRsp  = 3'd2,
    PktSem      = 3'd3,  // add a value to a semaphore of the destination chip
    PktAccWrite = 3'd4   // payload added (BF16 or FP32) to the destination's memory
  } pkt_type_e;

  // The head flit's fields, from bit 0 of the flit: destination, source, type, length, class.
  typedef struct packed {
    logic [1:0]         tc;     // traffic class (a router takes it modulo its class count)
    logic [LenBits-1:0] len;    // flits in the packet, head included
    pkt_type_e          ptype;
    logic [IdBits-1:0]  src;
    logic [IdBits-1:0]  dst;
  } head_t;

  localparam int unsigned HeadBits = $bits(head_t);

  // Torus wiring (the networks of routers and the systems of chips): the router across port q
  // (1 +x, 2 -x, 3 +y, 4 -y, 5 +z, 6 -z) from router r of a kx x ky x kz torus, wrapping; and the
  // port there that faces back.
  function automatic int unsigned torus_nb(int unsigned r, int unsigned q, int unsigned kx, int unsigned ky,
                                           int unsigned kz);
    int unsigned x, y, z;
    x = r % kx;
    y = r / kx % ky;
    z = r / (kx * ky);
    case (q)
      1: x = (x + 1) % kx;
      2: x = (x + kx - 1) % kx;
      3: y = (y + 1) % ky;
      4: y = (y + ky - 1) % ky;
      5: z = (z + 1) % kz;
      default: z = (z + kz - 1) % kz;  // 6
    endcase
    return (z * ky + y) * kx + x;
  endfunction
  function automatic int unsigned torus_back(int unsigned q);
    return q % 2 == 1 ? q + 1 : q - 1;
  endfunction
endpackage
