; An activation reading past SBUF's end: the scalar engine's check refuses it at decode (detail 1:
; pattern), before it issues.
; expect: error=scalar stream=scalar pc=0 detail=1
.stream scalar
    activate pc=1 size=8 a=sbuf:SBUF_BYTES-16:fp32 a.stride=1 o=sbuf:0:fp32 o.stride=1 func=identity imm0=f32(1.0)
    end
