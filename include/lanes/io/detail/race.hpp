// race: awaits several lanes awaitables in place, for one suspension, and
// resumes with the one that finished first. It is the single mechanism
// behind select(), timeout() and with_cancellation(): no spawn, no
// allocation, and the losers are cancelled the way every lanes awaitable
// is, by destroying their awaiters (before the race returns).
//
// How the task learns which branch fired: while branch i arms (runs its
// await_suspend), the task header tags every waker it makes with race bit
// i (task_header::race_claim_bit). A tagged waker that fires sets its bit
// before it schedules the task; on resumption the race reads the bits. A
// race nested in a branch of another race claims further bits in the same
// suspension, so branch i "fired" when any bit claimed while it armed is
// set. Every registration of one suspension carries the same generation,
// so the losers' late wakes are ignored by the scheduler.
//
// Losers whose work runs elsewhere (an offload, a blocking job: pending
// work that may read the task's frame, pending_work.hpp) are *settled*
// before the race returns: asked to stop, dropped if still queued, and
// waited for if running. Such a branch says so by a noexcept
// `bool settle(task_header* arm)` (true: nothing of it runs any more;
// else, with `arm`, it wakes that task when it ends). A race with such a
// branch (at any depth) resumes its task through a small coroutine of its
// own, the settle driver: the branches wake the driver, which fixes the
// winners, settles the losers (suspending again while any still runs) and
// only then transfers to the task's coroutine. Only the outermost race of
// a suspension makes a driver (it arms every branch below it with the
// driver's handle); nested races take part through fix_winners() and
// settle_losers(). A race without such branches makes no driver and
// allocates nothing.
//
// Rules the branches rely on (every lanes awaitable keeps them):
// - a branch whose await_ready() is true wins at once; the branches after
//   it are not started;
// - a branch whose await_suspend() returns false completed without waiting:
//   it wins; if branches before it had registered already, the race still
//   suspends (it wakes itself first), since returning false after a wake
//   may have been sent in this poll would resume the task spuriously later;
// - a branch that fired but lost is destroyed without await_resume(), and
//   its destructor gives back what it was granted (a message stays in the
//   channel, permits go back to the semaphore, a notification is passed on).
//   So is a branch that won by returning false from await_suspend when the
//   race then suspended (above) and the task was aborted before it ran
//   again: whatever an awaiter takes before await_resume (a permit, a lock,
//   a stored notification, a signal) is the task's only once await_resume
//   has run, and its destructor gives it back otherwise.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/task.hpp>

namespace lanes::detail {

template <class A>
decltype(auto) get_awaiter(A&& a) {
  if constexpr (requires { std::forward<A>(a).operator co_await(); }) {
    return std::forward<A>(a).operator co_await();
  } else if constexpr (requires { operator co_await(std::forward<A>(a)); }) {
    return operator co_await(std::forward<A>(a));
  } else {
    return std::forward<A>(a);
  }
}

// A void result stands as std::monostate in a variant or a tuple.
template <class T>
using value_or_monostate = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

// An awaiter that may be kept across races: given as an lvalue, it is
// awaited in place and outlives the race, so when it loses its
// registration is not removed with it. Such an awaiter says so
// (`kept_across_races`), leaves nothing behind that could misfire while
// it lingers, and drops what an earlier await left before it registers
// again: lanes::sleep, a deadline kept across the iterations of a select
// loop. Any other awaiter given as an lvalue would be registered twice
// when awaited again (a kept notified() or recv() corrupted its wait list;
// a kept sleep, the timer wheel), and a loser's grant (a permit, a
// notification) would stay with it after the race returned.
template <class T>
concept keepable_awaiter = T::kept_across_races;

// A branch whose losing needs settling (see the top of this file).
template <class T>
concept settling_awaiter = requires(T& a, task_header* arm) {
  { a.settle(arm) }
  noexcept->std::same_as<bool>;
};
// A race used as a branch of another race (select, timeout,
// with_cancellation nested): when it wins, its own losers are settled too.
template <class T>
concept nested_race = settling_awaiter<T> && requires(T& a, task_header* arm) {
  a.fix_winners();
  { a.settle_losers(arm) }
  noexcept->std::same_as<bool>;
};

// The driver suspends here until one of the wakers its settle armed fires.
struct until_woken {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const {
    require_current_task("lanes race").set_resume_point(h);  // the driver itself
  }
  void await_resume() const noexcept {}
};

// The settle driver: a task<void> awaited by the task's coroutine as any
// task<void> is (its frame from the frame cache, its exception rethrown to
// the awaiter, symmetric transfer back at its end), except that the race
// resumes it through the branches' wakers rather than at once. Its body:
// fix every winner of the race tree, then settle the losers until none runs.
template <class Race>
task<void> drive_settling(Race& race) {
  race.fix_winners();
  task_header& self = require_current_task("lanes race");
  while (!race.settle_losers(&self)) co_await until_woken{};
}

// One branch: the awaitable (owned when given as an rvalue, referred to
// when given as an lvalue: A is then a reference type) and, if it is not its own awaiter, the
// awaiter made from it on first use (the awaiter may point into it, so the
// branch never moves once the race has started).
template <class A>
class race_branch {
  static constexpr bool self_awaiter = std::is_reference_v<decltype(get_awaiter(std::declval<A&&>()))>;
  using stored_awaiter = std::remove_cvref_t<decltype(get_awaiter(std::declval<A&&>()))>;
  static_assert(!std::is_lvalue_reference_v<A> || !self_awaiter || keepable_awaiter<stored_awaiter>,
                "lanes: this awaiter cannot be kept across a select, timeout or with_cancellation (an lvalue "
                "is awaited in place, and a loser that is not destroyed keeps its registration): pass a "
                "fresh one each time (an rvalue, such as rx.recv()), or keep the awaitable that makes it "
                "(a join_handle, a oneshot receiver). A sleep may be kept, as may an awaiter of yours that "
                "declares kept_across_races (see race.hpp)");

