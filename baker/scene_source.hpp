#pragma once
// Scene by name or file: "cornell" (built in), *.obj. Quake .map files are read by
// baker/quake_map (its own types) and turned into a Scene by an adapter; until that lands
// a .map gives a clear error here.
#include <string>

#include "baker/scene.hpp"

namespace mixforge::baker {

Scene load_scene(const std::string& spec);

}  // namespace mixforge::baker
