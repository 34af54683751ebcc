#include "evolver/store/note.hpp"

#include <nlohmann/json.hpp>

namespace mixforge::evolver {

std::string_view subject_name(NoteSubject s) { return s == NoteSubject::run ? "run" : "function"; }

NoteConflict::NoteConflict(std::uint64_t base_version, std::uint64_t current_version)
    : std::runtime_error("the note was saved as version " + std::to_string(current_version) +
                         " since version " + std::to_string(base_version) +
                         " was read: reload it and apply the change again"),
      current_(current_version) {}

nlohmann::json to_json(const Note& n) {
  return {{"subject", subject_name(n.subject)},
          {"id", n.id},
          {"text", n.text},
          {"version", n.version},
          {"updated_at", n.updated_at ? nlohmann::json(*n.updated_at) : nlohmann::json(nullptr)}};
}

}  // namespace mixforge::evolver
