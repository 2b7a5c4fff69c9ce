; Every branch condition, taken and not taken, at the signed/unsigned edges. An instruction that
; runs adds its own bit to the semaphore `ran`; one a taken branch skips does not. The operand
; rb + imm0 is formed as the branch issues. Worked out by hand:
;   r1 = -1 (0xFFFFFFFF), r2 = 1, r3 = 0x80000000 (the most negative), r4 = 0x7FFFFFFF
;   eq  r2, 1        taken      (bit 0 skipped)
;   ne  r2, r2       not taken  (bit 1 runs)
;   lt  r1, r2       taken      (-1 < 1 signed; bit 2 skipped)
;   ltu r1, r2       not taken  (0xFFFFFFFF < 1 unsigned is false; bit 3 runs)
;   ge  r3, r4       not taken  (most negative >= most positive is false; bit 4 runs)
;   geu r3, r4       taken      (0x80000000 >= 0x7FFFFFFF unsigned; bit 5 skipped)
;   lt  r4, r3+1     not taken  (r3 + 1 = 0x80000001, negative; bit 6 runs)
;   ge  r1, -1       taken      (imm0 alone: -1 >= -1; bit 7 skipped)
;   ne  r0, r1+1     not taken  (r1 + 1 wraps to 0; bit 8 runs)
;   r5 = r3 * 2 = 0 (the low 32 bits of 2^32); eq r5, 0 taken (bit 9 skipped)
;   then on ran3: ne r2, 0 taken (1 skipped); ltu r2, r1 taken (1 < 0xFFFFFFFF; 2 skipped);
;   lt r2, 1 and ltu r1, r1 not taken (equal operands; 4 and 8 run); ge r2, 1 and geu r1, -1
;   taken (equal operands; 16 and 32 skipped): ran3 = 4 + 8 = 12.
; Bits 0-7 go to `ran`, bits 8 and 9 to `ran2` (a post adds at most 255): bits 1, 3, 4, 6 run,
; ran = 2 + 8 + 16 + 64 = 90; bit 8 runs, ran2 = 1.
; expect: done
; expect-sem: ran=90 ran2=1 ran3=12
.sem ran, ran2, ran3
.stream scalar
    reg_set r1, -1
    reg_set r2, 1
    reg_set r3, 0x80000000
    reg_add r4, r3, -1
    branch eq, r2, 1, b0
    sem_add post=ran+=1
b0: branch ne, r2, r2, b1
    sem_add post=ran+=2
b1: branch lt, r1, r2, b2
    sem_add post=ran+=4
b2: branch ltu, r1, r2, b3
    sem_add post=ran+=8
b3: branch ge, r3, r4, b4
    sem_add post=ran+=16
b4: branch geu, r3, r4, b5
    sem_add post=ran+=32
b5: branch lt, r4, r3+1, b6
    sem_add post=ran+=64
b6: branch ge, r1, -1, b7
    sem_add post=ran+=128
b7: branch ne, r0, r1+1, b8
    sem_add post=ran2+=1
b8: reg_mul r5, r3, 2
    branch eq, r5, 0, b9
    sem_add post=ran2+=2
b9: branch ne, r2, 0, c0
    sem_add post=ran3+=1
c0: branch ltu, r2, r1, c1
    sem_add post=ran3+=2
c1: branch lt, r2, 1, c2
    sem_add post=ran3+=4
c2: branch ltu, r1, r1, c3
    sem_add post=ran3+=8
c3: branch ge, r2, 1, c4
    sem_add post=ran3+=16
c4: branch geu, r1, -1, c5
    sem_add post=ran3+=32
c5: end
