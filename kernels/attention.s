; attention.s — one attention head: O = softmax(Q K^T / sqrt(d)) V, BF16 in and out, FP32 inside.
; Lq = QT * COLS queries in QT query tiles, Lk = MAX_N keys, head dimension d = PARTS for Q and K
; and e = PARTS for V. -D QT=.. changes the query tiles (default 1).
;
; Schedule (docs/kernels.md), per query tile q:
; - tensor: S = Q K^T into PSUM bank q % 2 (stationary Q^T tile [d, COLS], moving K^T [d, Lk]):
;   row i of S in partition i.
; - softmax of S's rows with the scale: the vector engine takes the row maximum from PSUM and makes
;   -scale max; the scalar engine takes exp(scale S - scale max) from PSUM with the accumulators
;   summing it, stores the sums and their reciprocals; the vector engine multiplies: P [COLS, Lk]
;   in FP32 in SBUF.
; - P V needs the keys on the partitions. Per key tile of COLS keys, the tensor engine transposes
;   P's tile (a transpose LoadStationary and MultiplyMoving of the FP32 codes into one of PSUM banks
;   2 .. 5, in turn) and the vector engine copies it to SBUF as BF16: P^T tile [COLS, COLS]. The
;   next tile's transpose runs while the vector engine copies this one.
; - tensor: O += P^T tile^T V tile over the key tiles, accumulating in PSUM bank 6 + q % 2; the
;   scalar engine evacuates O to BF16; the sync stream stores it.
; The query tiles overlap two deep: each stream takes tile q + 1's first steps between tile q's
; (tensor: S of q + 1, then P V of q - 1, then the transposes of q; vector: the maximum of q + 1
; after P of q and before its P^T copies; scalar: the exponentials of q + 1 before the evacuation
; of q), and the
; buffers a step of tile q writes while tile q - 1 may still read them come in pairs (S and O in
; PSUM; exp, P and P^T in SBUF). The waits that free a buffer for reuse follow from each stream's
; order:
; - S bank q % 2: the exponentials of q - 2 have read it (ex);
; - exp and P buffers q % 2: the vector engine's -scale max of q follows P of q - 1 and q - 2, and
;   P of q follows the P^T copies of q - 2, which followed their transposes (the readers of P);
; - P^T buffer q % 2: the copies of q follow the transposes of q, which follow the P V multiplies
;   of q - 1 and so of q - 2 (the readers of the buffer);
; - transpose bank g % 4 (g: the key tile's index over every query tile): its copy g - 4 (pt);
; - O bank 6 + q % 2: the evacuation of q - 2 (ev).
; The loads come in the order they are needed, each group with a semaphore of its own (a group's
; last descriptor on each queue posts it once): K and Q's tile 0 (ld: S of tile 0), Q's tile 1
; (q1: S of tile 1), V (vl: the first P V multiply), Q's other tiles (qr: S of tile 2). The three Q
; groups' semaphores are declared in a row: S of tile t waits for ld+min(t,2) (from tile 3 on, qr
; again, long since reached).
; HBM in: Q^T row-major [d][Lq] at HQ, K^T row-major [d][Lk] at HK, V row-major [Lk][e] at HV.
; HBM out: O row-major [Lq][e] at HO.
.default QT = 1
.const d = PARTS
.const e = PARTS
.const Lq = QT * COLS
.const Lk = MAX_N
.const JT = Lk / COLS               ; key tiles
; SBUF (64-byte aligned regions)
.const AQ = 0                       ; Q^T row t in partition t
.const AK = AQ + 64 * cdiv(2 * Lq, 64)   ; K^T row t in partition t
.const AV = AK + 64 * cdiv(2 * Lk, 64)   ; V row j in partition j % COLS at AV + (j / COLS) 2e
.const AE = AV + 64 * cdiv(JT * 2 * e, 64) ; exp(scale S - scale max), FP32 [COLS, Lk], buffer b at AE + b 4 Lk
.const AP = AE + 8 * Lk             ; P, FP32 [COLS, Lk], buffer b at AP + b 4 Lk
.const TB = 64 * cdiv(JT * 2 * COLS, 64) ; bytes of a P^T buffer
.const APT = AP + 8 * Lk            ; P^T tile jt of buffer b, BF16 [COLS, COLS], at APT + b TB + jt 2 COLS
.const AO = APT + 2 * TB            ; O of query tile q, BF16 [COLS, e], at AO + q 2e
.const AW = AO + 64 * cdiv(QT * 2 * e, 64) ; words of query tile q at AW + 16 q: max, -scale max, sum, reciprocal
.const HQ = 0
.const HK = HQ + 2 * d * Lq
.const HV = HK + 2 * d * Lk
.const HO = HV + 2 * Lk * e
.sem ld, q1, qr, s, nm, rcp, p, tr, pt, o, ev, out, ex, vl

