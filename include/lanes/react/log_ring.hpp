// log_ring: logging from the hot path without formatting, allocating,
// locking or a syscall there. A record is a timestamp, a level, a pointer
// to a format string that lives for the program (a literal), and up to
// eight raw 8-byte arguments; it is copied into the calling thread's own
// spsc_ring. A background writer thread drains every ring, formats ("{}"
// placeholders, "{{" / "}}" for braces) and writes to a file descriptor.
//
//   lanes::react::log_writer writer = lanes::react::log_writer::builder().fd(2).start();
//   lanes::react::logger log = writer.make_logger();    // one per thread
//   log.info("filled order {} at {} ({} lots)", id, price, lots);   // no formatting here
//
// A full ring drops the record (the hot path never waits) and counts it;
// the writer reports drops as a line of its own. Records of one logger
// come out in order; lines of different loggers are interleaved in the
// order the writer finds them (each line carries its timestamp).
//
// Arguments: integers, bool, char, floating point, enums (as their
// number), pointers (hex), and string literals (a char array is taken to
// be one: only its address is kept, so it must live for the program).
// Anything else (a std::string, a char*) would need copying or formatting
// on the hot path, so it does not compile.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include <lanes/react/spsc_ring.hpp>

namespace lanes::react {

enum class log_level : std::uint8_t { debug, info, warn, error };

namespace detail {

enum class log_arg_kind : std::uint8_t { i64, u64, f64, boolean, character, pointer, literal };

inline constexpr std::size_t max_log_args = 8;

struct log_record {
  std::int64_t unix_ns;  // system clock at the call
  const char* format;    // a literal: lives for the program
  log_level level;
  std::uint8_t arg_count;
  std::array<log_arg_kind, max_log_args> kinds;
  std::array<std::uint64_t, max_log_args> args;  // raw bits, read back by kind
};
static_assert(std::is_trivially_copyable_v<log_record>);

// One argument as (kind, bits). Only types that need no copy of memory
// the caller might free: see the file comment.
template <class A>
constexpr log_arg_kind kind_of() {
  using D = std::remove_cvref_t<A>;
  if constexpr (std::is_same_v<D, bool>)
    return log_arg_kind::boolean;
  else if constexpr (std::is_same_v<D, char>)
    return log_arg_kind::character;
  else if constexpr (std::is_enum_v<D>)
    return std::is_signed_v<std::underlying_type_t<D>> ? log_arg_kind::i64 : log_arg_kind::u64;
  else if constexpr (std::is_integral_v<D>)
    return std::is_signed_v<D> ? log_arg_kind::i64 : log_arg_kind::u64;
  else if constexpr (std::is_floating_point_v<D>)
    return log_arg_kind::f64;
  else if constexpr (std::is_array_v<std::remove_reference_t<A>> &&
                     std::is_same_v<std::remove_cv_t<std::remove_extent_t<std::remove_reference_t<A>>>, char>)
    return log_arg_kind::literal;
  else if constexpr (std::is_pointer_v<D> && !std::is_same_v<std::remove_cv_t<std::remove_pointer_t<D>>, char>)
    return log_arg_kind::pointer;
  else
    static_assert(sizeof(D) == 0,
                  "lanes::react::logger: an argument must be an integer, bool, char, floating point, enum, "
                  "pointer or string literal (a std::string or char buffer would need a copy on the hot path)");
}

template <class A>
std::uint64_t bits_of(const A& a) noexcept {
  using D = std::remove_cvref_t<A>;
  if constexpr (std::is_array_v<A>)
    return reinterpret_cast<std::uintptr_t>(&a[0]);
  else if constexpr (std::is_pointer_v<D>)
    return reinterpret_cast<std::uintptr_t>(a);
  else if constexpr (std::is_floating_point_v<D>) {
    const double d = static_cast<double>(a);
    std::uint64_t out;
    std::memcpy(&out, &d, sizeof out);
    return out;
  } else if constexpr (std::is_enum_v<D>)
    return static_cast<std::uint64_t>(static_cast<std::underlying_type_t<D>>(a));
  else
    return static_cast<std::uint64_t>(a);
}

// Formats one record as a line (without locking: the writer thread only).
void format_log_record(const log_record& record, std::string& out);

struct logger_shared;  // the writer's view of one logger (src/react/log_writer.cpp)

}  // namespace detail

// A thread's handle to the writer. Move-only; use it from one thread at a
// time. Records it pushed are written even after it is dropped.
class logger {
 public:
  logger() noexcept = default;
  logger(logger&&) noexcept = default;
  logger& operator=(logger&&) noexcept = default;
  ~logger() = default;

