// The `lanes` command: what a user runs to see what lanes sees.
//   lanes budget [--json]   the CPU budget and the lane split, and why
#include <iostream>

#include <CLI/CLI.hpp>
#include <lanes/budget.hpp>

#include "budget_command.hpp"

namespace {

constexpr int exit_usage = 2;
constexpr int exit_config = 1;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lanes: one CPU budget, a lane for each kind of work", "lanes"};
  app.require_subcommand(1);

  bool budget_json = false;
  auto* budget_cmd = app.add_subcommand("budget", "Show the CPUs this process may use and how the lanes split them");
  budget_cmd->add_flag("--json", budget_json, "Print one JSON object instead of a table");

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
