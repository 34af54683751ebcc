#pragma once
// The JSON form of a run's checkpoint (pool, counters, RNG states, best), for what leaves
// the process whole: the checkpoints of an island run's other ranks travel to rank 0 in
// it and are stored in it (Store::put_island_checkpoint). The store keeps rank 0's own
// checkpoint in columns; both use the member and RNG forms below.
#include <nlohmann/json_fwd.hpp>

#include "evolver/run/run.hpp"

namespace mixforge::evolver {

nlohmann::json to_json(const Member& member);
Member member_from_json(const nlohmann::json& j);
// RNG states as arrays of four 16-digit hex words (JSON numbers stop at 2^53).
nlohmann::json rng_states_to_json(const std::vector<Rng::State>& states);
std::vector<Rng::State> rng_states_from_json(const nlohmann::json& j);

// The restart clocks of a checkpoint: {"stagnation": ClockState, "trap": ClockState}, or null
// where it has none.
nlohmann::json clocks_to_json(const Checkpoint& checkpoint);
// Sets both clocks, or neither for null. Throws std::invalid_argument naming the part.
void clocks_from_json(const nlohmann::json& j, Checkpoint& checkpoint);

// A checkpoint's session budget: {"budget": {"seconds"?, "tournaments"?}, "start_tournaments",
// "start_elapsed_s"}. Throws std::invalid_argument naming the field.
nlohmann::json to_json(const SessionBudget& session);
SessionBudget session_budget_from_json(const nlohmann::json& j);

nlohmann::json to_json(const Checkpoint& checkpoint);
// Throws std::invalid_argument naming the field on a malformed document. A document
// without "clocks" (written before checkpoints kept them) gives a checkpoint without.
Checkpoint checkpoint_from_json(const nlohmann::json& j);

}  // namespace mixforge::evolver
