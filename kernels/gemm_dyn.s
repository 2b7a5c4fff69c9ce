; gemm_dyn.s — a GEMM with its shape read at run time: C[M, N] = gelu(W[K, M]^T X[K, N] + bias[M]),
; BF16 operands, FP32 accumulation, a BF16 result; K = KT * PARTS and N = NT * n, where KT, NT and
; the moving size n come from an argument block, and M = MT * COLS is the binary's. One binary
; runs every KT <= KTMAX, NT <= NTMAX and n <= MAX_N (docs/kernels.md).
;
; The argument block at HBM ARGS, seven 32-bit words: KT, NT, n, and the addresses of W, X, the
; bias and C. HBM in: W as [PARTS][KT][M] (partition p's k-tiles contiguous), X as
; [NT][PARTS][KT][n], the bias FP32 [M]; HBM out: C row-major [M][N].
;
; Schedule, simpler than gemm.s's (one X buffer, tile by tile):
; - sync: the bias; W, a descriptor a partition (len = KT 2M, from registers); per X tile a
;   descriptor a partition (KT 2n bytes) once the tensor engine has finished the tile before
;   (wait=mm>=r13, the multiplies so far); at the end every row of C (a descriptor a row, 2N bytes).
; - tensor: per X tile, once it is loaded and the previous tile evacuated, k-tile 0 of every
;   output tile (bank mt), then k-tiles 1 .. KT - 1 accumulating (a loop over registers that step
;   the W and X addresses).
; - scalar: per X tile and output tile, gelu(psum + bias) into C's rows in SBUF at the tile's
;   columns (o=sbuf:r7+..., r7 = 2n nt).
.default KTMAX = 4
.default NTMAX = 4
.default MT = 2
.default ARGS = 0
.const TN = MAX_N
.const M = MT * COLS
.const CB = 2 * NTMAX * TN               ; SBUF bytes of a row of C
.const AW = 0                            ; W's k-tile kt at AW + 2M kt, column m at + 2m
.const AX = AW + cdiv(KTMAX * 2 * M, 64) * 64   ; the X tile's k-tile kt at AX + 2n kt
.const AC = AX + cdiv(KTMAX * 2 * TN, 64) * 64  ; C row mt COLS + p in partition p at AC + CB mt
.const AB = AC + MT * CB                 ; bias of row mt COLS + p in partition p at AB + 4 mt
.sem w_in, b_in, xin, mm, ev, out

.stream sync
    reg_load r1, hbm:ARGS                ; KT
    reg_load r2, hbm:ARGS+4              ; NT
    reg_load r3, hbm:ARGS+8              ; n
    reg_load r4, hbm:ARGS+12             ; W
    reg_load r5, hbm:ARGS+16             ; X
    reg_load r6, hbm:ARGS+20             ; bias
    reg_load r7, hbm:ARGS+24             ; C
    reg_mul r8, r3, 2                    ; 2n
    reg_mul r9, r2, r8                   ; 2N: a row of C
    reg_mul r10, r1, 2*M                 ; a partition's W
    reg_mul r11, r8, r1                  ; a partition's X tile
.for mt = 0, MT
    dma_start queue=mt%QUEUES src=hbm:r6+4*COLS*mt dst=sbuf:sb(0, AB+4*mt) len=4*COLS stype=fp32 dtype=fp32 layout=col4 cols=COLS dsem=b_in+=1
.endfor
.for p = 0, PARTS
    dma_start queue=p%QUEUES src=hbm:r4 dst=sbuf:sb(p, AW) len=r10 stype=bf16 dtype=bf16 dsem=w_in+=1
    reg_add r4, r4, r10
.endfor
    reg_add r12, r2, 0                   ; tiles left
    reg_set r13, 0                       ; the multiplies before the tile: KT MT nt
    reg_mul r14, r1, MT
y_tile:
.for p = 0, PARTS
    dma_start queue=p%QUEUES src=hbm:r5 dst=sbuf:sb(p, AX) len=r11 stype=bf16 dtype=bf16 dsem=xin+=1 wait=mm>=r13
    reg_add r5, r5, r11
.endfor
    reg_add r13, r13, r14
    loop r12, y_tile
    reg_mul r15, r2, MT                  ; every evacuation
.for mt = 0, MT
.for p = 0, COLS
    dma_start engine=DMA_ENGINES-1 queue=p%QUEUES src=sbuf:sb(p, AC+CB*mt) dst=hbm:r7 len=r9 stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=r15
    reg_add r7, r7, r9
.endfor
.endfor
    end

.stream tensor
    reg_load r1, hbm:ARGS                ; KT
    reg_load r2, hbm:ARGS+4              ; NT
    reg_load r3, hbm:ARGS+8              ; n
    reg_mul r5, r3, 2                    ; 2n: the X buffer's k-tile step
    reg_set r6, PARTS                    ; the X descriptors through tile nt: PARTS (nt + 1)
    reg_set r7, 0                        ; the evacuations before tile nt: MT nt
    reg_add r8, r2, 0                    ; tiles left
    sem_wait wait=w_in>=PARTS
t_tile:
    sem_wait wait=xin>=r6
    sem_wait wait=ev>=r7
.for mt = 0, MT
    load_stationary t=AW+2*COLS*mt:bf16 k=PARTS m=COLS
    multiply_moving t=AX:bf16 n=r3 bank=mt post=mm+=1
.endfor
    reg_add r9, r1, -1                   ; k-tiles after the first
    branch eq, r9, 0, t_next
    reg_set r10, 2*M                     ; W's k-tile offset
    reg_add r11, r5, 0                   ; X's k-tile offset
t_k:
.for mt = 0, MT
    load_stationary t=r10+AW+2*COLS*mt:bf16 k=PARTS m=COLS
    multiply_moving t=r11+AX:bf16 n=r3 bank=mt acc post=mm+=1
.endfor
    reg_add r10, r10, 2*M
    reg_add r11, r11, r5
    loop r9, t_k
t_next:
    reg_add r6, r6, PARTS
    reg_add r7, r7, MT
    loop r8, t_tile
    end

.stream scalar
    reg_load r1, hbm:ARGS                ; KT
    reg_load r2, hbm:ARGS+4              ; NT
    reg_load r3, hbm:ARGS+8              ; n
    reg_mul r4, r1, MT                   ; a tile's multiplies
    reg_add r5, r4, 0                    ; the multiplies through tile nt
    reg_mul r6, r3, 2                    ; 2n
    reg_set r7, 0                        ; the tile's columns in C's rows: 2n nt
    reg_add r8, r2, 0                    ; tiles left
    sem_wait wait=b_in>=MT
s_tile:
.for mt = 0, MT
    activate pc=COLS size=r3 a=psum:PSUM_BANK_BYTES*mt:fp32 a.stride=1 o=sbuf:r7+AC+CB*mt:bf16 o.stride=1 func=gelu imm0=f32(1.0) s1=AB+4*mt wait=mm>=r5 post=ev+=1
.endfor
    reg_add r5, r5, r4
    reg_add r7, r7, r6
    loop r8, s_tile
    end
