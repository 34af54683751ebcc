// The counting kernels for AVX-512 CPUs (built with -mavx512f/bw/dq/vl; called only
// after a run-time CPU check).
#define MF_ISA avx512
#define MF_ISA_NAME "avx512"
#include "avalanche/count/counting_kernels.inc"
