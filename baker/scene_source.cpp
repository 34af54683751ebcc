#include "baker/scene_source.hpp"

#include <algorithm>
#include <filesystem>

#include "baker/cornell_box.hpp"
#include "baker/obj_scene.hpp"

namespace mixforge::baker {

Scene load_scene(const std::string& spec) {
  if (spec == "cornell" || spec == "cornell-box") return cornell_box();
  const std::filesystem::path path(spec);
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".obj") return load_obj(path);
  if (ext == ".map")
    throw SceneError(spec + ": Quake .map scenes are not supported by this build yet "
                            "(built-in: cornell; files: .obj)");
  throw SceneError("unknown scene '" + spec + "' (built-in: cornell; files: .obj)");
}

}  // namespace mixforge::baker
