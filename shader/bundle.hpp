#pragma once
// The bundle: one JSON document with the programs and the code for every target (what
// the lightmap baker consumes). Layout:
// {"format": "mixforge-shader-bundle", "version": 1, "name": "mix32_...",
//  "variant": {"vec4": false, "seeded": false, "inverse": false, "range": null|"jitter"|"fraction"},
//  "programs": [{"id", "width", "text", "short", "program": <program JSON>, "score": null|{...}}],
//  "code": {"glsl": "...", "hlsl": "...", ...},       // every target that can express it
//  "unsupported": {"wgsl": "why not"}}                // the rest, with the reason
#include <nlohmann/json.hpp>

#include "shader/export.hpp"

namespace mixforge::shader {

// request.target is ignored: every target is exported. Throws ExportError when the
// request itself is bad (no target could be exported).
nlohmann::json export_bundle(const ExportRequest& request);

}  // namespace mixforge::shader
