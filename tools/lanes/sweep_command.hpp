// `lanes sweep`: the io worker sweep (io_sweep.hpp) as a curve - wall time
// for 1, 2, 4, 8, 16 and 64 workers, which should bottom out near the
// budget's CPU count and rise past it.
#pragma once

#include <ostream>

namespace lanes::tool {

struct sweep_options {
  bool json = false;   // only the JSON line
  bool quick = false;  // 2,000 tasks over 1, 2 and 4 workers, once each
};

int run_sweep(const sweep_options& options, std::ostream& out);

}  // namespace lanes::tool
