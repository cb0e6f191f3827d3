#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace islands {

//! A growable array of trivially copyable elements for the transaction's hot lists (locks
//! held, before- and after-images, inserts): appending is a compare and a store inline, and the
//! growth (a realloc) stays out of line in grow(). std::vector's push_back carries its
//! reallocation along wherever it is inlined, so the workers' flattened hot paths
//! ([[gnu::flatten]]) inlined a copy of it at every append, which was most of their code and
//! of the engine's compile time. Capacity is kept by clear() and by shrinking resizes.
template <class T>
class PodVector {
  static_assert(std::is_trivially_copyable_v<T>, "PodVector copies its elements as bytes");

 public:
  PodVector() = default;
  ~PodVector() { std::free(data_); }
  PodVector(const PodVector&) = delete;
  PodVector& operator=(const PodVector&) = delete;
  PodVector(PodVector&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  PodVector& operator=(PodVector&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }

  std::size_t size() const { return size_; }          //!< elements held
  std::size_t capacity() const { return capacity_; }  //!< elements it holds without growing
  bool empty() const { return size_ == 0; }            //!< whether it holds none
  T* data() { return data_; }                          //!< the first element (nullptr before any)
  const T* data() const { return data_; }              //!< see data()
  T* begin() { return data_; }                         //!< iteration (also std::sort's)
  T* end() { return data_ + size_; }                   //!< see begin()
  const T* begin() const { return data_; }             //!< see begin()
  const T* end() const { return data_ + size_; }       //!< see begin()
  T& operator[](std::size_t i) { return data_[i]; }    //!< element i (unchecked)
  const T& operator[](std::size_t i) const { return data_[i]; }  //!< element i (unchecked)

  //! Appends `value`.
  void push_back(const T& value) {
    if (__builtin_expect(size_ == capacity_, 0)) grow(size_ + 1);
    data_[size_++] = value;
  }
  //! Appends the `n` elements at `from` (which must not lie inside this vector).
  void append(const T* from, std::size_t n) {
    if (__builtin_expect(size_ + n > capacity_, 0)) grow(size_ + n);
    if (n != 0) std::memcpy(data_ + size_, from, n * sizeof(T));
    size_ += n;
  }
  //! Appends `n` elements left uninitialized for the caller to fill; returns the first.
  T* grow_by(std::size_t n) {
    if (__builtin_expect(size_ + n > capacity_, 0)) grow(size_ + n);
    T* first = data_ + size_;
    size_ += n;
    return first;
  }
  //! Keeps the first `n` elements (n ≤ size()); the capacity stays.
  void truncate(std::size_t n) { size_ = n; }
  //! Forgets every element; the capacity stays.
  void clear() { size_ = 0; }
  //! Room for at least `n` elements.
  void reserve(std::size_t n) {
    if (n > capacity_) grow(n);
  }

 private:
  // Out of line: the one place that allocates. At least doubles, from 16.
  [[gnu::noinline]] void grow(std::size_t needed) {
    std::size_t capacity = capacity_ < 8 ? 16 : 2 * capacity_;
    if (capacity < needed) capacity = needed;
    void* grown = std::realloc(data_, capacity * sizeof(T));
    if (grown == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(grown);
    capacity_ = capacity;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace islands
