// handle_state: the state behind a handle (a channel's sender or receiver,
// a runtime, a compute pool), or a runtime_misuse naming the call when the
// handle is empty because it was moved from: a clear error instead of a
// null dereference. Dropping (destroying, assigning to) an
// empty handle stays allowed.
#pragma once

#include <string>

#include <lanes/io/errors.hpp>

namespace lanes::detail {

[[noreturn]] inline void throw_empty_handle(const char* call) {
  throw runtime_misuse(std::string(call) + " on an empty handle (it was moved from)");
}

// `state`: a shared_ptr or unique_ptr (anything with operator bool and *).
template <class Pointer>
decltype(auto) handle_state(const Pointer& state, const char* call) {
  if (!state) [[unlikely]]
    throw_empty_handle(call);
  return *state;
}

}  // namespace lanes::detail
