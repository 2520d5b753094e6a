// The `lanes` command: what a user runs to see what lanes sees.
//   lanes demo [--json] [--cpus N]    the seeds' experiment: CPU work inline vs offloaded
//   lanes sweep [--json] [--quick]    the io worker sweep (S5) as a curve
//   lanes budget [--json]             the CPU budget and the lane split, and why
//   lanes bench sN [--json] [--quick] a scenario of SCENARIOS.md, lanes against its peer
//   lanes bench list                  the scenarios there are
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <lanes/budget.hpp>

#include "budget_command.hpp"
#include "demo_command.hpp"
#include "scenario.hpp"

namespace {

constexpr int exit_usage = 2;
constexpr int exit_config = 1;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lanes: one CPU budget, a lane for each kind of work", "lanes"};
  app.require_subcommand(1);

  lanes::tool::demo_options demo_opts;
  auto* demo_cmd = app.add_subcommand("demo", "Run the seeds' experiment: CPU work inline on the io lane vs offloaded");
  demo_cmd->add_flag("--json", demo_opts.json, "Print only the JSON line");
  demo_cmd->add_flag("--quick", demo_opts.quick, "8 small requests instead of 64 (a smoke test)");
  demo_cmd->add_option("--cpus", demo_opts.cpus, "Run on the first N CPUs this process may use (e.g. 1)");
  demo_cmd->add_option("--svg", demo_opts.svg_path, "Where to write the lateness plot ('' for none)");

  lanes::bench::options sweep_opts;
  auto* sweep_cmd = app.add_subcommand("sweep", "Sweep the io worker count (S5) and print the curve");
  sweep_cmd->add_flag("--json", sweep_opts.json, "Print only the JSON line");
  sweep_cmd->add_flag("--quick", sweep_opts.quick, "A short run");

  bool budget_json = false;
  auto* budget_cmd = app.add_subcommand("budget", "Show the CPUs this process may use and how the lanes split them");
  budget_cmd->add_flag("--json", budget_json, "Print one JSON object instead of a table");

  std::string scenario_id;
  lanes::bench::options bench_opts;
  auto* bench_cmd =
      app.add_subcommand("bench", "Run a benchmark scenario (s3, s4, ...) against its peer; 'list' lists them");
  std::vector<std::string> ids{"list"};
  for (const auto& s : lanes::bench::all_scenarios()) ids.emplace_back(s.id);
  bench_cmd->add_option("scenario", scenario_id, "Which scenario")->required()->check(CLI::IsMember(ids));
  bench_cmd->add_flag("--json", bench_opts.json, "Print only the JSON line");
  bench_cmd->add_flag("--quick", bench_opts.quick, "A short run (what CI runs)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const bool unknown_subcommand =
        argc > 1 && argv[1][0] != '-' &&
        app.get_subcommands([&](CLI::App* sub) { return sub->check_name(argv[1]); }).empty();
    if (unknown_subcommand) {
      std::cerr << "lanes: unknown subcommand '" << argv[1] << "'\n\n" << app.help();
    } else {
      std::cerr << "lanes: " << e.what() << "\n\n" << app.help();
    }
    return exit_usage;
  }

  try {
    if (demo_cmd->parsed()) return lanes::tool::run_demo(demo_opts, std::cout);
    if (sweep_cmd->parsed()) return lanes::bench::run_s5(sweep_opts);
    if (budget_cmd->parsed()) {
      const auto b = lanes::budget::detect();
      if (budget_json) {
        lanes::tool::print_budget_json(b, std::cout);
      } else {
        lanes::tool::print_budget_text(b, std::cout);
      }
    }
    if (bench_cmd->parsed()) {
      for (const auto& s : lanes::bench::all_scenarios()) {
        if (scenario_id == "list") std::cout << "  " << s.id << "  " << s.title << '\n';
        if (scenario_id == s.id) return s.run(bench_opts);
      }
    }
  } catch (const lanes::config_error& e) {
    std::cerr << "lanes: configuration error: " << e.what() << '\n';
    return exit_config;
  } catch (const std::exception& e) {
    std::cerr << "lanes: " << e.what() << '\n';
    return exit_config;
  }
  return 0;
}
