#pragma once
// Embree 3 back end (libembree-dev): one triangle mesh, RTC_SCENE_FLAG_ROBUST (watertight
// edges, so single rays and packets agree), coherent intersect contexts for batches.
#include <memory>

#include "baker/ray_tracer.hpp"

namespace mixforge::baker {

// How a batch reaches Embree: rtcIntersect1 per ray, rtcIntersect16 packets, one
// rtcIntersect1M stream per batch, or (measured, the default) rtcIntersect1 or streams for
// coherent batches, whichever the first coherent batches measured faster (which one wins
// depends on the scene: streams on open surfaces, single rays in clutter).
enum class EmbreeMode { single, packet16, stream, measured };

std::unique_ptr<RayTracer> make_embree_tracer(const Scene& scene,
                                              EmbreeMode mode = EmbreeMode::measured);

}  // namespace mixforge::baker
