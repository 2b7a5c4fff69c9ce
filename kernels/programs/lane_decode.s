; A copy reading past SBUF's end: the vector engine's check refuses it at decode (detail 1:
; pattern), before it issues.
; expect: error=vector stream=vector pc=0 detail=1
.stream vector
    copy pc=1 size=8 a=sbuf:SBUF_BYTES-16:fp32 a.stride=1 o=sbuf:0:fp32 o.stride=1
    end
