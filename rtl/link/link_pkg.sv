// link_pkg — the NeuronLink link layer's flit protection (SPEC 5.6, docs/link.md): CRC-16/CCITT
// (polynomial 0x1021, initial value 0xFFFF, no reflection, no final xor) over the flit's sequence
// number and payload, most significant bit first.
package link_pkg;
  localparam int unsigned CrcMaxBits = 1024;

  // The CRC of the low n bits of x, bit n-1 first.
  function automatic logic [15:0] crc16(logic [CrcMaxBits-1:0] x, int unsigned n);
    logic [15:0] c;
    logic fb;
    c = 16'hFFFF;
    for (int i = int'(n) - 1; i >= 0; i--) begin
      fb = c[15] ^ x[i];
      c = {c[14:0], 1'b0} ^ (fb ? 16'h1021 : 16'h0000);
    end
    return c;
  endfunction
endpackage
