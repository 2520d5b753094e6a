// spsc_ring: a bounded lock-free queue from one producer thread to one
// consumer thread - the react lane's input and output.
//
//   auto [tx, rx] = lanes::react::spsc_ring<order>::make(4096);
//   tx.try_push(order{...});            // producer thread: false when full
//   if (auto o = rx.try_pop()) ...;     // consumer thread: nullopt when empty
//
// The two handles are move-only and there is one of each, so two
// producers (or two consumers) cannot share a ring without the type
// system saying no. Each handle keeps the ring alive; items still in it
// when the last handle goes are destroyed then.
//
// Why it is fast (rigtorp's SPSCQueue, Vyukov's bounded queues): the
// producer owns `tail`, the consumer owns `head`, each on its own cache
// line, so the threads never write the same line. Each handle keeps a
// private copy of the other side's index and reads the shared one only
// when its copy says full (producer) or empty (consumer): in a stream the
// cross-core read happens once per ring's worth of items, not per item.
// Indices run freely (64-bit: they do not wrap in centuries) and are masked
// into a power-of-two slot array, so full and empty need no spare slot.
// Batches (push_n, pop_n, write/commit, generate_streaming, read/consume)
// publish many items with one index store. The producer publishes at once
// (latency); the consumer hands freed slots back in batches (a sixteenth
// of the ring, or when it has read all it knew of, or before it sleeps).
//
// Orderings: the producer constructs a slot, then stores tail (release);
// the consumer loads tail (acquire) before it reads the slot. The consumer
// destroys what it took, then stores head (release); the producer loads
// head (acquire) before constructing in that slot again.
//
// Sleeping: spinning needs nothing from the ring. A side that parks (a
// thread on a futex, an io task) arms that side's wait slot, and the other
// side then checks the slot after every publish, which costs a fence
// (react/detail/ring_wake_slot.hpp). A ring pays only for what it is made for:
// ring_options says at make() which sides may park; arming a side the
// ring was not made for is a config_error.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <lanes/config_error.hpp>
#include <lanes/detail/ordering.hpp>
#include <lanes/react/detail/ring_wake_slot.hpp>
#include <lanes/react/detail/streaming_store.hpp>

namespace lanes::react {

// Which sides of a ring may sleep instead of spinning. Fixed at make().
struct ring_options {
  // The consumer may park (a thread on spin_then_park or blocking, an io
  // task awaiting items). Every publish by the producer then pays one
  // fence to look for a sleeper. Default: off (the consumer spins).
  bool consumer_may_park = false;
  // The producer may park waiting for space (an io task awaiting space, a
  // thread in push_wait). Every release by the consumer then pays one fence.
  bool producer_may_park = false;
};

// The most slots one ring may have: larger is a typo, not a plan.
inline constexpr std::size_t max_ring_capacity = std::size_t{1} << 32;

namespace detail {

// What a thread spinning on an empty consumer watches (react_thread's wait
// loop): plain pointers into the ring, read inline with no call per spin.
// Ready once the producer's index moves past where the consumer stands, or
// the producer is gone. A hint only: the consumer then reads the ring as
// usual (acquire on the tail) before it touches a slot.
struct empty_watch {
  const std::atomic<std::size_t>* tail = nullptr;
  std::size_t head = 0;             // the consumer's position: tail == head while empty
  const void* next_slot = nullptr;  // where the next item will land
  const std::atomic<bool>* producer_gone = nullptr;

  bool ready() const noexcept {
    // The slot is asked for before the tail is read: both lines come from
    // the producer's core, and issued in this order the two misses overlap
    // (one cross-core round trip per wake-up instead of two).
    __builtin_prefetch(next_slot, 0, 3);
    return tail->load(std::memory_order_acquire) != head || producer_gone->load(std::memory_order_relaxed);
  }
};

// x86-64 and most arm64 cores. (std::hardware_destructive_interference_size
// is not used: g++ warns that it may differ between compilations.)
inline constexpr std::size_t cache_line = 64;

template <class T>
class ring_state {
 public:
  ring_state(std::size_t capacity, ring_options options)
      : mask_(capacity - 1),
        options_(options),
        slots_(static_cast<T*>(::operator new (capacity * sizeof(T), std::align_val_t{slot_alignment}))) {}
  ring_state(const ring_state&) = delete;
  ring_state& operator=(const ring_state&) = delete;
  ~ring_state() {
    // Both handles are gone (their shared_ptr references ordered every
    // write before this): what is left between head and tail is ours.
    if constexpr (!std::is_trivially_destructible_v<T>) {
      const std::size_t tail = tail_.load(std::memory_order_relaxed);
      for (std::size_t i = head_.load(std::memory_order_relaxed); i != tail; ++i) slot(i)->~T();
    }
    ::operator delete (slots_, std::align_val_t{slot_alignment});
  }

