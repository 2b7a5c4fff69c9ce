/* Start-up of a GpSimd operator (docs/gpsimd.md): the stack at the top of local memory, .bss
 * cleared, then GP_MAIN(a0 = the processor's index, a1 = the argument block), then op.end. */
  .section .text.start, "ax"
  .globl _start
_start:
  la sp, __stack_top
  la t0, __bss_start
  la t1, __bss_end
1:
  bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:
  call gp_main
  .insn i 0x0B, 0, x0, x0, 0 /* op.end */
