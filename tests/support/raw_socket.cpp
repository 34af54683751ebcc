#include "support/raw_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>

namespace mixforge::test {

int try_connect_loopback(int port, int rcvbuf) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (rcvbuf > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int connect_loopback(int port, int rcvbuf) {
  const int fd = try_connect_loopback(port, rcvbuf);
  if (fd < 0) throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " failed");
  return fd;
}

std::size_t send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const auto n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  return sent;
}

std::string raw_exchange(int port, const std::string& bytes, double timeout_s) {
  const int fd = connect_loopback(port);
  send_all(fd, bytes);  // the server may close early (e.g. 413): read what it said
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) {
      // A complete response with Content-Length on a kept-alive connection: stop there.
      const auto he = out.find("\r\n\r\n");
      if (he != std::string::npos) {
        const auto cl = out.find("Content-Length: ");
        if (cl != std::string::npos && cl < he) {
          const std::size_t len = std::stoul(out.substr(cl + 16));
          if (out.size() >= he + 4 + len) break;
        }
      }
      continue;
    }
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace mixforge::test
