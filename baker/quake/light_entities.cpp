#include "baker/quake/light_entities.hpp"

#include <charconv>
#include <cmath>
#include <numbers>
#include <optional>

namespace mixforge::quake {

namespace {

constexpr double kDegree = std::numbers::pi / 180;

std::string_view strip_underscores(std::string_view key) {
  while (!key.empty() && key.front() == '_') key.remove_prefix(1);
  return key;
}

// The last pair whose key, without leading underscores, is one of `names` (ericw's lookup).
const KeyValue* setting(const Entity& e, std::initializer_list<std::string_view> names) {
  for (auto it = e.pairs.rbegin(); it != e.pairs.rend(); ++it) {
    const std::string_view key = strip_underscores(it->key);
    for (std::string_view n : names) {
      if (key == n) return &*it;
    }
  }
  return nullptr;
}

// Whitespace-separated finite numbers; throws MapError at the value when one is malformed.
std::vector<double> numbers(const KeyValue& kv, const std::string& file) {
  std::vector<double> out;
  std::string_view s = kv.value;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size()) break;
    std::size_t end = i;
    while (end < s.size() && s[end] != ' ' && s[end] != '\t') ++end;
    std::string_view token = s.substr(i, end - i);
    std::string_view digits = token.front() == '+' ? token.substr(1) : token;
    double v = 0;
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size() || !std::isfinite(v) ||
        std::fabs(v) > 1e9) {
      throw MapError(file, {kv.value_at.line, kv.value_at.column + 1 + static_cast<int>(i)},
                     "\"" + kv.key + "\": '" + std::string(token) + "' is not a usable number");
    }
    out.push_back(v);
    i = end;
  }
  return out;
}

std::optional<double> scalar(const Entity& e, std::initializer_list<std::string_view> names,
                             const std::string& file) {
  const KeyValue* kv = setting(e, names);
  if (!kv) return std::nullopt;
  const auto v = numbers(*kv, file);
  if (v.size() != 1) {
    throw MapError(file, kv->value_at,
                   "\"" + kv->key + "\" must be one number, found \"" + kv->value + "\"");
  }
  return v[0];
}

std::optional<Vec3> vector3(const Entity& e, std::initializer_list<std::string_view> names,
                            const std::string& file) {
  const KeyValue* kv = setting(e, names);
  if (!kv) return std::nullopt;
  const auto v = numbers(*kv, file);
  if (v.size() != 3) {
    throw MapError(file, kv->value_at,
                   "\"" + kv->key + "\" must be three numbers, found \"" + kv->value + "\"");
  }
  return Vec3{v[0], v[1], v[2]};
}

// ericw normalize_color_format: all of r, g, b in [0, 1] means the 0..1 form.
Rgb color_value(Vec3 v) {
  if (v.x >= 0 && v.x <= 1 && v.y >= 0 && v.y <= 1 && v.z >= 0 && v.z <= 1) v = v * 255;
  return {v.x, v.y, v.z};
}

std::optional<Rgb> color(const Entity& e, std::initializer_list<std::string_view> names,
                         const std::string& file) {
  if (auto v = vector3(e, names, file)) return color_value(*v);
  return std::nullopt;
}

std::string at(const std::string& file, Location where) {
  return file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": ";
}

}  // namespace

Vec3 direction_from_mangle(double yaw_deg, double pitch_deg) {
  const double yaw = yaw_deg * kDegree, pitch = pitch_deg * kDegree;
  return {std::cos(yaw) * std::cos(pitch), std::sin(yaw) * std::cos(pitch), std::sin(pitch)};
}

double light_value(Attenuation formula, double light, double falloff, double wait, double distance,
                   double scaledist) {
  if (formula == Attenuation::infinite || formula == Attenuation::local_min) return light;
  if (falloff > 0 && formula == Attenuation::linear) {
    return falloff > distance ? light * (1 - distance / falloff) : 0;
  }
  double value = scaledist * wait * distance;
  constexpr double s = kLightFormulaScale;
  switch (formula) {
    case Attenuation::inverse:
      return light / (value / s);
    case Attenuation::inverse_square_offset:
      value += s;
      [[fallthrough]];
    case Attenuation::inverse_square:
      return light / ((value * value) / (s * s));
    case Attenuation::linear:
      if (light > 0) return light - value > 0 ? light - value : 0;
      return light + value < 0 ? light + value : 0;
    default:
      return light;
  }
}

double spot_factor(const PointLight& light, double cos_from_axis) {
  if (!light.spotlight) return 1;
  // ericw compares dot(spotvec, point->light) = -cos_from_axis against -cos(half angles).
  const double falloff = -cos_from_axis;
  const double outer = -std::cos(light.cone_angle / 2 * kDegree);
  const double inner = -std::cos(light.soft_angle / 2 * kDegree);
  if (falloff > outer) return 0;
  if (falloff > inner) return 1 - (falloff - inner) / (outer - inner);
  return 1;
}

