// Light sources of a Quake map, read the way ericw-tools' `light` reads them (docs/light.rst
// and light/entities.cc, light/ltface.cc of ericwa/ericw-tools; this is an independent
// implementation of the documented conventions).
//
// Point lights: every entity whose classname starts with "light" (light, light_torch_*, ...),
// unless it is a sun ("_sun" "1") or a sky-dome light ("_sunlight2"/"_sunlight3" "1"). Key
// names may carry any number of leading underscores ("_color" == "color"); the last
// occurrence of a key wins.
//   light      brightness, default 300 ("r g b n" Half-Life form also accepted)
//   _color     r g b in 0..255, or 0..1 when all three are within [0, 1]; default white
//   wait       distance scale ("atten"), <= 0 means 1
//   delay      0 linear, 1 1/x, 2 1/x^2, 3 no attenuation, 4 local minlight, 5 1/(x+128)^2
//   _falloff   linear lights only: distance where the light reaches 0 (ignored otherwise)
//   _anglescale / _anglesense  in [0, 1], else worldspawn's (default 0.5)
//   spotlights: "target" (direction to the entity with that "targetname") or "mangle"
//   ("yaw pitch roll", degrees; pitch 90 up, -90 down; target wins when both are given);
//   cone: "_cone" (half angle, degrees) else "angle" (full angle) else 40 degrees; "_softangle"
//   inner full angle (0 or larger than the cone: no soft edge). In ericw-tools a light's "angle"
//   is this cone angle, not a facing; Quake's "-1 up / -2 down" facing convention belongs to
//   movers (QuakeC SetMovedir) and does not apply to lights, which use mangle or target.
// Worldspawn: _sunlight (0), _sun_mangle / _sunlight_mangle / _sun_angle ("0 -90 0", straight
// down), _sunlight_color; _sunlight2 / _sunlight2_color (upper sky dome) and _sunlight3 /
// _sunlight3_color (lower dome); _anglescale (0.5); _dist (scaledist, 1); light / _minlight and
// _minlight_color; _spotlightautofalloff. Light entities with "_sun" "1" add a sun aimed by
// target or mangle. Lights with "_surface" are surface-light templates (MapLights).
//
// Units: ericw's. A value v from the formulas below adds `color / 255 * v` to a lightmap in
// which 128 is a surface at its texture's full brightness (Quake's "normal" light level).
#pragma once

#include <string>
#include <vector>

#include "baker/quake/quake_map.hpp"

namespace mixforge::quake {

struct Rgb {
  double r = 0, g = 0, b = 0;
  friend bool operator==(Rgb, Rgb) = default;
};

enum class Attenuation {
  linear = 0,
  inverse = 1,
  inverse_square = 2,
  infinite = 3,
  local_min = 4,
  inverse_square_offset = 5,  // ericw's "inverse2a"
};

// ericw's LF_SCALE: the distance unit of delay 1, 2 and 5.
inline constexpr double kLightFormulaScale = 128;

struct PointLight {
  Vec3 origin;
  double light = 300;
  Rgb color{255, 255, 255};  // 0..255
  double wait = 1;
  Attenuation formula = Attenuation::linear;
  double falloff = 0;  // 0: none
  double anglescale = 0.5;
  bool spotlight = false;
  Vec3 spot_direction;    // unit, the way the spotlight shines
  double cone_angle = 0;  // full angle in degrees (spotlights)
  double soft_angle = 0;  // full inner angle in degrees (== cone_angle: hard edge)
  int style = 0;
  std::string targetname;
  std::string surface_texture;  // "_surface": a surface-light template (see MapLights)
  std::size_t entity = 0;       // index into QuakeMap::entities
  Location where;
};

struct Sun {
  Vec3 direction;  // unit, the way the light travels (from the sky to the ground)
  double light = 0;
  Rgb color{255, 255, 255};
  double anglescale = 0.5;
};

// ericw's sky dome: many suns spread over a hemisphere, light split evenly between them.
struct SkyDome {
  double light = 0;  // total
  Rgb color{255, 255, 255};
  double anglescale = 0.5;
  bool upper = true;  // _sunlight2 (from above); false: _sunlight3 (from below)
};

struct MapLights {
  std::vector<PointLight> lights;
  // Lights with "_surface" "TEXTURE": ericw copies them onto every face with that texture
  // (surface lights); the entity's own origin emits nothing. Kept apart so that nobody
  // mistakes them for point lights; their faces are the emitters.
  std::vector<PointLight> surface_lights;
  std::vector<Sun> suns;
  std::vector<SkyDome> domes;
  double minlight = 0;
  Rgb minlight_color{255, 255, 255};
  double global_anglescale = 0.5;
  double scaledist = 1;               // worldspawn "_dist"
  std::vector<std::string> warnings;  // "file:line:column: ..." for keys ericw would ignore
};

// Reads all light sources. Malformed numbers in light keys throw MapError at the value.
MapLights read_lights(const QuakeMap& map);

// ericw's vec_from_mangle: yaw about +z, then pitch up from the xy plane.
Vec3 direction_from_mangle(double yaw_deg, double pitch_deg);

// ericw's GetLightValue: the brightness at `distance` ignoring the angle of incidence.
double light_value(Attenuation formula, double light, double falloff, double wait, double distance,
                   double scaledist = 1);
// ericw's GetLightValueWithAngle plus the spotlight cone, for a surface point with unit normal
// `normal`: the value v (colour added = color / 255 * v). Distances below 0.1 count as 0.1.
double light_value_at(const PointLight& light, Vec3 point, Vec3 normal, double scaledist = 1);
Rgb light_color_at(const PointLight& light, Vec3 point, Vec3 normal, double scaledist = 1);
// The spotlight factor in [0, 1] for a point seen from the light at `cos_from_axis`
// (cosine of the angle between the spot direction and light->point).
double spot_factor(const PointLight& light, double cos_from_axis);
// A sun on an unoccluded surface with unit normal `normal` (ericw LightFace_Sky): 0 when the
// surface faces away, else ((1 - anglescale) + anglescale * cos) * light.
double sun_value(const Sun& sun, Vec3 normal);
// ericw's SetupSkyDome layout for `sunsamples` (ericw's default 64): the suns a dome becomes.
std::vector<Sun> sky_dome_suns(const SkyDome& dome, int sunsamples = 64);

}  // namespace mixforge::quake
