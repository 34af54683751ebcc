#pragma once
// The legal state transitions of a run, written down once. The run manager is their only
// user: every change of a run's state goes through transition(), under the run's lock.
//
//   created  --start/resume--> running      running --pause-->  paused
//   created  --stop-->         stopped      running --stop-->   stopped
//   paused   --resume-->       running      running --finish--> finished (budget spent)
//   paused   --stop-->         stopped      running --fail-->   failed   (a worker or the store failed)
//   stopped  --resume-->       running      paused  --fail-->   failed
//   finished --resume-->       running      (with a new budget)
//   failed   --resume-->       running      (retries from the last checkpoint)
//
// Anything else (pause a finished, stopped or created run, stop a stopped or finished
// run, resume a running run, ...) is a RunStateError (HTTP 409). Pausing a paused run is
// not a transition: the manager answers it as a no-op (idempotent, no event).
#include <optional>
#include <string>
#include <string_view>

#include "evolver/run/run_types.hpp"

namespace mixforge::evolver {

enum class RunCommand { start, resume, pause, stop, finish, fail };
std::string_view command_name(RunCommand command);

// The state after command in state from, or nullopt when the transition is illegal.
std::optional<RunState> next_state(RunState from, RunCommand command);
// next_state, or a RunStateError naming the run, its state and the command.
RunState transition(const std::string& run_id, RunState from, RunCommand command);

}  // namespace mixforge::evolver
