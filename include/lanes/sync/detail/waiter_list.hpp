// waiter_list: the tasks waiting on a sync primitive, first come first
// served. A node lives in the awaiter (no allocation) and is linked while
// its task waits. The primitive's mutex guards the list and every node's
// fields; the notifier unlinks a node and moves its waker out under that
// mutex and touches the node no more, so the awaiter may be destroyed as
// soon as it is resumed.
#pragma once

#include <cstddef>

#include <lanes/io/detail/task_header.hpp>

namespace lanes::detail {

struct waiter_node {
  waiter_node* prev = nullptr;
  waiter_node* next = nullptr;
  waker to_wake;
  bool linked = false;
  bool notified = false;   // unlinked by a notifier (as opposed to by its own awaiter)
  bool broadcast = false;  // ... by a notify-all style notifier
  bool refused = false;    // ... because the primitive was closed
  std::size_t amount = 0;  // what the waiter asks for (permits), for primitives that count
};

class waiter_list {
 public:
  bool empty() const noexcept { return head_ == nullptr; }
  waiter_node* front() const noexcept { return head_; }

  void push_back(waiter_node& node) noexcept {
    node.prev = tail_;
    node.next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = &node;
    } else {
      head_ = &node;
    }
    tail_ = &node;
    node.linked = true;
    node.notified = false;
    node.broadcast = false;
    node.refused = false;
  }

  void remove(waiter_node& node) noexcept {
    if (!node.linked) return;
    if (node.prev != nullptr) {
      node.prev->next = node.next;
    } else {
      head_ = node.next;
    }
    if (node.next != nullptr) {
      node.next->prev = node.prev;
    } else {
      tail_ = node.prev;
    }
    node.prev = node.next = nullptr;
    node.linked = false;
  }

  // Unlinks the first waiter, marks it notified and returns its waker (to
  // be woken after the mutex is released).
  waker pop_front_notified(bool broadcast = false) noexcept {
    waiter_node* node = head_;
    if (node == nullptr) return {};
    remove(*node);
    node->notified = true;
    node->broadcast = broadcast;
    return static_cast<waker&&>(node->to_wake);
  }

 private:
  waiter_node* head_ = nullptr;
  waiter_node* tail_ = nullptr;
};

}  // namespace lanes::detail
