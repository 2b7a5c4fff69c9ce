#include "harness/verilated_bench.hpp"
TRN_BENCH_MAIN(Vmx_quantize, "mx_quantize")
