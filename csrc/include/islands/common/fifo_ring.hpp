#pragma once
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace islands {

//! A first-in first-out queue in one ring of slots that doubles when full (a power of two):
//! push_back moves an element into a slot that stays allocated, so a queue that stays short (a
//! worker's commits waiting for their flush) allocates nothing once warm, where std::deque
//! allocates and frees a block every few elements. A popped element stays in its slot, moved
//! from or as the caller left it, until a push overwrites it or the ring goes.
template <class T>
class FifoRing {
 public:
  bool empty() const { return size_ == 0; }  //!< whether nothing is queued
  std::size_t size() const { return size_; }  //!< elements queued
  T& front() { return slots_[head_]; }        //!< the oldest element (the ring is not empty)
  //! Queues `value` behind the others.
  void push_back(T&& value) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = std::move(value);
    ++size_;
  }
  //! Drops the oldest element (the ring is not empty).
  void pop_front() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(std::max<std::size_t>(16, 2 * slots_.size()));
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace islands
