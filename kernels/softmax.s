; softmax.s — softmax over rows: Y[r, :] = exp(X[r, :] - max X[r, :]) / sum exp(X[r, :] - max), FP32,
; R = RB * PARTS rows of n = MAX_N elements, a row per partition in blocks of PARTS rows.
;
; Per block (docs/kernels.md): the vector engine takes the row maximum (tensor_reduce max) and
; subtracts it (tensor_scalar with the maximum as a per-partition operand); the scalar engine
; takes exp with the lane accumulators summing the row (activate exp, acc), stores the sums
; (acc_store) and their reciprocals (activate reciprocal); the vector engine multiplies by the
; reciprocal (tensor_scalar). Blocks pipeline: the vector engine works on block b + 1 while the
; scalar engine works on block b.
; HBM in: X row-major [R][n] FP32 at HX. HBM out: Y row-major [R][n] FP32 at HY.
.default RB = 2
.const n = MAX_N
.const R = RB * PARTS
.const RS = 64 * cdiv(16 * n + 16, 64)   ; SBUF bytes per block, 64-byte aligned
; a block's SBUF: X at 0, X - max at 4n, exp at 8n, Y at 12n, then the max, sum and reciprocal words
.const OX = 0
.const OT = 4 * n
.const OE = 8 * n
.const OY = 12 * n
.const OM = 16 * n
.const OS = OM + 4
.const OR = OM + 8
.const HX = 0
.const HY = HX + 4 * R * n
.sem ld, sub, rcp, mul, out

.stream sync
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
    dma_start engine=DMA_ENGINES-1 queue=p%QUEUES src=sbuf:sb(p, RS*b+OY) dst=hbm:HY+4*n*(b*PARTS+p) len=4*n stype=fp32 dtype=fp32 dsem=out+=1 wait=mul>=b+1
.else
    dma_start engine=DMA_ENGINES-1 queue=p%QUEUES src=sbuf:sb(p, RS*b+OY) dst=hbm:HY+4*n*(b*PARTS+p) len=4*n stype=fp32 dtype=fp32 wait=mul>=b+1
.endif
.endfor
.endfor
    end

.stream vector
.for b = 0, RB + 1
.if b < RB
    tensor_reduce pc=PARTS size=n a=sbuf:RS*b+OX:fp32 a.stride=1 o=sbuf:RS*b+OM:fp32 alu0=max wait=ld>=(b+1)*min(PARTS,QUEUES)
    tensor_scalar pc=PARTS size=n a=sbuf:RS*b+OX:fp32 a.stride=1 o=sbuf:RS*b+OT:fp32 o.stride=1 alu0=sub alu1=bypass s0=RS*b+OM post=sub+=1
.endif
.if b > 0
    tensor_scalar pc=PARTS size=n a=sbuf:RS*(b-1)+OE:fp32 a.stride=1 o=sbuf:RS*(b-1)+OY:fp32 o.stride=1 alu0=mul alu1=bypass s0=RS*(b-1)+OR wait=rcp>=b post=mul+=1
.endif
.endfor
    end

.stream scalar
.for b = 0, RB
    activate pc=PARTS size=n a=sbuf:RS*b+OT:fp32 a.stride=1 o=sbuf:RS*b+OE:fp32 o.stride=1 func=exp imm0=f32(1.0) acc acc_clr wait=sub>=b+1
    acc_store pc=PARTS o=sbuf:RS*b+OS:fp32
    activate pc=PARTS size=1 a=sbuf:RS*b+OS:fp32 o=sbuf:RS*b+OR:fp32 func=reciprocal imm0=f32(1.0) post=rcp+=1
.endfor
    end
