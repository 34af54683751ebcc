#pragma once
// Wavefront OBJ scenes through tinyobjloader: polygons become triangle fans that share a
// face (one chart each); MTL `Kd` is the albedo, `Ke` the emitted radiance,
// `mixforge_two_sided 1` makes a material two-sided (Material::two_sided); faces without
// a material are grey (0.5). OBJ has a single UV set, so lightmap charts are always
// generated (see docs/baking.md). Positions are read in double and the scene rebased on its
// bounds (rebase.hpp: Scene::origin) before they become float.
#include <filesystem>

#include "baker/scene/scene.hpp"

namespace mixforge::baker {

// Throws SceneError "file:line:column: message" for a malformed number, index or face in
// the OBJ or a Kd / Ke / mixforge_two_sided line of its .mtl files (a scan before
// tinyobjloader, which takes many of them silently), "file:line: message" for what tinyobjloader rejects, and names
// the file for the rest (no faces with area, bad materials).
Scene load_obj(const std::filesystem::path& path);

}  // namespace mixforge::baker
