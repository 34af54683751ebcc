// export_code: lowers the request into the code model once and renders it with the
// target's syntax table.
#include "shader/export.hpp"

#include <array>
#include <cstdio>

#include "mixer/inverse.hpp"
#include "mixer/text_form.hpp"
#include "shader/program_lowering.hpp"
#include "shader/ranged.hpp"
#include "shader/target_syntax.hpp"
#include "shader/vec4_packing.hpp"

namespace mixforge::shader {

namespace {
constexpr std::array<std::string_view, 6> names{"glsl", "hlsl", "wgsl", "msl", "cuda", "cpp"};

// Words reserved in at least one target (a name must compile everywhere, since the
// bundle exports the same name to every target).
constexpr std::string_view reserved[] = {
    "alignas", "alignof", "and", "asm", "auto", "bitcast", "bool", "break", "case", "cbuffer",
    "char", "class", "const", "constant", "constexpr", "continue", "default", "delete", "device",
    "discard", "do", "double", "else", "enum", "explicit", "extern", "false", "float", "fn", "for",
    "fragment", "goto", "half", "if", "in", "inline", "inout", "int", "kernel", "let", "long", "loop",
    "main", "namespace", "new", "not", "or", "out", "override", "private", "ptr", "register", "return",
    "sampler", "short", "signed", "sizeof", "static", "struct", "switch", "template", "texture",
    "this", "thread", "true", "typedef", "uint", "uniform", "union", "unsigned", "using", "var",
    "vec4", "vertex", "void", "volatile", "while", "xor"};

void check_name(const std::string& n) {
  auto bad = [&](const std::string& why) {
    throw ExportError("function name \"" + n + "\" " + why, "name");
  };
  if (n.empty()) bad("is empty");
  if (n.size() > 64) bad("is longer than 64 characters");
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i && c >= '0' && c <= '9');
    if (!ok)
      bad("has '" + std::string(1, c) + "' at position " + std::to_string(i + 1) +
          "; use letters, digits and '_' (not first)");
  }
  if (n.find("__") != std::string::npos) bad("contains \"__\" (reserved in GLSL, C++ and WGSL)");
  if (n.rfind("gl_", 0) == 0) bad("starts with \"gl_\" (reserved in GLSL)");
  if (n[0] == '_') bad("starts with '_' (reserved in several targets)");
  for (auto r : reserved)
    if (n == r) bad("is a reserved word in at least one target");
  for (std::string_view local : {"x", "v", "seed", "r", "h", "hi", "lo"})
    if (n == local) bad("is a parameter or local name of the exported code");
}

std::string score_line(const std::optional<ProgramScore>& s) {
  if (!s) return "chi2: not scored";
  char buf[160];
  if (s->exact)
    std::snprintf(buf, sizeof buf, "exact chi2: %.10g, bias: %.6g", s->chi2, s->bias);
  else
    std::snprintf(buf, sizeof buf, "sampled chi2: %.10g (N = %llu), bias: %.6g", s->chi2,
                  static_cast<unsigned long long>(s->samples), s->bias);
  std::string line = buf;
  if (s->rrc_depth_log2 > 0)
    line += ", RRC depth: " + std::string(s->rrc_passed_cap ? ">" : "") + std::to_string(s->rrc_depth_log2);
  return line;
}

std::string describe(const mixer::Program& p) {
  return "program " + p.id() + ", width " + std::to_string(p.width()) + ": " + mixer::format_short(p);
}

std::array<mixer::Program, 4> lane_programs(const ExportRequest& r) {
  if (r.programs.empty() || r.programs.size() > 4)
    throw ExportError("vec4 takes 1 to 4 programs, got " + std::to_string(r.programs.size()), "programs");
  std::array<mixer::Program, 4> lanes;
  for (std::size_t i = 0; i < 4; ++i) {
    const mixer::Program& p = r.programs[std::min(i, r.programs.size() - 1)].program;
    lanes[i] = r.inverse ? mixer::inverse(p) : p;
  }
  return lanes;
}
}  // namespace

std::string_view target_name(Target t) { return names[static_cast<int>(t)]; }

std::optional<Target> target_from_name(std::string_view name) {
  for (Target t : all_targets)
    if (target_name(t) == name) return t;
  if (name == "c++") return Target::cpp;
  return std::nullopt;
}

const TargetSyntax& syntax_for(Target t) {
  switch (t) {
    case Target::glsl: return glsl_syntax();
    case Target::hlsl: return hlsl_syntax();
    case Target::wgsl: return wgsl_syntax();
    case Target::msl: return msl_syntax();
    case Target::cuda: return cuda_syntax();
    case Target::cpp: return cpp_syntax();
  }
  throw ExportError("unknown target", "target");
}

