#include "harness/verilated_bench.hpp"
TRN_BENCH_MAIN(Vfp32_add, "fp32_add")
