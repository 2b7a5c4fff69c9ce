; A DMA queue the core does not have is an illegal instruction.
; expect: error=illegal stream=sync pc=0
.stream sync
    dma_start queue=QUEUES src=hbm:0 dst=sbuf:0 len=16 stype=bytes dtype=bytes
    end
