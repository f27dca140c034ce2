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
  Trim();
}

void BufferPool::Trim() {
  Collect();
  for (auto& [capacity, blocks] : free_) {
    for (void* p : blocks) {
      FreeBlock(p, capacity);
      cached_.fetch_sub(capacity, std::memory_order_relaxed);
    }
  }
  free_.clear();
  for (size_t k = 0; k < small_.size(); ++k) {
    for (void* p : small_[k]) {
      FreeBlock(p, k * kSmallAlign);
      cached_.fetch_sub(k * kSmallAlign, std::memory_order_relaxed);
    }
    small_[k].clear();
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

void BufferPool::Collect() {
  // Most acquisitions find nothing returned: a plain load, no read-modify-write.
  if (returned_.load(std::memory_order_relaxed) == nullptr) return;
  Returned* r = returned_.exchange(nullptr, std::memory_order_acquire);
  while (r != nullptr) {
    Returned* next = r->next;
    const size_t capacity = r->capacity;
    void* block = r;
    if (capacity < kMinPooledBytes) {
      std::vector<void*>& list = small_[capacity / kSmallAlign];
      if (list.size() < kSmallPerClass) {
        list.push_back(block);
      } else {
        cached_.fetch_sub(capacity, std::memory_order_relaxed);
        FreeBlock(block, capacity);
      }
    } else {
      free_[capacity].push_back(block);
    }
    r = next;
  }
}

void* BufferPool::Acquire(size_t bytes, size_t* capacity_out) {
  const size_t capacity = Capacity(bytes);
  *capacity_out = capacity;
  Collect();
  if (capacity < kMinPooledBytes) {
    std::vector<void*>& list = small_[capacity / kSmallAlign];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      cached_.fetch_sub(capacity, std::memory_order_relaxed);
      return p;
    }
    return AllocateBlock(capacity);
  }
  // The smallest cached block that fits with at most a quarter more than asked (a model
  // whose tensors come in many sizes kept a block of every size idle: 218 MiB resident
  // where 56 MiB were live at once).
  for (auto it = free_.lower_bound(capacity);
       it != free_.end() && it->first <= capacity + capacity / 4; ++it) {
    if (it->second.empty()) continue;
    void* p = it->second.back();
    it->second.pop_back();
    cached_.fetch_sub(it->first, std::memory_order_relaxed);
    *capacity_out = it->first;
    return p;
  }
  // A miss: before growing, give back idle blocks too small for this request, the largest
  // first, as long as the idle bytes reach its size (the same model's recording run, whose
  // peak was ORT's 160 MiB plus 58).
  auto below = free_.lower_bound(capacity);
  while (below != free_.begin() && cached_.load(std::memory_order_relaxed) >= capacity) {
    --below;
    std::vector<void*>& list = below->second;
    while (!list.empty() && cached_.load(std::memory_order_relaxed) >= capacity) {
      FreeBlock(list.back(), below->first);
      list.pop_back();
      cached_.fetch_sub(below->first, std::memory_order_relaxed);
    }
  }
  return AllocateBlock(capacity);
}

void BufferPool::Release(void* block, size_t capacity) {
  // Reserve room under the cap first; give it back and free the block when there is none.
  if (cached_.fetch_add(capacity, std::memory_order_relaxed) + capacity > max_cached_) {
    cached_.fetch_sub(capacity, std::memory_order_relaxed);
    FreeBlock(block, capacity);
    return;
  }
  auto* r = new (block) Returned{returned_.load(std::memory_order_relaxed), capacity};
  while (!returned_.compare_exchange_weak(r->next, r, std::memory_order_release,
                                          std::memory_order_relaxed)) {
  }
}

size_t BufferPool::cached_bytes() const {
  return cached_.load(std::memory_order_relaxed);
}

}  // namespace onnx_light
