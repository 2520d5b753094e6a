// The cancellation tree (include/lanes/sync/cancellation_token.hpp).
//
// Locking: a state's mutex guards its waiters and its children list. cancel()
// takes one state's mutex at a time (it collects the children to cancel,
// then cancels them after unlocking), so there is no lock order to keep. A
// dying child unlinks itself under its parent's mutex; cancel() reaches a
// child only through weak_from_this(), so it never touches a child whose
// last handle is gone.
#include <lanes/sync/cancellation_token.hpp>

#include <algorithm>

namespace lanes {

namespace detail {

cancel_state::~cancel_state() {
  if (!parent_) return;
  std::lock_guard lock(parent_->mutex);
  auto& siblings = parent_->children_;
  const auto it = std::find(siblings.begin(), siblings.end(), this);
  if (it != siblings.end()) siblings.erase(it);  // not listed when the parent was cancelled first
}

void cancel_state::adopt(cancel_state& child) {
  {
    std::lock_guard lock(mutex);
    if (!is_cancelled()) {
      children_.push_back(&child);
      return;
    }
  }
  child.cancel();
}

void cancel_state::cancel() {
  std::vector<waker> to_wake;
  std::vector<std::shared_ptr<cancel_state>> children;
  {
    std::lock_guard lock(mutex);
    if (is_cancelled()) return;
    cancelled_.store(true, std::memory_order_release);
    pop_all_waiters(waiters, to_wake);
    children.reserve(children_.size());
    for (cancel_state* c : children_) {
      if (auto alive = c->weak_from_this().lock()) children.push_back(std::move(alive));
    }
  }
  for (auto& w : to_wake) std::move(w).wake();
  for (auto& c : children) c->cancel();
}

}  // namespace detail

cancellation_token cancellation_token::child() const {
  auto c = std::make_shared<detail::cancel_state>(state_);
  state_->adopt(*c);
  return cancellation_token(std::move(c));
}

}  // namespace lanes
