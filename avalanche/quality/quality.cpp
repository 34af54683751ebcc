#include "avalanche/quality/quality.hpp"

#include <bit>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::avalanche {

QualityPlan quality_plan(BatterySize size) {
  // standard: N c^2 and the binomial chi2 resolve correlations of about 1/sqrt(N); 2^18
  // and 2^20 samples cost a second or two at 64 bits. quick: for tests, well under a second.
  // The second-order differential: SO_QUICK / SO_STANDARD inputs per pair (exact up to 16 /
  // 20 bits), SO_COST.
  if (size == BatterySize::quick) return {24, 1u << 16, 1u << 12, 1u << 14, 1u << 14};
  return {32, 1u << 22, 1u << 18, 1u << 20, 1u << 18};
}

WorstCell worst_cell(const AvalancheCounts& c) {
  WorstCell w;
  const auto a = avalanche_matrix(c);
  double worst = -1;
  for (int i = 0; i < c.width; ++i)
    for (int j = 0; j < c.width; ++j) {
      const double p = a[static_cast<std::size_t>(i) * c.width + j];
      if (std::fabs(p - 0.5) > worst) {
        worst = std::fabs(p - 0.5);
        w = {i, j, p, worst};
      }
    }
  return w;
}

QualityReport assess_quality(const Evaluator& ev, const mixer::Program& program, const QualityOptions& o,
                             const std::atomic<bool>* cancel, const rrc::RrcProgress& rrc_progress) {
  const auto t0 = std::chrono::steady_clock::now();
  mixer::validate(program, {1 << 16});
  const int n = program.width();
  const QualityPlan plan = quality_plan(o.size);
  QualityReport r;
  r.program = program;
  r.options = o;
  const AvalancheCounts counts = n <= plan.exact_max_width
                                     ? ev.counts_exact(program, cancel)
                                     : ev.counts_sampled(program, o.seed, 0, plan.avalanche_samples);
  r.avalanche = score(counts);
  r.worst_cell = worst_cell(counts);
  const BatchFunction f = ev.batch_function(program);
  // Each measure draws from a stream of its own (the seed mixed with a constant), so none
  // sees the inputs of another.
  r.bit_independence = bit_independence(f, n, plan.bic_samples_per_bit, o.seed ^ 0xb1c0b1c0b1c0b1c0ull, cancel);
  r.higher_order = higher_order_avalanche(f, n, plan.higher_order_samples, o.seed, cancel);
  r.second_order =
      second_order_differential(f, n, plan.second_order_samples_per_pair, o.seed ^ 0x5ec0de2d5ec0de2dull, cancel);
  if (o.battery) {
    r.battery = counter_battery(f, n, o.size, cancel);
  } else {
    r.battery.status = "skipped";
    r.battery.reason = "not requested";
    r.battery.size = o.size;
  }
  if (o.rrc) r.rrc = rrc::rrc_battery(f, n, {rrc::default_first_log2, o.rrc_cap_log2}, cancel, rrc_progress);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {
nlohmann::json verdict_json(Verdict v) { return std::string(verdict_name(v)); }
// Seeds beyond 2^53 - 1 travel as decimal strings (JSON numbers are exact only that far).
nlohmann::json seed_json(std::uint64_t seed) {
  if (seed <= (std::uint64_t{1} << 53) - 1) return seed;
  return std::to_string(seed);
}
nlohmann::json bit_list(std::uint64_t mask) {
  nlohmann::json bits = nlohmann::json::array();
  for (; mask; mask &= mask - 1) bits.push_back(std::countr_zero(mask));
  return bits;
}
}  // namespace

nlohmann::json to_json(const QualityReport& r) {
  const mixer::Program& p = r.program;
  const int n = p.width();
  nlohmann::json j;
  j["version"] = quality_version;
  j["function"] = {{"id", p.id()},
                   {"width", n},
                   {"text", mixer::format_program(p)},
                   {"short", mixer::format_short(p)},
                   {"program", mixer::to_json(p)}};
  j["options"] = {{"size", std::string(battery_size_name(r.options.size))},
                  {"seed", seed_json(r.options.seed)},
                  {"battery", r.options.battery},
                  {"rrc", r.options.rrc}};
  if (r.options.rrc) j["options"]["rrc_cap_log2"] = r.options.rrc_cap_log2;
  const Score& s = r.avalanche;
  j["avalanche"] = {{"exact", s.exact},
                    {"samples", s.samples},
                    {"chi2", s.chi2},
                    {"chi2_corrected", s.chi2_corrected},
                    {"chi2_stderr", s.chi2_stderr},
                    {"bias", s.bias},
                    {"worst_cell",
                     {{"input_bit", r.worst_cell.input_bit},
                      {"output_bit", r.worst_cell.output_bit},
                      {"flip_probability", r.worst_cell.flip_probability},
                      {"deviation", r.worst_cell.deviation}}}};
  const BitIndependence& b = r.bit_independence;
  j["bit_independence"] = {{"applicable", b.cells > 0},
                           {"exact", b.exact},
                           {"samples_per_bit", b.samples_per_bit},
                           {"cells", b.cells},
                           {"chi2", b.chi2},
                           {"p_value", b.p_value},
                           {"verdict", verdict_json(b.verdict)}};
  if (b.cells > 0)
    j["bit_independence"]["worst_pair"] = {{"input_bit", b.worst_input_bit},
                                           {"output_bits", {b.worst_output_bits[0], b.worst_output_bits[1]}},
                                           {"correlation", b.worst_correlation}};
  nlohmann::json ho = nlohmann::json::array();
  for (const FlipDistance& d : r.higher_order)
    ho.push_back({{"flipped_bits", d.flipped_bits},
                  {"exact", d.exact},
                  {"samples", d.samples},
                  {"chi2", d.fit.chi2},
                  {"dof", d.fit.dof},
                  {"p_value", d.fit.p_value},
                  {"verdict", verdict_json(d.fit.verdict)},
                  {"mean_distance", d.fit.mean},
                  {"histogram", d.histogram}});
  j["higher_order"] = std::move(ho);
  const SecondOrderDifferential& so = r.second_order;
  nlohmann::json sod = {{"applicable", so.cells > 0},
                        {"exact", so.exact},
                        {"samples_per_pair", so.samples_per_pair},
                        {"samples", so.samples},
                        {"single_bit_pairs", so.single_bit_pairs},
                        {"weight_two_pairs", so.weight_two_pairs},
                        {"bits",
                         {{"dof", so.cells},
                          {"chi2", so.bits_chi2},
                          {"constant_cells", so.constant_cells},
                          {"p_value", so.bits_p_value},
                          {"verdict", verdict_json(so.bits_verdict)}}},
                        {"weight",
                         {{"dof", so.weight.dof},
                          {"chi2", so.weight.chi2},
                          {"p_value", so.weight.p_value},
                          {"verdict", verdict_json(so.weight.verdict)},
                          {"mean", so.weight.mean},
                          {"histogram", so.weight_histogram}}},
                        {"weight_by_pair",
                         {{"dof", so.pair_weight_dof},
                          {"chi2", so.pair_weight_chi2},
                          {"p_value", so.pair_weight_p_value},
                          {"verdict", verdict_json(so.pair_weight_verdict)}}},
                        {"p_value", so.p_value},
                        {"verdict", verdict_json(so.verdict)}};
  if (so.cells > 0)
    sod["worst_cell"] = {{"a", bit_list(so.worst_pair.a)},
                         {"b", bit_list(so.worst_pair.b)},
                         {"output_bit", so.worst_output_bit},
                         {"probability", so.worst_probability},
                         {"z", so.worst_z}};
  if (so.pair_weight_dof > 0)
    sod["weight_by_pair"]["worst_pair"] = {{"a", bit_list(so.worst_weight_pair.a)},
                                           {"b", bit_list(so.worst_weight_pair.b)},
                                           {"dof", so.worst_weight_fit.dof},
                                           {"chi2", so.worst_weight_fit.chi2},
                                           {"p_value", so.worst_weight_fit.p_value},
                                           {"mean", so.worst_weight_fit.mean}};
  j["second_order_differential"] = std::move(sod);
  const CounterBattery& c = r.battery;
  nlohmann::json battery = {{"status", c.status}, {"size", std::string(battery_size_name(c.size))}};
  if (!c.reason.empty()) battery["reason"] = c.reason;
  if (c.status == "ran") {
    battery["tool"] = c.tool;
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& t : battery_tests(c.size))
      tests.push_back({{"number", t.number}, {"name", t.name}, {"psamples", t.psamples}});
    battery["tests"] = std::move(tests);
    nlohmann::json transforms = nlohmann::json::array();
    for (const TransformBattery& t : c.transforms) {
      nlohmann::json results = nlohmann::json::array();
      for (const BatteryResult& x : t.results)
        results.push_back(
            {{"test", x.test}, {"ntuple", x.ntuple}, {"p_value", x.p_value}, {"verdict", verdict_json(x.verdict)}});
      transforms.push_back({{"name", t.transform.name},
                            {"passed", t.passed},
                            {"weak", t.weak},
                            {"failed", t.failed},
                            {"seconds", t.seconds},
                            {"results", std::move(results)}});
    }
    battery["transforms"] = std::move(transforms);
    battery["passed"] = c.passed;
    battery["weak"] = c.weak;
    battery["failed"] = c.failed;
    battery["seconds"] = c.seconds;
  }
  j["counter_battery"] = std::move(battery);
  j["rrc"] = r.rrc ? rrc::to_json(*r.rrc) : nlohmann::json(nullptr);
  j["seconds"] = r.seconds;
  return j;
}

std::string quality_cache_key(const QualityOptions& o) {
  return "v" + std::to_string(quality_version) + ";" + std::string(battery_size_name(o.size)) +
         ";seed=" + std::to_string(o.seed) + ";battery=" + (o.battery ? "1" : "0") +
         (o.rrc ? ";rrc=" + std::to_string(o.rrc_cap_log2) : "");
}

}  // namespace mixforge::avalanche
