// The intra-op pool: every index covered exactly once, sections back to back (workers
// polling), after a pause (workers asleep), nested, from several callers at once, and in a
// forked child, whose copy of the pool has none of the worker threads.
#include "onnx_light/runtime/thread_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "onnx_light/runtime/cpu.h"

namespace onnx_light {
namespace {

void ExpectEachIndexOnce(ThreadPool& pool, int64_t n, int64_t min_chunk) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  pool.ParallelFor(n, min_chunk, [&](int64_t begin, int64_t end) {
    ASSERT_LE(0, begin);
    ASSERT_LE(begin, end);
    ASSERT_LE(end, n);
    for (int64_t i = begin; i < end; ++i)
      hits[static_cast<size_t>(i)].fetch_add(1);
  });
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << n;
}

TEST(ThreadPool, CoversEveryIndexOnceBackToBackAndAfterSleeping) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int round = 0; round < 2000; ++round)
      ExpectEachIndexOnce(pool, 1 + round % 97, 1 + round % 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // workers go to sleep
    ExpectEachIndexOnce(pool, 1000, 1);
    ExpectEachIndexOnce(pool, 0, 1);
  }
}

TEST(ThreadPool, UsesTheWorkersWhenTheyAreFree) {
  ThreadPool pool(2);
  std::atomic<int> other_thread{0};
  const std::thread::id caller = std::this_thread::get_id();
  // Each chunk takes long enough that the caller cannot claim both.
  for (int round = 0; round < 20 && other_thread.load() == 0; ++round) {
    pool.ParallelFor(2, 1, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() != caller) other_thread.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
  }
  EXPECT_GT(other_thread.load(), 0);
}

TEST(ThreadPool, NestedAndConcurrentCallersRunInline) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  auto work = [&] {
    for (int r = 0; r < 300; ++r) {
      pool.ParallelFor(8, 1, [&](int64_t b, int64_t e) {
        pool.ParallelFor(e - b, 1, [&](int64_t b2, int64_t e2) { total.fetch_add(e2 - b2); });
      });
    }
  };
  std::thread a(work), b(work);
  work();
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 3 * 300 * 8);
}

// A chunk that throws on a worker thread must not terminate the process, nor one on the
// caller's thread unwind it while the workers still run chunks: the first exception comes
// out of ParallelFor after every chunk has ended, and the pool keeps working.
TEST(ThreadPool, AnExceptionInAChunkIsRethrownToTheCallerAfterAllChunksEnd) {
  ThreadPool pool(3);
  const std::thread::id caller = std::this_thread::get_id();
  for (bool on_worker : {true, false}) {
    std::atomic<int> ended{0};
    std::atomic<bool> threw{false};
    bool caught = false;
    for (int round = 0; round < 50 && !threw.load(); ++round) {
      try {
        pool.ParallelFor(3, 1, [&](int64_t, int64_t) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          if ((std::this_thread::get_id() != caller) == on_worker && !threw.exchange(true)) {
            throw std::runtime_error("chunk failed");
          }
          ended.fetch_add(1);
        });
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "chunk failed");
        caught = true;
        // Every other chunk of the section had ended before it came out.
        EXPECT_EQ(ended.load(), 3 * (round + 1) - 1);
      }
    }
    EXPECT_TRUE(threw.load()) << (on_worker ? "no chunk ran on a worker" : "none on the caller");
    EXPECT_TRUE(caught);
    ExpectEachIndexOnce(pool, 1000, 1);
  }
}

// Runs `child` in a forked process (killed by an alarm if it hangs); its exit status.
template <typename Fn>
int InForkedChild(Fn child) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(20);
    _exit(child());
  }
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

TEST(ThreadPool, AForkedChildUsesAndDestroysAPoolStartedBeforeTheFork) {
  for (int threads : {2, 3}) {
    auto pool = std::make_unique<ThreadPool>(threads);
    ExpectEachIndexOnce(*pool, 1000, 1);  // the workers have run, and now sleep or poll
    // Used in the child: new workers serve it, every index once, then it is destroyed.
    EXPECT_EQ(InForkedChild([&] {
                std::vector<std::atomic<int>> hits(1000);
                for (int round = 0; round < 50; ++round)
                  pool->ParallelFor(1000, 1, [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i)
                      hits[static_cast<size_t>(i)].fetch_add(1);
                  });
                for (auto& h : hits)
                  if (h.load() != 50) return 2;
                if (pool->threads() != threads) return 3;
                std::atomic<int> other_thread{0};
                const std::thread::id caller = std::this_thread::get_id();
                for (int round = 0; round < 20 && other_thread.load() == 0; ++round)
                  pool->ParallelFor(2, 1, [&](int64_t, int64_t) {
                    if (std::this_thread::get_id() != caller) other_thread.fetch_add(1);
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                  });
                if (other_thread.load() == 0) return 4;  // no worker in the child
                pool.reset();
                return 0;
              }),
              0)
        << threads << " threads";
    // Never used in the child: destroying it must not wait for the parent's workers.
    EXPECT_EQ(InForkedChild([&] {
                pool.reset();
                return 0;
              }),
              0)
        << threads << " threads";
    ExpectEachIndexOnce(*pool, 1000, 1);  // the parent's pool is untouched
  }
}

TEST(ThreadPool, PhysicalCoresIsBetweenOneAndTheLogicalCount) {
  const int cores = PhysicalCores();
  EXPECT_GE(cores, 1);
  EXPECT_LE(static_cast<unsigned>(cores), std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace onnx_light