 public:
  using result_type = decltype(std::declval<stored_awaiter&>().await_resume());

  explicit race_branch(A&& a) : awaitable_(std::forward<A>(a)) {}
  // Before the race starts only (no awaiter made yet), as for every lanes
  // awaiter: so that a race can be a branch of another race.
  // Not noexcept: it moves the user's awaitable, whatever that promises.
  race_branch(race_branch&& other)  // NOLINT(performance-noexcept-move-constructor)
      : awaitable_(std::forward<A>(other.awaitable_)) {}
  race_branch(const race_branch&) = delete;
  race_branch& operator=(const race_branch&) = delete;

  // Losing this branch needs settling (at any depth). Not for an awaitable
  // kept by the caller (an lvalue, such as a spawn_blocking handle): as a
  // join_handle that loses leaves its task running, a kept handle that
  // loses leaves its job queued or running, to be awaited later; its
  // awaiter only deregisters.
  static constexpr bool settles = settling_awaiter<stored_awaiter> && !std::is_lvalue_reference_v<A>;

  stored_awaiter& awaiter() {
    if constexpr (self_awaiter) {
      return awaitable_;
    } else {
      if (!awaiter_) awaiter_.emplace(get_awaiter(std::forward<A>(awaitable_)));
      return *awaiter_;
    }
  }

  // true: suspended, waiting; false: completed without waiting.
  template <class Promise>
  bool suspend(std::coroutine_handle<Promise> h) {
    using suspend_result = decltype(awaiter().await_suspend(h));
    static_assert(std::is_void_v<suspend_result> || std::is_same_v<suspend_result, bool>,
                  "lanes: a race branch whose await_suspend transfers to another coroutine must be a task "
                  "(select, timeout and with_cancellation run tasks as child tasks)");
    if constexpr (std::is_same_v<suspend_result, bool>) {
      return awaiter().await_suspend(h);
    } else {
      awaiter().await_suspend(h);
      return true;
    }
  }

 private:
  A awaitable_;
  struct none {};
  [[no_unique_address]] std::conditional_t<self_awaiter, none, std::optional<stored_awaiter>> awaiter_;
};

// The race over `Awaitables...`. `Pick` chooses the winner among the
// branches that fired: `std::size_t operator()(std::uint32_t fired)`,
// bit i for branch i, never called with 0.
template <class Pick, class... Awaitables>
class race {
 public:
  static constexpr std::size_t size = sizeof...(Awaitables);
  static_assert(size >= 1 && size <= task_state::max_race_bits, "lanes: a race has 1 to 32 branches");

  explicit race(Pick pick, Awaitables&&... a) : pick_(pick), branches_(std::forward<Awaitables>(a)...) {}
  race(race&&) = default;  // NOLINT(performance-noexcept-move-constructor): before it starts only; as race_branch
  race(const race&) = delete;
  race& operator=(const race&) = delete;

