; mlp.s — an MLP step in MXFP8: Y = W2^T gelu(W1^T X), BF16 in and out, the matmuls on MX operands.
; X [D, N] (D = PARTS features, N = MAX_N tokens), W1 [D, F] (F = COLS hidden), W2 [F, E] (E = COLS).
;
; Schedule (docs/kernels.md):
; - the vector engine clears the scale tensors (SBUF is not reset, and the tensor engine's scale
;   read returns its byte in every partition), then quantizes W1, X and W2 from BF16 to MXFP8
;   (E4M3FN, blocks of 32 partitions or all of them) with quantize_mx, each with its scale tensor;
; - tensor: H = W1^T X on MX operands into PSUM bank 0; scalar: gelu to BF16;
; - vector: H quantized to MXFP8; tensor: Y = W2^T H on MX operands into bank 1; scalar: Y to BF16.
; HBM in: X row-major [D][N] at HX, W1 row-major [D][F] at HW1, W2 row-major [F][E] at HW2.
; HBM out: Y row-major [E][N] at HY.
.const D = PARTS
.const F = COLS
.const E = COLS
.const N = MAX_N
; SBUF (64-byte aligned regions): BF16 operands, their MXFP8 codes, the scale tensors together
.const AX = 0
.const AW1 = AX + 64 * cdiv(2 * N, 64)
.const AW2 = AW1 + 64 * cdiv(2 * F, 64)
.const AH = AW2 + 64 * cdiv(2 * E, 64)
.const AY = AH + 64 * cdiv(2 * N, 64)
.const AXq = AY + 64 * cdiv(2 * N, 64)
.const AW1q = AXq + 64 * cdiv(N, 64)
.const AW2q = AW1q + 64 * cdiv(F, 64)
.const AHq = AW2q + 64 * cdiv(E, 64)
.const ASC = AHq + 64 * cdiv(N, 64)  ; scale tensors: X's (N bytes), W1's (F), W2's (E), H's (N)
.const AXs = ASC
.const AW1s = AXs + N
.const AW2s = AW1s + F
.const AHs = AW2s + E
.const HX = 0
.const HW1 = HX + 2 * D * N
.const HW2 = HW1 + 2 * D * F
.const HY = HW2 + 2 * F * E
.sem ld, q, mm1, h, mm2, ev, out

.stream sync
.for p = 0, PARTS
.if p >= PARTS - QUEUES
    dma_start queue=p%QUEUES src=hbm:HX+2*N*p dst=sbuf:sb(p, AX) len=2*N stype=bf16 dtype=bf16
    dma_start queue=p%QUEUES src=hbm:HW1+2*F*p dst=sbuf:sb(p, AW1) len=2*F stype=bf16 dtype=bf16 dsem=ld+=1
.else
    dma_start queue=p%QUEUES src=hbm:HX+2*N*p dst=sbuf:sb(p, AX) len=2*N stype=bf16 dtype=bf16
    dma_start queue=p%QUEUES src=hbm:HW1+2*F*p dst=sbuf:sb(p, AW1) len=2*F stype=bf16 dtype=bf16
.endif
.endfor
.for f = 0, F
.if f >= F - QUEUES
    dma_start queue=f%QUEUES src=hbm:HW2+2*E*f dst=sbuf:sb(f, AW2) len=2*E stype=bf16 dtype=bf16 dsem=ld+=1
.else
    dma_start queue=f%QUEUES src=hbm:HW2+2*E*f dst=sbuf:sb(f, AW2) len=2*E stype=bf16 dtype=bf16
.endif
.endfor
.for m = 0, E
.if m >= E - QUEUES
    dma_start engine=DMA_ENGINES-1 queue=m%QUEUES src=sbuf:sb(m, AY) dst=hbm:HY+2*N*m len=2*N stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=1
.else
    dma_start engine=DMA_ENGINES-1 queue=m%QUEUES src=sbuf:sb(m, AY) dst=hbm:HY+2*N*m len=2*N stype=bf16 dtype=bf16 wait=ev>=1
.endif
.endfor
    end

.stream vector
    memset pc=PARTS size=2*N+F+E o=sbuf:ASC:uint8 o.stride=1
    quantize_mx pc=D size=F a=sbuf:AW1:bf16 a.stride=1 o=sbuf:AW1q:e4m3fn o.stride=1 o.mx sc=AW1s wait=ld>=min(D,QUEUES)+min(F,QUEUES) post=q+=1
    quantize_mx pc=D size=N a=sbuf:AX:bf16 a.stride=1 o=sbuf:AXq:e4m3fn o.stride=1 o.mx sc=AXs post=q+=1
    quantize_mx pc=F size=E a=sbuf:AW2:bf16 a.stride=1 o=sbuf:AW2q:e4m3fn o.stride=1 o.mx sc=AW2s post=q+=1
    quantize_mx pc=F size=N a=sbuf:AH:bf16 a.stride=1 o=sbuf:AHq:e4m3fn o.stride=1 o.mx sc=AHs wait=h>=1 post=q+=1
    end

.stream tensor
    load_stationary t=AW1q:e4m3fn k=D m=F mx sc=AW1s wait=q>=1
    multiply_moving t=AXq:e4m3fn n=N bank=0 mx sc=AXs wait=q>=2 post=mm1+=1
    load_stationary t=AW2q:e4m3fn k=F m=E mx sc=AW2s wait=q>=4
    multiply_moving t=AHq:e4m3fn n=N bank=1 mx sc=AHs post=mm2+=1
    end

.stream scalar
    activate pc=F size=N a=psum:0:fp32 a.stride=1 o=sbuf:AH:bf16 o.stride=1 func=gelu imm0=f32(1.0) wait=mm1>=1 post=h+=1
    activate pc=E size=N a=psum:PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AY:bf16 o.stride=1 func=identity imm0=f32(1.0) wait=mm2>=1 post=ev+=1
    end
