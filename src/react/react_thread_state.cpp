#include "react/react_thread_state.hpp"

#include <bit>
#include <cstdio>

#include <lanes/config_error.hpp>

#include "cycle_clock.hpp"
#include "react/thread_setup.hpp"

namespace lanes::react::detail {

namespace {

// The running totals the loop keeps in registers and publishes.
struct totals {
  std::uint64_t items = 0;
  std::uint64_t batches = 0;
  std::uint64_t idle_spells = 0;
  std::uint64_t working_ticks = 0;
  std::uint64_t waiting_ticks = 0;
};

}  // namespace

// What the wait strategy sees: the live inputs, stop, and the event count.
// ready() spins on each input's empty_watch, taken when the idle spell
// began (watch()): plain loads, no virtual call per spin - with one, the
// slot prefetch stops overlapping the tail's miss and a wake-up costs more
// across cores (measured: docs/benchmarks.md, S8).
class react_thread_state::idle final : public idle_context {
 public:
  idle(react_thread_state& owner, std::vector<react_input*>& live) : owner_(owner), live_(live) {
    watches_.reserve(live.size());  // watch() never allocates on the hot path
  }

  // Before each idle spell: where every input stands now.
  void watch() {
    watches_.clear();
    for (react_input* in : live_) watches_.push_back(in->watch());
  }

  bool ready() override {
    for (const empty_watch& w : watches_)
      if (w.ready()) return true;
    return owner_.stop_.load(std::memory_order_relaxed);
  }

