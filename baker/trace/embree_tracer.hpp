#pragma once
// Embree 3 back end (libembree-dev): one triangle mesh, RTC_SCENE_FLAG_ROBUST (watertight
// edges), coherent intersect contexts for batches.
#include <memory>

#include "baker/trace/ray_tracer.hpp"

namespace mixforge::baker {

// How a batch reaches Embree: one ray per call (rtcIntersect1, rtcOccluded1), rtcIntersect16
// packets (shadow rays as streams), one stream per batch (rtcIntersect1M, rtcOccluded1M),
// coherent_streams (the default: one stream per coherent batch, one ray per call otherwise;
// streams were the faster on the Cornell box and the open sheet, README "Coherence"),
// or measured: for coherent batches one ray per call or streams, whichever is measured faster
// per ray, for closest hits and shadow rays apart (which one wins depends on the scene:
// streams on open surfaces, single rays in clutter).
//
// The ways do not always give the same hits: where two triangles lie in one plane (Quake
// brushes that touch) a ray meets both at the same distance, or one ulp apart, and which
// one is returned depends on the traversal. So measured, whose way for a batch depends on
// timing and on the order in which threads call, is not reproducible; it is kept for the
// coherence benchmark only. The other modes give every batch the same hits on every run.
enum class EmbreeMode { single, packet16, stream, coherent_streams, measured };

std::unique_ptr<RayTracer> make_embree_tracer(const Scene& scene,
                                              EmbreeMode mode = EmbreeMode::coherent_streams);

}  // namespace mixforge::baker
