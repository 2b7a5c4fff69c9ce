; The vector and scalar streams each wait for the other's addition: a deadlock, named on the
; lowest waiting stream.
; expect: error=deadlock stream=vector pc=0 detail=0
.sem a, b
.stream vector
    sem_wait wait=a>=1
    sem_add post=b+=1
    end
.stream scalar
    sem_wait wait=b>=1
    sem_add post=a+=1
    end