  T* slot(std::size_t index) const noexcept { return slots_ + (index & mask_); }
  std::size_t capacity() const noexcept { return mask_ + 1; }

  static constexpr std::size_t slot_alignment = alignof(T) > cache_line ? alignof(T) : cache_line;

  // Read-only after construction: shared by both cores without traffic.
  const std::size_t mask_;
  const ring_options options_;
  T* const slots_;
  // Written by the producer only: the next index it will fill.
  alignas(cache_line) std::atomic<std::size_t> tail_{0};
  // Written by the consumer only: the next index it will read.
  alignas(cache_line) std::atomic<std::size_t> head_{0};
  // Armed by a sleeping consumer, notified by the producer (and the reverse).
  alignas(cache_line) ring_wake_slot consumer_waiting_;
  std::atomic<bool> producer_gone_{false};
  alignas(cache_line) ring_wake_slot producer_waiting_;
  std::atomic<bool> consumer_gone_{false};
};

// The ring's read-only part, copied into each handle so that the hot path
// reads only the handle's own cache line and the shared index it needs
// (one dependent load fewer per slot access).
// An empty handle (default-constructed, or moved from) keeps the default:
// no slots, capacity 0. So its push finds no free slot and its pop no item
// in the cached counts, and the refresh that follows (refresh_free_slots,
// refresh_available) finds no ring and answers 0: an empty handle is full
// and empty, never a null dereference, at no cost on the hot path.
template <class T>
struct ring_layout {
  T* slots = nullptr;
  std::size_t mask = ~std::size_t{0};  // capacity 0 until a ring is attached
  ring_options options{};
  T* slot(std::size_t index) const noexcept { return slots + (index & mask); }
  std::size_t capacity() const noexcept { return mask + 1; }
};

template <class T>
ring_layout<T> layout_of(const ring_state<T>& state) noexcept {
  return {state.slots_, state.mask_, state.options_};
}

// The n slots from index `from`, as one or two spans (the array wraps).
template <class Chunk, class T>
Chunk chunk_at(const ring_layout<T>& ring, std::size_t from, std::size_t n) noexcept {
  const std::size_t offset = from & ring.mask;
  const std::size_t until_end = ring.capacity() - offset;
  if (n <= until_end) return Chunk{{ring.slot(from), n}, {}};
  return Chunk{{ring.slot(from), until_end}, {ring.slots, n - until_end}};
}

[[noreturn]] inline void throw_not_made_to_park(const char* side) {
  throw config_error(std::string("lanes::react::spsc_ring: the ") + side +
                     " tried to park, but the ring was made without ring_options{." + side +
                     "_may_park = true}: make it with that option, or use a spinning wait strategy");
}

}  // namespace detail

template <class T>
class alignas(detail::cache_line) ring_producer;
template <class T>
class alignas(detail::cache_line) ring_consumer;

template <class T>
class spsc_ring {
  static_assert(std::is_object_v<T> && !std::is_const_v<T>, "spsc_ring<T>: T must be a non-const object type");
  static_assert(std::is_nothrow_destructible_v<T>, "spsc_ring<T>: T's destructor must not throw");
  static_assert(std::is_nothrow_move_constructible_v<T>,
                "spsc_ring<T>: T must be nothrow move-constructible (popping moves an item out of its slot)");

 public:
  using producer = ring_producer<T>;
  using consumer = ring_consumer<T>;
  struct handles {
    ring_producer<T> producer;
    ring_consumer<T> consumer;
  };

