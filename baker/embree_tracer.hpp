#pragma once
// Embree 3 back end (libembree-dev): one triangle mesh, RTC_SCENE_FLAG_ROBUST (watertight
// edges, so single rays and packets agree), coherent intersect contexts for batches.
#include <memory>

#include "baker/ray_tracer.hpp"

namespace mixforge::baker {

// How batches are traced: one rtcIntersect1 per ray, or 16-wide packets (rtcIntersect16).
enum class EmbreeMode { single, packet16 };

std::unique_ptr<RayTracer> make_embree_tracer(const Scene& scene,
                                              EmbreeMode mode = EmbreeMode::single);

}  // namespace mixforge::baker
