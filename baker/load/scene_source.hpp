#pragma once
// Scene by name or file: "cornell" (built in), *.obj, or a Quake *.map (read by
// baker/quake/quake_map into its own types and turned into a Scene by baker/quake/quake_scene).
// Its own room above scene/ and quake/, which it joins: quake/ stands on scene/'s types, so
// scene/ may not include quake/.
#include <string>

#include "baker/scene/scene.hpp"

namespace mixforge::baker {

// Throws SceneError naming the file (and line) or the unknown name.
Scene load_scene(const std::string& spec);

}  // namespace mixforge::baker