  // capacity: a power of two in [1, max_ring_capacity]; anything else is a
  // config_error (a ring silently larger than asked would hide a typo).
  static handles make(std::size_t capacity, ring_options options = {}) {
    if (capacity == 0 || (capacity & (capacity - 1)) != 0 || capacity > max_ring_capacity) {
      throw config_error("lanes::react::spsc_ring: capacity " + std::to_string(capacity) +
                         " is not a power of two between 1 and 2^32 (try 1024 or 4096)");
    }
    auto state = std::make_shared<detail::ring_state<T>>(capacity, options);
    return handles{ring_producer<T>(state), ring_consumer<T>(std::move(state))};
  }
};

// The producing side. Only the thread that owns it may call it.
// Each handle has a cache line of its own (alignas): its private index and
// cached copy are written on every push, and `auto [tx, rx] = make()`
// would otherwise put both handles' hot fields on one line, so the two
// cores would fight over it on every item (measured: docs/benchmarks.md,
// S10).
template <class T>
class alignas(detail::cache_line) ring_producer {
 public:
  ring_producer() noexcept = default;  // an empty handle, to be assigned
  ring_producer(ring_producer&& other) noexcept { swap(other); }
  ring_producer& operator=(ring_producer&& other) noexcept {
    ring_producer(std::move(other)).swap(*this);
    return *this;
  }
  ring_producer(const ring_producer&) = delete;
  ring_producer& operator=(const ring_producer&) = delete;
  ~ring_producer() {
    if (!state_) return;
    state_->producer_gone_.store(true, lanes::detail::dekker_store);
    lanes::detail::dekker_fence();
    state_->consumer_waiting_.notify();  // a consumer asleep on an empty ring learns it stays empty
  }

  explicit operator bool() const noexcept { return state_ != nullptr; }
  std::size_t capacity() const noexcept { return layout_.capacity(); }
  const ring_options& options() const noexcept { return layout_.options; }

  bool try_push(const T& item) requires std::is_copy_constructible_v<T> { return try_emplace(item); }
  bool try_push(T&& item) { return try_emplace(std::move(item)); }

  // Constructs an item in place. False (and nothing constructed) when full.
  // If the constructor throws, the ring is unchanged.
  template <class... Args>
  bool try_emplace(Args&&... args) {
    if (free_slots_cached() == 0 && refresh_free_slots() == 0) return false;
    ::new (static_cast<void*>(layout_.slot(tail_))) T(std::forward<Args>(args)...);
    publish(tail_ + 1);
    return true;
  }

  // Constructs up to `count` items from `first` (use std::make_move_iterator
  // to move) and publishes them with one store. Returns how many it took.
  template <class InputIt>
  std::size_t push_n(InputIt first, std::size_t count) {
    std::size_t room = free_slots_cached();
    if (room < count) room = refresh_free_slots();
    const std::size_t n = count < room ? count : room;
    std::size_t done = 0;
    if constexpr (std::is_nothrow_constructible_v<T, decltype(*first)>) {
      for (; done < n; ++done, ++first) ::new (static_cast<void*>(layout_.slot(tail_ + done))) T(*first);
    } else {
      try {
        for (; done < n; ++done, ++first) ::new (static_cast<void*>(layout_.slot(tail_ + done))) T(*first);
      } catch (...) {
        if (done != 0) publish(tail_ + done);  // what was built is kept; the throw is the caller's
        throw;
      }
    }
    if (n != 0) publish(tail_ + n);
    return n;
  }

  // Free slots as raw storage, for types with no constructor to run:
  // write into first then second, then commit(k) publishes the first k.
  struct write_chunk {
    std::span<T> first;
    std::span<T> second;
    std::size_t size() const noexcept { return first.size() + second.size(); }
    T& operator[](std::size_t i) const noexcept { return i < first.size() ? first[i] : second[i - first.size()]; }
  };
  write_chunk write(std::size_t max) requires(
      std::is_trivially_copyable_v<T>&& std::is_trivially_default_constructible_v<T>) {
    std::size_t room = free_slots_cached();
    if (room < max) room = refresh_free_slots();
    return detail::chunk_at<write_chunk>(layout_, tail_, max < room ? max : room);
  }
  void commit(std::size_t k) noexcept
      requires(std::is_trivially_copyable_v<T>&& std::is_trivially_default_constructible_v<T>) {
    if (k != 0) publish(tail_ + k);
  }

