#include "avalanche/quality/rrc/stream_tests.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "avalanche/stats/chi2_distribution.hpp"
#include "avalanche/quality/rrc/rrc_transform.hpp"

namespace mixforge::avalanche::rrc {
namespace {

// The costly tests read a shorter prefix as the stream grows: length^(6/7) (avalanche,
// gap, coupon, permutation, bit patterns, binary rank) and length^(5/7) (linear
// complexity, the avalanche matrix). A prefix under 1024 elements is too short to test:
// such a test is not run at that length (wanted 0), as in the published depth figures
// (so the avalanche tests join at 2^12).
std::uint64_t limited(std::uint64_t n, double exponent) {
  const auto m = static_cast<std::uint64_t>(std::pow(static_cast<double>(n), exponent));
  return m < 1024 ? 0 : std::min(n, m);
}
std::uint64_t slow(std::uint64_t n) { return limited(n, 6.0 / 7.0); }
std::uint64_t slower(std::uint64_t n) { return limited(n, 5.0 / 7.0); }

double unit(std::uint64_t y, int w) { return (static_cast<double>(y) + 0.5) * std::ldexp(1.0, -w); }

// -- uniform: histograms of the top b bits (b grows as 2 n^0.4 bins), the top b/2 bits, and
//    the low b bits. Outputs of a bijection on distinct inputs are drawn without
//    replacement, so the statistic is divided by the finite-population factor (N-n)/(N-1).
class UniformTest final : public StreamTest {
 public:
  explicit UniformTest(const StreamContext& c) : w_(c.width), n_(c.length) {
    wanted_ = n_;
    const int want = static_cast<int>(std::ceil(1.0 + 0.4 * std::log2(static_cast<double>(n_))));
    b_ = std::clamp(want, 1, std::min(w_, 20));
    coarse_ = std::max(1, b_ / 2);
    top_.assign(std::size_t{1} << b_, 0);
    low_.assign(std::size_t{1} << b_, 0);
  }
  void feed(const std::uint64_t* y, std::size_t count) override {
    const std::uint64_t lm = (std::uint64_t{1} << b_) - 1;
    for (std::size_t i = 0; i < count; ++i) {
      ++top_[y[i] >> (w_ - b_)];
      ++low_[y[i] & lm];
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    out.push_back({"uniform", p_of(top_)});
    std::vector<std::uint64_t> coarse(std::size_t{1} << coarse_, 0);
    for (std::size_t k = 0; k < top_.size(); ++k) coarse[k >> (b_ - coarse_)] += top_[k];
    out.push_back({"uniform-coarse", p_of(coarse)});
    out.push_back({"uniform-low", p_of(low_)});
  }

 private:
  double p_of(const std::vector<std::uint64_t>& h) const {
    const double e = static_cast<double>(n_) / static_cast<double>(h.size());
    double x = 0;
    for (std::uint64_t c : h) x += (static_cast<double>(c) - e) * (static_cast<double>(c) - e) / e;
    if (w_ < 64) {
      const double N = std::ldexp(1.0, w_);
      x /= (N - static_cast<double>(n_)) / (N - 1);
    }
    return chi2_two_sided(x, static_cast<double>(h.size() - 1));
  }
  int w_;
  std::uint64_t n_;
  int b_ = 1, coarse_ = 1;
  std::vector<std::uint64_t> top_, low_;
};

// -- mean (up to 2^20 elements), Wald-Wolfowitz runs above and below the middle, lag-1
//    serial correlation, and the serial avalanche: |y_i ^ y_i+1| ~ Binomial(n, 1/2).
class SerialTest final : public StreamTest {
 public:
  explicit SerialTest(const StreamContext& c) : w_(c.width), n_(c.length), hist_(c.width + 1, 0) { wanted_ = n_; }
  void feed(const std::uint64_t* y, std::size_t count) override {
    for (std::size_t i = 0; i < count; ++i) {
      const double u = unit(y[i], w_) - 0.5;
      if (seen_ < (std::uint64_t{1} << 20)) sum_ += u;
      const bool high = (y[i] >> (w_ - 1)) & 1;
      ones_ += high;
      if (seen_ > 0) {
        runs_ += high != last_high_;
        lag_ += u * last_u_;
        ++hist_[std::popcount(y[i] ^ last_)];
      } else {
        runs_ = 1;
      }
      last_ = y[i];
      last_u_ = u;
      last_high_ = high;
      ++seen_;
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    const double n = static_cast<double>(seen_);
    if (seen_ <= (std::uint64_t{1} << 20)) out.push_back({"mean", normal_two_sided(sum_ / std::sqrt(n / 12.0))});
    const double n1 = static_cast<double>(ones_), n0 = n - n1;
    if (n1 > 0 && n0 > 0) {
      const double mu = 2 * n1 * n0 / n + 1, var = (mu - 1) * (mu - 2) / (n - 1);
      if (var > 0) out.push_back({"runs", normal_two_sided((static_cast<double>(runs_) - mu) / std::sqrt(var))});
    }
    out.push_back({"serial-correlation", normal_two_sided(lag_ / std::sqrt((n - 1) / 144.0))});
    const auto pmf = binomial_half_pmf(w_);
    std::vector<double> obs(hist_.begin(), hist_.end()), exp(pmf.size());
    for (std::size_t k = 0; k < pmf.size(); ++k) exp[k] = (n - 1) * pmf[k];
    out.push_back({"serial-avalanche", pooled_chi2_p(obs, exp)});
  }

 private:
  int w_;
  std::uint64_t n_, seen_ = 0, ones_ = 0, runs_ = 0, last_ = 0;
  double sum_ = 0, lag_ = 0, last_u_ = 0;
  bool last_high_ = false;
  std::vector<std::uint64_t> hist_;
};

// -- Knuth's gap test for [0, 1/2) and [1/2, 1): gaps between hits are geometric(1/2).
class GapTest final : public StreamTest {
 public:
  explicit GapTest(const StreamContext& c) : w_(c.width) { wanted_ = slow(c.length); }
  void feed(const std::uint64_t* y, std::size_t count) override {
    for (std::size_t i = 0; i < count; ++i) {
      const int half = static_cast<int>((y[i] >> (w_ - 1)) & 1);
      for (int h = 0; h < 2; ++h) {
        if (half == h) {
          if (started_[h]) ++gaps_[h][std::min<std::uint64_t>(gap_[h], cells - 1)];
          started_[h] = true;
          gap_[h] = 0;
        } else {
          ++gap_[h];
        }
      }
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    for (int h = 0; h < 2; ++h) {
      double total = 0;
      for (auto c : gaps_[h]) total += static_cast<double>(c);
      std::vector<double> obs(cells), exp(cells);
      for (std::size_t g = 0; g < cells; ++g) {
        obs[g] = static_cast<double>(gaps_[h][g]);
        exp[g] =
            total * (g + 1 < cells ? std::ldexp(1.0, -static_cast<int>(g) - 1) : std::ldexp(1.0, -static_cast<int>(g)));
      }
      out.push_back({h == 0 ? "gap:low" : "gap:high", pooled_chi2_p(obs, exp)});
    }
  }

 private:
  static constexpr std::size_t cells = 32;  // gaps 0..30, and 31 or more
  int w_;
  std::array<std::array<std::uint64_t, cells>, 2> gaps_{};
  std::array<std::uint64_t, 2> gap_{};
  std::array<bool, 2> started_{};
};

// -- Knuth's coupon collector: segments until all 5 values of floor(5u) have appeared.
class CouponTest final : public StreamTest {
 public:
  explicit CouponTest(const StreamContext& c) : w_(c.width), counts_(max_len + 1, 0) { wanted_ = slow(c.length); }
  void feed(const std::uint64_t* y, std::size_t count) override {
    for (std::size_t i = 0; i < count; ++i) {
      const int coupon = std::min(d - 1, static_cast<int>(unit(y[i], w_) * d));
      seen_ |= 1u << coupon;
      ++len_;
      if (seen_ == (1u << d) - 1) {
        ++counts_[std::min(len_, max_len)];
        seen_ = 0;
        len_ = 0;
      }
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    // P(segment length r) = d! / d^r S(r-1, d-1), r >= d; the last cell takes the tail.
    std::vector<std::vector<double>> S(max_len + 1, std::vector<double>(d + 1, 0));
    S[0][0] = 1;
    for (std::size_t n = 1; n <= max_len; ++n)
      for (int k = 1; k <= d; ++k) S[n][k] = k * S[n - 1][k] + S[n - 1][k - 1];
    double total = 0;
    for (auto c : counts_) total += static_cast<double>(c);
    std::vector<double> obs, exp;
    double sum = 0;
    for (std::size_t r = d; r < max_len; ++r) {
      const double p = 120.0 / std::pow(static_cast<double>(d), static_cast<double>(r)) * S[r - 1][d - 1];
      obs.push_back(static_cast<double>(counts_[r]));
      exp.push_back(total * p);
      sum += p;
    }
    obs.push_back(static_cast<double>(counts_[max_len]));
    exp.push_back(total * std::max(0.0, 1.0 - sum));
    out.push_back({"coupon", pooled_chi2_p(obs, exp)});
  }

 private:
  static constexpr int d = 5;
  static constexpr std::size_t max_len = 40;
  int w_;
  unsigned seen_ = 0;
  std::size_t len_ = 0;
  std::vector<std::uint64_t> counts_;
};

// -- Knuth's permutation test: the relative order of 5 values in non-overlapping groups,
//    each of the 120 orders equally likely.
class PermutationTest final : public StreamTest {
 public:
  // At least 600 groups: 5 expected for each order.
  explicit PermutationTest(const StreamContext& c) : counts_(120, 0) {
    const std::uint64_t m = slow(c.length);
    wanted_ = m >= 5 * 600 ? m : 0;
  }
  void feed(const std::uint64_t* y, std::size_t count) override {
    for (std::size_t i = 0; i < count; ++i) {
      group_[fill_++] = y[i];
      if (fill_ < 5) continue;
      fill_ = 0;
      // Lehmer code: for each position, how many later values are smaller.
      int code = 0;
      for (int a = 0; a < 5; ++a) {
        int smaller = 0;
        for (int b = a + 1; b < 5; ++b) smaller += group_[b] < group_[a];
        code = code * (5 - a) + smaller;
      }
      ++counts_[code];
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    double total = 0;
    for (auto c : counts_) total += static_cast<double>(c);
    std::vector<double> obs(counts_.begin(), counts_.end()), exp(120, total / 120);
    out.push_back({"permutation", pooled_chi2_p(obs, exp)});
  }

 private:
  std::array<std::uint64_t, 5> group_{};
  int fill_ = 0;
  std::vector<std::uint64_t> counts_;
};

// -- Bit patterns: the output bits end to end (low bits first) cut into non-overlapping
//    s-bit words; s as large as leaves 32 words expected per pattern (at most 16).
class BitPatternTest final : public StreamTest {
 public:
  explicit BitPatternTest(const StreamContext& c) : w_(c.width) {
    wanted_ = slow(c.length);
    const double bits = static_cast<double>(wanted_) * w_;
    s_ = 1;
    while (s_ < 16 && bits / (s_ + 1) / std::ldexp(1.0, s_ + 1) >= 32) ++s_;
    counts_.assign(std::size_t{1} << s_, 0);
  }
  void feed(const std::uint64_t* y, std::size_t count) override {
    const std::uint64_t m = (std::uint64_t{1} << s_) - 1;
    for (std::size_t i = 0; i < count; ++i) {
      buffer_ |= static_cast<unsigned __int128>(y[i] & width_mask(w_)) << held_;
      held_ += w_;
      while (held_ >= s_) {
        ++counts_[static_cast<std::uint64_t>(buffer_) & m];
        buffer_ >>= s_;
        held_ -= s_;
      }
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    double total = 0;
    for (auto c : counts_) total += static_cast<double>(c);
    const double e = total / static_cast<double>(counts_.size());
    double x = 0;
    for (auto c : counts_) x += (static_cast<double>(c) - e) * (static_cast<double>(c) - e) / e;
    out.push_back({"bit-pattern", chi2_two_sided(x, static_cast<double>(counts_.size() - 1))});
  }

 private:
  int w_, s_ = 1;
  unsigned __int128 buffer_ = 0;
  int held_ = 0;
  std::vector<std::uint64_t> counts_;
};

// -- Binary rank: n consecutive n-bit outputs as the rows of an n x n matrix over GF(2)
//    (n >= 6); ranks n, n-1, n-2 and below, against their probabilities.
class BinaryRankTest final : public StreamTest {
 public:
  // At least 1000 matrices, so that the rarest class (rank n-3 or less, p = 0.0052)
  // expects 5: with fewer, the p-values are too discrete for the KS test over streams.
  explicit BinaryRankTest(const StreamContext& c) : w_(c.width) {
    const std::uint64_t m = slow(c.length);
    wanted_ = w_ >= 6 && m >= 1000 * static_cast<std::uint64_t>(w_) ? m : 0;
  }
  void feed(const std::uint64_t* y, std::size_t count) override {
    for (std::size_t i = 0; i < count; ++i) {
      rows_[fill_++] = y[i] & width_mask(w_);
      if (fill_ < w_) continue;
      fill_ = 0;
      int rank = 0;
      for (int bit = w_ - 1; bit >= 0 && rank < w_; --bit) {
        const std::uint64_t b = std::uint64_t{1} << bit;
        int pivot = -1;
        for (int r = rank; r < w_; ++r)
          if (rows_[r] & b) {
            pivot = r;
            break;
          }
        if (pivot < 0) continue;
        std::swap(rows_[rank], rows_[pivot]);
        for (int r = rank + 1; r < w_; ++r)
          if (rows_[r] & b) rows_[r] ^= rows_[rank];
        ++rank;
      }
      ++classes_[std::min(3, w_ - rank)];
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    double total = 0;
    for (auto c : classes_) total += static_cast<double>(c);
    std::vector<double> obs(4), exp(4);
    double sum = 0;
    for (int k = 0; k < 3; ++k) {
      const double p = gf2_rank_probability(w_, w_ - k);
      obs[k] = static_cast<double>(classes_[k]);
      exp[k] = total * p;
      sum += p;
    }
    obs[3] = static_cast<double>(classes_[3]);
    exp[3] = total * std::max(0.0, 1.0 - sum);
    out.push_back({"binary-rank", pooled_chi2_p(obs, exp)});
  }

 private:
  int w_;
  std::array<std::uint64_t, 64> rows_{};
  int fill_ = 0;
  std::array<std::uint64_t, 4> classes_{};
};

// -- Linear complexity (NIST SP 800-22, 2.10) of the lowest and the highest output bit:
//    blocks of 500 bits, T = L - 250 sorted into seven classes.
class LinearComplexityTest final : public StreamTest {
 public:
  // At least 200 blocks (with fewer, the seven classes' counts are too small for the KS
  // test over streams): from 2^24 elements on.
  explicit LinearComplexityTest(const StreamContext& c) : w_(c.width) {
    const std::uint64_t m = slower(c.length);
    wanted_ = m >= 200 * block ? m : 0;
    bits_ = w_ > 1 ? std::vector<int>{0, w_ - 1} : std::vector<int>{0};
    blocks_.assign(bits_.size(), {});
    classes_.assign(bits_.size(), std::array<std::uint64_t, 7>{});
  }
  void feed(const std::uint64_t* y, std::size_t count) override {
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t b = 0; b < bits_.size(); ++b) {
        blocks_[b].push_back(static_cast<std::uint8_t>((y[i] >> bits_[b]) & 1));
        if (blocks_[b].size() < block) continue;
        const int t = linear_complexity(blocks_[b]) - static_cast<int>(block / 2);  // T rounds to L - 250
        ++classes_[b][t <= -3 ? 0 : t >= 3 ? 6 : t + 3];
        blocks_[b].clear();
      }
  }
  void finish(std::vector<TestResult>& out) const override {
    static constexpr std::array<double, 7> pi{0.010417, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833};
    for (std::size_t b = 0; b < bits_.size(); ++b) {
      double total = 0;
      for (auto c : classes_[b]) total += static_cast<double>(c);
      std::vector<double> obs(7), exp(7);
      for (int k = 0; k < 7; ++k) {
        obs[k] = static_cast<double>(classes_[b][k]);
        exp[k] = total * pi[k];
      }
      out.push_back({"linear-complexity:bit" + std::to_string(bits_[b]), pooled_chi2_p(obs, exp)});
    }
  }

