#pragma once
// User-given mixers (--mixers, --bundle, --run) on the CPU: each lane's program
// JIT-compiled through jit/ (LLVM ORC) and applied lane by lane in batches.
#include <memory>
#include <vector>

#include "baker/sampling/mixer4.hpp"

namespace mixforge::jit { class Engine; }

namespace mixforge::baker {

// 1..4 programs of width 32 (missing lanes repeat the last, as vec4 export does). Throws
// std::invalid_argument naming the lane that is not 32 bits wide.
std::shared_ptr<const Mixer4> make_jit_mixer4(std::vector<MixerInfo> lanes,
                                              std::shared_ptr<jit::Engine> engine);

// The lanes check shared by both mixer kinds.
std::vector<MixerInfo> complete_lanes(std::vector<MixerInfo> lanes);

}  // namespace mixforge::baker
