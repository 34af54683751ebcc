#include "avalanche/count/counting_kernels.hpp"

#include <bit>

namespace mixforge::avalanche::counting {

namespace generic {
const CountingKernels& kernels();
}
#ifdef MIXFORGE_HAVE_X86_KERNELS
namespace avx2 {
const CountingKernels& kernels();
}
namespace avx512 {
const CountingKernels& kernels();
}
#endif

const CountingKernels& generic_counting_kernels() { return generic::kernels(); }

const CountingKernels* avx2_counting_kernels() {
#ifdef MIXFORGE_HAVE_X86_KERNELS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt"))
    return &avx2::kernels();
#endif
  return nullptr;
}

const CountingKernels* avx512_counting_kernels() {
#ifdef MIXFORGE_HAVE_X86_KERNELS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return &avx512::kernels();
#endif
  return nullptr;
}

const CountingKernels& best_counting_kernels() {
  static const CountingKernels* best = [] {
    if (const CountingKernels* k = avx512_counting_kernels()) return k;
    if (const CountingKernels* k = avx2_counting_kernels()) return k;
    return &generic_counting_kernels();
  }();
  return *best;
}

void add_totals(const SlicedCounter& c, std::uint64_t totals[512]) {
  for_each_plane(c, [&](const Plane& p, int weight_log2) {
    for (int w = 0; w < 8; ++w)
      for (std::uint64_t bits = p.w[w]; bits; bits &= bits - 1)
        totals[64 * w + std::countr_zero(bits)] += std::uint64_t{1} << weight_log2;
  });
}

}  // namespace mixforge::avalanche::counting
