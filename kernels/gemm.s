; gemm.s — tiled GEMM: C[M, N] = gelu(W[K, M]^T X[K, N] + bias[M]) with FP32 accumulation and a
; BF16 result, larger than the tensor engine in every dimension: K = KT * R * PARTS, M = MT * COLS,
; N = NT * MAX_N. -D KT=.. -D MT=.. -D NT=.. change the tile counts (trnsim kernel gemm -D NT=8);
; -D ST=.. the X tiles a store descriptor covers; -D R=.. the operands' type by its rate, the K-rows
; a PE takes a cycle (docs/tensor.md, Rates):
;   R = 1: BF16, one row a PE, a column of a partition one 2-byte element;
;   R = 2: FP8 (E4M3), two rows a PE (v3+): partition r's 2-byte element holds rows 2r and 2r + 1;
;   R = 4: MXFP8 (E4M3FN with E8M0 scales), four rows a PE (v4): partition r's 4-byte element holds
;          rows 4r .. 4r + 3, and an MX block of 32 rows (8 partitions) has a scale a column in the
;          block's first partition.
; A k-tile is R * PARTS rows of K in the bytes a BF16 k-tile of PARTS rows takes (R = 2) or twice
; them (R = 4), so the loads per multiply are those of BF16 (R = 2) or twice (R = 4), the
; multiplies as long.
;
; Schedule (docs/kernels.md):
; - sync: the bias (col-4B, an FP32 word per partition); W (all of it stays in SBUF) and X tile 0
;   together by k-tile; then X in column tiles of MAX_N through two SBUF buffers. The load of tile
;   nt + 2 into a buffer waits until every matmul of tile nt, which read that buffer, is done, so
;   the DMA fills one buffer while the tensor engine reads the other. X tile 1 loads in XC chunks
;   of k-tiles, each with its own completion, so that its multiplies start as its first chunk
;   arrives rather than after the whole tile (it loads behind all of W and X tile 0). Each output tile is stored as
;   soon as it is evacuated. Every transfer lands in one partition (the row layout writes a beat
;   per cycle; a column layout, an element), and the descriptors spread over every queue of half
;   the DMA engines for loads and of the other half for stores, so that the core's HBM -> SBUF and
;   SBUF -> HBM paths move a beat each in the same cycle (an engine issues one read a cycle). The
;   stores of an X tile are a loop over the output row tiles (COLS descriptors a pass), so the
;   sync stream's instructions do not grow with MT.
; - tensor: per output tile (nt, mt), KT LoadStationary / MultiplyMoving pairs accumulating over K
;   in one PSUM bank (the first overwrites, the rest accumulate). The output tiles take the PSUM
;   banks in turn; a bank is reused once the scalar engine has evacuated it.
;   X tiles 0 and 1 go k-tile by k-tile (each k-tile's multiplies for every output tile, MT banks
;   at once, where MT <= PSUM_BANKS), so that the multiplies start with the first k-tile (tile 0)
;   or chunk (tile 1) of the load.
; - scalar: per output tile, activate: gelu(psum + bias) to BF16 in SBUF.
; HBM in, laid out as the loads want them (a partition's rows contiguous), in elements of EB bytes
; (a partition's R rows of a column):
;   W as [PARTS][KT][M] at HW: partition p of k-tile kt at HW + EB M (KT p + kt);
;   X as [NT][PARTS][KT][TN] at HX: partition p of k-tile kt of tile nt at HX + EB TN (KT (PARTS nt + p) + kt);
;   bias FP32 [M] at HB;
;   MX scales (R = 4), E8M0: W's as [SP][KT][M] at HWS (block b of k-tile kt at HWS + M (KT b + kt)),
;   X's as [NT][SP][KT][TN] at HXS (HXS + TN (KT (SP nt + b) + kt)).
; HBM out: C row-major [M][N] at HC.
.default KT = 4
.default MT = 2
.default NT = 4
.default ST = 1                    ; X tiles a store descriptor covers (fewer descriptors a row of C)
.default XC = 4                    ; chunks X tile 1 loads in (cdiv(KT, XC) k-tiles each, so fewer where XC does not divide KT)
.default R = 1                     ; K-rows a PE a cycle: 1 BF16, 2 FP8 (E4M3), 4 MXFP8 (E4M3FN)
.const KPE = log2(R)
.const MX = R == 4
.const EB = max(R, 2)              ; bytes of an element: a partition's R rows of one column
.const KP = R * PARTS              ; rows of a k-tile
.const SP = cdiv(PARTS, 8)         ; MX blocks a k-tile (block b's scales in partition 8b)
; ET the operands' type, FB its FP8 bias register (E4M3's standard 7; MX elements take their
; standard bias whatever the register), DT the DMA's type for them (MX data moves as bytes)
.const FB = 7 * (R == 2)
.if R == 1
.const ET = dtype(bf16)
.const DT = ET
.endif
.if R == 2
.const ET = dtype(e4m3)
.const DT = ET
.endif
.if R == 4
.const ET = dtype(e4m3fn)
.const DT = dtype(bytes)
.endif
.const TN = MAX_N
.const K = KT * KP
.const M = MT * COLS
.const N = NT * TN
.const XB = KT * EB * TN           ; bytes per partition of one X buffer
.const XK = cdiv(KT, min(XC, KT))  ; k-tiles per chunk of X tile 1 (chunk c: k-tiles c XK .. (c + 1) XK - 1)
.const XN = cdiv(KT, XK)           ; its chunks
; SBUF, every region 64-byte aligned (the DMA's beats stay within an SBUF line and bank)
.const AW = 0                      ; W's k-tile kt in every partition at AW + kt EB M, column m at + EB m
.const AX = AW + cdiv(KT * EB * M, 64) * 64 ; X buffer b: k-tile kt at AX + b XB + kt EB TN, column n at + EB n
.const AC = AX + 2 * XB            ; C row mt COLS + p in partition p at AC + 2N mt
.const AB = AC + MT * 2 * N        ; bias of row mt COLS + p in partition p at AB + 4 mt
.const AWS = AB + cdiv(4 * MT, 64) * 64 ; MX: W's scales of k-tile kt at AWS + kt M + m (partition 8b)
.const AXS0 = AWS + cdiv(MX * KT * M, 64) * 64
; MX: X buffer b's scales of k-tile kt at AXS + b KT TN + kt TN + n, placed two SBUF banks from
; the elements (AXS - AX = 2 lines modulo the banks' lines): a multiply's moving reads start in
; AX's bank and its scale-word reads in AXS's, and a scale read yields to a moving read of its
; bank, so with both in one bank the reader, holding no word at a multiply's start, would get
; words for the first 32 columns (full) only when the moving read ran dry: about a cycle a word
; (docs/kernels.md)
.const BL = SBUF_LINE * SBUF_BANKS
.const AXS = AXS0 + MX * ((AX + 2 * SBUF_LINE - AXS0 % BL + BL) % BL)
.const SCB = AXS + 2 * MX * KT * TN - AWS ; MX: bytes of the scale tensors (a multiple of 4)
.const HW = 0
.const HX = HW + EB * PARTS * KT * M
.const HB = HX + EB * PARTS * KT * N
.const HC = HB + 4 * M
.const HWS = HC + 2 * M * N
.const HXS = HWS + MX * SP * KT * M
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
.sem w_in, w_in1, b_in, x0, x1, mm, ev, out, xc, xc1, clr ; w_in + 1 and xc + 1: pairs

.stream sync
; A descriptor's completion waits until every earlier write of its queue is visible (docs/dma.md),
; so a group of descriptors on one queue needs a semaphore on its last descriptor only: each group
; below posts once per queue.
.for mt = 0, MT
    dma_start queue=mt%QUEUES src=hbm:HB+4*COLS*mt dst=sbuf:sb(0, AB+4*mt) len=4*COLS stype=fp32 dtype=fp32 layout=col4 cols=COLS dsem=b_in+=1
.endfor
; W and X tile 0 by k-tile, so the first matmuls start after the first k-tile. MX scales go on
; their partition's queue ahead of its elements, whose completion then covers them. Even k-tiles
; count on w_in, odd ones on w_in1, and k-tile kt + 2 starts only once k-tile kt has completed on
; every queue: then a count reaches (kt / 2 + 1) LG only when every queue has posted k-tile kt (a
; queue running ahead cannot make up another's missing post). The MX scales wait until the
; vector engine has cleared the scale tensors' lines in every partition (the tensor engine's scale
; read returns its byte in every partition, and SBUF is not reset, docs/core.md): k-tile 0's for
; clr >= 1 (its lines), the later ones and X tile 1's for clr >= 2 (all of them).
.for kt = 0, KT
.if kt >= 2
    sem_wait wait=w_in+kt%2>=kt/2*LG
.endif
.if MX
.for b = 0, SP
    dma_start engine=(8*b/QUEUES)%LE queue=8*b%QUEUES src=hbm:HWS+M*(KT*b+kt) dst=sbuf:sb(8*b, AWS+kt*M) len=M stype=bytes dtype=bytes wait=clr>=(b==0)*min(kt+1,2)
    dma_start engine=(8*b/QUEUES)%LE queue=8*b%QUEUES src=hbm:HXS+TN*(KT*b+kt) dst=sbuf:sb(8*b, AXS+kt*TN) len=TN stype=bytes dtype=bytes
.endfor
.endif
.for p = 0, PARTS
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HW+EB*M*(KT*p+kt) dst=sbuf:sb(p, AW+kt*EB*M) len=EB*M stype=DT dtype=DT
.if p >= PARTS - LG
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+EB*TN*(KT*p+kt) dst=sbuf:sb(p, AX+kt*EB*TN) len=EB*TN stype=DT dtype=DT dsem=w_in+kt%2+=1
.else
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+EB*TN*(KT*p+kt) dst=sbuf:sb(p, AX+kt*EB*TN) len=EB*TN stype=DT dtype=DT
.endif
.endfor
.endfor
.if NT > 1
; X tile 1 into buffer 1 in XN chunks of XK k-tiles, even chunks counting on xc and odd ones on
; xc1 as the k-tiles above (chunk c complete: xc or xc1 >= (c / 2 + 1) LG)
.for c = 0, XN
.if c >= 2
    sem_wait wait=xc+c%2>=c/2*LG
.endif
.if MX
.for b = 0, SP
    dma_start engine=(8*b/QUEUES)%LE queue=8*b%QUEUES src=hbm:HXS+TN*(KT*(SP+b)+c*XK) dst=sbuf:sb(8*b, AXS+KT*TN+c*XK*TN) len=TN*(min((c+1)*XK,KT)-c*XK) stype=bytes dtype=bytes wait=clr>=2*(b==0)
.endfor
.endif
.for p = 0, PARTS
.if p >= PARTS - LG
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+EB*TN*(KT*(PARTS+p)+c*XK) dst=sbuf:sb(p, AX+XB+c*XK*EB*TN) len=EB*TN*(min((c+1)*XK,KT)-c*XK) stype=DT dtype=DT dsem=xc+c%2+=1
.else
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+EB*TN*(KT*(PARTS+p)+c*XK) dst=sbuf:sb(p, AX+XB+c*XK*EB*TN) len=EB*TN*(min((c+1)*XK,KT)-c*XK) stype=DT dtype=DT
.endif
.endfor
.endfor
.endif
.for nt = 1, NT + 1
.if nt < NT && nt > 1
; X tile nt into buffer nt % 2, once the matmuls of tile nt - 2 are done with it: a descriptor per
; partition (its KT rows are contiguous in HBM), after the tile's MX scales
.if MX
.for b = 0, SP
    dma_start engine=(8*b/QUEUES)%LE queue=8*b%QUEUES src=hbm:HXS+TN*KT*(SP*nt+b) dst=sbuf:sb(8*b, AXS+(nt%2)*KT*TN) len=TN*KT stype=bytes dtype=bytes wait=mm>=(nt-1)*MT
.endfor
.endif
.for p = 0, PARTS
.if p >= PARTS - LG && nt % 2 == 0
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+EB*KT*TN*(PARTS*nt+p) dst=sbuf:sb(p, AX) len=EB*KT*TN stype=DT dtype=DT dsem=x0+=1 wait=mm>=(nt-1)*MT
.endif
.if p >= PARTS - LG && nt % 2 == 1
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+EB*KT*TN*(PARTS*nt+p) dst=sbuf:sb(p, AX+XB) len=EB*KT*TN stype=DT dtype=DT dsem=x1+=1 wait=mm>=(nt-1)*MT
.endif
.if p < PARTS - LG
    dma_start engine=(p/QUEUES)%LE queue=p%QUEUES src=hbm:HX+EB*KT*TN*(PARTS*nt+p) dst=sbuf:sb(p, AX+(nt%2)*XB) len=EB*KT*TN stype=DT dtype=DT wait=mm>=max(nt-1,0)*MT
.endif
.endfor
.endif
; the output tiles of X tiles (nt - 1) / ST * ST .. nt - 1 (ST of them, fewer at the end), each
; once it is evacuated: a row of C per descriptor (the tiles' rows are contiguous in SBUF and HBM),
; a pass of the loop per output row tile mt (r1 = 2N mt: its columns in SBUF; r2 = 2N COLS mt: its
; rows in HBM; r3 = mt, for the evacuation it waits for)
.if nt % ST == 0 || nt == NT
    reg_set r1, 0
    reg_set r2, 0
    reg_set r3, 0
    reg_set r4, MT
1:
.for p = 0, COLS
.if p >= COLS - SG
    dma_start engine=SE0+(p/QUEUES)%SE queue=p%QUEUES src=sbuf:r1+sb(p, AC+2*TN*((nt-1)/ST*ST)) dst=hbm:r2+HC+2*N*p+2*TN*((nt-1)/ST*ST) len=2*TN*(nt-(nt-1)/ST*ST) stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=r3+(nt-1)*MT+1
.else
    dma_start engine=SE0+(p/QUEUES)%SE queue=p%QUEUES src=sbuf:r1+sb(p, AC+2*TN*((nt-1)/ST*ST)) dst=hbm:r2+HC+2*N*p+2*TN*((nt-1)/ST*ST) len=2*TN*(nt-(nt-1)/ST*ST) stype=bf16 dtype=bf16 wait=ev>=r3+(nt-1)*MT+1
.endif
.endfor
    reg_add r1, r1, 2*N
    reg_add r2, r2, 2*N*COLS
    reg_add r3, r3, 1
    loop r4, 1b
.endif
.endfor
    end

.stream tensor
.for nt = 0, NT
.if nt < 2 && MT <= PSUM_BANKS
; X tiles 0 and 1 k-tile by k-tile as they arrive: every output tile's multiply of k-tile kt, each
; output tile accumulating in its own bank, so the tensor engine works while the tile loads
.for kt = 0, KT
.for mt = 0, MT
.if mt == 0 && nt == 0
    load_stationary t=AW+kt*EB*M:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M) wait=w_in+kt%2>=(kt/2+1)*LG
.endif
.if mt == 0 && nt == 1 && kt % XK == 0
    load_stationary t=AW+kt*EB*M:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M) wait=xc+kt/XK%2>=(kt/XK/2+1)*LG
.endif
.if mt > 0 || (nt == 1 && kt % XK > 0)
    load_stationary t=AW+kt*EB*M+mt*EB*COLS:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M+mt*COLS)
.endif
.if kt == 0 && KT > 1
    multiply_moving t=AX+nt*XB:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+nt*KT*TN) bank=(nt*MT+mt)%PSUM_BANKS wait=ev>=max(nt*MT+mt+1-PSUM_BANKS,0)
.endif
.if kt == 0 && KT == 1
    multiply_moving t=AX+nt*XB:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+nt*KT*TN) bank=(nt*MT+mt)%PSUM_BANKS wait=ev>=max(nt*MT+mt+1-PSUM_BANKS,0) post=mm+=1
