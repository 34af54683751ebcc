#include "server/http_server.hpp"

#include <sys/socket.h>

#include <atomic>
#include <chrono>
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

#include "server/event_stream.hpp"
#include "server/problem.hpp"
#include "server/query.hpp"

namespace mixforge::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// Shared by every session; outlives them as long as the io_context runs.
struct Shared {
  Shared(HttpServerOptions o, const Router& r, WorkerPool& w, Metrics& m)
      : options(std::move(o)), router(r), workers(w), metrics(m) {}
  HttpServerOptions options;
  const Router& router;
  WorkerPool& workers;
  Metrics& metrics;
  // Worker jobs post their answers only while the I/O side is alive.
  std::mutex alive_mu;
  bool alive = true;
  std::atomic<bool> stopping{false};
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)), sse_timer_(stream_.get_executor()) {}

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_request(); });
  }

 private:
  using Clock = std::chrono::steady_clock;

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
      return send(problem_response(431, "headers-too-large", "request headers exceed the limit of " +
                                                                 std::to_string(shared_->options.max_header_bytes) +
                                                                 " bytes"));
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
    if (qpos == std::string::npos) query.emplace();
    else query = parse_query(std::string_view(req.target).substr(qpos + 1));
    if (!path || !query || path->empty() || path->front() != '/' || path->find('\0') != std::string::npos)
      return send(problem_response(400, "malformed-target", "the request target is not a valid path and query"));
    req.path = std::move(*path);
    req.query = std::move(*query);
    for (const auto& f : msg) {
      std::string name = lower(std::string(f.name_string()));
      auto [it, fresh] = req.headers.emplace(name, std::string(f.value()));
      if (!fresh) it->second += ", " + std::string(f.value());
    }
    req.body = std::move(msg.body());
    gone_ = req.client_gone;

    Router::Prepared p = shared_->router.prepare(req);
    if (p.immediate) {
      if (p.route == nullptr && p.immediate->status != 404 && p.immediate->status != 405) route_ = "static";
      if (p.immediate->status == 401) route_ = "unauthorized";
      return send(std::move(*p.immediate));
    }
    route_ = p.route->pattern;
    if (p.route->exec == Exec::io) return send(shared_->router.invoke(*p.route, req));
    // Worker: hand over, watch the socket for a disconnect meanwhile.
    stream_.expires_never();
    watch_disconnect();
    auto shared = shared_;
    const Route* route = p.route;
    auto self = shared_from_this();
    shared_->workers.post([self, shared, route, req = std::move(req)]() mutable {
      Response r = shared->router.invoke(*route, req);
      std::lock_guard lk(shared->alive_mu);
      if (!shared->alive) return;
      net::post(self->stream_.get_executor(), [self, r = std::move(r)]() mutable {
        self->watching_ = false;
        beast::error_code ignored;
        self->stream_.socket().cancel(ignored);
        self->send(std::move(r));
      });
    });
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

  void send(Response r) {
    if (r.stream) return start_stream(std::move(r));
    record(r.status);
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(11);
    res->result(static_cast<unsigned>(r.status));
    res->set(http::field::server, "mixforge");
    if (!r.content_type.empty()) res->set(http::field::content_type, r.content_type);
    for (const auto& [k, v] : r.headers) res->set(k, v);
    res->body() = std::move(r.body);
    if (method_ == "HEAD") res->body().clear();
    const bool close_after = !keep_alive_ || shared_->stopping || r.status == 413 || r.status == 431 ||
                             (r.status == 400 && method_ == "?");
    res->keep_alive(!close_after);
    res->prepare_payload();
    response_ = res;
    http::async_write(stream_, *res, [self = shared_from_this(), close_after](beast::error_code ec, std::size_t) {
      self->response_.reset();
      if (ec || close_after) return self->close();
      self->read_request();
    });
  }

  // --- Server-Sent Events -------------------------------------------------------------

  void start_stream(Response r) {
    record(r.status);
    sse_ = std::move(r.stream);
    stream_.expires_never();
    sse_out_ =
        "HTTP/1.1 200 OK\r\nServer: mixforge\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\nConnection: close\r\nX-Accel-Buffering: no\r\n\r\n";
    sse_writing_ = true;
    net::async_write(stream_.socket(), net::buffer(sse_out_),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       self->sse_writing_ = false;
                       if (ec) return self->end_stream();
                       auto weak = std::weak_ptr<Session>(self);
                       auto exec = self->stream_.get_executor();
                       self->sse_->set_waker([weak, exec] {
                         if (auto s = weak.lock())
                           net::post(exec, [s] { s->pump(); });
                       });
                       self->arm_keepalive();
                       self->watch_stream_close();
                       self->pump();
                     });
  }

  void pump() {
    if (!sse_ || sse_writing_) return;
    bool closed = false;
    auto frames = sse_->take(&closed);
    if (frames.empty()) {
      if (closed) end_stream();
      return;
    }
    sse_out_.clear();
    for (auto& f : frames) sse_out_ += f;
    write_stream(closed);
  }

  void write_stream(bool then_close) {
    sse_writing_ = true;
    net::async_write(stream_.socket(), net::buffer(sse_out_),
                     [self = shared_from_this(), then_close](beast::error_code ec, std::size_t) {
                       self->sse_writing_ = false;
                       if (ec || then_close) return self->end_stream();
                       self->pump();
                     });
  }

  void arm_keepalive() {
    sse_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(shared_->options.sse_keepalive_s)));
    sse_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->sse_) return;
      if (!self->sse_writing_) {
        self->sse_out_ = ": keepalive\n\n";
        self->write_stream(false);
      }
      self->arm_keepalive();
    });
  }

  // An event-stream client sends nothing after its request: readable means closed.
  void watch_stream_close() {
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->sse_) return;
      char buf[256];
      const auto n = ::recv(self->stream_.socket().native_handle(), buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) return self->watch_stream_close();
      self->end_stream();
    });
  }

  void end_stream() {
    if (sse_) {
      sse_->set_waker({});
      sse_->close();
      sse_.reset();
    }
    beast::error_code ignored;
    sse_timer_.cancel();
    close();
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

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
  // SSE
  std::shared_ptr<SseClient> sse_;
  net::steady_timer sse_timer_;
  std::string sse_out_;
  bool sse_writing_ = false;
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

HttpServer::HttpServer(HttpServerOptions options, const Router& router, WorkerPool& workers, Metrics& metrics)
    : impl_(std::make_unique<Impl>()) {
  impl_->shared = std::make_shared<Shared>(options, router, workers, metrics);
  beast::error_code ec;
  const std::string host = options.bind == "localhost" ? "127.0.0.1" : options.bind;
  const auto address = net::ip::make_address(host, ec);
  if (ec) throw std::runtime_error("cannot listen on \"" + options.bind + "\": not an IP address");
  const tcp::endpoint ep(address, options.port);
  auto fail = [&](const char* what) {
    throw std::runtime_error(std::string("cannot listen on ") + options.bind + ":" +
                             std::to_string(options.port) + ": " + what + ": " + ec.message());
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
