#include "shader/bundle.hpp"

#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"
#include "shader/ranged.hpp"

namespace mixforge::shader {

nlohmann::json export_bundle(const ExportRequest& request) {
  nlohmann::json programs = nlohmann::json::array();
  for (const ExportProgram& p : request.programs) {
    nlohmann::json score = nullptr;
    if (p.score)
      score = {{"chi2", p.score->chi2}, {"bias", p.score->bias}, {"exact", p.score->exact},
               {"samples", p.score->samples}};
    programs.push_back({{"id", p.program.id()},
                        {"width", p.program.width()},
                        {"text", mixer::format_program(p.program)},
                        {"short", mixer::format_short(p.program)},
                        {"program", mixer::to_json(p.program)},
                        {"score", score}});
  }
  nlohmann::json code = nlohmann::json::object(), unsupported = nlohmann::json::object();
  std::string first_error, first_field;  // every target refused: the first one's reason and field
  for (Target t : all_targets) {
    ExportRequest r = request;
    r.target = t;
    try {
      code[std::string(target_name(t))] = export_code(r);
    } catch (const ExportError& e) {
      unsupported[std::string(target_name(t))] = e.what();
      if (first_error.empty()) {
        first_error = e.what();
        first_field = e.field();
      }
    }
  }
  if (code.empty()) throw ExportError(first_error, first_field);
  return {{"format", "mixforge-shader-bundle"},
          {"version", 1},
          {"name", function_name(request)},
          {"variant",
           {{"vec4", request.vec4},
            {"seeded", request.seeded},
            {"inverse", request.inverse},
            {"range", request.range ? nlohmann::json(std::string(range_method_name(*request.range)))
                                    : nlohmann::json(nullptr)}}},
          {"programs", std::move(programs)},
          {"code", std::move(code)},
          {"unsupported", std::move(unsupported)}};
}

}  // namespace mixforge::shader
