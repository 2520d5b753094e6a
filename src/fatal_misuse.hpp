// fatal_misuse: the one way lanes reports a misuse it cannot throw for
// (it is found in a destructor, where an exception would terminate anyway,
// and carrying on would deadlock): a line on stderr naming it, then abort.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace lanes::detail {

[[noreturn]] inline void abort_on_misuse(const char* what) noexcept {
  std::fprintf(stderr, "lanes: %s; aborting\n", what);
  std::abort();
}

}  // namespace lanes::detail
