// react_thread: one thread that owns a core and runs a handler on every
// item of its input rings - the react lane.
//
//   auto [tx, rx] = lanes::react::spsc_ring<tick>::make(4096);
//   auto quoting = lanes::react::react_thread::builder()
//                      .core(3)                      // or any free core (the default)
//                      .realtime_if_permitted(50)    // SCHED_FIFO where allowed
//                      .wait(lanes::react::busy_spin{})
//                      .input(std::move(rx), [&](tick& t) { book.apply(t); })
//                      .start();
//   ...
//   quoting.stop();   // or drop every producer: it ends once its inputs are drained
//
// The core is reserved for the thread's life (budget/core_reservations):
// lanes built afterwards are sized without it, and io, compute and blocking
// threads already running move off it. Build react threads before the
// rest of the system so the budget is right from the start.
//
// The hot loop: poll each input for up to `batch` items (one index load,
// the handler on each item in place, one index store), and when a round
// finds nothing, hand over to the wait strategy. No allocation, lock or
// syscall unless the strategy parks. A handler that throws loses that item
// only: the exception goes to on_error (or stderr), is counted, and the
// loop goes on.
#pragma once

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <lanes/react/spsc_ring.hpp>
#include <lanes/react/wait_strategy.hpp>

namespace lanes::react {

struct react_metrics {
  std::uint64_t items_handled = 0;
  std::uint64_t handler_errors = 0;          // items whose handler threw
  std::uint64_t batches = 0;                 // poll rounds that found items
  std::uint64_t idle_spells = 0;             // rounds that found nothing: the wait strategy ran
  std::uint64_t parks = 0;                   // sleeps in the kernel (parking strategies only)
  std::chrono::nanoseconds working{0};       // rounds that found items, handlers included
  std::chrono::nanoseconds waiting{0};       // in the wait strategy: spinning, yielding or asleep
  std::vector<std::size_t> ring_high_water;  // per input, in input() order: most items seen waiting
  std::optional<unsigned> core;              // the CPU it is pinned to, if pinned
  bool realtime = false;                     // running under SCHED_FIFO
  bool running = false;
  std::string wait_strategy;
};

namespace detail {

// Where a handler's exception goes (the thread's state, in src/react).
class handler_error_sink {
 public:
  virtual void report(std::exception_ptr error) noexcept = 0;

 protected:
  ~handler_error_sink() = default;
};

// One input ring and its handler, behind one virtual call per batch.
// Everything but high_water() is called on the react thread only.
class react_input {
 public:
  virtual ~react_input() = default;
  // Runs the handler on up to `max` items in place, then frees their slots.
  virtual std::size_t poll(std::size_t max, handler_error_sink& errors) = 0;
  // What to spin on while it is empty (valid until the next poll).
  virtual empty_watch watch() = 0;
  // The producer is gone and everything it sent was handled.
  virtual bool closed() = 0;
  virtual bool may_park() const noexcept = 0;
  // False when it found items (or the producer gone) while arming and no
  // wake-up will come; true when one will (or already came): disarm later.
  virtual bool arm(wake_target target) = 0;
  virtual void disarm() noexcept = 0;
  // Any thread: the ring's high-water mark as last published by poll().
  std::size_t high_water() const noexcept { return high_water_.load(std::memory_order_relaxed); }

 protected:
  std::atomic<std::size_t> high_water_{0};  // written by the react thread only
};

template <class T, class Handler>
class ring_input final : public react_input {
 public:
  ring_input(ring_consumer<T> rx, Handler handler) : rx_(std::move(rx)), handler_(std::move(handler)) {}

  std::size_t poll(std::size_t max, handler_error_sink& errors) override {
    const auto chunk = rx_.read(max);
    const std::size_t n = chunk.size();
    if (n == 0) return 0;
    run(chunk.first, errors);
    run(chunk.second, errors);
    rx_.consume(n);
    if (rx_.high_water() != seen_high_water_) {
      seen_high_water_ = rx_.high_water();
      high_water_.store(seen_high_water_, std::memory_order_relaxed);
    }
    return n;
  }
  empty_watch watch() override { return rx_.watch(); }
  bool closed() override { return rx_.producer_gone() && rx_.empty(); }
  bool may_park() const noexcept override { return rx_.options().consumer_may_park; }
  bool arm(wake_target target) override { return rx_.arm_wait_for_items(target); }
  void disarm() noexcept override { rx_.disarm_wait(); }

