// What the net tests share: the runtimes they run on (each suite runs on
// the current-thread and the multi-thread flavor), byte views, and the
// count of open descriptors.
#pragma once

#include <gtest/gtest.h>

#include <dirent.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <lanes/io/runtime.hpp>

namespace lanes::net::testing {

inline std::span<const std::byte> bytes(std::string_view s) { return std::as_bytes(std::span(s)); }
inline std::span<std::byte> bytes(std::string& s) { return std::as_writable_bytes(std::span(s)); }
inline std::string text(std::span<const std::byte> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// Entries of /proc/self/fd (the count includes the directory's own fd).
inline int open_descriptors() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (::readdir(d) != nullptr) ++n;
  ::closedir(d);
  return n;
}

enum class flavor { current_thread, multi_thread };

class NetTest : public ::testing::TestWithParam<flavor> {
 protected:
  runtime make() const {
    return GetParam() == flavor::multi_thread ? runtime::multi_thread().worker_threads(2).build()
                                              : runtime::current_thread().build();
  }
};

inline std::string flavor_name(const ::testing::TestParamInfo<flavor>& info) {
  return info.param == flavor::multi_thread ? "MultiThread" : "CurrentThread";
}

#define LANES_NET_SUITE(suite) \
  INSTANTIATE_TEST_SUITE_P(Net, suite, ::testing::Values(flavor::current_thread, flavor::multi_thread), flavor_name)

}  // namespace lanes::net::testing
