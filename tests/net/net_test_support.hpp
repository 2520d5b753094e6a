// What the net tests share: the runtimes they run on (each suite runs on
// the current-thread and the multi-thread flavor, each with the epoll and
// the io_uring backend; where io_uring cannot run, its cases are skipped
// saying why), byte views, a loopback address on any free port, and the
// count of open descriptors.
#pragma once

#include <gtest/gtest.h>

#include <dirent.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <lanes/config_error.hpp>
#include <lanes/io/io_backend.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/net/socket_address.hpp>
#include <lanes/net/unix_stream.hpp>

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

inline socket_address loopback_any_port() { return socket_address::parse("127.0.0.1:0"); }

// Inside a task: opens what a runtime opens at its first socket (the
// io_uring backend's ring), so that a count of descriptors taken after it
// sees only the sockets.
inline void open_first_socket() { (void)unix_stream::pair(); }

enum class flavor { current_thread, multi_thread };
struct net_config {
  flavor runs_on;
  io_backend backend;
};

class NetTest : public ::testing::TestWithParam<net_config> {
 protected:
  void SetUp() override {
    if (GetParam().backend != io_backend::uring) return;
    try {
      (void)choose_io_backend(io_backend::uring);
    } catch (const config_error& e) {
      GTEST_SKIP() << e.what();
    }
  }
  runtime make() const {
    auto builder = GetParam().runs_on == flavor::multi_thread ? runtime::multi_thread().worker_threads(2)
                                                              : runtime::current_thread();
    return builder.io_backend(GetParam().backend).build();
  }
};

inline std::string config_name(const ::testing::TestParamInfo<net_config>& info) {
  return std::string(info.param.runs_on == flavor::multi_thread ? "MultiThread" : "CurrentThread") +
         (info.param.backend == io_backend::uring ? "Uring" : "Epoll");
}

#define LANES_NET_SUITE(suite)                                                                      \
  INSTANTIATE_TEST_SUITE_P(Net, suite,                                                              \
                           ::testing::Values(net_config{flavor::current_thread, io_backend::epoll}, \
                                             net_config{flavor::multi_thread, io_backend::epoll},   \
                                             net_config{flavor::current_thread, io_backend::uring}, \
                                             net_config{flavor::multi_thread, io_backend::uring}),  \
                           config_name)

}  // namespace lanes::net::testing
