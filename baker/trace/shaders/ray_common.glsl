// Shared by the ray-tracing shaders of baker/trace/vulkan_tracer.cpp: the payload the closest-hit
// and miss shaders fill in, and the "no hit" triangle id (baker/trace/ray_tracer.hpp's no_hit).
#define MIXFORGE_NO_HIT 0xffffffffu

struct HitPayload {
  uint triangle;  // primitive index in the scene's one triangle geometry, or MIXFORGE_NO_HIT
  float t;
  vec2 uv;        // barycentrics of vertices 1 and 2
};