  // Up to `max` items made by gen(0), gen(1), ..., written with streaming
  // (non-temporal) stores and published with one store; returns how many.
  // For a producer and a consumer on different cores: a plain store (as
  // write/commit makes) first fetches the slot's line back from the
  // consumer, which read it on the ring's last lap; a streaming store does
  // not (react/detail/streaming_store.hpp; measured: docs/benchmarks.md,
  // S10). With the two threads on SMT siblings of one
  // core, which share the line in cache, write/commit is the faster one.
  // If gen throws, nothing of this call is published.
  template <class Gen>
  std::size_t generate_streaming(std::size_t max, Gen&& gen) requires(std::is_trivially_copyable_v<T> &&
                                                                      sizeof(T) % 8 == 0 && alignof(T) >= 8 &&
                                                                      std::is_invocable_r_v<T, Gen&, std::size_t>) {
    std::size_t room = free_slots_cached();
    if (room < max) room = refresh_free_slots();
    const std::size_t n = max < room ? max : room;
    for (std::size_t i = 0; i < n; ++i) detail::streaming_store(layout_.slot(tail_ + i), static_cast<T>(gen(i)));
    if (n != 0) {
      detail::streaming_fence();  // the items before the tail that publishes them
      publish(tail_ + n);
    }
    return n;
  }

  // Free slots as the consumer last handed them back (reads its index; the
  // consumer hands slots back in batches, see ring_consumer::release).
  std::size_t free_slots() noexcept { return refresh_free_slots(); }
  // The consumer handle was dropped: nothing pushed will be read. (An empty
  // handle has no consumer either.)
  bool consumer_gone() const noexcept { return !state_ || state_->consumer_gone_.load(std::memory_order_acquire); }

  // Sleeping until there is space (for waits and the io bridge). Returns
  // true when the target will be called: the slot is armed, or the
  // consumer already took it and called the target (then sleeping returns
  // at once); the caller sleeps and then calls disarm_wait(). False when
  // the re-check found space (or the consumer gone) and the slot was taken
  // back before anyone called the target: do not sleep. The difference
  // matters to an io task, for which a wake-up it did not wait for would
  // be a spurious resumption. A config_error unless the ring was made with
  // producer_may_park.
  bool arm_wait_for_space(detail::wake_target target) {
    if (!state_) return false;  // an empty handle: no consumer will make room
    if (!layout_.options.producer_may_park) detail::throw_not_made_to_park("producer");
    state_->producer_waiting_.arm(target);
    lanes::detail::dekker_fence();
    head_cache_ = state_->head_.load(lanes::detail::dekker_load);
    if (free_slots_cached() == 0 && !state_->consumer_gone_.load(lanes::detail::dekker_load)) return true;
    return !state_->producer_waiting_.disarm();
  }
  // True when it was still armed (no wake-up was sent).
  bool disarm_wait() noexcept { return state_->producer_waiting_.disarm(); }

  void swap(ring_producer& other) noexcept {
    std::swap(state_, other.state_);
    std::swap(layout_, other.layout_);
    std::swap(tail_, other.tail_);
    std::swap(head_cache_, other.head_cache_);
  }

 private:
  friend class spsc_ring<T>;
  explicit ring_producer(std::shared_ptr<detail::ring_state<T>> state) noexcept
      : state_(std::move(state)), layout_(detail::layout_of(*state_)) {}

  std::size_t free_slots_cached() const noexcept { return layout_.capacity() - (tail_ - head_cache_); }
  std::size_t refresh_free_slots() noexcept {
    if (!state_) return 0;  // an empty handle (ring_layout)
    head_cache_ = state_->head_.load(std::memory_order_acquire);
    return free_slots_cached();
  }
  void publish(std::size_t new_tail) noexcept {
    tail_ = new_tail;
    state_->tail_.store(new_tail, lanes::detail::dekker_store);
    if (layout_.options.consumer_may_park) {
      lanes::detail::dekker_fence();
      // The consumer is woken only if an item is still there for it (see
      // ring_wake_slot::notify_if: a late notification must not wake it).
      state_->consumer_waiting_.notify_if([this] { return state_->head_.load(std::memory_order_acquire) != tail_; });
    }
  }

