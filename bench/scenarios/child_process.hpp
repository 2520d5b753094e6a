// start_child: a program the lab runs in its own process (a Rust peer, an
// S12 server), its stdout on a pipe the lab reads, optionally pinned to
// one CPU. The one fork + exec of the lab.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace lanes::bench {

struct child_process {
  pid_t pid = -1;      // -1: it could not be started
  int stdout_fd = -1;  // the read end of its stdout; the caller closes it
};

// Runs argv[0] with its arguments; `cpu` -1: where the lab may run.
child_process start_child(const std::vector<std::string>& argv, int cpu = -1);

}  // namespace lanes::bench
