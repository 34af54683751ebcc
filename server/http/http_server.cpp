#include "server/http/http_server.hpp"

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <variant>
#include <csignal>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/http/event_stream.hpp"
#include "server/http/problem.hpp"
#include "server/http/query.hpp"

namespace mixforge::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// Shared by every session; outlives them as long as the io_context runs.
struct Shared {
  Shared(HttpServerOptions o, const Router& r, Lanes l, Metrics& m, Log& lg, const HttpPolicy* p)
      : options(std::move(o)), router(r), lanes(l), metrics(m), log(lg), policy(p) {}
  HttpServerOptions options;
  const Router& router;
  Lanes lanes;
  Metrics& metrics;
  Log& log;
  const HttpPolicy* policy;
  // Worker jobs post their answers only while the I/O side is alive.
  std::mutex alive_mu;
  bool alive = true;
  std::atomic<bool> stopping{false};
};

using Clock = std::chrono::steady_clock;

// One access-log line per request; never a header (the token stays out of logs).
void access_log(const Shared& shared, const std::string& method, const std::string& route, Clock::time_point t0,
                int status, std::size_t bytes) {
  if (!shared.log.enabled(LogLevel::info)) return;
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  shared.log.info("http.request", {{"method", std::string(bounded_method(method))},
                                   {"route", route},
                                   {"status", status},
                                   {"ms", std::round(ms * 1000) / 1000},
                                   {"bytes", bytes}});
}

// Shuts the connection down both ways and closes it; errors (a socket already closed) are moot.
void close_connection(beast::tcp_stream& stream) {
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream.socket().close(ec);
}

// --- Server-Sent Events -----------------------------------------------------------------

// One event stream: takes over the connection from the HTTP session whose response had a
// stream (as Beast's examples hand a connection from the HTTP session to a WebSocket
// session), writes the header, then the client's frames as they come and keepalive comments
// in between. It lives while it has an operation pending; it ends (and closes the socket and
// frees the client's slot) when the client closes, the stream ends, or a write stalls for
// sse_write_timeout_s. Runs on the connection's strand.
class EventStreamSession : public std::enable_shared_from_this<EventStreamSession> {
 public:
  // The access-log line of the request that opened the stream, written when it ends.
  struct Request {
    std::string method, route;
    Clock::time_point t0;
    std::vector<std::pair<std::string, std::string>> extra_headers;  // CORS
  };

  EventStreamSession(tcp::socket&& socket, std::shared_ptr<Shared> shared, std::shared_ptr<SseClient> client,
                     Request request)
      : stream_(std::move(socket)),
        shared_(std::move(shared)),
        client_(std::move(client)),
        request_(std::move(request)),
        timer_(stream_.get_executor()) {}

  void start() {
    stream_.expires_never();
    if (shared_->options.sse_send_buffer_bytes > 0) {
      beast::error_code ignored;
      stream_.socket().set_option(net::socket_base::send_buffer_size(shared_->options.sse_send_buffer_bytes), ignored);
    }
    out_ =
        "HTTP/1.1 200 OK\r\nServer: mixforge\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\nConnection: close\r\nX-Accel-Buffering: no\r\n";
    for (const auto& [k, v] : request_.extra_headers) out_ += k + ": " + v + "\r\n";
    out_ += "\r\n";
    writing_ = true;
    expire_write();
    net::async_write(stream_, net::buffer(out_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->writing_ = false;
      self->bytes_ += n;
      if (ec) return self->end(ec);
      self->stream_.expires_never();
      auto weak = std::weak_ptr<EventStreamSession>(self);
      auto exec = self->stream_.get_executor();
      self->client_->set_waker([weak, exec] {
        if (auto s = weak.lock()) net::post(exec, [s] { s->pump(); });
      });
      self->arm_keepalive();
      self->watch_close();
      self->pump();
    });
  }

