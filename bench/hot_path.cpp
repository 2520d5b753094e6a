// `lanes-hot-path KIND N`: runs one of the io lane's hot paths N times on
// one io worker, for instruction counts under callgrind, which do not move
// with host noise (scripts/hot_paths.sh runs N and 2N and prints the
// difference per operation).
//   spawn     spawn a trivial task and await it
//   offload   offload a trivial function to the compute lane and await it
//   first     spawn N tasks that each arm a one-hour sleep; wait until all
//             had their first poll (S3's first polls), then abort them
//   sleep     spawn N tasks that each sleep 1 ms, then await them all
//             (includes parking: varies by a few percent from run to run)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <lanes/bridge/offload.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/sync/notify.hpp>

namespace {

lanes::task<int> one() { co_return 1; }
lanes::task<void> sleeper() { co_await lanes::sleep(std::chrono::milliseconds(1)); }

long first_polls_left = 0;  // one io worker: only its thread touches it
lanes::notify all_polled;
lanes::task<void> long_sleeper() {
  if (--first_polls_left == 0) all_polled.notify_one();
  co_await lanes::sleep(std::chrono::hours(1));
}

lanes::task<long> spawn_loop(long n) {
  long sum = 0;
  for (long i = 0; i < n; ++i) sum += co_await lanes::spawn(one());
  co_return sum;
}

lanes::task<long> offload_loop(long n) {
  long sum = 0;
  for (long i = 0; i < n; ++i) sum += co_await lanes::offload([] { return 1; });
  co_return sum;
}

lanes::task<long> first_polls(long n) {
  std::vector<lanes::join_handle<void>> handles;
  handles.reserve(static_cast<std::size_t>(n));
  first_polls_left = n;
  for (long i = 0; i < n; ++i) handles.push_back(lanes::spawn(long_sleeper()));
  co_await all_polled.notified();
  for (auto& h : handles) h.abort();
  co_return n;
}

lanes::task<long> sleep_all(long n) {
  std::vector<lanes::join_handle<void>> handles;
  handles.reserve(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) handles.push_back(lanes::spawn(sleeper()));
  for (auto& h : handles) co_await h;
  co_return n;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc > 1 ? argv[1] : "";
  const long n = argc > 2 ? std::atol(argv[2]) : 0;
  if (n <= 0 || (kind != "spawn" && kind != "offload" && kind != "first" && kind != "sleep")) {
    std::fprintf(stderr, "usage: lanes-hot-path spawn|offload|first|sleep N\n");
    return 2;
  }
  auto rt = lanes::runtime::multi_thread().worker_threads(1).build();
  const long done = rt.block_on(kind == "spawn"     ? spawn_loop(n)
                                : kind == "offload" ? offload_loop(n)
                                : kind == "first"   ? first_polls(n)
                                                    : sleep_all(n));
  std::printf("%ld\n", done);
  return done == n ? 0 : 1;
}
