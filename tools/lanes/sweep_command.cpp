// `lanes sweep` (see sweep_command.hpp).
#include "sweep_command.hpp"

#include <cstdio>
#include <vector>

#include "io_sweep.hpp"
#include "json_writer.hpp"
#include "measure.hpp"

namespace lanes::tool {

int run_sweep(const sweep_options& options, std::ostream& out) {
  const auto plan = io_sweep_plan_for(options.quick);
  char line[128];
  if (!options.json) {
    std::snprintf(line, sizeof line, "io worker sweep: %d tasks of a %llu-step loop then a 1 ms sleep, median of %d\n",
                  plan.tasks, static_cast<unsigned long long>(io_sweep_steps), plan.rounds);
    out << line;
    std::snprintf(line, sizeof line, "  %8s %12s\n", "workers", "wall ms");
    out << line << std::flush;
  }
  json_writer json;
  json.begin_object().field("scenario", "S5").field("tasks", static_cast<unsigned>(plan.tasks)).begin_array("sweep");
  for (const unsigned n : plan.worker_counts) {
    std::vector<double> walls;
    for (int r = 0; r < plan.rounds; ++r) {
      walls.push_back(run_isolated([&] { return std::vector<double>{io_sweep_ms(n, plan.tasks)}; })[0]);
    }
    const double wall = median(walls);
    if (!options.json) {
      std::snprintf(line, sizeof line, "  %8u %12.1f\n", n, wall);
      out << line << std::flush;
    }
    json.begin_object().field("workers", n).field("lanes_wall_ms", wall).end_object();
  }
  json.end_array().end_object();
  out << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::tool
