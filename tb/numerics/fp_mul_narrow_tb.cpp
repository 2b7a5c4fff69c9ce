#include "harness/verilated_bench.hpp"
TRN_BENCH_MAIN(Vfp_mul_narrow, "fp_mul_narrow")
