#pragma once
// The default mixer family: a same-kind vec4 family found by mixforge itself (see
// baker/sampling/default_family.md), compiled into the baker as the C++ that `mixforge export`
// wrote (baker/sampling/default_family.hpp), with its exact scores from the shipped bundle.
#include <memory>
#include <string_view>

#include "baker/sampling/mixer4.hpp"

namespace mixforge::baker {

std::shared_ptr<const Mixer4> default_mixer4();

// The bundle the family ships as (mixforge export --bundle), embedded at build time.
std::string_view default_family_bundle();

}  // namespace mixforge::baker
