; Counted loops and branches on every stream (docs/isa.md, "Registers and control flow"). Each
; stream counts its iterations on a semaphore of its own; the counts are worked out by hand below.
;   tensor: two nested loops, 5 x 3 = 15 inner passes, and 5 outer ones.
;   vector: a loop that first waits for the scalar stream's 4 posts, so the `end` behind it is
;           fetched before it is taken: that word is dropped and fetching goes on. 4 passes.
;   scalar: posts 4 times for the vector stream, then a loop of one instruction (its own target)
;           that runs 7 times and adds nothing, then a branch forward over an addition.
;   sync:   a loop of 6 passes, each adding 2; then a branch that waits for the scalar stream's
;           last addition (the word behind it, an unknown opcode, is fetched, then dropped without its
;           check: no error); then a
;           register-built count: r3 = (2 + 1) * 4 = 12 passes adding 1. 12 + 12 = 24.
; expect: done
; expect-sem: inner=15 outer=5 vec=4 sca=4 hop=1 sy=24
.sem inner, outer, vec, sca, hop, sy
.stream tensor
    reg_set r1, 5
t_outer:
    reg_set r2, 3
t_inner:
    sem_add post=inner+=1
    loop r2, t_inner
    sem_add post=outer+=1
    loop r1, t_outer
    end

.stream vector
    reg_set r4, 4
v_top:
    sem_add post=vec+=1
    loop r4, v_top wait=sca>=4
    end

.stream scalar
    reg_set r1, 4
s_top:
    sem_add post=sca+=1
    loop r1, s_top
    reg_set r2, 7
s_self:
    loop r2, s_self
    branch eq, r2, 0, s_skip
    sem_add post=hop+=100
s_skip:
    sem_add post=hop+=1
    end

.stream sync
    reg_set r5, 6
y_top:
    sem_add post=sy+=2
    loop r5, y_top
    branch eq, r0, 0, y_go wait=hop>=1
    .word 0x7f
y_go:
    reg_set r1, 2
    reg_add r1, r1, 1
    reg_mul r3, r1, 4
y_two:
    sem_add post=sy+=1
    loop r3, y_two
    end
