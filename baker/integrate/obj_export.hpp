#pragma once
// The baked scene as Wavefront OBJ, for another renderer or a viewer (mixforge bake --obj;
// bench/peer_cycles.sh reads it into Blender): lightmap.obj and lightmap.mtl next to
// lightmap.exr. Every scene triangle as the baker traced it (a Quake map's faces after the
// hidden parts are cut away, in Quake units), with its own three vertices (positions where the
// scene's file had them, Scene::origin added back, written so that they read back as the same
// floats: 9 significant digits about the origin, the double's shortest text elsewhere) and, as `vt`, the
// atlas coordinates of its front chart scaled to [0, 1] with v up (OBJ's and Blender's
// convention: vt (u, v) is the point (u W, (1 - v) H) of lightmap.exr, whose first row is its
// top). `g face_N` groups the triangles of one chart (N: the triangle's face id, or for a
// triangle that is its own face, -1 - its index). The .mtl has one material per scene
// material: Kd its albedo, Ke its emission, `mixforge_two_sided 1` when two-sided, and a
// `# mixforge_sky 1` comment for a sky window (no texels; a ray that hits it reaches the sky).
// Analytic lights have no OBJ form: each is a comment line in the .obj,
//   # mixforge_light KIND position X Y Z direction X Y Z intensity R G B cone I O range R
// in the units of baker::Light (scene.hpp): point and spot intensity in W/sr, sun irradiance
// at normal incidence, sky radiance; the lightmap holds irradiance / pi in the same units.
// Back charts of two-sided triangles are not written (the front chart's UVs only).
#include <filesystem>

#include "baker/integrate/atlas.hpp"
#include "baker/scene/scene.hpp"

namespace mixforge::baker {

// Writes dir/lightmap.obj and dir/lightmap.mtl; throws ImageError (image_io.hpp) when a file
// cannot be written.
void write_obj(const Scene& scene, const Atlas& atlas, const std::filesystem::path& dir);

}  // namespace mixforge::baker
