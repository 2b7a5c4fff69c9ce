; MultiplyMoving without weights: the tensor engine refuses it (detail 4: no weights) and reports
; the command's tag; the control names the instruction's pc.
; expect: error=tensor stream=tensor pc=1 detail=4
.sem s
.stream tensor
    sem_add post=s+=1
    multiply_moving t=0:bf16 n=4
    end