  // Some branch, at any depth, needs settling when it loses.
  static constexpr bool settles = (race_branch<Awaitables>::settles || ...);

  bool await_ready() {
    const bool ready = first_ready(std::index_sequence_for<Awaitables...>{});
    if constexpr (settles) {
      // A loser's work may run already, though the loser never armed (a
      // spawn_blocking job starts when the handle is made): then the race
      // is not done until it is settled, which await_suspend waits for.
      if (ready && !settle_losers(nullptr)) return false;
    }
    return ready;
  }

  template <class Promise>
  bool await_suspend(std::coroutine_handle<Promise> h) {
    auto& self = require_current_task("co_await a lanes race (select, timeout, with_cancellation)");
    self.race_bits_begin();
    struct restore_tag {  // the enclosing race's branch (0: none), also when a branch throws
      task_header& self;
      std::uint64_t tag;
      ~restore_tag() { self.set_race_tag(tag); }
    } restore{self, self.race_tag()};
    bool all_waiting = false;
    std::coroutine_handle<> driver_entry;  // the outermost settling race's driver
    if constexpr (settles) {
      if (winner_known_) {
        // Decided in await_ready, losers still running. Nested: report
        // "completed" to the enclosing race, which settles them with its
        // own; outermost: wait for them through the driver.
        if (restore.tag != 0) return false;
        return !settles_now(self, start_driver(h));
      }
      if (restore.tag == 0) {
        // The outermost race (no enclosing race is arming one of its
        // branches): the branches wake the driver, which returns to `h`.
        driver_entry = start_driver(h);
        all_waiting = arm_all(self, driver_entry, std::index_sequence_for<Awaitables...>{});
      } else {
        all_waiting = arm_all(self, h, std::index_sequence_for<Awaitables...>{});
      }
    } else {
      all_waiting = arm_all(self, h, std::index_sequence_for<Awaitables...>{});
    }
    if (all_waiting) return true;
    if (winner_ != 0) {
      // Branches before the winner are registered, and one of them may have
      // woken this task already in this poll: suspend, and come back at once
      // (through the driver, which settles the losers, if there is one).
      self.make_waker().wake();
      return true;
    }
    // The first branch completed without waiting: nothing registered. The
    // branches after it never armed, but one may have work running already.
    if constexpr (settles) {
      if (restore.tag == 0) return !settles_now(self, driver_entry);
    }
    return false;
  }

  // The index of the branch that won. Call after resumption.
  std::size_t winner() {
    if (driver_.valid()) driver_.operator co_await().await_resume();  // rethrows what fix_winners threw

    if (!winner_known_) {
      auto& self = require_current_task("lanes race");
      const std::uint32_t bits = self.race_bits_woken();
      std::uint32_t fired = 0;
      for (std::size_t i = 0; i < size; ++i) {
        const auto span = bits_[i].second - bits_[i].first;
        const std::uint32_t mask = span >= 32 ? ~std::uint32_t{0} : ((std::uint32_t{1} << span) - 1) << bits_[i].first;
        if (armed_[i] && (bits & mask) != 0) fired |= std::uint32_t{1} << i;
      }
      if (fired == 0) {
        throw std::logic_error(
            "lanes: a race resumed with no branch fired (an awaiter resumed its task without a wake)");
      }
      winner_ = pick_(fired);
      winner_known_ = true;
    }
    return winner_;
  }

  // Resumes the winner `I` (call only when winner() == I).
  template <std::size_t I>
  decltype(auto) resume_branch() {
    return std::get<I>(branches_).awaiter().await_resume();
  }

  template <std::size_t I>
  using branch_result = typename race_branch<std::tuple_element_t<I, std::tuple<Awaitables...>>>::result_type;

  // --- settling (see the top of the file) ---
  // Lost as a whole: settles every branch.
  bool settle(task_header* arm) noexcept {
    return settle_branches(arm, size, std::index_sequence_for<Awaitables...>{});
  }
  // Won: fixes the winner, and the winners of the races nested in it, while
  // the race bits of this resumption are still the ones to read.
  void fix_winners() {
    const std::size_t won = winner();
    fix_nested_winner(won, std::index_sequence_for<Awaitables...>{});
  }
  // Won (after fix_winners): settles the losers, and those of the races
  // nested in the winner.
  bool settle_losers(task_header* arm) noexcept {
    return settle_branches(arm, winner_, std::index_sequence_for<Awaitables...>{});
  }

