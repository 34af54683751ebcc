#include "baker/quake/texture_albedo.hpp"

#include <array>
#include <string>

namespace mixforge::quake {

namespace {

std::string lower_name(std::string_view texture) {
  // "+0name" / "+aname" are animation frames of "name".
  if (texture.size() > 2 && texture[0] == '+') texture.remove_prefix(2);
  std::string out(texture);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

SurfaceKind surface_kind(std::string_view texture) {
  const std::string name = lower_name(texture);
  if (name == "clip" || name == "hint" || name == "origin") return SurfaceKind::brush_removed;
  for (std::string_view removed :
       {"skip", "hintskip", "trigger", "null", "nodraw", "waterskip", "lavaskip", "slimeskip"}) {
    if (name == removed) return SurfaceKind::face_removed;
  }
  if (starts_with(name, "sky")) return SurfaceKind::sky;
  if (starts_with(name, "*")) return SurfaceKind::liquid;
  return SurfaceKind::solid;
}

Rgb texture_albedo(std::string_view texture) {
  const SurfaceKind kind = surface_kind(texture);
  if (kind == SurfaceKind::sky || kind == SurfaceKind::face_removed ||
      kind == SurfaceKind::brush_removed) {
    return {0, 0, 0};
  }
  const std::string name = lower_name(texture);
  if (starts_with(name, "*lava")) return {0.60, 0.25, 0.10};
  if (starts_with(name, "*slime")) return {0.20, 0.45, 0.15};
  if (starts_with(name, "*tele")) return {0.30, 0.20, 0.50};
  if (starts_with(name, "*")) return {0.25, 0.35, 0.45};
  struct Word {
    std::string_view word;
    Rgb albedo;
  };
  static constexpr std::array<Word, 11> words = {{
      {"red", {0.60, 0.15, 0.12}},
      {"orange", {0.65, 0.35, 0.12}},
      {"yellow", {0.65, 0.58, 0.22}},
      {"green", {0.20, 0.50, 0.20}},
      {"blue", {0.18, 0.28, 0.60}},
      {"brn", {0.40, 0.28, 0.18}},
      {"brown", {0.40, 0.28, 0.18}},
      {"white", {0.80, 0.80, 0.80}},
      {"black", {0.05, 0.05, 0.05}},
      {"grey", {0.50, 0.50, 0.50}},
      {"gray", {0.50, 0.50, 0.50}},
  }};
  for (const Word& w : words) {
    if (name.find(w.word) != std::string::npos) return w.albedo;
  }
  if (starts_with(name, "met")) return {0.40, 0.40, 0.42};
  if (starts_with(name, "wood")) return {0.45, 0.32, 0.20};
  if (starts_with(name, "may") || starts_with(name, "flesh")) return {0.45, 0.30, 0.28};
  return kDefaultAlbedo;
}

}  // namespace mixforge::quake
