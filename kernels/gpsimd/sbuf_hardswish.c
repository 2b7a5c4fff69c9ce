/* sbuf_hardswish: hardswish (as hardswish.c) on BF16 rows in SBUF, in place of a copy in local
 * memory: each processor takes the partitions it owns, [proc * per, (proc + 1) * per), widens
 * `count` BF16 elements at byte offset `in` of each to FP32 (sb.load), computes
 * y = (x * min(max(x + 3, +0), 6)) * (1/6) in FP32, each operation rounded to nearest even, and
 * stores y rounded to BF16 (to nearest even: sb.store) at byte offset `out`; then adds 1 to
 * semaphore `sem`. The DMA brings the rows in and takes them out (docs/gpsimd.md "In the
 * NeuronCore"). On the processor the vector unit does VLMAX elements a pass (e32, m2); on the host
 * the scalar loop below, which the processor's results must equal bit for bit.
 * Arguments (32-bit words): per, in, out, count, sem. */
#include "gpsimd.h"

#ifndef __riscv
/* BF16 to FP32 (exact) and FP32 to BF16, to nearest even (the results here are finite) */
static float widen(uint16_t h) {
  const uint32_t b = (uint32_t)h << 16;
  float f;
  __builtin_memcpy(&f, &b, 4);
  return f;
}
static uint16_t narrow(float f) {
  uint32_t b;
  __builtin_memcpy(&b, &f, 4);
  b += 0x7FFFu + ((b >> 16) & 1u);
  return (uint16_t)(b >> 16);
}
#endif

void GP_MAIN(uint32_t proc, uint32_t args) {
  const uint32_t* a = GP_PTR(const uint32_t, args);
  const uint32_t per = a[0], in = a[1], out = a[2], count = a[3], sem = a[4];
#ifdef __riscv
  /* v8 = 3, v10 = +0, v12 = 6, v14 = 1/6 in every element */
  uint32_t vl;
  __asm__ volatile("vsetvli %0, zero, e32, m2, ta, ma" : "=r"(vl));
  __asm__ volatile("vmv.v.x v8, %0\n vmv.v.i v10, 0\n vmv.v.x v12, %1\n vmv.v.x v14, %2" ::"r"(gp_f32_bits(3.0f)),
                   "r"(gp_f32_bits(6.0f)), "r"(gp_f32_bits(1.0f / 6.0f)));
#endif
  for (uint32_t p = proc * per; p < (proc + 1) * per; ++p) {
#ifdef __riscv
    for (uint32_t i = 0, left = count; left; i += vl, left -= vl) {
      __asm__ volatile("vsetvli %0, %1, e32, m2, ta, ma" : "=r"(vl) : "r"(left));
      __asm__ volatile(GP_SB_LOAD_BF16(2)::[part] "r"(p), [off] "r"(in + 2 * i) : "memory");
      __asm__ volatile(GP_VFP("vfadd.vv v4, v2, v8\n vfmax.vv v4, v4, v10\n vfmin.vv v4, v4, v12\n"
                              " vfmul.vv v4, v2, v4\n vfmul.vv v4, v4, v14")::
                           : "memory");
      __asm__ volatile(GP_SB_STORE_BF16(4)::[part] "r"(p), [off] "r"(out + 2 * i) : "memory");
    }
#else
    for (uint32_t i = 0; i < count; ++i) {
      const float x = widen(gp_sbuf_get16(p, in + 2 * i));
      float t = x + 3.0f;
      t = t > 0.0f ? t : 0.0f; /* vfmax(t, +0) */
      t = t < 6.0f ? t : 6.0f; /* vfmin(t, 6) */
      gp_sbuf_put16(p, out + 2 * i, narrow(x * t * (1.0f / 6.0f)));
    }
#endif
  }
  gp_sem_add(sem, 1);
}
