#pragma once
// The preview: the scene from its camera (or a default one looking at the bounds' centre),
// each pixel the first hit's albedo x lightmap + emission, 2 x 2 rays per pixel.
#include "baker/integrate/atlas.hpp"
#include "baker/integrate/image_io.hpp"
#include "baker/trace/ray_tracer.hpp"

namespace mixforge::baker {

Image render_preview(const Scene& scene, const Atlas& atlas, const Lightmap& lightmap,
                     const RayTracer& tracer, std::uint32_t width, std::uint32_t height);

}  // namespace mixforge::baker
