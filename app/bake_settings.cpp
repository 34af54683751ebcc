#include "app/bake_settings.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "app/request_error.hpp"

namespace mixforge::app {

namespace {
void check_range(const char* field, std::uint64_t v, std::uint64_t lo, std::uint64_t cap, std::uint64_t model_max) {
  if (v < lo || v > model_max)
    throw RequestError(field, "out-of-range",
                       std::string(field) + " must be " + std::to_string(lo) + ".." + std::to_string(model_max) +
                           ", got " + std::to_string(v));
  if (v > cap)
    throw RequestError(field, "limit-exceeded",
                       std::string(field) + " " + std::to_string(v) + " is above this server's limit of " +
                           std::to_string(cap));
}
}  // namespace

CheckedBakeSettings check_bake_settings(const BakeSettings& s, const BakePolicy& policy) {
  const BakePolicy model;
  check_range("spp", s.spp, 1, policy.max_spp, model.max_spp);
  check_range("bounces", s.bounces, 0, policy.max_bounces, model.max_bounces);
  CheckedBakeSettings out{s.spp, s.bounces, 0};
  if (s.texel) {
    const double v = *s.texel;
    if (!(v > 0) || !std::isfinite(v) || v > std::numeric_limits<float>::max() ||
        v < std::numeric_limits<float>::min())
      throw RequestError("texel", "out-of-range",
                         "texel must be a positive number, 1.2e-38 to 3.4e38 (a float), got " + std::to_string(v));
    out.texel = static_cast<float>(v);
  }
  return out;
}

}  // namespace mixforge::app
