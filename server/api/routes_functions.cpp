// /api/v1/functions/{id} (a function with its avalanche matrix and inverse) and
// /api/v1/hall-of-fame.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/evaluator.hpp"
#include "evolver/manager/run_manager.hpp"
#include "evolver/run/run_types_json.hpp"
#include "mixer/inverse.hpp"
#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"
#include "server/api/api.hpp"
#include "server/http/problem.hpp"
#include "server/http/query.hpp"

namespace mixforge::server {

namespace {
// Widths up to this get an exact matrix on the function page; wider ones 2^18 samples
// (a fraction of a second, and the page says which).
constexpr int matrix_exact_max_width = 20;
constexpr std::uint64_t matrix_samples = 1u << 18;

nlohmann::json matrix_rows(const std::vector<double>& m, int n) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < n; ++j) row.push_back(m[static_cast<std::size_t>(i) * n + j]);
    rows.push_back(std::move(row));
  }
  return rows;
}

Response get_function(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {"matrix"});
  const bool with_matrix = q.boolean("matrix").value_or(true);
  const std::string& id = function_id_param(req);
  auto f = ctx.runs.function(id);
  if (!f) throw HttpError(404, "function-not-found", "no function with id " + id);
  nlohmann::json j = evolver::to_json(*f);
  const mixer::Program inv = mixer::inverse(f->program);
  j["inverse"] = {{"id", inv.id()},
                  {"text", mixer::format_program(inv)},
                  {"short", mixer::format_short(inv)},
                  {"program", mixer::to_json(inv)}};
  if (with_matrix) {
    const int n = f->program.width();
    const avalanche::ScoredCounts scored =
        ctx.evaluator.scored_counts(f->program, n <= matrix_exact_max_width, matrix_samples, 1);
    const avalanche::AvalancheCounts& counts = scored.counts;
    const avalanche::Score& s = scored.score;
    j["matrix"] = {{"exact", counts.exact},
                   {"samples", s.samples},
                   {"chi2", s.chi2},
                   {"chi2_corrected", s.chi2_corrected},
                   {"rows", matrix_rows(avalanche::avalanche_matrix(counts), n)}};
  }
  return Response::json(200, j);
}

Response get_hall_of_fame(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {"width", "max_steps", "limit", "run_id"});
  const auto width = q.integer("width", 1, 64);
  const auto max_steps = q.integer("max_steps", 1, 64);
  const auto limit = q.integer("limit", 1, static_cast<std::int64_t>(ctx.limits.max_page)).value_or(100);
  const std::string run_id = q.string("run_id").value_or("");
  // Filters and the page are applied in SQL, on the hall_of_fame_rank indexes (ordered by
  // width, exact first, then chi2): the route never reads more rows than it answers.
  evolver::HallOfFameQuery hq;
  hq.run_id = run_id;
  if (width) hq.width = static_cast<int>(*width);
  if (max_steps) hq.max_steps = static_cast<int>(*max_steps);
  hq.limit = static_cast<std::size_t>(limit);
  nlohmann::json items = nlohmann::json::array();
  // 404 for a run id that is neither a run nor in the hall of fame (a deleted run's
  // entries stay, and its id still selects them).
  for (const auto& e : ctx.runs.hall_of_fame(hq).items) {
    nlohmann::json item = evolver::to_json(e);
    // At most two keyed reads per row (standard, then quick) on the read lane; never
    // computes a report.
    item["quality"] = evolver::stored_quality_summary(ctx.runs, e.function.id);
    items.push_back(std::move(item));
  }
  return Response::json(200, {{"items", std::move(items)}});
}
}  // namespace

const std::string& function_id_param(const Request& req) {
  const std::string& id = req.param("id");
  const bool ok = id.size() == 16 && std::all_of(id.begin(), id.end(), [](char c) {
                    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                  });
  if (!ok)
    throw HttpError(404, "function-not-found",
                    "no function with id " +
                        nlohmann::json(id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                        " (ids are 16 lowercase hex digits)");
  return id;
}

void add_function_routes(Router& router, ApiContext& ctx) {
  router.add(
      "GET", "/api/v1/functions/{id}", [&ctx](const Request& r) { return get_function(ctx, r); }, Exec::read);
  router.add(
      "GET", "/api/v1/hall-of-fame", [&ctx](const Request& r) { return get_hall_of_fame(ctx, r); }, Exec::read);
}

}  // namespace mixforge::server
