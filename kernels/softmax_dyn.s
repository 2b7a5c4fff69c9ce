; softmax_dyn.s — softmax.s with its shape read at run time: one binary for every row length
; n <= MAX_N and block count RB <= RBMAX, Y[r, :] = exp(X[r, :] - max X[r, :]) / sum exp(...), FP32,
; R = RB * PARTS rows, a row per partition in blocks of PARTS rows (docs/kernels.md).
;
; The argument block at HBM ARGS (four 32-bit words): n, RB, HX (X's address: row-major [R][n]
; FP32), HY (Y's address, the same layout). Each stream loads the words it needs into its own
; registers (reg_load) and runs counted loops over the blocks (loop); the shapes reach the
; instructions as registers: size=r1 (n), len=r5 (a row's 4n bytes), the SBUF block offset r6 in
; every address, and the waits' counts (wait=ld>=r8) that grow by a block's completions each pass.
; SBUF is laid out for MAX_N (RS bytes a block), so RBMAX blocks must fit.
;
; Per block as in softmax.s: the vector engine takes the row maximum and subtracts it, the scalar
; engine takes exp with the lane accumulators summing the row, stores the sums and their
; reciprocals, the vector engine multiplies by the reciprocal. The vector stream takes block
; b + 1's maximum before block b's product, so it overlaps the scalar engine's exp of block b.
.default RBMAX = 3
.default ARGS = 0
.const NMAX = MAX_N
.const RS = 64 * cdiv(16 * NMAX + 16, 64)
.const OX = 0
.const OT = 4 * NMAX
.const OE = 8 * NMAX
.const OY = 12 * NMAX
.const OM = 16 * NMAX
.const OS = OM + 4
.const OR = OM + 8
.const Q = min(PARTS, QUEUES)    ; loads (and stores) of a block that add to their semaphore
.sem ld, sub, rcp, mul, out

.stream sync
    reg_load r1, hbm:ARGS              ; n
    reg_load r2, hbm:ARGS+4            ; RB
    reg_load r3, hbm:ARGS+8            ; X's next row
    reg_load r4, hbm:ARGS+12           ; Y's next row
    reg_mul r5, r1, 4                  ; a row's bytes
    reg_set r6, 0                      ; the block's SBUF offset
    reg_add r7, r2, 0                  ; passes
y_ld:
.for p = 0, PARTS
.if p >= PARTS - QUEUES
    dma_start queue=p%QUEUES src=hbm:r3 dst=sbuf:r6+sb(p, OX) len=r5 stype=fp32 dtype=fp32 dsem=ld+=1
.else
    dma_start queue=p%QUEUES src=hbm:r3 dst=sbuf:r6+sb(p, OX) len=r5 stype=fp32 dtype=fp32
.endif
    reg_add r3, r3, r5
.endfor
    reg_add r6, r6, RS
    loop r7, y_ld
    reg_set r6, 0
    reg_add r7, r2, 0
    reg_set r8, 1                      ; the block's product to wait for: b + 1
y_st:
.for p = 0, PARTS
.if p >= PARTS - QUEUES
    dma_start engine=DMA_ENGINES-1 queue=p%QUEUES src=sbuf:r6+sb(p, OY) dst=hbm:r4 len=r5 stype=fp32 dtype=fp32 dsem=out+=1 wait=mul>=r8
.else
    dma_start engine=DMA_ENGINES-1 queue=p%QUEUES src=sbuf:r6+sb(p, OY) dst=hbm:r4 len=r5 stype=fp32 dtype=fp32 wait=mul>=r8
.endif
    reg_add r4, r4, r5
.endfor
    reg_add r6, r6, RS
    reg_add r8, r8, 1
    loop r7, y_st
    end

.stream vector
    reg_load r1, hbm:ARGS
    reg_load r2, hbm:ARGS+4
    reg_set r6, 0                      ; block b's SBUF offset
    reg_set r8, 2*Q                    ; block b + 1's loads: (b + 2) Q
    reg_set r9, 1                      ; b + 1
    reg_add r7, r2, 0
    tensor_reduce pc=PARTS size=r1 a=sbuf:OX:fp32 a.stride=1 o=sbuf:OM:fp32 alu0=max wait=ld>=Q
    tensor_scalar pc=PARTS size=r1 a=sbuf:OX:fp32 a.stride=1 o=sbuf:OT:fp32 o.stride=1 alu0=sub alu1=bypass s0=OM post=sub+=1
v_blk:
    branch geu, r9, r2, v_mul          ; no block b + 1
    tensor_reduce pc=PARTS size=r1 a=sbuf:r6+RS+OX:fp32 a.stride=1 o=sbuf:r6+RS+OM:fp32 alu0=max wait=ld>=r8
    tensor_scalar pc=PARTS size=r1 a=sbuf:r6+RS+OX:fp32 a.stride=1 o=sbuf:r6+RS+OT:fp32 o.stride=1 alu0=sub alu1=bypass s0=r6+RS+OM post=sub+=1
v_mul:
    tensor_scalar pc=PARTS size=r1 a=sbuf:r6+OE:fp32 a.stride=1 o=sbuf:r6+OY:fp32 o.stride=1 alu0=mul alu1=bypass s0=r6+OR wait=rcp>=r9 post=mul+=1
    reg_add r6, r6, RS
    reg_add r8, r8, Q
    reg_add r9, r9, 1
    loop r7, v_blk
    end

.stream scalar
    reg_load r1, hbm:ARGS
    reg_load r2, hbm:ARGS+4
    reg_set r6, 0
    reg_set r9, 1
    reg_add r7, r2, 0
s_blk:
    activate pc=PARTS size=r1 a=sbuf:r6+OT:fp32 a.stride=1 o=sbuf:r6+OE:fp32 o.stride=1 func=exp imm0=f32(1.0) acc acc_clr wait=sub>=r9
    acc_store pc=PARTS o=sbuf:r6+OS:fp32
    activate pc=PARTS size=1 a=sbuf:r6+OS:fp32 o=sbuf:r6+OR:fp32 func=reciprocal imm0=f32(1.0) post=rcp+=1
    reg_add r6, r6, RS
    reg_add r9, r9, 1
    loop r7, s_blk
    end
