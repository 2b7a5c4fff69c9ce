; A load_stationary that posts a semaphore when its weights are in (the tensor engine's load-done,
; not a multiply's completion, frees the slot): the sync stream waits on it.
; expect: done
; expect-sem: s=1
.sem s
.stream tensor
    load_stationary t=0:bf16 k=PARTS m=COLS post=s+=1
    end
.stream sync
    sem_wait wait=s>=1
    end
