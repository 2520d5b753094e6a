// Formatting one log record into a line, on the writer thread:
//   2026-12-03T07:05:01.123456789Z INFO  filled order 42 at 101.25
#include <lanes/react/log_ring.hpp>

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <ctime>

namespace lanes::react::detail {

namespace {

const char* level_name(log_level level) noexcept {
  switch (level) {
    case log_level::debug:
      return "DEBUG";
    case log_level::info:
      return "INFO ";
    case log_level::warn:
      return "WARN ";
    case log_level::error:
      return "ERROR";
  }
  return "?    ";
}

void append_timestamp(std::int64_t unix_ns, std::string& out) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  const long nanos = static_cast<long>(unix_ns % 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[48];
  const int n = std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", utc.tm_year + 1900,
                              utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, nanos);
  out.append(buffer, static_cast<std::size_t>(n));
}

void append_arg(log_arg_kind kind, std::uint64_t bits, std::string& out) {
  char buffer[64];
  std::to_chars_result r{buffer, {}};
  switch (kind) {
    case log_arg_kind::i64:
      r = std::to_chars(buffer, buffer + sizeof buffer, static_cast<std::int64_t>(bits));
      break;
    case log_arg_kind::u64:
      r = std::to_chars(buffer, buffer + sizeof buffer, bits);
      break;
    case log_arg_kind::f64: {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      r = std::to_chars(buffer, buffer + sizeof buffer, d);
      break;
    }
    case log_arg_kind::boolean:
      out += bits != 0 ? "true" : "false";
      return;
    case log_arg_kind::character:
      out += static_cast<char>(bits);
      return;
    case log_arg_kind::pointer:
      out += "0x";
      r = std::to_chars(buffer, buffer + sizeof buffer, bits, 16);
      break;
    case log_arg_kind::literal:
      // The record keeps a string literal's address in its u64 slot.
      out += reinterpret_cast<const char*>(static_cast<std::uintptr_t>(bits));  // NOLINT(performance-no-int-to-ptr)
      return;
  }
  out.append(buffer, r.ptr);
}

}  // namespace

void format_log_record(const log_record& record, std::string& out) {
  append_timestamp(record.unix_ns, out);
  out += ' ';
  out += level_name(record.level);
  out += ' ';
  std::size_t next = 0;
  for (const char* p = record.format; *p != '\0'; ++p) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      out += *p++;
    } else if (p[0] == '{' && p[1] == '}') {
      if (next < record.arg_count) {
        append_arg(record.kinds[next], record.args[next], out);
      } else {
        out += "{?}";  // fewer arguments than placeholders: show it, do not guess
      }
      ++next;
      ++p;
    } else {
      out += *p;
    }
  }
  for (; next < record.arg_count; ++next) {  // more arguments than placeholders: keep them
    out += ' ';
    append_arg(record.kinds[next], record.args[next], out);
  }
  out += '\n';
}

}  // namespace lanes::react::detail
