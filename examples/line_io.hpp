// Line reading for the examples' little text protocols ("work 50\n").
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <lanes/io/task.hpp>
#include <lanes/net/stream_socket.hpp>

namespace example {

// Reads up to and without '\n'; nullopt if the peer closed first. One byte
// per read: the examples' lines are a few bytes long.
inline lanes::task<std::optional<std::string>> read_line(lanes::net::stream_socket& conn) {
  std::string line;
  std::byte ch[1];
  for (;;) {
    if (co_await conn.read_some(ch) == 0) co_return std::nullopt;
    if (static_cast<char>(ch[0]) == '\n') co_return line;
    line.push_back(static_cast<char>(ch[0]));
  }
}

}  // namespace example
