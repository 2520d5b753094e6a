// task_header: the scheduler's view of a spawned task. Users never touch it;
// it is public only because join_handle<T> is a template.
//
// Ownership: a header is reference counted (the high bits of `state`).
// References are held by: the runtime's list of live tasks (until the task
// completes, or a little later when it completed away from the worker
// whose list holds it: src/io/live_tasks.hpp), the join_handle (until
// dropped), each run-queue entry, each registered waker, and the worker
// polling it (the running reference, plus the spare ones of
// grant_spare_refs). The coroutine frame is destroyed when the task
// completes or is cancelled, always by the one thread that holds RUNNING
// (or by the runtime's destructor once every worker has stopped); the
// header itself is freed by whoever drops the last reference.
//
// The state word and its transitions: task_state.hpp. A task marked
// CANCELLED (abort, a timeout, a lost race, shutdown) is destroyed by the
// worker that next holds RUNNING instead of resumed - once no work handed
// to another lane from the frame is still running (pending_work.hpp):
// until then the task stays suspended with CANCELLED set, and each wake
// settles again. Every lanes awaitable deregisters itself in its
// destructor, so destroying a suspended frame never leaves a waker
// pointing into freed memory.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>

#include <lanes/io/detail/frame_allocator.hpp>
#include <lanes/io/detail/pending_work.hpp>
#include <lanes/io/detail/task_state.hpp>
#include <lanes/source_location.hpp>

namespace lanes::detail {

class scheduler;

// Where a woken task goes in its worker's queues: next (the LIFO slot, for
// a task woken by the one running on this worker: it likely reads what
// that one just wrote) or at the back (spawns, yields, wakes from the
// driver and the timers, which keep their order).
enum class placement { next, back };

class task_header;

// A counted reference to a task that wakes it once. Move-only.
class waker {
 public:
  waker() noexcept = default;
  // Adopts a reference; wakes only the suspension of `generation`.
  waker(task_header* task, std::uint64_t generation) noexcept : task_(task), generation_(generation) {}
  waker(waker&& other) noexcept : task_(other.task_), generation_(other.generation_) { other.task_ = nullptr; }
  waker& operator=(waker&& other) noexcept;
  waker(const waker&) = delete;
  waker& operator=(const waker&) = delete;
  ~waker();

  explicit operator bool() const noexcept { return task_ != nullptr; }
  // Moves `other` into this waker, which is known to be empty: no reference
  // to drop, so none of the assignment's unref path (a hot slot, filled once).
  void fill(waker&& other) noexcept {
    task_ = other.task_;
    generation_ = other.generation_;
    other.task_ = nullptr;
  }
  // Whether this waker wakes `task` (false when empty): for a slot that
  // holds one waiter, so that a waiter leaving takes back only its own.
  bool targets(const task_header* task) const noexcept { return task_ != nullptr && task_ == task; }
  // Schedules the task (or marks it notified if it is running); consumes the
  // waker. The task goes next on this worker if a task runs here (the
  // waker's caller), else at the back.
  void wake() && noexcept;
  void wake(placement where) && noexcept;
  // Starts loading what wake() touches of the task (task_header::prefetch).
  void prefetch() const noexcept;

 private:
  task_header* task_ = nullptr;
  std::uint64_t generation_ = 0;
};

class task_header {
 public:
  // `home_worker`: spawn_local's worker index, or -1.
  task_header(scheduler* owner, std::coroutine_handle<> root, const char* name, lanes::source_location where,
              int home_worker = -1) noexcept
      : home_worker_(static_cast<std::int16_t>(home_worker)),
        root_(root),
        resume_point_(root),
        owner_(owner),
        name_(name),
        spawned_at_(where) {}
  task_header(const task_header&) = delete;
  task_header& operator=(const task_header&) = delete;
  // Headers come from the per-thread frame cache too; the virtual
  // destructor hands the derived type's size to this sized delete.
  static void* operator new(std::size_t size) { return allocate_frame(size); }
  static void operator delete(void* header, std::size_t size) noexcept { free_frame(header, size); }

