// signal_set (include/lanes/io/signal_set.hpp).
//
// The handler's whole world is this file's globals, all lock-free atomics
// written before the handler can see them:
// - delivered[n]: how many times signal n arrived (the handler increments);
// - listeners[i]: a slot per live signal_set: the signals it wants (mask)
//   and its eventfd. The eventfd of a slot is created once and never
//   closed, so a handler that read a slot just as its set went away writes
//   to an eventfd nobody reads, never to a reused descriptor.
// The handler increments the count before it writes the eventfd, so a
// reader that drains the eventfd and then looks at the counts misses nothing.
#include <lanes/io/signal_set.hpp>

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>

#include <lanes/config_error.hpp>
#include <lanes/io/errors.hpp>

namespace lanes {

namespace {

constexpr int max_signal = 64;
constexpr int max_sets = 64;

struct listener {
  std::atomic<std::uint64_t> mask{0};
  std::atomic<int> event_fd{-1};  // created on first use of the slot, never closed
};

std::atomic<std::uint64_t> delivered[max_signal + 1];
listener listeners[max_sets];
std::mutex setup_mutex;          // slots and handler installation (never taken by the handler)
bool installed[max_signal + 1];  // under setup_mutex
bool slot_taken[max_sets];       // under setup_mutex

extern "C" void on_signal(int signo) {
  const int saved = errno;
  delivered[signo].fetch_add(1, std::memory_order_release);
  const std::uint64_t bit = std::uint64_t{1} << (signo - 1);  // bit n-1: signal n (1..64)
  for (auto& l : listeners) {
    if ((l.mask.load(std::memory_order_acquire) & bit) == 0) continue;
    const int fd = l.event_fd.load(std::memory_order_acquire);
    const std::uint64_t one = 1;
    if (fd >= 0) [[maybe_unused]]
      auto n = ::write(fd, &one, sizeof one);
  }
  errno = saved;
}

void check_signal(int signo) {
  if (signo <= 0 || signo > max_signal) {
    throw std::invalid_argument("lanes::signal_set: " + std::to_string(signo) + " is not a signal number");
  }
  switch (signo) {
    case SIGKILL:
    case SIGSTOP:
    case SIGSEGV:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGTRAP:
    case SIGSYS:
      throw std::invalid_argument("lanes::signal_set: signal " + std::to_string(signo) +
                                  " cannot be handled by a task (it cannot be caught, or it is a synchronous fault)");
    default:
      break;
  }
}

void install(int signo) {  // under setup_mutex
  if (installed[signo]) return;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (::sigaction(signo, &action, nullptr) < 0) {
    throw std::system_error(errno, std::generic_category(), "lanes::signal_set: sigaction");
  }
  installed[signo] = true;
}

// A free slot with its eventfd, claimed; its mask is still 0.
int claim_slot() {  // under setup_mutex
  for (int i = 0; i < max_sets; ++i) {
    if (slot_taken[i]) continue;
    auto& l = listeners[i];
    if (l.event_fd.load(std::memory_order_relaxed) < 0) {
      const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
      if (fd < 0) throw std::system_error(errno, std::generic_category(), "lanes::signal_set: eventfd");
      l.event_fd.store(fd, std::memory_order_release);
    }
    slot_taken[i] = true;
    return i;
  }
  throw config_error("lanes::signal_set: more than 64 signal sets at once; share one set per signal");
}

}  // namespace

signal_set::signal_set(std::initializer_list<int> signals)
    : slot_([&] {
        std::lock_guard lock(setup_mutex);
        for (int s : signals) check_signal(s);
        return claim_slot();
      }()),
      fd_(listeners[slot_].event_fd.load(std::memory_order_acquire)) {
  std::lock_guard lock(setup_mutex);
  for (int s : signals) mask_ |= std::uint64_t{1} << (s - 1);
  // Counts from now on are news to this set.
  for (int s = 1; s <= max_signal; ++s)
    seen_[static_cast<std::size_t>(s)] = delivered[s].load(std::memory_order_acquire);
  drain();
  listeners[slot_].mask.store(mask_, std::memory_order_release);
  try {
    for (int s : signals) install(s);
  } catch (...) {
    listeners[slot_].mask.store(0, std::memory_order_release);
    slot_taken[slot_] = false;
    throw;
  }
}

signal_set::~signal_set() {
  std::lock_guard lock(setup_mutex);
  listeners[slot_].mask.store(0, std::memory_order_release);
  slot_taken[slot_] = false;
}

int signal_set::take() noexcept {
  for (int s = 1; s <= max_signal; ++s) {
    if ((mask_ & (std::uint64_t{1} << (s - 1))) == 0) continue;
    const std::uint64_t now = delivered[s].load(std::memory_order_acquire);
    auto& seen = seen_[static_cast<std::size_t>(s)];
    if (now != seen) {
      seen = now;
      return s;
    }
  }
  return 0;
}

void signal_set::give_back(int signo) noexcept {
  // Unseen again: whatever the count is now, it differs from this.
  --seen_[static_cast<std::size_t>(signo)];
}

void signal_set::drain() noexcept {
  std::uint64_t value = 0;
  [[maybe_unused]] const auto n = ::read(fd_.fd(), &value, sizeof value);
}

int signal_set::awaiter::await_resume() {
  resumed_ = true;
  wait_.await_resume();
  if (taken_ == 0) taken_ = set_.take();
  if (taken_ == 0) {
    // The eventfd was written only after a count of ours went up, and only
    // this awaiter takes counts: two tasks must be waiting on this set.
    throw runtime_misuse("lanes::signal_set: two tasks waited on one set at once; give each its own set");
  }
  return taken_;
}

}  // namespace lanes