 private:
  void pump() {
    if (!client_ || writing_) return;
    bool closed = false;
    auto frames = client_->take(&closed);
    if (frames.empty()) {
      if (closed) end();
      return;
    }
    out_.clear();
    for (auto& f : frames) out_ += f;
    write(closed);
  }

  // A client that stops reading fills the socket buffers and then blocks our write:
  // after sse_write_timeout_s the stream closes the socket and the client's slot is free.
  void expire_write() {
    stream_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(shared_->options.sse_write_timeout_s)));
  }

  void write(bool then_close) {
    writing_ = true;
    expire_write();
    net::async_write(stream_, net::buffer(out_),
                     [self = shared_from_this(), then_close](beast::error_code ec, std::size_t n) {
                       self->writing_ = false;
                       self->bytes_ += n;
                       if (ec || then_close) return self->end(ec);
                       self->stream_.expires_never();
                       self->pump();
                     });
  }

  void arm_keepalive() {
    timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(shared_->options.sse_keepalive_s)));
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->client_) return;
      if (!self->writing_) {
        self->out_ = ": keepalive\n\n";
        self->write(false);
      }
      self->arm_keepalive();
    });
  }

  // An event-stream client sends nothing after its request: readable means closed.
  void watch_close() {
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->client_) return;
      char buf[256];
      const auto n = ::recv(self->stream_.socket().native_handle(), buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) return self->watch_close();
      self->end();
    });
  }

  void end(beast::error_code ec = {}) {
    if (ec == beast::error::timeout) {
      shared_->metrics.sse_dropped();
      shared_->log.warn("sse.dropped",
                        {{"reason", "client stopped reading"}, {"timeout_s", shared_->options.sse_write_timeout_s}});
    }
    if (client_ && !logged_) {
      logged_ = true;
      access_log(*shared_, request_.method, request_.route, request_.t0, 200, bytes_);
    }
    if (client_) {
      client_->set_waker({});
      client_->close();
      client_.reset();
    }
    beast::error_code ignored;
    timer_.cancel();
    close();
  }

  void close() { close_connection(stream_); }

  beast::tcp_stream stream_;
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<SseClient> client_;
  const Request request_;
  net::steady_timer timer_;
  std::string out_;
  bool writing_ = false, logged_ = false;
  std::size_t bytes_ = 0;
};