double light_value_at(const PointLight& light, Vec3 point, Vec3 normal, double scaledist) {
  Vec3 to_light = light.origin - point;
  double dist = length(to_light);
  if (dist < 0.1) {
    dist = 0.1;
    to_light = {0, 0, 1};
  } else {
    to_light = to_light * (1 / dist);
  }
  double angle = dot(to_light, normal);
  if (angle < 0) return 0;  // light behind the surface
  angle = (1 - light.anglescale) + light.anglescale * angle;
  const double value =
      light_value(light.formula, light.light, light.falloff, light.wait, dist, scaledist) * angle;
  return value * spot_factor(light, -dot(light.spot_direction, to_light));
}

Rgb light_color_at(const PointLight& light, Vec3 point, Vec3 normal, double scaledist) {
  const double v = light_value_at(light, point, normal, scaledist) / 255;
  return {light.color.r * v, light.color.g * v, light.color.b * v};
}

double sun_value(const Sun& sun, Vec3 normal) {
  const double c = dot(sun.direction * -1, normal);
  if (c < -1e-3) return 0;  // ericw's LIGHT_ANGLE_EPSILON
  const double angle = std::max(0.0, c);
  return ((1 - sun.anglescale) + sun.anglescale * angle) * sun.light;
}

std::vector<Sun> sky_dome_suns(const SkyDome& dome, int sunsamples) {
  std::vector<Sun> suns;
  if (dome.light <= 0) return suns;
  // Integer division as in ericw (sunsamples is an int setting there).
  const int iterations =
      std::max(2, static_cast<int>(std::rint(std::sqrt((sunsamples - 1) / 4))) + 1);
  const int elevation_steps = iterations - 1;
  const int angle_steps = elevation_steps * 4;
  const double elevation_step = 90.0 / (elevation_steps + 1) * kDegree;
  const double angle_step = 360.0 / angle_steps * kDegree;
  const int count = angle_steps * elevation_steps + 1;
  const double each = dome.light / count;
  const double up = dome.upper ? -1 : 1;  // the upper dome shines down
  double angle = 0, elevation = elevation_step * 0.5;
  for (int i = 0; i < elevation_steps; ++i) {
    for (int j = 0; j < angle_steps; ++j) {
      const Vec3 d{std::cos(angle) * std::cos(elevation), std::sin(angle) * std::cos(elevation),
                   up * std::sin(elevation)};
      suns.push_back({normalize(d), each, dome.color, dome.anglescale});
      angle += angle_step;
    }
    elevation += elevation_step;
    angle += angle_step / elevation_steps;
  }
  suns.push_back({{0, 0, up}, each, dome.color, dome.anglescale});
  return suns;
}

