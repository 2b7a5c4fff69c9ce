; Row groups: the array as two groups of PARTS / 2 rows (both groups' weights in one load), a
; multiply writing PSUM banks 2 and 3; then four groups of PARTS / 4 rows (v3 and later) writing
; banks 4 .. 7, accumulating. This program checks the control's tensor commands (rg), which the
; probes compare with the model's each cycle; the arithmetic and the timing are tested in tb/tensor
; (row_groups).
; expect: done
; expect-sem: s=4
.sem s
.stream tensor
    load_stationary t=0:bf16 k=PARTS/2 m=COLS rg=1 post=s+=1
    multiply_moving t=0:bf16 n=4 bank=2 rg=1 post=s+=1
    load_stationary t=0:bf16 k=PARTS/4 m=COLS rg=2 post=s+=1
    multiply_moving t=0:bf16 n=4 bank=4 rg=2 acc post=s+=1
    end
