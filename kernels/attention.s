; attention.s — one attention head: O = softmax(Q K^T / sqrt(d)) V, BF16 in and out, FP32 inside.
; Lq = COLS queries, Lk = MAX_N keys, head dimension d = PARTS for Q and K and e = PARTS for V.
;
; Schedule (docs/kernels.md):
; - tensor: S = Q K^T into PSUM bank 0 (stationary Q^T [d, Lq], moving K^T [d, Lk]): row i of S in
;   partition i.
; - softmax of S's rows with the scale: the vector engine takes the row maximum from PSUM and makes
;   -scale max; the scalar engine takes exp(scale S - scale max) from PSUM with the accumulators
;   summing it, stores the sums and their reciprocals; the vector engine multiplies: P [Lq, Lk] in
;   FP32 in SBUF.
; - P V needs the keys on the partitions. Per key tile of COLS keys, the tensor engine transposes
;   P's tile (a transpose LoadStationary and MultiplyMoving of the FP32 codes into a PSUM bank) and
;   the vector engine copies it to SBUF as BF16: P^T tile [COLS, Lq]. The next tile's transpose
;   runs while the vector engine copies this one.
; - tensor: O += P^T tile^T V tile over the key tiles, accumulating in PSUM bank 7; the scalar
;   engine evacuates O to BF16; the sync stream stores it.
; HBM in: Q^T row-major [d][Lq] at HQ, K^T row-major [d][Lk] at HK, V row-major [Lk][e] at HV.
; HBM out: O row-major [Lq][e] at HO.
.const d = PARTS
.const e = PARTS
.const Lq = COLS
.const Lk = MAX_N
.const JT = Lk / COLS               ; key tiles
; SBUF (64-byte aligned regions)
.const AQ = 0                       ; Q^T row t in partition t
.const AK = AQ + 64 * cdiv(2 * Lq, 64)   ; K^T row t in partition t
.const AV = AK + 64 * cdiv(2 * Lk, 64)   ; V row j in partition j % COLS at AV + (j / COLS) 2e
.const AE = AV + 64 * cdiv(JT * 2 * e, 64) ; exp(scale S - scale max), FP32 [Lq, Lk]
.const AP = AE + 4 * Lk             ; P, FP32 [Lq, Lk]
.const APT = AP + 4 * Lk            ; P^T tile jt, BF16 [COLS, Lq], at APT + jt 2 Lq
.const AO = APT + 64 * cdiv(JT * 2 * Lq, 64) ; O, BF16 [Lq, e]
.const AW = AO + 64 * cdiv(2 * e, 64)    ; words: max, -scale max, sum, reciprocal
.const HQ = 0
.const HK = HQ + 2 * d * Lq
.const HV = HK + 2 * d * Lk
.const HO = HV + 2 * Lk * e
.sem ld, s, nm, rcp, p, tr, pt, o, ev, out

.stream sync
.for t = 0, PARTS
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t dst=sbuf:sb(t, AQ) len=2*Lq stype=bf16 dtype=bf16
.if t >= PARTS - QUEUES
    dma_start queue=t%QUEUES src=hbm:HK+2*Lk*t dst=sbuf:sb(t, AK) len=2*Lk stype=bf16 dtype=bf16 dsem=ld+=1
.else
    dma_start queue=t%QUEUES src=hbm:HK+2*Lk*t dst=sbuf:sb(t, AK) len=2*Lk stype=bf16 dtype=bf16
.endif
.endfor
.for j = 0, Lk
.if j >= Lk - QUEUES
    dma_start queue=j%QUEUES src=hbm:HV+2*e*j dst=sbuf:sb(j%COLS, AV+(j/COLS)*2*e) len=2*e stype=bf16 dtype=bf16 dsem=ld+=1
.else
    dma_start queue=j%QUEUES src=hbm:HV+2*e*j dst=sbuf:sb(j%COLS, AV+(j/COLS)*2*e) len=2*e stype=bf16 dtype=bf16
.endif
.endfor
.for i = 0, Lq
.if i >= Lq - QUEUES
    dma_start engine=DMA_ENGINES-1 queue=i%QUEUES src=sbuf:sb(i, AO) dst=hbm:HO+2*e*i len=2*e stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=1
.else
    dma_start engine=DMA_ENGINES-1 queue=i%QUEUES src=sbuf:sb(i, AO) dst=hbm:HO+2*e*i len=2*e stype=bf16 dtype=bf16 wait=ev>=1
.endif
.endfor
    end

.stream tensor
    load_stationary t=AQ:bf16 k=d m=Lq wait=ld>=2*min(PARTS,QUEUES)
    multiply_moving t=AK:bf16 n=Lk bank=0 post=s+=1
.for jt = 0, JT
.if jt == 0
    load_stationary t=AP:fp32 k=Lq m=COLS tr wait=p>=1
.else
    load_stationary t=AP+4*COLS*jt:fp32 k=Lq m=COLS tr
.endif
    multiply_moving n=Lq bank=1+jt%6 tr post=tr+=1 wait=pt>=max(jt-5,0)
.endfor
.for jt = 0, JT
    load_stationary t=APT+2*Lq*jt:bf16 k=COLS m=Lq wait=pt>=jt+1
.if jt == 0 && JT == 1
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=7 post=o+=1
.endif
.if jt == 0 && JT > 1
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=7
.endif
.if jt > 0 && jt < JT - 1
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=7 acc
.endif
.if jt > 0 && jt == JT - 1
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=7 acc post=o+=1
.endif
.endfor
    end

.stream vector
    tensor_reduce pc=Lq size=Lk a=psum:0:fp32 a.stride=1 o=sbuf:AW:fp32 alu0=max wait=s>=1
    tensor_scalar pc=Lq a=sbuf:AW:fp32 o=sbuf:AW+4:fp32 alu0=mul imm0=f32rsqrt(d)^0x80000000 alu1=bypass post=nm+=1
    tensor_scalar pc=Lq size=Lk a=sbuf:AE:fp32 a.stride=1 o=sbuf:AP:fp32 o.stride=1 alu0=mul alu1=bypass s0=AW+12 wait=rcp>=1 post=p+=1
.for jt = 0, JT
    copy pc=COLS size=Lq a=psum:(1+jt%6)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:APT+2*Lq*jt:bf16 o.stride=1 wait=tr>=jt+1 post=pt+=1
.endfor
    end

.stream scalar
    activate pc=Lq size=Lk a=psum:0:fp32 a.stride=1 o=sbuf:AE:fp32 o.stride=1 func=exp imm0=f32rsqrt(d) s1=AW+4 acc acc_clr wait=nm>=1
    acc_store pc=Lq o=sbuf:AW+8:fp32
    activate pc=Lq a=sbuf:AW+8:fp32 o=sbuf:AW+12:fp32 func=reciprocal imm0=f32(1.0) post=rcp+=1
    activate pc=Lq size=e a=psum:7*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AO:bf16 o.stride=1 func=identity imm0=f32(1.0) wait=o>=1 post=ev+=1
    end
