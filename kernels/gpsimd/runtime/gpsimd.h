/* The GpSimd operators' runtime (docs/gpsimd.md "Writing an operator").
 *
 * An operator is one C file with one entry point, GP_MAIN(proc, args): proc is the processor's
 * index (a0 at the start), args the local-memory address of its argument block (a1). The same file
 * builds for the processor (riscv64-unknown-elf-gcc, rv32im with the vector subset, crt0.S and
 * link.ld of this directory)
 * and for the host (the reference its outputs must equal bit for bit); the build defines GP_MAIN
 * (gp_main on the processor, <operator>_main on the host).
 *
 * Local memory is addressed by 32-bit offsets: GP_PTR(type, offset) is the pointer to it (on the
 * host, into the image gp_host_tcm points at). Floating point is IEEE binary32 with every operation
 * rounded on its own: libgcc's soft float on the processor, SSE on the host built with
 * -ffp-contract=off, so both give the same bits for finite inputs. */
#ifndef GPSIMD_H
#define GPSIMD_H

#include <stdint.h>

#ifdef __riscv
#define GP_PTR(type, offset) ((type*)(uintptr_t)(offset))
/* The vector subset (docs/gpsimd.md "The vector unit") through inline assembly: the operators are
 * compiled for rv32im_zve32x (integer vectors: GCC then emits no scalar FP instruction, which the
 * processor lacks), and GP_VFP wraps the FP32 vector instructions, which the assembler takes with
 * zve32f. Vector registers are named in the assembly; GCC 12 has no vector intrinsics. */
#define GP_VFP(insn) ".option push\n.option arch, +zve32f\n" insn "\n.option pop"
/* op.end (custom-0, the word 0x0000000B): the operator is done on this processor. crt0.S ends
 * with it after GP_MAIN returns; an operator may end early with it. */
static inline void gp_end(void) { __asm__ volatile(".insn i 0x0B, 0, x0, x0, 0" ::: "memory"); }
#else
#ifdef __cplusplus
extern "C" {
#endif
extern uint8_t* gp_host_tcm; /* the host build's local memory image */
#ifdef __cplusplus
}
#endif
#define GP_PTR(type, offset) ((type*)(gp_host_tcm + (offset)))
static inline void gp_end(void) {}
#endif

#ifndef GP_MAIN
#error "GP_MAIN names the operator's entry point: the build defines it"
#endif
#ifdef __cplusplus
extern "C"
#endif
    void
    GP_MAIN(uint32_t proc, uint32_t args);

#endif
