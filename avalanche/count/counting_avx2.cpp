// The counting kernels for AVX2 CPUs (built with -mavx2 -mbmi2 -mpopcnt; called only after a
// run-time CPU check). Baseline x86-64 has 16 128-bit registers: the six 512-bit
// accumulators of count_stream alone need 24 and spill; AVX2 halves that.
#define MF_ISA avx2
#define MF_ISA_NAME "avx2"
#include "avalanche/count/counting_kernels.inc"
