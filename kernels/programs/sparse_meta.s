; A sparse load whose index metadata is bad: 2:4 weights with every index 0 (the vector engine
; zeroes them first), so a group's second row does not follow its first. The tensor engine drops
; the load when the metadata arrives and refuses it (detail 6: metadata) with the load's tag; the
; control names the load's pc.
; expect: error=tensor stream=tensor pc=0 detail=6
.sem z
.stream vector
    memset pc=PARTS size=4 o=sbuf:64:uint8 o.stride=1 post=z+=1
    end
.stream tensor
    load_stationary t=0:bf16 k=PARTS m=COLS spm=2 spq=1 sc=64 wait=z>=1
    end
