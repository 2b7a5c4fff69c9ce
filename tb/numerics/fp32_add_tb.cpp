// Bench for rtl/numerics/fp32_add.sv (tests in fp32_arith_tests.inc).

#define FP32_MODEL Fp32Add
#define FP32_REF(x, z) ((x) + (z))
#define FP32_UNIT "fp32_add"
#include "fp32_add_ports.hpp"
#include "numerics/fp32_arith_tests.inc"

TRN_BENCH_MAIN(Vfp32_add, "fp32_add")
