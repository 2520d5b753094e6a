// destruction_counter: a move-only value that adds one to a counter when it
// is destroyed (a moved-from one counts nothing). Passed to a task as a
// parameter it lives in the coroutine frame from the frame's creation, so
// the count says how many frames are gone, whether or not their tasks ever
// ran. The increment is seq_cst: a test that reads the count may rely on
// what the frame's destruction did before it (a timer disarmed, say).
#pragma once

#include <atomic>
#include <utility>

namespace lanes::test_support {

template <class Count>
class destruction_counter {
 public:
  explicit destruction_counter(std::atomic<Count>& count) noexcept : count_(&count) {}
  destruction_counter(destruction_counter&& other) noexcept : count_(std::exchange(other.count_, nullptr)) {}
  destruction_counter(const destruction_counter&) = delete;
  destruction_counter& operator=(const destruction_counter&) = delete;
  destruction_counter& operator=(destruction_counter&&) = delete;
  ~destruction_counter() {
    if (count_ != nullptr) count_->fetch_add(1);
  }

 private:
  std::atomic<Count>* count_;
};

}  // namespace lanes::test_support
