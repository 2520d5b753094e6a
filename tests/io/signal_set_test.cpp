// signal_set: signals arrive as awaitables, in every set that listens,
// coalesced per signal; bad signals are clear errors.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include <lanes/compose/select.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/signal_set.hpp>
#include <lanes/io/sleep.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(SignalSet, ASignalFromAnotherThreadWakesEverySetThatListens) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  rt.block_on([]() -> task<void> {
    signal_set a{SIGUSR1, SIGUSR2};
    signal_set b{SIGUSR1};
    auto nothing = co_await select(a.recv(), sleep(1ms));
    EXPECT_EQ(nothing.index(), 1U);  // no signal yet: the sleep wins, the recv took nothing
    // A plain thread sends it to itself: the handler runs there, not on
    // any thread of the runtime. (Not kill(getpid()): ThreadSanitizer defers
    // a handler until its thread makes an intercepted call, and the kernel
    // may pick a thread blocked in a raw futex wait for good.)
    std::thread sender([] {
      std::this_thread::sleep_for(1ms);
      ::raise(SIGUSR1);
    });
    const int got_a = co_await a.recv();
    const int got_b = co_await b.recv();
    sender.join();
    EXPECT_EQ(got_a, SIGUSR1);
    EXPECT_EQ(got_b, SIGUSR1);
    ::raise(SIGUSR2);
    ::raise(SIGUSR2);  // coalesced with the first
    EXPECT_EQ(co_await a.recv(), SIGUSR2);
    auto again = co_await select(a.recv(), sleep(1ms));
    EXPECT_EQ(again.index(), 1U);
    auto none_for_b = co_await select(b.recv(), sleep(1ms));  // b does not listen to SIGUSR2
    EXPECT_EQ(none_for_b.index(), 1U);
  }());
}

TEST(SignalSet, SignalsThatCannotBeHandledAreRefused) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    EXPECT_THROW(signal_set({SIGKILL}), std::invalid_argument);
    EXPECT_THROW(signal_set({SIGSEGV}), std::invalid_argument);
    EXPECT_THROW(signal_set({0}), std::invalid_argument);
    EXPECT_THROW(signal_set({200}), std::invalid_argument);
    co_return;
  }());
}

TEST(SignalSet, SetsComeAndGoAndEachSeesOnlyWhatCameAfterIt) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    for (int round = 0; round < 100; ++round) {  // more than the 64 slots: slots are reused
      signal_set s{SIGUSR2};
      auto before = co_await select(s.recv(), sleep(10us));  // earlier deliveries are not news
      EXPECT_EQ(before.index(), 1U);
      ::raise(SIGUSR2);
      EXPECT_EQ(co_await s.recv(), SIGUSR2);
    }
  }());
}

}  // namespace
}  // namespace lanes
