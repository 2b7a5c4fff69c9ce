; Word 2 of the vector stream has an unknown opcode: the core stops at decode, naming the vector
; stream and pc 2; the add before it counted, and nothing after it issues (the sync stream waits).
; expect: error=illegal stream=vector pc=2
; expect-sem: s=1
.sem s
.stream vector
    copy pc=1 a=sbuf:0:fp32 o=sbuf:64:fp32
    sem_add post=s+=1
    .word 0x7f
    sem_add post=s+=4
    end
.stream sync
    sem_wait wait=s>=5
    end
