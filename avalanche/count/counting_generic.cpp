// The counting kernels for any x86-64 (and other) CPU.
#define MF_ISA generic
#define MF_ISA_NAME "generic"
#include "avalanche/count/counting_kernels.inc"