 private:
  template <std::size_t... I>
  bool first_ready(std::index_sequence<I...>) {
    // In order; stops at the first ready branch (the later ones never start).
    return ((std::get<I>(branches_).awaiter().await_ready() && (set_winner(I), true)) || ...);
  }

  template <class Promise, std::size_t... I>
  bool arm_all(task_header& self, std::coroutine_handle<Promise> h, std::index_sequence<I...>) {
    bool completed = false;
    ((completed = completed || !arm_one<I>(self, h)), ...);
    return !completed;
  }

  // false: branch I completed without waiting (it wins).
  template <std::size_t I, class Promise>
  bool arm_one(task_header& self, std::coroutine_handle<Promise> h) {
    unsigned bit = 0;
    if (!self.race_claim_bit(bit)) {
      throw runtime_misuse(
          "lanes: more than 32 branches wait in one suspension (nested select/timeout/"
          "with_cancellation): split the race, or run branches as tasks");
    }
    bits_[I].first = bit;
    self.set_race_tag(bit + 1);
    const bool waiting = std::get<I>(branches_).suspend(h);
    bits_[I].second = self.race_bits_used();
    armed_[I] = true;
    if (!waiting) set_winner(I);
    return waiting;
  }

  void set_winner(std::size_t i) noexcept {
    winner_ = i;
    winner_known_ = true;
  }

  // Makes the settle driver, to return to `h` when done; returns the
  // handle that resumes it (the branches' resume point).
  std::coroutine_handle<> start_driver(std::coroutine_handle<> h) {
    driver_ = drive_settling(*this);
    return driver_.operator co_await().await_suspend(h);
  }
  // The outermost race, its winner known before anything waited: settles
  // the losers, arming wakers; true when none runs (resume now), false
  // when the task must suspend until the driver (`entry`) has settled them.
  bool settles_now(task_header& self, std::coroutine_handle<> entry) {
    self.set_race_tag(0);  // the settle's wakers are no race branch's
    if (settle_losers(&self)) return true;
    self.set_resume_point(entry);
    return false;
  }

  // Settles the branches but `winner` (size: none won), and the losers
  // nested in `winner`: every settling branch, armed or not (a
  // spawn_blocking job runs before its branch arms; a branch that never
  // started anything settles at once). True when nothing of them runs.
  template <std::size_t... I>
  bool settle_branches(task_header* arm, std::size_t won, std::index_sequence<I...>) noexcept {
    bool settled = true;
    ((settled = settle_one<I>(arm, won) && settled), ...);
    return settled;
  }
  template <std::size_t I>
  bool settle_one(task_header* arm, std::size_t won) noexcept {
    using branch = std::tuple_element_t<I, decltype(branches_)>;
    if constexpr (!branch::settles) {
      return true;
    } else {
      auto& a = std::get<I>(branches_).awaiter();
      if (I != won) return a.settle(arm);
      if constexpr (nested_race<std::remove_cvref_t<decltype(a)>>) {
        return a.settle_losers(arm);
      } else {
        return true;
      }
    }
  }
  template <std::size_t... I>
  void fix_nested_winner(std::size_t won, std::index_sequence<I...>) {
    (void)((won == I && (fix_nested<I>(), true)) || ...);
  }
  template <std::size_t I>
  void fix_nested() {
    using branch = std::tuple_element_t<I, decltype(branches_)>;
    if constexpr (branch::settles) {
      auto& a = std::get<I>(branches_).awaiter();
      if constexpr (nested_race<std::remove_cvref_t<decltype(a)>>) a.fix_winners();
    }
  }

  Pick pick_;
  std::tuple<race_branch<Awaitables>...> branches_;
  std::array<std::pair<unsigned, unsigned>, size> bits_{};  // [first, end) of the race bits claimed while arming
  std::array<bool, size> armed_{};
  std::size_t winner_ = 0;
  bool winner_known_ = false;
  task<void> driver_;  // only for an outermost race with settling branches
};

// The winner policy of select (timeout and with_cancellation have theirs
// in guarded_race.hpp).
struct first_listed {  // select: the earliest branch among those that fired
  std::size_t operator()(std::uint32_t fired) const noexcept {
    return static_cast<std::size_t>(std::countr_zero(fired));
  }
};

}  // namespace lanes::detail