.stream sync
; (Q^T's row t holds every query tile's 2 COLS bytes in turn)
.for t = 0, PARTS
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t dst=sbuf:sb(t, AQ) len=2*COLS stype=bf16 dtype=bf16
.if t >= PARTS - QUEUES
    dma_start queue=t%QUEUES src=hbm:HK+2*Lk*t dst=sbuf:sb(t, AK) len=2*Lk stype=bf16 dtype=bf16 dsem=ld+=1
.else
    dma_start queue=t%QUEUES src=hbm:HK+2*Lk*t dst=sbuf:sb(t, AK) len=2*Lk stype=bf16 dtype=bf16
.endif
.endfor
.if QT > 1
.for t = 0, PARTS
.if t >= PARTS - QUEUES
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t+2*COLS dst=sbuf:sb(t, AQ+2*COLS) len=2*COLS stype=bf16 dtype=bf16 dsem=q1+=1
.else
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t+2*COLS dst=sbuf:sb(t, AQ+2*COLS) len=2*COLS stype=bf16 dtype=bf16
.endif
.endfor
.endif
.for j = 0, Lk
.if j >= Lk - QUEUES
    dma_start queue=j%QUEUES src=hbm:HV+2*e*j dst=sbuf:sb(j%COLS, AV+(j/COLS)*2*e) len=2*e stype=bf16 dtype=bf16 dsem=vl+=1
.else
    dma_start queue=j%QUEUES src=hbm:HV+2*e*j dst=sbuf:sb(j%COLS, AV+(j/COLS)*2*e) len=2*e stype=bf16 dtype=bf16
.endif
.endfor
.if QT > 2
.for t = 0, PARTS
.if t >= PARTS - QUEUES
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t+4*COLS dst=sbuf:sb(t, AQ+4*COLS) len=2*COLS*(QT-2) stype=bf16 dtype=bf16 dsem=qr+=1
.else
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t+4*COLS dst=sbuf:sb(t, AQ+4*COLS) len=2*COLS*(QT-2) stype=bf16 dtype=bf16
.endif
.endfor
.endif
; O of each query tile once it is evacuated: a row a descriptor
.for q = 0, QT
.for i = 0, COLS
.if i >= COLS - QUEUES
    dma_start engine=DMA_ENGINES-1 queue=i%QUEUES src=sbuf:sb(i, AO+q*2*e) dst=hbm:HO+2*e*(q*COLS+i) len=2*e stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=q+1
.else
    dma_start engine=DMA_ENGINES-1 queue=i%QUEUES src=sbuf:sb(i, AO+q*2*e) dst=hbm:HO+2*e*(q*COLS+i) len=2*e stype=bf16 dtype=bf16 wait=ev>=q+1
.endif
.endfor
.endfor
    end

