// /api/v1/runs/{id}/note and /api/v1/functions/{id}/note: the Markdown notes users keep on
// runs and functions (GET, and PUT of the whole text with an optional base_version that
// makes a save over a newer version a 409 instead of a silent overwrite).
#include <nlohmann/json.hpp>

#include "evolver/manager/run_manager.hpp"
#include "server/api/api.hpp"
#include "server/http/problem.hpp"
#include "server/http/query.hpp"
#include "server/api/schema_validator.hpp"

namespace mixforge::server {

namespace {
using evolver::NoteSubject;

Response note_response(const evolver::Note& note) { return Response::json(200, evolver::to_json(note)); }

HttpError function_not_found(const std::string& id) {
  return HttpError(404, "function-not-found", "no function with id " + id + " (and no note on one)");
}

Response get_note(ApiContext& ctx, const Request& req, NoteSubject subject) {
  QueryReader q(req, {});
  const std::string& id = subject == NoteSubject::run ? req.param("id") : function_id_param(req);
  const auto note = ctx.runs.note(subject, id);  // RunNotFound -> 404
  if (!note) throw function_not_found(id);
  return note_response(*note);
}

Response put_note(ApiContext& ctx, const Request& req, NoteSubject subject) {
  QueryReader q(req, {});
  const std::string& id = subject == NoteSubject::run ? req.param("id") : function_id_param(req);
  const nlohmann::json body = parse_json_body(req);
  ctx.schemas.validate("note_request.schema.json", body);
  std::optional<std::uint64_t> base;
  if (body.contains("base_version")) base = body["base_version"].get<std::uint64_t>();
  try {
    const auto note = ctx.runs.set_note(subject, id, body["text"].get<std::string>(), base);
    if (!note) throw function_not_found(id);
    return note_response(*note);
  } catch (const evolver::NoteConflict& e) {
    HttpError conflict(409, "note-conflict", e.what());
    conflict.extensions()["current_version"] = e.current_version();
    throw std::move(conflict).with_field("/base_version");
  }
}
}  // namespace

void add_note_routes(Router& router, ApiContext& ctx) {
  // Notes live in the store: reads on the read lane, saves on the control lane.
  for (const auto& [base, subject] : {std::pair{std::string("/api/v1/runs/{id}/note"), NoteSubject::run},
                                      std::pair{std::string("/api/v1/functions/{id}/note"), NoteSubject::function}}) {
    const NoteSubject s = subject;
    router.add(
        "GET", base, [&ctx, s](const Request& r) { return get_note(ctx, r, s); }, Exec::read);
    router.add(
        "PUT", base, [&ctx, s](const Request& r) { return put_note(ctx, r, s); }, Exec::control);
  }
}

}  // namespace mixforge::server
