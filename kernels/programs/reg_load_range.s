; A reg_load whose source is past HBM (its address from a register: r1 + 0x40, r1 = HBM_BYTES -
; 0x3C, so the word would end 8 bytes past the end) is refused at decode: the error dma with the
; descriptor check's code 1 (range), at its pc. The load before it is in range: HBM is all zero
; here, so r2 = 0 and the branch falls through to the one addition.
; expect: error=dma stream=vector pc=4 detail=1
; expect-sem: s=1
.sem s
.stream vector
    reg_load r2, hbm:0
    branch ne, r2, 0, skip
    sem_add post=s+=1
skip:
    reg_set r1, HBM_BYTES-0x3C
    reg_load r3, hbm:r1+0x40
    end
