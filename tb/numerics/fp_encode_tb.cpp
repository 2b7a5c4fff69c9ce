#include "harness/verilated_bench.hpp"
TRN_BENCH_MAIN(Vfp_encode, "fp_encode")
