#include "baker/integrate/preview.hpp"

#include <tbb/parallel_for.h>

#include <cmath>

#include "baker/integrate/integrator.hpp"

namespace mixforge::baker {

Image render_preview(const Scene& scene, const Atlas& atlas, const Lightmap& lightmap,
                     const RayTracer& tracer, std::uint32_t width, std::uint32_t height) {
  Camera cam;
  if (scene.camera) {
    cam = *scene.camera;
  } else {
    const Bounds b = bounds(scene);
    cam.target = (b.lo + b.hi) * 0.5f;
    cam.position = cam.target + Vec3{0.35f, 0.45f, 1.0f} * (b.diagonal() * 0.9f);
  }
  const Vec3 forward = normalize(cam.target - cam.position);
  const Vec3 right = normalize(cross(forward, cam.up));
  const Vec3 up = cross(right, forward);
  const float tan_half = std::tan(cam.vertical_fov_degrees * 3.14159265f / 360.0f);
  const float aspect = float(width) / float(height);
  Image image{width, height, std::vector<Vec3>(std::size_t{width} * height)};
  tbb::parallel_for(std::uint32_t{0}, height, [&](std::uint32_t y) {
    Ray rays[4];
    Hit hits[4];
    for (std::uint32_t x = 0; x < width; ++x) {
      for (int k = 0; k < 4; ++k) {
        const float px = ((x + 0.25f + 0.5f * (k & 1)) / width * 2 - 1) * tan_half * aspect;
        // The image's left edge: the camera looks along forward with right to the right.
        const float py = (1 - (y + 0.25f + 0.5f * (k >> 1)) / height * 2) * tan_half;
        rays[k].origin = cam.position;
        rays[k].direction = normalize(forward + right * px + up * py);
      }
      tracer.intersect(rays, hits, true);
      Vec3 c{};
      for (int k = 0; k < 4; ++k)
        if (hits[k].triangle != no_hit)  // a one-sided triangle's back shows black
          c += shade(scene, atlas, lightmap, hits[k],
                     dot(atlas.triangle_normal[hits[k].triangle], rays[k].direction) >= 0);
      image.pixels[std::size_t{y} * width + x] = c * 0.25f;
    }
  });
  return image;
}

}  // namespace mixforge::baker
