#pragma once
// Method + path pattern -> handler. Patterns are literal segments and {name} parameters
// ("/api/v1/runs/{id}/pool"). Unknown paths answer 404, known paths with another method
// 405 with an Allow header. Handlers throw HttpError (and the evolver's errors), which
// become problem responses here, so a handler never has to format an error itself.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "server/http_types.hpp"

namespace mixforge::server {

using Handler = std::function<Response(const Request&)>;

// Where a handler runs: io = on the I/O thread (quick reads); worker = on the blocking
// worker pool (anything that may wait: run control, scoring), answer posted back.
enum class Exec { io, worker };

struct Route {
  std::string method;
  std::string pattern;
  Handler handler;
  Exec exec = Exec::io;
  std::vector<std::string> segments;  // split pattern
  bool mutating() const { return method != "GET" && method != "HEAD"; }
};

class Router {
 public:
  // May answer a request before its handler (e.g. 401). nullopt: go on.
  using Guard = std::function<std::optional<Response>(const Request&, const Route&)>;

  void add(std::string method, std::string pattern, Handler handler, Exec exec = Exec::io);
  // GET requests outside any route's path (e.g. the dashboard's static files).
  void set_fallback(Handler handler) { fallback_ = std::move(handler); }
  void set_guard(Guard guard) { guard_ = std::move(guard); }

  struct Prepared {
    const Route* route = nullptr;       // set: call invoke(*route, request)
    std::optional<Response> immediate;  // set: the answer (404, 405, 401, fallback)
  };
  // Matches and fills request.params; runs the guard. Never throws.
  Prepared prepare(Request& request) const;
  // Calls the handler, turning exceptions into problem responses. Never throws.
  Response invoke(const Route& route, const Request& request) const;
  // prepare + invoke on the calling thread (tests, fuzzing).
  Response handle(Request request) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
  Handler fallback_;
  Guard guard_;
};

// Runs a callable, turning every exception into a problem response (RFC 9457).
Response guarded(const std::function<Response()>& fn, const std::string& instance);

}  // namespace mixforge::server
