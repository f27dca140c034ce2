#include "onnx_light/core/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "onnx_light/core/tensor.h"

namespace onnx_light {
namespace {

TEST(BufferPool, SizeClasses) {
  EXPECT_EQ(BufferPool::Capacity(0), 64u);
  EXPECT_EQ(BufferPool::Capacity(1), 64u);
  EXPECT_EQ(BufferPool::Capacity(65), 128u);
  EXPECT_EQ(BufferPool::Capacity(64 << 10), size_t{64} << 10);
  EXPECT_EQ(BufferPool::Capacity((64 << 10) + 1), size_t{128} << 10);
  EXPECT_EQ(BufferPool::Capacity(size_t{2} << 20), size_t{2} << 20);
  EXPECT_EQ(BufferPool::Capacity((size_t{2} << 20) + 1), size_t{4} << 20);
}

TEST(BufferPool, RecyclesLargeBlocksWithinTheCap) {
  BufferPool pool(size_t{8} << 20);
  size_t cap = 0;
  void* a = pool.Acquire(size_t{3} << 20, &cap);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(cap, size_t{4} << 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % (size_t{2} << 20), 0u);  // huge-page aligned
  pool.Release(a, cap);
  EXPECT_EQ(pool.cached_bytes(), size_t{4} << 20);
  EXPECT_EQ(pool.Acquire((size_t{3} << 20) + 5, &cap), a);  // same class: the same block
  EXPECT_EQ(pool.cached_bytes(), 0u);
  void* big = pool.Acquire(size_t{10} << 20, &cap);
  pool.Release(big, cap);  // over the cap: freed
  EXPECT_EQ(pool.cached_bytes(), 0u);
  void* small = pool.Acquire(100, &cap);  // small blocks are cached by 64-byte class
  EXPECT_EQ(cap, 128u);
  pool.Release(small, cap);
  EXPECT_EQ(pool.cached_bytes(), 128u);
  EXPECT_EQ(pool.Acquire(120, &cap), small);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.Release(small, cap);
  pool.Release(a, size_t{4} << 20);
}

// A request takes the smallest cached block up to a quarter larger than its class (and
// says so, for the release); a larger one, or a smaller one, is not taken.
TEST(BufferPool, BestFitWithinAQuarter) {
  BufferPool pool(size_t{64} << 20);
  size_t cap = 0;
  void* b640 = pool.Acquire(size_t{640} << 10, &cap);
  ASSERT_EQ(cap, size_t{640} << 10);
  void* b1m = pool.Acquire(size_t{1} << 20, &cap);
  pool.Release(b640, size_t{640} << 10);
  pool.Release(b1m, size_t{1} << 20);
  EXPECT_EQ(pool.Acquire(size_t{576} << 10, &cap), b640);  // 640 <= 576 * 1.25
  EXPECT_EQ(cap, size_t{640} << 10);
  void* fresh = pool.Acquire(size_t{512} << 10, &cap);  // 1 MiB is more than a quarter over
  EXPECT_NE(fresh, b1m);
  EXPECT_EQ(cap, size_t{512} << 10);
  void* big = pool.Acquire(size_t{1100} << 10, &cap);  // the cached 1 MiB is too small
  EXPECT_NE(big, b1m);
  EXPECT_EQ(pool.cached_bytes(), size_t{1} << 20);
  pool.Release(b640, size_t{640} << 10);
  pool.Release(fresh, size_t{512} << 10);
  pool.Release(big, BufferPool::Capacity(size_t{1100} << 10));
}

// A miss while idle blocks too small for the request add up to its size gives them back,
// the largest first, until the idle bytes are below its size, before allocating: idle
// blocks do not pile up size by size.
TEST(BufferPool, AMissGivesBackIdleBlocksTooSmallForIt) {
  BufferPool pool(size_t{64} << 20);
  size_t cap = 0;
  std::vector<void*> blocks;
  for (int i = 1; i <= 4; ++i)  // 1, 2, 3 and 4 x 256 KiB: 2.5 MiB idle
    blocks.push_back(pool.Acquire(static_cast<size_t>(i) << 18, &cap));
  for (int i = 0; i < 4; ++i)
    pool.Release(blocks[static_cast<size_t>(i)], static_cast<size_t>(i + 1) << 18);
  pool.Acquire(0, &cap);  // (files the released blocks)
  pool.Release(pool.Acquire(64, &cap), cap);
  EXPECT_EQ(pool.cached_bytes(), (size_t{10} << 18) + 64);
  void* big = pool.Acquire(size_t{2} << 20, &cap);  // 2 MiB: none fits, 2.5 MiB idle
  // 1 MiB given back (1.5 MiB idle is below 2 MiB): 768, 512, 256 KiB and the small stay.
  EXPECT_EQ(pool.cached_bytes(), (size_t{6} << 18) + 64);
  EXPECT_EQ(pool.Acquire(size_t{1} << 18, &cap), blocks[0]);
  pool.Release(blocks[0], size_t{1} << 18);
  pool.Release(big, size_t{2} << 20);
  // Idle bytes below the request's size: nothing is given back.
  void* huge = pool.Acquire(size_t{8} << 20, &cap);
  EXPECT_EQ(pool.cached_bytes(), (size_t{6} << 18) + (size_t{2} << 20) + 64);
  pool.Release(huge, cap);
}

TEST(BufferPool, TensorsReturnTheirBuffersAndMayOutliveThePool) {
  auto pool = std::make_shared<BufferPool>(size_t{64} << 20);
  const void* first = nullptr;
  {
    Tensor t = *Tensor::Allocate(DataType::kFloat, *Shape::Create({1 << 20}), pool);
    first = t.raw_data();
  }
  EXPECT_EQ(pool->cached_bytes(), size_t{4} << 20);
  Tensor again = *Tensor::Allocate(DataType::kFloat, *Shape::Create({1 << 20}), pool);
  EXPECT_EQ(again.raw_data(), first);
  again.mutable_data<float>()[(1 << 20) - 1] = 1.0f;
  pool.reset();  // the tensor keeps working and frees its block itself
  EXPECT_EQ(again.data<float>()[(1 << 20) - 1], 1.0f);
}

// Tensors die on other threads while the owner keeps acquiring: every block comes back
// exactly once (ASan and TSan builds run this too).
TEST(BufferPool, ReleasesFromManyThreadsWhileTheOwnerAcquires) {
  auto pool = std::make_shared<BufferPool>(size_t{256} << 20);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::vector<std::vector<Tensor>> handed(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const int64_t n = (i % 3 == 0) ? (20 << 10) : 16 + i % 100;  // large and small
      handed[t].push_back(*Tensor::Allocate(DataType::kFloat, *Shape::Create({n}), pool));
      handed[t].back().mutable_data<float>()[0] = static_cast<float>(t);
    }
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&handed, t] { handed[t].clear(); });
  }
  std::vector<Tensor> mine;
  for (int i = 0; i < 4000; ++i) {
    mine.push_back(*Tensor::Allocate(DataType::kFloat, *Shape::Create({16 + i % 100}), pool));
    mine.back().mutable_data<float>()[0] = 1.0f;
    if (mine.size() > 50) mine.clear();
  }
  for (std::thread& th : threads)
    th.join();
  mine.clear();
  EXPECT_GT(pool->cached_bytes(), 0u);
  EXPECT_LE(pool->cached_bytes(), size_t{256} << 20);
  // Everything cached is handed out again before anything new is allocated.
  Tensor again = *Tensor::Allocate(DataType::kFloat, *Shape::Create({20 << 10}), pool);
  EXPECT_NE(again.raw_data(), nullptr);
}

}  // namespace
}  // namespace onnx_light
