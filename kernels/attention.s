; attention.s — one attention head: O = softmax(Q K^T / sqrt(d)) V, BF16 in and out, FP32 inside.
; Lq = QT * COLS queries in QT query tiles, Lk = MAX_N keys, head dimension d = PARTS for Q and K
; and e = PARTS for V. -D QT=.. changes the query tiles (default 1).
;
; Schedule (docs/kernels.md), per query tile q:
; - tensor: S = Q K^T into PSUM bank q % 2 (stationary Q^T tile [d, COLS], moving K^T [d, Lk]):
;   row i of S in partition i. Tile 0 multiplies K a key tile at a time, as each arrives.
; - softmax of S's rows with the scale: the vector engine takes the row maximum from PSUM and makes
;   -scale max; the scalar engine takes E = exp(scale S - scale max) from PSUM into SBUF (FP32
;   [COLS, Lk]) a key tile at a time, the accumulators summing the row, and stores the sums and
;   their reciprocals. The
;   division by the sum waits for O (below): P = E / sum is never formed.
; - E V needs the keys on the partitions. Per key tile of COLS keys, once its exponentials are
;   in, the tensor engine transposes E's tile (a transpose LoadStationary and MultiplyMoving of the FP32 codes into one of PSUM banks
;   2 .. 5, in turn) and the vector engine copies it to SBUF as BF16: E^T tile [COLS, COLS]. The
;   next tile's transpose runs while the vector engine copies this one.
; - tensor: O' += E^T tile^T V tile over the key tiles, accumulating in PSUM bank 6 + q % 2; the
;   scalar engine evacuates O = O' times the row's reciprocal sum (a per-partition scale) to BF16;
;   the sync stream stores it.
; The query tiles overlap two deep: each stream takes tile q + 1's first steps between tile q's
; (tensor: S of q + 1, then E V of q - 1, then the transposes of q, the last step interleaving
; them key tile by key tile; vector: the maximum of q + 1
; before the E^T copies of q; scalar: the exponentials of q + 1 before the evacuation of q), and
; the buffers a step of tile q writes while tile q - 1 may still read them come in pairs (S and O
; in PSUM; E and E^T in SBUF). The waits that free a buffer for reuse follow from each stream's
; order:
; - S bank q % 2: the exponentials of q - 2 have read it (ex, JT posts a tile);
; - E buffer q % 2: the exponentials of q wait for the vector engine's -scale max of q, which
;   follows the E^T copies of q - 2, each of which waited for its transpose (the readers of E);
; - E^T buffer q % 2: the copies of q follow the transposes of q, which follow the E V multiplies
;   of q - 2 (the readers of the buffer: every step before q's, the loads one at a time);
; - transpose bank g % 4 (g: the key tile's index over every query tile): its copy g - 4 (pt);
; - O bank 6 + q % 2: the evacuation of q - 2 (ev).
; The loads come in the order they are needed, each group with a semaphore of its own (a group's
; last descriptor on each queue posts it once): Q's tile 0 and K in JT chunks (k0 and k1 in turn,
; below: S of tile 0 multiplies each chunk as it arrives), Q's tile 1
; (q1: S of tile 1), V (vl: the first E V multiply), Q's other tiles one at a time (tile t >= 2 on
; qr+t%2 in turn, as K's chunks: S of tile t waits for its own tile, not for all of Q). The
; vector engine takes tile 0's maximum a key tile at a time as S's key tiles are multiplied (sc:
; the first JT - 1 of them), so that the softmax starts as K's last chunk arrives.
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
.const AE = AV + 64 * cdiv(JT * 2 * e, 64) ; E = exp(scale S - scale max), FP32 [COLS, Lk], buffer b at AE + b 4 Lk
.const TB = 64 * cdiv(JT * 2 * COLS, 64) ; bytes of an E^T buffer
.const APT = AE + 8 * Lk            ; E^T tile jt of buffer b, BF16 [COLS, COLS], at APT + b TB + jt 2 COLS
.const AO = APT + 2 * TB            ; O of query tile q, BF16 [COLS, e], at AO + q 2e
.const AW = AO + 64 * cdiv(QT * 2 * e, 64) ; words of query tile q at AW + 16 q: max, -scale max, sum, reciprocal
.const AW2 = AW + 64 * cdiv(16 * QT, 64) ; tile 0's maximum of each key tile, a word each
.const HQ = 0
.const HK = HQ + 2 * d * Lq
.const HV = HK + 2 * d * Lk
.const HO = HV + 2 * Lk * e
.sem k0, k1, q1, qr, qr1, s, nm, tr, pt, o, ev, out, ex, vl, sc

.stream sync
; (Q^T's row t holds every query tile's 2 COLS bytes in turn)
.for t = 0, PARTS
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t dst=sbuf:sb(t, AQ) len=2*COLS stype=bf16 dtype=bf16
.endfor
; K^T in JT chunks of COLS keys, S of tile 0 multiplying each as it arrives. Chunk c posts k0+c%2
; (a pair: a count over several queues says nothing of a chunk while a later chunk on one queue can
; post before an earlier one on another), and its first descriptor waits until chunk c - 2, which
; posted the same semaphore, is in on every queue: so k0+c%2 reaches (c/2 + 1) min(PARTS, QUEUES)
; only once chunk c is in everywhere (and Q's tile 0, before it on each queue).
.for c = 0, JT
.for t = 0, PARTS
.if t >= PARTS - QUEUES
    dma_start queue=t%QUEUES src=hbm:HK+2*Lk*t+2*COLS*c dst=sbuf:sb(t, AK+2*COLS*c) len=2*COLS stype=bf16 dtype=bf16 dsem=k0+c%2+=1 wait=k0+c%2>=(c/2)*min(PARTS,QUEUES)*(t==0)
.else
    dma_start queue=t%QUEUES src=hbm:HK+2*Lk*t+2*COLS*c dst=sbuf:sb(t, AK+2*COLS*c) len=2*COLS stype=bf16 dtype=bf16 wait=k0+c%2>=(c/2)*min(PARTS,QUEUES)*(t==0)
.endif
.endfor
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
; Q's tiles 2 .. QT - 1, tile u + 2 on qr+u%2 once tile u (the pair's last) is in on every queue
.for u = 0, QT - 2
.for t = 0, PARTS
.if t >= PARTS - QUEUES
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t+2*COLS*(u+2) dst=sbuf:sb(t, AQ+2*COLS*(u+2)) len=2*COLS stype=bf16 dtype=bf16 dsem=qr+u%2+=1 wait=qr+u%2>=(u/2)*min(PARTS,QUEUES)*(t==0)
.else
    dma_start queue=t%QUEUES src=hbm:HQ+2*Lq*t+2*COLS*(u+2) dst=sbuf:sb(t, AQ+2*COLS*(u+2)) len=2*COLS stype=bf16 dtype=bf16 wait=qr+u%2>=(u/2)*min(PARTS,QUEUES)*(t==0)
.endif
.endfor
.endfor
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
; S of query tile qq for qq = 0, 1, then per step q: S of q + 1, E V of q - 1, the transposes of q
; (E V of a tile after the next tile's S: the vector engine's maximum of q + 1 waits for that S,
; which would otherwise queue behind E V's loads, each waiting for an E^T copy)
.for q = -1, QT + 1
.if q + 1 == 0
    load_stationary t=AQ:bf16 k=d m=COLS wait=k0>=min(PARTS,QUEUES)
.for c = 0, JT
.if c == JT - 1
    multiply_moving t=AK+2*COLS*c:bf16 n=COLS bank=0 off=COLS*c post=s+=1 wait=k0+c%2>=(c/2+1)*min(PARTS,QUEUES)
.else
    multiply_moving t=AK+2*COLS*c:bf16 n=COLS bank=0 off=COLS*c post=sc+=1 wait=k0+c%2>=(c/2+1)*min(PARTS,QUEUES)
.endif
.endfor
.endif
.if q + 1 > 0 && q + 1 < QT
.if q + 1 == 1
    load_stationary t=AQ+2*COLS*(q+1):bf16 k=d m=COLS wait=q1>=min(PARTS,QUEUES)
.else
    load_stationary t=AQ+2*COLS*(q+1):bf16 k=d m=COLS wait=qr+(q-1)%2>=((q-1)/2+1)*min(PARTS,QUEUES)
.endif
    multiply_moving t=AK:bf16 n=Lk bank=(q+1)%2 post=s+=1 wait=ex>=max(q,0)*JT
.endif
; E V of q - 1 (key tile by key tile), then the transposes of q; the last step interleaves them, a
; transpose of q then E V of q - 1 for each key tile: each E V fills the tensor engine's wait for
; the next key tile's exponentials
.set trf = q == QT - 1
.for i = 0, 2 * JT
.if trf
.set kj = i / 2
.set isv = i % 2
.else
.set kj = i % JT
.set isv = i < JT
.endif
.if isv && q >= 1
.set pq = q - 1
    load_stationary t=APT+(pq%2)*TB+2*COLS*kj:bf16 k=COLS m=COLS wait=pt>=pq*JT+kj+1
.if kj == 0 && JT == 1 && pq == 0
    multiply_moving t=AV+2*e*kj:bf16 n=e bank=6+pq%2 post=o+=1 wait=vl>=min(Lk,QUEUES)
.endif
.if kj == 0 && JT == 1 && pq > 0
    multiply_moving t=AV+2*e*kj:bf16 n=e bank=6+pq%2 post=o+=1 wait=ev>=max(pq-1,0)
.endif
.if kj == 0 && JT > 1 && pq == 0
    multiply_moving t=AV+2*e*kj:bf16 n=e bank=6+pq%2 wait=vl>=min(Lk,QUEUES)
.endif
.if kj == 0 && JT > 1 && pq > 0
    multiply_moving t=AV+2*e*kj:bf16 n=e bank=6+pq%2 wait=ev>=max(pq-1,0)
.endif
.if kj > 0 && kj < JT - 1
    multiply_moving t=AV+2*e*kj:bf16 n=e bank=6+pq%2 acc
.endif
.if kj > 0 && kj == JT - 1
    multiply_moving t=AV+2*e*kj:bf16 n=e bank=6+pq%2 acc post=o+=1
.endif
.endif
.if !isv && q >= 0 && q < QT
    load_stationary t=AE+(q%2)*4*Lk+4*COLS*kj:fp32 k=COLS m=COLS tr wait=ex>=q*JT+kj+1
    multiply_moving n=COLS bank=2+(q*JT+kj)%4 tr post=tr+=1 wait=pt>=max(q*JT+kj-3,0)
.endif
.endfor
.endfor
    end

.stream vector
; the maximum and -scale max of tile q + 1 (while the tensor engine transposes E's tiles of q),
; then the E^T copies of tile q
.for q = -1, QT
.if q + 1 == 0 && JT > 1
.for c = 0, JT - 1
    tensor_reduce pc=COLS size=COLS a=psum:4*COLS*c:fp32 a.stride=1 o=sbuf:AW2+4*c:fp32 alu0=max wait=sc>=c+1
.endfor
    tensor_reduce pc=COLS size=COLS a=psum:4*COLS*(JT-1):fp32 a.stride=1 o=sbuf:AW2+4*(JT-1):fp32 alu0=max wait=s>=1
    tensor_reduce pc=COLS size=JT a=sbuf:AW2:fp32 a.stride=1 o=sbuf:AW:fp32 alu0=max
.endif
.if q + 1 < QT && (q + 1 > 0 || JT == 1)
    tensor_reduce pc=COLS size=Lk a=psum:((q+1)%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AW+16*(q+1):fp32 alu0=max wait=s>=q+2
.endif
.if q + 1 < QT
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
.for c = 0, JT
.if c == 0
    activate pc=COLS size=COLS a=psum:((q+1)%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AE+((q+1)%2)*4*Lk:fp32 o.stride=1 func=exp imm0=f32rsqrt(d) s1=AW+16*(q+1)+4 acc acc_clr wait=nm>=q+2 post=ex+=1
.else
    activate pc=COLS size=COLS a=psum:((q+1)%2)*PSUM_BANK_BYTES+4*COLS*c:fp32 a.stride=1 o=sbuf:AE+((q+1)%2)*4*Lk+4*COLS*c:fp32 o.stride=1 func=exp imm0=f32rsqrt(d) s1=AW+16*(q+1)+4 acc post=ex+=1
.endif
.endfor
    acc_store pc=COLS o=sbuf:AW+16*(q+1)+8:fp32
    activate pc=COLS a=sbuf:AW+16*(q+1)+8:fp32 o=sbuf:AW+16*(q+1)+12:fp32 func=reciprocal imm0=f32(1.0)
.endif
.if q >= 0
    activate pc=COLS size=e a=psum:(6+q%2)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AO+q*2*e:bf16 o.stride=1 func=identity s0=AW+16*q+12 wait=o>=q+1 post=ev+=1
.endif
.endfor
    end
