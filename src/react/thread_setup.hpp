// What a react thread does to itself before its loop: pin, name, and the
// real-time policy. Each throws with a message the user can act on.
#pragma once

#include <string>

namespace lanes::react::detail {

// Pins the calling thread to `cpu` (std::system_error if the kernel refuses).
void pin_calling_thread(unsigned cpu);
// Names the calling thread (at most 15 bytes: checked at start()).
void name_calling_thread(const std::string& name) noexcept;
// SCHED_FIFO at `priority`. False when the kernel says EPERM; any other
// refusal throws std::system_error.
bool try_realtime(int priority);
// The config_error message for a refused SCHED_FIFO.
std::string realtime_refused_message(int priority);
// Throws config_error unless `priority` is valid for SCHED_FIFO.
void check_realtime_priority(int priority);

}  // namespace lanes::react::detail
