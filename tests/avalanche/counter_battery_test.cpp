// Counter-mode battery: transforms, the word stream fed to dieharder, parsing its output,
// and (where dieharder is installed) real runs at the quick size: a multiply-only function
// fails, triple32 does not.
#include <gtest/gtest.h>

#include <cstdlib>

#include "avalanche/quality/counter_battery.hpp"
#include "avalanche/evaluator.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {
avalanche::BatchFunction cb_identity() {
  return [](const std::uint64_t* in, std::uint64_t* out, std::size_t m) { std::copy(in, in + m, out); };
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* v = std::getenv(n)) old = v;
    ::setenv(n, value, 1);
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};
}  // namespace

TEST(CounterBattery, TransformsOfTheCounter) {
  const auto t = avalanche::counter_transforms(32);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].name, "counter");
  EXPECT_EQ(t[1].name, "reversed");
  EXPECT_EQ(t[2].name, "complemented");
  EXPECT_EQ(t[3].name, "rotl8");
  EXPECT_EQ(t[5].name, "rotl24");
  EXPECT_EQ(avalanche::transform_counter(t[0], 5, 32), 5u);
  EXPECT_EQ(avalanche::transform_counter(t[1], 1, 32), 0x80000000u);
  EXPECT_EQ(avalanche::transform_counter(t[1], 6, 32), 0x60000000u);
  EXPECT_EQ(avalanche::transform_counter(t[2], 0, 32), 0xffffffffu);
  EXPECT_EQ(avalanche::transform_counter(t[3], 0x01000001, 32), 0x00000101u);
  EXPECT_EQ(avalanche::counter_transforms(64)[4].name, "rotl32");
  EXPECT_EQ(avalanche::transform_counter(avalanche::counter_transforms(64)[1], 1, 64), 0x8000000000000000ull);
}

TEST(CounterBattery, StreamPacksOutputsIntoWords) {
  std::vector<std::uint32_t> w(6);
  avalanche::CounterStream s32(cb_identity(), 32, avalanche::counter_transforms(32)[0]);
  s32.next(w);
  EXPECT_EQ(w, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
  s32.next(std::span(w).first(2));  // the stream goes on where it stopped
  EXPECT_EQ(w[0], 6u);
  EXPECT_EQ(w[1], 7u);
  // 64 bits: low word, then high word, of each output (complemented counter: ~i).
  avalanche::CounterStream s64(cb_identity(), 64, avalanche::counter_transforms(64)[2]);
  s64.next(w);
  EXPECT_EQ(w, (std::vector<std::uint32_t>{0xffffffff, 0xffffffff, 0xfffffffe, 0xffffffff, 0xfffffffd, 0xffffffff}));
  // 48 bits: outputs packed back to back, low bits first.
  avalanche::CounterStream s48(cb_identity(), 48, avalanche::counter_transforms(48)[0]);
  std::vector<std::uint32_t> p(3);
  s48.next(p);  // bits of 0 (48), 1 (48): word0 = 0, word1 = 1 << 16, word2 = 0
  EXPECT_EQ(p, (std::vector<std::uint32_t>{0, 1u << 16, 0}));
}

TEST(CounterBattery, ParsesDieharderOutput) {
  const auto r = avalanche::parse_dieharder_output(
      "diehard_runs,0,0.30204774,PASSED\n"
      "#=== a comment\n"
      "        sts_serial,   2,0.00000001,  FAILED  \n"
      "rgb_lagged_sum,0,0.00400000,WEAK\n");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].test, "diehard_runs");
  EXPECT_DOUBLE_EQ(r[0].p_value, 0.30204774);
  EXPECT_EQ(r[0].verdict, avalanche::Verdict::passed);
  EXPECT_EQ(r[1].test, "sts_serial");
  EXPECT_EQ(r[1].ntuple, 2);
  EXPECT_EQ(r[1].verdict, avalanche::Verdict::failed);
  EXPECT_EQ(r[2].verdict, avalanche::Verdict::weak);
  EXPECT_TRUE(avalanche::parse_dieharder_output("").empty());
  EXPECT_THROW(avalanche::parse_dieharder_output("Error:  Can only test distribution of positive ntuples.\n"),
               std::runtime_error);
}

