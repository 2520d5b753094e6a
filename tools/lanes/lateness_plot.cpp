// Sparklines and SVG for tick lateness (see lateness_plot.hpp).
#include "lateness_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace lanes::tool {

namespace {

double worst_of(const std::vector<lateness_series>& series) {
  double worst = 0;
  for (const auto& s : series) {
    for (double v : s.lag_us) worst = std::max(worst, v);
  }
  return worst;
}

double span_of(const std::vector<lateness_series>& series) {
  double span = 0;
  for (const auto& s : series) {
    for (double v : s.at_ms) span = std::max(span, v);
  }
  return span;
}

std::string fmt(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

void print_sparklines(const std::vector<lateness_series>& series, int columns, std::ostream& out) {
  static const char* const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  const double worst = std::max(worst_of(series), 1.0);
  const double span = std::max(span_of(series), 1.0);
  std::size_t name_width = 0;
  for (const auto& s : series) name_width = std::max(name_width, s.name.size());
  for (const auto& s : series) {
    std::vector<double> cell(static_cast<std::size_t>(columns), -1);
    for (std::size_t i = 0; i < s.at_ms.size(); ++i) {
      auto c = static_cast<std::size_t>(s.at_ms[i] / span * (columns - 1));
      c = std::min(c, cell.size() - 1);
      cell[c] = std::max(cell[c], s.lag_us[i]);
    }
    out << "  " << std::left << std::setw(static_cast<int>(name_width)) << s.name << "  ";
    for (double v : cell) {
      if (v < 0) {
        out << ' ';
        continue;
      }
      // Square-root scale: small lags stay visible next to large ones.
      const auto level = static_cast<int>(std::lround(std::sqrt(v / worst) * 7));
      out << bars[std::clamp(level, 0, 7)];
    }
    out << '\n';
  }
  out << "  " << std::string(name_width, ' ') << "  0 .. " << fmt(span / 1000, 1) << " s, bar height: lag, √ scale to "
      << fmt(worst / 1000, 2) << " ms\n";
}

std::string lateness_svg(const std::vector<lateness_series>& series, const std::string& title) {
  static const char* const colours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"};
  const double w = 800, h = 360, left = 70, right = 20, top = 40, bottom = 50;
  const double worst_ms = std::max(worst_of(series) / 1000, 0.001);
  const double span_s = std::max(span_of(series) / 1000, 0.001);
  const auto x_of = [&](double at_ms) { return left + (at_ms / 1000) / span_s * (w - left - right); };
  const auto y_of = [&](double lag_us) { return h - bottom - (lag_us / 1000) / worst_ms * (h - top - bottom); };
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << left << "\" y=\"22\" font-size=\"15\">" << title << "</text>\n";
  // Axes, ticks and labels.
  svg << "<line x1=\"" << left << "\" y1=\"" << h - bottom << "\" x2=\"" << w - right << "\" y2=\"" << h - bottom
      << "\" stroke=\"black\"/>\n<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\""
      << h - bottom << "\" stroke=\"black\"/>\n";
  for (int k = 0; k <= 4; ++k) {
    const double lag_ms = worst_ms * k / 4;
    const double y = y_of(lag_ms * 1000);
    svg << "<line x1=\"" << left - 4 << "\" y1=\"" << y << "\" x2=\"" << w - right << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 8 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">"
        << fmt(lag_ms, lag_ms < 10 ? 2 : 0) << "</text>\n";
    const double at_s = span_s * k / 4;
    svg << "<text x=\"" << x_of(at_s * 1000) << "\" y=\"" << h - bottom + 18 << "\" text-anchor=\"middle\">"
        << fmt(at_s, 1) << "</text>\n";
  }
  svg << "<text x=\"" << (left + w - right) / 2 << "\" y=\"" << h - 12
      << "\" text-anchor=\"middle\">time since the mode started (s)</text>\n"
      << "<text x=\"16\" y=\"" << (top + h - bottom) / 2 << "\" transform=\"rotate(-90 16 " << (top + h - bottom) / 2
      << ")\" text-anchor=\"middle\">tick lateness (ms)</text>\n";
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    const char* colour = colours[i % 5];
    svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
    for (std::size_t k = 0; k < s.at_ms.size(); ++k) svg << x_of(s.at_ms[k]) << ',' << y_of(s.lag_us[k]) << ' ';
    svg << "\"/>\n<text x=\"" << w - right - 140 << "\" y=\"" << top + 16 * static_cast<double>(i) << "\" fill=\""
        << colour << "\">" << s.name << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace lanes::tool
