/* scan: the cumulative sum of each row along the free axis, FP32, in order:
 * out[r][j] = ((in[r][0] + in[r][1]) + ...) + in[r][j].
 * Arguments (32-bit words): in, out (local memory offsets of rows x n FP32), rows, n. */
#include "gpsimd.h"

void GP_MAIN(uint32_t proc, uint32_t args) {
  (void)proc;
  const uint32_t* a = GP_PTR(const uint32_t, args);
  const float* in = GP_PTR(const float, a[0]);
  float* out = GP_PTR(float, a[1]);
  const uint32_t rows = a[2], n = a[3];
  for (uint32_t r = 0; r < rows; ++r) {
    float s = 0.0f;
    for (uint32_t j = 0; j < n; ++j) {
      s += in[r * n + j];
      out[r * n + j] = s;
    }
  }
}