  // --- references ---
  void ref() noexcept { state_.ref(); }
  // Drops `count` references; the last one frees the task.
  void unref(std::uint64_t count = 1) noexcept {
    if (state_.unref(count)) delete this;
  }

  // Wakes from threads that are not the owner's workers, in flight: from
  // before such a wake reads the state until it no longer touches the
  // scheduler. Shutdown completes a task, then waits for this to drop to
  // zero before it may free the scheduler (scheduler::shutdown, step 4):
  // a wake whose CAS to SCHEDULED came before COMPLETE is counted (its
  // increment is ordered before that CAS), and one that comes after finds
  // COMPLETE and touches nothing of the scheduler.
  void foreign_wake_begin() noexcept { foreign_wakes_.fetch_add(1, std::memory_order_relaxed); }
  void foreign_wake_end() noexcept { foreign_wakes_.fetch_sub(1, std::memory_order_release); }
  bool foreign_wake_in_flight() const noexcept { return foreign_wakes_.load(std::memory_order_acquire) != 0; }
  // Only the thread running the task calls this, so the generation is stable.
  // A waker's reference comes from the spare ones the worker took for this
  // poll when it could (no atomic operation), else from a fetch_add.
  waker make_waker() noexcept {
    if (spare_refs_ != 0) {
      --spare_refs_;
      return waker(this, state_.generation() | race_tag_);
    }
    return waker(this, state_.ref_for_waker() | race_tag_);
  }
  // Spare references: the worker that claims RUNNING adds spare_refs_per_poll
  // references in the claiming CAS (free: the CAS happens anyway), and
  // whatever make_waker() did not use is dropped in the CAS that ends the
  // poll. So the count is never below the true number of references, and
  // a poll that makes a waker or two does no atomic operation for them.
  // Only the thread holding RUNNING reads or writes the field (the CASes on
  // state_ order one holder's accesses before the next one's).
  static constexpr std::uint8_t spare_refs_per_poll = 4;
  void grant_spare_refs() noexcept { spare_refs_ = spare_refs_per_poll; }
  std::uint64_t take_spare_refs() noexcept { return std::exchange(spare_refs_, std::uint8_t{0}); }

  // --- races: several registrations for one suspension (io/detail/race.hpp) ---
  // Only the thread running the task calls these, so the generation is stable.
  // Starts (or, for a race nested in a branch of another, continues) the
  // race bits of the current suspension; returns the first free bit.
  unsigned race_bits_begin() noexcept;
  unsigned race_bits_used() const noexcept { return race_bits_used_; }
  // Claims the next bit; wakers made from now on carry it. false when all
  // max_race_bits are taken.
  bool race_claim_bit(unsigned& bit) noexcept {
    if (race_bits_used_ >= task_state::max_race_bits) return false;
    bit = race_bits_used_++;
    return true;
  }
  std::uint64_t race_tag() const noexcept { return race_tag_; }
  void set_race_tag(std::uint64_t tag) noexcept {
    race_tag_ = static_cast<std::uint8_t>(tag & task_state::race_tag_mask);
  }
  // The bits whose wakers fired for the suspension the task has just come
  // back from (read on resumption, before it suspends again).
  std::uint32_t race_bits_woken() const noexcept {
    return static_cast<std::uint32_t>(race_woken_.load(std::memory_order_acquire));
  }
  // A tagged waker fires: records its bit if its suspension is the one the
  // race bits belong to.
  void note_race_wake(std::uint64_t tagged_generation) noexcept;

  // --- what the awaitables use ---
  // The coroutine to resume next: the innermost one that suspended.
  void set_resume_point(std::coroutine_handle<> h) noexcept { resume_point_ = h; }

