// BufferPool: recycles large tensor buffers between runs of a session.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace onnx_light {

// Large blocks (>= kMinPooledBytes) are kept after their tensors die and handed out again
// for the same size class, so a session that runs repeatedly does not page-fault fresh
// memory every run. Blocks of 2 MiB and more are 2 MiB-aligned and advised as huge pages.
// At most `max_cached_bytes` stay cached; the rest is freed. Thread-safe. A block whose
// tensor outlives the pool is simply freed.
class BufferPool {
 public:
  static constexpr size_t kMinPooledBytes = size_t{64} << 10;

  explicit BufferPool(size_t max_cached_bytes) : max_cached_(max_cached_bytes) {}
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool();

  // The size class a request of `bytes` is served from (what Acquire allocates).
  static size_t Capacity(size_t bytes);
  // A block of Capacity(bytes) bytes, or null when out of memory.
  void* Acquire(size_t bytes);
  // Returns a block obtained from Acquire (capacity = Capacity(its request)).
  void Release(void* block, size_t capacity);
  size_t cached_bytes() const;

  // Plain allocation of a block of `capacity` bytes with the alignment rule above, and
  // its inverse; used for unpooled tensors too.
  static void* AllocateBlock(size_t capacity);
  static void FreeBlock(void* block, size_t capacity);

 private:
  size_t max_cached_;
  mutable std::mutex mu_;
  size_t cached_ = 0;
  std::map<size_t, std::vector<void*>> free_;
};

}  // namespace onnx_light