std::string function_name(const ExportRequest& r) {
  if (!r.name.empty()) return r.name;
  if (r.programs.empty()) throw ExportError("nothing to export: no program given", "programs");
  const std::string prefix = r.inverse ? "unmix" : "mix";
  if (r.vec4) {
    // A stable name from the lanes: the id of their joined canonical forms.
    const mixer::Program& first = r.programs.front().program;
    char buf[16];
    std::uint64_t h = first.hash();
    for (std::size_t i = 1; i < r.programs.size(); ++i) h = h * 0x9e3779b97f4a7c15ull ^ r.programs[i].program.hash();
    std::snprintf(buf, sizeof buf, "%08llx", static_cast<unsigned long long>(h >> 32));
    return prefix + "4_" + buf;
  }
  const mixer::Program& p = r.programs.front().program;
  return prefix + std::to_string(p.width()) + "_" + p.id().substr(0, 8);
}

std::string export_code(const ExportRequest& r) {
  for (std::size_t i = 0; i < r.programs.size(); ++i) {
    try {
      mixer::validate(r.programs[i].program);
    } catch (const mixer::ProgramError& e) {
      throw ExportError("program " + std::to_string(i + 1) +
                        (e.step_index() >= 0 ? " step " + std::to_string(e.step_index() + 1) : "") +
                        ": " + e.what(),
                        "programs/" + std::to_string(i));
    }
  }
  if (r.programs.empty()) throw ExportError("nothing to export: no program given", "programs");
  const std::string name = function_name(r);
  check_name(name);
  if (r.seeded && !r.vec4) throw ExportError("seeded applies to vec4 (4-lane) exports only", "seeded");
  if (!r.vec4 && r.programs.size() != 1)
    throw ExportError("a scalar export takes one program (vec4 packs up to four)", "programs");
  if (r.range && (r.vec4 || r.inverse))
    throw ExportError("range exports a scalar 32-bit hash; it cannot be combined with " +
                          std::string(r.vec4 ? "vec4" : "inverse"),
                      "range");

  Module m;
  const std::string target(target_name(r.target));
  m.comment.push_back(name + ": generated by mixforge export --target " + target +
                      (r.inverse ? " --inverse" : "") + (r.vec4 ? " --vec4" : "") +
                      (r.seeded ? " --seeded" : ""));
  if (r.vec4) {
    static constexpr char lane_names[] = "xyzw";
    const std::array<mixer::Program, 4> lanes = lane_programs(r);
    for (std::size_t i = 0; i < 4; ++i) {
      const std::size_t src = std::min(i, r.programs.size() - 1);
      std::string line = std::string("lane ") + lane_names[i] + ": ";
      if (src != i) {
        line += std::string("repeats lane ") + lane_names[src];
      } else {
        const mixer::Program& p = r.programs[i].program;
        line += (r.inverse ? "inverse of " : "") + describe(p) + "; " + score_line(r.programs[i].score);
      }
      m.comment.push_back(line);
    }
    m.comment.push_back("Lanes narrower than 32 bits are masked to their width after every step that can carry past it.");
    if (r.seeded)
      m.comment.push_back(r.inverse ? "seed: xor-ed into the lanes narrower than 32 bits after the last step "
                                      "(the seeded function xors it in before its first)."
                                    : "seed: xor-ed into the lanes narrower than 32 bits before the first step.");
    m.functions.push_back(lower_vec4(lanes, r.seeded, name, r.constants, r.inverse));
  } else {
    const ExportProgram& ep = r.programs.front();
    const mixer::Program p = r.inverse ? mixer::inverse(ep.program) : ep.program;
    if (r.inverse) {
      m.comment.push_back("inverse of " + describe(ep.program) + "; " + score_line(ep.score));
      m.comment.push_back("name(f(x)) == x; as a program: " + mixer::format_short(p));
    } else {
      m.comment.push_back(describe(p));
      m.comment.push_back(score_line(ep.score));
    }
    if (p.width() != 32 && p.width() != 64)
      m.comment.push_back("Input and result are " + std::to_string(p.width()) +
                          "-bit: masked after every step that can carry past bit " +
                          std::to_string(p.width() - 1) + ".");
    if (r.range && p.width() != 32)
      throw ExportError("range needs a 32-bit program (the method reads a 16.16 fraction and h % r "
                        "from a 32-bit hash); this one has width " + std::to_string(p.width()),
                        "range");
    m.functions.push_back(lower_scalar(p, name, r.constants));
    if (r.range) {
      check_name(name + "_range");
      m.functions.push_back(lower_range(name + "_range", name, *r.range));
    }
  }
  return render(m, syntax_for(r.target));
}

}  // namespace mixforge::shader
