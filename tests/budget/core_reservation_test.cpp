// Core reservations: a react thread owns its CPU, the budget counts the
// mask without it, and lane threads are moved off it while it is held.
#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

#include <lanes/budget.hpp>
#include <lanes/config_error.hpp>

#include "budget/affinity.hpp"
#include "budget/core_reservations.hpp"

namespace {

using lanes::detail::affinity_cpus;
using lanes::detail::reserve_core;
using lanes::detail::reserved_cores;

bool contains(const std::vector<unsigned>& cpus, unsigned cpu) {
  return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end();
}

#define REQUIRE_CPUS(n) \
  if (affinity_cpus().size() < (n)) GTEST_SKIP() << "needs " << (n) << " CPUs in the mask"

TEST(CoreReservation, DefaultTakesTheHighestCpuAndGivesItBack) {
  REQUIRE_CPUS(2U);
  const auto mask = affinity_cpus();
  const unsigned before = lanes::probe_cpu_limits().affinity_cpus;
  {
    auto held = reserve_core(std::nullopt);
    EXPECT_EQ(held.cpu(), mask.back());
    EXPECT_EQ(reserved_cores(), std::vector<unsigned>{mask.back()});
    const auto limits = lanes::probe_cpu_limits();
    EXPECT_EQ(limits.affinity_cpus, before - 1);
    EXPECT_EQ(limits.reserved_cores, std::vector<unsigned>{mask.back()});
  }
  EXPECT_TRUE(reserved_cores().empty());
  EXPECT_EQ(lanes::probe_cpu_limits().affinity_cpus, before);
}

TEST(CoreReservation, ExplicitCpuOutsideTheMaskIsAConfigError) {
  const auto mask = affinity_cpus();
  try {
    (void)reserve_core(mask.back() + 1000);
    FAIL() << "expected config_error";
  } catch (const lanes::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("not in this process's affinity mask"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(reserved_cores().empty());
}

TEST(CoreReservation, OneReactThreadPerCore) {
  REQUIRE_CPUS(2U);
  auto held = reserve_core(affinity_cpus().front());
  try {
    (void)reserve_core(held.cpu(), /*allow_last=*/true);
    FAIL() << "expected config_error";
  } catch (const lanes::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("already owned"), std::string::npos) << e.what();
  }
}

TEST(CoreReservation, TheLastCpuNeedsExplicitPermission) {
  REQUIRE_CPUS(2U);
  const auto mask = affinity_cpus();
  std::vector<lanes::detail::core_reservation> held;
  for (std::size_t i = 0; i + 1 < mask.size(); ++i) held.push_back(reserve_core(mask[i]));
  try {
    (void)reserve_core(mask.back());
    FAIL() << "expected config_error";
  } catch (const lanes::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("last one left"), std::string::npos) << e.what();
  }
  auto last = reserve_core(mask.back(), /*allow_last=*/true);
  EXPECT_EQ(reserved_cores().size(), mask.size());
  EXPECT_THROW((void)reserve_core(std::nullopt, true), lanes::config_error);  // nothing left at all
}

TEST(CoreReservation, MovedReservationReleasesOnce) {
  REQUIRE_CPUS(2U);
  auto a = reserve_core(std::nullopt);
  lanes::detail::core_reservation b = std::move(a);
  a.release();  // moved-from: nothing to give back
  EXPECT_EQ(reserved_cores().size(), 1U);
  b = lanes::detail::core_reservation();
  EXPECT_TRUE(reserved_cores().empty());
}

// A registered lane thread leaves the reserved CPU while it is held, and
// is given it back when it is released; a thread registered while a CPU is
// held starts off it.
TEST(CoreReservation, LaneThreadsMoveOffReservedCpus) {
  REQUIRE_CPUS(2U);
  const auto mask = affinity_cpus();
  std::promise<pid_t> tid_promise;
  std::atomic<bool> done{false};
  std::thread lane([&] {
    lanes::detail::lane_thread_scope scope;
    tid_promise.set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  const pid_t tid = tid_promise.get_future().get();
  EXPECT_EQ(affinity_cpus(tid), mask);
  {
    auto held = reserve_core(std::nullopt);
    EXPECT_FALSE(contains(affinity_cpus(tid), held.cpu()));
    EXPECT_EQ(affinity_cpus(tid).size(), mask.size() - 1);

    std::thread late([&] {
      lanes::detail::lane_thread_scope scope;
      EXPECT_FALSE(contains(affinity_cpus(), held.cpu()));
    });
    late.join();
    EXPECT_EQ(affinity_cpus(), mask) << "the reserving thread is not a lane thread: it keeps its mask";
  }
  EXPECT_EQ(affinity_cpus(tid), mask);
  done = true;
  lane.join();
}

}  // namespace
