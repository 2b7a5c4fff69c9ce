; A stream that fills its instruction memory without an end runs past it: the error imem at pc
; IMEM_DEPTH, after every word issued.
; expect: error=imem stream=vector pc=IMEM_DEPTH
; expect-sem: s=IMEM_DEPTH
.sem s
.stream vector
.for i = 0, IMEM_DEPTH
    sem_add post=s+=1
.endfor
