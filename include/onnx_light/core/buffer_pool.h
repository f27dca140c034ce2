// BufferPool: recycles large tensor buffers between runs of a session.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <vector>

namespace onnx_light {

// Blocks are kept after their tensors die and handed out again for the same size class, so
// a session that runs repeatedly neither page-faults fresh memory nor calls the allocator
// every run: large blocks (>= kMinPooledBytes) by 64 KiB class (whole huge pages from 2 MiB,
// 2 MiB-aligned and advised as huge pages), small ones by 64-byte class (at most
// kSmallPerClass each). At most `max_cached_bytes` stay cached; the rest is freed.
//
// Lock-free. Release may be called from any thread at any time (a caller's output tensor
// dies wherever the caller drops it): it pushes the block onto an atomic list, writing
// the link into the block itself. Acquire is for one thread at a time, the run that owns
// the frame the pool belongs to: it takes the whole returned list with one exchange and
// files it into per-class lists only it touches. A block whose tensor outlives the pool
// is simply freed.
class BufferPool {
 public:
  static constexpr size_t kMinPooledBytes = size_t{64} << 10;
  static constexpr size_t kSmallPerClass = 64;

  explicit BufferPool(size_t max_cached_bytes) : max_cached_(max_cached_bytes) {}
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool();

  // The size class a request of `bytes` is served from (what Acquire allocates).
  static size_t Capacity(size_t bytes);
  // A block of at least Capacity(bytes) bytes (a cached one up to a quarter larger), its
  // capacity in *capacity, or null when out of memory. One thread at a time.
  void* Acquire(size_t bytes, size_t* capacity);
  // Returns a block obtained from Acquire (with the capacity Acquire gave). Any thread.
  void Release(void* block, size_t capacity);
  size_t cached_bytes() const;
  // Frees every cached block (those released so far). One thread at a time, as Acquire.
  void Trim();

  // Plain allocation of a block of `capacity` bytes with the alignment rule above, and
  // its inverse; used for unpooled tensors too.
  static void* AllocateBlock(size_t capacity);
  static void FreeBlock(void* block, size_t capacity);

 private:
  struct Returned {  // written into a returned block's first bytes
    Returned* next;
    size_t capacity;
  };
  // Files the blocks released since the last call into the lists below.
  void Collect();

  size_t max_cached_;
  std::atomic<size_t> cached_{0};
  std::atomic<Returned*> returned_{nullptr};
  // Only Acquire (and the destructor) touch these.
  std::map<size_t, std::vector<void*>> free_;
  std::vector<std::vector<void*>> small_ = std::vector<std::vector<void*>>(kMinPooledBytes / 64);
};

}  // namespace onnx_light
