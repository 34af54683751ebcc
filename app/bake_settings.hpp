#pragma once
// The bake use case's numeric rules (samples per texel, bounces, texel size), one set for
// the command line and the daemon. The daemon caps cost below the model's limits
// (server/jobs/bake_limits.hpp); that cap is its policy, the rules are these.
#include <cstdint>
#include <optional>

namespace mixforge::app {

struct BakePolicy {
  std::uint32_t max_spp = 1u << 20;  // the model's limits; a daemon passes lower caps
  std::uint32_t max_bounces = 64;
};

struct BakeSettings {
  std::uint32_t spp = 256;
  std::uint32_t bounces = 2;
  std::optional<double> texel;  // world units per texel; none: the scene's diagonal / 200
};

struct CheckedBakeSettings {
  std::uint32_t spp = 0;
  std::uint32_t bounces = 0;
  float texel = 0;  // 0: the default
};

// Throws RequestError naming "spp", "bounces" or "texel": spp 1..max, bounces 0..max (code
// "out-of-range" outside the model's limits, "limit-exceeded" above a lower cap), texel a
// positive normal float (1e-300 would round to 0, which means "the default").
CheckedBakeSettings check_bake_settings(const BakeSettings& settings, const BakePolicy& policy = {});

}  // namespace mixforge::app
