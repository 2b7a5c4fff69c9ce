; BF16 PSUM entries (v4): a multiply rounding stochastically after it seeds the generators, then
; one accumulating with RNE. The data are zeros: this program checks the control's tensor commands
; (pbf, o.sr, seed_ld and imm0 as the seed), which the probes compare with the model's each cycle;
; the rounding itself is tested in tb/tensor (bf16_psum_rounding, random_programs).
; expect: done
; expect-sem: s=2
.sem s
.stream tensor
    load_stationary t=0:bf16 k=PARTS m=COLS
    multiply_moving t=0:bf16 n=4 bank=1 pbf o.sr seed_ld imm0=0x5eed post=s+=1
    multiply_moving t=0:bf16 n=4 bank=1 acc pbf post=s+=1
    end
