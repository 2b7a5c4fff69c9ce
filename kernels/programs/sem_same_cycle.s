; Every stream adds to s in its first issue cycle; every addition of the cycle counts, and the
; sync stream's end waits for all four.
; expect: done
; expect-sem: s=15
.sem s
.stream tensor
    sem_add post=s+=1
    end
.stream vector
    sem_add post=s+=2
    end
.stream scalar
    sem_add post=s+=4
    end
.stream sync
    sem_add post=s+=8
    sem_wait wait=s>=15
    end
