#include "evolver/run/run_state_machine.hpp"

namespace mixforge::evolver {

std::string_view command_name(RunCommand c) {
  switch (c) {
    case RunCommand::start: return "start";
    case RunCommand::resume: return "resume";
    case RunCommand::pause: return "pause";
    case RunCommand::stop: return "stop";
    case RunCommand::finish: return "finish";
    case RunCommand::fail: return "fail";
  }
  return "?";
}

std::optional<RunState> next_state(RunState from, RunCommand c) {
  using S = RunState;
  using C = RunCommand;
  switch (from) {
    case S::created:
      if (c == C::start || c == C::resume) return S::running;
      if (c == C::stop) return S::stopped;
      break;
    case S::running:
      if (c == C::pause) return S::paused;
      if (c == C::stop) return S::stopped;
      if (c == C::finish) return S::finished;
      if (c == C::fail) return S::failed;
      break;
    case S::paused:
      if (c == C::resume) return S::running;
      if (c == C::stop) return S::stopped;
      if (c == C::fail) return S::failed;
      break;
    case S::stopped:
    case S::finished:
    case S::failed:
      if (c == C::resume) return S::running;
      break;
  }
  return std::nullopt;
}

RunState transition(const std::string& run_id, RunState from, RunCommand c) {
  if (auto to = next_state(from, c)) return *to;
  throw RunStateError("run " + run_id + " is " + std::string(state_name(from)) + ": cannot " +
                      std::string(command_name(c)) + " it");
}

}  // namespace mixforge::evolver
