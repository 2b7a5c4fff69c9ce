// router_pkg — NeuronLink packets and routing (SPEC 5.6, docs/link.md).
//
// Flit (W bits): kind in the top two bits (0 body, 1 head, 2 tail, 3 head and tail: a one-flit
// packet). A head flit carries, from bit 0: destination chip id (8), source id (8), packet type
// (2: write, read request, read response, semaphore), length in flits (8), traffic class (2: the
// router uses it modulo its class count, V / 2 on a torus, V on a switch); the rest is payload.
//
// Topologies: 2D torus KX x KY (ports 0 local, 1 +x, 2 -x, 3 +y, 4 -y; chip id = y * KX + x),
// dimension order (x first, the shorter way round, ties to +), with dateline VC classes: virtual
// channel v has class v % 2; a packet enters each dimension in class 0 and moves to class 1 on the
// hop that crosses that dimension's dateline (the wrap link between coordinates K-1 and 0).
// 3D torus KX x KY x KZ: also ports 5 +z, 6 -z; chip id = (z * KY + y) * KX + x; x, then y, then z.
// Traffic class c owns VCs 2c and 2c + 1 on a torus (one per dateline class) and VC c on a switch,
// so every hop of a packet has one VC and packets of one (source, destination, class) stay in order.
// Switch: one router whose port i is endpoint i.
package router_pkg;
  localparam int unsigned IdBits = 8;
  localparam int unsigned TopoTorus = 0, TopoSwitch = 1;

endpackage
