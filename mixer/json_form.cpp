#include "mixer/json_form.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>

namespace mixforge::mixer {

nlohmann::json to_json(const Program& program) {
  nlohmann::json steps = nlohmann::json::array();
  char buf[24];
  for (const Step& s : program.steps()) {
    nlohmann::json j;
    j["kind"] = std::string(kind_name(s.kind));
    if (takes_shift(s.kind)) {
      j["shift"] = s.operand;
    } else {
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(s.operand));
      j["constant"] = buf;
    }
    steps.push_back(std::move(j));
  }
  return {{"width", program.width()}, {"steps", std::move(steps)}};
}

namespace {
[[noreturn]] void fail(const std::string& path, const std::string& msg, int step = -1) {
  throw ProgramError(step, path + ": " + msg);
}

std::uint64_t parse_constant(const nlohmann::json& v, const std::string& path, int step) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) fail(path, "constant must not be negative", step);
  if (!v.is_string()) fail(path, "constant must be a hex string like \"0x7feb352d\"", step);
  const std::string s = v.get<std::string>();
  std::string_view d = s;
  int base = 10;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
    d.remove_prefix(2);
    base = 16;
  }
  std::uint64_t out = 0;
  auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), out, base);
  if (ec == std::errc::result_out_of_range) fail(path, "constant \"" + s + "\" exceeds 64 bits", step);
  if (ec != std::errc() || p != d.data() + d.size() || d.empty())
    fail(path, "constant \"" + s + "\" is not a hex (0x...) or decimal number", step);
  return out;
}
}  // namespace

Program program_from_json(const nlohmann::json& j, const ValidationLimits& limits) {
  if (!j.is_object()) fail("(root)", "a program must be a JSON object with width and steps");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "width" && it.key() != "steps" && it.key() != "id" && it.key() != "text")
      fail(it.key(), "unknown field");
  if (!j.contains("width")) fail("width", "missing");
  if (!j["width"].is_number_integer()) fail("width", "must be an integer 1..64");
  const auto w = j["width"].get<long long>();
  if (w < min_width || w > max_width)
    fail("width", "width " + std::to_string(w) + " is not supported (widths are 1..64)");
  if (!j.contains("steps")) fail("steps", "missing");
  if (!j["steps"].is_array()) fail("steps", "must be an array");
  // No empty program: the text form cannot write one (it parses none), and the identity
  // mixes nothing.
  if (j["steps"].empty()) fail("steps", "a program needs at least one step");
  const int n = static_cast<int>(w);
  std::vector<Step> steps;
  const auto& arr = j["steps"];
  if (static_cast<int>(arr.size()) > limits.max_steps)
    fail("steps", "program has " + std::to_string(arr.size()) + " steps; the limit is " +
                      std::to_string(limits.max_steps));
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = "steps[" + std::to_string(i) + "]";
    const int si = static_cast<int>(i);
    const auto& s = arr[i];
    if (!s.is_object()) fail(p, "a step must be an object with kind and shift or constant", si);
    if (!s.contains("kind") || !s["kind"].is_string()) fail(p + ".kind", "missing or not a string", si);
    auto kind = kind_from_name(s["kind"].get<std::string>());
    if (!kind)
      fail(p + ".kind", "unknown step kind \"" + s["kind"].get<std::string>() +
                            "\" (expected xor-const, mul-const, add-const, sub-const, "
                            "xorshift-right, xorshift-left, add-shift, sub-shift or rotate)", si);
    const char* field = takes_shift(*kind) ? "shift" : "constant";
    for (auto it = s.begin(); it != s.end(); ++it)
      if (it.key() != "kind" && it.key() != field)
        fail(p + "." + it.key(), "unknown field for a " + std::string(kind_name(*kind)) +
                                     " step (it takes \"" + field + "\")", si);
    if (!s.contains(field)) fail(p + "." + field, "missing", si);
    std::uint64_t operand;
    if (takes_shift(*kind)) {
      if (!s[field].is_number_integer()) fail(p + ".shift", "must be an integer", si);
      if (s[field].is_number_unsigned() || s[field].get<long long>() >= 0)
        operand = s[field].get<std::uint64_t>();
      else
        fail(p + ".shift", "must not be negative", si);
    } else {
      operand = parse_constant(s[field], p + ".constant", si);
    }
    Step step{*kind, operand};
    std::string e = step_error(step, n);
    if (!e.empty()) fail(p + "." + field, e, si);
    steps.push_back(step);
  }
  return Program(n, std::move(steps));
}

}  // namespace mixforge::mixer
