/* gather: each row's elements picked by an index row: out[r][j] = in[r][ix[r][j]], FP32; an index
 * past the row (>= n) gives 0.0 and is counted.
 * Arguments (32-bit words): in (rows x n FP32), ix (rows x m uint32), out (rows x m FP32), rows, n,
 * m, and a word the operator writes: how many indices were past their row. */
#include "gpsimd.h"

void GP_MAIN(uint32_t proc, uint32_t args) {
  (void)proc;
  uint32_t* a = GP_PTR(uint32_t, args);
  const float* in = GP_PTR(const float, a[0]);
  const uint32_t* ix = GP_PTR(const uint32_t, a[1]);
  float* out = GP_PTR(float, a[2]);
  const uint32_t rows = a[3], n = a[4], m = a[5];
  uint32_t bad = 0;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < m; ++j) {
      const uint32_t i = ix[r * m + j];
      if (i < n) {
        out[r * m + j] = in[r * n + i];
      } else {
        out[r * m + j] = 0.0f;
        ++bad;
      }
    }
  a[6] = bad;
}
