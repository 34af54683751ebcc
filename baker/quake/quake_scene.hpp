// A Quake .map as the baker's Scene: brushes become triangles with albedo by texture name,
// ericw-tools lights become the baker's physical lights.
//
// Geometry: the static brushes (BrushSelection's default) clipped to convex polygons, each
// fanned into triangles that share a face id (one lightmap chart per brush side, as Quake).
// Removed: brushes with a clip/hint/origin face, skip/trigger/... faces and, unless
// include_liquids, liquid faces (Quake gives liquids no lightmap and ericw lets light
// through them). Sky faces (textures sky*) are kept as sky windows (Material::sky, no
// texels): a ray that hits one has reached the sky, so sunlight and the sky dome enter there
// and nothing beyond a sky face (outside the sealed map) casts a shadow (ericw-tools'
// convention; they used to be holes, through which a sun's shadow ray went on and could hit
// geometry outside the map). One material per texture name; albedo from texture_albedo().
// Hidden faces (issue 40): as qbsp's CSG, the parts of faces that lie inside another brush,
// or against it back to back, are cut away (brush.hpp's visible_parts), where that brush is
// closed (every face drawn) and opaque (solid or sky textures only); a closed fence brush ('{'
// textures, seen through in Quake) hides only other fence brushes' faces, a closed liquid
// brush only other liquids'. Of two faces in one plane facing the same way, the later
// brush's is kept. This applies across all static entities (a func_wall hides what it
// stands in too: the baker traces them all as one world). A face cut into pieces that do
// not touch becomes one face (one chart) per connected part, so that no bilinear read or
// dilation reaches across a wall. Positions (triangles, lights, camera) are rebased on the
// triangles' bounds in double (baker/scene/rebase.hpp, Scene::origin) before they become float.
//
// Light units. ericw adds `color/255 * v` to a lightmap where 128 is a texture at full
// brightness; the baker's lightmap holds irradiance / pi (what a white surface reflects),
// where 1 is full brightness. So one baker unit is 128 ericw units (kEricwUnit), and:
//   delay 2 (1/x^2):   v = L (128 / (wait d))^2 cos  ==  I cos / (pi d^2) / unit
//                      => I = pi 128 L / wait^2 * color/255: exact for Lambert surfaces.
//   delay 5:           as delay 2 (exact far from the light; ericw's +128 offset only
//                      tames the hotspot, which the baker does not).
//   delay 0 (linear), 1 (1/x), 3 (none): not inverse-square laws. The light becomes an
//                      inverse-square light that matches ericw's value at a reference
//                      distance (half the linear range, 128/wait, 128), with `range` the
//                      distance where the linear light dies out (or _falloff).
//   delay 4 (local minlight) and negative lights: not representable; skipped with a note.
//   ericw's anglescale (default 0.5: (1 - a) + a cos) becomes the physical cos.
//   spotlights: cone_outer = cos(cone/2), cone_inner = cos(softangle/2).
//   suns:      intensity = pi L / 128 * color/255 (E/pi == ericw's L cos / 128).
//   sky domes: the uniform sky radiance R that gives an open horizontal floor ericw's dome
//              value: R = L * mean(cos of the dome's suns) / 128 * color/255.
//   surface-light templates ("_surface" TEX): faces with that texture emit radiance
//              L / 128 * color/255 (a large emitter at that radiance lights a facing
//              surface to lightmap value L, as ericw's dense surface lights roughly do).
// Light styles (flicker, switchable) are baked as if always on. Worldspawn minlight has no
// counterpart and is reported in `notes`.
// Camera: info_player_start (else info_player_deathmatch) at eye height 22 looking along
// its "angle"; else info_intermission ("mangle" = pitch yaw roll); else none.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "baker/quake/brush.hpp"
#include "baker/quake/quake_map.hpp"
#include "baker/scene/scene.hpp"

namespace mixforge::quake {

inline constexpr double kEricwUnit = 128;  // ericw lightmap value of a full-bright surface

struct QuakeSceneOptions {
  BrushSelection selection;
  bool include_liquids = false;
};

struct QuakeScene {
  baker::Scene scene;
  std::vector<std::string> notes;  // approximations made and things left out, located
  std::size_t brushes = 0;         // brushes that contributed triangles
  std::size_t faces = 0;           // brush sides that became triangles (whole or in part)
  std::size_t hidden_faces = 0;    // drawn brush sides wholly hidden inside other brushes
  std::size_t cut_faces = 0;       // brush sides of which only a visible part was kept
  std::size_t sky_faces = 0;       // sky sides kept (not in `faces`: they get no texels)
};

// Throws MapError for malformed maps (as build_brushes and read_lights do).
QuakeScene to_scene(const QuakeMap& map, const QuakeSceneOptions& options = {});
// Reads a .map file; every problem (unreadable file, MapError) becomes a baker::SceneError
// whose message is "file:line:column: ...".
baker::Scene load_quake_scene(const std::filesystem::path& path,
                              const QuakeSceneOptions& options = {});

}  // namespace mixforge::quake
