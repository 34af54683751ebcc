#include "app/export.hpp"

#include <memory>

#include "app/request_error.hpp"
#include "avalanche/evaluator.hpp"
#include "evolver/run/run_types.hpp"
#include "shader/bundle.hpp"

namespace mixforge::app {

namespace {
// The exporter's field ("programs/1") as a request path ("programs[1]").
// A refusal that names no field is the target's ("wgsl has no 64-bit integers").
std::string field_of(const shader::ExportError& e) {
  std::string f = e.field().empty() ? "target" : e.field();
  const auto slash = f.find('/');
  if (slash != std::string::npos) f = f.substr(0, slash) + "[" + f.substr(slash + 1) + "]";
  return f;
}

// The options' rules (target, range, constants), into the exporter's request.
shader::ExportRequest options_of(const ExportRequest& r) {
  shader::ExportRequest s;
  if (r.target != "bundle") {
    const auto t = shader::target_from_name(r.target);
    if (!t)
      throw RequestError("target", "unknown-export-target",
                         r.target.empty()
                             ? "a target is required (glsl, hlsl, wgsl, msl, cuda, cpp, or bundle)"
                             : "\"" + r.target +
                                   "\" is not an export target (glsl, hlsl, wgsl, msl, cuda, cpp, bundle)");
    s.target = *t;
  }
  if (r.range) {
    if (*r.range == "jitter")
      s.range = shader::RangeMethod::jitter;
    else if (*r.range == "fraction")
      s.range = shader::RangeMethod::fraction;
    else
      throw RequestError("range", "out-of-range", "\"" + *r.range + "\" is not jitter or fraction");
  }
  if (r.constants == "decimal")
    s.constants = shader::ConstantStyle::decimal;
  else if (r.constants != "hex")
    throw RequestError("constants", "out-of-range", "\"" + r.constants + "\" is not hex or decimal");
  return s;
}

shader::ExportRequest to_shader(const ExportRequest& r) {
  shader::ExportRequest s = options_of(r);
  for (std::size_t i = 0; i < r.programs.size(); ++i) {
    const ExportSource& p = r.programs[i];
    if (p.stored && r.width && *r.width != p.program.width())
      throw RequestError("width", "width-mismatch",
                         "width " + std::to_string(*r.width) + " but function " + p.function_id + " has width " +
                             std::to_string(p.program.width()));
    s.programs.push_back({p.program, p.score});
  }
  s.vec4 = r.vec4;
  s.seeded = r.seeded;
  s.inverse = r.inverse;
  s.name = r.name;
  return s;
}

ExportResult render(const shader::ExportRequest& s, bool bundle, const std::string& target) {
  ExportResult out;
  out.bundle = bundle;
  out.target = target;
  try {
    if (bundle) {
      out.bundle_json = shader::export_bundle(s);
    } else {
      out.code = shader::export_code(s);
      out.name = shader::function_name(s);
    }
  } catch (const shader::ExportError& e) {
    throw RequestError(field_of(e), "export-failed", e.what());
  }
  return out;
}
}  // namespace

void check_export_options(const ExportRequest& request) { options_of(request); }

ExportPolicy command_line_export_policy() { return {32}; }
ExportPolicy daemon_export_policy() { return {0}; }

ExportSource stored_source(const evolver::ScoredFunction& f) {
  ExportSource s{f.program,
                 shader::ProgramScore{f.chi2_exact.value_or(f.chi2), f.bias, f.chi2_exact.has_value() || f.exact,
                                      f.samples},
                 true, f.id};
  if (f.objective && f.objective->rrc_depth_log2 > 0) {
    s.score->rrc_depth_log2 = f.objective->rrc_depth_log2;
    s.score->rrc_passed_cap = f.objective->rrc_passed_cap;
  }
  return s;
}

ExportResult export_programs(ExportRequest r, const ExportPolicy& policy, const avalanche::Evaluator* evaluator) {
  const bool bundle = r.target == "bundle";
  shader::ExportRequest s = to_shader(r);
  ExportResult checked = render(s, bundle, r.target);  // every rule, before any scoring
  std::unique_ptr<avalanche::Evaluator> own;
  bool scored = false;
  for (std::size_t i = 0; r.score && i < s.programs.size(); ++i) {
    auto& p = s.programs[i];
    if (p.score || p.program.width() > policy.score_up_to_width) continue;
    if (!evaluator) evaluator = (own = avalanche::Evaluator::with_own_engine()).get();
    const avalanche::Score sc = evaluator->exact(p.program);
    p.score = shader::ProgramScore{sc.chi2, sc.bias, true, sc.samples};
    scored = true;
  }
  return scored ? render(s, bundle, r.target) : checked;
}

}  // namespace mixforge::app
