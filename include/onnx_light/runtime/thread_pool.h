// A small fixed-size thread pool for intra-op parallelism.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace onnx_light {

// What ParallelFor runs: a reference to any callable taking (begin, end), valid for the
// call. Unlike std::function it neither owns nor copies the callable, so each lambda costs
// one small call stub rather than a std::function's manager and invoker (0.1 MB over the
// kernels), and passing one allocates nothing.
class ParallelBody {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ParallelBody>>>
  ParallelBody(F&& f) noexcept  // NOLINT: implicit, as a std::function parameter would be
      : callable_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_(&Call<std::remove_reference_t<F>>) {}
  void operator()(int64_t begin, int64_t end) const { call_(callable_, begin, end); }

 private:
  template <typename F>
  static void Call(void* f, int64_t begin, int64_t end) {
    (*static_cast<F*>(f))(begin, end);
  }
  void* callable_;
  void (*call_)(void*, int64_t, int64_t);
};

class ThreadPool {
 public:
  // `threads` counts the calling thread: 1 runs everything inline and starts no thread.
  explicit ThreadPool(int threads);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

  int threads() const noexcept { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint chunks covering [0, n), each at least `min_chunk`
  // long (so a caller that wants k parts passes n / k rounded down: rounded up, an n that
  // is not a multiple of k gets one chunk, on one thread), and returns when all are done; the first
  // exception fn throws is rethrown here once all chunks ended. Any thread may call it; one finding
  // the workers busy runs inline. In a process forked after the pool started (a multiprocessing or
  // Spark worker), whose copy has none of the worker threads, the first call starts new workers.
  void ParallelFor(int64_t n, int64_t min_chunk, ParallelBody fn);

 private:
  void WorkerLoop();
  // Runs one unclaimed chunk of the section `state` names; false when none is left.
  bool RunOneChunk(uint64_t state);
  // In a forked child: forgets the parent's workers (never joined: they do not exist
  // here), replaces the sleep lock a vanished worker may have held, starts new workers.
  void RestartAfterFork();
  // Moves the parent's worker handles and sleep state (see RestartAfterFork) where they are
  // never destroyed.
  void AbandonAfterFork();
  void StartWorkers(int count);

  std::vector<std::thread> workers_;
  // A section: generation, chunk count and next unclaimed chunk in one word.
  // Workers poll it for a while after each section, then sleep on sleep_->wake; its mutex
  // guards only that sleep, never a section.
  std::atomic<uint64_t> state_{0};
  std::atomic<int> done_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> busy_{false};
  const ParallelBody* job_ = nullptr;
  int64_t job_n_ = 0;
  int64_t job_chunk_ = 0;
  struct Sleep {
    std::mutex mu;
    std::condition_variable wake;
  };
  std::unique_ptr<Sleep> sleep_ = std::make_unique<Sleep>();
  // The process's fork count when the workers started (see RestartAfterFork).
  std::atomic<uint32_t> forks_seen_{0};
  std::mutex restart_mu_;
};

}  // namespace onnx_light
