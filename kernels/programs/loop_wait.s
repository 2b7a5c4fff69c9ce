; A loop whose pass i waits for the i-th addition of another stream's loop: wait=fed>=r2, the
; wait value from a register as the instruction issues (r2 = 1, 2, ... 6). The vector stream adds
; to fed 6 times; the scalar stream's 6 passes each add 1 to got once their count is there.
; expect: done
; expect-sem: fed=6 got=6
.sem fed, got
.stream vector
    reg_set r1, 6
v:  sem_add post=fed+=1
    loop r1, v
    end
.stream scalar
    reg_set r1, 6
    reg_set r2, 1
s:  sem_add post=got+=1 wait=fed>=r2
    reg_add r2, r2, 1
    loop r1, s
    end
