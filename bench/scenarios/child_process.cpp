// start_child (child_process.hpp).
#include "child_process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>

namespace lanes::bench {

child_process start_child(const std::vector<std::string>& argv, int cpu) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return {};
  std::fflush(stdout);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      ::sched_setaffinity(0, sizeof set, &set);
    }
    ::dup2(out[1], STDOUT_FILENO);  // the copy does not inherit O_CLOEXEC
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    return {};
  }
  return {pid, out[0]};
}

}  // namespace lanes::bench
