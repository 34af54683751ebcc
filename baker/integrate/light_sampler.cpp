#include "baker/integrate/light_sampler.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace mixforge::baker {
namespace {

// Rec. 709 luminance: an emitter's weight per unit area (its colour's perceived power).
double emitted_luminance(Vec3 c) { return 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; }

}  // namespace

LightSampler::LightSampler(const Scene& scene) : scene_(&scene) {
  std::vector<double> power;
  double total_area = 0, emissive_area = 0;
  for (std::uint32_t i = 0; i < scene.triangles.size(); ++i) {
    const Triangle& t = scene.triangles[i];
    const double area = 0.5 * double(length(cross(t.v[1] - t.v[0], t.v[2] - t.v[0])));
    total_area += area;
    const double p = area * emitted_luminance(scene.materials.at(t.material).emission);
    if (!(p > 0)) continue;  // not emissive, or a degenerate triangle
    emissive_area += area;
    triangles_.push_back(i);
    power.push_back(p);
  }
  area_fraction_ = total_area > 0 ? emissive_area / total_area : 0;
  if (triangles_.empty()) return;
  cdf_.assign(1, 0.0);
  double sum = 0;
  for (double p : power) cdf_.push_back(sum += p);
  for (double& c : cdf_) c /= sum;
  cdf_.back() = 1;
  pdf_area_.assign(scene.triangles.size(), 0.0f);
  for (std::size_t k = 0; k < triangles_.size(); ++k) {
    const Triangle& t = scene.triangles[triangles_[k]];
    const double area = 0.5 * double(length(cross(t.v[1] - t.v[0], t.v[2] - t.v[0])));
    pdf_area_[triangles_[k]] = static_cast<float>((cdf_[k + 1] - cdf_[k]) / area);
  }
}

LightSample LightSampler::sample(Vec2 u) const {
  // The first k with cdf_[k + 1] > u.x; an interval of zero width is never picked.
  const auto it = std::upper_bound(cdf_.begin() + 1, cdf_.end(), double(u.x));
  const std::size_t k = std::min<std::size_t>(it - cdf_.begin() - 1, triangles_.size() - 1);
  // Reuse u.x inside the interval: the point gets a full 2-D stratified sample.
  const double x = (double(u.x) - cdf_[k]) / (cdf_[k + 1] - cdf_[k]);
  const float ux = std::clamp(static_cast<float>(x), 0.0f, 0x1.fffffep-1f);
  const std::uint32_t ti = triangles_[k];
  const Triangle& t = scene_->triangles[ti];
  const Vec3 b = uniform_triangle({ux, u.y});
  return {t.v[0] * b.x + t.v[1] * b.y + t.v[2] * b.z, ti, pdf_area_[ti]};
}

std::string_view light_sampling_name(LightSampling m) {
  switch (m) {
    case LightSampling::automatic: return "auto";
    case LightSampling::mis: return "mis";
    case LightSampling::hemisphere: return "hemisphere";
  }
  return "?";
}

LightSampling light_sampling_from_name(std::string_view name) {
  for (LightSampling m : {LightSampling::automatic, LightSampling::mis, LightSampling::hemisphere})
    if (light_sampling_name(m) == name) return m;
  throw std::invalid_argument("unknown light sampling '" + std::string(name) + "' (auto, mis, hemisphere)");
}

LightSamplingChoice choose_light_sampling(LightSampling requested, const LightSampler& lights) {
  if (lights.empty()) return {LightSampling::hemisphere, "no emissive triangles"};
  char fraction[64];
  std::snprintf(fraction, sizeof fraction, "%.4g %% of the area", 100 * lights.emissive_area_fraction());
  if (requested == LightSampling::mis) return {LightSampling::mis, "requested"};
  if (requested == LightSampling::hemisphere) return {LightSampling::hemisphere, "requested"};
  if (lights.emissive_area_fraction() < auto_hemisphere_area_fraction)
    return {LightSampling::mis, std::string("auto: emitters are ") + fraction};
  return {LightSampling::hemisphere,
          std::string("auto: emitters are ") + fraction + ", hemisphere rays find them"};
}

}  // namespace mixforge::baker
