// config_error: a setting lanes was given (a builder call or an environment
// variable) cannot be used. The message names the setting and the value and
// says what to do instead; it is thrown at build time, never deep inside a lane.
#pragma once

#include <stdexcept>

namespace lanes {

class config_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace lanes
