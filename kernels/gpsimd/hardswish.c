/* hardswish: a custom activation the scalar engine's table lacks (docs/activations.md),
 * y = (x * min(max(x + 3, +0), 6)) * (1/6) in FP32, 1/6 rounded to FP32 (0x3E2AAAAB), each operation
 * rounded to nearest even; max and min as vfmax and vfmin (max(-0, +0) = +0).
 * On the processor the vector unit does it, VLMAX elements a pass (e32, m2); on the host the scalar
 * loop below, which the processor's results must equal bit for bit.
 * Arguments (32-bit words): in, out (count FP32 each), count. */
#include "gpsimd.h"

void GP_MAIN(uint32_t proc, uint32_t args) {
  (void)proc;
  const uint32_t* a = GP_PTR(const uint32_t, args);
  const float* in = GP_PTR(const float, a[0]);
  float* out = GP_PTR(float, a[1]);
  uint32_t count = a[2];
#ifdef __riscv
  /* v8 = 3, v10 = +0, v12 = 6, v14 = 1/6 in every element */
  uint32_t vl;
  __asm__ volatile("vsetvli %0, zero, e32, m2, ta, ma" : "=r"(vl));
  __asm__ volatile("vmv.v.x v8, %0\n vmv.v.i v10, 0\n vmv.v.x v12, %1\n vmv.v.x v14, %2" ::"r"(gp_f32_bits(3.0f)),
                   "r"(gp_f32_bits(6.0f)), "r"(gp_f32_bits(1.0f / 6.0f)));
  while (count) {
    __asm__ volatile("vsetvli %0, %1, e32, m2, ta, ma" : "=r"(vl) : "r"(count));
    __asm__ volatile("vle32.v v2, (%0)" ::"r"(in) : "memory");
    __asm__ volatile(GP_VFP("vfadd.vv v4, v2, v8\n vfmax.vv v4, v4, v10\n vfmin.vv v4, v4, v12\n"
                            " vfmul.vv v4, v2, v4\n vfmul.vv v4, v4, v14")::
                         : "memory");
    __asm__ volatile("vse32.v v4, (%0)" ::"r"(out) : "memory");
    in += vl, out += vl, count -= vl;
  }
#else
  for (uint32_t i = 0; i < count; ++i) {
    const float x = in[i];
    float t = x + 3.0f;
    t = t > 0.0f ? t : 0.0f; /* vfmax(t, +0): -0 and negatives give +0 */
    t = t < 6.0f ? t : 6.0f; /* vfmin(t, 6) */
    out[i] = x * t * (1.0f / 6.0f);
  }
#endif
}
