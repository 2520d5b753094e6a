// Finding a program that a lanes tool runs (the benchmark lab, a Rust
// peer): the one an environment variable names - that one only, so that
// a wrong value is not silently replaced - else the one at a path relative
// to the directory of the running program.
#pragma once

#include <string>

namespace lanes::tool {

struct program_location {
  std::string path;       // empty when not found (or the variable names nothing runnable)
  std::string looked_at;  // where it was looked for, for a message
  bool from_env = false;  // the variable was set
};

program_location locate_program(const char* env_var, const std::string& relative_to_self);

bool is_executable(const std::string& path);

}  // namespace lanes::tool