.endif
.if kt > 0 && kt < KT - 1
    multiply_moving t=AX+nt*XB+kt*EB*TN:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+nt*KT*TN+kt*TN) bank=(nt*MT+mt)%PSUM_BANKS acc
.endif
.if kt > 0 && kt == KT - 1
    multiply_moving t=AX+nt*XB+kt*EB*TN:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+nt*KT*TN+kt*TN) bank=(nt*MT+mt)%PSUM_BANKS acc post=mm+=1
.endif
.endfor
.endfor
.else
.for mt = 0, MT
.for kt = 0, KT
.if nt == 0 && mt == 0
    load_stationary t=AW+kt*EB*M+mt*EB*COLS:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M+mt*COLS) wait=w_in+kt%2>=(kt/2+1)*LG
.endif
.if nt > 0 && mt == 0 && kt == 0 && nt % 2 == 0
    load_stationary t=AW+kt*EB*M+mt*EB*COLS:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M+mt*COLS) wait=x0>=nt/2*LG
.endif
.if nt == 1 && mt == 0 && kt == 0
    load_stationary t=AW+kt*EB*M+mt*EB*COLS:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M+mt*COLS) wait=xc+(XN-1)%2>=((XN-1)/2+1)*LG
.endif
.if nt > 1 && mt == 0 && kt == 0 && nt % 2 == 1
    load_stationary t=AW+kt*EB*M+mt*EB*COLS:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M+mt*COLS) wait=x1>=((nt+1)/2-1)*LG
