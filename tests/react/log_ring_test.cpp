// The logging ring: records pushed without formatting come out formatted,
// in order per logger; a full ring drops and says so; stop() writes all.
#include <lanes/react/log_ring.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <lanes/config_error.hpp>

namespace {

using lanes::react::log_level;
using lanes::react::log_writer;

// A temporary file the writer writes to; read back after stop().
class temp_output {
 public:
  temp_output() : file_(std::tmpfile()) {}
  ~temp_output() { std::fclose(file_); }
  int fd() const { return fileno(file_); }
  std::vector<std::string> lines() const {
    std::string all;
    char buffer[4096];
    ssize_t n;
    off_t at = 0;
    while ((n = ::pread(fd(), buffer, sizeof buffer, at)) > 0) {
      all.append(buffer, static_cast<std::size_t>(n));
      at += n;
    }
    std::vector<std::string> out;
    std::istringstream in(all);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

 private:
  std::FILE* file_;
};

// The part after "<timestamp> <LEVEL> ".
std::string message_of(const std::string& line) { return line.size() > 37 ? line.substr(37) : line; }

enum class side : int { buy = 1, sell = -1 };

TEST(LogRing, FormatsEveryKindOfArgument) {
  temp_output out;
  auto writer = log_writer::builder().fd(out.fd()).start();
  auto log = writer.make_logger(64);
  int x = 0;
  EXPECT_TRUE(log.info("order {} side {} price {} ok {} tag {} name {}", 42U, side::sell, 101.25, true, 'Q', "ACME"));
  EXPECT_TRUE(log.warn("negative {} and {{literal braces}} and {}", -7, std::int64_t{-9'000'000'000}));
  EXPECT_TRUE(log.error("missing {} {}", 1));
  EXPECT_TRUE(log.debug("extra", 5, 6));
  EXPECT_TRUE(log.info("pointer {}", &x));
  writer.stop();
  const auto lines = out.lines();
  ASSERT_EQ(lines.size(), 5U);
  EXPECT_EQ(message_of(lines[0]), "order 42 side -1 price 101.25 ok true tag Q name ACME");
  EXPECT_EQ(lines[0].substr(31, 5), "INFO ");
  EXPECT_EQ(lines[0][10], 'T');
  EXPECT_EQ(lines[0][29], 'Z');
  EXPECT_EQ(message_of(lines[1]), "negative -7 and {literal braces} and -9000000000");
  EXPECT_EQ(lines[1].substr(31, 5), "WARN ");
  EXPECT_EQ(message_of(lines[2]), "missing 1 {?}");
  EXPECT_EQ(message_of(lines[3]), "extra 5 6");
  char expected_pointer[32];
  std::snprintf(expected_pointer, sizeof expected_pointer, "pointer %p", static_cast<void*>(&x));
  EXPECT_EQ(message_of(lines[4]), expected_pointer);
  EXPECT_EQ(writer.metrics().records_written, 5U);
}

TEST(LogRing, AFullRingDropsCountsAndSaysSo) {
  temp_output out;
  // A writer that looks rarely: during the burst it makes at most one pass
  // (its first), which frees at most 8 slots, so most of the burst drops.
  auto writer = log_writer::builder().fd(out.fd()).poll_interval(std::chrono::seconds(5)).start();
  auto log = writer.make_logger(8);
  constexpr int burst = 10'000;
  int kept = 0;
  for (int i = 0; i < burst; ++i) kept += log.info("n {}", i) ? 1 : 0;
  EXPECT_LE(kept, 16);
  EXPECT_EQ(log.dropped(), static_cast<std::uint64_t>(burst - kept));
  writer.stop();
  std::uint64_t reported = 0;
  int written = 0;
  int last = -1;
  for (const auto& line : out.lines()) {
    unsigned long long n = 0;
    const auto at = line.find("ring was full: ");
    if (at != std::string::npos && std::sscanf(line.c_str() + at, "ring was full: %llu", &n) == 1) {
      reported += n;
      continue;
    }
    int i = -1;
    ASSERT_EQ(std::sscanf(message_of(line).c_str(), "n %d", &i), 1) << line;
    EXPECT_GT(i, last) << "in order";
    last = i;
    ++written;
  }
  EXPECT_EQ(written, kept);
  EXPECT_EQ(reported, log.dropped());
  EXPECT_EQ(writer.metrics().records_dropped, log.dropped());
}

TEST(LogRing, ManyThreadsEachInOrderAndNothingLostOnStop) {
  temp_output out;
  auto writer = log_writer::builder().fd(out.fd()).poll_interval(std::chrono::microseconds(200)).start();
  constexpr int threads = 4;
  constexpr int per_thread = 5000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&writer, t] {
      auto log = writer.make_logger(256);
      for (int i = 0; i < per_thread; ++i) {
        while (!log.info("t {} i {}", t, i)) std::this_thread::yield();  // a test that wants every line retries
      }
    });
  }
  for (auto& th : pool) th.join();
  writer.stop();
  std::vector<int> next(threads, 0);
  std::size_t bad = 0;
  std::size_t lines_read = 0;
  for (const auto& line : out.lines()) {
    int t = -1, i = -1;
    if (std::sscanf(message_of(line).c_str(), "t %d i %d", &t, &i) != 2 || t < 0 || t >= threads) {
      if (line.find("dropped") == std::string::npos) ++bad;
      continue;
    }
    ++lines_read;
    if (next[static_cast<std::size_t>(t)] != i) ++bad;
    next[static_cast<std::size_t>(t)] = i + 1;
  }
  EXPECT_EQ(bad, 0U);
  EXPECT_EQ(lines_read, std::size_t{threads} * per_thread);
  EXPECT_EQ(writer.metrics().loggers, 0U) << "drained rings of gone loggers are let go";
}

TEST(LogRing, MinLevelFiltersAndMistakesAreConfigErrors) {
  temp_output out;
  auto writer = log_writer::builder().fd(out.fd()).min_level(log_level::warn).start();
  auto log = writer.make_logger(16);
  EXPECT_TRUE(log.info("hidden"));
  EXPECT_TRUE(log.error("shown"));
  writer.stop();
  const auto lines = out.lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(message_of(lines[0]), "shown");
  EXPECT_THROW(writer.make_logger(16), lanes::config_error);
  EXPECT_THROW(log_writer::builder().fd(-1), lanes::config_error);
  EXPECT_THROW(log_writer::builder().poll_interval(std::chrono::microseconds(0)), lanes::config_error);
  auto other = log_writer::builder().fd(out.fd()).start();
  EXPECT_THROW(other.make_logger(100), lanes::config_error) << "not a power of two";
  lanes::react::logger empty;
  EXPECT_FALSE(empty.info("nowhere"));
}

}  // namespace
