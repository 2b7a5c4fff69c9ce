/* topk: the k largest values of each row, FP32, in descending order with their indices (of equal
 * values, the lower index first).
 * Arguments (32-bit words): in (rows x n FP32), values (rows x k FP32), indices (rows x k uint32),
 * rows, n, k (k <= n). */
#include "gpsimd.h"

void GP_MAIN(uint32_t proc, uint32_t args) {
  (void)proc;
  const uint32_t* a = GP_PTR(const uint32_t, args);
  const float* in = GP_PTR(const float, a[0]);
  float* val = GP_PTR(float, a[1]);
  uint32_t* idx = GP_PTR(uint32_t, a[2]);
  const uint32_t rows = a[3], n = a[4], k = a[5];
  for (uint32_t r = 0; r < rows; ++r) {
    const float* x = in + r * n;
    float* v = val + r * k;
    uint32_t* ix = idx + r * k;
    uint32_t have = 0;
    /* insertion into the sorted list of the best so far */
    for (uint32_t j = 0; j < n; ++j) {
      const float y = x[j];
      if (have == k && !(y > v[k - 1])) continue;
      uint32_t at = have < k ? have++ : k - 1;
      while (at > 0 && y > v[at - 1]) {
        v[at] = v[at - 1];
        ix[at] = ix[at - 1];
        --at;
      }
      v[at] = y;
      ix[at] = j;
    }
  }
}