  void park() override {
    // Prepared before stop_ is read and before arming (event_count.hpp):
    // a stop() or a publish after this point advances the epoch past the
    // key, and wait(key) then returns.
    const auto key = owner_.wakeups_.prepare_wait();
    if (owner_.stop_.load(lanes::detail::dekker_load)) {
      owner_.wakeups_.cancel_wait(key);
      return;
    }
    std::size_t armed = 0;
    bool found = false;
    for (react_input* in : live_) {
      if (!in->arm(wake_target_of(owner_.wakeups_))) {
        found = true;
        break;
      }
      ++armed;
    }
    if (!found) {
      owner_.parks_.store(owner_.parks_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      owner_.wakeups_.wait(key);
    } else {
      owner_.wakeups_.cancel_wait(key);
    }
    // After disarm() returns no producer is still inside the event count's notify.
    for (std::size_t i = 0; i < armed; ++i) live_[i]->disarm();
  }

 private:
  react_thread_state& owner_;
  std::vector<react_input*>& live_;
  std::vector<empty_watch> watches_;
};

react_thread_state::react_thread_state(react_settings settings, lanes::detail::core_reservation core,
                                       std::optional<unsigned> pinned_to)
    : settings_(std::move(settings)), core_(std::move(core)), pinned_to_(pinned_to) {}

react_thread_state::~react_thread_state() {
  stop();
  join();
}

void react_thread_state::start() {
  std::promise<void> started;
  auto outcome = started.get_future();
  running_.store(true, std::memory_order_relaxed);
  // The promise moves into the thread: set_value() may still be touching
  // it when get() returns here.
  thread_ = std::thread([this, promise = std::move(started)]() mutable { main(promise); });
  try {
    outcome.get();
  } catch (...) {
    thread_.join();
    core_.release();
    throw;
  }
}

void react_thread_state::main(std::promise<void>& started) noexcept {
  try {
    set_up();
  } catch (...) {
    finish();
    started.set_exception(std::current_exception());
    return;
  }
  started.set_value();
  loop();
  finish();
}

void react_thread_state::set_up() {
  if (pinned_to_) pin_calling_thread(*pinned_to_);
  name_calling_thread(settings_.name);
  if (settings_.realtime_priority) {
    realtime_ = try_realtime(*settings_.realtime_priority);
    if (!realtime_ && settings_.realtime_required)
      throw config_error(realtime_refused_message(*settings_.realtime_priority));
  }
}

void react_thread_state::loop() {
  std::vector<react_input*> live;
  for (auto& in : settings_.inputs) live.push_back(in.get());
  idle waiting(*this, live);
  const wait_strategy& strategy = *settings_.strategy;
  const std::size_t batch = settings_.batch;
  totals t;
  std::uint64_t mark = lanes::detail::cycle_clock::now();

  while (!stop_.load(std::memory_order_relaxed)) {
    std::size_t handled = 0;
    for (react_input* in : live) handled += in->poll(batch, *this);
    const std::uint64_t now = lanes::detail::cycle_clock::now();
    if (handled != 0) {
      t.items += handled;
      ++t.batches;
      t.working_ticks += now - mark;
      mark = now;
      items_.store(t.items, std::memory_order_relaxed);
      batches_.store(t.batches, std::memory_order_relaxed);
      working_ticks_.store(t.working_ticks, std::memory_order_relaxed);
      continue;
    }
    // An empty round: inputs whose producers are gone are done with.
    std::erase_if(live, [](react_input* in) { return in->closed(); });
    if (live.empty()) break;
    ++t.idle_spells;
    idle_spells_.store(t.idle_spells, std::memory_order_relaxed);
    waiting.watch();
    strategy.wait(waiting);
    const std::uint64_t woke = lanes::detail::cycle_clock::now();
    t.waiting_ticks += woke - mark;
    mark = woke;
    waiting_ticks_.store(t.waiting_ticks, std::memory_order_relaxed);
  }
}

void react_thread_state::finish() noexcept {
  {
    std::lock_guard lock(inputs_mutex_);
    for (auto& in : settings_.inputs) final_high_water_.push_back(in->high_water());
    settings_.inputs.clear();  // their producers see consumer_gone from here
  }
  running_.store(false, std::memory_order_release);
}

void react_thread_state::stop() noexcept {
  stop_.store(true, lanes::detail::dekker_store);
  wakeups_.notify_one();
}

void react_thread_state::join() {
  if (thread_.joinable()) thread_.join();
  core_.release();
}

void react_thread_state::report(std::exception_ptr error) noexcept {
  const std::uint64_t count = errors_.load(std::memory_order_relaxed) + 1;
  errors_.store(count, std::memory_order_relaxed);
  if (!settings_.on_error) {
    if (std::has_single_bit(count)) default_error_report(error);
    return;
  }
  try {
    settings_.on_error(error);
  } catch (...) {
    errors_.store(errors_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
}

void react_thread_state::default_error_report(const std::exception_ptr& error) const noexcept {
  const auto count = static_cast<unsigned long long>(errors_.load(std::memory_order_relaxed));
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanes::react: a handler on thread %s threw: %s (%llu so far; item dropped)\n",
                 settings_.name.c_str(), e.what(), count);
  } catch (...) {
    std::fprintf(stderr,
                 "lanes::react: a handler on thread %s threw a non-std::exception (%llu so far; item dropped)\n",
                 settings_.name.c_str(), count);
  }
}

react_metrics react_thread_state::metrics() const {
  react_metrics m;
  m.items_handled = items_.load(std::memory_order_relaxed);
  m.handler_errors = errors_.load(std::memory_order_relaxed);
  m.batches = batches_.load(std::memory_order_relaxed);
  m.idle_spells = idle_spells_.load(std::memory_order_relaxed);
  m.parks = parks_.load(std::memory_order_relaxed);
  m.working =
      std::chrono::nanoseconds(lanes::detail::cycle_clock::to_ns(working_ticks_.load(std::memory_order_relaxed)));
  m.waiting =
      std::chrono::nanoseconds(lanes::detail::cycle_clock::to_ns(waiting_ticks_.load(std::memory_order_relaxed)));
  {
    std::lock_guard lock(inputs_mutex_);
    if (settings_.inputs.empty() && !final_high_water_.empty()) {
      m.ring_high_water = final_high_water_;
    } else {
      for (const auto& in : settings_.inputs) m.ring_high_water.push_back(in->high_water());
    }
  }
  m.core = pinned_to_;
  m.realtime = realtime_;
  m.running = running();
  m.wait_strategy = std::string(settings_.strategy->name());
  return m;
}

}  // namespace lanes::react::detail
