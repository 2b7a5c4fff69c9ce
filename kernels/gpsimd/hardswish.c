/* hardswish: a custom activation the scalar engine's table lacks (docs/activations.md),
 * y = (x * min(max(x + 3, 0), 6)) * (1/6) in FP32, 1/6 rounded to FP32 (0x3E2AAAAB), each operation
 * rounded to nearest even.
 * Arguments (32-bit words): in, out (count FP32 each), count. */
#include "gpsimd.h"

void GP_MAIN(uint32_t proc, uint32_t args) {
  (void)proc;
  const uint32_t* a = GP_PTR(const uint32_t, args);
  const float* in = GP_PTR(const float, a[0]);
  float* out = GP_PTR(float, a[1]);
  const uint32_t count = a[2];
  for (uint32_t i = 0; i < count; ++i) {
    const float x = in[i];
    float t = x + 3.0f;
    t = t < 0.0f ? 0.0f : t > 6.0f ? 6.0f : t;
    out[i] = x * t * (1.0f / 6.0f);
  }
}
