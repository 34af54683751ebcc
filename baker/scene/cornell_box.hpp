#pragma once
// The built-in Cornell box: the published geometry (Cornell University Program of Computer
// Graphics, "Cornell Box Data", measured in millimetres; here scaled by 0.01), Tungsten's
// RGB reflectances and area light (Benedikt Bitterli's rendering resources).
#include "baker/scene/scene.hpp"

namespace mixforge::baker {

Scene cornell_box();

}  // namespace mixforge::baker
