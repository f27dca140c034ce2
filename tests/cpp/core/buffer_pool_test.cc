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
  void* a = pool.Acquire(size_t{3} << 20);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % (size_t{2} << 20), 0u);  // huge-page aligned
  pool.Release(a, BufferPool::Capacity(size_t{3} << 20));
  EXPECT_EQ(pool.cached_bytes(), size_t{4} << 20);
  EXPECT_EQ(pool.Acquire((size_t{3} << 20) + 5), a);  // same class: the same block
  EXPECT_EQ(pool.cached_bytes(), 0u);
  void* big = pool.Acquire(size_t{10} << 20);
  pool.Release(big, BufferPool::Capacity(size_t{10} << 20));  // over the cap: freed
  EXPECT_EQ(pool.cached_bytes(), 0u);
  void* small = pool.Acquire(100);  // small blocks are cached by 64-byte class
  pool.Release(small, BufferPool::Capacity(100));
  EXPECT_EQ(pool.cached_bytes(), 128u);
  EXPECT_EQ(pool.Acquire(120), small);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.Release(small, BufferPool::Capacity(120));
  pool.Release(a, BufferPool::Capacity(size_t{3} << 20));
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
