#pragma once
// Method + path pattern -> handler. Patterns are literal segments and {name} parameters
// ("/api/v1/runs/{id}/pool"). Unknown paths answer 404, known paths with another method
// 405 with an Allow header; HEAD is answered by every GET route (the server drops the
// body) and OPTIONS by every known path (204 with Allow). Handlers throw HttpError (and
// the evolver's errors), which become problem responses here, so a handler never has to
// format an error itself.
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "server/http/http_types.hpp"

namespace mixforge::server {

using Handler = std::function<Response(const Request&)>;

// Where a handler runs. io: on the I/O thread (no store access, no waiting). read: the
// read lane (SQLite reads). control: the control lane (run control, export; may wait for
// a checkpoint). scoring: admitted by the evaluation queue first (429 at once when full),
// then scored on its own threads. The lanes share no threads, so control and reads never
// wait behind scoring.
enum class Exec { io, read, control, scoring };

// A scoring request after its cheap checks (parsed, validated): whether it may wait in
// the bounded queue, and the work itself; or, when `answer` is set, the answer found
// without scoring (a cached report), which takes no scoring slot.
struct ScoringJob {
  bool costly = false;
  std::function<Response()> run;
  std::optional<Response> answer;
};
using ScoringHandler = std::function<ScoringJob(const Request&)>;

struct Route {
  std::string method;
  std::string pattern;
  Handler handler;         // io, read, control
  ScoringHandler scoring;  // scoring
  Exec exec = Exec::io;
  // Scoring routes: where the cheap part runs: the I/O thread, or the read lane when it
  // reads the store (e.g. a cache lookup).
  Exec admit_on = Exec::io;
  std::vector<std::string> segments;  // split pattern
  bool mutating() const { return method != "GET" && method != "HEAD"; }
};

class Router {
 public:
  // May answer a request before its handler (e.g. 401). nullopt: go on.
  using Guard = std::function<std::optional<Response>(const Request&, const Route&)>;
  // Runs on every request before matching (e.g. the Host check). nullopt: go on.
  using Precheck = std::function<std::optional<Response>(const Request&)>;

  void add(std::string method, std::string pattern, Handler handler, Exec exec = Exec::io);
  void add_scoring(std::string method, std::string pattern, ScoringHandler handler, Exec admit_on = Exec::io);
  // GET requests outside any route's path (e.g. the dashboard's static files).
  void set_fallback(Handler handler) { fallback_ = std::move(handler); }
  void set_guard(Guard guard) { guard_ = std::move(guard); }
  void set_precheck(Precheck check) { precheck_ = std::move(check); }

  struct Prepared {
    const Route* route = nullptr;       // the matched route (nullptr: none)
    std::optional<Response> immediate;  // set: the answer (404, 405, 401, OPTIONS, fallback), not the route
  };
  // Matches and fills request.params; runs the precheck and the guard. Never throws.
  Prepared prepare(Request& request) const;
  // Calls the handler, turning exceptions into problem responses. Never throws. A
  // scoring route is admitted and run on the calling thread.
  Response invoke(const Route& route, const Request& request) const;
  // A scoring route's cheap part: the job to admit, or the answer when it failed.
  std::variant<Response, ScoringJob> admit(const Route& route, const Request& request) const;
  // prepare + invoke on the calling thread (tests, fuzzing).
  Response handle(Request request) const;
  // "GET, HEAD, POST, OPTIONS": the methods of the routes at a path ("" for none).
  std::string allowed_methods(const std::string& path) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
  Handler fallback_;
  Guard guard_;
  Precheck precheck_;
};

// Runs a callable, turning every exception into a problem response (RFC 9457).
Response guarded(const std::function<Response()>& fn, const std::string& instance);

// Whether a path is under the API (static files elsewhere).
bool is_api_path(const std::string& path);

}  // namespace mixforge::server