// One HTTP connection: reads requests, routes them (on the I/O thread or a lane), writes the
// answers; a response with a stream hands the connection over to an EventStreamSession.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {}

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_request(); });
  }

 private:
  void read_request() {
    if (shared_->stopping) return close();
    parser_.emplace();
    parser_->body_limit(shared_->options.max_body_bytes);
    parser_->header_limit(static_cast<std::uint32_t>(shared_->options.max_header_bytes));
    stream_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(shared_->options.idle_timeout_s)));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == net::error::eof) return close();
    if (ec == beast::error::timeout || ec == net::error::operation_aborted) return close();
    t0_ = Clock::now();
    route_ = "unmatched";
    extra_headers_.clear();
    if (ec == http::error::body_limit) {
      method_ = parser_->is_header_done() ? std::string(parser_->get().method_string()) : "?";
      keep_alive_ = false;
      return send(problem_response(413, "body-too-large",
                                   "request body exceeds the limit of " +
                                       std::to_string(shared_->options.max_body_bytes) + " bytes"));
    }
    if (ec == http::error::header_limit) {
      method_ = "?";
      keep_alive_ = false;
      return send(problem_response(431, "headers-too-large",
                                   "request headers exceed the limit of " +
                                       std::to_string(shared_->options.max_header_bytes) + " bytes"));
    }
    if (ec) {
      // Transport errors end the connection; HTTP syntax errors get a 400 first.
      if (ec.category() != http::make_error_code(http::error::bad_target).category()) return close();
      method_ = "?";
      keep_alive_ = false;
      return send(problem_response(400, "malformed-http", "malformed HTTP request: " + ec.message()));
    }
    auto& msg = parser_->get();
    method_ = std::string(msg.method_string());
    keep_alive_ = msg.keep_alive();
    Request req;
    req.method = method_;
    req.target = std::string(msg.target());
    const auto qpos = req.target.find('?');
    auto path = percent_decode(std::string_view(req.target).substr(0, qpos), false);
    std::optional<std::vector<std::pair<std::string, std::string>>> query;
    if (qpos == std::string::npos)
      query.emplace();
    else
      query = parse_query(std::string_view(req.target).substr(qpos + 1));
    if (!path || !query || path->empty() || path->front() != '/' || path->find('\0') != std::string::npos)
      return send(problem_response(400, "malformed-target", "the request target is not a valid path and query"));
    req.path = std::move(*path);
    req.query = std::move(*query);
    for (const auto& f : msg) {
      std::string name = ascii_lower(std::string_view(f.name_string().data(), f.name_string().size()));
      auto [it, fresh] = req.headers.emplace(name, std::string(f.value()));
      if (!fresh) it->second += ", " + std::string(f.value());
    }
    req.body = std::move(msg.body());
    gone_ = req.client_gone;

    Router::Prepared p = shared_->router.prepare(req);
    if (shared_->policy)
      extra_headers_ =
          shared_->policy->cors_headers(req, req.method == "OPTIONS" ? shared_->router.allowed_methods(req.path)
                                                                     : std::string());
    // Route labels come from a fixed set: route patterns, "static", "misdirected", "unmatched".
    if (p.route)
      route_ = p.route->pattern;
    else if (p.immediate->status == 421)
      route_ = "misdirected";
    else if (!is_api_path(req.path) && (req.method == "GET" || req.method == "HEAD"))
      route_ = "static";
    if (p.immediate) return send(std::move(*p.immediate));
    switch (p.route->exec) {
      case Exec::io: return send(shared_->router.invoke(*p.route, req));
      case Exec::scoring: return admit_scoring(*p.route, std::move(req));
      case Exec::read:
      case Exec::control: break;
    }
    // A lane thread: hand over, watch the socket for a disconnect meanwhile.
    stream_.expires_never();
    watch_disconnect();
    auto shared = shared_;
    const Route* route = p.route;
    auto self = shared_from_this();
    WorkerPool& lane = p.route->exec == Exec::read ? shared_->lanes.read : shared_->lanes.control;
    lane.post([self, shared, route, req = std::move(req)]() mutable {
      answer_from_lane(self, shared, shared->router.invoke(*route, req));
    });
  }

  // Posts an answer computed on a lane thread back to the session's strand.
  static void answer_from_lane(const std::shared_ptr<Session>& self, const std::shared_ptr<Shared>& shared,
                               Response r) {
    std::lock_guard lk(shared->alive_mu);
    if (!shared->alive) return;
    net::post(self->stream_.get_executor(), [self, r = std::move(r)]() mutable {
      self->watching_ = false;
      beast::error_code ignored;
      self->stream_.socket().cancel(ignored);
      self->send(std::move(r));
    });
  }

  // Scoring: cheap checks here (or on the read lane, for routes whose cheap part reads the
  // store), then admitted (or refused with 429) before any scoring thread is taken; an
  // admitted job runs on the evaluation queue's own threads. A job that carries its answer
  // (a cached report) is answered at once.
  void admit_scoring(const Route& route, Request req) {
    stream_.expires_never();
    watch_disconnect();
    auto shared = shared_;
    auto self = shared_from_this();
    if (route.admit_on == Exec::read) {
      const Route* r = &route;
      shared_->lanes.read.post([self, shared, r, req = std::move(req)]() mutable {
        if (auto answer = admit_and_submit(self, shared, *r, req)) answer_from_lane(self, shared, std::move(*answer));
      });
      return;
    }
    if (auto answer = admit_and_submit(self, shared, route, req)) {
      watching_ = false;
      beast::error_code ignored;
      stream_.socket().cancel(ignored);
      send(std::move(*answer));
    }
  }

  // The immediate answer (a problem, a refusal, a job's own answer), or nullopt when the
  // job was queued (it answers through answer_from_lane). Any thread.
  static std::optional<Response> admit_and_submit(const std::shared_ptr<Session>& self,
                                                  const std::shared_ptr<Shared>& shared, const Route& route,
                                                  const Request& req) {
    auto admitted = shared->router.admit(route, req);
    if (auto* r = std::get_if<Response>(&admitted)) return std::move(*r);
    ScoringJob job = std::get<ScoringJob>(std::move(admitted));
    if (job.answer) return std::move(*job.answer);
    auto gone = req.client_gone;
    try {
      shared->lanes.scoring.submit(job.costly, gone,
                                   [self, shared, gone, run = std::move(job.run), path = req.path](bool cancelled) {
                                     Response r =
                                         !cancelled ? guarded(run, path)
                                         : gone->load()
                                             ? problem_response(499, "client-closed-request",
                                                                "the client went away before its evaluation started",
                                                                nlohmann::json::object(), path)
                                             : problem_response(503, "shutting-down", "the server is shutting down",
                                                                nlohmann::json::object(), path);
                                     answer_from_lane(self, shared, std::move(r));
                                   });
    } catch (const HttpError& e) {
      return problem_response(e, req.path);
    }
    return std::nullopt;
  }

  // A readable socket while the worker runs: either the client closed (recv peeks 0
  // bytes) or it pipelined its next request (then stop watching).
  void watch_disconnect() {
    watching_ = true;
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->watching_) return;
      char c;
      const auto n = ::recv(self->stream_.socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        if (self->gone_) self->gone_->store(true);
        self->watching_ = false;
      } else if (n < 0) {
        self->watch_disconnect();
      } else {
        self->watching_ = false;
      }
    });
  }

  void record(int status) {
    const double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    shared_->metrics.observe(route_, method_, status, s);
  }

  void access_log(int status, std::size_t bytes) { server::access_log(*shared_, method_, route_, t0_, status, bytes); }

  template <class Res>
  void set_common(Res& res, const Response& r) {
    res.version(11);
    res.result(static_cast<unsigned>(r.status));
    res.set(http::field::server, "mixforge");
    if (!r.content_type.empty()) res.set(http::field::content_type, r.content_type);
    for (const auto& [k, v] : r.headers) res.set(k, v);
    for (const auto& [k, v] : extra_headers_) res.set(k, v);
  }

  void send(Response r) {
    if (r.stream && method_ == "HEAD") {
      // The same headers as the stream's, no stream (and no event-stream slot held).
      r.stream->close();
      r.stream.reset();
      r.headers.emplace_back("Cache-Control", "no-cache");
    }
    if (r.stream) return hand_over_to_stream(std::move(r));
    record(r.status);
    const bool close_after = !keep_alive_ || shared_->stopping || r.status == 413 || r.status == 431 ||
                             (r.status == 400 && method_ == "?") || r.content_type == "text/event-stream";
    auto done = [self = shared_from_this(), close_after](beast::error_code ec, std::size_t) {
      self->response_.reset();
      if (ec || close_after) return self->close();
      self->read_request();
    };
    if (method_ == "HEAD") {
      // RFC 9110 9.3.2: the GET's headers, Content-Length included, and no body.
      auto res = std::make_shared<http::response<http::empty_body>>();
      set_common(*res, r);
      if (r.status != 204 && r.status != 304 && r.content_type != "text/event-stream")
        res->content_length(r.body.size());
      res->keep_alive(!close_after);
      access_log(r.status, 0);
      response_ = res;
      return http::async_write(stream_, *res, std::move(done));
    }
    auto res = std::make_shared<http::response<http::string_body>>();
    set_common(*res, r);
    res->body() = std::move(r.body);
    res->keep_alive(!close_after);
    res->prepare_payload();
    access_log(r.status, res->body().size());
    response_ = res;
    http::async_write(stream_, *res, std::move(done));
  }

  // The connection now carries an event stream: the EventStreamSession takes its socket and
  // writes the header; this session ends when its last handler returns.
  void hand_over_to_stream(Response r) {
    record(r.status);
    stream_.expires_never();
    std::make_shared<EventStreamSession>(stream_.release_socket(), shared_, std::move(r.stream),
                                         EventStreamSession::Request{method_, route_, t0_, extra_headers_})
        ->start();
  }

  void close() { close_connection(stream_); }

  beast::tcp_stream stream_;
  std::shared_ptr<Shared> shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<void> response_;
  std::shared_ptr<std::atomic<bool>> gone_;
  bool watching_ = false;
  bool keep_alive_ = true;
  std::string method_ = "?", route_ = "unmatched";
  Clock::time_point t0_;
  std::vector<std::pair<std::string, std::string>> extra_headers_;  // CORS
};

}  // namespace

