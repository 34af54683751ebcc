#include "baker/quake/quake_scene.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <optional>

#include "baker/quake/brush.hpp"
#include "baker/quake/light_entities.hpp"
#include "baker/quake/texture_albedo.hpp"

namespace mixforge::quake {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDegree = kPi / 180;

// A direction (not rebased).
baker::Vec3 to_baker(Vec3 v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

// A position, rebased on the scene's origin (baker/scene/rebase.hpp).
baker::Vec3 position(Vec3 p, baker::WorldPoint origin) { return baker::to_local({p.x, p.y, p.z}, origin); }

baker::Vec3 rgb(Rgb c, double scale) {
  return {static_cast<float>(c.r * scale), static_cast<float>(c.g * scale),
          static_cast<float>(c.b * scale)};
}

std::string located(const std::string& file, Location at) {
  return file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": ";
}

// The inverse-square intensity (W/sr in baker units, before colour) standing in for an ericw
// point light, and the range beyond which it is cut; nullopt when there is none.
struct Equivalent {
  double intensity = 0;
  double range = 0;
};

std::optional<Equivalent> equivalent(const PointLight& l, double scaledist) {
  const double scale = scaledist * l.wait;
  const auto matched = [&](double d_ref) {
    const double v = light_value(l.formula, l.light, l.falloff, l.wait, d_ref, scaledist);
    return kPi * d_ref * d_ref * v / kEricwUnit;
  };
  switch (l.formula) {
    case Attenuation::inverse_square:
    case Attenuation::inverse_square_offset:
      return Equivalent{
          kPi * kLightFormulaScale * l.light / (scale * scale) * kLightFormulaScale / kEricwUnit,
          0};
    case Attenuation::linear: {
      const double range = l.falloff > 0 ? l.falloff : l.light / scale;
      return Equivalent{matched(range / 2), range};
    }
    case Attenuation::inverse:
      return Equivalent{matched(kLightFormulaScale / scale), 0};
    case Attenuation::infinite:
      return Equivalent{matched(kLightFormulaScale), 0};
    default:
      return std::nullopt;
  }
}

std::optional<baker::Camera> camera(const QuakeMap& map, baker::WorldPoint origin) {
  for (const char* start : {"info_player_start", "info_player_deathmatch"}) {
    for (const Entity& e : map.entities) {
      if (e.classname() != start) continue;
      double x = 0, y = 0, z = 0, yaw = 0;
      if (std::sscanf(e.value("origin").c_str(), "%lf %lf %lf", &x, &y, &z) != 3) continue;
      std::sscanf(e.value("angle").c_str(), "%lf", &yaw);
      const Vec3 eye{x, y, z + 22};  // Quake's view height
      baker::Camera c;
      c.position = position(eye, origin);
      c.target = position(eye + Vec3{std::cos(yaw * kDegree), std::sin(yaw * kDegree), 0} * 128, origin);
      c.up = {0, 0, 1};
      c.vertical_fov_degrees = 73.74f;  // Quake's fov 90 across a 4:3 view
      return c;
    }
  }
  for (const Entity& e : map.entities) {
    if (e.classname() != "info_intermission") continue;
    double x = 0, y = 0, z = 0, pitch = 0, yaw = 0, roll = 0;
    if (std::sscanf(e.value("origin").c_str(), "%lf %lf %lf", &x, &y, &z) != 3) continue;
    std::sscanf(e.value("mangle").c_str(), "%lf %lf %lf", &pitch, &yaw, &roll);
    const Vec3 dir{std::cos(pitch * kDegree) * std::cos(yaw * kDegree),
                   std::cos(pitch * kDegree) * std::sin(yaw * kDegree), -std::sin(pitch * kDegree)};
    baker::Camera c;
    c.position = position({x, y, z}, origin);
    c.target = position(Vec3{x, y, z} + dir * 128, origin);
    c.up = std::fabs(dir.z) > 0.999 ? baker::Vec3{1, 0, 0} : baker::Vec3{0, 0, 1};
    c.vertical_fov_degrees = 73.74f;
    return c;
  }
  return std::nullopt;
}

// Surface-light templates make their texture emissive: radiance by texture name.
std::map<std::string, Rgb> surface_emission(const MapLights& lights) {
  std::map<std::string, Rgb> emission;
  for (const PointLight& l : lights.surface_lights) {
    if (l.light <= 0) continue;
    Rgb& e = emission[l.surface_texture];
    const double s = l.light / kEricwUnit / 255;
    e = {e.r + l.color.r * s, e.g + l.color.g * s, e.b + l.color.b * s};
  }
  return emission;
}

// One material per texture name, added to the scene the first time a face uses it.
class Materials {
 public:
  Materials(baker::Scene& scene, std::map<std::string, Rgb> emission) : scene_(scene), emission_(std::move(emission)) {}
  std::uint32_t operator()(const std::string& texture) {
    auto [it, added] = index_.emplace(texture, static_cast<std::uint32_t>(scene_.materials.size()));
    if (added) {
      baker::Material m;
      m.name = texture;
      m.albedo = rgb(texture_albedo(texture), 1);
      m.sky = surface_kind(texture) == SurfaceKind::sky;
      if (auto e = emission_.find(texture); e != emission_.end()) m.emission = rgb(e->second, 1);
      scene_.materials.push_back(m);
    }
    return it->second;
  }

 private:
  baker::Scene& scene_;
  const std::map<std::string, Rgb> emission_;
  std::map<std::string, std::uint32_t> index_;
};

// The selected brushes but those with a clip/hint/origin face; *skipped counts those.
std::vector<Brush> kept_brushes(const QuakeMap& map, const BrushSelection& selection, std::size_t* skipped) {
  std::vector<Brush> brushes;
  for (Brush& brush : build_brushes(map, selection)) {
    bool removed = false;
    for (const BrushFace& f : brush.faces) removed |= surface_kind(f.texture) == SurfaceKind::brush_removed;
    if (removed) {
      ++*skipped;
      continue;
    }
    brushes.push_back(std::move(brush));
  }
  return brushes;
}

// Which brushes hide what lies inside them or against them (qbsp's contents order): a
// closed opaque brush (every face a drawn solid or sky texture, none a fence '{...': a sky
// brush is opaque, a ray that reaches it has reached the sky) hides every face; a closed
// fence brush ('{' textures with solid ones) hides the faces of other fence brushes, a
// closed liquid brush those of other liquid brushes (the faces between two touching ones:
// both are drawn, and nothing is seen through them there). Closed: every face drawn, so
// that cutting a face leaves no hole into the open.
enum class Contents { open, opaque, fence, liquid };

std::vector<Contents> brush_contents(const std::vector<Brush>& brushes, bool include_liquids) {
  std::vector<Contents> contents(brushes.size(), Contents::opaque);
  for (std::size_t i = 0; i < brushes.size(); ++i) {
    bool solid = true, fence = false, liquid = true;
    for (const BrushFace& f : brushes[i].faces) {
      const SurfaceKind kind = surface_kind(f.texture);
      solid &= kind == SurfaceKind::solid || kind == SurfaceKind::sky;
      fence |= kind == SurfaceKind::solid && f.texture.rfind('{', 0) == 0;
      liquid &= kind == SurfaceKind::liquid;
    }
    contents[i] = solid                       ? (fence ? Contents::fence : Contents::opaque)
                  : liquid && include_liquids ? Contents::liquid
                                              : Contents::open;
  }
  return contents;
}

// A triangle in the map's units (double), before the scene is rebased.
struct MapTriangle {
  std::array<Vec3, 3> v;
  std::uint32_t material;
  std::int64_t face;
};

// What became of the brushes' faces, for the notes.
struct FaceCounts {
  std::size_t hidden_sky = 0, liquid = 0;
};

// The visible parts of every drawn face, fanned into triangles: a face's pieces that touch
// share a face id (one chart), pieces that do not touch (a floor cut in two by a wall
// standing on it) get one each, so no bilinear read or dilation reaches across the wall.
// Counts brushes, faces, hidden, cut and sky faces in out.
std::vector<MapTriangle> visible_triangles(const std::vector<Brush>& brushes, const QuakeSceneOptions& options,
                                           Materials& material, QuakeScene& out, FaceCounts& counts) {
  const std::vector<Contents> contents = brush_contents(brushes, options.include_liquids);
  const auto visible = visible_parts(brushes, [&](std::size_t hider, std::size_t hidden) {
    return contents[hider] == Contents::opaque ||
           (contents[hider] != Contents::open && contents[hider] == contents[hidden]);
  });
  std::vector<MapTriangle> triangles;
  std::int64_t face_id = 0;
  for (std::size_t bi = 0; bi < brushes.size(); ++bi) {
    const Brush& brush = brushes[bi];
    bool contributed = false;
    for (std::size_t fi = 0; fi < brush.faces.size(); ++fi) {
      const BrushFace& f = brush.faces[fi];
      const SurfaceKind kind = surface_kind(f.texture);
      if (kind == SurfaceKind::face_removed) continue;
      if (kind == SurfaceKind::liquid && !options.include_liquids) {
        ++counts.liquid;
        continue;
      }
      const auto& pieces = visible[bi][fi];
      const bool sky = kind == SurfaceKind::sky;
      if (pieces.empty()) {
        ++(sky ? counts.hidden_sky : out.hidden_faces);
        continue;
      }
      if (!sky && (pieces.size() > 1 || pieces.front() != f.polygon)) ++out.cut_faces;
      const std::uint32_t m = material(f.texture);
      const std::vector<std::size_t> group = piece_groups(pieces);
      std::size_t groups = 0;
      for (std::size_t g : group) groups = std::max(groups, g + 1);
      for (std::size_t p = 0; p < pieces.size(); ++p) {
        const auto& poly = pieces[p];
        for (std::size_t i = 1; i + 1 < poly.size(); ++i)
          triangles.push_back({{poly[0], poly[i], poly[i + 1]}, m, face_id + static_cast<std::int64_t>(group[p])});
      }
      face_id += static_cast<std::int64_t>(groups);
      ++(sky ? out.sky_faces : out.faces);
      contributed = true;
    }
    out.brushes += contributed;
  }
  return triangles;
}

// The scene's triangles, rebased on their bounds in double (baker/scene/rebase.hpp) before
// they become float; sets scene.origin.
void place_triangles(const std::vector<MapTriangle>& triangles, baker::Scene& scene) {
  baker::WorldBounds world;
  for (const MapTriangle& t : triangles)
    for (const Vec3& v : t.v) world.add({v.x, v.y, v.z});
  scene.origin = baker::rebase_origin(world);
  for (const MapTriangle& m : triangles) {
    baker::Triangle t;
    for (int k = 0; k < 3; ++k) t.v[k] = position(m.v[k], scene.origin);
    t.material = m.material;
    t.face = m.face;
    scene.triangles.push_back(t);
  }
}

void geometry_notes(const std::string& file, std::size_t skipped_brushes, const FaceCounts& counts, QuakeScene& out) {
  if (skipped_brushes > 0)
    out.notes.push_back(file + ": " + std::to_string(skipped_brushes) + " clip/hint/origin brushes left out");
  if (out.hidden_faces + out.cut_faces > 0) {
    out.notes.push_back(file + ": " + std::to_string(out.hidden_faces) +
                        " faces hidden between touching brushes left out, " + std::to_string(out.cut_faces) +
                        " cut to their visible part");
  }
  if (out.sky_faces > 0) {
    out.notes.push_back(file + ": " + std::to_string(out.sky_faces) + " sky faces (" +
                        std::to_string(counts.hidden_sky) + " more hidden): a ray that hits one has reached the sky");
  }
  if (counts.liquid > 0) {
    out.notes.push_back(file + ": " + std::to_string(counts.liquid) +
                        " liquid faces left out (no lightmap in Quake, no shadow in ericw)");
  }
}

// ericw's point lights and spotlights as the baker's (the header's light units), at their
// rebased positions; what has no counterpart is skipped with a note.
void add_point_lights(const std::string& file, const MapLights& lights, QuakeScene& out) {
  baker::Scene& scene = out.scene;
  for (const PointLight& l : lights.lights) {
    if (l.light <= 0) {
      if (l.light < 0) out.notes.push_back(located(file, l.where) + "negative light skipped");
      continue;
    }
    const auto eq = equivalent(l, lights.scaledist);
    if (!eq) {
      out.notes.push_back(located(file, l.where) + "delay 4 (local minlight) light skipped");
      continue;
    }
    baker::Light b;
    b.kind = l.spotlight ? baker::LightKind::spot : baker::LightKind::point;
    b.position = position(l.origin, scene.origin);
    b.intensity = rgb(l.color, eq->intensity / 255);
    b.range = static_cast<float>(eq->range);
    if (l.spotlight) {
      b.direction = to_baker(l.spot_direction);
      b.cone_outer = static_cast<float>(std::cos(l.cone_angle / 2 * kDegree));
      b.cone_inner = static_cast<float>(std::cos(l.soft_angle / 2 * kDegree));
    }
    if (l.formula != Attenuation::inverse_square && l.formula != Attenuation::inverse_square_offset) {
      out.notes.push_back(located(file, l.where) + "delay " + std::to_string(static_cast<int>(l.formula)) +
                          " light approximated by an inverse-square light");
    }
    scene.lights.push_back(b);
  }
}

// Suns and sky domes (no position).
void add_sky_lights(const MapLights& lights, baker::Scene& scene) {
  for (const Sun& s : lights.suns) {
    if (s.light <= 0) continue;
    baker::Light b;
    b.kind = baker::LightKind::sun;
    b.direction = to_baker(s.direction);
    b.intensity = rgb(s.color, kPi * s.light / kEricwUnit / 255);
    scene.lights.push_back(b);
  }
  for (const SkyDome& d : lights.domes) {
    double mean_cos = 0;
    const auto suns = sky_dome_suns(d);
    for (const Sun& s : suns) mean_cos += std::fabs(s.direction.z);
    mean_cos /= static_cast<double>(suns.size());
    baker::Light b;
    b.kind = baker::LightKind::sky;
    b.intensity = rgb(d.color, d.light * mean_cos / kEricwUnit / 255);
    scene.lights.push_back(b);
  }
}

}  // namespace

QuakeScene to_scene(const QuakeMap& map, const QuakeSceneOptions& options) {
  QuakeScene out;
  baker::Scene& scene = out.scene;
  scene.name = std::filesystem::path(map.file).stem().string();
  const MapLights lights = read_lights(map);
  for (const auto& w : lights.warnings) out.notes.push_back(w);

  Materials material(scene, surface_emission(lights));
  std::size_t skipped_brushes = 0;
  const std::vector<Brush> brushes = kept_brushes(map, options.selection, &skipped_brushes);
  FaceCounts counts;
  place_triangles(visible_triangles(brushes, options, material, out, counts), scene);
  geometry_notes(map.file, skipped_brushes, counts, out);

  add_point_lights(map.file, lights, out);
  add_sky_lights(lights, scene);
  if (lights.minlight > 0) {
    out.notes.push_back(map.file + ": worldspawn minlight " + std::to_string(lights.minlight) +
                        " has no counterpart in the baker and is ignored");
  }
  scene.camera = camera(map, scene.origin);
  return out;
}

baker::Scene load_quake_scene(const std::filesystem::path& path, const QuakeSceneOptions& options) {
  try {
    return to_scene(read_quake_map(path), options).scene;
  } catch (const std::runtime_error& e) {  // MapError and unreadable files
    throw baker::SceneError(e.what());
  }
}

}  // namespace mixforge::quake
