#pragma once
// One chaos client: a thread that does random API operations with realistic weights
// (reads, control, creates valid and invalid, evaluations, exports, event streams opened
// and abandoned, malformed HTTP on raw sockets) until told to stop, and records every
// answer in the ledger. Each client draws from its own seeded stream.
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "tests/chaos/ledger.hpp"
#include "tests/chaos/target.hpp"

namespace httplib {
class Client;
}

namespace mixforge::chaos {

class Client {
 public:
  Client(int index, std::uint64_t seed, Target& target, Ledger& ledger);
  ~Client();
  void run();  // until target.done

 private:
  struct Answer {
    int status = 0;
    std::string body, content_type;
  };
  // One HTTP exchange; nullopt when there was no answer (recorded as expected or not).
  std::optional<Answer> call(const std::string& op, const std::string& method, const std::string& path,
                             const std::string& body, const std::set<int>& allowed, int timeout_s = 30);
  // Status rules shared by every exchange (5xx, undocumented, unexpected for the op,
  // problem+json on errors, Retry-After on 429).
  void check_status(const std::string& op, const std::string& what, int status, const std::set<int>& allowed,
                    const std::string& content_type, bool has_retry_after, const std::string& body);
  httplib::Client& http();
  bool expected_failure(std::uint64_t epoch_at_start) const;

  void op_list_runs();
  void op_get_run();
  void op_create_run();
  void op_create_invalid();
  void op_control(const std::string& action);
  void op_delete();
  void op_pool();
  void op_best();
  void op_history();
  void op_hall_of_fame();
  void op_function();
  void op_evaluate(bool exact);
  void op_export_get();
  void op_export_post();
  void op_events();
  void op_malformed();
  void op_simple(const std::string& op, const std::string& path);

  std::string random_program(int width);
  std::string run_path(const std::string& suffix = "");
  std::string pick_run_id();

  int index_;
  Rng rng_;
  Target& target_;
  Ledger& ledger_;
  std::unique_ptr<httplib::Client> http_;
  int http_port_ = 0;
  int created_ = 0;
};

}  // namespace mixforge::chaos