  std::shared_ptr<detail::ring_state<T>> state_;
  detail::ring_layout<T> layout_;
  std::size_t tail_ = 0;        // == state_->tail_: only this handle writes it
  std::size_t head_cache_ = 0;  // the consumer's head as last read: never ahead of it
};

// The consuming side. Only the thread that owns it may call it.
template <class T>
class alignas(detail::cache_line) ring_consumer {
 public:
  ring_consumer() noexcept = default;
  ring_consumer(ring_consumer&& other) noexcept { swap(other); }
  ring_consumer& operator=(ring_consumer&& other) noexcept {
    ring_consumer(std::move(other)).swap(*this);
    return *this;
  }
  ring_consumer(const ring_consumer&) = delete;
  ring_consumer& operator=(const ring_consumer&) = delete;
  ~ring_consumer() {
    if (!state_) return;
    publish_head();  // the ring's destructor destroys what lies past the shared head
    state_->consumer_gone_.store(true, lanes::detail::dekker_store);
    lanes::detail::dekker_fence();
    state_->producer_waiting_.notify();
  }

  explicit operator bool() const noexcept { return state_ != nullptr; }
  std::size_t capacity() const noexcept { return layout_.capacity(); }
  const ring_options& options() const noexcept { return layout_.options; }

  // The oldest item, or nullptr when the ring is empty. It stays in the
  // ring until pop_front().
  T* front() noexcept {
    if (available_cached() == 0 && refresh_available() == 0) return nullptr;
    return layout_.slot(head_);
  }
  // Destroys the front item (front() must have returned one).
  void pop_front() noexcept {
    // After try_pop moved the item out: destroying a moved-from object is
    // what it is for (the analyzer calls it a use after move).
    layout_.slot(head_)->~T();  // NOLINT(clang-analyzer-cplusplus.Move)
    release(head_ + 1);
  }

  std::optional<T> try_pop() noexcept {
    T* item = front();
    if (item == nullptr) return std::nullopt;
    std::optional<T> out(std::move(*item));
    pop_front();
    return out;
  }
  bool try_pop(T& out) noexcept(std::is_nothrow_move_assignable_v<T>) {
    T* item = front();
    if (item == nullptr) return false;
    out = std::move(*item);
    pop_front();
    return true;
  }

  // Moves up to `max` items to `out` and releases their slots with one
  // store. Returns how many.
  template <class OutputIt>
  std::size_t pop_n(OutputIt out, std::size_t max) {
    const read_chunk chunk = read(max);
    std::size_t done = 0;
    try {
      for (; done < chunk.size(); ++done) *out++ = std::move(chunk[done]);
    } catch (...) {
      consume(done);  // the ones handed over are gone from the ring
      throw;
    }
    consume(done);
    return done;
  }

  // Up to `max` items in place: read them in first then second, then
  // consume(k) destroys the first k and frees their slots.
  struct read_chunk {
    std::span<T> first;
    std::span<T> second;
    std::size_t size() const noexcept { return first.size() + second.size(); }
    T& operator[](std::size_t i) const noexcept { return i < first.size() ? first[i] : second[i - first.size()]; }
  };
  read_chunk read(std::size_t max) noexcept {
    std::size_t ready = available_cached();
    if (ready < max) ready = refresh_available();
    return detail::chunk_at<read_chunk>(layout_, head_, max < ready ? max : ready);
  }
  void consume(std::size_t k) noexcept {
    if (k == 0) return;
    if constexpr (!std::is_trivially_destructible_v<T>) {
      for (std::size_t i = 0; i < k; ++i) layout_.slot(head_ + i)->~T();
    }
    release(head_ + k);
  }

