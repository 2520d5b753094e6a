// `lanes demo`: S1 and S2 on lanes (s1_lanes.hpp; docs/benchmarks.md describes both), as a
// table, sparklines and an SVG - the README's main job.
#pragma once

#include <ostream>
#include <string>

namespace lanes::tool {

struct demo_options {
  bool json = false;                        // only the JSON line
  bool quick = false;                       // 8 requests of 200 elements (what CI runs)
  unsigned cpus = 0;                        // run on the first N CPUs of this process's affinity (0: as is)
  std::string svg_path = "lanes-demo.svg";  // empty: no file
};

int run_demo(const demo_options& options, std::ostream& out);

}  // namespace lanes::tool