 private:
  static constexpr std::size_t block = 500;
  int w_;
  std::vector<int> bits_;
  std::vector<std::vector<std::uint8_t>> blocks_;
  std::vector<std::array<std::uint64_t, 7>> classes_;
};

// -- Avalanche on the mixer's own inputs: x = the stream's values; |f(x) ^ f(x ^ e_j)|
//    over all j against Binomial(n, 1/2) ("sac"), and each input-output cell's flip count
//    against Binomial(N, 1/2) on a shorter prefix ("sac-matrix").
class AvalancheTest final : public StreamTest {
 public:
  explicit AvalancheTest(const StreamContext& c)
      : w_(c.width), f_(c.f), hist_(c.width + 1, 0), matrix_(static_cast<std::size_t>(c.width) * c.width, 0) {
    wanted_ = f_ ? slow(c.length) : 0;
    matrix_wanted_ = slower(c.length);
  }
  void feed(const std::uint64_t* y, std::size_t count) override {
    const std::size_t stride = static_cast<std::size_t>(w_) + 1;
    in_.resize(count * stride);
    out_.resize(count * stride);
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t* p = &in_[i * stride];
      p[0] = y[i];
      for (int j = 0; j < w_; ++j) p[j + 1] = y[i] ^ (std::uint64_t{1} << j);
    }
    (*f_)(in_.data(), out_.data(), in_.size());
    for (std::size_t i = 0; i < count; ++i, ++seen_) {
      const std::uint64_t* o = &out_[i * stride];
      const bool matrix = seen_ < matrix_wanted_;
      for (int j = 0; j < w_; ++j) {
        const std::uint64_t d = o[0] ^ o[j + 1];
        ++hist_[std::popcount(d)];
        if (matrix) {
          std::uint64_t* row = &matrix_[static_cast<std::size_t>(j) * w_];
          for (std::uint64_t m = d; m; m &= m - 1) ++row[std::countr_zero(m)];
        }
      }
    }
  }
  void finish(std::vector<TestResult>& out) const override {
    if (wanted_ == 0) return;
    const auto pmf = binomial_half_pmf(w_);
    const double flips = static_cast<double>(seen_) * w_;
    std::vector<double> obs(hist_.begin(), hist_.end()), exp(pmf.size());
    for (std::size_t k = 0; k < pmf.size(); ++k) exp[k] = flips * pmf[k];
    out.push_back({"sac", pooled_chi2_p(obs, exp)});
    if (matrix_wanted_ == 0) return;
    const double N = static_cast<double>(std::min(seen_, matrix_wanted_));
    double x = 0;
    for (auto c : matrix_) x += (static_cast<double>(c) - N / 2) * (static_cast<double>(c) - N / 2) / (N / 4);
    out.push_back({"sac-matrix", chi2_two_sided(x, static_cast<double>(matrix_.size()))});
  }

