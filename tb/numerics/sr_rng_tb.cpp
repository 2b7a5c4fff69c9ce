#include "harness/verilated_bench.hpp"
TRN_BENCH_MAIN(Vsr_rng, "sr_rng")
