; matmul.s — one tile: C[M, N] = gelu(0.5 * W[K, M]^T X[K, N]) in BF16, K = M = PARTS, N = MAX_N.
; The smallest program that uses all four streams: the sync stream loads W (a row per partition)
; and X (transposed on the way in, col2 layout), the tensor stream multiplies into PSUM bank 2, the
; scalar stream evacuates PSUM with scale and gelu to BF16, and the sync stream stores C. Each step
; waits on the semaphore the previous one adds to. Reference: model/tests/control_test.cpp.
; HBM in: W row-major [K][M] at 0, X^T row-major [N][K] at HX. HBM out: C row-major [M][N] at HY.
.const K = PARTS
.const M = PARTS
.const N = MAX_N
.const AW = 0            ; SBUF: W, row k in partition k
.const AX = 2 * M        ; X, element (k, n) in partition k at AX + 2n
.const AY = AX + 2 * N   ; the result, row m in partition m
.const HW = 0            ; HBM: W row-major [K][M]
.const HX = 2 * K * M    ; X^T row-major [N][K]
.const HY = HX + 2 * N * K
.const XC = cdiv(2 * N * K, 65536)  ; X in XC descriptors of at most 64 KiB (a descriptor's longest)
.const XR = N / XC       ; rows of X^T a descriptor (N and XC powers of two)
.sem w_in, x_in, mm, ev, out

.stream sync
loads:
.for k = 0, K
    dma_start queue=0 src=hbm:HW+2*M*k dst=sbuf:sb(k, AW) len=2*M stype=bf16 dtype=bf16 dsem=w_in+=1
.endfor
.for i = 0, XC
    dma_start queue=1%QUEUES src=hbm:HX+2*K*XR*i dst=sbuf:sb(0, AX+2*XR*i) len=2*XR*K stype=bf16 dtype=bf16 layout=col2 cols=K dsem=x_in+=1
.endfor
stores:
.for m = 0, M
    dma_start engine=DMA_ENGINES-1 queue=m%QUEUES src=sbuf:sb(m, AY) dst=hbm:HY+2*N*m len=2*N stype=bf16 dtype=bf16 dsem=out+=1 wait=ev>=1
.endfor
    sem_wait wait=out>=M
    end

.stream tensor
    load_stationary t=AW:bf16 k=K m=M wait=w_in>=K
    multiply_moving t=AX:bf16 n=N bank=2 wait=x_in>=XC post=mm+=1
    end

.stream scalar
    activate pc=M size=N a=psum:2*PSUM_BANK_BYTES:fp32 a.stride=1 o=sbuf:AY:bf16 o.stride=1 func=gelu imm0=f32(0.5) wait=mm>=1 post=ev+=1
    end
