#pragma once
// The HTTP/1.1 server (Boost.Beast over Asio; Beast appears only in http_server.cpp):
// an acceptor and one session type per protocol on a connection. The HTTP session reads
// requests; handlers run on the lane their route names (router.hpp: io, read, control,
// scoring) and their answers are posted back to the connection's strand; while a lane
// handles a request the session watches the socket, so a client that disconnects marks its
// request cancelled. A response with a stream hands the connection over to an event-stream
// session (Server-Sent Events) until the stream ends; a client that stops reading them is
// dropped after a bounded time.
#include <functional>
#include <memory>
#include <string>

#include "server/http/evaluation_queue.hpp"
#include "server/http/http_policy.hpp"
#include "server/http/logging.hpp"
#include "server/http/metrics.hpp"
#include "server/http/router.hpp"
#include "server/http/worker_pool.hpp"

namespace mixforge::server {

struct HttpServerOptions {
  std::string bind = "127.0.0.1";
  unsigned short port = 8080;  // 0: an ephemeral port (see port())
  unsigned io_threads = 2;
  std::size_t max_body_bytes = 1u << 20;
  std::size_t max_header_bytes = 16u << 10;
  double idle_timeout_s = 30;       // a connection that sends nothing this long is closed
  double sse_keepalive_s = 15;      // comment lines keep idle event streams open through proxies
  double sse_write_timeout_s = 10;  // an event-stream write stalled this long drops the client
  // Kernel send buffer of an event stream (0: the system's default). Events are small;
  // a modest buffer bounds the memory a stalled client holds and lets the write timeout
  // notice it early.
  int sse_send_buffer_bytes = 64 << 10;
  double shutdown_grace_s = 0.3;  // in-flight responses get this long after a stop signal
};

// Where handlers run (router.hpp Exec); nothing is shared between the lanes.
struct Lanes {
  WorkerPool& read;
  WorkerPool& control;
  EvaluationQueue& scoring;
};

class HttpServer {
 public:
  // Binds and listens (throws std::runtime_error naming the address on failure).
  // log: one access line per request (method, route template, status, duration, bytes).
  // policy: CORS headers for allowed cross origins (nullptr: none).
  HttpServer(HttpServerOptions options, const Router& router, Lanes lanes, Metrics& metrics, Log& log,
             const HttpPolicy* policy = nullptr);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  unsigned short port() const;
  // Called once on an I/O thread when a stop begins (signal or stop()), before the
  // grace period: close event streams, refuse queued work.
  void on_stop(std::function<void()> hook);
  // Serves on io_threads threads until stop() or SIGINT/SIGTERM; returns the signal
  // number that stopped it (0 for stop()).
  int run();
  void stop();  // thread-safe

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixforge::server