.endif
.if mt > 0 || (kt > 0 && nt > 0)
    load_stationary t=AW+kt*EB*M+mt*EB*COLS:ET t.bias=FB k=KP m=COLS kpe=KPE mx=MX sc=MX*(AWS+kt*M+mt*COLS)
.endif
.if kt == 0 && KT > 1
    multiply_moving t=AX+(nt%2)*XB:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+(nt%2)*KT*TN) bank=(nt*MT+mt)%PSUM_BANKS wait=ev>=max(nt*MT+mt+1-PSUM_BANKS,0)
.endif
.if kt == 0 && KT == 1
    multiply_moving t=AX+(nt%2)*XB:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+(nt%2)*KT*TN) bank=(nt*MT+mt)%PSUM_BANKS wait=ev>=max(nt*MT+mt+1-PSUM_BANKS,0) post=mm+=1
.endif
.if kt > 0 && kt < KT - 1
    multiply_moving t=AX+(nt%2)*XB+kt*EB*TN:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+(nt%2)*KT*TN+kt*TN) bank=(nt*MT+mt)%PSUM_BANKS acc
.endif
.if kt > 0 && kt == KT - 1
    multiply_moving t=AX+(nt%2)*XB+kt*EB*TN:ET t.bias=FB n=TN kpe=KPE mx=MX sc=MX*(AXS+(nt%2)*KT*TN+kt*TN) bank=(nt*MT+mt)%PSUM_BANKS acc post=mm+=1
.endif
.endfor
.endfor
.endif
.endfor
    end

.stream vector
; MX: k-tile 0's scale lines first (W's and X buffer 0's: clr = 1), then the rest (clr = 2), so
; that the first loads wait for a quarter of the clearing or less
.if MX
    memset pc=PARTS size=M/4 o=sbuf:AWS:fp32 o.stride=1
    memset pc=PARTS size=TN/4 o=sbuf:AXS:fp32 o.stride=1 post=clr+=1
.if AXS > AWS + M
    memset pc=PARTS size=(AXS-AWS-M)/4 o=sbuf:AWS+M:fp32 o.stride=1
.endif
    memset pc=PARTS size=(2*KT-1)*TN/4 o=sbuf:AXS+TN:fp32 o.stride=1 post=clr+=1
.endif
    end

.stream scalar
    sem_wait wait=b_in>=MT
.for nt = 0, NT
.for mt = 0, MT
    activate pc=COLS size=TN a=psum:((nt*MT+mt)%PSUM_BANKS)*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AC+2*N*mt+2*TN*nt:bf16 o.stride=1 func=gelu imm0=f32(1.0) s1=AB+4*mt wait=mm>=nt*MT+mt+1 post=ev+=1
.endfor
.endfor
    end
