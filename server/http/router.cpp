#include "server/http/router.hpp"

#include <nlohmann/json.hpp>

#include "app/request_error.hpp"
#include "evolver/search/run_config.hpp"
#include "evolver/run/run_types.hpp"
#include "mixer/text_form.hpp"
#include "server/http/problem.hpp"

namespace mixforge::server {

namespace {
std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

bool match_segments(const Route& r, const std::vector<std::string>& parts, std::map<std::string, std::string>* params) {
  if (r.segments.size() != parts.size()) return false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& s = r.segments[i];
    if (s.size() > 2 && s.front() == '{' && s.back() == '}') {
      if (parts[i].empty()) return false;
      if (params) (*params)[s.substr(1, s.size() - 2)] = parts[i];
    } else if (s != parts[i]) {
      return false;
    }
  }
  return true;
}
}  // namespace

void Router::add(std::string method, std::string pattern, Handler handler, Exec exec) {
  Route r;
  r.method = std::move(method);
  r.segments = split_path(pattern);
  r.pattern = std::move(pattern);
  r.handler = std::move(handler);
  r.exec = exec == Exec::scoring ? Exec::control : exec;
  routes_.push_back(std::move(r));
}

void Router::add_scoring(std::string method, std::string pattern, ScoringHandler handler, Exec admit_on) {
  Route r;
  r.admit_on = admit_on == Exec::read ? Exec::read : Exec::io;
  r.method = std::move(method);
  r.segments = split_path(pattern);
  r.pattern = std::move(pattern);
  r.scoring = std::move(handler);
  r.exec = Exec::scoring;
  routes_.push_back(std::move(r));
}

bool is_api_path(const std::string& path) { return path.rfind("/api/", 0) == 0 || path == "/api"; }

std::string Router::allowed_methods(const std::string& path) const {
  const auto parts = split_path(path);
  const bool trailing = path.size() > 1 && path.back() == '/';
  std::vector<std::string> methods;
  if (!trailing)
    for (const Route& r : routes_)
      if (match_segments(r, parts, nullptr)) {
        methods.push_back(r.method);
        if (r.method == "GET") methods.push_back("HEAD");
      }
  if (methods.empty()) return "";
  methods.push_back("OPTIONS");
  std::string allow;
  for (const auto& m : methods) allow += (allow.empty() ? "" : ", ") + m;
  return allow;
}

Router::Prepared Router::prepare(Request& request) const {
  Prepared p;
  if (precheck_) {
    p.immediate = precheck_(request);
    if (p.immediate) return p;
  }
  const auto parts = split_path(request.path);
  // A trailing slash is a different resource: "/api/v1/runs/" is not "/api/v1/runs".
  const bool trailing = request.path.size() > 1 && request.path.back() == '/';
  // HEAD is GET without the body (RFC 9110 9.3.2): same handler, same headers.
  const std::string& method = request.method == "HEAD" ? std::string("GET") : request.method;
  if (!trailing) {
    for (const Route& r : routes_) {
      if (r.method == method && match_segments(r, parts, &request.params)) {
        p.route = &r;
        break;
      }
    }
  }
  if (p.route) {
    if (guard_) p.immediate = guard_(request, *p.route);  // the answer when set; route kept for labels
    return p;
  }
  const std::string allow = allowed_methods(request.path);
  const bool api = is_api_path(request.path);
  if (request.method == "OPTIONS" && (!allow.empty() || !api)) {
    Response r;
    r.status = 204;
    r.content_type.clear();
    r.headers.emplace_back("Allow", allow.empty() ? "GET, HEAD, OPTIONS" : allow);
    p.immediate = std::move(r);
    return p;
  }
  if (!allow.empty()) {
    Response r =
        problem_response(405, "method-not-allowed",
                         "method " + request.method + " is not allowed on " + request.path + "; allowed: " + allow,
                         nlohmann::json::object(), request.path);
    r.headers.emplace_back("Allow", allow);
    p.immediate = std::move(r);
    return p;
  }
  if (!api && fallback_ && (request.method == "GET" || request.method == "HEAD")) {
    const Handler& fb = fallback_;
    p.immediate = guarded([&] { return fb(request); }, request.path);
    return p;
  }
  p.immediate =
      problem_response(404, "not-found", "no resource at " + request.path, nlohmann::json::object(), request.path);
  return p;
}

namespace {
Response guarded_inner(const std::function<Response()>& fn, const std::string& instance) {
  try {
    return fn();
  } catch (const HttpError& e) {
    return problem_response(e, instance);
  } catch (const evolver::RunNotFound& e) {
    return problem_response(404, "run-not-found", e.what(), nlohmann::json::object(), instance);
  } catch (const evolver::RunStateError& e) {
    return problem_response(409, "run-state-conflict", e.what(), nlohmann::json::object(), instance);
  } catch (const app::RequestError& e) {
    // A use case's rule (app/): 422 naming the field as a JSON pointer, and where in the
    // program text when the error points into it.
    nlohmann::json ext = {{"field", path_to_pointer(e.field())}};
    if (e.position()) {
      ext["line"] = e.position()->line;
      ext["column"] = e.position()->column;
    }
    return problem_response(422, e.code(), e.what(), ext, instance);
  } catch (const evolver::ConfigError& e) {
    return problem_response(422, "invalid-run-config", e.what(), {{"field", path_to_pointer(e.field())}}, instance);
  } catch (const mixer::ParseError& e) {
    return problem_response(422, "invalid-program", e.what(),
                            {{"field", "/program"}, {"line", e.line()}, {"column", e.column()}}, instance);
  } catch (const mixer::ProgramError& e) {
    return problem_response(422, "invalid-program", e.what(), {{"field", "/program"}}, instance);
  } catch (const nlohmann::json::exception& e) {
    // A JSON value of an unexpected shape that the schema let through.
    return problem_response(400, "invalid-json-value", e.what(), nlohmann::json::object(), instance);
  } catch (const std::bad_alloc&) {
    return problem_response(503, "out-of-memory", "the server ran out of memory for this request",
                            nlohmann::json::object(), instance);
  } catch (const std::exception& e) {
    return problem_response(500, "internal-error", e.what(), nlohmann::json::object(), instance);
  }
}

}  // namespace

Response guarded(const std::function<Response()>& fn, const std::string& instance) {
  try {
    return guarded_inner(fn, instance);
  } catch (...) {
    // Formatting the problem itself failed (e.g. out of memory): a fixed answer.
    Response r;
    r.status = 500;
    r.content_type = "application/problem+json";
    r.body =
        R"({"type":"https://mixforge.invalid/problems/internal-error","title":"Internal Server Error","status":500,"detail":"the error could not be reported"})";
    return r;
  }
}

std::variant<Response, ScoringJob> Router::admit(const Route& route, const Request& request) const {
  std::optional<ScoringJob> job;
  Response error = guarded(
      [&] {
        job = route.scoring(request);
        return Response();
      },
      request.path);
  if (job) return std::move(*job);
  return error;
}

Response Router::invoke(const Route& route, const Request& request) const {
  if (route.exec != Exec::scoring) return guarded([&] { return route.handler(request); }, request.path);
  auto admitted = admit(route, request);
  if (auto* r = std::get_if<Response>(&admitted)) return std::move(*r);
  ScoringJob& job = std::get<ScoringJob>(admitted);
  if (job.answer) return std::move(*job.answer);
  return guarded(job.run, request.path);
}

Response Router::handle(Request request) const {
  Prepared p = prepare(request);
  if (p.immediate) return std::move(*p.immediate);
  return invoke(*p.route, request);
}

}  // namespace mixforge::server
