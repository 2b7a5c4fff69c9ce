#include "harness/verilated_bench.hpp"
TRN_BENCH_MAIN(Vfp32_mul, "fp32_mul")
