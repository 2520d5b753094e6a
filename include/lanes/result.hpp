// result<T, E>: a value, or an ordinary failure such as timed_out, busy or
// closed, for operations whose failure is an expected outcome (so the hot
// path does not throw). value() on a failure throws bad_result_access.
#pragma once

#include <stdexcept>
#include <utility>
#include <variant>

namespace lanes {

class bad_result_access : public std::logic_error {
 public:
  bad_result_access() : std::logic_error("lanes: value() called on a result that holds an error") {}
};

template <class T, class E>
class [[nodiscard]] result {
 public:
  result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit on purpose
  result(E error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool has_value() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }
  T& value() & {
    if (!has_value()) throw bad_result_access();
    return std::get<0>(state_);
  }
  T&& value() && {
    if (!has_value()) throw bad_result_access();
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  T* operator->() { return &value(); }
  const E& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, E> state_;
};

template <class E>
class [[nodiscard]] result<void, E> {
 public:
  result() = default;
  result(E error) : error_(std::move(error)), failed_(true) {}  // NOLINT
  bool has_value() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return has_value(); }
  void value() const {
    if (failed_) throw bad_result_access();
  }
  const E& error() const { return error_; }

 private:
  E error_{};
  bool failed_ = false;
};

}  // namespace lanes