TEST(CounterBattery, NarrowWidthsAreSkippedAndAMissingToolIsReported) {
  const avalanche::CounterBattery narrow = avalanche::counter_battery(cb_identity(), 16, avalanche::BatterySize::quick);
  EXPECT_EQ(narrow.status, "skipped");
  EXPECT_NE(narrow.reason.find("wraps"), std::string::npos) << narrow.reason;
  ScopedEnv env("MIXFORGE_DIEHARDER", "/nonexistent/dieharder");
  const avalanche::CounterBattery none = avalanche::counter_battery(cb_identity(), 32, avalanche::BatterySize::quick);
  EXPECT_EQ(none.status, "unavailable");
  EXPECT_NE(none.reason.find("dieharder"), std::string::npos);
  // A dieharder that fails leaves the battery unavailable, with why; the rest of a
  // quality report stands (it threw, and the whole report was lost).
  ScopedEnv broken("MIXFORGE_DIEHARDER", "/bin/false");
  const avalanche::CounterBattery failed = avalanche::counter_battery(cb_identity(), 32, avalanche::BatterySize::quick);
  EXPECT_EQ(failed.status, "unavailable");
  EXPECT_NE(failed.reason.find("dieharder -d 0 failed (exit code 1)"), std::string::npos) << failed.reason;
  EXPECT_TRUE(failed.transforms.empty());
}

TEST(CounterBattery, QuickSizeFailsAMultiplyDeterministically) {
  if (!avalanche::find_dieharder()) GTEST_SKIP() << "dieharder is not installed (Debian package dieharder)";
  const auto ev = avalanche::Evaluator::with_own_engine();
  const auto weak_f = ev->batch_function(mixer::parse_program("x *= 0x9e3779b9;", {.width = 32}));
  const auto all = avalanche::counter_transforms(32);
  const std::vector<avalanche::CounterTransform> some = {all[0], all[4]};  // counter, rotl16
  const avalanche::CounterBattery weak =
      avalanche::counter_battery(weak_f, 32, avalanche::BatterySize::quick, nullptr, some);
  ASSERT_EQ(weak.status, "ran");
  EXPECT_NE(weak.tool.find("dieharder"), std::string::npos);
  ASSERT_EQ(weak.transforms.size(), 2u);
  for (const auto& t : weak.transforms) {
    EXPECT_EQ(t.results.size(),
              avalanche::battery_tests(avalanche::BatterySize::quick).size() + 1);  // diehard_runs gives two
    EXPECT_GT(t.failed, 3) << t.transform.name;
  }
  // The same stream gives the same p-values.
  const avalanche::CounterBattery again =
      avalanche::counter_battery(weak_f, 32, avalanche::BatterySize::quick, nullptr, some);
  ASSERT_EQ(again.transforms.size(), weak.transforms.size());
  for (std::size_t t = 0; t < weak.transforms.size(); ++t)
    for (std::size_t k = 0; k < weak.transforms[t].results.size(); ++k)
      EXPECT_EQ(again.transforms[t].results[k].p_value, weak.transforms[t].results[k].p_value);
  // A cancelled battery stops (and kills dieharder).
  std::atomic<bool> cancel{true};
  EXPECT_THROW(avalanche::counter_battery(weak_f, 32, avalanche::BatterySize::quick, &cancel, some),
               avalanche::EvaluationCancelled);
}

TEST(CounterBattery, QuickSizePassesTriple32OnEveryTransform) {
  if (!avalanche::find_dieharder()) GTEST_SKIP() << "dieharder is not installed (Debian package dieharder)";
  const auto ev = avalanche::Evaluator::with_own_engine();
  const avalanche::CounterBattery good = avalanche::counter_battery(
      ev->batch_function(mixer::parse_program(
          "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; "
          "x ^= x >> 14;",
          {.width = 32})),
      32, avalanche::BatterySize::quick);
  ASSERT_EQ(good.status, "ran");
  EXPECT_EQ(good.transforms.size(), 6u);
  for (const auto& t : good.transforms)
    for (const auto& r : t.results)
      EXPECT_NE(r.verdict, avalanche::Verdict::failed) << t.transform.name << " " << r.test << " p " << r.p_value;
  // Weak results happen (the stream of a bijection on a counter has no repeats, and some
  // p-values come out too uniform), failures do not.
  EXPECT_GE(good.passed, 45);
}
