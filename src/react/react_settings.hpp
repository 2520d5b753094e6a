// What a react_thread_builder collected, handed whole to the thread's state
// at start().
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <lanes/react/react_thread.hpp>

namespace lanes::react::detail {

struct react_settings {
  enum class pinning { any_core, chosen_core, none };
  pinning pin = pinning::any_core;
  unsigned cpu = 0;  // for chosen_core
  bool allow_last_cpu = false;
  std::string name;  // empty: the default
  std::optional<int> realtime_priority;
  bool realtime_required = false;
  std::unique_ptr<wait_strategy> strategy;
  std::size_t batch = 64;
  std::vector<std::unique_ptr<detail::react_input>> inputs;
  std::function<void(std::exception_ptr)> on_error;
};

}  // namespace lanes::react::detail
