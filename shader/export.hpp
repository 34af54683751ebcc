#pragma once
// Shader export: one pure function from a request to source text.
// Targets: GLSL, HLSL, WGSL, MSL, CUDA, C++ (docs: README "Shader export").
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mixer/program.hpp"

namespace mixforge::shader {

enum class Target : std::uint8_t { glsl, hlsl, wgsl, msl, cuda, cpp };
inline constexpr Target all_targets[] = {Target::glsl, Target::hlsl, Target::wgsl,
                                         Target::msl,  Target::cuda, Target::cpp};

std::string_view target_name(Target t);  // "glsl", ...
std::optional<Target> target_from_name(std::string_view name);

// A request the exporter cannot satisfy (e.g. 64-bit WGSL, incompatible vec4 lanes,
// a bad function name). what() names the offending input.
// field: the request field at fault, in the request's own words ("name", "range",
// "programs", "programs/1", "target"; empty: none in particular), so the API can point
// at it (/name, ?name) and the CLI at its option.
class ExportError : public std::runtime_error {
 public:
  explicit ExportError(const std::string& message, std::string field = {})
      : std::runtime_error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// rand_range(seed, r) for r in 1..65536 (docs/background.md):
//   fraction: (r * (h & 0xffff)) >> 16
//   jitter:   (r * (h & 0xffff) + h % r) >> 16   (recommended; see docs/shader-export.md)
enum class RangeMethod : std::uint8_t { jitter, fraction };
enum class ConstantStyle : std::uint8_t { hex, decimal };

// Scores are optional: without one the header says "chi2: not scored".
struct ProgramScore {
  double chi2 = 0;
  double bias = 0;
  bool exact = true;
  std::uint64_t samples = 0;  // for sampled scores
  // The RRC depth where known (its run's objective measured it): "RRC depth: 13", or ">20"
  // when it passed the cap.
  int rrc_depth_log2 = 0;  // 0: not known
  bool rrc_passed_cap = false;
};

struct ExportProgram {
  mixer::Program program;
  std::optional<ProgramScore> score;
};

struct ExportRequest {
  Target target = Target::glsl;
  // One program; or 1..4 lanes with vec4 (missing lanes repeat the last program).
  std::vector<ExportProgram> programs;
  bool vec4 = false;
  bool seeded = false;   // vec4 only: lanes narrower than 32 bits are xor-ed with `seed` first
  bool inverse = false;  // export the inverse program(s) instead
  std::optional<RangeMethod> range;  // also export <name>_range(seed, r); needs width 32
  std::string name;                  // function name; empty: a default from the program id
  ConstantStyle constants = ConstantStyle::hex;
};

// The code for the request in the request's target. Pure: no I/O, no scoring.
std::string export_code(const ExportRequest& request);

// The function name export_code uses for the request (the user's, or the default).
std::string function_name(const ExportRequest& request);

}  // namespace mixforge::shader
