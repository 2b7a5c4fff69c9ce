; Structured sparsity (v3+): 1:2 weights (every row its own group; index 0 keeps each group's
; first row), then a multiply that reads two rows an element. The vector engine zeroes the
; metadata bytes first (SBUF keeps its contents across a reset, the model starts empty). This
; program checks the control's tensor commands (spm, spq, sc as the metadata's address), which the
; probes compare with the model's each cycle; the arithmetic is tested in tb/tensor (sparse_matmul).
; expect: done
; expect-sem: s=2
.sem z, s
.stream vector
    memset pc=PARTS size=4 o=sbuf:64:uint8 o.stride=1 post=z+=1
    end
.stream tensor
    load_stationary t=0:bf16 k=PARTS m=COLS spm=1 spq=1 sc=64 wait=z>=1 post=s+=1
    multiply_moving t=0:bf16 n=4 bank=1 spm=1 spq=1 post=s+=1
    end
