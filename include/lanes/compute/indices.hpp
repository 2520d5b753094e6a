// indices(n): the range 0, 1, ..., n-1 as a random-access, sized range of
// std::size_t, for running a parallel algorithm over positions:
//
//   lanes::compute::for_each(lanes::compute::indices(n), [&](std::size_t i) { out[i] = f(i); });
//
// std::views::iota does the same, but clang 14 cannot compile libstdc++
// 12's iota_view (a concepts bug); this works with every supported compiler.
#pragma once

#include <compare>
#include <cstddef>
#include <iterator>

namespace lanes::compute {

class index_range {
 public:
  class iterator {
   public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using reference = std::size_t;
    using pointer = void;

    iterator() noexcept = default;
    explicit iterator(std::size_t i) noexcept : i_(i) {}

    std::size_t operator*() const noexcept { return i_; }
    std::size_t operator[](difference_type k) const noexcept { return i_ + static_cast<std::size_t>(k); }
    iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    iterator operator++(int) noexcept { return iterator(i_++); }
    iterator& operator--() noexcept {
      --i_;
      return *this;
    }
    iterator operator--(int) noexcept { return iterator(i_--); }
    iterator& operator+=(difference_type k) noexcept {
      i_ += static_cast<std::size_t>(k);
      return *this;
    }
    iterator& operator-=(difference_type k) noexcept {
      i_ -= static_cast<std::size_t>(k);
      return *this;
    }
    friend iterator operator+(iterator it, difference_type k) noexcept { return it += k; }
    friend iterator operator+(difference_type k, iterator it) noexcept { return it += k; }
    friend iterator operator-(iterator it, difference_type k) noexcept { return it -= k; }
    friend difference_type operator-(iterator a, iterator b) noexcept {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(iterator a, iterator b) noexcept = default;
    friend auto operator<=>(iterator a, iterator b) noexcept = default;

   private:
    std::size_t i_ = 0;
  };

  explicit index_range(std::size_t n) noexcept : n_(n) {}
  iterator begin() const noexcept { return iterator(0); }
  iterator end() const noexcept { return iterator(n_); }
  std::size_t size() const noexcept { return n_; }

 private:
  std::size_t n_;
};

inline index_range indices(std::size_t n) noexcept { return index_range(n); }

}  // namespace lanes::compute
