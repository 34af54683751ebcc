#pragma once
// Embree 3 back end (libembree-dev): one triangle mesh, RTC_SCENE_FLAG_ROBUST (watertight
// edges, so single rays and packets agree), coherent intersect contexts for batches.
#include <memory>

#include "baker/ray_tracer.hpp"

namespace mixforge::baker {

// How a batch reaches Embree: one ray per call (rtcIntersect1, rtcOccluded1), rtcIntersect16
// packets (shadow rays as streams), one stream per batch (rtcIntersect1M, rtcOccluded1M), or
// (measured, the default) for coherent batches one ray per call or streams, whichever is
// measured faster per ray, for closest hits and shadow rays apart (which one wins depends on
// the scene: streams on open surfaces, single rays in clutter).
enum class EmbreeMode { single, packet16, stream, measured };

std::unique_ptr<RayTracer> make_embree_tracer(const Scene& scene,
                                              EmbreeMode mode = EmbreeMode::measured);

}  // namespace mixforge::baker
