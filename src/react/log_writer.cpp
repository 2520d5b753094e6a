// The log writer thread: takes new loggers' rings from a list (under a
// mutex: a cold path), drains every ring into one buffer, formats, and
// writes the buffer with as few write(2) calls as it can. It sleeps
// poll_interval when a pass found nothing, so the loggers' rings are made
// without parking (their producers pay no fence on the hot path).
#include <lanes/react/log_ring.hpp>

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <lanes/config_error.hpp>
#include <lanes/detail/saturating_time.hpp>

namespace lanes::react {

namespace {

// The formatting buffer: reserved once, written out when it passes
// flush_bytes (one write(2) for many records, well inside the reservation).
constexpr std::size_t buffer_bytes = std::size_t{64} << 10;
constexpr std::size_t flush_bytes = std::size_t{48} << 10;

struct channel {
  ring_consumer<detail::log_record> rx;
  std::shared_ptr<std::atomic<std::uint64_t>> dropped;
  std::uint64_t dropped_reported = 0;
};

}  // namespace

class log_writer::state {
 public:
  state(int fd, std::chrono::microseconds interval, log_level min_level)
      : fd_(fd), interval_(interval), min_level_(min_level) {
    thread_ = std::thread([this] { run(); });
  }
  ~state() { stop(); }

  logger make_logger(std::size_t capacity) {
    auto ring = spsc_ring<detail::log_record>::make(capacity);
    auto dropped = std::make_shared<std::atomic<std::uint64_t>>(0);
    {
      std::lock_guard lock(mutex_);
      if (stopping_) throw config_error("lanes::react::log_writer: make_logger() after stop()");
      pending_.push_back(channel{std::move(ring.consumer), dropped, 0});
    }
    return logger(std::move(ring.producer), std::move(dropped));
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  log_writer_metrics metrics() const {
    log_writer_metrics m;
    m.records_written = written_.load(std::memory_order_relaxed);
    m.records_dropped = dropped_.load(std::memory_order_relaxed);
    m.write_errors = write_errors_.load(std::memory_order_relaxed);
    m.loggers = loggers_.load(std::memory_order_relaxed);
    return m;
  }

 private:
  void run() {
    std::vector<channel> channels;
    std::string buffer;
    buffer.reserve(buffer_bytes);
    for (;;) {
      bool stopping;
      {
        std::lock_guard lock(mutex_);
        for (auto& c : pending_) channels.push_back(std::move(c));
        pending_.clear();
        stopping = stopping_;
      }
      // After stopping_ was seen, one more full pass writes everything
      // pushed before stop() (a logger still pushing meanwhile may lose
      // what comes after: the writer is going away).
      const std::size_t found = drain(channels, buffer);
      flush(buffer);
      if (stopping) return;
      if (found == 0) {
        std::unique_lock lock(mutex_);
        lanes::detail::wait_for_saturated(wake_, lock, interval_, [this] { return stopping_; });
      }
    }
  }

  // One pass over every ring; returns how many records it took.
  std::size_t drain(std::vector<channel>& channels, std::string& buffer) {
    std::size_t found = 0;
    for (auto& c : channels) {
      for (;;) {
        const auto chunk = c.rx.read(256);
        if (chunk.size() == 0) break;
        for (std::size_t i = 0; i < chunk.size(); ++i) {
          if (chunk[i].level >= min_level_) {
            detail::format_log_record(chunk[i], buffer);
            ++written_count_;
          }
        }
        found += chunk.size();
        c.rx.consume(chunk.size());
        if (buffer.size() > flush_bytes) flush(buffer);
      }
      const std::uint64_t dropped = c.dropped->load(std::memory_order_relaxed);
      if (dropped != c.dropped_reported) {
        buffer +=
            "lanes::react::log_writer: a logger's ring was full: " + std::to_string(dropped - c.dropped_reported) +
            " record(s) dropped\n";
        dropped_total_ += dropped - c.dropped_reported;
        c.dropped_reported = dropped;
      }
    }
    // A ring whose logger is gone and which is drained is done with.
    // (loggers_ is the writer's count: a logger made since is counted on
    // the next pass.)
    std::erase_if(channels, [](channel& c) { return c.rx.producer_gone() && c.rx.empty(); });
    loggers_.store(static_cast<std::uint32_t>(channels.size()), std::memory_order_relaxed);
    written_.store(written_count_, std::memory_order_relaxed);
    dropped_.store(dropped_total_, std::memory_order_relaxed);
    return found;
  }

  void flush(std::string& buffer) {
    std::size_t done = 0;
    while (done < buffer.size()) {
      const ssize_t n = ::write(fd_, buffer.data() + done, buffer.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        write_errors_.store(write_errors_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    buffer.clear();
  }

  const int fd_;
  const std::chrono::microseconds interval_;
  const log_level min_level_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<channel> pending_;
  bool stopping_ = false;
  // Written by the writer thread only; read by metrics().
  std::uint64_t written_count_ = 0;
  std::uint64_t dropped_total_ = 0;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> write_errors_{0};
  std::atomic<std::uint32_t> loggers_{0};
  std::thread thread_;  // last: started once everything above exists
};

log_writer_builder log_writer::builder() { return {}; }
log_writer::log_writer() noexcept = default;
log_writer::log_writer(std::unique_ptr<state> s) noexcept : state_(std::move(s)) {}
log_writer::log_writer(log_writer&&) noexcept = default;
log_writer& log_writer::operator=(log_writer&&) noexcept = default;
log_writer::~log_writer() = default;

logger log_writer::make_logger(std::size_t capacity) {
  if (!state_) throw config_error("lanes::react::log_writer: make_logger() on an empty writer: build one with start()");
  return state_->make_logger(capacity);
}
void log_writer::stop() {
  if (state_) state_->stop();
}
log_writer_metrics log_writer::metrics() const { return state_ ? state_->metrics() : log_writer_metrics{}; }

log_writer_builder& log_writer_builder::fd(int fd) {
  if (fd < 0) throw config_error("lanes::react::log_writer: fd(" + std::to_string(fd) + ") is not a file descriptor");
  fd_ = fd;
  return *this;
}
log_writer_builder& log_writer_builder::poll_interval(std::chrono::microseconds interval) {
  if (interval.count() <= 0) throw config_error("lanes::react::log_writer: poll_interval must be positive");
  poll_interval_ = interval;
  return *this;
}
log_writer_builder& log_writer_builder::min_level(log_level level) {
  min_level_ = level;
  return *this;
}
log_writer log_writer_builder::start() {
  return log_writer(std::make_unique<log_writer::state>(fd_, poll_interval_, min_level_));
}

}  // namespace lanes::react