  // Work running on another lane for this task (pending_work.hpp). Only
  // the thread holding RUNNING calls these (or shutdown, workers stopped).
  void link_pending(pending_work& node) noexcept {
    node.task_ = this;
    node.prev_ = nullptr;
    node.next_ = pending_;
    if (pending_ != nullptr) pending_->prev_ = &node;
    pending_ = &node;
  }
  static void unlink_pending(pending_work& node) noexcept {
    task_header* task = node.task_;
    if (task == nullptr) return;
    if (node.prev_ != nullptr) {
      node.prev_->next_ = node.next_;
    } else {
      task->pending_ = node.next_;
    }
    if (node.next_ != nullptr) node.next_->prev_ = node.prev_;
    node.task_ = nullptr;
    node.prev_ = node.next_ = nullptr;
  }
  bool has_pending() const noexcept { return pending_ != nullptr; }
  // Settles every node (asks its work to stop; with `arm`, stores a waker
  // of this task in each whose work still runs). True when none is left
  // running: the frame may be destroyed.
  bool settle_pending(bool arm) noexcept {
    bool settled = true;
    for (pending_work* node = pending_; node != nullptr; node = node->next_) {
      if (!node->settle(arm ? this : nullptr)) settled = false;
    }
    return settled;
  }

  // Starts loading the two lines that a wake and a poll touch first: the
  // queue and live-list fields (home_worker, the spare references) in the
  // first, the state word, resume point and owner in the second. For loops
  // over cold tasks (S3's first polls, then its timer wakes),
  // each a cache miss that a prefetch a few tasks ahead overlaps with work.
  // A prefetch never faults, whatever became of the task meanwhile (so
  // this is static: no member call on a task that may be gone).
  static void prefetch(const task_header* task) noexcept {
    const auto* bytes = reinterpret_cast<const char*>(task);
    __builtin_prefetch(bytes, 1);
    __builtin_prefetch(bytes + 64, 1);
  }

  // --- join_handle ---
  bool is_complete() const noexcept { return state_.is_complete(); }
  enum class join_registration { registered, completed, taken };
  // Moves `w` in as the joiner's waker (registered), unless the task has
  // completed (completed) or another awaiter's waker is stored and waits
  // (taken: one slot, and a second waker would replace the first); then `w`
  // is left alone. "taken" is exact for awaiters on one thread; two threads
  // awaiting one handle at once race on the handle itself.
  join_registration register_joiner(waker& w) noexcept;
  // Takes the joiner's waker back if completion has not claimed it yet.
  void unregister_joiner() noexcept;
  // Clears JOIN_INTEREST; true when the task had completed.
  [[nodiscard]] bool drop_join_interest() noexcept { return state_.drop_join_interest(); }
  void abort() noexcept;
  bool was_cancelled() const noexcept { return cancelled_result_; }
  std::exception_ptr error() const noexcept { return error_; }
  // The join_handle was dropped after completion without taking the result:
  // a failure goes to the runtime's handler (or stderr if the runtime is gone).
  void report_unobserved_error() noexcept;
  // The join_handle took the result (so a failure was observed). Only the
  // handle's owner reads or writes the flag.
  void mark_result_taken() noexcept;
  bool result_taken() const noexcept { return result_taken_; }

  const char* name() const noexcept { return name_; }
  const lanes::source_location& spawned_at() const noexcept { return spawned_at_; }

  // --- the scheduler's side (src/io) ---
  task_state& state() noexcept { return state_; }
  std::coroutine_handle<> root() const noexcept { return root_; }
  std::coroutine_handle<> resume_point() const noexcept { return resume_point_; }
  scheduler* owner() const noexcept { return owner_; }
  void orphan() noexcept { owner_ = nullptr; }
  // Moves the result out of the finished root frame, then destroys the frame.
  void finish_frame() noexcept {
    take_result();
    destroy_frame();
  }
  // Destroys the frame without a result: the task was cancelled.
  void cancel_frame() noexcept {
    cancelled_result_ = true;
    destroy_frame();
  }
  // Completes as cancelled but leaves the frame allocated: shutdown gave up
  // waiting for work that still runs and reads it (pending_work.hpp).
  void abandon_frame() noexcept {
    cancelled_result_ = true;
    root_ = nullptr;
    resume_point_ = nullptr;
  }
  waker take_joiner() noexcept { return static_cast<waker&&>(joiner_); }

