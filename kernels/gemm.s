; gemm.s — tiled GEMM: C[M, N] = gelu(W[K, M]^T X[K, N] + bias[M]) in BF16 with FP32 accumulation,
; larger than the tensor engine in every dimension: K = KT * PARTS, M = MT * COLS, N = NT * MAX_N.
; -D KT=.. -D MT=.. -D NT=.. change the tile counts (trnsim kernel gemm -D NT=8); -D ST=.. the X
; tiles a store descriptor covers.
;
; Schedule (docs/kernels.md):
; - sync: the bias (col-4B, an FP32 word per partition); W (all of it stays in SBUF) and X tile 0
;   together by k-tile; then X in column tiles of MAX_N through two SBUF buffers. The load of tile
;   nt + 2 into a buffer waits until every matmul of tile nt, which read that buffer, is done, so
;   the DMA fills one buffer while the tensor engine reads the other. Each output tile is stored as
;   soon as it is evacuated. Every transfer lands in one partition (the row layout writes a beat
;   per cycle; a column layout, an element), and the descriptors spread over every queue of half
;   the DMA engines for loads and of the other half for stores, so that the core's HBM -> SBUF and
;   SBUF -> HBM paths move a beat each in the same cycle (an engine issues one read a cycle).
; - tensor: per output tile (nt, mt), KT LoadStationary / MultiplyMoving pairs accumulating over K
;   in one PSUM bank (the first overwrites, the rest accumulate). The output tiles take the PSUM
;   banks in turn; a bank is reused once the scalar engine has evacuated it.
;   X tile 0 goes k-tile by k-tile (each k-tile's multiplies for every output tile, MT banks at
;   once, where MT <= PSUM_BANKS), so that the multiplies start with the first k-tile of the load.
; - scalar: per output tile, activate: gelu(psum + bias) to BF16 in SBUF.
; HBM in, laid out as the loads want them (a partition's rows contiguous):
;   W as [PARTS][KT][M] at HW: row k = kt PARTS + p at HW + 2M (KT p + kt);
;   X as [NT][PARTS][KT][TN] at HX: row k of column tile nt at HX + 2 TN (KT (PARTS nt + p) + kt);
;   bias FP32 [M] at HB.
; HBM out: C row-major [M][N] at HC.
.default KT = 4
.default MT = 2
.default NT = 4
.default ST = 1                    ; X tiles a store descriptor covers (fewer descriptors a row of C)
.const TN = MAX_N
.const K = KT * PARTS
.const M = MT * COLS
.const N = NT * TN
.const XB = KT * 2 * TN            ; bytes per partition of one X buffer
; SBUF, every region 64-byte aligned (the DMA's beats stay within an SBUF line and bank)
.const AW = 0                      ; W row k in partition k % PARTS at AW + (k / PARTS) 2M
.const AX = AW + cdiv(KT * 2 * M, 64) * 64 ; X buffer b: (k, n) of a tile in partition k % PARTS at AX + b XB + (k / PARTS) 2 TN + 2n
.const AC = AX + 2 * XB            ; C row mt COLS + p in partition p at AC + 2N mt
.const AB = AC + MT * 2 * N        ; bias of row mt COLS + p in partition p at AB + 4 mt
.const HW = 0
.const HX = HW + 2 * K * M
.const HB = HX + 2 * K * N
.const HC = HB + 4 * M
; DMA engines: the loads on engines 0 .. LE - 1 and the stores on SE0 .. SE0 + SE - 1 (one engine
; for both where the core has one), partition p's descriptor on engine (p / QUEUES) % LE (or SE0 +
; (p / QUEUES) % SE), queue p % QUEUES: the engines' queues hold a tile's descriptors, so the sync
; stream is not held by full queues, and the loads and stores take the core's two DMA channels.
; LG and SG are the (engine, queue) pairs a tile's loads and stores use.
.const LE = max(DMA_ENGINES / 2, 1)
.const SE0 = min(LE, DMA_ENGINES - 1)
.const SE = max(DMA_ENGINES - SE0, 1)
.const LG = min(PARTS, QUEUES * LE)
.const SG = min(COLS, QUEUES * SE)
.sem w_in, b_in, x0, x1, mm, ev, out

.stream sync
; A descriptor's completion waits until every earlier write of its queue is visible (docs/dma.md),
; so a group of descriptors on one queue needs a semaphore on its last descriptor only: each group
; below posts once per queue.
.for mt = 0, MT
    dma_start queue=mt%QUEUES src=hbm:HB+4*COLS*mt dst=sbuf:sb(0, AB+4*mt) len=4*COLS stype=fp32 dtype=fp32 layout=col4 cols=COLS dsem=b_in+=1
.endfor
; W and X tile 0 by k-tile, so the first matmuls start after the first k-tile
.for kt = 0, KT
.for p = 0, PARTS
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HW+2*M*(KT*p+kt) dst=sbuf:sb(p, AW+kt*2*M) len=2*M stype=bf16 dtype=bf16
.if p >= PARTS - LG
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+2*TN*(KT*p+kt) dst=sbuf:sb(p, AX+kt*2*TN) len=2*TN stype=bf16 dtype=bf16 dsem=w_in+=1
.else
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+2*TN*(KT*p+kt) dst=sbuf:sb(p, AX+kt*2*TN) len=2*TN stype=bf16 dtype=bf16
.endif
.endfor
.endfor
.for nt = 1, NT + 1
.if nt < NT
; X tile nt into buffer nt % 2, once the matmuls of tile nt - 2 are done with it: a descriptor per
; partition (its KT rows are contiguous in HBM)
.for p = 0, PARTS
.if p >= PARTS - LG && nt % 2 == 0
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+2*KT*TN*(PARTS*nt+p) dst=sbuf:sb(p, AX) len=2*KT*TN stype=bf16 dtype=bf16 dsem=x0+=1 wait=mm>=(nt-1)*MT
.endif
.if p >= PARTS - LG && nt % 2 == 1
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+2*KT*TN*(PARTS*nt+p) dst=sbuf:sb(p, AX+XB) len=2*KT*TN stype=bf16 dtype=bf16 dsem=x1+=1 wait=mm>=(nt-1)*MT
.endif
.if p < PARTS - LG
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+2*KT*TN*(PARTS*nt+p) dst=sbuf:sb(p, AX+(nt%2)*XB) len=2*KT*TN stype=bf16 dtype=bf16 wait=mm>=max(nt-1,0)*MT
.endif
.endfor
.endif
; the output tiles of X tiles (nt - 1) / ST * ST .. nt - 1 (ST of them, fewer at the end), each
; once it is evacuated: a row of C per descriptor (the tiles' rows are contiguous in SBUF and HBM)
.if nt % ST == 0 || nt == NT
.for mt = 0, MT
.for p = 0, COLS
.if p >= COLS - SG
    dma_start engine=SE0+(p/QUEUES)%SE queue=p%QUEUES src=sbuf:sb(p, AC+2*N*mt+2*TN*((nt-1)/ST*ST)) dst=hbm:HC+2*N*(mt*COLS+p)+2*TN*((nt-1)/ST*ST) len=2*TN*(nt-(nt-1)/ST*ST) stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=(nt-1)*MT+mt+1
.else
    dma_start engine=SE0+(p/QUEUES)%SE queue=p%QUEUES src=sbuf:sb(p, AC+2*N*mt+2*TN*((nt-1)/ST*ST)) dst=hbm:HC+2*N*(mt*COLS+p)+2*TN*((nt-1)/ST*ST) len=2*TN*(nt-(nt-1)/ST*ST) stype=bf16 dtype=bf16 wait=ev>=(nt-1)*MT+mt+1
.endif
.endfor
.endfor
.endif
.endfor
    end

.stream tensor
.for nt = 0, NT
.if nt == 0 && MT <= PSUM_BANKS
; X tile 0 k-tile by k-tile as it arrives: every output tile's multiply of k-tile kt, each output
; tile accumulating in its own bank, so the tensor engine works while W and X tile 0 load
.for kt = 0, KT
.for mt = 0, MT
.if mt == 0
    load_stationary t=AW+kt*2*M:bf16 k=PARTS m=COLS wait=w_in>=(kt+1)*LG
.else
    load_stationary t=AW+kt*2*M+mt*2*COLS:bf16 k=PARTS m=COLS
.endif
.if kt == 0 && KT > 1
    multiply_moving t=AX:bf16 n=TN bank=mt
.endif
.if kt == 0 && KT == 1
    multiply_moving t=AX:bf16 n=TN bank=mt post=mm+=1
.endif
.if kt > 0 && kt < KT - 1
    multiply_moving t=AX+kt*2*TN:bf16 n=TN bank=mt acc
.endif
.if kt > 0 && kt == KT - 1
    multiply_moving t=AX+kt*2*TN:bf16 n=TN bank=mt acc post=mm+=1
.endif
.endfor
.endfor
.else
.for mt = 0, MT
.for kt = 0, KT
.if nt == 0 && mt == 0
    load_stationary t=AW+kt*2*M+mt*2*COLS:bf16 k=PARTS m=COLS wait=w_in>=(kt+1)*LG
.endif
.if nt > 0 && mt == 0 && kt == 0 && nt % 2 == 0
    load_stationary t=AW+kt*2*M+mt*2*COLS:bf16 k=PARTS m=COLS wait=x0>=nt/2*LG
.endif
.if nt > 0 && mt == 0 && kt == 0 && nt % 2 == 1
    load_stationary t=AW+kt*2*M+mt*2*COLS:bf16 k=PARTS m=COLS wait=x1>=(nt+1)/2*LG
.endif
.if mt > 0 || (kt > 0 && nt > 0)
    load_stationary t=AW+kt*2*M+mt*2*COLS:bf16 k=PARTS m=COLS
.endif
.if kt == 0 && KT > 1
    multiply_moving t=AX+(nt%2)*XB:bf16 n=TN bank=(nt*MT+mt)%PSUM_BANKS wait=ev>=max(nt*MT+mt+1-PSUM_BANKS,0)
.endif
.if kt == 0 && KT == 1
    multiply_moving t=AX+(nt%2)*XB:bf16 n=TN bank=(nt*MT+mt)%PSUM_BANKS wait=ev>=max(nt*MT+mt+1-PSUM_BANKS,0) post=mm+=1
.endif
.if kt > 0 && kt < KT - 1
    multiply_moving t=AX+(nt%2)*XB+kt*2*TN:bf16 n=TN bank=(nt*MT+mt)%PSUM_BANKS acc
.endif
.if kt > 0 && kt == KT - 1
    multiply_moving t=AX+(nt%2)*XB+kt*2*TN:bf16 n=TN bank=(nt*MT+mt)%PSUM_BANKS acc post=mm+=1
.endif
.endfor
.endfor
.endif
.endfor
    end

.stream scalar
    sem_wait wait=b_in>=MT
.for nt = 0, NT
.for mt = 0, MT
    activate pc=COLS size=TN a=psum:((nt*MT+mt)%PSUM_BANKS)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AC+2*N*mt+2*TN*nt:bf16 o.stride=1 func=gelu imm0=f32(1.0) s1=AB+4*mt wait=mm>=nt*MT+mt+1 post=ev+=1
.endfor
.endfor
    end
