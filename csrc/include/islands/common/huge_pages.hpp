#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace islands {

//! Bytes of a transparent huge page on x86-64 (and the alignment that lets the kernel back a
//! region with them).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

//! Memory for large arrays of rows or index slots (freed with std::free): regions of at least
//! a huge page are 2 MiB-aligned and marked MADV_HUGEPAGE, so that a kernel whose transparent
//! huge pages are "madvise" (Debian's default) backs them with 2 MiB pages. Data larger than the
//! caches then costs one TLB entry per 2 MiB instead of per 4 KiB: a random probe over gigabytes
//! no longer waits for a page walk (often itself a miss) before its cache miss, and software
//! prefetches, which some CPUs drop when they miss the TLB, reach memory. Smaller regions are
//! 64-byte aligned as before. Untouched here: the first write still decides the NUMA node.
inline void* allocate_large(std::size_t bytes) {
  if (bytes < kHugePageBytes) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = std::aligned_alloc(kHugePageBytes, rounded);
  if (p == nullptr) throw std::bad_alloc();
  ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without huge pages it stays 4 KiB pages
  return p;
}

//! Frees what allocate_large returned (a deleter for unique_ptr).
struct FreeLarge {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace islands
