// Convex brushes: a Quake brush is the intersection of its faces' half-spaces.
//
// intersect_half_spaces() clips a large cube (+-bound) by every plane, the way qbsp builds
// brush windings: each plane's polygon (and each cube side's) starts as a huge square on that
// plane and is clipped by all the other planes. A face whose polygon vanishes (a redundant
// plane that only touches the solid along an edge or a point, or lies outside it) yields
// nothing; a surviving cube side means the planes do not close the solid. Points within
// kPlaneEpsilon of a plane count as on it, so coplanar edges and corners do not split.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "baker/quake/quake_map.hpp"

namespace mixforge::quake {

inline constexpr double kPlaneEpsilon = 1e-5;  // map units: coordinates are usually integers

struct Plane {
  Vec3 normal;          // unit, pointing out of the solid
  double distance = 0;  // the solid is where dot(normal, x) <= distance
};

struct ConvexPolygon {
  std::vector<Vec3> vertices;  // counter-clockwise seen from outside (right hand on `plane.normal`)
  int plane = -1;  // index into the input planes, or -1 - side for a side of the bounding cube
};

struct ConvexPolyhedron {
  std::vector<ConvexPolygon> faces;
  // False when a side of the bounding cube survived: the planes do not enclose a finite solid.
  bool bounded = true;
};

ConvexPolyhedron intersect_half_spaces(std::span<const Plane> planes,
                                       double bound = 2 * kMaxCoordinate);
double polygon_area(const std::vector<Vec3>& polygon);
// A convex polygon cut by a plane: the part in front (dot(normal, x) > distance) and the part
// behind, each convex and tidied (empty when nothing of area remains). Points within
// kPlaneEpsilon of the plane count as on it; a polygon with every vertex on the plane is
// `on` (front and back empty).
struct PolygonSplit {
  std::vector<Vec3> front, back;
  bool on = false;
};
PolygonSplit split_polygon(const std::vector<Vec3>& polygon, const Plane& plane);
// Volume by the divergence theorem (sum of signed pyramid volumes from the origin).
double polyhedron_volume(const ConvexPolyhedron& solid);

// A brush face that survived clipping.
struct BrushFace {
  std::vector<Vec3> polygon;  // convex, counter-clockwise seen from outside, >= 3 vertices
  Vec3 normal;                // outward unit normal
  double distance = 0;
  std::string texture;
  TextureProjection projection;  // for UVs, in texels
  Location where;                // the face line
};

struct Brush {
  std::vector<BrushFace> faces;
  std::size_t entity = 0;  // index into QuakeMap::entities
  Location where;          // the brush's '{'
};

// The solid of one brush. Throws MapError (at the brush) when its planes do not close a
// finite solid or enclose no volume. A face repeating an earlier face's plane is dropped.
Brush build_brush(const BrushDef& brush, const std::string& file, std::size_t entity);

// Which entities' brushes make up the static scene. The default is the world and the brush
// entities that qbsp merges into it or that never move: worldspawn, func_group (TrenchBroom
// groups and layers, except layers marked "_tb_layer_omit_from_export"), func_detail,
// func_detail_wall, func_detail_illusionary, func_detail_fence, func_wall and
// func_illusionary. Movers (doors, plats, buttons, trains), triggers and any other brush
// entity stay in QuakeMap::entities for callers that want them, but are not part of it.
struct BrushSelection {
  std::vector<std::string> classnames = {"worldspawn",
                                         "func_group",
                                         "func_detail",
                                         "func_detail_wall",
                                         "func_detail_illusionary",
                                         "func_detail_fence",
                                         "func_wall",
                                         "func_illusionary"};
  bool selects(const Entity& entity) const;
};

// Builds every brush of the selected entities, in file order (throws MapError as above).
std::vector<Brush> build_brushes(const QuakeMap& map, const BrushSelection& selection = {});

// What is left of each brush face once the parts hidden inside other brushes are cut away,
// as qbsp's CSG does (ericw-tools' ClipInside conventions): a part of a face of brush a is
// hidden by brush b (b != a, hides(b, a)) when it lies inside b or on b's surface facing
// into b (two brushes back to back hide both touching faces); where two faces lie in one
// plane facing the same way (overlapping brushes), the later brush's face is kept and the
// earlier one's part under it is cut. visible[a][f] lists the convex pieces of brush a's
// face f: the face's own polygon when nothing of it is hidden, none when all of it is.
// Pieces of one face meet along shared edges or not at all; piece_groups() tells which.
std::vector<std::vector<std::vector<std::vector<Vec3>>>> visible_parts(
    const std::vector<Brush>& brushes,
    const std::function<bool(std::size_t hider, std::size_t hidden)>& hides);
// Groups the pieces of one face into connected parts (pieces that share a stretch of edge
// longer than kPlaneEpsilon): group[i] for piece i, numbered from 0 in order of first piece.
std::vector<std::size_t> piece_groups(const std::vector<std::vector<Vec3>>& pieces);

}  // namespace mixforge::quake
