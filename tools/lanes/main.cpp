// The `lanes` command: what a user runs to see what lanes sees.
//   lanes demo [--json] [--cpus N]    CPU work inline on the io lane against the same work offloaded
//   lanes sweep [--json] [--quick]    the io worker sweep (S5) as a curve
//   lanes budget [--json]             the CPU budget and the lane split, and why
//   lanes bench ARGS...               the benchmark lab (bench/), where it is installed
//                                     next to this command: lanes against its peers
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <lanes/budget.hpp>

#include "bench_command.hpp"
#include "budget_command.hpp"
#include "demo_command.hpp"
#include "sweep_command.hpp"

namespace {

constexpr int exit_usage = 2;
constexpr int exit_config = 1;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lanes: one CPU budget, a lane for each kind of work", "lanes"};
  app.require_subcommand(1);

  lanes::tool::demo_options demo_opts;
  auto* demo_cmd =
      app.add_subcommand("demo", "Run the demo: CPU work inline on the io lane against the same work offloaded");
  demo_cmd->add_flag("--json", demo_opts.json, "Print only the JSON line");
  demo_cmd->add_flag("--quick", demo_opts.quick, "8 small requests instead of 64 (a smoke test)");
  demo_cmd->add_option("--cpus", demo_opts.cpus, "Run on the first N CPUs this process may use (e.g. 1)");
  demo_cmd->add_option("--svg", demo_opts.svg_path, "Where to write the lateness plot ('' for none)");

  lanes::tool::sweep_options sweep_opts;
  auto* sweep_cmd = app.add_subcommand("sweep", "Sweep the io worker count (S5) and print the curve");
  sweep_cmd->add_flag("--json", sweep_opts.json, "Print only the JSON line");
  sweep_cmd->add_flag("--quick", sweep_opts.quick, "A short run");

  bool budget_json = false;
  auto* budget_cmd = app.add_subcommand("budget", "Show the CPUs this process may use and how the lanes split them");
  budget_cmd->add_flag("--json", budget_json, "Print one JSON object instead of a table");

  auto* bench_cmd = app.add_subcommand(
      "bench", "Run the benchmark lab (scenarios against their peers; 'lanes bench list'), where it is installed");
  bench_cmd->prefix_command();  // everything after `bench` goes to the lab as it is

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
    if (sweep_cmd->parsed()) return lanes::tool::run_sweep(sweep_opts, std::cout);
    if (bench_cmd->parsed()) return lanes::tool::run_bench_lab(bench_cmd->remaining());
    if (budget_cmd->parsed()) {
      const auto b = lanes::budget::detect();
      if (budget_json) {
        lanes::tool::print_budget_json(b, std::cout);
      } else {
        lanes::tool::print_budget_text(b, std::cout);
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
