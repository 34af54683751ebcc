#pragma once
// A raw TCP client for tests that talk HTTP byte by byte to a daemon on loopback (malformed
// requests, slow readers, half-sent bodies): connecting, sending everything, and one whole
// exchange. The one copy for tests/server, tests/contract and the chaos driver.
#include <cstddef>
#include <string>

namespace mixforge::test {

// A connected socket to 127.0.0.1:port, or -1 when socket() or connect() fails. rcvbuf > 0
// sets SO_RCVBUF before connecting (a small receive window makes the server's writes block).
int try_connect_loopback(int port, int rcvbuf = 0);
// As try_connect_loopback, but throws std::runtime_error when it cannot connect.
int connect_loopback(int port, int rcvbuf = 0);

// Sends all bytes (MSG_NOSIGNAL); stops early when the peer closes or fails, since a server
// may answer and close before the request is in (413, 431). Returns the bytes sent.
std::size_t send_all(int fd, const std::string& bytes);

// Sends raw bytes on a fresh connection and returns everything the server answers before
// closing, or before timeout_s pass; a complete response with Content-Length ends it early
// (a kept-alive connection). Throws when it cannot connect.
std::string raw_exchange(int port, const std::string& bytes, double timeout_s = 5);

}  // namespace mixforge::test
