// The io lane's cold throws of runtime_misuse. Out of line and marked cold
// (src/io/scheduler.cpp), so that a check on a hot path - an awaiter or a
// spawn inlined into every caller - stays a compare and a branch, and g++
// keeps inlining the awaiter into the awaiting coroutine.
#pragma once

namespace lanes::detail {

// Throws runtime_misuse(what).
[[noreturn]] void throw_misuse(const char* what);
// runtime_misuse: "<call> of an empty task (moved from or released)".
[[noreturn]] void throw_empty_task(const char* call);

}  // namespace lanes::detail
