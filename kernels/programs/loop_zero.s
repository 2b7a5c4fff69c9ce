; A loop whose counter is 0 as it issues would wrap to 2^32 - 1 passes: the error loop, at the
; loop's pc, before it changes the register or adds its post. The addition before it counts.
; expect: error=loop stream=vector pc=2
; expect-sem: s=1 t=0
.sem s, t
.stream vector
    reg_set r7, 0
top:
    sem_add post=s+=1
    loop r7, top post=t+=1
    end
