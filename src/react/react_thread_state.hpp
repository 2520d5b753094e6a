// The running react thread: its loop, its counters, and the core it owns.
//
// Threads: the react thread runs run() and is the only writer of the
// counters (relaxed stores of its own running totals, so metrics() on any
// thread reads each one torn-free without a read-modify-write on the hot
// path). stop() may come from any thread. inputs_ is the react thread's
// until it ends; at its end it snapshots their high-water marks and drops
// them (the rings' producers then see consumer_gone) under inputs_mutex_,
// which metrics() takes too.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <lanes/detail/event_count.hpp>
#include <lanes/react/react_thread.hpp>

#include "budget/core_reservations.hpp"
#include "react/react_settings.hpp"

namespace lanes::react::detail {

class react_thread_state final : public handler_error_sink {
 public:
  react_thread_state(react_settings settings, lanes::detail::core_reservation core, std::optional<unsigned> pinned_to);
  react_thread_state(const react_thread_state&) = delete;
  react_thread_state& operator=(const react_thread_state&) = delete;
  ~react_thread_state();

  // Starts the thread; returns once it is pinned and running, or throws
  // what its set-up threw (the thread has ended then).
  void start();
  void stop() noexcept;
  void join();
  bool running() const noexcept { return running_.load(std::memory_order_acquire); }
  react_metrics metrics() const;
  const std::string& name() const noexcept { return settings_.name; }

  void report(std::exception_ptr error) noexcept override;

 private:
  class idle;
  void main(std::promise<void>& started) noexcept;
  void set_up();
  void loop();
  void finish() noexcept;
  void default_error_report(const std::exception_ptr& error) const noexcept;

  react_settings settings_;
  lanes::detail::core_reservation core_;
  const std::optional<unsigned> pinned_to_;
  bool realtime_ = false;  // written before `started` is set, read after
  std::thread thread_;

  alignas(64) std::atomic<bool> stop_{false};
  std::atomic<bool> running_{false};
  lanes::detail::event_count wakeups_;  // the thread sleeps on it; producers and stop() notify

  // Written by the react thread only (see the file comment).
  alignas(64) std::atomic<std::uint64_t> items_{0};
  std::atomic<std::uint64_t> batches_{0};
  std::atomic<std::uint64_t> idle_spells_{0};
  std::atomic<std::uint64_t> parks_{0};
  std::atomic<std::uint64_t> errors_{0};
  std::atomic<std::uint64_t> working_ticks_{0};
  std::atomic<std::uint64_t> waiting_ticks_{0};

  mutable std::mutex inputs_mutex_;
  std::vector<std::size_t> final_high_water_;  // set when inputs_ are dropped
};

}  // namespace lanes::react::detail
