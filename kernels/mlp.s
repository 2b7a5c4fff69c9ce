; mlp.s — an MLP step in MXFP8: Y = W2^T gelu(W1^T X), BF16 in and out, the matmuls on MX operands.
; X [D, NT N] (D = PARTS features, NT token tiles of N = MAX_N tokens), W1 [D, F] (F = COLS hidden),
; W2 [F, E] (E = COLS). -D NT=.. changes the token tiles (default 1).
;
; Schedule (docs/kernels.md):
; - the vector engine clears the scale tensors (SBUF is not reset, and the tensor engine's scale
;   read returns its byte in every partition) in 4-byte zero words (an element a lane a cycle: a
;   quarter of the cycles bytes take), then quantizes W1 and W2 once and each token tile of X from
;   BF16 to MXFP8 (E4M3FN, blocks of 32 partitions or all of them) with quantize_mx, each with its
;   scale tensor;
; - per token tile t: tensor: H = W1^T X_t on MX operands into PSUM bank t % 2; scalar: gelu to
;   BF16; vector: H quantized to MXFP8; tensor: Y_t = W2^T H on MX operands into bank 2 + t % 2;
;   scalar: Y_t to BF16; sync: Y_t stored.
; The token tiles overlap two deep: the vector engine quantizes X_{t+1} before H_t, the tensor
; engine multiplies H_{t+1} before Y_t, the scalar engine applies gelu to H_{t+1} before it
; evacuates Y_t. X's and H's codes and scales, H in BF16 and the PSUM banks come in pairs; each
; reuse is ordered by the streams' order (the quantization of X_{t+2} follows that of H_t, which
; followed gelu of H_t, which followed its multiply; the multiply of Y_{t+2} follows the
; quantization of H_{t+2}, which followed gelu of H_{t+2}, which the scalar stream runs after the
; evacuation of Y_t; ...), so only the data waits need semaphores. X's tiles count their loads on
; xl (even tiles) and xl1 (odd), and tile t + 2 starts loading once tile t has completed on every
; queue, so that a count reaching (t / 2 + 1) XQ means every queue has posted tile t. W1 and W2
; both count on w, so the quantization of W1 waits for both (one count, one meaning: all posted).
; HBM in: X row-major [D][NT N] at HX, W1 row-major [D][F] at HW1, W2 row-major [F][E] at HW2.
; HBM out: Y row-major [E][NT N] at HY.
.default NT = 1
.const D = PARTS
.const F = COLS
.const E = COLS
.const N = MAX_N
.const NN = NT * N
; SBUF (64-byte aligned regions): BF16 operands, their MXFP8 codes, the scale tensors together;
; buffer b of a pair at + b times its size
.const AX = 0                        ; X, every tile: tile t at AX + 2 N t
.const AW1 = AX + 64 * cdiv(2 * NN, 64)
.const AW2 = AW1 + 64 * cdiv(2 * F, 64)
.const AH = AW2 + 64 * cdiv(2 * E, 64)   ; H in BF16, a pair of 2N
.const AY = AH + 64 * cdiv(4 * N, 64)    ; Y, every tile: tile t at AY + 2 N t
.const AXq = AY + 64 * cdiv(2 * NN, 64)  ; X's codes, a pair of N
.const AW1q = AXq + 64 * cdiv(2 * N, 64)
.const AW2q = AW1q + 64 * cdiv(F, 64)
.const AHq = AW2q + 64 * cdiv(E, 64)     ; H's codes, a pair of N
.const ASC = AHq + 64 * cdiv(2 * N, 64)  ; scale tensors: X's (a pair of N), W1's (F), W2's (E), H's (a pair of N)
.const AXs = ASC
.const AW1s = AXs + 2 * N
.const AW2s = AW1s + F
.const AHs = AW2s + E
.const HX = 0
.const HW1 = HX + 2 * D * NN
.const HW2 = HW1 + 2 * D * F
.const HY = HW2 + 2 * F * E
.const XQ = min(D, QUEUES)           ; completions a tile of X posts (one a queue)
.default XA = 4                      ; X tiles the loads run ahead of the stores
.sem xl, xl1, w, qw, qx, qh, mm1, h, mm2, ev, out ; xl + 1: a pair

.stream sync
; X tiles 0 .. XA - 1 with the weights, then per tile t: X tile t + XA (once tile t + XA - 2 has
; completed on every queue) and the stores of Y_t (once it is evacuated): the loads run XA tiles
; ahead of the stores, and no store waits behind a load the kernel does not need yet
.for t = -1, NT
.for u = 0, (t < 0) * (XA - 1) + 1
.if t < 0 || t + XA < NT
.set XT = (t < 0) * u + (t >= 0) * (t + XA)    ; the X tile this group loads
.if XT < NT
.if XT >= 2
    sem_wait wait=xl+XT%2>=XT/2*XQ
.endif
.for p = 0, PARTS
.if p >= PARTS - QUEUES
    dma_start queue=p%QUEUES src=hbm:HX+2*NN*p+2*N*XT dst=sbuf:sb(p, AX+2*N*XT) len=2*N stype=bf16 dtype=bf16 dsem=xl+XT%2+=1
