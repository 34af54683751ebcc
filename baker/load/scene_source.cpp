#include "baker/load/scene_source.hpp"

#include <algorithm>
#include <filesystem>

#include "baker/scene/cornell_box.hpp"
#include "baker/scene/obj_scene.hpp"
#include "baker/quake/quake_scene.hpp"

namespace mixforge::baker {

Scene load_scene(const std::string& spec) {
  if (spec == "cornell" || spec == "cornell-box") return cornell_box();
  const std::filesystem::path path(spec);
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".obj") return load_obj(path);
  if (ext == ".map") return quake::load_quake_scene(path);
  throw SceneError("unknown scene '" + spec + "' (built-in: cornell; files: .obj, .map)");
}

}  // namespace mixforge::baker
