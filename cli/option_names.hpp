#pragma once
// How the command line spells a request's field (app::RequestError::field): "samples" is
// the option --samples, "program" the PROGRAM argument; a path below a field keeps its
// tail ("program.steps[2].constant" -> "PROGRAM steps[2].constant"). A few of a run's
// fields have options of another name ("pool_size" is --pool, "budget.seconds" --seconds).
#include <string>

namespace mixforge::cli {

std::string option_for_field(const std::string& field);

}  // namespace mixforge::cli
