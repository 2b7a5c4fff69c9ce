; layernorm.s — layer norm over rows: Y[r, :] = (X[r, :] - mean) / sqrt(var + eps) * gamma + beta, FP32,
; R = RB * PARTS rows of n = MAX_N elements, a row per partition in blocks of PARTS rows; eps = 1e-5;
; gamma and beta are rows of n, the same for every row.
;
; Per block (docs/kernels.md), on the vector engine: the row sum (tensor_reduce add), the mean
; (x 1/n), x - mean (tensor_scalar with the mean per partition), its square (tensor_tensor mul),
; their sum, the variance + eps (x 1/n, + eps); on the scalar engine: rsqrt; on the vector engine
; again: x rsqrt (per partition), x gamma and + beta (tensor_tensor with the rows loaded into every
; partition). The vector engine works on block b + 1 while the scalar engine takes block b's rsqrt.
; HBM in: X row-major [R][n] FP32 at HX; gamma [n] and beta [n] FP32 at HG, HBE.
; HBM out: Y row-major [R][n] FP32 at HY.
.default RB = 2
.const n = MAX_N
.const R = RB * PARTS
.const RS = 64 * cdiv(16 * n + 16, 64)   ; SBUF bytes per block, 64-byte aligned
; a block's SBUF: X at 0, X - mean at 4n (later x gamma), its square at 8n (later the normalized
; row), Y at 12n, then the words: sum, mean, sum of squares, variance + eps, rsqrt
.const OX = 0
.const OC = 4 * n
.const OQ = 8 * n
.const OY = 12 * n
.const OW = 16 * n
.const AG = RS * RB                      ; gamma, then beta, in every partition
.const AB = AG + 4 * n
.const HX = 0
.const HG = HX + 4 * R * n
.const HBE = HG + 4 * n
.const HY = HBE + 4 * n
.sem ld, gb, var, rs, done, out

.stream sync
.for p = 0, PARTS
.if p >= PARTS - QUEUES
    dma_start queue=p%QUEUES src=hbm:HG dst=sbuf:sb(p, AG) len=4*n stype=fp32 dtype=fp32
    dma_start queue=p%QUEUES src=hbm:HBE dst=sbuf:sb(p, AB) len=4*n stype=fp32 dtype=fp32 dsem=gb+=1
.else
    dma_start queue=p%QUEUES src=hbm:HG dst=sbuf:sb(p, AG) len=4*n stype=fp32 dtype=fp32
    dma_start queue=p%QUEUES src=hbm:HBE dst=sbuf:sb(p, AB) len=4*n stype=fp32 dtype=fp32
.endif
.endfor
.for b = 0, RB
.for p = 0, PARTS
.if p >= PARTS - QUEUES
    dma_start queue=p%QUEUES src=hbm:HX+4*n*(b*PARTS+p) dst=sbuf:sb(p, RS*b+OX) len=4*n stype=fp32 dtype=fp32 dsem=ld+=1
.else
    dma_start queue=p%QUEUES src=hbm:HX+4*n*(b*PARTS+p) dst=sbuf:sb(p, RS*b+OX) len=4*n stype=fp32 dtype=fp32
.endif
.endfor
.endfor
.for b = 0, RB
.for p = 0, PARTS
.if p >= PARTS - QUEUES
    dma_start engine=DMA_ENGINES-1 queue=p%QUEUES src=sbuf:sb(p, RS*b+OY) dst=hbm:HY+4*n*(b*PARTS+p) len=4*n stype=fp32 dtype=fp32 dsem=out+=1 wait=done>=b+1
.else
    dma_start engine=DMA_ENGINES-1 queue=p%QUEUES src=sbuf:sb(p, RS*b+OY) dst=hbm:HY+4*n*(b*PARTS+p) len=4*n stype=fp32 dtype=fp32 wait=done>=b+1
.endif
.endfor
.endfor
    end

.stream vector
.for b = 0, RB + 1
.if b < RB
    tensor_reduce pc=PARTS size=n a=sbuf:RS*b+OX:fp32 a.stride=1 o=sbuf:RS*b+OW:fp32 alu0=add wait=ld>=(b+1)*min(PARTS,QUEUES)
    tensor_scalar pc=PARTS size=1 a=sbuf:RS*b+OW:fp32 o=sbuf:RS*b+OW+4:fp32 alu0=mul imm0=f32div(1,n) alu1=bypass
    tensor_scalar pc=PARTS size=n a=sbuf:RS*b+OX:fp32 a.stride=1 o=sbuf:RS*b+OC:fp32 o.stride=1 alu0=sub alu1=bypass s0=RS*b+OW+4
    tensor_tensor pc=PARTS size=n a=sbuf:RS*b+OC:fp32 a.stride=1 b=sbuf:RS*b+OC:fp32 b.stride=1 o=sbuf:RS*b+OQ:fp32 o.stride=1 alu0=mul
    tensor_reduce pc=PARTS size=n a=sbuf:RS*b+OQ:fp32 a.stride=1 o=sbuf:RS*b+OW+8:fp32 alu0=add
    tensor_scalar pc=PARTS size=1 a=sbuf:RS*b+OW+8:fp32 o=sbuf:RS*b+OW+12:fp32 alu0=mul imm0=f32div(1,n) alu1=add imm1=f32(0.00001) post=var+=1
.endif
.if b > 0
    tensor_scalar pc=PARTS size=n a=sbuf:RS*(b-1)+OC:fp32 a.stride=1 o=sbuf:RS*(b-1)+OQ:fp32 o.stride=1 alu0=mul alu1=bypass s0=RS*(b-1)+OW+16 wait=rs>=b
    tensor_tensor pc=PARTS size=n a=sbuf:RS*(b-1)+OQ:fp32 a.stride=1 b=sbuf:AG:fp32 b.stride=1 o=sbuf:RS*(b-1)+OC:fp32 o.stride=1 alu0=mul wait=gb>=min(PARTS,QUEUES)
    tensor_tensor pc=PARTS size=n a=sbuf:RS*(b-1)+OC:fp32 a.stride=1 b=sbuf:AB:fp32 b.stride=1 o=sbuf:RS*(b-1)+OY:fp32 o.stride=1 alu0=add post=done+=1
.endif
.endfor
    end

.stream scalar
.for b = 0, RB
    activate pc=PARTS size=1 a=sbuf:RS*b+OW+12:fp32 o=sbuf:RS*b+OW+16:fp32 func=rsqrt imm0=f32(1.0) wait=var>=b+1 post=rs+=1
.endfor
    end
