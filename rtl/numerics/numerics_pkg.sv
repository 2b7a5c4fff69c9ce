// numerics_pkg — the number formats of SPEC section 4 for every RTL unit: one format table
// (fmt_desc) and the combinational datapaths the units and engines share:
//   unpack      a code of any format -> sign, class, normalized significand and exponent
//   round_pack  sign, exponent, 56-bit significand (+ sticky) -> code of any format, RNE or
//               stochastic, with saturation; the one rounding routine of the RTL
//   encode      FP32 -> any format (optionally scaled by 2^-scale_exp first, for MX)
//   decode      any format -> FP32, exact
//   fp32_add_f, fp32_mul_f, mul_narrow_f   IEEE binary32 RNE arithmetic, canonical NaN
//   xorshift32, sr_lane_seed               the stochastic-rounding generator's step and seeding
// fmt_e values are the codes of the model's trn::numerics::Format (docs/numerics.md).
// The functions' case statements are plain `case` with a default (not `unique case`): each
// function is inlined at every call, and Verilator's --assert puts a parallel-case check that
// cannot fire (the items are distinct constants) at each one (docs/formal.md).
package numerics_pkg;

  typedef enum logic [3:0] {
    FmtFp32   = 4'd0,
    FmtTf32   = 4'd1,
    FmtBf16   = 4'd2,
    FmtFp16   = 4'd3,
    FmtE5m2   = 4'd4,
    FmtE4m3   = 4'd5,   // Neuron cFP8 "E4": IEEE-like, bias 7, max 240
    FmtE4m3fn = 4'd6,   // OCP: no Inf, NaN = S.1111.111, max 448
    FmtE3m4   = 4'd7,
    FmtE2m1   = 4'd8,   // FP4: no Inf/NaN, max 6
    FmtE8m0   = 4'd9    // MX scale: unsigned 2^(e-127), 0xFF = NaN
  } fmt_e;

  typedef enum logic [1:0] {
    SpecIeee    = 2'd0,  // all-ones exponent: Inf (mantissa 0) and NaN
    SpecNanOnly = 2'd1,  // no Inf; the all-ones magnitude code is NaN
    SpecNone    = 2'd2   // no Inf, no NaN
  } specials_e;

  typedef struct packed {
    logic        valid;       // a format in the table
    logic [5:0]  bits;        // code width
    logic [3:0]  exp_bits;
    logic [4:0]  man_bits;
    logic [7:0]  bias;        // standard bias
    specials_e   specials;
    logic        is_signed;
    logic        subnormals;  // exponent field 0 is subnormal (E8M0: field 0 is 2^-127)
    logic        adj_bias;    // FP8: the bias register applies
  } fmt_desc_t;

  // The table of SPEC section 4.
  // The SBUF element size of a format (sbuf_pkg::esize_e codes, docs/core.md): 3 = 4 bytes (FP32,
  // TF32), 2 = 2 bytes (BF16, FP16), 1 = 1 byte (the FP8 types, E8M0), 0 = 4 bits (E2M1).
  function automatic logic [1:0] fmt_esize(logic [3:0] f);
    if (f == FmtFp32 || f == FmtTf32) return 2'd3;
    if (f == FmtBf16 || f == FmtFp16) return 2'd2;
    if (f == FmtE2m1) return 2'd0;
    return 2'd1;
  endfunction

  function automatic fmt_desc_t fmt_desc(logic [3:0] f);
    fmt_desc_t d;
    d = '0;
    d.valid = 1'b1;
    d.is_signed = 1'b1;
    d.subnormals = 1'b1;
    d.specials = SpecIeee;
    case (fmt_e'(f))
      FmtFp32:   begin d.bits = 6'd32; d.exp_bits = 4'd8; d.man_bits = 5'd23; d.bias = 8'd127; end
      FmtTf32:   begin d.bits = 6'd19; d.exp_bits = 4'd8; d.man_bits = 5'd10; d.bias = 8'd127; end
      FmtBf16:   begin d.bits = 6'd16; d.exp_bits = 4'd8; d.man_bits = 5'd7;  d.bias = 8'd127; end
      FmtFp16:   begin d.bits = 6'd16; d.exp_bits = 4'd5; d.man_bits = 5'd10; d.bias = 8'd15;  end
      FmtE5m2:   begin d.bits = 6'd8; d.exp_bits = 4'd5; d.man_bits = 5'd2; d.bias = 8'd15; d.adj_bias = 1'b1; end
      FmtE4m3:   begin d.bits = 6'd8; d.exp_bits = 4'd4; d.man_bits = 5'd3; d.bias = 8'd7;  d.adj_bias = 1'b1; end
      FmtE4m3fn: begin
        d.bits = 6'd8; d.exp_bits = 4'd4; d.man_bits = 5'd3; d.bias = 8'd7; d.adj_bias = 1'b1;
        d.specials = SpecNanOnly;
      end
      FmtE3m4:   begin d.bits = 6'd8; d.exp_bits = 4'd3; d.man_bits = 5'd4; d.bias = 8'd3;  d.adj_bias = 1'b1; end
      FmtE2m1:   begin d.bits = 6'd4; d.exp_bits = 4'd2; d.man_bits = 5'd1; d.bias = 8'd1; d.specials = SpecNone; end
      FmtE8m0:   begin
        d.bits = 6'd8; d.exp_bits = 4'd8; d.man_bits = 5'd0; d.bias = 8'd127;
        d.specials = SpecNanOnly; d.is_signed = 1'b0; d.subnormals = 1'b0;
      end
      default:   d = '0;
    endcase
    return d;
  endfunction

  // The bias in effect: the 6-bit register for FP8, the standard bias otherwise.
  function automatic logic [7:0] eff_bias(fmt_desc_t d, logic [5:0] bias_reg);
    return d.adj_bias ? {2'b00, bias_reg} : d.bias;
  endfunction

  function automatic logic [31:0] all_ones_mag(fmt_desc_t d);
    return (32'd1 << (d.exp_bits + d.man_bits)) - 32'd1;
  endfunction

  function automatic logic [31:0] max_mag(fmt_desc_t d);
    case (d.specials)
      SpecIeee:    return all_ones_mag(d) - (32'd1 << d.man_bits);
      SpecNanOnly: return all_ones_mag(d) - 32'd1;
      default:     return all_ones_mag(d);
    endcase
  endfunction

  function automatic logic [31:0] inf_mag(fmt_desc_t d);
    return all_ones_mag(d) - ((32'd1 << d.man_bits) - 32'd1);
  endfunction

  // Canonical NaN: IEEE-like quiet NaN (top mantissa bit), the all-ones code, or +0 (E2M1).
  function automatic logic [31:0] nan_code(fmt_desc_t d);
    case (d.specials)
      SpecIeee:    return inf_mag(d) | (32'd1 << (d.man_bits - 5'd1));
      SpecNanOnly: return all_ones_mag(d);
      default:     return 32'd0;
    endcase
  endfunction

  function automatic logic [31:0] sign_bit(fmt_desc_t d, logic sign);
    return (d.is_signed && sign) ? (32'd1 << (d.bits - 6'd1)) : 32'd0;
  endfunction

  // Overflow and Inf: Inf where the format has it (unless saturating), else +-max.
  function automatic logic [31:0] overflow_code(fmt_desc_t d, logic sign, logic sat);
    return sign_bit(d, sign) | ((d.specials == SpecIeee && !sat) ? inf_mag(d) : max_mag(d));
  endfunction

  // Leading zeros of a 24-bit and a 56-bit vector.
  function automatic logic [4:0] lzc24(logic [23:0] x);
    logic [4:0] n;
    n = 5'd24;
    for (int i = 0; i < 24; i++) if (x[i]) n = 5'(23 - i);
    return n;
  endfunction

  function automatic logic [5:0] lzc56(logic [55:0] x);
    logic [5:0] n;
    n = 6'd56;
    for (int i = 0; i < 56; i++) if (x[i]) n = 6'(55 - i);
    return n;
  endfunction

  typedef struct packed {
    logic               nan;
    logic               inf;
    logic               zero;
    logic               sign;
    logic signed [11:0] exp;  // weight of sig[23] is 2^exp
    logic [23:0]        sig;  // normalized: sig[23] = 1 unless zero, NaN or Inf
  } unpacked_t;

  function automatic unpacked_t unpack(fmt_desc_t d, logic [31:0] code, logic [7:0] b);
    unpacked_t u;
    logic [31:0] mag, field, man, ones;
    logic hidden;
    logic [23:0] sig_raw;
    logic signed [11:0] exp_raw;
    logic [4:0] lz;
    u = '0;
    ones = all_ones_mag(d);
    mag = code & ones;
    field = mag >> d.man_bits;
    man = mag & ((32'd1 << d.man_bits) - 32'd1);
    u.sign = d.is_signed & code[5'(d.bits - 6'd1)];
    u.nan = (d.specials == SpecIeee && field == (ones >> d.man_bits) && man != 0) ||
            (d.specials == SpecNanOnly && mag == ones);
    u.inf = d.specials == SpecIeee && field == (ones >> d.man_bits) && man == 0;
    u.zero = d.subnormals && mag == 0;
    hidden = !(d.subnormals && field == 0);
    sig_raw = {hidden, 23'((man << (5'd23 - d.man_bits)))};
    exp_raw = (d.subnormals && field == 0) ? 12'sd1 - $signed({4'b0, b})
                                           : $signed(field[11:0]) - $signed({4'b0, b});
    lz = lzc24(sig_raw);
    u.sig = sig_raw << lz;
    u.exp = exp_raw - $signed({7'b0, lz});
    return u;
  endfunction

  // Round sig * 2^(ex - 55) (sig[55] = 1; sticky_in: nonzero bits below sig) into format d with
  // bias b. The kept LSB has weight 2^(te - M), te = max(ex, emin); of the discarded field, the
  // top 32 bits (zero-padded) are `frac` and the rest is sticky. RNE: up if frac > half, or
  // frac == half and (sticky or the kept LSB is odd). Stochastic: up if frac + rnd carries out of
  // 32 bits. The rounded magnitude code is ((te + b - 1) << M) + q + up.
  function automatic logic [31:0] round_pack(fmt_desc_t d, logic [7:0] b, logic sign,
                                             logic signed [11:0] ex, logic [55:0] sig,
                                             logic sticky_in, logic sr, logic [31:0] rnd,
                                             logic sat);
    logic signed [11:0] emin, te;
    logic signed [12:0] p;
    logic [87:0] wide, shifted, lost;
    logic [55:0] q;
    logic [31:0] frac;
    logic sticky, up;
    logic signed [40:0] mag;
    emin = d.subnormals ? 12'sd1 - $signed({4'b0, b}) : -$signed({4'b0, b});
    te = (ex > emin) ? ex : emin;
    p = 13'sd55 - $signed({8'b0, d.man_bits}) + 13'(te) - 13'(ex);
    wide = {sig, 32'b0};
    if (p >= 13'sd88) begin
      q = '0;
      frac = '0;
      sticky = 1'b1;
    end else begin
      shifted = wide >> p[6:0];
      q = shifted[87:32];
      frac = shifted[31:0];
      lost = wide & ~({88{1'b1}} << p[6:0]);
      sticky = (|lost) | sticky_in;
    end
    if (sr) up = ({1'b0, frac} + {1'b0, rnd}) >= 33'h1_0000_0000;
    else up = (frac > 32'h8000_0000) || (frac == 32'h8000_0000 && (sticky || q[0]));
    mag = ((41'(te) + 41'($signed({1'b0, b})) - 41'sd1) <<< d.man_bits) + $signed({1'b0, 40'(q)}) +
          $signed({40'b0, up});
    if (mag > $signed({9'b0, max_mag(d)})) return overflow_code(d, sign, sat);
    if (mag < 0) return 32'd0;  // below the minimum of a format without zero (E8M0)
    return sign_bit(d, sign) | mag[31:0];
  endfunction

  localparam fmt_desc_t Fp32Desc = '{valid: 1'b1, bits: 6'd32, exp_bits: 4'd8, man_bits: 5'd23,
                                     bias: 8'd127, specials: SpecIeee, is_signed: 1'b1,
                                     subnormals: 1'b1, adj_bias: 1'b0};
  localparam logic [31:0] CanonicalNaN = 32'h7FC0_0000;

  // FP32 -> format d (value x * 2^-scale_exp, exact before the one rounding).
  function automatic logic [31:0] encode(fmt_desc_t d, logic [7:0] b, logic [31:0] x, logic sr,
                                         logic [31:0] rnd, logic sat, logic signed [11:0] scale_exp);
    unpacked_t u;
    u = unpack(Fp32Desc, x, 8'd127);
    if (u.nan) return nan_code(d);
    if (!d.is_signed && (u.sign || u.zero)) return nan_code(d);
    if (u.inf) return overflow_code(d, u.sign, sat);
    if (u.zero) return sign_bit(d, u.sign);
    return round_pack(d, b, u.sign, u.exp - scale_exp, {u.sig, 32'b0}, 1'b0, sr, rnd, sat);
  endfunction

  // Format d -> FP32, exact (every value of every format with a 6-bit bias fits FP32).
  function automatic logic [31:0] decode(fmt_desc_t d, logic [7:0] b, logic [31:0] code);
    unpacked_t u;
    u = unpack(d, code, b);
    if (u.nan) return CanonicalNaN;
    if (u.inf) return {u.sign, 31'h7F80_0000};
    if (u.zero) return {u.sign, 31'b0};
    return round_pack(Fp32Desc, 8'd127, u.sign, u.exp, {u.sig, 32'b0}, 1'b0, 1'b0, 32'd0, 1'b0);
  endfunction

  // IEEE binary32 addition, RNE. The smaller operand is aligned into 32 guard bits with every
  // bit shifted past them jammed into the LSB, which keeps the one rounding exact.
  function automatic logic [31:0] fp32_add_f(logic [31:0] a, logic [31:0] b);
    unpacked_t ua, ub, opx, opy;  // opx: the operand of larger magnitude
    logic [11:0] diff;
    logic [56:0] aa, bb, bfull, r;
    logic st;
    logic [5:0] lz;
    ua = unpack(Fp32Desc, a, 8'd127);
    ub = unpack(Fp32Desc, b, 8'd127);
    if (ua.nan || ub.nan || (ua.inf && ub.inf && ua.sign != ub.sign)) return CanonicalNaN;
    if (ua.inf) return {ua.sign, 31'h7F80_0000};
    if (ub.inf) return {ub.sign, 31'h7F80_0000};
    if (ua.zero && ub.zero) return {ua.sign & ub.sign, 31'b0};
    if (ua.zero) return b;
    if (ub.zero) return a;
    if (ub.exp > ua.exp || (ub.exp == ua.exp && ub.sig > ua.sig)) begin
      opx = ub;
      opy = ua;
    end else begin
      opx = ua;
      opy = ub;
    end
    diff = 12'(opx.exp - opy.exp);
    aa = {1'b0, opx.sig, 32'b0};
    bfull = {1'b0, opy.sig, 32'b0};
    if (diff >= 12'd57) begin
      bb = '0;
      st = 1'b1;
    end else begin
      bb = bfull >> diff[5:0];
      st = |(bfull & ~({57{1'b1}} << diff[5:0]));
    end
    bb[0] = bb[0] | st;
    r = (opx.sign != opy.sign) ? aa - bb : aa + bb;
    if (r == '0) return 32'd0;  // exact cancellation: +0 under RNE
    if (r[56]) return round_pack(Fp32Desc, 8'd127, opx.sign, opx.exp + 12'sd1, r[56:1], r[0], 1'b0, 32'd0, 1'b0);
    lz = lzc56(r[55:0]);
    return round_pack(Fp32Desc, 8'd127, opx.sign, opx.exp - $signed({6'b0, lz}), r[55:0] << lz, 1'b0, 1'b0,
                      32'd0, 1'b0);
  endfunction

  // Product of two unpacked operands, rounded once to FP32. narrow: both significands have at most
  // 11 bits (sig[23:13]), so an 11x11 multiplier forms the exact product.
  function automatic logic [31:0] mul_unpacked(unpacked_t ua, unpacked_t ub, logic narrow);
    logic [47:0] prod;
    logic [21:0] pn;
    logic sign;
    logic signed [11:0] ex;
    sign = ua.sign ^ ub.sign;
    if (ua.nan || ub.nan || (ua.inf && ub.zero) || (ua.zero && ub.inf)) return CanonicalNaN;
    if (ua.inf || ub.inf) return {sign, 31'h7F80_0000};
    if (ua.zero || ub.zero) return {sign, 31'b0};
    ex = ua.exp + ub.exp;
    if (narrow) begin
      // Narrow significands (at most 11 bits: FP16) live in sig[23:13]: an 11x11 multiplier.
      pn = ua.sig[23:13] * ub.sig[23:13];
      prod = {pn, 26'b0};
    end else begin
      prod = ua.sig * ub.sig;
    end
    if (prod[47]) return round_pack(Fp32Desc, 8'd127, sign, ex + 12'sd1, {prod, 8'b0}, 1'b0, 1'b0, 32'd0, 1'b0);
    return round_pack(Fp32Desc, 8'd127, sign, ex, {prod[46:0], 9'b0}, 1'b0, 1'b0, 32'd0, 1'b0);
  endfunction

  // IEEE binary32 multiplication, RNE.
  function automatic logic [31:0] fp32_mul_f(logic [31:0] a, logic [31:0] b);
    return mul_unpacked(unpack(Fp32Desc, a, 8'd127), unpack(Fp32Desc, b, 8'd127), 1'b0);
  endfunction

  // Operand formats of the narrow product: BF16, FP16, FP8 (any variant and bias), E2M1.
  function automatic logic is_narrow_fmt(logic [3:0] f);
    return f >= FmtBf16 && f <= FmtE2m1;
  endfunction

  // Narrow x narrow -> FP32, exact wherever FP32 holds the product; +0 for other formats.
  function automatic logic [31:0] mul_narrow_f(logic [3:0] fa, logic [5:0] ba, logic [15:0] a,
                                               logic [3:0] fb, logic [5:0] bb, logic [15:0] b);
    fmt_desc_t da, db;
    if (!is_narrow_fmt(fa) || !is_narrow_fmt(fb)) return 32'd0;
    da = fmt_desc(fa);
    db = fmt_desc(fb);
    return mul_unpacked(unpack(da, {16'b0, a}, eff_bias(da, ba)), unpack(db, {16'b0, b}, eff_bias(db, bb)), 1'b1);
  endfunction

  // Formats the converter units take (FP32 <-> these).
  function automatic logic is_convert_fmt(logic [3:0] f);
    return f >= FmtBf16 && f <= FmtE8m0;
  endfunction

  // Stochastic rounding generator: xorshift32, one step per converted element.
  function automatic logic [31:0] xorshift32(logic [31:0] x);
    logic [31:0] y;
    y = x ^ (x << 13);
    y = y ^ (y >> 17);
    y = y ^ (y << 5);
    return y;
  endfunction

  // Lane l's seed: seed ^ (l * 0x9E3779B9), 0 replaced by 1.
  function automatic logic [31:0] sr_lane_seed(logic [31:0] seed, logic [31:0] lane);
    logic [31:0] s;
    s = seed ^ (lane * 32'h9E37_79B9);
    return (s == 32'd0) ? 32'd1 : s;
  endfunction

endpackage
