#version 460
// Closest hit: the triangle, the distance and the barycentrics, as Embree reports them.
#extension GL_EXT_ray_tracing : require
#extension GL_GOOGLE_include_directive : require
#include "ray_common.glsl"

layout(location = 0) rayPayloadInEXT HitPayload payload;
hitAttributeEXT vec2 barycentrics;

void main() {
  payload.triangle = uint(gl_PrimitiveID);
  payload.t = gl_HitTEXT;
  payload.uv = barycentrics;
}
