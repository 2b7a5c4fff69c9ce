; Registers loaded from memory (reg_load: a register-load descriptor on a DMA queue) on three
; streams, their values used as loop counts. The vector stream writes SBUF partition 0's words
; 0..3 (iota: 5, 6, 7, 8); the sync stream copies them to HBM 0x100..0x10F.
;   scalar: r1 = SBUF word 0 = 5: 5 passes on n; then r15 = SBUF word 2 = 7: 7 passes on w, and
;           a load into r0, which reads 0 whatever is loaded (the run ends only when it is back).
;   tensor: r2 = SBUF word 1 = 6, r3 = r2 + r2 = 12 (reg_add waits for the load): 12 passes on t.
;   sync:   r4 = HBM 0x108 = 7 and r5 = HBM 0x10C = 8, loaded back to back (both in flight),
;           r6 = r4 * r5 = 56 passes on y; then a source address from a register: r8 = 8,
;           r7 = HBM 0xF8 + r8 = HBM 0x100 = 5 passes on z.
; The tensor and scalar loads ask for the DMA port in the same cycle (the lower stream first).
; expect: done
; expect-sem: n=5 t=12 y=56 z=5 w=7 ready=1 copied=1
.sem ready, copied, n, t, y, z, w
.stream vector
    iota pc=1 size=4 o=sbuf:0:int32 o.stride=1 imm0=5 a.stride=1 post=ready+=1
    end
.stream scalar
    reg_load r1, sbuf:0 wait=ready>=1
s1: sem_add post=n+=1
    loop r1, s1
    reg_load r15, sbuf:8
    reg_load r0, sbuf:12
s2: sem_add post=w+=1
    loop r15, s2
    end
.stream tensor
    reg_load r2, sbuf:4 wait=ready>=1
    reg_add r3, r2, r2
t1: sem_add post=t+=1
    loop r3, t1
    end
.stream sync
    dma_start src=sbuf:0 dst=hbm:0x100 len=16 stype=bytes dtype=bytes dsem=copied+=1 wait=ready>=1
    reg_load r4, hbm:0x108 wait=copied>=1
    reg_load r5, hbm:0x10C
    reg_mul r6, r4, r5
y1: sem_add post=y+=1
    loop r6, y1
    reg_set r8, 8
    reg_load r7, hbm:r8+0xF8
z1: sem_add post=z+=1
    loop r7, z1
    end
