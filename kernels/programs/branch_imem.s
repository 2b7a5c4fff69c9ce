; A branch to a pc past the instruction memory: the stream runs out there (the error imem at that
; pc) once its queue is empty; the word behind the branch is dropped, never issued.
; expect: error=imem stream=sync pc=IMEM_DEPTH
; expect-sem: s=1
.sem s
.stream sync
    sem_add post=s+=1
    branch eq, r0, 0, IMEM_DEPTH
    sem_add post=s+=1
    end
