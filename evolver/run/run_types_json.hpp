#pragma once
// The wire form (JSON) of the run value types of run_types.hpp: what the HTTP API answers,
// the CLI prints with --json, the store keeps (counters, islands, scored functions) and the
// islands send each other.
#include <nlohmann/json_fwd.hpp>

#include "evolver/run/run_types.hpp"

namespace mixforge::evolver {

nlohmann::json to_json(const ScoredFunction& f);
nlohmann::json to_json(const RunCounters& c);
RunCounters counters_from_json(const nlohmann::json& j);  // missing fields are 0
// The inverse of to_json(ScoredFunction); throws nlohmann::json::exception or ProgramError.
ScoredFunction scored_function_from_json(const nlohmann::json& j);
nlohmann::json to_json(const IslandStatus& s);
// The inverse of to_json (best included); throws nlohmann::json::exception or
// ProgramError on malformed input.
IslandStatus island_status_from_json(const nlohmann::json& j);
nlohmann::json to_json(const RunSummary& s);
nlohmann::json to_json(const ClimbStatus& c);
// The inverse of to_json (ClimbStatus); throws nlohmann::json::exception or ProgramError.
ClimbStatus climb_status_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Progress& p);
nlohmann::json to_json(const HistoryPoint& h);
nlohmann::json to_json(const HallOfFameEntry& e);
nlohmann::json to_json(const PoolPage& p);
nlohmann::json to_json(const RunEvent& e);

}  // namespace mixforge::evolver
