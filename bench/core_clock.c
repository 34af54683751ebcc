/* The core clock as a program sees it (no hardware counters in this VM): a chain of
   dependent one-cycle adds runs at one add per cycle, so adds per second = cycles per
   second. bench/scoring.sh's perf part prints it beside the profile, to turn seconds into
   cycles. Build: cc -O2 bench/core_clock.c */
#include <stdio.h>
#include <time.h>

int main(void) {
  const unsigned long n = 2000000000UL;
  unsigned long x = 0;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (unsigned long i = 0; i < n; ++i) __asm__ volatile("add $1, %0" : "+r"(x));
  clock_gettime(CLOCK_MONOTONIC, &b);
  const double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
  printf("%.2f GHz (%lu dependent adds in %.3f s)\n", (double)n / s / 1e9, x, s);
  return 0;
}
