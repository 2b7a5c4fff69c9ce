; The gpsimd stream: its control operations, and gpsimd_run at an entry past the processors' local
; memory. Every processor stops at its first fetch (GpSimd error fetch, 2, at the entry); the core
; stops with the error gpsimd on the gpsimd stream at gpsimd_run's pc, detail 2. The stream's
; semaphore addition before it has been made; its post (done) never is.
; expect: error=gpsimd stream=gpsimd pc=3 detail=2
; expect-sem: a=2 d=0
.sem a, d
.stream gpsimd
    reg_set r1, GP_TCM_BYTES
    sem_add post=a+=2
    branch ne, r1, GP_TCM_BYTES, skip
    gpsimd_run entry=GP_TCM_BYTES args=0 post=d+=1
skip:
    end
