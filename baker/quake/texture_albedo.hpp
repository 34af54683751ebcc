// What a Quake texture name means to the baker: whether the surface exists, and its albedo.
// .map files name textures but carry no pixels (those live in WAD files we do not ship), so
// the albedo comes from the name. Lookup is case-insensitive; an animation prefix ("+0", "+a")
// is ignored.
//
// Surface kinds (qbsp / ericw-tools conventions):
//   brush removed   a brush with any face named clip, hint or origin
//                   contributes nothing: clip brushes are invisible collision hulls, hint
//                   brushes only steer vis, origin brushes only mark rotation centres.
//   face removed    skip, hintskip, trigger, null, nodraw, waterskip, lavaskip, slimeskip:
//                   the face is not drawn (the rest of its brush is).
//   sky             names starting with "sky": not lit; where sunlight and the sky dome come
//                   from (ericw lets suns in only through sky faces). Albedo 0.
//   liquid          names starting with '*' (*water, *slime, *lava, *tele...): drawn, lit,
//                   but does not cast shadows (ericw's default for liquids).
//   solid           everything else, including '{' (alpha-masked "fence") textures.
//
// Albedo table (linear RGB), first matching rule wins; otherwise kDefaultAlbedo:
//   "*lava"        0.60 0.25 0.10      "*slime"      0.20 0.45 0.15
//   "*tele"        0.30 0.20 0.50      '*' (water)   0.25 0.35 0.45
//   contains a colour word (LibreQuake's dev/palette textures: wall_grey_b, floor_yellow_c):
//   "red" 0.60 0.15 0.12   "orange" 0.65 0.35 0.12   "yellow" 0.65 0.58 0.22
//   "green" 0.20 0.50 0.20 "blue" 0.18 0.28 0.60     "brn"/"brown" 0.40 0.28 0.18
//   "white" 0.80 0.80 0.80 "black" 0.05 0.05 0.05    "grey"/"gray" 0.50 0.50 0.50
//   prefix "met" (metal) 0.40 0.40 0.42, "wood" 0.45 0.32 0.20, "may"/"flesh" 0.45 0.30 0.28
// kDefaultAlbedo is 0.5 grey: an unknown texture reflects half the light, between Quake's
// dark stone (~0.3) and the Cornell box's white (0.725).
#pragma once

#include <string_view>

#include "baker/quake/light_entities.hpp"

namespace mixforge::quake {

enum class SurfaceKind { solid, liquid, sky, face_removed, brush_removed };

inline constexpr Rgb kDefaultAlbedo{0.5, 0.5, 0.5};

SurfaceKind surface_kind(std::string_view texture);
// The albedo of a drawn surface (0 for sky; meaningless for removed ones, which return 0).
Rgb texture_albedo(std::string_view texture);

}  // namespace mixforge::quake
