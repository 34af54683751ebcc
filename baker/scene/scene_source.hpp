#pragma once
// Scene by name or file: "cornell" (built in), *.obj, or a Quake *.map (read by
// baker/quake/quake_map into its own types and turned into a Scene by baker/quake/quake_scene).
#include <string>

#include "baker/scene/scene.hpp"

namespace mixforge::baker {

Scene load_scene(const std::string& spec);

}  // namespace mixforge::baker
