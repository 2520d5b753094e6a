// The compute pool's shared state: threads, the injector, detached-job
// accounting and shutdown (the protocol is in pool_state.hpp).
#include "compute/pool_state.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

#include <lanes/budget.hpp>

#include "budget/core_reservations.hpp"

namespace lanes::compute::detail {

namespace {

struct thread_start {
  pool_state* owner;
  worker* self;
};

// Linux keeps 15 bytes of a thread's name: shorten the prefix, keep the index.
std::string thread_name(const std::string& prefix, std::size_t index) {
  const std::string suffix = "-" + std::to_string(index);
  return prefix.substr(0, 15 - std::min<std::size_t>(15, suffix.size())) + suffix;
}

// low: SCHED_BATCH tells the kernel these threads are throughput work (no
// wake-up preemption of others); nice +5 gives an io worker about three
// times their share when both want the CPU. idle: SCHED_IDLE, which any
// waking normal thread preempts (the kernel checks it before the fairness
// rules that let a SCHED_BATCH thread finish its slice). Moving down is
// allowed unprivileged; a failure leaves the thread as it was.
void apply_priority(thread_priority priority) noexcept {
  if (priority == thread_priority::normal) return;
  sched_param param{};
  param.sched_priority = 0;
  if (priority == thread_priority::idle) {
    (void)sched_setscheduler(0, SCHED_IDLE, &param);
    return;
  }
  (void)sched_setscheduler(0, SCHED_BATCH, &param);
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int nice_now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) (void)setpriority(PRIO_PROCESS, tid, std::min(19, nice_now + 5));
}

}  // namespace

pool_state::pool_state(pool_options options) : options_(std::move(options)) {
  if (options_.threads == 0) options_.threads = budget::detect().compute_threads.value;
  workers_.reserve(options_.threads);
  for (std::size_t i = 0; i < options_.threads; ++i)
    workers_.push_back(std::make_unique<worker>(*this, i, wakeups_, options_.threads == 1));
  start_threads();
}

void pool_state::start_threads() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (options_.stack_size != 0) {
    if (const int rc = pthread_attr_setstacksize(&attr, options_.stack_size); rc != 0) {
      pthread_attr_destroy(&attr);
      throw std::system_error(rc, std::generic_category(), "lanes: pthread_attr_setstacksize for the compute pool");
    }
  }
  threads_.reserve(workers_.size());
  for (auto& w : workers_) {
    auto* start = new thread_start{this, w.get()};
    pthread_t t{};
    if (const int rc = pthread_create(&t, &attr, &pool_state::thread_main, start); rc != 0) {
      delete start;
      pthread_attr_destroy(&attr);
      stopping_.store(true, std::memory_order_release);
      wakeups_.notify_all();
      for (pthread_t started : threads_) pthread_join(started, nullptr);
      throw std::system_error(rc, std::generic_category(), "lanes: pthread_create for the compute pool");
    }
    threads_.push_back(t);
  }
  pthread_attr_destroy(&attr);
}

void* pool_state::thread_main(void* arg) noexcept {
  const thread_start start = *static_cast<thread_start*>(arg);
  delete static_cast<thread_start*>(arg);
  pool_state& r = *start.owner;
  worker& w = *start.self;
  pthread_setname_np(pthread_self(), thread_name(r.options_.thread_name, w.index()).c_str());
  apply_priority(r.options_.priority);
  tls_worker = &w;
  const lanes::detail::lane_thread_scope off_react_cores;
  const auto hook = [&](const std::function<void(std::size_t)>& f, const char* which) {
    if (!f) return;
    try {
      f(w.index());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lanes: a compute pool's %s hook threw: %s\n", which, e.what());
    } catch (...) {
      std::fprintf(stderr, "lanes: a compute pool's %s hook threw\n", which);
    }
  };
  hook(r.options_.on_thread_start, "on_thread_start");
  w.run_until_stopped();
  hook(r.options_.on_thread_exit, "on_thread_exit");
  tls_worker = nullptr;
  return nullptr;
}

pool_state::~pool_state() {
  {
    std::unique_lock lock(detached_mutex_);
    detached_done_.wait(lock, [this] { return detached_.load(std::memory_order_acquire) == 0; });
  }
  stopping_.store(true, std::memory_order_seq_cst);
  wakeups_.notify_all();
  for (pthread_t t : threads_) pthread_join(t, nullptr);
}

void pool_state::inject(job* j) {
  {
    std::lock_guard lock(injector_mutex_);
    injector_.push_back(j);
    injected_size_.store(injector_.size(), std::memory_order_seq_cst);  // the publication the event count orders
  }
  injected_total_.fetch_add(1, std::memory_order_relaxed);
  wakeups_.notify_one();
}

job* pool_state::take_injected() noexcept {
  if (injected_size_.load(std::memory_order_seq_cst) == 0) return nullptr;
  std::lock_guard lock(injector_mutex_);
  if (injector_.empty()) return nullptr;
  job* j = injector_.front();
  injector_.pop_front();
  injected_size_.store(injector_.size(), std::memory_order_relaxed);
  return j;
}

job* pool_state::steal_for(worker& thief, std::uint64_t& seed) noexcept {
  const std::size_t n = workers_.size();
  if (n < 2) return nullptr;
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  const std::uintptr_t only = thief.isolated() ? thief.region() : work_stealing_deque<job*>::any_tag;
  const std::size_t start = static_cast<std::size_t>(seed % n);
  // Two sweeps: a steal that lost a race to another thief may succeed next time.
  for (int sweep = 0; sweep < 2; ++sweep) {
    bool saw_work = false;
    for (std::size_t k = 0; k < n; ++k) {
      worker& victim = *workers_[(start + k) % n];
      if (&victim == &thief || victim.deque().empty()) continue;
      saw_work = true;
      if (job* j = victim.deque().steal(only)) return j;
    }
    if (!saw_work) break;
  }
  return nullptr;
}

void pool_state::detached_end() noexcept {
  if (detached_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard lock(detached_mutex_);  // pairs with the destructor's wait
    detached_done_.notify_all();
  }
}

void pool_state::detached_error(const std::exception_ptr& error) noexcept {
  detached_errors_.fetch_add(1, std::memory_order_relaxed);
  if (options_.on_error) {
    try {
      options_.on_error(error);
      return;
    } catch (...) {
      std::fputs("lanes: the compute pool's on_error handler threw; the exception is dropped\n", stderr);
      return;
    }
  }
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanes: a detached compute job failed: %s\n", e.what());
  } catch (...) {
    std::fputs("lanes: a detached compute job failed with a non-standard exception\n", stderr);
  }
}

pool_metrics pool_state::metrics() const {
  pool_metrics m;
  m.threads = workers_.size();
  for (const auto& w : workers_) {
    m.workers.push_back({w->jobs_run.load(std::memory_order_relaxed), w->steals.load(std::memory_order_relaxed),
                         w->sleeps.load(std::memory_order_relaxed)});
  }
  m.injected = injected_total_.load(std::memory_order_relaxed);
  m.detached_pending = detached_.load(std::memory_order_relaxed);
  m.detached_errors = detached_errors_.load(std::memory_order_relaxed);
  m.sleeping = wakeups_.waiters();
  return m;
}

}  // namespace lanes::compute::detail
