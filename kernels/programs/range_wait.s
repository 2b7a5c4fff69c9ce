; A wait value built from a register that does not fit its 20 bits (1 + 0xFFFFF = 2^20): the
; error range at the waiting instruction, which never issues.
; expect: error=range stream=scalar pc=2
; expect-sem: s=1
.sem s
.stream scalar
    reg_set r3, 0xFFFFF
    sem_add post=s+=1
    sem_wait wait=s>=r3+1
    end