  // Items ready right now (reads the producer's index).
  std::size_t size() noexcept { return refresh_available(); }
  bool empty() noexcept { return available_cached() == 0 && refresh_available() == 0; }
  // The producer handle was dropped: once empty, the ring stays empty. (An
  // empty handle has no producer either.)
  bool producer_gone() const noexcept { return !state_ || state_->producer_gone_.load(std::memory_order_acquire); }
  // What to spin on until an item comes (see detail::empty_watch). Hands
  // freed slots back first: the producer may be waiting for them. Valid
  // until this side next takes an item. Not on an empty handle (a
  // react_thread refuses one as input).
  detail::empty_watch watch() noexcept {
    publish_head();
    return {&state_->tail_, head_, layout_.slot(head_), &state_->producer_gone_};
  }
  // The most items this consumer has seen waiting at once (sampled each
  // time it reads the producer's index, which it does when it has consumed
  // all it knew of).
  std::size_t high_water() const noexcept { return high_water_; }

  // Sleeping until items arrive (for parking wait strategies and the io
  // bridge); see ring_producer::arm_wait_for_space.
  bool arm_wait_for_items(detail::wake_target target) {
    if (!state_) return false;  // an empty handle: no producer will send
    if (!layout_.options.consumer_may_park) detail::throw_not_made_to_park("consumer");
    publish_head();  // a producer waiting for space must see it before this side sleeps
    state_->consumer_waiting_.arm(target);
    lanes::detail::dekker_fence();
    tail_cache_ = state_->tail_.load(lanes::detail::dekker_load);
    if (available_cached() == 0 && !state_->producer_gone_.load(lanes::detail::dekker_load)) return true;
    return !state_->consumer_waiting_.disarm();
  }
  bool disarm_wait() noexcept { return state_->consumer_waiting_.disarm(); }

  void swap(ring_consumer& other) noexcept {
    std::swap(state_, other.state_);
    std::swap(layout_, other.layout_);
    std::swap(head_, other.head_);
    std::swap(published_head_, other.published_head_);
    std::swap(tail_cache_, other.tail_cache_);
    std::swap(high_water_, other.high_water_);
  }

 private:
  friend class spsc_ring<T>;
  explicit ring_consumer(std::shared_ptr<detail::ring_state<T>> state) noexcept
      : state_(std::move(state)), layout_(detail::layout_of(*state_)) {}

  std::size_t available_cached() const noexcept { return tail_cache_ - head_; }
  std::size_t refresh_available() noexcept {
    if (!state_) return 0;  // an empty handle (ring_layout)
    publish_head();
    // No prefetch of the head slot here (empty_watch has one): in a stream
    // the head slot is often the line the producer is filling, and taking
    // it away costs the producer a miss per store (measured:
    // docs/benchmarks.md, S10).
    tail_cache_ = state_->tail_.load(std::memory_order_acquire);
    const std::size_t ready = available_cached();
    if (ready > high_water_) high_water_ = ready;
    return ready;
  }
  // Freed slots are handed back to the producer in batches: at the latest
  // every capacity/16 items, and whenever this side has used up what it
  // knew of (refresh_available) or is about to sleep. Per item, the head's
  // cache line would move to the producer's core and back on every pop
  // when the ring runs full.
  void release(std::size_t new_head) noexcept {
    head_ = new_head;
    if (head_ - published_head_ >= release_batch()) publish_head();
  }
  std::size_t release_batch() const noexcept { return (layout_.mask >> 4) + 1; }
  void publish_head() noexcept {
    if (head_ == published_head_) return;
    published_head_ = head_;
    state_->head_.store(head_, lanes::detail::dekker_store);
    if (layout_.options.producer_may_park) {
      lanes::detail::dekker_fence();
      // Likewise: woken only if a slot is still free for it.
      state_->producer_waiting_.notify_if(
          [this] { return state_->tail_.load(std::memory_order_acquire) - head_ < layout_.capacity(); });
    }
  }

  std::shared_ptr<detail::ring_state<T>> state_;
  detail::ring_layout<T> layout_;
  std::size_t head_ = 0;            // the next item to read
  std::size_t published_head_ = 0;  // == state_->head_: only this handle writes it; <= head_
  std::size_t tail_cache_ = 0;      // the producer's tail as last read: never ahead of it
  std::size_t high_water_ = 0;
};

}  // namespace lanes::react
