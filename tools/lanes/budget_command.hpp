// `lanes budget`: what this process may use, and how the lanes split it.
#pragma once

#include <iosfwd>

#include <lanes/budget.hpp>

namespace lanes::tool {

void print_budget_text(const budget& b, std::ostream& out);
void print_budget_json(const budget& b, std::ostream& out);

}  // namespace lanes::tool
