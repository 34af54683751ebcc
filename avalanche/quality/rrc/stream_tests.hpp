#pragma once
// The tests the RRC battery applies to one stream f(T(0)), f(T(1)), ... of n-bit values,
// written here from the literature (Knuth, TAOCP vol. 2, 3.3.2; NIST SP 800-22; Evensen's
// avalanche tests on the mixer's own inputs). Each test reads a prefix of the stream,
// element by element, and gives one or more two-sided p-values: a statistic too far from
// its law on either side (too irregular, or too regular to be chance) gives a small p.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "avalanche/batch_function.hpp"

namespace mixforge::avalanche::rrc {

struct TestResult {
  std::string test;  // "uniform", "sac", "linear-complexity:bit0", ...
  double p = 1;      // two-sided p-value
};

struct StreamContext {
  int width = 32;                    // of the mixer, 1..64
  std::uint64_t length = 0;          // elements of the stream at this step (2^k)
  const BatchFunction* f = nullptr;  // the mixer: the avalanche tests call it on stream values
};

class StreamTest {
 public:
  virtual ~StreamTest() = default;
  // How many leading elements of the stream it reads (the costly tests read fewer than
  // the length: length^(6/7) or length^(5/7)); 0: not run at this length (no feed, no
  // finish).
  std::uint64_t wanted() const { return wanted_; }
  // The next `count` elements, in order; never more than wanted() in all.
  virtual void feed(const std::uint64_t* y, std::size_t count) = 0;
  // Appends its results (none where the test has too little data at this length).
  virtual void finish(std::vector<TestResult>& out) const = 0;

 protected:
  std::uint64_t wanted_ = 0;
};

// Every test, fresh, for one stream at one length.
std::vector<std::unique_ptr<StreamTest>> make_stream_tests(const StreamContext& context);

// The two-sided p of pooled_chi2 (avalanche/stats/chi2_distribution.hpp); fewer than two pooled
// cells: p = 1.
double pooled_chi2_p(const std::vector<double>& observed, const std::vector<double>& expected);

// Two-sided p of a chi-square statistic: 2 min(P(X <= x), P(X >= x)), at most 1.
double chi2_two_sided(double x, double dof);

// The linear complexity of a bit sequence (Berlekamp-Massey over GF(2)).
int linear_complexity(const std::vector<std::uint8_t>& bits);

// P(rank = r) of an m x m matrix of independent fair bits over GF(2), 0 <= r <= m <= 64.
double gf2_rank_probability(int m, int r);

}  // namespace mixforge::avalanche::rrc
