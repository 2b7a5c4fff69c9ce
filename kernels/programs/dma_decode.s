; A descriptor reading past HBM's end: the DMA's check refuses it at decode (detail 1: range);
; nothing reaches HBM.
; expect: error=dma stream=sync pc=1 detail=1 hbm-writes=0
.sem s
.stream sync
    sem_add post=s+=1
    dma_start src=hbm:HBM_BYTES-8 dst=sbuf:0 len=16 stype=bytes dtype=bytes
    end