struct HttpServer::Impl {
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  net::signal_set signals{ioc};
  net::steady_timer grace{ioc};
  std::shared_ptr<Shared> shared;
  std::function<void()> stop_hook;
  std::once_flag stop_once;
  int signal_number = 0;

  void accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
        return accept();  // e.g. too many open files: keep serving the others
      }
      std::make_shared<Session>(std::move(socket), shared)->start();
      accept();
    });
  }

  void begin_stop() {
    std::call_once(stop_once, [this] {
      shared->stopping = true;
      beast::error_code ec;
      acceptor.close(ec);
      signals.cancel(ec);
      if (stop_hook) stop_hook();
      grace.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(shared->options.shutdown_grace_s)));
      grace.async_wait([this](beast::error_code) { ioc.stop(); });
    });
  }
};

HttpServer::HttpServer(HttpServerOptions options, const Router& router, Lanes lanes, Metrics& metrics, Log& log,
                       const HttpPolicy* policy)
    : impl_(std::make_unique<Impl>()) {
  impl_->shared = std::make_shared<Shared>(options, router, lanes, metrics, log, policy);
  beast::error_code ec;
  const std::string host = options.bind == "localhost" ? "127.0.0.1" : options.bind;
  const auto address = net::ip::make_address(host, ec);
  if (ec) throw std::runtime_error("cannot listen on \"" + options.bind + "\": not an IP address");
  const tcp::endpoint ep(address, options.port);
  auto fail = [&](const char* what) {
    throw std::runtime_error(std::string("cannot listen on ") + options.bind + ":" + std::to_string(options.port) +
                             ": " + what + ": " + ec.message());
  };
  impl_->acceptor.open(ep.protocol(), ec);
  if (ec) fail("open");
  impl_->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  impl_->acceptor.bind(ep, ec);
  if (ec) fail("bind");
  impl_->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) fail("listen");
}

HttpServer::~HttpServer() {
  {
    std::lock_guard lk(impl_->shared->alive_mu);
    impl_->shared->alive = false;
  }
}

unsigned short HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpServer::on_stop(std::function<void()> hook) { impl_->stop_hook = std::move(hook); }

int HttpServer::run() {
  impl_->signals.add(SIGINT);
  impl_->signals.add(SIGTERM);
  impl_->signals.async_wait([this](beast::error_code ec, int sig) {
    if (ec) return;
    impl_->signal_number = sig;
    impl_->begin_stop();
  });
  impl_->accept();
  const unsigned n = std::max(1u, impl_->shared->options.io_threads);
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < n; ++i) threads.emplace_back([this] { impl_->ioc.run(); });
  impl_->ioc.run();
  for (auto& t : threads) t.join();
  {
    std::lock_guard lk(impl_->shared->alive_mu);
    impl_->shared->alive = false;
  }
  return impl_->signal_number;
}

void HttpServer::stop() {
  net::post(impl_->ioc, [this] { impl_->begin_stop(); });
}

}  // namespace mixforge::server