  // spawn_local: the worker this task must always run on, or -1.
  int home_worker() const noexcept { return home_worker_; }
  // The next task in a queue batch (inject_queue, local_queue's overflow):
  // read-only outside the queues that link it.
  task_header* queued_next() const noexcept { return queue_next_; }

 private:
  // The containers a task sits in keep their links in its header, each
  // guarded by its container (see there); only they touch them.
  friend class inject_queue;
  friend class local_queue;
  friend class live_tasks;
  friend void list_unobserved_error(task_header& task, scheduler& owner) noexcept;
  friend void orphan_unobserved_errors(scheduler* owner) noexcept;
  // Unlinks `task` from the unobserved-errors list at `head` (its mutex held).
  static void unlink_unobserved(task_header& task, task_header*& head) noexcept;

  task_header* queue_next_ = nullptr;  // the injection queue's link (guarded by its lock)
  // A task that failed while its join_handle was alive waits on its
  // runtime's list of unobserved errors until the handle takes or drops the
  // result (guarded by one process-wide mutex: a rare path). A runtime that
  // is destroyed first sets owner_ to nullptr for those it still lists.
  task_header* error_prev_ = nullptr;
  task_header* error_next_ = nullptr;
  // The live-task list's links (src/io/live_tasks.hpp): guarded by a
  // shard's lock, or by being its owner worker's own list. live_remote_next_
  // links a task another thread completed into its owner's hand-over stack.
  task_header* live_prev_ = nullptr;
  task_header* live_next_ = nullptr;
  task_header* live_remote_next_ = nullptr;

  // The small fields sit together (these and the ones below), so that a
  // spawned task's header fits a 192-byte block of the frame allocator
  // instead of a 256-byte one (S3: bytes per task).
  std::int16_t home_worker_ = -1;  // set at construction, never changed
  std::int16_t live_owner_ = -1;   // whose live list holds it: a worker's index, or -1 (shared)
  bool error_listed_ = false;      // on the unobserved-errors list (its mutex)
  bool cancelled_result_ = false;
  bool result_taken_ = false;        // see mark_result_taken()
  std::uint8_t race_tag_ = 0;        // the tag make_waker() adds (0: none); race.hpp
  std::uint8_t spare_refs_ = 0;      // see grant_spare_refs()
  std::uint8_t race_bits_used_ = 0;  // at most max_race_bits
  // See foreign_wake_begin(). 16 bits, in the padding beside the small
  // fields: as many threads at once as wake one task from outside its
  // runtime.
  std::atomic<std::uint16_t> foreign_wakes_{0};
  // The suspension generation race_bits_used_ counts for (generations are
  // multiples of 256 below 2^32, so the initial ~0 matches none).
  std::uint32_t race_generation_ = ~std::uint32_t{0};

 protected:
  virtual ~task_header() = default;
  // Moves the root promise's value or exception into the header.
  virtual void take_result() noexcept = 0;
  std::exception_ptr error_;

 private:
  void destroy_frame() noexcept {
    if (root_) root_.destroy();
    root_ = nullptr;
    resume_point_ = nullptr;
  }

  task_state state_;
  std::coroutine_handle<> root_;
  std::coroutine_handle<> resume_point_;
  scheduler* owner_;
  waker joiner_;                     // written by the joiner before JOIN_WAKER is set; read by completion after
  pending_work* pending_ = nullptr;  // see link_pending(): the RUNNING holder's
  // Race bookkeeping. race_woken_: the suspension generation (>> 8) in the
  // high 32 bits, a bit per fired race branch in the low 32; wakers set bits
  // (release) before they schedule the task, the task reads them (acquire)
  // after it was resumed. The rest is the running thread's own.
  std::atomic<std::uint64_t> race_woken_{0};
  const char* name_;
  lanes::source_location spawned_at_;
};

inline void waker::prefetch() const noexcept { task_header::prefetch(task_); }

}  // namespace lanes::detail
