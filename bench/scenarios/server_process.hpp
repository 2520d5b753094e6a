// server_process: a server program the lab starts in its own process (S12:
// lanes-echo and its peers), pinned to one CPU, that keeps lanes-echo's
// contract - its first line on stdout is `listening on 127.0.0.1:PORT`.
// The destructor stops it (SIGTERM, then SIGKILL if it lingers).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lanes::bench {

class server_process {
 public:
  // Starts argv[0] with its arguments, on `cpu` (-1: where the lab may
  // run), and waits up to 10 s for its first line. ok() says whether it came.
  server_process(const std::vector<std::string>& argv, int cpu);
  ~server_process();
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;

  bool ok() const noexcept { return port_ != 0; }
  std::uint16_t port() const noexcept { return port_; }
  const std::string& failure() const noexcept { return failure_; }  // why not ok()
  // CPU time its threads have run, in ns (/proc/PID/task/*/schedstat).
  std::uint64_t cpu_ns() const;

 private:
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  std::string failure_;
};

}  // namespace lanes::bench
