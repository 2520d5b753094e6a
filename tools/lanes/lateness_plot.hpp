// Pictures of tick lateness for `lanes demo`: a compact text sparkline per
// series for the terminal, and an SVG line chart written next to the run.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lanes::tool {

struct lateness_series {
  std::string name;
  std::vector<double> at_ms;   // when each tick fired, from the series' start
  std::vector<double> lag_us;  // how late it was
};

// One line per series: `columns` cells, each the worst lag in its slice of
// time, drawn with ▁..█ on one scale shared by all series.
void print_sparklines(const std::vector<lateness_series>& series, int columns, std::ostream& out);

// A line chart: time on x, lag in ms on y, one coloured line per series.
std::string lateness_svg(const std::vector<lateness_series>& series, const std::string& title);

}  // namespace lanes::tool
