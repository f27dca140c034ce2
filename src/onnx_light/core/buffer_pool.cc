#include "onnx_light/core/buffer_pool.h"

#include <sys/mman.h>

#include <new>

namespace onnx_light {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kSmallAlign = 64;

size_t AlignmentFor(size_t capacity) {
  return capacity >= kHugePage ? kHugePage : kSmallAlign;
}

}  // namespace

BufferPool::~BufferPool() {
  for (auto& [capacity, blocks] : free_) {
    for (void* p : blocks)
      FreeBlock(p, capacity);
  }
  for (size_t k = 0; k < small_.size(); ++k) {
    for (void* p : small_[k])
      FreeBlock(p, k * kSmallAlign);
  }
}

size_t BufferPool::Capacity(size_t bytes) {
  if (bytes < kMinPooledBytes) {
    const size_t c = (bytes + kSmallAlign - 1) / kSmallAlign * kSmallAlign;
    return c == 0 ? kSmallAlign : c;
  }
  // 64 KiB classes below 2 MiB, whole huge pages above.
  const size_t unit = bytes >= kHugePage ? kHugePage : kMinPooledBytes;
  return (bytes + unit - 1) / unit * unit;
}

void* BufferPool::AllocateBlock(size_t capacity) {
  const size_t align = AlignmentFor(capacity);
  void* p = ::operator new(capacity, std::align_val_t(align), std::nothrow);
  if (p != nullptr && align == kHugePage) {
    ::madvise(p, capacity, MADV_HUGEPAGE);  // advice only: failure changes nothing
  }
  return p;
}

void BufferPool::FreeBlock(void* block, size_t capacity) {
  ::operator delete(block, std::align_val_t(AlignmentFor(capacity)));
}

void* BufferPool::Acquire(size_t bytes) {
  const size_t capacity = Capacity(bytes);
  if (capacity < kMinPooledBytes) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<void*>& list = small_[capacity / kSmallAlign];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      cached_ -= capacity;
      return p;
    }
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(capacity);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      cached_ -= capacity;
      return p;
    }
  }
  return AllocateBlock(capacity);
}

void BufferPool::Release(void* block, size_t capacity) {
  if (capacity < kMinPooledBytes) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + capacity <= max_cached_ &&
        small_[capacity / kSmallAlign].size() < kSmallPerClass) {
      small_[capacity / kSmallAlign].push_back(block);
      cached_ += capacity;
      return;
    }
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + capacity <= max_cached_) {
      free_[capacity].push_back(block);
      cached_ += capacity;
      return;
    }
  }
  FreeBlock(block, capacity);
}

size_t BufferPool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

}  // namespace onnx_light
