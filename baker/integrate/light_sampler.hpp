#pragma once
// The emitter distribution of next-event estimation: the scene's emissive triangles picked
// in proportion to their power (area x luminance of the emitted radiance), then a point
// uniform on the picked triangle. Densities are per unit area with the pick included, so the
// integrator converts them to solid angle (dist^2 / cos at the emitter).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "baker/scene/scene.hpp"

namespace mixforge::baker {

// Heitz's low-distortion square -> triangle mapping as pbrt-v4 writes it
// (SampleUniformTriangle): barycentrics (b0, b1, b2) of a uniform point; it keeps strata of
// the square compact on the triangle.
inline Vec3 uniform_triangle(Vec2 u) {
  float b0, b1;
  if (u.x < u.y) {
    b0 = u.x / 2;
    b1 = u.y - b0;
  } else {
    b1 = u.y / 2;
    b0 = u.x - b1;
  }
  return {b0, b1, 1 - b0 - b1};
}

struct LightSample {
  Vec3 point;
  std::uint32_t triangle = 0;  // scene triangle index
  float pdf_area = 0;          // pick probability / triangle area
};

// Keeps a pointer to the scene, which must outlive it.
class LightSampler {
 public:
  explicit LightSampler(const Scene& scene);

  // Emissive triangles with positive area and power (the ones sample() can return).
  std::size_t size() const { return triangles_.size(); }
  bool empty() const { return triangles_.empty(); }
  // Emissive area / all triangle area. In a closed scene of diffuse surfaces this is the mean
  // (over the surface area) probability that a cosine-distributed ray hits an emitter
  // (reciprocity of form factors), i.e. how well hemisphere sampling alone finds the emitters.
  double emissive_area_fraction() const { return area_fraction_; }

  // u in [0,1)^2: u.x picks the triangle (and is rescaled inside the pick's interval), then
  // (u.x', u.y) places the point. Requires !empty().
  LightSample sample(Vec2 u) const;
  // The density sample() gives a point on scene triangle t, per unit area (0 for a triangle
  // it never returns).
  float pdf_area(std::uint32_t t) const { return pdf_area_.empty() ? 0.0f : pdf_area_[t]; }

 private:
  const Scene* scene_;
  std::vector<std::uint32_t> triangles_;  // the emissive triangles, scene order
  std::vector<double> cdf_;               // size() + 1 entries, cdf_[0] = 0, back() = 1
  std::vector<float> pdf_area_;           // per scene triangle (empty when no emitter)
  double area_fraction_ = 0;
};

// How bounce 0 reaches emissive triangles: hemisphere rays only, or those and next-event
// estimation combined by multiple importance sampling. auto takes MIS unless the emitters
// are so large a part of the scene that hemisphere rays find them nearly always (a closed
// furnace, where hemisphere sampling alone has zero variance and MIS would add noise).
enum class LightSampling { automatic, mis, hemisphere };
std::string_view light_sampling_name(LightSampling m);  // "auto", "mis", "hemisphere"
// Throws std::invalid_argument listing the valid names.
LightSampling light_sampling_from_name(std::string_view name);

// auto's threshold on LightSampler::emissive_area_fraction(): hemisphere from here up.
// Measured on a closed box with 1..6 of its 6 faces emissive (direct light, 16 and 64 spp):
// MIS had the lower RMSE up to 4 faces (0.67), the two were about even at 5 (0.83), and at 6
// hemisphere sampling is exact while MIS is not.
inline constexpr double auto_hemisphere_area_fraction = 0.75;

struct LightSamplingChoice {
  LightSampling mode = LightSampling::hemisphere;  // mis or hemisphere: what runs
  std::string why;                                  // one line for the report
};
// No emitter gives hemisphere (there is nothing to sample).
LightSamplingChoice choose_light_sampling(LightSampling requested, const LightSampler& lights);

}  // namespace mixforge::baker
