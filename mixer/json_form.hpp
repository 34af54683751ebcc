#pragma once
// The JSON form (schema/program.schema.json):
// {"width": 32, "steps": [{"kind": "xorshift-right", "shift": 16},
//                         {"kind": "mul-const", "constant": "0x7feb352d"}]}
// Constants are hex strings so 64-bit values survive JavaScript; shift kinds use "shift".
#include <nlohmann/json_fwd.hpp>

#include "mixer/program.hpp"

namespace mixforge::mixer {

nlohmann::json to_json(const Program& program);
// Validates too; throws ProgramError naming the JSON path ("steps[2].constant: ...").
Program program_from_json(const nlohmann::json& j, const ValidationLimits& limits = {});

}  // namespace mixforge::mixer