 private:
  int w_;
  const BatchFunction* f_;
  std::uint64_t seen_ = 0, matrix_wanted_ = 0;
  std::vector<std::uint64_t> hist_, matrix_, in_, out_;
};

}  // namespace

double chi2_two_sided(double x, double dof) {
  const double upper = chi2_survival(x, dof), lower = chi2_cdf(x, dof);
  return std::min(1.0, 2 * std::min(upper, lower));
}

double pooled_chi2_p(const std::vector<double>& observed, const std::vector<double>& expected) {
  const PooledChi2 pooled = pooled_chi2(observed, expected);
  return pooled.dof == 0 ? 1.0 : chi2_two_sided(pooled.chi2, pooled.dof);
}

int linear_complexity(const std::vector<std::uint8_t>& s) {
  // Berlekamp-Massey: c is the current connection polynomial, b the one before the last
  // length change, m the steps since then.
  const std::size_t n = s.size();
  std::vector<std::uint8_t> c(n + 1, 0), b(n + 1, 0), t;
  c[0] = b[0] = 1;
  int L = 0;
  std::size_t m = 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t d = s[i];
    for (int k = 1; k <= L; ++k) d ^= c[k] & s[i - k];
    if (d == 0) {
      ++m;
    } else if (2 * L <= static_cast<int>(i)) {
      t = c;
      for (std::size_t k = 0; k + m <= n; ++k) c[k + m] ^= b[k];
      L = static_cast<int>(i) + 1 - L;
      b = t;
      m = 1;
    } else {
      for (std::size_t k = 0; k + m <= n; ++k) c[k + m] ^= b[k];
      ++m;
    }
  }
  return L;
}

double gf2_rank_probability(int m, int r) {
  if (m < 0 || m > 64 || r < 0 || r > m) throw std::invalid_argument("gf2_rank_probability: need 0 <= r <= m <= 64");
  // 2^(r(2m - r) - m^2) prod_{i<r} (1 - 2^(i-m))^2 / (1 - 2^(i-r)), in logarithms.
  double log2p = static_cast<double>(r) * (2.0 * m - r) - static_cast<double>(m) * m;
  for (int i = 0; i < r; ++i) {
    log2p += 2 * std::log2(1 - std::ldexp(1.0, i - m));
    log2p -= std::log2(1 - std::ldexp(1.0, i - r));
  }
  return std::exp2(log2p);
}

std::vector<std::unique_ptr<StreamTest>> make_stream_tests(const StreamContext& c) {
  if (c.width < 1 || c.width > 64) throw std::invalid_argument("RRC stream tests: width must be 1..64");
  std::vector<std::unique_ptr<StreamTest>> t;
  t.push_back(std::make_unique<UniformTest>(c));
  t.push_back(std::make_unique<SerialTest>(c));
  t.push_back(std::make_unique<GapTest>(c));
  t.push_back(std::make_unique<CouponTest>(c));
  t.push_back(std::make_unique<PermutationTest>(c));
  t.push_back(std::make_unique<BitPatternTest>(c));
  t.push_back(std::make_unique<BinaryRankTest>(c));
  t.push_back(std::make_unique<LinearComplexityTest>(c));
  t.push_back(std::make_unique<AvalancheTest>(c));
  return t;
}

}  // namespace mixforge::avalanche::rrc
