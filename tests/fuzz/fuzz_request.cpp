// libFuzzer target: request handling of JSON bodies. The first byte picks the endpoint
// (POST /runs, /runs/{id}/resume, /evaluate) and a content type; the rest is the body.
// Every input must end in a value or an HttpError / ConfigError / app::RequestError naming
// the problem: any
// other exception would be a 500 from the daemon and aborts here.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/request_error.hpp"
#include "server/http/problem.hpp"
#include "server/api/request_parsing.hpp"
#include "server/api/schema_validator.hpp"

using namespace mixforge;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const server::SchemaSet schemas;
  if (size == 0) return 0;
  server::Request req;
  req.method = "POST";
  req.body.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  static const char* types[] = {"application/json", "", "application/json; charset=utf-8", "text/plain"};
  const std::string type = types[(data[0] >> 4) & 3];
  if (!type.empty()) req.headers["content-type"] = type;
  server::ApiLimits limits;
  try {
    switch (data[0] % 3) {
      case 0: {
        const auto config = server::parse_run_request(req, schemas);
        // What the daemon stores must itself be a valid configuration document.
        if (!schemas.check("run.schema.json", evolver::to_json(config)).empty()) std::abort();
        break;
      }
      case 1:
        server::parse_resume_request(req, schemas);
        break;
      default: {
        const auto plan = server::parse_evaluate_request(req, schemas, limits);
        if (!plan.scoring.exact && plan.scoring.samples > limits.max_samples) std::abort();
        break;
      }
    }
  } catch (const server::HttpError& e) {
    if (e.status() < 400 || e.status() > 499) std::abort();
    const auto r = server::problem_response(e);
    if (!schemas.check("problem.schema.json", nlohmann::json::parse(r.body)).empty()) std::abort();
  } catch (const evolver::ConfigError&) {
  } catch (const app::RequestError& e) {
    // The router's 422: it must name a field.
    if (e.field().empty()) std::abort();
  }
  return 0;
}
