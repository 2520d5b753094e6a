// Must not compile: a kept notified() awaiter given to select (see
// race.hpp, keepable_awaiter). The CTest compose.kept_awaiter_is_refused
// compiles this file and expects the static_assert's message.
#include <chrono>

#include <lanes/compose/select.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/task.hpp>
#include <lanes/sync/notify.hpp>

lanes::task<void> keeps_a_notified(lanes::notify& n) {
  auto kept = n.notified();
  (void)co_await lanes::select(kept, lanes::sleep(std::chrono::milliseconds(1)));
}
