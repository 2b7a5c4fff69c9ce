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
/* An FP32 value's bits (a vector register's element, for vmv.v.x). */
static inline uint32_t gp_f32_bits(float f) {
  uint32_t b;
  __builtin_memcpy(&b, &f, 4);
  return b;
}
/* op.end (custom-0, the word 0x0000000B): the operator is done on this processor. crt0.S ends
 * with it after GP_MAIN returns; an operator may end early with it. */
static inline void gp_end(void) { __asm__ volatile(".insn i 0x0B, 0, x0, x0, 0" ::: "memory"); }
/* SBUF transfers (docs/gpsimd.md "Custom instructions"), as inline-assembly strings naming the
 * vector register by number n and taking the operands [part] (the partition, one the processor
 * owns) and [off] (the byte offset in it): vl elements of the vtype set. The _BF16 forms widen
 * BF16 in SBUF to FP32 (load) or round FP32 to BF16, to nearest even (store); SEW is 32. */
#define GP_SB_LOAD(n) ".insn r 0x0B, 1, 0, x" #n ", %[part], %[off]"
#define GP_SB_STORE(n) ".insn r 0x0B, 2, 0, x" #n ", %[part], %[off]"
#define GP_SB_LOAD_BF16(n) ".insn r 0x0B, 1, 1, x" #n ", %[part], %[off]"
#define GP_SB_STORE_BF16(n) ".insn r 0x0B, 2, 1, x" #n ", %[part], %[off]"
/* The NeuronCore's semaphores: wait until semaphore sem is at least v (unsigned); add v to it. */
static inline void gp_sem_wait(uint32_t sem, uint32_t v) {
  __asm__ volatile(".insn r 0x0B, 3, 0, x0, %0, %1" ::"r"(sem), "r"(v) : "memory");
}
static inline void gp_sem_add(uint32_t sem, uint32_t v) {
  __asm__ volatile(".insn r 0x0B, 4, 0, x0, %0, %1" ::"r"(sem), "r"(v) : "memory");
}
#else
#ifdef __cplusplus
extern "C" {
#endif
extern uint8_t* gp_host_tcm;  /* the host build's local memory image */
extern uint8_t* gp_host_sbuf; /* ... and SBUF's: partition p's byte o at p * gp_host_sbuf_bytes + o */
extern uint32_t gp_host_sbuf_bytes;
extern uint32_t gp_host_sems[32]; /* the semaphores: the host adds (a run on the host never waits) */
#ifdef __cplusplus
}
#endif
#define GP_PTR(type, offset) ((type*)(gp_host_tcm + (offset)))
static inline void gp_end(void) {}
/* The host's SBUF (the processor's are the GP_SB_ instructions above), little-endian. */
static inline uint16_t gp_sbuf_get16(uint32_t part, uint32_t off) {
  const uint8_t* b = gp_host_sbuf + part * gp_host_sbuf_bytes + off;
  return (uint16_t)(b[0] | b[1] << 8);
}
static inline void gp_sbuf_put16(uint32_t part, uint32_t off, uint16_t v) {
  uint8_t* b = gp_host_sbuf + part * gp_host_sbuf_bytes + off;
  b[0] = (uint8_t)v;
  b[1] = (uint8_t)(v >> 8);
}
static inline void gp_sem_wait(uint32_t sem, uint32_t v) {
  (void)sem;
  (void)v;
}
static inline void gp_sem_add(uint32_t sem, uint32_t v) { gp_host_sems[sem & 31] += v; }
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