  template <std::size_t N, class... Args>
  bool log(log_level level, const char (&format)[N], const Args&... args) noexcept {
    static_assert(sizeof...(Args) <= detail::max_log_args, "lanes::react::logger: at most 8 arguments");
    if (!tx_) return false;
    const auto chunk = tx_.write(1);
    if (chunk.size() == 0) {
      dropped_->fetch_add(1, std::memory_order_relaxed);  // only this thread writes it; the writer reads
      return false;
    }
    detail::log_record& r = chunk[0];
    r.unix_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    r.format = format;
    r.level = level;
    r.arg_count = static_cast<std::uint8_t>(sizeof...(Args));
    std::size_t i = 0;
    ((r.kinds[i] = detail::kind_of<const Args&>(), r.args[i] = detail::bits_of(args), ++i), ...);
    tx_.commit(1);
    return true;
  }
  template <std::size_t N, class... Args>
  bool debug(const char (&format)[N], const Args&... args) noexcept {
    return log(log_level::debug, format, args...);
  }
  template <std::size_t N, class... Args>
  bool info(const char (&format)[N], const Args&... args) noexcept {
    return log(log_level::info, format, args...);
  }
  template <std::size_t N, class... Args>
  bool warn(const char (&format)[N], const Args&... args) noexcept {
    return log(log_level::warn, format, args...);
  }
  template <std::size_t N, class... Args>
  bool error(const char (&format)[N], const Args&... args) noexcept {
    return log(log_level::error, format, args...);
  }

  // Records this logger dropped because its ring was full.
  std::uint64_t dropped() const noexcept { return dropped_ ? dropped_->load(std::memory_order_relaxed) : 0; }
  explicit operator bool() const noexcept { return static_cast<bool>(tx_); }

 private:
  friend class log_writer;
  logger(ring_producer<detail::log_record> tx, std::shared_ptr<std::atomic<std::uint64_t>> dropped) noexcept
      : tx_(std::move(tx)), dropped_(std::move(dropped)) {}
  ring_producer<detail::log_record> tx_;
  std::shared_ptr<std::atomic<std::uint64_t>> dropped_;
};

struct log_writer_metrics {
  std::uint64_t records_written = 0;
  std::uint64_t records_dropped = 0;  // by all loggers, as last seen by the writer
  std::uint64_t write_errors = 0;     // write(2) failures (the lines are lost)
  std::uint32_t loggers = 0;          // alive, or with records still to write
};

class log_writer_builder;

// The background thread that writes every logger's records. Stopping it
// (or destroying it) writes what is left first.
class log_writer {
 public:
  static log_writer_builder builder();

  log_writer() noexcept;
  log_writer(log_writer&&) noexcept;
  log_writer& operator=(log_writer&&) noexcept;
  ~log_writer();

  // A new logger with its own ring of `capacity` records (a power of two;
  // a record is 96 bytes). Any thread may call it.
  logger make_logger(std::size_t capacity = 4096);
  // Writes what every logger has pushed so far, then stops the thread.
  void stop();
  log_writer_metrics metrics() const;

 private:
  class state;
  friend class log_writer_builder;
  explicit log_writer(std::unique_ptr<state> s) noexcept;
  std::unique_ptr<state> state_;
};

class log_writer_builder {
 public:
  // Where lines go (default 2, stderr). The writer does not close it.
  log_writer_builder& fd(int fd);
  // How often the writer looks at the rings when it found nothing (default
  // 1 ms): latency to the file against a thread that wakes up for nothing.
  log_writer_builder& poll_interval(std::chrono::microseconds interval);
  // Records below this level are written as if never pushed (they still
  // cost the push: filter at the call site for the hot path).
  log_writer_builder& min_level(log_level level);
  log_writer start();

 private:
  int fd_ = 2;
  std::chrono::microseconds poll_interval_{1000};
  log_level min_level_ = log_level::debug;
};

}  // namespace lanes::react