 private:
  void run(std::span<T> items, handler_error_sink& errors) {
    for (T& item : items) {
      if constexpr (std::is_nothrow_invocable_v<Handler&, T&>) {
        handler_(item);
      } else {
        try {
          handler_(item);
        } catch (...) {
          errors.report(std::current_exception());
        }
      }
    }
  }

  ring_consumer<T> rx_;
  Handler handler_;
  std::size_t seen_high_water_ = 0;
};

class react_thread_state;
struct react_settings;

}  // namespace detail

class react_thread_builder;

class react_thread {
 public:
  static react_thread_builder builder();

  react_thread() noexcept;  // empty: not running anything
  react_thread(react_thread&&) noexcept;
  react_thread& operator=(react_thread&&) noexcept;
  react_thread(const react_thread&) = delete;
  react_thread& operator=(const react_thread&) = delete;
  // stop(), then join().
  ~react_thread();

  // Asks the thread to stop after the batch it is running; returns at
  // once. Items still in the rings stay there (destroyed with the rings).
  void stop() noexcept;
  // Waits until the thread has ended: stop() was asked, or every input's
  // producer is gone and what it sent was handled. Then gives the core back.
  void join();
  bool running() const noexcept;

  react_metrics metrics() const;
  const std::string& name() const;

 private:
  friend class react_thread_builder;
  explicit react_thread(std::unique_ptr<detail::react_thread_state> state) noexcept;
  std::unique_ptr<detail::react_thread_state> state_;
};

class react_thread_builder {
 public:
  react_thread_builder();
  react_thread_builder(react_thread_builder&&) noexcept;
  react_thread_builder& operator=(react_thread_builder&&) noexcept;
  ~react_thread_builder();

  // Pins the thread to `cpu` and reserves it (config_error at start() if it
  // is not in the process's mask, or another react thread owns it).
  react_thread_builder& core(unsigned cpu);
  // Pins it to the highest CPU no react thread owns (the default).
  react_thread_builder& any_core();
  // No pinning and no reservation: a spinning thread the scheduler moves
  // around. For machines with no core to spare (laptops, CI, tests).
  react_thread_builder& unpinned();
  // Lets it take the last CPU the other lanes have (they then share it
  // with a thread that may spin: only for a dedicated box or a test).
  react_thread_builder& allow_last_cpu(bool allow = true);
  // The thread's name (top, perf, stall reports): at most 15 bytes.
  // Default "lanes-react-<cpu>", or "lanes-react" when unpinned.
  react_thread_builder& name(std::string name);
  // SCHED_FIFO at `priority` (1..99). start() throws config_error saying
  // how to grant it (CAP_SYS_NICE, `ulimit -r`) if the kernel refuses.
  react_thread_builder& realtime(int priority);
  // The same, but if refused the thread runs under the normal policy and
  // metrics().realtime says false.
  react_thread_builder& realtime_if_permitted(int priority);
  // How it waits when its inputs are empty. Default busy_spin.
  template <std::derived_from<wait_strategy> Strategy>
  react_thread_builder& wait(Strategy strategy) {
    return wait(std::make_unique<Strategy>(std::move(strategy)));
  }
  // The same, for a strategy chosen at run time (from a config file).
  react_thread_builder& wait(std::unique_ptr<wait_strategy> strategy);
  // The most items taken from one input before looking at the next (and
  // published back to its producer as free slots at once). Default 64.
  react_thread_builder& batch(std::size_t max_items);
  // Runs `handler(T&)` on the thread for every item of `rx`, in order,
  // the item in its slot (the handler may move from it).
  template <class T, class Handler>
  requires std::invocable<Handler&, T&> react_thread_builder& input(ring_consumer<T> rx, Handler handler) {
    if (!rx) throw config_error("lanes::react::react_thread: input() was given an empty ring_consumer");
    return input_with(std::make_unique<detail::ring_input<T, Handler>>(std::move(rx), std::move(handler)));
  }
  // Called on the react thread with each exception a handler throws (the
  // default prints the first and then every 2^k-th to stderr). If it
  // throws itself, that is swallowed and counted too.
  react_thread_builder& on_error(std::function<void(std::exception_ptr)> hook);

  // Validates the settings (config_error), reserves the core, starts the
  // thread and returns once it is pinned and running.
  react_thread start();

 private:
  react_thread_builder& input_with(std::unique_ptr<detail::react_input> input);

  std::unique_ptr<detail::react_settings> settings_;
};

}  // namespace lanes::react
