#pragma once
// A Markdown note a user keeps on a run or on a function (optuna-dashboard's notes): free
// text, stored in the database beside what it describes. Every save bumps the version; a
// save may name the version it edited (base_version), and a save over a newer version is
// refused (NoteConflict), so two tabs never overwrite each other silently.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace mixforge::evolver {

enum class NoteSubject { run, function };
std::string_view subject_name(NoteSubject s);

// Characters (Unicode code points) of Markdown a note may hold.
constexpr std::size_t max_note_chars = 65536;

struct Note {
  NoteSubject subject = NoteSubject::run;
  std::string id;    // the run's or the function's id
  std::string text;  // Markdown; empty: no note
  std::uint64_t version = 0;          // 0: never saved
  std::optional<double> updated_at;   // unix seconds of the last save
};

class NoteConflict : public std::runtime_error {
 public:
  NoteConflict(std::uint64_t base_version, std::uint64_t current_version);
  std::uint64_t current_version() const { return current_; }

 private:
  std::uint64_t current_;
};

nlohmann::json to_json(const Note& note);

}  // namespace mixforge::evolver