.stream tensor
; S of query tile qq for qq = 0, 1, then per step q: S of q + 1, P V of q - 1, the transposes of q
; (P V of a tile after the next tile's S: the vector engine's maximum of q + 1 waits for that S,
; which would otherwise queue behind P V's loads, each waiting for a P^T copy)
.for q = -1, QT + 1
.if q + 1 < QT
    load_stationary t=AQ+2*COLS*(q+1):bf16 k=d m=COLS wait=ld+min(q+1,2)>=min(PARTS,QUEUES)
    multiply_moving t=AK:bf16 n=Lk bank=(q+1)%2 post=s+=1 wait=ex>=max(q,0)
.endif
.if q >= 1
.set pq = q - 1
.for jt = 0, JT
    load_stationary t=APT+(pq%2)*TB+2*COLS*jt:bf16 k=COLS m=COLS wait=pt>=pq*JT+jt+1
.if jt == 0 && JT == 1 && pq == 0
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=6+pq%2 post=o+=1 wait=vl>=min(Lk,QUEUES)
.endif
.if jt == 0 && JT == 1 && pq > 0
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=6+pq%2 post=o+=1 wait=ev>=max(pq-1,0)
.endif
.if jt == 0 && JT > 1 && pq == 0
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=6+pq%2 wait=vl>=min(Lk,QUEUES)
.endif
.if jt == 0 && JT > 1 && pq > 0
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=6+pq%2 wait=ev>=max(pq-1,0)
.endif
.if jt > 0 && jt < JT - 1
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=6+pq%2 acc
.endif
.if jt > 0 && jt == JT - 1
    multiply_moving t=AV+2*e*jt:bf16 n=e bank=6+pq%2 acc post=o+=1
.endif
.endfor
.endif
.if q >= 0 && q < QT
.for jt = 0, JT
.if jt == 0
    load_stationary t=AP+(q%2)*4*Lk:fp32 k=COLS m=COLS tr wait=p>=q+1
.else
    load_stationary t=AP+(q%2)*4*Lk+4*COLS*jt:fp32 k=COLS m=COLS tr
.endif
    multiply_moving n=COLS bank=2+(q*JT+jt)%4 tr post=tr+=1 wait=pt>=max(q*JT+jt-3,0)
.endfor
.endif
.endfor
    end

.stream vector
; P of tile q, the maximum and -scale max of tile q + 1 (while the tensor engine transposes P's
; tiles), then the P^T copies of tile q
.for q = -1, QT
.if q >= 0
    tensor_scalar pc=COLS size=Lk a=sbuf:AE+(q%2)*4*Lk:fp32 a.stride=1 o=sbuf:AP+(q%2)*4*Lk:fp32 o.stride=1 alu0=mul alu1=bypass s0=AW+16*q+12 wait=rcp>=q+1 post=p+=1
.endif
.if q + 1 < QT
    tensor_reduce pc=COLS size=Lk a=psum:((q+1)%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AW+16*(q+1):fp32 alu0=max wait=s>=q+2
    tensor_scalar pc=COLS a=sbuf:AW+16*(q+1):fp32 o=sbuf:AW+16*(q+1)+4:fp32 alu0=mul imm0=f32rsqrt(d)^0x80000000 alu1=bypass post=nm+=1
.endif
.if q >= 0
.for jt = 0, JT
    copy pc=COLS size=COLS a=psum:(2+(q*JT+jt)%4)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:APT+(q%2)*TB+2*COLS*jt:bf16 o.stride=1 wait=tr>=q*JT+jt+1 post=pt+=1
.endfor
.endif
.endfor
    end

.stream scalar
; the exponentials of tile q + 1, then the evacuation of tile q
.for q = -1, QT
.if q + 1 < QT
    activate pc=COLS size=Lk a=psum:((q+1)%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AE+((q+1)%2)*4*Lk:fp32 o.stride=1 func=exp imm0=f32rsqrt(d) s1=AW+16*(q+1)+4 acc acc_clr wait=nm>=q+2 post=ex+=1
    acc_store pc=COLS o=sbuf:AW+16*(q+1)+8:fp32
    activate pc=COLS a=sbuf:AW+16*(q+1)+8:fp32 o=sbuf:AW+16*(q+1)+12:fp32 func=reciprocal imm0=f32(1.0) post=rcp+=1
.endif
.if q >= 0
    activate pc=COLS size=e a=psum:(6+q%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AO+q*2*e:bf16 o.stride=1 func=identity imm0=f32(1.0) wait=o>=q+1 post=ev+=1
.endif
.endfor
    end