MapLights read_lights(const QuakeMap& map) {
  MapLights out;
  const std::string& file = map.file;
  bool autofalloff = false;
  if (const Entity* world = map.worldspawn()) {
    out.global_anglescale = scalar(*world, {"anglescale", "anglesense"}, file).value_or(0.5);
    if (out.global_anglescale < 0 || out.global_anglescale > 1) {
      out.warnings.push_back(at(file, setting(*world, {"anglescale", "anglesense"})->value_at) +
                             "anglescale must be within [0, 1]; using 0.5");
      out.global_anglescale = 0.5;
    }
    out.scaledist = scalar(*world, {"dist"}, file).value_or(1);
    out.minlight = scalar(*world, {"light", "minlight"}, file).value_or(0);
    out.minlight_color =
        color(*world, {"minlight_color", "mincolor"}, file).value_or(Rgb{255, 255, 255});
    autofalloff = scalar(*world, {"spotlightautofalloff"}, file).value_or(0) != 0;
    Sun sun;
    sun.light = scalar(*world, {"sunlight", "sun_light"}, file).value_or(0);
    sun.color = color(*world, {"sunlight_color", "sun_color"}, file).value_or(Rgb{255, 255, 255});
    const Vec3 mangle = vector3(*world, {"sunlight_mangle", "sun_mangle", "sun_angle"}, file)
                            .value_or(Vec3{0, -90, 0});
    sun.direction = direction_from_mangle(mangle.x, mangle.y);
    sun.anglescale = out.global_anglescale;
    if (sun.light != 0) out.suns.push_back(sun);
    SkyDome upper{
        scalar(*world, {"sunlight2"}, file).value_or(0),
        color(*world, {"sunlight2_color", "sunlight_color2"}, file).value_or(Rgb{255, 255, 255}),
        out.global_anglescale, true};
    SkyDome lower{
        scalar(*world, {"sunlight3"}, file).value_or(0),
        color(*world, {"sunlight3_color", "sunlight_color3"}, file).value_or(Rgb{255, 255, 255}),
        out.global_anglescale, false};
    if (upper.light > 0) out.domes.push_back(upper);
    if (lower.light > 0) out.domes.push_back(lower);
  }

  for (std::size_t index = 0; index < map.entities.size(); ++index) {
    const Entity& e = map.entities[index];
    if (e.classname().rfind("light", 0) != 0) continue;
    PointLight l;
    l.entity = index;
    l.where = e.where;
    l.origin = vector3(e, {"origin"}, file).value_or(Vec3{});
    if (const KeyValue* kv = setting(e, {"light"})) {
      const auto v = numbers(*kv, file);
      if (v.size() == 1) {
        l.light = v[0];
      } else if (v.size() == 3 || v.size() == 4) {  // Half-Life "r g b [n]"
        l.color = color_value({v[0], v[1], v[2]});
        if (v.size() == 4) l.light = v[3];
      } else {
        throw MapError(file, kv->value_at, "\"" + kv->key + "\" must be 1, 3 or 4 numbers");
      }
    }
    if (auto c = color(e, {"color"}, file)) l.color = *c;  // _color wins over the HL form
    l.wait = scalar(e, {"wait"}, file).value_or(1);
    if (l.wait <= 0) l.wait = 1;
    const double delay = scalar(e, {"delay"}, file).value_or(0);
    if (delay != std::floor(delay) || delay < 0 || delay > 5) {
      out.warnings.push_back(at(file, setting(e, {"delay"})->value_at) + "unknown delay " +
                             setting(e, {"delay"})->value +
                             "; the light is disabled (as ericw does)");
      l.formula = Attenuation::linear;
      l.light = 0;
    } else {
      l.formula = static_cast<Attenuation>(static_cast<int>(delay));
    }
    l.falloff = scalar(e, {"falloff"}, file).value_or(0);
    if (l.falloff < 0) l.falloff = 0;
    if (l.falloff > 0 && l.formula != Attenuation::linear) {
      out.warnings.push_back(at(file, setting(e, {"falloff"})->value_at) +
                             "_falloff only applies to linear (delay 0) lights; ignored");
      l.falloff = 0;
    }
    l.anglescale = scalar(e, {"anglescale", "anglesense"}, file).value_or(-1);
    if (l.anglescale < 0 || l.anglescale > 1) l.anglescale = out.global_anglescale;
    l.style = static_cast<int>(scalar(e, {"style"}, file).value_or(0));
    l.targetname = e.value("targetname");
    if (const KeyValue* kv = setting(e, {"surface"})) l.surface_texture = kv->value;

    const auto mangle = vector3(e, {"mangle"}, file);
    double target_distance = 0;
    if (mangle) {
      l.spotlight = true;
      l.spot_direction = direction_from_mangle(mangle->x, mangle->y);
    }
    const std::string target = e.value("target");
    const Entity* target_entity = nullptr;
    if (!target.empty()) {
      for (const Entity& other : map.entities) {
        if (other.value("targetname") == target) {
          target_entity = &other;
          break;
        }
      }
      if (!target_entity) {
        out.warnings.push_back(at(file, e.find("target")->value_at) + "light targets \"" + target +
                               "\", which no entity is named; not a spotlight");
      }
    }

    // Suns and sky-dome lights are not point lights.
    if (scalar(e, {"sun"}, file).value_or(0) != 0) {
      if (l.light > 0) {
        Vec3 d = target_entity
                     ? vector3(*target_entity, {"origin"}, file).value_or(Vec3{}) - l.origin
                 : mangle && length(*mangle) > 0 ? l.spot_direction
                                                 : l.origin * -1;
        out.suns.push_back({normalize(d), l.light, l.color, l.anglescale});
      }
      continue;
    }
    const double dome2 = scalar(e, {"sunlight2"}, file).value_or(0);
    const double dome3 = scalar(e, {"sunlight3"}, file).value_or(0);
    if (dome2 != 0 || dome3 != 0) {
      if (l.light > 0) out.domes.push_back({l.light, l.color, l.anglescale, dome2 != 0});
      continue;
    }

    if (target_entity) {
      const Vec3 d = vector3(*target_entity, {"origin"}, file).value_or(Vec3{}) - l.origin;
      target_distance = length(d);
      l.spot_direction = normalize(d);
      l.spotlight = true;
    }
    if (l.spotlight) {
      double base = 0;
      if (const auto cone = scalar(e, {"cone"}, file)) {
        base = *cone * 2;
      } else if (const auto angle = scalar(e, {"angle"}, file)) {
        base = *angle;
      }
      if (base == 0) base = 40;
      l.cone_angle = base;
      double soft = scalar(e, {"softangle"}, file).value_or(0);
      if (soft <= 0 || soft > base) soft = base;
      l.soft_angle = soft;
      if (target_distance > 0 && l.falloff == 0 && autofalloff) {
        l.falloff = target_distance + target_distance * std::tan(base / 2 * kDegree);
      }
    }
    (l.surface_texture.empty() ? out.lights : out.surface_lights).push_back(l);
  }
  return out;
}

}  // namespace mixforge::quake
