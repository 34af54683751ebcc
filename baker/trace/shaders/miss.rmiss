#version 460
// Miss: no triangle (for occlusion rays too: the raygen shader starts them as "hit").
#extension GL_EXT_ray_tracing : require
#extension GL_GOOGLE_include_directive : require
#include "ray_common.glsl"

layout(location = 0) rayPayloadInEXT HitPayload payload;

void main() { payload.triangle = MIXFORGE_NO_HIT; }
