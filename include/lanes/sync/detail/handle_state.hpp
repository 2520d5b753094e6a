// handle_state: the shared state behind a channel handle (mpsc, watch), or
// a runtime_misuse naming the call when the handle is empty because it was
// moved from: a clear error where there used to be a null dereference.
// Dropping (destroying, assigning to) an empty handle stays allowed.
#pragma once

#include <memory>
#include <string>

#include <lanes/io/errors.hpp>

namespace lanes::detail {

[[noreturn]] inline void throw_empty_handle(const char* call) {
  throw runtime_misuse(std::string(call) + " on an empty handle (it was moved from)");
}

template <class State>
State& handle_state(const std::shared_ptr<State>& state, const char* call) {
  if (!state) [[unlikely]]
    throw_empty_handle(call);
  return *state;
}

}  // namespace lanes::detail
