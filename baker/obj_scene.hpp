#pragma once
// Wavefront OBJ scenes through tinyobjloader: polygons become triangle fans that share a
// face (one chart each); MTL `Kd` is the albedo, `Ke` the emitted radiance; faces without
// a material are grey (0.5). OBJ has a single UV set, so lightmap charts are always
// generated (see README, Baking).
#include <filesystem>

#include "baker/scene.hpp"

namespace mixforge::baker {

// Throws SceneError "file:line: message" for what tinyobjloader rejects (it names the
// line), and names the file and the face for bad indices or materials.
Scene load_obj(const std::filesystem::path& path);

}  // namespace mixforge::baker
