; A size built from a register that does not fit its 16 bits: the error range at the copy's pc,
; which never reaches the vector engine. r2 = 0xFFFF + 1 added to the immediate 0 of dim 0.
; expect: error=range stream=vector pc=3
; expect-sem: s=1
.sem s
.stream vector
    reg_set r2, 0xFFFF
    reg_add r2, r2, 1
    sem_add post=s+=1
    copy pc=1 size=r2 a=sbuf:0:fp32 o=sbuf:64:fp32 post=s+=1
    end