.else
    dma_start queue=p%QUEUES src=hbm:HX+2*NN*p+2*N*XT dst=sbuf:sb(p, AX+2*N*XT) len=2*N stype=bf16 dtype=bf16
.endif
.if XT == 0 && p >= PARTS - QUEUES
    dma_start queue=p%QUEUES src=hbm:HW1+2*F*p dst=sbuf:sb(p, AW1) len=2*F stype=bf16 dtype=bf16 dsem=w+=1
.endif
.if XT == 0 && p < PARTS - QUEUES
    dma_start queue=p%QUEUES src=hbm:HW1+2*F*p dst=sbuf:sb(p, AW1) len=2*F stype=bf16 dtype=bf16
.endif
.endfor
.endif
.if XT == 0
.for f = 0, F
.if f >= F - QUEUES
    dma_start queue=f%QUEUES src=hbm:HW2+2*E*f dst=sbuf:sb(f, AW2) len=2*E stype=bf16 dtype=bf16 dsem=w+=1
.else
    dma_start queue=f%QUEUES src=hbm:HW2+2*E*f dst=sbuf:sb(f, AW2) len=2*E stype=bf16 dtype=bf16
.endif
.endfor
.endif
.endif
.endfor
.if t >= 0
.for m = 0, E
.if m >= E - QUEUES
    dma_start engine=DMA_ENGINES-1 queue=m%QUEUES src=sbuf:sb(m, AY+2*N*t) dst=hbm:HY+2*NN*m+2*N*t len=2*N stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=t+1
.else
    dma_start engine=DMA_ENGINES-1 queue=m%QUEUES src=sbuf:sb(m, AY+2*N*t) dst=hbm:HY+2*NN*m+2*N*t len=2*N stype=bf16 dtype=bf16 wait=ev>=t+1
.endif
.endfor
.endif
.endfor
    end

.stream vector
    memset pc=PARTS size=(4*N+F+E)/4 o=sbuf:ASC:fp32 o.stride=1
    quantize_mx pc=D size=N a=sbuf:AX:bf16 a.stride=1 o=sbuf:AXq:e4m3fn o.stride=1 o.mx sc=AXs wait=xl>=XQ post=qx+=1
    quantize_mx pc=D size=F a=sbuf:AW1:bf16 a.stride=1 o=sbuf:AW1q:e4m3fn o.stride=1 o.mx sc=AW1s wait=w>=min(D,QUEUES)+min(F,QUEUES) post=qw+=1
    quantize_mx pc=F size=E a=sbuf:AW2:bf16 a.stride=1 o=sbuf:AW2q:e4m3fn o.stride=1 o.mx sc=AW2s post=qw+=1
.for t = 0, NT
.if t + 1 < NT
    quantize_mx pc=D size=N a=sbuf:AX+2*N*(t+1):bf16 a.stride=1 o=sbuf:AXq+((t+1)%2)*N:e4m3fn o.stride=1 o.mx sc=AXs+((t+1)%2)*N wait=xl+(t+1)%2>=((t+1)/2+1)*XQ post=qx+=1
.endif
    quantize_mx pc=F size=N a=sbuf:AH+(t%2)*2*N:bf16 a.stride=1 o=sbuf:AHq+(t%2)*N:e4m3fn o.stride=1 o.mx sc=AHs+(t%2)*N wait=h>=t+1 post=qh+=1
.endfor
    end

.stream tensor
    load_stationary t=AW1q:e4m3fn k=D m=F mx sc=AW1s wait=qw>=1
    multiply_moving t=AXq:e4m3fn n=N bank=0 mx sc=AXs wait=qx>=1 post=mm1+=1
.for t = 0, NT
.if t + 1 < NT
    load_stationary t=AW1q:e4m3fn k=D m=F mx sc=AW1s
    multiply_moving t=AXq+((t+1)%2)*N:e4m3fn n=N bank=(t+1)%2 mx sc=AXs+((t+1)%2)*N wait=qx>=t+2 post=mm1+=1
.endif
    load_stationary t=AW2q:e4m3fn k=F m=E mx sc=AW2s wait=qw>=2
    multiply_moving t=AHq+(t%2)*N:e4m3fn n=N bank=2+t%2 mx sc=AHs+(t%2)*N wait=qh>=t+1 post=mm2+=1
.endfor
    end

.stream scalar
    activate pc=F size=N a=psum:0:fp32 a.stride=1 o=sbuf:AH:bf16 o.stride=1 func=gelu imm0=f32(1.0) wait=mm1>=1 post=h+=1
.for t = 0, NT
.if t + 1 < NT
    activate pc=F size=N a=psum:((t+1)%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AH+((t+1)%2)*2*N:bf16 o.stride=1 func=gelu imm0=f32(1.0) wait=mm1>=t+2 post=h+=1
.endif
    activate pc=E size=N a=psum:(2+t%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AY+2*N*t:bf16 o.stride=1 func=identity imm0=f32(1.0) wait=mm2>=t+1 post=ev+=1
.endfor
    end
