// Bench for rtl/numerics/fp32_mul.sv (tests in fp32_arith_tests.inc).
#define FP32_MODEL Fp32Mul
#define FP32_REF(x, z) ((x) * (z))
#define FP32_UNIT "fp32_mul"
#include "fp32_mul_ports.hpp"
#include "numerics/fp32_arith_tests.inc"

TRN_BENCH_MAIN(Vfp32_mul, "fp32_mul")
