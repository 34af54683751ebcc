#pragma once
// Counter-mode statistical tests: the words f(T(0)), f(T(1)), ... of a mixing function on
// transformed counters are fed to dieharder, a maintained battery packaged by Debian. The
// transforms follow Pelle Evensen's RRC idea: plain, bit-reversed, complemented and
// rotated counters, so that the slowly changing counter bits land in every position.
//
// dieharder runs as a separate process (the `dieharder` command, reading raw 32-bit words
// from a pipe: `-g 200`); nothing of it is linked into mixforge (it is GPL; mixforge is
// MIT). Where it is not installed the battery is reported as unavailable, with the reason.
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "avalanche/batch_function.hpp"
#include "avalanche/stats/chi2_distribution.hpp"

namespace mixforge::avalanche {

// quick: a second or two per transform (tests); standard: about ten seconds per
// transform, about a minute for one function.
enum class BatterySize { quick, standard };
std::string_view battery_size_name(BatterySize s);  // "quick", "standard"

struct DieharderTest {
  int number = 0;    // dieharder -d
  std::string name;  // as dieharder prints it
  int psamples = 1;  // dieharder -p
};
std::vector<DieharderTest> battery_tests(BatterySize size);

enum class CounterKind { plain, reversed, complemented, rotated };
struct CounterTransform {
  std::string name;  // "counter", "reversed", "complemented", "rotl8", ...
  CounterKind kind = CounterKind::plain;
  int rotation = 0;  // rotated: left by this many bits
};
// counter, reversed, complemented, and rotations by n/4, n/2, 3n/4.
std::vector<CounterTransform> counter_transforms(int width);
// T(i) within `width` bits.
std::uint64_t transform_counter(const CounterTransform& t, std::uint64_t i, int width);

// The 32-bit words of f(T(0)), f(T(1)), ...: each n-bit output appended to a bit stream,
// low bits first (n = 32: one word per output; n = 64: low word, then high word).
class CounterStream {
 public:
  CounterStream(BatchFunction f, int width, CounterTransform transform);
  void next(std::span<std::uint32_t> words);

 private:
  BatchFunction f_;
  int width_;
  CounterTransform transform_;
  std::uint64_t counter_ = 0;
  std::vector<std::uint64_t> in_, out_;
  std::size_t pos_ = 0;  // next unused output in out_
  unsigned __int128 bits_ = 0;
  int nbits_ = 0;
};

struct BatteryResult {
  std::string test;
  int ntuple = 0;
  double p_value = 0;
  Verdict verdict = Verdict::passed;  // dieharder's own assessment
};
// Lines "name,ntuple,p-value,ASSESSMENT" as written with `-D test_name -D ntuple -D pvalues
// -D assessment -D no_whitespace -c ,`; '#' lines are skipped. Anything else throws
// std::runtime_error carrying the text (dieharder's error messages).
std::vector<BatteryResult> parse_dieharder_output(std::string_view text);

struct TransformBattery {
  CounterTransform transform;
  std::vector<BatteryResult> results;
  int passed = 0, weak = 0, failed = 0;
  double seconds = 0;
};

struct CounterBattery {
  std::string status;  // "ran", "skipped" (width), "unavailable" (no dieharder)
  std::string reason;  // why not, when not ran
  std::string tool;    // e.g. "dieharder 3.31.1"
  BatterySize size = BatterySize::standard;
  std::vector<TransformBattery> transforms;
  int passed = 0, weak = 0, failed = 0;
  double seconds = 0;
};

// The dieharder executable: $MIXFORGE_DIEHARDER when set, else `dieharder` on PATH.
std::optional<std::string> find_dieharder();

// Widths 32..64 (narrower counters would wrap after 2^n outputs: skipped, with the reason).
// cancel (may be null) stops the running dieharder and throws EvaluationCancelled.
// transforms: a subset of counter_transforms(width) (default: all of them).
// Throws std::runtime_error when dieharder fails (with its output).
CounterBattery counter_battery(const BatchFunction& f, int width, BatterySize size,
                               const std::atomic<bool>* cancel = nullptr,
                               std::optional<std::vector<CounterTransform>> transforms = std::nullopt);

}  // namespace mixforge::avalanche
