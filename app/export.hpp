#pragma once
// The export use case: one program (or up to four, packed into a 4-lane function) as source
// in a target language, or a bundle with the code for every target. The rules (which
// target, range and its method, constants, vec4 packing, a width given beside a stored
// function) and the defaults live here; the entry points differ only in their
// ExportPolicy, below. Errors are RequestErrors naming "target", "range", "constants",
// "name", "seeded", "width", "programs" or "programs[i]" (a lane).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mixer/program.hpp"
#include "shader/export.hpp"

namespace mixforge::avalanche {
class Evaluator;
}
namespace mixforge::evolver {
struct ScoredFunction;
}

namespace mixforge::app {

struct ExportPolicy {
  // Programs given as text or JSON (not stored functions, which carry their score) are
  // scored exactly before the export up to this width (0: never), unless the request
  // says not to.
  int score_up_to_width = 0;
};

// Where the entry points differ on purpose, and why (the only place they do):
// - the command line scores a typed program exactly up to 32 bits (about 2 s at 32 bits
//   on the user's own cores), so the exported header carries its chi2;
// - the daemon answers POST /export at once on its control lane, which it shares with run
//   control: a typed program is exported unscored ("chi2: not scored"); POST /evaluate
//   scores it.
ExportPolicy command_line_export_policy();
ExportPolicy daemon_export_policy();

// One program of the request: typed (app/program_input.hpp) or a stored function.
struct ExportSource {
  mixer::Program program;
  std::optional<shader::ProgramScore> score;  // a stored function's
  bool stored = false;
  std::string function_id;  // a stored function's id, for messages
};

// A stored function as a source, with its best score: the exact chi2 when the store has
// one (a leader of a sampled run is scored exactly later), else the pool's score.
ExportSource stored_source(const evolver::ScoredFunction& function);
// A typed program as a source: unscored until the policy scores it.
inline ExportSource typed_source(mixer::Program program) { return {std::move(program), std::nullopt, false, {}}; }

struct ExportRequest {
  std::string target;                  // glsl, hlsl, wgsl, msl, cuda, cpp, or bundle (every target)
  std::vector<ExportSource> programs;  // one; or 1..4 lanes with vec4
  bool vec4 = false;
  bool seeded = false;  // vec4: xor lanes narrower than 32 bits with a seed first
  bool inverse = false;
  std::optional<std::string> range;  // "jitter" or "fraction": also export <name>_range
  std::string name;                  // empty: mix<width>_<id prefix>
  std::string constants = "hex";     // or "decimal"
  std::optional<int> width;          // a width given beside the programs: stored ones must have it
  bool score = true;                 // false: no scoring, whatever the policy
};

struct ExportResult {
  bool bundle = false;
  std::string target;          // as asked ("bundle" for a bundle)
  std::string name;            // the function's name (not for a bundle)
  std::string code;            // the source (not for a bundle)
  nlohmann::json bundle_json;  // the bundle (schema/export_response.schema.json's "bundle")
};

// The options' rules alone (target, range, constants), for an entry point that checks them
// before it looks the programs up; export_programs checks them too.
void check_export_options(const ExportRequest& request);

// Checks the whole request first (a mistake must not cost a 2^32-input scoring), then
// scores what the policy says with evaluator (made on first need when null), then exports.
ExportResult export_programs(ExportRequest request, const ExportPolicy& policy,
                             const avalanche::Evaluator* evaluator = nullptr);

}  // namespace mixforge::app
