#include "react/thread_setup.hpp"

#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <system_error>

#include <lanes/config_error.hpp>

#include "budget/affinity.hpp"

namespace lanes::react::detail {

void pin_calling_thread(unsigned cpu) { lanes::detail::set_affinity(0, {cpu}); }

void name_calling_thread(const std::string& name) noexcept { pthread_setname_np(pthread_self(), name.c_str()); }

bool try_realtime(int priority) {
  sched_param param{};
  param.sched_priority = priority;
  const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  if (rc == 0) return true;
  if (rc == EPERM) return false;
  throw std::system_error(rc, std::generic_category(), "pthread_setschedparam(SCHED_FIFO)");
}

std::string realtime_refused_message(int priority) {
  return "lanes::react::react_thread: realtime(" + std::to_string(priority) +
         ") was refused by the kernel (EPERM): SCHED_FIFO needs CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least " +
         std::to_string(priority) + " (`ulimit -r " + std::to_string(priority) +
         "`, or LimitRTPRIO= in a systemd unit); or use realtime_if_permitted() to run without it";
}

void check_realtime_priority(int priority) {
  const int low = sched_get_priority_min(SCHED_FIFO);
  const int high = sched_get_priority_max(SCHED_FIFO);
  if (priority < low || priority > high) {
    throw config_error("lanes::react::react_thread: realtime priority " + std::to_string(priority) +
                       " is outside SCHED_FIFO's range " + std::to_string(low) + ".." + std::to_string(high));
  }
}

}  // namespace lanes::react::detail
