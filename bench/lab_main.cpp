// `lanes-bench`: the benchmark lab's program. Each scenario runs lanes and
// its peers in the same invocation and prints ratios against them.
//   lanes-bench sN [--json] [--quick]   one scenario
//   lanes-bench list                    the scenarios there are
// Installed next to the `lanes` command, it also answers `lanes bench ...`.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenario.hpp"

namespace {

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lanes-bench: lanes against its peers, scenario by scenario (docs/benchmarks.md)", "lanes-bench"};
  std::string scenario_id;
  lanes::bench::options opts;
  std::vector<std::string> ids{"list"};
  for (const auto& s : lanes::bench::all_scenarios()) ids.emplace_back(s.id);
  app.add_option("scenario", scenario_id, "Which scenario ('list' lists them)")->required()->check(CLI::IsMember(ids));
  app.add_flag("--json", opts.json, "Print only the JSON line");
  app.add_flag("--quick", opts.quick, "A short run (what the lab's tests run)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "lanes-bench: " << e.what() << "\n\n" << app.help();
    return exit_usage;
  }

  try {
    for (const auto& s : lanes::bench::all_scenarios()) {
      if (scenario_id == "list") std::cout << "  " << s.id << "  " << s.title << '\n';
      if (scenario_id == s.id) return s.run(opts);
    }
  } catch (const std::exception& e) {
    std::cerr << "lanes-bench: " << e.what() << '\n';
    return exit_failed;
  }
  return 0;
}
